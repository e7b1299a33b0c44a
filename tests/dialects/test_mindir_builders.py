"""Builders infer result types, so passes and the frontend never spell them out."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import TensorType, f16, f32, i1, i32
from xdsl.ir import Block
from xdsl.utils.exceptions import VerifyException

from mindjit.dialects import mindir as M


def args(*types):
    return Block(arg_types=list(types)).args


def t(*shape, el=f32):
    return TensorType(el, list(shape))


@pytest.mark.parametrize(
    ("op", "shapes", "expected"),
    [
        (M.AddOp, [(2, 3), (3,)], t(2, 3)),
        (M.MulOp, [(4, 1), (1, 5)], t(4, 5)),
        (M.SubOp, [(), (2,)], t(2)),
        (M.LessOp, [(2, 3), (3,)], t(2, 3, el=i1)),
        (M.MaximumOp, [(1,), (7,)], t(7)),
    ],
)
def test_binary_broadcast(op, shapes, expected):
    a, b = args(*(t(*s) for s in shapes))
    built = op.get(a, b)
    assert built.result.type == expected
    built.verify()


def test_unary_and_cast():
    (x,) = args(t(2, 3))
    assert M.TanhOp.get(x).result.type == t(2, 3)
    assert M.CastOp.get(x, f16).result.type == t(2, 3, el=f16)


def test_matmul_shapes():
    a, b = args(t(5, 2, 3), t(4, 3))
    assert M.MatMulOp.get(a, b, transpose_b=True).result.type == t(5, 2, 4)
    with pytest.raises(VerifyException, match="contraction sizes differ"):
        M.MatMulOp.get(a, b)


def test_reductions():
    (x,) = args(t(2, 3, 4))
    assert M.ReduceSumOp.get(x, [1]).result.type == t(2, 4)
    assert M.ReduceMeanOp.get(x, [-1], keep_dims=True).result.type == t(2, 3, 1)
    assert M.ReduceMaxOp.get(x).result.type == t()
    assert M.ReduceSumOp.get(x, [0, 2]).reduced_axes() == (0, 2)


def test_shape_ops():
    (x,) = args(t(2, 3))
    assert M.ReshapeOp.get(x, [3, 2]).result.type == t(3, 2)
    assert M.TransposeOp.get(x, [1, 0]).result.type == t(3, 2)
    assert M.BroadcastToOp.get(x, [4, 2, 3]).result.type == t(4, 2, 3)
    assert M.ConcatOp.get([x, x], axis=1).result.type == t(2, 6)
    assert M.StackOp.get([x, x], axis=-1).result.type == t(2, 3, 2)
    item = M.GetItemOp.get(x, [1, 0], [2, 3], [1, 2], squeeze=[0])
    assert item.result.type == t(2)
    with pytest.raises(VerifyException, match="cannot reshape"):
        M.ReshapeOp.get(x, [4])


def test_tuples_and_addn():
    a, b = args(t(2), t(2))
    tup = M.MakeTupleOp.get([a, b])
    assert str(tup.result.type) == "tuple<tensor<2xf32>, tensor<2xf32>>"
    assert M.TupleGetItemOp.get(tup.result, 1).result.type == t(2)
    assert M.AddNOp.get(tup.result).result.type == t(2)


def test_effects_builders():
    (x, u) = args(t(2), M.MonadUType())
    ref = M.GetParameterOp.get("w", t(2))
    assign = M.AssignOp.get(ref.result, x, u)
    assert assign.result.type == t(2)
    state = M.UpdateStateOp.get(u, [assign.result])
    assert state.result.type == M.MonadUType()
    load = M.LoadOp.get(ref.result, state.result)
    assert load.result.type == t(2)
    assert M.DependOp.get(x, [load.result]).result.type == t(2)
    assert M.TensorMoveOp(load.result).result.type == t(2)


def test_select_and_ints():
    c, x, y = args(t(2, 1, el=i1), t(3, el=i32), t(el=i32))
    assert M.SelectOp.get(c, x, y).result.type == t(2, 3, el=i32)
    with pytest.raises(VerifyException, match="needs float elements"):
        M.ExpOp.get(x)
