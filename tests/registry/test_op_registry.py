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
from op_examples import example, grad_check, reference
from xdsl.dialects import func
from xdsl.dialects.builtin import AnyFloat, IntegerType, ModuleOp, TensorType
from xdsl.ir import Attribute, Block, Region, SSAValue

from mindjit.backend.ascend.compile import compile_for_device
from mindjit.backend.cpu import CpuExecutable
from mindjit.backend.cpu.registry import BUILDERS
from mindjit.dialects import mindir as M
from mindjit.dialects.context import make_context
from mindjit.dialects.mindir import MindIR
from mindjit.dialects.parsing import parse_module
from mindjit.passes.mindir_grad.rules import RULES as ADJOINTS
from mindjit.passes.mindir_to_tensor.convert_mindir_to_tensor import LOWERINGS
from mindjit.passes.mindir_to_tensor.rules import LOWERED_BY_STEP
from mindjit.passes.mindir_vmap import BATCHING
from mindjit.passes.pipelines import compile_to_tensor, lower_to_tensor, parse_pipeline, run_passes

OPS = sorted(MindIR.operations, key=lambda cls: cls.name)
_F = "tensor<2x3xf32>"


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


def random_input(t: object, rng: np.random.Generator) -> np.ndarray:
    """Floats uniform in [0.5, 1.5), integers in 1..4, bools at random."""
    assert isinstance(t, TensorType)
    shape = tuple(t.get_shape())
    element = t.get_element_type()
    if isinstance(element, IntegerType) and element.width.data == 1:
        return np.asarray(rng.random(shape) < 0.5)
    if isinstance(element, IntegerType):
        return np.asarray(rng.integers(1, 5, shape), dtype=f"int{element.width.data}")
    dtype = {16: np.float16, 32: np.float32, 64: np.float64}[element.bitwidth]  # type: ignore[attr-defined]
    return np.asarray(rng.random(shape) + 0.5, dtype=dtype)


#: relative (and absolute) tolerance per output dtype; the references compute in float64
_RTOL = {np.dtype(np.float16): 1e-3, np.dtype(np.float32): 1e-5, np.dtype(np.float64): 1e-12}


def _assert_matches(what: str, got: object, want: object) -> None:
    got = np.asarray(got)
    want = np.asarray(want)
    assert got.shape == want.shape, f"{what}: shape {got.shape}, the reference's {want.shape}"
    if got.dtype.kind == "f":
        rtol = _RTOL[got.dtype]
        np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol, err_msg=what)
    else:
        np.testing.assert_array_equal(got, want.astype(got.dtype), err_msg=what)


def _no_reference(cls: type) -> str:
    where = (
        "ELEMENTWISE_REFERENCES, keyed by its class"
        if issubclass(cls, M.ElementwiseOp)
        else f"the Reference of its Example in EXAMPLES['{cls.name}']"
    )
    return (
        f"{cls.name}: no numpy reference for its example: add one in "
        f"tests/registry/op_examples.py ({where})"
    )


@pytest.mark.parametrize("cls", OPS, ids=lambda cls: cls.name)
def test_op_is_complete_at_every_stage(cls: type) -> None:
    text = example(cls)
    assert text is not None, f"{cls.name}: no example program in tests/registry/op_examples.py"
    module = parse_module(text, f"<example of {cls.name}>")
    assert any(type(op) is cls for op in module.walk()), f"the example does not use {cls.name}"
    gaps = _stage_gaps(cls)
    assert not gaps, f"{cls.name} is incomplete:\n" + "\n".join(gaps)
    ref = reference(cls)
    assert ref is not None, _no_reference(cls)

    lowered = compile_to_tensor(module)  # the mindir pipeline, then the lowering
    left = sorted({op.name for op in lowered.walk() if op.name.startswith("mindir.")})
    assert not left, f"{cls.name}: mindir ops left after lowering: {left}"

    exe = CpuExecutable(lowered)
    printed: list[np.ndarray] = []
    exe.print_hook = lambda items: printed.extend(np.array(i) for i in items)
    inputs, _ = exe.signature("f")
    rng = np.random.default_rng(0)
    args = [random_input(t, rng) for t in inputs]
    outputs = exe.run("f", *[a.copy() for a in args])
    assert outputs, f"{cls.name}: the example ran but gave no output"

    # the values, against the numpy reference beside the example
    if ref.outputs is None:
        assert ref.check is not None and ref.partial, (
            f"{cls.name}: a Reference without outputs needs a check and the reason"
        )
        ref.check(outputs, lambda *xs: exe.run("f", *xs), *args)
    else:
        want = ref.outputs(*args)
        want = want if isinstance(want, tuple) else (want,)
        assert len(outputs) == len(want), (
            f"{cls.name}: {len(outputs)} outputs, the reference gives {len(want)}"
        )
        for k, (got, w) in enumerate(zip(outputs, want)):
            _assert_matches(f"{cls.name}: output {k} against the reference", got, w)
    if ref.printed is not None:
        want_printed = ref.printed(*args)
        assert len(printed) == len(want_printed), f"{cls.name}: printed {len(printed)} values"
        for got, w in zip(printed, want_printed):
            _assert_matches(f"{cls.name}: printed value", got, w)
    for name, w in (ref.state(*args) if ref.state is not None else {}).items():
        _assert_matches(f"{cls.name}: Parameter @{name} after the run", exe.get_global(name), w)

    compile_for_device(lowered.clone())  # every lowered op gets a device kernel


@pytest.mark.parametrize("table", [BUILDERS, LOWERINGS, ADJOINTS, BATCHING], ids=lambda t: t.stage)
def test_every_class_a_table_names_is_the_one_its_dialect_registers(table) -> None:
    """A rule keyed by a class its dialect does not register under the class's name
    (a typo'd op, xDSL's ml_program op where mindjit registers its own) never fires."""
    ctx = make_context()
    wrong = [  # (RuleTable.add refuses a base class, which has no name of its own)
        f"{cls.__module__}.{cls.__name__} ({cls.name})"
        for cls in table
        if ctx.get_optional_op(cls.name) is not cls
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


def test_every_composite_body_is_named_on_the_device() -> None:
    """A mindir op lowered to a composite body (SigmoidGrad's `subf`, `mulf`, `mulf`)
    runs as MindSpore's kernel of that name, not as its body's ops ("Sub_Mul")."""
    from mindjit.backend.ascend.passes.kernel_table import COMPOSITE_KERNELS
    from mindjit.passes.mindir_to_tensor.scalar import FLOAT_COMPOSITE

    unnamed = sorted(c.name for c in FLOAT_COMPOSITE if c not in COMPOSITE_KERNELS)
    stray = sorted(c.name for c in COMPOSITE_KERNELS if c not in FLOAT_COMPOSITE)
    assert not unnamed, (
        f"composite bodies with no device kernel name (COMPOSITE_KERNELS): {unnamed}"
    )
    assert not stray, f"COMPOSITE_KERNELS names ops with no composite body: {stray}"


def test_a_new_elementwise_op_is_reported_missing_at_every_stage() -> None:
    """What a newcomer sees after adding only the op class (docs/op-registry.md)."""
    from xdsl.irdl import irdl_op_definition

    from mindjit.dialects.mindir.elementwise import BinaryOp

    @irdl_op_definition
    class RemainderOp(BinaryOp):
        name = "mindir.remainder"

    gaps = _stage_gaps(RemainderOp)
    assert [g.split(":")[0] for g in gaps] == ["lowering", "gradient", "vmap"]


def test_a_rule_table_refuses_a_rule_for_a_base_class() -> None:
    """A rule on `ReduceOp` would serve no op (lookups are by exact class): refused."""
    with pytest.raises(ValueError, match="ReduceOp is not a concrete op"):
        LOWERINGS.add(M.ReduceOp, lambda op, rewriter: None)


def _subclass_programs():
    """New ops derived from a family's base class, each with a program that uses it
    directly, in a grad and in a vmap (built from an existing op's example by
    swapping the op's class: the new classes are in no dialect, so no parser knows them)."""
    from xdsl.irdl import irdl_op_definition

    @irdl_op_definition
    class ReduceProdOp(M.ReduceOp):
        name = "mindir.reduce_prod"

    @irdl_op_definition
    class CumMaxOp(M.ScanOp):
        name = "mindir.cummax"

    @irdl_op_definition
    class ArgMedianOp(M.ArgReduceOp):
        name = "mindir.argmedian"

    return [
        (
            ReduceProdOp,
            M.ReduceSumOp,
            "mindir.reduce_sum %x {axis = array<i64: 1>} : ({T}) -> tensor<2xf32>",
            "tensor<2xf32>",
        ),
        (CumMaxOp, M.CumSumOp, "mindir.cumsum %x {axis = 1 : i64} : {T}", "{T}"),
        (
            ArgMedianOp,
            M.ArgMaxOp,
            "mindir.argmax %x {axis = 1 : i64} : ({T}) -> tensor<2xi32>",
            "tensor<2xi32>",
        ),
    ]


def _swapped(text: str, old: type, new: type):
    """`text` parsed, its first `old` op (`%r`) replaced by a `new` op of the same form."""
    from xdsl.rewriter import Rewriter

    module = parse_module(text, f"<{new.name}>")
    found = next(op for op in module.walk() if type(op) is old)
    Rewriter.replace_op(
        found,
        new.create(
            operands=list(found.operands),
            result_types=[r.type for r in found.results],
            properties=dict(found.properties),
        ),
    )
    return module


@pytest.mark.parametrize("case", range(3), ids=["reduce_prod", "cummax", "argmedian"])
def test_a_new_subclass_is_reported_missing_by_name_not_given_its_base_class_rule(case) -> None:
    """issue 37 §3: a subclass of ReduceOp / ScanOp / ArgReduceOp used to get its base
    class's rule (reduce_prod lowered as a sum); every stage now names it as missing."""
    from mindjit.passes.mindir_grad.mindir_grad import MindirGradPass
    from mindjit.passes.mindir_to_tensor.convert_mindir_to_tensor import (
        ConvertMindirToTensorPass,
    )
    from mindjit.passes.mindir_vmap import MindirVmapPass
    from mindjit.support.errors import MindjitError

    new, old, use, result = _subclass_programs()[case]
    use, result = use.replace("{T}", _F), result.replace("{T}", _F)
    gaps = _stage_gaps(new)
    assert [g.split(":")[0] for g in gaps] == ["lowering", "gradient", "vmap"]

    ctx = make_context()
    plain = f"func.func @f(%x: {_F}) -> {result} {{\n  %r = {use}\n  func.return %r : {result}\n}}"
    module = _swapped(plain, old, new)
    with pytest.raises(
        MindjitError,
        match=rf"convert-mindir-to-tensor: no lowering rule for '{new.name}' \(passes/mindir_to_tensor/",
    ):
        ConvertMindirToTensorPass().apply(ctx, module)

    graded = (
        f"func.func @f(%a: {_F}) -> {_F} {{\n"
        f"  %g = mindir.grad (%x = %a) wrt [0] weights [] : ({_F}) -> {_F} {{\n"
        f"    %r = {use}\n"
        f"    %c = mindir.cast %r {{to = f32}} : ({result}) -> {result.replace('i32', 'f32')}\n"
        f"    %s = mindir.reduce_sum %c : ({result.replace('i32', 'f32')}) -> tensor<f32>\n"
        f"    mindir.yield %s : tensor<f32>\n  }}\n  func.return %g : {_F}\n}}"
    )
    module = _swapped(graded, old, new)
    with pytest.raises(MindjitError, match=rf"mindir-grad: no adjoint rule for '{new.name}'"):
        MindirGradPass().apply(ctx, module)

    batched = f"tensor<4x{_F[7:]}"
    vr = f"tensor<4x{result[7:]}"
    vmapped = (
        f"func.func @f(%a: {batched}) -> {vr} {{\n"
        f"  %v = mindir.vmap (%x = %a) in_axes [0] out_axes [0] : ({batched}) -> {vr} {{\n"
        f"    %r = {use}\n    mindir.yield %r : {result}\n  }}\n  func.return %v : {vr}\n}}"
    )
    module = _swapped(vmapped, old, new)
    with pytest.raises(MindjitError, match=rf"mindir-vmap: no batching rule for '{new.name}'"):
        MindirVmapPass().apply(ctx, module)


# --- gradients against finite differences -------------------------------------------------

GRAD_PIPELINE = "mindir-auto-monad,mindir-inline,mindir-grad,func.func(canonicalize,cse)"


def _is_float(t: Attribute) -> bool:
    return isinstance(t, TensorType) and isinstance(t.get_element_type(), AnyFloat)


def _objective(block: Block, args, outs: list[Attribute], rs) -> SSAValue:
    """`sum_k reduce_sum(f(args)[k] * r_k)` over @f's float results, appended to `block`."""

    def v(op):
        block.add_op(op)
        return op.results[0]

    call = func.CallOp("f", list(args), outs)
    block.add_op(call)
    total = None
    for k, r in zip([k for k, t in enumerate(outs) if _is_float(t)], rs):
        s = v(M.ReduceSumOp.get(v(M.MulOp.get(call.results[k], r))))
        total = s if total is None else v(M.AddOp.get(total, s))
    assert total is not None
    return total


def _add_objective_graphs(module: ModuleOp) -> tuple[list[int], list[Attribute]]:
    """Adds `@fwd(inputs, rs) = objective` and `@g(inputs, rs) = (objective, d objective /
    d float inputs)` (a `mindir.grad`) around the example's `@f`; returns the float
    inputs' indices and the types of the r_k."""
    f = next(op for op in module.ops if isinstance(op, func.FuncOp) and op.sym_name.data == "f")
    ins, outs = list(f.function_type.inputs), list(f.function_type.outputs)
    wrt = [i for i, t in enumerate(ins) if _is_float(t)]
    r_types = [t for t in outs if _is_float(t)]

    fwd_block = Block(arg_types=[*ins, *r_types])
    loss = _objective(fwd_block, fwd_block.args[: len(ins)], outs, fwd_block.args[len(ins) :])
    fwd_block.add_op(func.ReturnOp(loss))
    module.body.block.add_op(func.FuncOp("fwd", ([*ins, *r_types], [loss.type]), Region(fwd_block)))

    g_block = Block(arg_types=[*ins, *r_types])
    inner = Block(arg_types=ins)
    inner_loss = _objective(inner, inner.args, outs, g_block.args[len(ins) :])
    inner.add_op(M.YieldOp(inner_loss))
    grad_types = [ins[i] for i in wrt]
    grad = M.GradOp(
        list(g_block.args[: len(ins)]),
        [],
        wrt,
        [],
        0,
        True,
        [loss.type, *grad_types],
        Region(inner),
    )
    g_block.add_op(grad)
    g_block.add_op(func.ReturnOp(*grad.results))
    module.body.block.add_op(
        func.FuncOp("g", ([*ins, *r_types], [loss.type, *grad_types]), Region(g_block))
    )
    return wrt, r_types


GRAD_OPS = [cls for cls in OPS if ADJOINTS.get(cls) is not None]


@pytest.mark.parametrize("cls", GRAD_OPS, ids=lambda cls: cls.name)
def test_op_gradient_matches_finite_differences(cls: type) -> None:
    """The adjoint rule, through mindir-grad, against central differences of the op's
    example in float64 (op_examples.GRAD_CHECKS names the few checked on another
    program, and why)."""
    check = grad_check(cls)
    module = parse_module(check.text, f"<gradient example of {cls.name}>")
    assert any(type(op) is cls for op in module.walk()), f"the example does not use {cls.name}"
    f = next(op for op in module.ops if isinstance(op, func.FuncOp) and op.sym_name.data == "f")
    types = [*f.function_type.inputs, *f.function_type.outputs]
    assert all(isinstance(t, TensorType) for t in types), (
        f"{cls.name}: its example has effects (monad arguments or results), which "
        "mindir.grad does not take: give it a pure program in op_examples.GRAD_CHECKS"
    )
    wrt, r_types = _add_objective_graphs(module)
    assert wrt and r_types, (
        f"{cls.name}: its example has no float input or output to differentiate: give it "
        "one in op_examples.GRAD_CHECKS"
    )
    run_passes(parse_pipeline(GRAD_PIPELINE), module)
    lower_to_tensor(module)
    exe = CpuExecutable(module)

    rng = np.random.default_rng(1)
    ins = list(f.function_type.inputs)
    args = [random_input(t, rng) for t in ins]
    rs = [
        np.asarray(r - 1, r.dtype) for r in (random_input(t, rng) for t in r_types)
    ]  # in [-0.5, 0.5)
    loss, *grads = exe.run("g", *args, *rs)

    def objective(xs: list[np.ndarray]) -> float:
        return float(exe.run("fwd", *xs, *rs)[0])

    np.testing.assert_allclose(loss, objective(args), rtol=check.rtol, err_msg=cls.name)
    for i, got in zip(wrt, grads):
        x = args[i]
        want = np.zeros(x.shape)
        for k in np.ndindex(*x.shape):
            plus, minus = [a.copy() for a in args], [a.copy() for a in args]
            plus[i][k] += check.eps
            minus[i][k] -= check.eps
            want[k] = (objective(plus) - objective(minus)) / (2 * check.eps)
        np.testing.assert_allclose(
            got, want, rtol=check.rtol, atol=check.rtol, err_msg=f"{cls.name}: d/d input {i}"
        )
