"""Every mindir op is complete at every stage of the compiler.

For each op the `MindIR` dialect registers (dialects/mindir/__init__.py), this
test asks each stage's per-op table (keyed by op class, `mindjit.ir.rules`) for
its rule, or for the reason it has none, and then runs the op's example
(op_examples.py) through the whole compiler: the mindir pipeline, the lowering
to upstream dialects, the CPU executor on random inputs, and kernel selection
for the Ascend-like device. A new op fails here, naming every stage that still
lacks it, until it is complete (docs/op-registry.md says where each rule goes).
"""

from __future__ import annotations

import numpy as np
import pytest
from op_examples import example
from xdsl.dialects.builtin import IntegerType, TensorType

from mindjit.backend.ascend.compile import compile_for_device
from mindjit.backend.cpu import CpuExecutable
from mindjit.backend.cpu.registry import BUILDERS
from mindjit.dialects.context import make_context
from mindjit.dialects.mindir import MindIR
from mindjit.dialects.parsing import parse_module
from mindjit.passes.mindir_grad.rules import RULES as ADJOINTS
from mindjit.passes.mindir_to_tensor.convert_mindir_to_tensor import LOWERINGS
from mindjit.passes.mindir_to_tensor.rules import LOWERED_BY_STEP
from mindjit.passes.mindir_vmap import BATCHING
from mindjit.passes.pipelines import compile_to_tensor

OPS = sorted(MindIR.operations, key=lambda cls: cls.name)


def _stage_gaps(cls: type) -> list[str]:
    """What each stage's table says it lacks for `cls` (a rule or a stated reason)."""
    gaps = []
    if LOWERINGS.get(cls) is None and cls not in LOWERED_BY_STEP and not LOWERINGS.excluded(cls):
        gaps.append(
            "lowering: no rule in LOWERINGS (passes/mindir_to_tensor/rules.py; an "
            "elementwise op needs its scalar semantics in scalar.py)"
        )
    if ADJOINTS.get(cls) is None and not ADJOINTS.excluded(cls):
        gaps.append(
            "gradient: no adjoint rule and no stated exclusion (passes/mindir_grad/rules*.py)"
        )
    if BATCHING.get(cls) is None and not BATCHING.excluded(cls):
        gaps.append("vmap: no batching rule and no stated exclusion (passes/mindir_vmap.py)")
    return gaps


def _random_input(t: object, rng: np.random.Generator) -> np.ndarray:
    assert isinstance(t, TensorType)
    shape = tuple(t.get_shape())
    element = t.get_element_type()
    if isinstance(element, IntegerType) and element.width.data == 1:
        return np.asarray(rng.random(shape) < 0.5)
    if isinstance(element, IntegerType):
        return np.asarray(rng.integers(1, 5, shape), dtype=f"int{element.width.data}")
    return np.asarray(rng.random(shape) + 0.5, dtype=np.float32)


@pytest.mark.parametrize("cls", OPS, ids=lambda cls: cls.name)
def test_op_is_complete_at_every_stage(cls: type) -> None:
    text = example(cls)
    assert text is not None, f"{cls.name}: no example program in tests/registry/op_examples.py"
    module = parse_module(text, f"<example of {cls.name}>")
    assert any(type(op) is cls for op in module.walk()), f"the example does not use {cls.name}"
    gaps = _stage_gaps(cls)
    assert not gaps, f"{cls.name} is incomplete:\n" + "\n".join(gaps)

    lowered = compile_to_tensor(module)  # the mindir pipeline, then the lowering
    left = sorted({op.name for op in lowered.walk() if op.name.startswith("mindir.")})
    assert not left, f"{cls.name}: mindir ops left after lowering: {left}"

    exe = CpuExecutable(lowered)
    inputs, _ = exe.signature("f")
    rng = np.random.default_rng(0)
    outputs = exe.run("f", *[_random_input(t, rng) for t in inputs])
    assert outputs, f"{cls.name}: the example ran but gave no output"

    compile_for_device(lowered.clone())  # every lowered op gets a device kernel


@pytest.mark.parametrize("table", [BUILDERS, LOWERINGS, ADJOINTS, BATCHING], ids=lambda t: t.stage)
def test_every_class_a_table_names_is_the_one_its_dialect_registers(table) -> None:
    """A rule keyed by a class its dialect does not register under the class's name
    (a typo'd op, xDSL's ml_program op where mindjit registers its own) never fires."""
    ctx = make_context()
    wrong = [  # a base class (no name of its own) serves its registered subclasses
        f"{cls.__module__}.{cls.__name__} ({cls.name})"
        for cls in table
        if "name" in vars(cls) and ctx.get_optional_op(cls.name) is not cls
    ]
    assert not wrong, f"{table.stage}: classes no registered dialect has: {wrong}"


def test_every_op_name_the_cpu_executor_knows_exists_in_a_registered_dialect() -> None:
    """Its builders and the scalar ops of linalg bodies it evaluates."""
    from mindjit.backend.cpu.linalg_reduce import COMBINERS
    from mindjit.backend.cpu.scalar_fns import ELEMENTWISE_OPS

    ctx = make_context()
    names = sorted({cls.name for cls in (*BUILDERS, *ELEMENTWISE_OPS, *COMBINERS)})
    unknown = [n for n in names if ctx.get_optional_op(n) is None]
    assert not unknown, f"the CPU executor names ops no dialect registers: {unknown}"


def test_every_device_kernel_names_a_registered_op() -> None:
    from mindjit.backend.ascend.passes.kernel_table import BODY_NAMES, TENSOR_KERNELS

    ctx = make_context()
    wrong = [c.name for c in (*BODY_NAMES, *TENSOR_KERNELS) if ctx.get_optional_op(c.name) is not c]
    assert not wrong, f"the device's kernel table names unregistered ops: {wrong}"


def test_a_new_elementwise_op_is_reported_missing_at_every_stage() -> None:
    """What a newcomer sees after adding only the op class (docs/op-registry.md)."""
    from xdsl.irdl import irdl_op_definition

    from mindjit.dialects.mindir.elementwise import BinaryOp

    @irdl_op_definition
    class RemainderOp(BinaryOp):
        name = "mindir.remainder"

    gaps = _stage_gaps(RemainderOp)
    assert [g.split(":")[0] for g in gaps] == ["lowering", "gradient", "vmap"]
