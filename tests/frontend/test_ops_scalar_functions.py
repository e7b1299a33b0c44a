"""Issue 38: MindSpore 2.10's scalar, bool and string helpers
(frontend/ops/scalar_functions.py): scalar_add ... scalar_usub, scalar_cast,
scalar_to_array, bool_and/or/not/eq, string_eq, string_concat. Expected values are
what MindSpore 2.10 printed on CPU (PyNative; for bool_*, string_* and scalar_ne,
which MindSpore runs in graph mode only, its graph mode), pasted as literals; every
case runs in PyNative and graph mode; bad input raises MindSpore's exception type."""

from __future__ import annotations

import math

import numpy as np
import pytest
from modes import run

import mindjit as ms
from mindjit import Tensor, ops


def _same(got, want):
    assert type(got) is type(want), (got, want)
    assert got == want


# (op, x, y, MindSpore 2.10's value)
NUMBERS = [
    (ops.scalar_add, 2, 3, 5),
    (ops.scalar_add, 2, 3.5, 5.5),
    (ops.scalar_add, True, 3, 4),
    (ops.scalar_sub, 2, 3, -1),
    (ops.scalar_mul, 2, 3.0, 6.0),
    (ops.scalar_div, 7, 2, 3.5),
    (ops.scalar_div, -7, 2, -3.5),
    (ops.scalar_div, 6, 2, 3.0),
    (ops.scalar_floordiv, 7, 2, 3),
    (ops.scalar_floordiv, -7, 2, -4),
    (ops.scalar_floordiv, -7.5, 2, -4.0),
    (ops.scalar_mod, 7, 3, 1),
    (ops.scalar_mod, -7, 3, 2),
    (ops.scalar_mod, 7.5, -2, -0.5),
    (ops.scalar_pow, 2, 3, 8),
    (ops.scalar_pow, 2, -1, 0.5),
    (ops.scalar_eq, 2, 2.0, True),
    (ops.scalar_ne, 2, 3, True),
    (ops.scalar_ne, 2, 2.0, False),
    (ops.scalar_lt, 2, 3, True),
    (ops.scalar_le, 2, 2, True),
    (ops.scalar_gt, 2, 3, False),
    (ops.scalar_ge, 3, 2, True),
    (ops.scalar_max, 2, 3.0, 3.0),
    (ops.scalar_min, 2, 3, 2),
    (ops.scalar_max, True, 3, 3),
]


@pytest.mark.parametrize(("op", "x", "y", "want"), NUMBERS)
def test_binary_numbers(mode, op, x, y, want):
    _same(run(lambda: op(x, y), mode), want)


def test_unary_and_cast(mode):
    got = run(
        lambda: (
            ops.scalar_log(1),
            ops.scalar_uadd(-2),
            ops.scalar_uadd(True),
            ops.scalar_usub(2),
            ops.scalar_usub(2.5),
            ops.scalar_cast(2, ms.bool_),
            ops.scalar_cast(-2.7, ms.int64),
            ops.scalar_cast(2, ms.float64),
            ops.scalar_cast(0.0, ms.bool_),
        ),
        mode,
    )
    for g, w in zip(got, (0.0, -2, True, -2, -2.5, True, -2, 2.0, False), strict=True):
        _same(g, w)
    assert run(lambda: ops.scalar_log(2.0), mode) == pytest.approx(0.6931471805599453)
    assert math.isclose(ops.scalar_pow(2.0, 0.5), 1.4142135623730951)


def test_tensor_operands(mode):
    """A 0-d Tensor goes through the Tensor operators, as in MindSpore's PyNative."""
    got = run(
        lambda a, b: (
            ops.scalar_add(a, 2),
            ops.scalar_div(a, 2),
            ops.scalar_floordiv(b, a),
            ops.scalar_pow(a, 2),
            ops.scalar_gt(a, 2),
            ops.scalar_usub(b),
        ),
        mode,
        Tensor(7),
        Tensor(7.5),
    )
    # MindSpore 2.10: 9 Int64, 3.5 Float32, 1 Float32 (7.5 // 7), 49 Int64, True Bool, -7.5
    for g, (value, dtype) in zip(
        got,
        (
            (9, "Int64"),
            (3.5, "Float32"),
            (1.0, "Float32"),
            (49, "Int64"),
            (True, "Bool"),
            (-7.5, "Float32"),
        ),
        strict=True,
    ):
        assert g.shape == () and str(g.dtype) == dtype
        assert g.asnumpy().item() == value
    assert ops.scalar_log(Tensor(2.0)) == pytest.approx(0.6931471805599453)


def test_bool_and_string(mode):
    got = run(
        lambda: (
            ops.bool_and(True, False),
            ops.bool_or(True, False),
            ops.bool_eq(True, True),
            ops.bool_eq(True, False),
            ops.bool_not(True),
            ops.string_eq("a", "a"),
            ops.string_eq("a", "b"),
            ops.string_concat("a", "b"),
        ),
        mode,
    )
    assert got == (False, True, True, False, False, True, False, "ab")


def test_scalar_to_array(mode):
    got = run(lambda: (ops.scalar_to_array(2), ops.scalar_to_array(2.5)), mode)
    assert str(got[0].dtype) == "Int64" and got[0].asnumpy().item() == 2
    assert str(got[1].dtype) == "Float32" and got[1].asnumpy().item() == 2.5


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda: ops.scalar_div(7, 0), ValueError),
        (lambda: ops.scalar_div(Tensor(0), Tensor(0)), ValueError),
        (lambda: ops.scalar_floordiv(7.0, 0.0), ValueError),
        (lambda: ops.scalar_mod(7, 0), ValueError),
        (lambda: ops.scalar_log(0), ValueError),
        (lambda: ops.scalar_add("a", 3), TypeError),
        (lambda: ops.scalar_add(None, 3), TypeError),
        (lambda: ops.scalar_usub("a"), TypeError),
        (lambda: ops.scalar_cast(2.7, ms.int32), ValueError),
        (lambda: ops.scalar_cast(Tensor(2.5), ms.int64), TypeError),
        (lambda: ops.scalar_cast("a", ms.int64), TypeError),
        (lambda: ops.bool_and(1, 0), RuntimeError),
        (lambda: ops.bool_not(Tensor([True])), TypeError),
        (lambda: ops.string_concat("a", 1), TypeError),
    ],
)
def test_bad_input(mode, call, error):
    with pytest.raises(error):
        run(call, mode)


def test_message():
    with pytest.raises(ValueError, match="The divisor could not be zero"):
        ops.scalar_div(np.int64(7), 0)
