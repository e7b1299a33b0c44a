"""The serializer's and the device executable's own error paths and contracts."""

from __future__ import annotations

import numpy as np
import pytest
from ascend_programs import REUSE, STATE

from mindjit.backend.ascend.compile import compile_for_device
from mindjit.backend.ascend.executable import AscendExecutable
from mindjit.backend.ascend.passes.ascend_cell_reuse import inline_all
from mindjit.backend.ascend.serialize import serialize
from mindjit.backend.ascend.simulator import Simulator
from mindjit.dialects.ascend import KernelOp
from mindjit.dialects.parsing import parse_module
from mindjit.passes.pipelines import compile_to_tensor
from mindjit.support.errors import MindjitError


def _tensor_module(text: str):
    module = parse_module(text, "<test>")
    compile_to_tensor(module)
    return module


def test_serializing_without_a_memory_plan_is_an_error():
    with pytest.raises(MindjitError, match="no memory plan"):
        serialize(_tensor_module(STATE))


def test_an_assign_to_an_unknown_parameter_is_a_located_error():
    module = _tensor_module(STATE)
    compile_for_device(module)
    assign = next(op for op in module.walk() if isinstance(op, KernelOp) and op.writes is not None)
    from xdsl.dialects.builtin import SymbolRefAttr

    assign.properties["writes"] = SymbolRefAttr("nope")
    with pytest.raises(MindjitError, match="writes @nope, which is no Parameter"):
        serialize(module)


def test_equal_kernels_share_one_code():
    model = compile_for_device(_tensor_module(REUSE), cell_reuse=2)
    kernels = [s for g in model.graphs for s in g.sequence if s.op == "kernel"]
    tanh = [s.code for s in kernels if s.name == "Tanh"]
    assert len(tanh) == 2 and tanh[0] == tanh[1]


def test_recursive_graphs_cannot_be_inlined():
    text = """
    func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
      %y = func.call @f(%x) : (tensor<2xf32>) -> tensor<2xf32>
      func.return %y : tensor<2xf32>
    }
    func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
      %y = func.call @f(%x) : (tensor<2xf32>) -> tensor<2xf32>
      func.return %y : tensor<2xf32>
    }
    """
    with pytest.raises(MindjitError, match="recursive call of @f"):
        inline_all(parse_module(text, "<test>"))


def test_kernels_after_a_call_start_after_it():
    """A reused graph's call is a barrier on every stream."""
    model = compile_for_device(_tensor_module(REUSE), cell_reuse=1, streams=2)
    sim = Simulator(model)
    sim.run([np.ones(2, np.float32)])
    kernels = sim.report["kernels"]
    copies = [k for k in kernels if k["name"] == "MemCopy"]
    assert copies
    first_copy_end = copies[0]["start_us"] + copies[0]["duration_us"]
    after = kernels[kernels.index(copies[0]) + 1 :]
    assert after and all(k["start_us"] >= first_copy_end for k in after)


def test_unwritten_parameters_come_back_as_the_arrays_given():
    """Graph mode copies a Parameter back only when the device may have changed it."""
    exe = AscendExecutable(_tensor_module(REUSE), "Net_construct")
    w0 = np.array([0.5, 1.5], np.float32)
    exe.set_global("w0", w0)
    exe.run("Net_construct", np.ones(2, np.float32))
    assert exe.get_global("w0") is w0
    state = AscendExecutable(_tensor_module(STATE), "step")
    w = np.array([1.0, 2.0, 3.0], np.float32)
    state.set_global("w", w)
    state.run("step", np.ones(3, np.float32))
    assert state.get_global("w") is not w  # an Assign wrote it
    np.testing.assert_allclose(state.get_global("w"), w + [0.5, -1.0, 2.0])
