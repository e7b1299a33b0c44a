"""mindir-grad: every adjoint rule against central finite differences (float64).

Each case builds a forward body from random inputs (fixed seeds) with the
attributes that matter for its op (broadcasting, axes, keep_dims, transposes,
strides...). The module holds two graphs over the same body:

- `@fwd(inputs..., R)`: `reduce_sum(body(inputs) * R)`, the scalar objective,
  with R a fixed random tensor of the body's output shape (so every output
  element matters);
- `@f(inputs..., R)`: `mindir.grad ... value` of that objective w.r.t. every
  float input (R is used from outside the region: a constant of the
  differentiation).

Both run on the CPU executor after `mindir-grad`; `@f`'s gradients are compared
with central differences of `@fwd`. `test_every_rule_has_a_case` fails when an
op class in `RULES` has no case here: a new rule must add one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    ModuleOp,
    TensorType,
    f32,
    f64,
    i1,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

import mindjit.passes.mindir_grad.mindir_grad  # noqa: F401  (registers every rule)
from mindjit.backend.cpu import CpuExecutable
from mindjit.dialects import mindir as M
from mindjit.dialects.parsing import parse_module
from mindjit.passes.mindir_grad.rules import RULES
from mindjit.passes.pipelines import lower_to_tensor, parse_pipeline, run_passes

PIPELINE = "mindir-auto-monad,mindir-inline,mindir-grad,func.func(canonicalize,cse)"
EPS = 1e-6
RTOL = 1e-5
ATOL = 1e-6


# --- building the module ----------------------------------------------------------------


class Body:
    """Appends ops to a block; `v(op)` gives the op's (first) result."""

    def __init__(self, block: Block):
        self.block = block
        self.ops: list[Operation] = []

    def op(self, op: Operation) -> Operation:
        self.block.add_op(op)
        self.ops.append(op)
        return op

    def v(self, op: Operation) -> SSAValue:
        return self.op(op).results[0]


BuildFn = Callable[[Body, list[SSAValue]], SSAValue]


def tensor_type(a: np.ndarray) -> TensorType:
    element = {np.dtype(np.float64): f64, np.dtype(np.float32): f32, np.dtype(bool): i1}[a.dtype]
    return TensorType(element, list(a.shape))


def is_float(a: np.ndarray) -> bool:
    return a.dtype.kind == "f"


def _objective(b: Body, out: SSAValue, r: SSAValue) -> SSAValue:
    return b.v(M.ReduceSumOp.get(b.v(M.MulOp.get(out, r))))


def build_module(
    inputs: Sequence[np.ndarray], build: BuildFn
) -> tuple[ModuleOp, list[type[Operation]], tuple[int, ...]]:
    """The module with @fwd and @f (see the module doc); also the op classes the
    body uses (the objective's mul/reduce_sum not counted) and the output shape."""
    types: list[Attribute] = [tensor_type(a) for a in inputs]
    wrt = [i for i, a in enumerate(inputs) if is_float(a)]

    # @fwd: the body, then the objective against R (appended as the last argument)
    fwd_block = Block(arg_types=types)
    body = Body(fwd_block)
    out = build(body, list(fwd_block.args))
    used = [type(op) for op in body.ops]
    out_type = out.type
    assert isinstance(out_type, TensorType)
    r = fwd_block.insert_arg(out_type, len(types))
    loss = _objective(body, out, r)
    body.op(func.ReturnOp(loss))
    fwd = func.FuncOp("fwd", ([*types, out_type], [loss.type]), Region(fwd_block))

    # @f: the same body in a mindir.grad region, R from outside the region
    f_block = Block(arg_types=[*types, out_type])
    region_block = Block(arg_types=types)
    inner = Body(region_block)
    inner_out = build(inner, list(region_block.args))
    inner_loss = _objective(inner, inner_out, f_block.args[-1])
    inner.op(M.YieldOp(inner_loss))
    grad_types = [types[i] for i in wrt]
    grad = M.GradOp(
        list(f_block.args[: len(types)]),
        [],
        wrt,
        [],
        0,
        True,
        [loss.type, *grad_types],
        Region(region_block),
    )
    f_block.add_op(grad)
    f_block.add_op(func.ReturnOp(*grad.results))
    f = func.FuncOp("f", ([*types, out_type], [loss.type, *grad_types]), Region(f_block))
    module = ModuleOp([fwd, f])
    module.verify()
    return module, used, tuple(out_type.get_shape())


def compile_module(module: ModuleOp) -> CpuExecutable:
    run_passes(parse_pipeline(PIPELINE), module)
    assert "mindir.grad" not in str(module)
    lower_to_tensor(module)
    return CpuExecutable(module)


def central_differences(
    fn: Callable[[list[np.ndarray]], float], inputs: list[np.ndarray], index: int, eps: float
) -> np.ndarray:
    x = inputs[index]
    grad = np.zeros(x.shape, np.float64)
    for k in np.ndindex(*x.shape):
        plus = [a.copy() for a in inputs]
        minus = [a.copy() for a in inputs]
        plus[index][k] += eps
        minus[index][k] -= eps
        grad[k] = (fn(plus) - fn(minus)) / (2 * eps)
    return grad


# --- the cases ----------------------------------------------------------------------------


@dataclass
class Case:
    name: str
    inputs: list[np.ndarray]
    build: BuildFn
    eps: float = EPS
    rtol: float = RTOL
    atol: float = ATOL


def _rng(name: str) -> np.random.Generator:
    return np.random.default_rng(sum(map(ord, name)) * 7919 + 17)


def normal(rng: np.random.Generator, *shape: int) -> np.ndarray:
    return rng.standard_normal(shape).astype(np.float64)


def away_from(
    rng: np.random.Generator, shape: tuple[int, ...], points: Sequence[float], gap: float = 0.2
) -> np.ndarray:
    """Normal values at least `gap` from each of `points` (kinks)."""
    x = rng.standard_normal(shape) * 2
    for _ in range(100):
        bad = np.zeros(shape, bool)
        for p in points:
            bad |= np.abs(x - p) < gap
        if not bad.any():
            return x.astype(np.float64)
        x[bad] = rng.standard_normal(int(bad.sum())) * 2
    raise AssertionError("could not draw values away from the kinks")


def distinct(rng: np.random.Generator, *shape: int) -> np.ndarray:
    """Values with pairwise gaps of at least 0.1 (no ties for max)."""
    n = int(np.prod(shape))
    return (rng.permutation(n).reshape(shape) * 0.1 - n * 0.05).astype(np.float64)


def no_ties(rng: np.random.Generator, a_shape, b_shape) -> tuple[np.ndarray, np.ndarray]:
    """Two inputs whose broadcast elements differ by at least 0.05."""
    while True:
        a, b = rng.standard_normal(a_shape), rng.standard_normal(b_shape)
        if np.abs(a - b).min() > 0.05:
            return a, b


def unary(cls: type) -> BuildFn:
    return lambda b, xs: b.v(cls.get(xs[0]))


def binary(cls: type) -> BuildFn:
    return lambda b, xs: b.v(cls.get(xs[0], xs[1]))


def _cases() -> list[Case]:
    cases: list[Case] = []

    def add(name: str, make_inputs, build: BuildFn, **kw) -> None:
        rng = _rng(name)
        cases.append(Case(name, [np.asarray(a) for a in make_inputs(rng)], build, **kw))

    # elementwise binary ops, with broadcasting
    add("add_3x1x4_2x4", lambda r: [normal(r, 3, 1, 4), normal(r, 2, 4)], binary(M.AddOp))
    add("add_scalar", lambda r: [normal(r), normal(r, 2, 3)], binary(M.AddOp))
    add("sub_2x4_3x1x4", lambda r: [normal(r, 2, 4), normal(r, 3, 1, 4)], binary(M.SubOp))
    add("sub_2x3_scalar", lambda r: [normal(r, 2, 3), normal(r)], binary(M.SubOp))
    add("mul_3x1x4_2x1", lambda r: [normal(r, 3, 1, 4), normal(r, 2, 1)], binary(M.MulOp))
    add("mul_same", lambda r: [normal(r, 2, 3), normal(r, 2, 3)], binary(M.MulOp))
    add(
        "div_2x3_3",
        lambda r: [normal(r, 2, 3), r.uniform(0.5, 2.0, 3) * r.choice([-1.0, 1.0], 3)],
        binary(M.DivOp),
    )
    add(
        "div_1x3_2x1x3",
        lambda r: [normal(r, 1, 3), r.uniform(0.5, 2.0, (2, 1, 3))],
        binary(M.DivOp),
    )
    add(
        "pow_2x3_3",
        lambda r: [r.uniform(0.5, 2.0, (2, 3)), r.uniform(-1.5, 2.5, 3)],
        binary(M.PowOp),
    )
    add(
        "pow_3_2x3",
        lambda r: [r.uniform(0.5, 2.0, 3), r.uniform(-1.5, 2.5, (2, 3))],
        binary(M.PowOp),
    )
    add("maximum_3x1x4_2x4", lambda r: no_ties(r, (3, 1, 4), (2, 4)), binary(M.MaximumOp))
    add("minimum_3x1x4_2x4", lambda r: no_ties(r, (3, 1, 4), (2, 4)), binary(M.MinimumOp))
    add("maximum_scalar", lambda r: no_ties(r, (), (2, 3)), binary(M.MaximumOp))
    add("minimum_2x3_3", lambda r: no_ties(r, (2, 3), (3,)), binary(M.MinimumOp))
    # sigmoid's and tanh's adjoint ops (y, dy): their gradients are sigmoid's and
    # tanh's second order
    add(
        "sigmoid_grad_2x3_3",
        lambda r: [r.uniform(0.05, 0.95, (2, 3)), normal(r, 3)],
        binary(M.SigmoidGradOp),
    )
    add(
        "tanh_grad_3_2x3",
        lambda r: [r.uniform(-0.95, 0.95, 3), normal(r, 2, 3)],
        binary(M.TanhGradOp),
    )

    # elementwise unary ops
    add("neg", lambda r: [normal(r, 2, 3)], unary(M.NegOp))
    add("exp", lambda r: [normal(r, 2, 3)], unary(M.ExpOp))
    add("log", lambda r: [r.uniform(0.2, 3.0, (2, 3))], unary(M.LogOp))
    add("tanh", lambda r: [normal(r, 2, 3)], unary(M.TanhOp))
    add("sin", lambda r: [normal(r, 2, 3) * 2], unary(M.SinOp))
    add("cos", lambda r: [normal(r, 2, 3) * 2], unary(M.CosOp))
    add("erf", lambda r: [normal(r, 2, 3)], unary(M.ErfOp))
    add("sigmoid", lambda r: [normal(r, 2, 3) * 2], unary(M.SigmoidOp))
    add("sqrt", lambda r: [r.uniform(0.2, 3.0, (2, 3))], unary(M.SqrtOp))
    add("abs", lambda r: [away_from(r, (3, 4), [0.0])], unary(M.AbsOp))
    add("relu", lambda r: [away_from(r, (3, 4), [0.0])], unary(M.ReluOp))
    hswish_x = np.array([[-5.0, -4.2, -3.4, -2.6], [-1.3, -0.2, 0.4, 1.7], [2.6, 3.3, 4.1, 6.0]])
    add("hswish", lambda r: [hswish_x + r.uniform(-0.1, 0.1, (3, 4))], unary(M.HSwishOp))

    # select: a random condition, broadcast branches (the condition gets no gradient)
    add(
        "select_2x3_3",
        lambda r: [r.random((2, 3)) < 0.5, normal(r, 2, 3), normal(r, 3)],
        lambda b, xs: b.v(M.SelectOp.get(*xs)),
    )
    add(
        "select_cond_broadcast",
        lambda r: [r.random(3) < 0.5, normal(r, 2, 1), normal(r, 2, 3)],
        lambda b, xs: b.v(M.SelectOp.get(*xs)),
    )

    # cast: f64 -> f64, and f64 -> f32 -> f64 on dyadic values (exact in f32, and a
    # step of 1/64 keeps them exact)
    add("cast_f64_f64", lambda r: [normal(r, 2, 3)], lambda b, xs: b.v(M.CastOp.get(xs[0], f64)))

    def through_f32(b: Body, xs):
        y = b.v(M.CastOp.get(xs[0], f32))
        return b.v(M.CastOp.get(b.v(M.MulOp.get(y, y)), f64))

    add(
        "cast_f64_f32_f64",
        lambda r: [r.integers(-64, 64, (2, 3)) / 64.0],
        through_f32,
        eps=1 / 64,
        rtol=1e-6,
        atol=1e-6,
    )

    # matmul: every transpose combination, plain and batched with broadcast batch dims
    for ta in (False, True):
        for tb in (False, True):
            a_shape = (4, 3) if ta else (3, 4)
            b_shape = (5, 4) if tb else (4, 5)
            add(
                f"matmul_ta{int(ta)}_tb{int(tb)}",
                lambda r, a_shape=a_shape, b_shape=b_shape: [
                    normal(r, *a_shape),
                    normal(r, *b_shape),
                ],
                lambda b, xs, ta=ta, tb=tb: b.v(M.MatMulOp.get(xs[0], xs[1], ta, tb)),
            )
            add(
                f"matmul_batched_ta{int(ta)}_tb{int(tb)}",
                lambda r, a_shape=a_shape, b_shape=b_shape: [
                    normal(r, 2, 1, *a_shape),
                    normal(r, 3, *b_shape),
                ],
                lambda b, xs, ta=ta, tb=tb: b.v(M.MatMulOp.get(xs[0], xs[1], ta, tb)),
            )
    add(
        "matmul_batched_rhs_only",
        lambda r: [normal(r, 3, 4), normal(r, 2, 4, 2)],
        lambda b, xs: b.v(M.MatMulOp.get(xs[0], xs[1])),
    )

    # reductions: axis subsets, negative axes, keep_dims both ways
    for cls, tag in ((M.ReduceSumOp, "sum"), (M.ReduceMeanOp, "mean"), (M.ReduceMaxOp, "max")):
        for axes, keep in (((), False), ((), True), ((1,), False), ((0, 2), True), ((-1,), False)):
            axes_tag = "_".join(str(a) for a in axes) or "all"
            add(
                f"reduce_{tag}_{axes_tag}_keep{int(keep)}",
                lambda r: [distinct(r, 2, 3, 4)],
                lambda b, xs, cls=cls, axes=axes, keep=keep: b.v(cls.get(xs[0], axes, keep)),
            )

    # shape ops
    add(
        "reshape_2x3x4_4x6",
        lambda r: [normal(r, 2, 3, 4)],
        lambda b, xs: b.v(M.ReshapeOp.get(xs[0], (4, 6))),
    )
    add(
        "reshape_6_2x1x3",
        lambda r: [normal(r, 6)],
        lambda b, xs: b.v(M.ReshapeOp.get(xs[0], (2, 1, 3))),
    )
    add(
        "broadcast_to_3x1_2x3x4",
        lambda r: [normal(r, 3, 1)],
        lambda b, xs: b.v(M.BroadcastToOp.get(xs[0], (2, 3, 4))),
    )
    add(
        "broadcast_to_scalar",
        lambda r: [normal(r)],
        lambda b, xs: b.v(M.BroadcastToOp.get(xs[0], (2, 3))),
    )
    for perm in ((2, 0, 1), (1, 2, 0), (0, 2, 1)):
        add(
            "transpose_" + "".join(map(str, perm)),
            lambda r: [normal(r, 2, 3, 4)],
            lambda b, xs, perm=perm: b.v(M.TransposeOp.get(xs[0], perm)),
        )
    add(
        "concat_middle",
        lambda r: [normal(r, 2, 3, 4), normal(r, 2, 1, 4), normal(r, 2, 2, 4)],
        lambda b, xs: b.v(M.ConcatOp.get(xs, 1)),
    )
    add(
        "concat_negative",
        lambda r: [normal(r, 2, 3), normal(r, 2, 2)],
        lambda b, xs: b.v(M.ConcatOp.get(xs, -1)),
    )
    add(
        "concat_minus2",
        lambda r: [normal(r, 2, 1, 3), normal(r, 2, 2, 3)],
        lambda b, xs: b.v(M.ConcatOp.get(xs, -2)),
    )
    add(
        "stack_middle",
        lambda r: [normal(r, 2, 3), normal(r, 2, 3), normal(r, 2, 3)],
        lambda b, xs: b.v(M.StackOp.get(xs, 1)),
    )
    add(
        "stack_negative",
        lambda r: [normal(r, 2, 3), normal(r, 2, 3)],
        lambda b, xs: b.v(M.StackOp.get(xs, -1)),
    )

    def unstack_all(axis: int) -> BuildFn:
        def build(b: Body, xs):
            p = list(b.op(M.UnstackOp.get(xs[0], axis)).results)
            return b.v(M.AddOp.get(b.v(M.MulOp.get(p[0], p[2])), p[1]))

        return build

    add("unstack_middle", lambda r: [normal(r, 2, 3, 4)], unstack_all(1))
    add("unstack_negative", lambda r: [normal(r, 2, 4, 3)], unstack_all(-1))

    def unstack_one_unused(b: Body, xs):
        p = list(b.op(M.UnstackOp.get(xs[0], 0)).results)
        return b.v(M.MulOp.get(p[0], p[2]))  # p[1] has no adjoint: zeros

    add("unstack_piece_unused", lambda r: [normal(r, 3, 2, 2)], unstack_one_unused)

    def get_item(starts, limits, strides, squeeze=()) -> BuildFn:
        return lambda b, xs: b.v(M.GetItemOp.get(xs[0], starts, limits, strides, squeeze))

    add("get_item_range", lambda r: [normal(r, 5, 6)], get_item([1, 2], [4, 5], [1, 1]))
    add(
        "get_item_strides_squeeze",
        lambda r: [normal(r, 5, 6, 4)],
        get_item([1, 0, 2], [4, 6, 3], [1, 2, 1], [2]),
    )
    add(
        "get_item_strides_2_3",
        lambda r: [normal(r, 5, 7, 4)],
        get_item([0, 1, 0], [5, 7, 4], [2, 3, 1]),
    )
    add(
        "get_item_stride_unaligned_limit",
        lambda r: [normal(r, 8, 3)],
        get_item([1, 0], [6, 3], [3, 2]),
    )
    add(
        "get_item_squeeze_first",
        lambda r: [normal(r, 4, 5)],
        get_item([2, 1], [3, 5], [1, 2], [0]),
    )
    add(
        "get_item_stride_single_element",
        lambda r: [normal(r, 6, 4)],
        get_item([4, 0], [6, 4], [3, 1]),
    )

    # convolution, pooling, pad, reverse
    def conv(stride=(1, 1), dilation=(1, 1), pad=(0, 0, 0, 0), group=1) -> BuildFn:
        return lambda b, xs: b.v(M.Conv2DOp.get(xs[0], xs[1], stride, dilation, pad, group))

    add("conv2d_plain", lambda r: [normal(r, 2, 3, 5, 5), normal(r, 4, 3, 3, 3)], conv())
    add(
        "conv2d_stride_pad_uneven",
        lambda r: [normal(r, 1, 2, 7, 6), normal(r, 3, 2, 3, 2)],
        conv((2, 3), (1, 1), (1, 0, 2, 1)),
    )
    add(
        "conv2d_dilation_leftover_rows",
        lambda r: [normal(r, 2, 2, 8, 7), normal(r, 2, 2, 2, 3)],
        conv((3, 2), (2, 1), (0, 1, 0, 0)),
    )
    add(
        "conv2d_groups",
        lambda r: [normal(r, 2, 4, 5, 5), normal(r, 6, 2, 3, 3)],
        conv((1, 2), (1, 1), (1, 1, 1, 1), 2),
    )
    add(
        "conv2d_depthwise",
        lambda r: [normal(r, 1, 3, 6, 6), normal(r, 3, 1, 3, 3)],
        conv((2, 2), (1, 1), (1, 1, 1, 1), 3),
    )

    def max_pool(kernel, stride, pad=(0, 0, 0, 0), dilation=(1, 1), extra=(0, 0)) -> BuildFn:
        return lambda b, xs: b.v(M.MaxPool2DOp.get(xs[0], kernel, stride, pad, dilation, extra))

    add("max_pool2d_2x2", lambda r: [distinct(r, 2, 3, 4, 6)], max_pool((2, 2), (2, 2)))
    add("max_pool2d_3x2_tiles", lambda r: [distinct(r, 1, 2, 6, 4)], max_pool((3, 2), (3, 2)))
    add(
        "max_pool2d_overlap_pad_dilation",
        lambda r: [distinct(r, 1, 2, 7, 7)],
        max_pool((3, 2), (2, 1), (1, 1, 0, 1), (1, 2), (1, 0)),
    )

    def avg_pool(kernel, stride, pad=(0, 0, 0, 0), include=True, extra=(0, 0)) -> BuildFn:
        return lambda b, xs: b.v(M.AvgPool2DOp.get(xs[0], kernel, stride, pad, include, extra))

    add("avg_pool2d_2x2", lambda r: [normal(r, 2, 3, 4, 6)], avg_pool((2, 2), (2, 2)))
    add("avg_pool2d_2x3_tiles", lambda r: [normal(r, 1, 2, 4, 6)], avg_pool((2, 3), (2, 3)))
    add(
        "avg_pool2d_pad_excluded_ceil",
        lambda r: [normal(r, 1, 2, 6, 5)],
        avg_pool((3, 3), (2, 2), (1, 1, 1, 1), False, (1, 0)),
    )

    def pad(low, high, interior, value=0.0) -> BuildFn:
        return lambda b, xs: b.v(M.PadOp.get(xs[0], low, high, interior, value))

    add("pad_border", lambda r: [normal(r, 3, 4)], pad([1, 0], [2, 3], [0, 0], 1.5))
    add("pad_interior_crop", lambda r: [normal(r, 4, 5)], pad([-1, 2], [1, -2], [1, 2]))
    add(
        "reverse",
        lambda r: [normal(r, 2, 3, 4)],
        lambda b, xs: b.v(M.ReverseOp.get(xs[0], [0, 2])),
    )

    # tuples
    def tuple_ops(b: Body, xs):
        t = b.v(M.MakeTupleOp.get([xs[0], xs[1]]))
        s = b.v(M.AddNOp.get(t))
        return b.v(M.MulOp.get(s, b.v(M.TupleGetItemOp.get(t, 1))))

    add("make_tuple_addn_get_item", lambda r: [normal(r, 2, 3), normal(r, 2, 3)], tuple_ops)

    def tuple_mixed(b: Body, xs):
        t = b.v(M.MakeTupleOp.get([xs[0], xs[1], xs[2]]))  # xs[2] is never read back
        first = b.v(M.TupleGetItemOp.get(t, 0))
        second = b.v(M.TupleGetItemOp.get(t, 1))
        return b.v(M.MulOp.get(b.v(M.TanhOp.get(first)), second))

    add(
        "tuple_mixed_types",
        lambda r: [normal(r, 2, 3), normal(r, 3), normal(r, 4)],
        tuple_mixed,
    )

    def addn_three(b: Body, xs):
        sq = b.v(M.MulOp.get(xs[0], xs[0]))
        t = b.v(M.MakeTupleOp.get([sq, xs[1], xs[0]]))
        return b.v(M.AddNOp.get(t))

    add("addn_three_shared", lambda r: [normal(r, 3, 2), normal(r, 3, 2)], addn_three)

    # the collectives in a group of one (one process; N replicas' gradients are
    # checked in tests/frontend/test_data_parallel.py)
    for op in ("sum", "max", "min", "prod"):
        add(
            f"all_reduce_{op}",
            lambda r: [r.uniform(0.5, 1.5, (2, 3))],
            lambda b, xs, op=op: b.v(M.TanhOp.get(b.v(M.AllReduceOp.get(xs[0], op)))),
        )
    add(
        "all_gather_reduce_scatter_broadcast",
        lambda r: [normal(r, 2, 3)],
        lambda b, xs: b.v(
            M.TanhOp.get(
                b.v(
                    M.ReduceScatterOp.get(
                        b.v(M.AllGatherOp.get(b.v(M.BroadcastOp.get(xs[0], 0)), 1)), 1
                    )
                )
            )
        ),
    )

    # effect ops that hand the value through
    def depend(b: Body, xs):
        t = b.v(M.TanhOp.get(xs[0]))
        return b.v(M.DependOp.get(t, [xs[1]]))

    add("depend", lambda r: [normal(r, 2, 3), normal(r, 3)], depend)

    def tensor_move(b: Body, xs):
        return b.v(M.MulOp.get(b.v(M.TensorMoveOp(xs[0])), xs[1]))

    add("tensor_move", lambda r: [normal(r, 2, 3), normal(r, 2, 3)], tensor_move)

    def check_range(b: Body, xs):
        s = b.v(M.SigmoidOp.get(xs[0]))
        checked = b.v(M.CheckRangeOp.get(s, 0.0, 1.0, "out of range"))
        return b.v(M.MulOp.get(checked, checked))

    add("check_range", lambda r: [normal(r, 2, 3)], check_range)

    # a chain: one value used several times, adjoints accumulate
    def chain(b: Body, xs):
        x, y = xs
        t = b.v(M.TanhOp.get(x))
        m = b.v(M.MatMulOp.get(t, y, False, True))
        s = b.v(M.SigmoidOp.get(m))
        return b.v(M.AddOp.get(b.v(M.MulOp.get(s, s)), b.v(M.ReduceSumOp.get(x, (1,), True))))

    add("chain_shared_values", lambda r: [normal(r, 3, 4), normal(r, 2, 4)], chain)

    # gather / unsorted_segment_sum: repeated and out-of-range indices (constants)
    def int_const(b: Body, values, element=i32) -> SSAValue:
        a = np.asarray(values)
        attr = DenseIntOrFPElementsAttr.from_list(
            TensorType(element, list(a.shape)), [int(v) for v in a.flat]
        )
        return b.v(M.ConstantOp.make([], {"value": attr}))

    def gather(values, axis: int) -> BuildFn:
        return lambda b, xs: b.v(M.GatherOp.get(xs[0], int_const(b, values), axis))

    add("gather_axis0_repeats", lambda r: [normal(r, 4, 3)], gather([[3, 0], [3, 9]], 0))
    add("gather_axis1", lambda r: [normal(r, 2, 5, 3)], gather([[4, 1, 4], [0, -1, 2]], 1))
    add("gather_scalar_index_last", lambda r: [normal(r, 3, 4)], gather(2, 1))

    def segment_sum(values, n: int) -> BuildFn:
        return lambda b, xs: b.v(M.UnsortedSegmentSumOp.get(xs[0], int_const(b, values, i64), n))

    add(
        "unsorted_segment_sum",
        lambda r: [normal(r, 2, 3, 2)],
        segment_sum([[1, 4, 1], [0, -2, 3]], 4),
    )

    # elementwise math kept for accuracy (log1p, expm1) and atan2
    add("log1p", lambda r: [r.uniform(-0.5, 3.0, (2, 3))], unary(M.Log1pOp))
    add("expm1", lambda r: [normal(r, 2, 3)], unary(M.Expm1Op))
    add(
        "atan2_2x3_3",
        lambda r: [normal(r, 2, 3), r.uniform(0.5, 2.0, 3) * r.choice([-1.0, 1.0], 3)],
        binary(M.Atan2Op),
    )
    return cases


CASES = _cases()


def _index_cases() -> list[Case]:
    """Sort and scans (i23-indexreduce): distinct values, so the sort is smooth; cumprod
    away from 0, where its adjoint divides by the input."""

    def sort(axis: int, descending: bool) -> BuildFn:
        return lambda b, xs: b.v(M.SortOp.get(xs[0], axis, descending))

    def scan(cls: type, axis: int, exclusive: bool, reverse: bool) -> BuildFn:
        return lambda b, xs: b.v(cls.get(xs[0], axis, exclusive, reverse))

    def sort_values_times_indices(b: Body, xs):
        op = b.op(M.SortOp.get(xs[0], 0))
        idx = b.v(M.CastOp.get(op.results[1], op.results[0].type.get_element_type()))
        return b.v(M.MulOp.get(op.results[0], idx))

    return [
        Case("sort_last_axis", [distinct(_rng("sort1"), 3, 5)], sort(-1, False)),
        Case("sort_axis0_descending", [distinct(_rng("sort2"), 4, 2, 3)], sort(0, True)),
        Case("sort_values_and_indices", [distinct(_rng("sort3"), 5, 2)], sort_values_times_indices),
        Case("cumsum_axis1", [normal(_rng("cs1"), 3, 4)], scan(M.CumSumOp, 1, False, False)),
        Case(
            "cumsum_exclusive_reverse", [normal(_rng("cs2"), 4, 3)], scan(M.CumSumOp, 0, True, True)
        ),
        Case(
            "cumprod_axis0",
            [away_from(_rng("cp1"), (4, 3), [0.0], 0.3)],
            scan(M.CumProdOp, 0, False, False),
        ),
        Case(
            "cumprod_exclusive_reverse",
            [away_from(_rng("cp2"), (2, 5), [0.0], 0.3)],
            scan(M.CumProdOp, -1, True, True),
        ),
    ]


CASES += _index_cases()


def _norm_cases() -> list[Case]:
    """batch_norm (training mode): its output (the adjoint is one batch_norm_grad) and its
    batch statistics (their adjoints through d mean and d variance)."""

    def output(b: Body, xs):
        return b.op(M.BatchNormOp.get(xs[0], xs[1], xs[2], 1e-3)).results[0]

    def statistics(b: Body, xs):
        op = b.op(M.BatchNormOp.get(xs[0], xs[1], xs[2], 1e-3))
        return b.v(M.MulOp.get(op.results[1], op.results[2]))

    def inputs(name: str) -> list[np.ndarray]:
        rng = _rng(name)
        return [normal(rng, 3, 2, 4), normal(rng, 2) + 2.0, normal(rng, 2)]

    return [
        Case("batch_norm_output", inputs("bn1"), output),
        Case("batch_norm_statistics", inputs("bn2"), statistics),
    ]


CASES += _norm_cases()


@pytest.fixture(scope="module")
def compiled() -> dict[str, tuple[CpuExecutable, list[type[Operation]], tuple[int, ...]]]:
    return {}


def _compiled(case: Case, cache: dict):
    if case.name not in cache:
        module, used, shape = build_module(case.inputs, case.build)
        cache[case.name] = (compile_module(module), used, shape)
    return cache[case.name]


def test_every_rule_has_a_case() -> None:
    """Every op class with an adjoint rule appears in some case's body."""
    covered: set[type[Operation]] = set()
    for case in CASES:
        _, used, _ = build_module(case.inputs, case.build)
        covered.update(used)
    missing = sorted(cls.__name__ for cls in RULES if cls not in covered)
    assert not missing, f"adjoint rules without a finite-difference case: {missing}"


def test_case_names_are_unique() -> None:
    names = [c.name for c in CASES]
    assert len(names) == len(set(names))


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_rule_matches_finite_differences(case: Case, compiled) -> None:
    exe, _, out_shape = _compiled(case, compiled)
    r = _rng(case.name + "/R").standard_normal(out_shape).astype(np.float64)
    loss, *grads = exe.run("f", *case.inputs, r)
    (fwd_loss,) = exe.run("fwd", *case.inputs, r)
    np.testing.assert_allclose(loss, fwd_loss, rtol=1e-12, atol=1e-12)

    def fn(xs: list[np.ndarray]) -> float:
        return float(exe.run("fwd", *xs, r)[0])

    wrt = [i for i, a in enumerate(case.inputs) if is_float(a)]
    assert len(grads) == len(wrt)
    for i, g in zip(wrt, grads):
        assert g.shape == case.inputs[i].shape and g.dtype == case.inputs[i].dtype
        fd = central_differences(fn, list(case.inputs), i, case.eps)
        np.testing.assert_allclose(
            g, fd, rtol=case.rtol, atol=case.atol, err_msg=f"{case.name}: input {i}"
        )


# --- a Parameter weight, an if, sens operands ---------------------------------------------


def _run_text(text: str) -> CpuExecutable:
    module = parse_module(text)
    return compile_module(module)


WEIGHT_PROGRAM = """
mindir.parameter @w = dense<[0.5, -1.0, 2.0]> : tensor<3xf64>
func.func @fwd(%x: tensor<2x3xf64>, %u: !mindir.u) -> tensor<f64> {
  %p = mindir.get_parameter @w : !mindir.ref<tensor<3xf64>>
  %l = mindir.load %p, %u : tensor<3xf64>
  %m = mindir.mul %x, %l : (tensor<2x3xf64>, tensor<3xf64>) -> tensor<2x3xf64>
  %t = mindir.tanh %m : tensor<2x3xf64>
  %q = mindir.mul %t, %l : (tensor<2x3xf64>, tensor<3xf64>) -> tensor<2x3xf64>
  %s = mindir.reduce_sum %q : (tensor<2x3xf64>) -> tensor<f64>
  func.return %s : tensor<f64>
}
func.func @f(%x: tensor<2x3xf64>, %u: !mindir.u) -> (tensor<f64>, tensor<2x3xf64>, tensor<3xf64>) {
  %g:3 = mindir.grad (%a = %x) wrt [0] weights [@w] value : (tensor<2x3xf64>) -> (tensor<f64>, tensor<2x3xf64>, tensor<3xf64>) {
    %p = mindir.get_parameter @w : !mindir.ref<tensor<3xf64>>
    %l = mindir.load %p, %u : tensor<3xf64>
    %m = mindir.mul %a, %l : (tensor<2x3xf64>, tensor<3xf64>) -> tensor<2x3xf64>
    %t = mindir.tanh %m : tensor<2x3xf64>
    %q = mindir.mul %t, %l : (tensor<2x3xf64>, tensor<3xf64>) -> tensor<2x3xf64>
    %s = mindir.reduce_sum %q : (tensor<2x3xf64>) -> tensor<f64>
    mindir.yield %s : tensor<f64>
  }
  func.return %g#0, %g#1, %g#2 : tensor<f64>, tensor<2x3xf64>, tensor<3xf64>
}
"""


def test_parameter_weight_matches_finite_differences() -> None:
    exe = _run_text(WEIGHT_PROGRAM)
    rng = np.random.default_rng(7)
    x = rng.standard_normal((2, 3))
    w = rng.standard_normal(3)

    def fn(xs: list[np.ndarray]) -> float:
        exe.set_global("w", xs[1].copy())
        return float(exe.run("fwd", xs[0])[0])

    exe.set_global("w", w.copy())
    loss, gx, gw = exe.run("f", x)
    assert np.isclose(loss, fn([x, w]), rtol=1e-12)
    exe.set_global("w", w.copy())
    assert np.array_equal(exe.get_global("w"), w)  # the grad does not write the weight
    np.testing.assert_allclose(gx, central_differences(fn, [x, w], 0, EPS), rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(gw, central_differences(fn, [x, w], 1, EPS), rtol=RTOL, atol=ATOL)
    # closed form: d/dw sum(tanh(x w) w) = sum_rows(x (1 - tanh^2) w + tanh)
    t = np.tanh(x * w)
    np.testing.assert_allclose(gw, (x * (1 - t * t) * w + t).sum(0), rtol=1e-12)


IF_PROGRAM = """
func.func @fwd(%c: tensor<i1>, %x: tensor<3xf64>, %y: tensor<2x3xf64>) -> tensor<f64> {
  %e = mindir.exp %x : tensor<3xf64>
  %r = mindir.if %c -> (tensor<2x3xf64>) {
    %t = mindir.tanh %y : tensor<2x3xf64>
    %m = mindir.mul %t, %e : (tensor<2x3xf64>, tensor<3xf64>) -> tensor<2x3xf64>
    mindir.yield %m : tensor<2x3xf64>
  } else {
    %m = mindir.mul %y, %y : tensor<2x3xf64>
    %s = mindir.sub %m, %x : (tensor<2x3xf64>, tensor<3xf64>) -> tensor<2x3xf64>
    mindir.yield %s : tensor<2x3xf64>
  }
  %q = mindir.mul %r, %y : tensor<2x3xf64>
  %l = mindir.reduce_sum %q : (tensor<2x3xf64>) -> tensor<f64>
  func.return %l : tensor<f64>
}
func.func @f(%c: tensor<i1>, %x: tensor<3xf64>, %y: tensor<2x3xf64>) -> (tensor<f64>, tensor<3xf64>, tensor<2x3xf64>) {
  %g:3 = mindir.grad (%a = %x, %b = %y) wrt [0, 1] weights [] value : (tensor<3xf64>, tensor<2x3xf64>) -> (tensor<f64>, tensor<3xf64>, tensor<2x3xf64>) {
    %e = mindir.exp %a : tensor<3xf64>
    %r = mindir.if %c -> (tensor<2x3xf64>) {
      %t = mindir.tanh %b : tensor<2x3xf64>
      %m = mindir.mul %t, %e : (tensor<2x3xf64>, tensor<3xf64>) -> tensor<2x3xf64>
      mindir.yield %m : tensor<2x3xf64>
    } else {
      %m = mindir.mul %b, %b : tensor<2x3xf64>
      %s = mindir.sub %m, %a : (tensor<2x3xf64>, tensor<3xf64>) -> tensor<2x3xf64>
      mindir.yield %s : tensor<2x3xf64>
    }
    %q = mindir.mul %r, %b : tensor<2x3xf64>
    %l = mindir.reduce_sum %q : (tensor<2x3xf64>) -> tensor<f64>
    mindir.yield %l : tensor<f64>
  }
  func.return %g#0, %g#1, %g#2 : tensor<f64>, tensor<3xf64>, tensor<2x3xf64>
}
"""


@pytest.mark.parametrize("cond", [True, False])
def test_if_matches_finite_differences(cond: bool) -> None:
    exe = _run_text(IF_PROGRAM)
    rng = np.random.default_rng(11)
    x = rng.standard_normal(3)
    y = rng.standard_normal((2, 3))
    c = np.array(cond)

    def fn(xs: list[np.ndarray]) -> float:
        return float(exe.run("fwd", c, *xs)[0])

    loss, gx, gy = exe.run("f", c, x, y)
    assert np.isclose(loss, fn([x, y]), rtol=1e-12)
    np.testing.assert_allclose(gx, central_differences(fn, [x, y], 0, EPS), rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(gy, central_differences(fn, [x, y], 1, EPS), rtol=RTOL, atol=ATOL)


SENS_PROGRAM = """
func.func @fwd(%x: tensor<2x3xf64>, %y: tensor<3xf64>, %s0: tensor<2x3xf64>, %s1: tensor<3xf64>) -> tensor<f64> {
  %m = mindir.mul %x, %y : (tensor<2x3xf64>, tensor<3xf64>) -> tensor<2x3xf64>
  %o0 = mindir.tanh %m : tensor<2x3xf64>
  %o1 = mindir.reduce_max %m {axis = array<i64: 0>} : (tensor<2x3xf64>) -> tensor<3xf64>
  %p0 = mindir.mul %o0, %s0 : tensor<2x3xf64>
  %p1 = mindir.mul %o1, %s1 : tensor<3xf64>
  %l0 = mindir.reduce_sum %p0 : (tensor<2x3xf64>) -> tensor<f64>
  %l1 = mindir.reduce_sum %p1 : (tensor<3xf64>) -> tensor<f64>
  %l = mindir.add %l0, %l1 : tensor<f64>
  func.return %l : tensor<f64>
}
func.func @f(%x: tensor<2x3xf64>, %y: tensor<3xf64>, %s0: tensor<2x3xf64>, %s1: tensor<3xf64>) -> (tensor<2x3xf64>, tensor<3xf64>) {
  %g:2 = mindir.grad (%a = %x, %b = %y) sens (%s0, %s1) wrt [0, 1] weights [] : (tensor<2x3xf64>, tensor<3xf64>, tensor<2x3xf64>, tensor<3xf64>) -> (tensor<2x3xf64>, tensor<3xf64>) {
    %m = mindir.mul %a, %b : (tensor<2x3xf64>, tensor<3xf64>) -> tensor<2x3xf64>
    %o0 = mindir.tanh %m : tensor<2x3xf64>
    %o1 = mindir.reduce_max %m {axis = array<i64: 0>} : (tensor<2x3xf64>) -> tensor<3xf64>
    mindir.yield %o0, %o1 : tensor<2x3xf64>, tensor<3xf64>
  }
  func.return %g#0, %g#1 : tensor<2x3xf64>, tensor<3xf64>
}
"""


def test_sens_operands_seed_each_output() -> None:
    exe = _run_text(SENS_PROGRAM)
    rng = np.random.default_rng(5)
    x = distinct(rng, 2, 3)
    y = rng.uniform(0.5, 1.5, 3)
    s0 = rng.standard_normal((2, 3))
    s1 = rng.standard_normal(3)

    def fn(xs: list[np.ndarray]) -> float:
        return float(exe.run("fwd", *xs, s0, s1)[0])

    gx, gy = exe.run("f", x, y, s0, s1)
    np.testing.assert_allclose(gx, central_differences(fn, [x, y], 0, EPS), rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(gy, central_differences(fn, [x, y], 1, EPS), rtol=RTOL, atol=ATOL)


IF_WEIGHT_PROGRAM = """
mindir.parameter @w = dense<[0.5, -1.0, 2.0]> : tensor<3xf64>
func.func @fwd(%c: tensor<i1>, %x: tensor<3xf64>, %u: !mindir.u) -> (tensor<3xf64>, !mindir.u) {
  %p = mindir.get_parameter @w : !mindir.ref<tensor<3xf64>>
  %r, %u2 = mindir.if %c -> (tensor<3xf64>, !mindir.u) {
    %l = mindir.load %p, %u : tensor<3xf64>
    %u1 = mindir.update_state %u, %l : tensor<3xf64>
    %t = mindir.tanh %x : tensor<3xf64>
    %m = mindir.mul %t, %l : tensor<3xf64>
    mindir.yield %m, %u1 : tensor<3xf64>, !mindir.u
  } else {
    %n = mindir.neg %x : tensor<3xf64>
    mindir.yield %n, %u : tensor<3xf64>, !mindir.u
  }
  func.return %r, %u2 : tensor<3xf64>, !mindir.u
}
func.func @f(%c: tensor<i1>, %x: tensor<3xf64>, %s: tensor<3xf64>, %u: !mindir.u) -> (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, !mindir.u) {
  %g:4 = mindir.grad (%a = %x) sens (%s) wrt [0] weights [@w] value : (tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, !mindir.u) {
    %p = mindir.get_parameter @w : !mindir.ref<tensor<3xf64>>
    %r, %u2 = mindir.if %c -> (tensor<3xf64>, !mindir.u) {
      %l = mindir.load %p, %u : tensor<3xf64>
      %u1 = mindir.update_state %u, %l : tensor<3xf64>
      %t = mindir.tanh %a : tensor<3xf64>
      %m = mindir.mul %t, %l : tensor<3xf64>
      mindir.yield %m, %u1 : tensor<3xf64>, !mindir.u
    } else {
      %n = mindir.neg %a : tensor<3xf64>
      mindir.yield %n, %u : tensor<3xf64>, !mindir.u
    }
    mindir.yield %r, %u2 : tensor<3xf64>, !mindir.u
  }
  func.return %g#0, %g#1, %g#2, %g#3 : tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, !mindir.u
}
"""


@pytest.mark.parametrize("cond", [True, False])
def test_if_result_as_value_and_state_with_a_weight_load(cond: bool) -> None:
    """The grad yields the if's results themselves (its value and its state): the
    forward if mindir-grad rebuilds (to hand out the tanh and the Load) must be
    the one they name."""
    exe = _run_text(IF_WEIGHT_PROGRAM)
    rng = np.random.default_rng(13)
    x = rng.standard_normal(3)
    w = rng.standard_normal(3)
    s = rng.standard_normal(3)
    c = np.array(cond)

    def fn(xs: list[np.ndarray]) -> float:
        exe.set_global("w", xs[1].copy())
        return float((exe.run("fwd", c, xs[0])[0] * s).sum())

    exe.set_global("w", w.copy())
    value, gx, gw = exe.run("f", c, x, s)
    np.testing.assert_allclose(value, np.tanh(x) * w if cond else -x, rtol=1e-12)
    np.testing.assert_allclose(gx, central_differences(fn, [x, w], 0, EPS), rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(gw, central_differences(fn, [x, w], 1, EPS), rtol=RTOL, atol=ATOL)
