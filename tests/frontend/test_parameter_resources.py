"""Large Parameters as `dense_resource<handle>` initial values (ir/resources.py):
the frontend emits them, the CPU executor reads their blob, a missing blob means no value."""

from __future__ import annotations

import gc

import numpy as np
import parameter_resource_programs as P
import pytest
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, DenseResourceAttr, TensorType
from xdsl.dialects.ml_program import GlobalOp

import mindjit as ms
from mindjit.backend.cpu import CpuExecutable, ExecutionError
from mindjit.dialects.mindir.effects import ParameterOp
from mindjit.dialects.parsing import parse_module
from mindjit.frontend import context as C
from mindjit.frontend.graph import api
from mindjit.frontend.graph.module_builder import parameter_value_attr
from mindjit.frontend.graph.program import new_compiler
from mindjit.ir import resources
from mindjit.passes.pipelines import lower_to_tensor

F32 = np.float32


@pytest.fixture(autouse=True)
def _context():
    C.reset_context()
    api.clear_cache()
    yield
    C.reset_context()
    api.clear_cache()


def frontend_parameters(net, *args) -> dict[str, ParameterOp]:
    """The `mindir.parameter` ops the frontend emits for `net(*args)`, by symbol."""
    compiler = new_compiler()
    compiler.entry(type(net).construct, net, args, {}, "entry")
    return {
        op.sym_name.data: op
        for op in compiler.module.module.body.block.ops
        if isinstance(op, ParameterOp)
    }


def lowered_globals(program) -> dict[str, GlobalOp]:
    return {
        op.sym_name.data: op for op in program.module.body.block.ops if isinstance(op, GlobalOp)
    }


def x_input(seed: int = 1) -> ms.Tensor:
    return ms.Tensor(np.random.default_rng(seed).standard_normal((2, 64)).astype(F32))


def reference(net: P.BigAndSmall, x: ms.Tensor) -> np.ndarray:
    return x.asnumpy() @ net.big.asnumpy() + net.small.asnumpy().sum()


# -- the frontend's IR ----------------------------------------------------------------------


def test_large_parameter_is_a_dense_resource_and_a_small_one_stays_inline():
    net = P.BigAndSmall()
    params = frontend_parameters(net, x_input())
    big, small = params["big"].initial_value, params["small"].initial_value
    assert isinstance(big, DenseResourceAttr)
    assert big.type == TensorType(ms.float32.mlir, [64, 64])
    assert params["big"].type == big.type
    assert isinstance(small, DenseIntOrFPElementsAttr)
    np.testing.assert_array_equal(np.frombuffer(small.data.data, F32), np.arange(4, dtype=F32))
    # the blob is the live Parameter's own array: nothing was copied
    assert resources.blob(big.resource_handle.data) is net.big.asnumpy()
    text = str(params["big"])
    assert text.startswith("mindir.parameter @big = dense_resource<") and len(text) < 200


def test_lowered_module_keeps_the_resource_and_stays_small():
    net = P.BigAndSmall()
    program = api.compile_cell(net, (x_input(),))
    globals_ = lowered_globals(program)
    assert isinstance(globals_["big"].value, DenseResourceAttr)
    assert isinstance(globals_["small"].value, DenseIntOrFPElementsAttr)
    assert globals_["big"].is_mutable is not None
    # 4096 f32 values printed inline would be tens of kilobytes
    assert len(str(program.module)) < 4000


def test_inline_limit_boundary():
    limit = resources.INLINE_LIMIT_BYTES
    assert limit == 4096
    at_limit = ms.Parameter(ms.Tensor(np.ones(limit // 4, F32)), name="at")
    above = ms.Parameter(ms.Tensor(np.ones(limit // 4 + 1, F32)), name="above")
    assert isinstance(parameter_value_attr("at", at_limit), DenseIntOrFPElementsAttr)
    attr = parameter_value_attr("above", above)
    assert isinstance(attr, DenseResourceAttr)
    assert attr.resource_handle.data.startswith("above")
    assert resources.blob(attr.resource_handle.data) is above.asnumpy()
    # the limit is in bytes, not elements: 2049 f16 values (4098 bytes) are a resource
    half = ms.Parameter(ms.Tensor(np.ones(limit // 2 + 1, np.float16)), name="half")
    assert isinstance(parameter_value_attr("half", half), DenseResourceAttr)
    few_f64 = ms.Parameter(ms.Tensor(np.ones(limit // 8, np.float64)), name="f64")
    assert isinstance(parameter_value_attr("f64", few_f64), DenseIntOrFPElementsAttr)


def test_each_hold_gets_its_own_handle():
    net = P.BigAndSmall()
    a = parameter_value_attr("big", net.big)
    b = parameter_value_attr("big", net.big)
    assert a.resource_handle != b.resource_handle


# -- running --------------------------------------------------------------------------------


def test_graph_equals_pynative_with_a_resource_parameter():
    net = P.BigAndSmall()
    x = x_input()
    eager = net(x).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    graph = net(x).asnumpy()
    np.testing.assert_array_equal(graph, eager)
    np.testing.assert_allclose(graph, reference(net, x), rtol=1e-5, atol=1e-5)
    (program,) = api.cached_programs()
    assert isinstance(lowered_globals(program)["big"].value, DenseResourceAttr)


def test_executable_starts_from_the_resource_value():
    net = P.BigAndSmall()
    program = api.compile_cell(net, (x_input(),))
    exe = program.executable
    value = exe.get_global("big")
    np.testing.assert_array_equal(value, net.big.asnumpy())
    assert value is not net.big.asnumpy() and value.flags.writeable  # the buffer is a copy
    value[0, 0] += 1.0
    assert net.big.asnumpy()[0, 0] != value[0, 0]


def test_set_data_is_used_by_the_next_graph_call():
    net = P.BigAndSmall()
    x = x_input()
    ms.set_context(mode=ms.GRAPH_MODE)
    first = net(x).asnumpy()
    new = np.full((64, 64), 0.5, F32)
    net.big.set_data(ms.Tensor(new))
    second = net(x).asnumpy()
    assert len(api.cached_programs()) == 1  # same program, new value
    np.testing.assert_allclose(second, x.asnumpy() @ new + 6.0, rtol=1e-5)
    assert not np.allclose(first, second)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_array_equal(net(x).asnumpy(), second)


def test_in_place_change_is_used_by_the_next_graph_call():
    net = P.BigAndSmall()
    x = x_input()
    ms.set_context(mode=ms.GRAPH_MODE)
    net(x)
    net.big.asnumpy()[...] = 2.0
    np.testing.assert_allclose(net(x).asnumpy(), x.asnumpy() @ np.full((64, 64), 2.0) + 6.0, 1e-5)


def test_graph_assign_to_a_resource_parameter_is_written_back():
    net = P.Accumulate()
    assert net.acc.nbytes > resources.INLINE_LIMIT_BYTES
    x = ms.Tensor(np.ones((40, 40), F32))
    ms.set_context(mode=ms.GRAPH_MODE)
    out = net(x)
    np.testing.assert_array_equal(out.asnumpy(), np.full((40, 40), 2.0, F32))
    np.testing.assert_array_equal(net.acc.asnumpy(), np.ones((40, 40), F32))
    net(x)
    np.testing.assert_array_equal(net.acc.asnumpy(), np.full((40, 40), 2.0, F32))
    (program,) = api.cached_programs()
    assert isinstance(lowered_globals(program)["acc"].value, DenseResourceAttr)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_array_equal(net(x).asnumpy(), np.full((40, 40), 6.0, F32))


# -- the weak hold --------------------------------------------------------------------------


class Owner:
    def __init__(self, value: np.ndarray):
        self.value = value


def test_blob_reads_the_current_value_and_is_gone_with_its_owner():
    owner = Owner(np.array([1.0, 2.0], F32))
    handle = resources.hold("w", owner, lambda o: o.value)
    assert handle.startswith("w_")
    assert resources.blob(handle) is owner.value
    owner.value = np.array([3.0, 4.0], F32)
    assert resources.blob(handle) is owner.value  # read on each call, not a snapshot
    assert resources.has_blob(handle)
    del owner
    gc.collect()
    assert resources.blob(handle) is None and not resources.has_blob(handle)
    assert resources.blob("never_registered") is None
    assert not resources.has_blob("never_registered")


def test_parameter_blob_is_gone_after_the_cell_is_collected():
    net = P.BigAndSmall()
    params = frontend_parameters(net, x_input())
    handle = params["big"].initial_value.resource_handle.data
    program = api.compile_cell(net, (x_input(),))
    assert resources.blob(handle) is net.big.asnumpy()
    del params, program, net
    api.clear_cache()
    gc.collect()
    assert resources.blob(handle) is None


# -- the CPU executor on a module whose blob is missing --------------------------------------

NO_BLOB = """
ml_program.global private mutable @w(dense_resource<nohandle> : tensor<2xf32>) : tensor<2xf32>
ml_program.global private mutable @v(dense<[7.0, 8.0]> : tensor<2xf32>) : tensor<2xf32>
func.func @read() -> tensor<2xf32> {
  %x = ml_program.global_load @w : tensor<2xf32>
  func.return %x : tensor<2xf32>
}
"""

NO_BLOB_MINDIR = """
mindir.parameter @w = dense_resource<nohandle> : tensor<2xf32>
func.func @read(%u: !mindir.u) -> tensor<2xf32> {
  %p = mindir.get_parameter @w : !mindir.ref<tensor<2xf32>>
  %l = mindir.load %p, %u : tensor<2xf32>
  func.return %l : tensor<2xf32>
}
"""


def check_missing_blob(exe: CpuExecutable, file: str, load_line: int, *args) -> None:
    assert "w" not in exe.live_globals.pending and "w" not in exe.live_globals
    assert "w" not in exe.globals  # materializing everything does not invent a value
    with pytest.raises(ExecutionError, match=rf"{file}:\d+:\d+: error: global @w has no value yet"):
        exe.get_global("w")
    with pytest.raises(
        ExecutionError,
        match=rf"{file}:{load_line}:\d+: error: global @w is read before it has a value",
    ):
        exe.run("read", *args)
    exe.set_global("w", np.array([1.0, 2.0], F32))
    np.testing.assert_array_equal(exe.run("read", *args)[0], [1.0, 2.0])


def test_lowered_global_without_blob_has_no_initial_value():
    module = parse_module(NO_BLOB, "noblob.mlir")
    glob = next(op for op in module.body.block.ops if isinstance(op, GlobalOp))
    assert glob.sym_name.data == "w" and isinstance(glob.value, DenseResourceAttr)
    exe = CpuExecutable(module)
    np.testing.assert_array_equal(exe.get_global("v"), [7.0, 8.0])  # others are unaffected
    check_missing_blob(exe, "noblob.mlir", 5)


def test_mindir_parameter_without_blob_has_no_initial_value():
    module = parse_module(NO_BLOB_MINDIR, "noblob.mlir")
    lower_to_tensor(module)
    exe = CpuExecutable(module)
    check_missing_blob(exe, "noblob.mlir", 5)


def with_resource(text: str, handle: str) -> CpuExecutable:
    """Parse `text` (global @w without a value) and give @w the value dense_resource<handle>."""
    module = parse_module(text, "res.mlir")
    glob = next(op for op in module.body.block.ops if isinstance(op, GlobalOp))
    glob.properties["value"] = DenseResourceAttr.from_params(handle, glob.type)
    return CpuExecutable(module)


HELD = """
ml_program.global private mutable @w : tensor<2xf32>
func.func @read() -> tensor<2xf32> {
  %x = ml_program.global_load @w : tensor<2xf32>
  func.return %x : tensor<2xf32>
}
"""


def test_executor_reads_a_live_blob_lazily():
    owner = Owner(np.array([1.0, 2.0], F32))
    handle = resources.hold("w", owner, lambda o: o.value)
    exe = with_resource(HELD, handle)
    assert "w" in exe.live_globals.pending and "w" not in dict(exe.live_globals)
    np.testing.assert_array_equal(exe.run("read")[0], [1.0, 2.0])
    assert "w" not in exe.live_globals.pending
    buf = exe.get_global("w")
    assert buf is not owner.value and buf.flags.writeable
    buf[0] = 9.0
    assert owner.value[0] == 1.0  # the executor's buffer never writes into the blob


def test_executor_blob_gone_before_the_executable_is_built():
    owner = Owner(np.array([1.0, 2.0], F32))
    handle = resources.hold("w", owner, lambda o: o.value)
    del owner
    gc.collect()
    exe = with_resource(HELD, handle)
    with pytest.raises(ExecutionError, match="global @w has no value yet"):
        exe.get_global("w")


def test_executor_blob_gone_before_first_use():
    owner = Owner(np.array([1.0, 2.0], F32))
    handle = resources.hold("w", owner, lambda o: o.value)
    exe = with_resource(HELD, handle)
    del owner
    gc.collect()
    with pytest.raises(ExecutionError, match=rf"dense_resource<{handle}> has no blob"):
        exe.get_global("w")


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (np.zeros(3, np.float64), r"holds float64\[3\], expected tensor<2xf32>"),
        (np.zeros(2, np.int32), r"holds int32\[2\], expected tensor<2xf32>"),
        (np.zeros((1, 2), F32), r"holds float32\[1, 2\], expected tensor<2xf32>"),
    ],
)
def test_executor_rejects_a_blob_of_another_type(value, message):
    owner = Owner(value)
    handle = resources.hold("w", owner, lambda o: o.value)
    exe = with_resource(HELD, handle)  # the blob is read at first use
    with pytest.raises(ExecutionError, match=rf"res.mlir:2:1: error: dense_resource<{handle}> "):
        exe.get_global("w")
    with pytest.raises(ExecutionError, match=message):
        with_resource(HELD, handle).run("read")


def test_executor_reads_the_blob_current_at_first_use():
    owner = Owner(np.array([1.0, 2.0], F32))
    handle = resources.hold("w", owner, lambda o: o.value)
    exe = with_resource(HELD, handle)
    owner.value = np.array([5.0, 6.0], F32)  # e.g. Parameter.set_data before the first run
    np.testing.assert_array_equal(exe.get_global("w"), [5.0, 6.0])
