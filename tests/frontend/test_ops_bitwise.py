"""Issue 38: MindSpore 2.10's bitwise and integer-number ops (frontend/ops/bitwise.py:
mindir.bitwise_and/or/xor, left_shift, right_shift and compositions) and their
Tensor methods. Values are what MindSpore 2.10 printed on CPU (pasted as constants);
every case runs in PyNative and graph mode; bad input raises MindSpore's exception
type. These ops have no gradient (integers)."""

from __future__ import annotations

import numpy as np
import pytest
from modes import run

from mindjit import Tensor, ops

A = np.array([0, 1, -3, 12, 255, -128], np.int32)
B = np.array([1, 3, 5, 10, 7, 2], np.int32)


def _check(got, want, dtype):
    np.testing.assert_array_equal(got.asnumpy(), np.asarray(want))
    assert got.shape == np.asarray(want).shape
    assert str(got.dtype) == dtype


def test_bitwise(mode):
    got = run(
        lambda a, b: (
            ops.bitwise_and(a, b),
            ops.bitwise_or(a, b),
            ops.bitwise_xor(a, b),
            a.bitwise_and(b),
            a.bitwise_or(b),
            a.bitwise_xor(b),
            ops.bitwise_and(Tensor([True, False]), Tensor([True, True])),
            ops.bitwise_or(
                Tensor(np.array([5, 200], np.uint8)), Tensor(np.array([3, 2], np.uint8))
            ),
            ops.bitwise_xor(
                Tensor(np.array([5, -100], np.int8)), Tensor(np.array([3, 2], np.int8))
            ),
            ops.bitwise_and(
                Tensor(np.array([5, -100], np.int32)), Tensor(np.array([3, 2], np.int64))
            ),
            ops.bitwise_xor(a, 2),
            ops.bitwise_or(
                Tensor(np.array([[6], [9]], np.int32)), Tensor(np.array([4, 3], np.int32))
            ),
        ),
        mode,
        Tensor(A),
        Tensor(B),
    )
    # MindSpore 2.10's printed values
    _check(got[0], [0, 1, 5, 8, 7, 0], "Int32")
    _check(got[1], [1, 3, -3, 14, 255, -126], "Int32")
    _check(got[2], [1, 2, -8, 6, 248, -126], "Int32")
    _check(got[3], [0, 1, 5, 8, 7, 0], "Int32")
    _check(got[4], [1, 3, -3, 14, 255, -126], "Int32")
    _check(got[5], [1, 2, -8, 6, 248, -126], "Int32")
    _check(got[6], [True, False], "Bool")
    _check(got[7], [7, 202], "UInt8")
    _check(got[8], [6, -98], "Int8")
    _check(got[9], [1, 0], "Int64")
    _check(got[10], [2, 3, -1, 14, 253, -126], "Int32")
    _check(got[11], [[6, 7], [13, 11]], "Int32")


def test_shifts(mode):
    got = run(
        lambda a, b: (
            ops.bitwise_left_shift(a, b),
            ops.bitwise_right_shift(a, b),
            a.bitwise_left_shift(2),
            a.bitwise_right_shift(2),
            ops.bitwise_left_shift(
                Tensor(np.array([1, 1, -8], np.int32)), Tensor(np.array([31, 32, 40], np.int32))
            ),
            ops.bitwise_right_shift(
                Tensor(np.array([-8, 8, -8], np.int32)), Tensor(np.array([31, 32, 1], np.int32))
            ),
            ops.bitwise_left_shift(
                Tensor(np.array([8], np.int32)), Tensor(np.array([-1], np.int32))
            ),
            ops.bitwise_left_shift(
                Tensor(np.array([5, -100], np.int8)), Tensor(np.array([3, 2], np.int8))
            ),
            ops.bitwise_right_shift(
                Tensor(np.array([5, 200], np.uint8)), Tensor(np.array([3, 2], np.uint8))
            ),
            ops.bitwise_left_shift(
                Tensor(np.array([5, -100], np.int64)), Tensor(np.array([3, 2], np.int64))
            ),
            ops.bitwise_right_shift(
                Tensor(np.array([5, -100], np.int16)), Tensor(np.array([3, 2], np.int16))
            ),
        ),
        mode,
        Tensor(A),
        Tensor(B),
    )
    # MindSpore 2.10's printed values
    _check(got[0], [0, 8, -96, 12288, 32640, -512], "Int32")
    _check(got[1], [0, 0, -1, 0, 1, -32], "Int32")
    _check(got[2], [0, 4, -12, 48, 1020, -512], "Int32")
    _check(got[3], [0, 0, -1, 3, 63, -32], "Int32")
    _check(got[4], [-2147483648, 1, -2048], "Int32")
    _check(got[5], [-1, 8, -4], "Int32")
    _check(got[6], [0], "Int32")
    _check(got[7], [40, 112], "Int8")
    _check(got[8], [0, 50], "UInt8")
    _check(got[9], [40, -400], "Int64")
    _check(got[10], [0, -25], "Int16")


def test_invert_popcount(mode):
    got = run(
        lambda a: (
            ops.invert(a),
            a.invert(),
            ops.invert(Tensor(np.array([5, 200], np.uint8))),
            ops.invert(Tensor(np.array([5, -200], np.int64))),
            ops.population_count(a),
            ops.population_count(Tensor(np.array([5, -1, -128], np.int8))),
            ops.population_count(Tensor(np.array([5, 255], np.uint8))),
            ops.population_count(Tensor(np.array([5, -1], np.int64))),
            ops.population_count(Tensor(np.array([5, -1], np.int16))),
            ops.population_count(Tensor(np.array([5, 65535], np.uint16))),
        ),
        mode,
        Tensor(A),
    )
    # MindSpore 2.10's printed values
    _check(got[0], [-1, -2, 2, -13, -256, 127], "Int32")
    _check(got[1], [-1, -2, 2, -13, -256, 127], "Int32")
    _check(got[2], [250, 55], "UInt8")
    _check(got[3], [-6, 199], "Int64")
    _check(got[4], [0, 1, 31, 2, 8, 25], "UInt8")
    _check(got[5], [2, 8, 1], "UInt8")
    _check(got[6], [2, 8], "UInt8")
    _check(got[7], [2, 64], "UInt8")
    _check(got[8], [2, 16], "UInt8")
    _check(got[9], [2, 16], "UInt8")


def test_gcd_lcm(mode):
    got = run(
        lambda a, b: (
            ops.gcd(a, b),
            a.gcd(b),
            ops.lcm(a, b),
            a.lcm(b),
            ops.gcd(
                Tensor(np.array([0, 0, -6, 6], np.int32)), Tensor(np.array([0, 5, 0, -4], np.int32))
            ),
            ops.lcm(
                Tensor(np.array([0, 0, -6, 6], np.int32)), Tensor(np.array([0, 5, 0, -4], np.int32))
            ),
            ops.gcd(
                Tensor(np.array([1836311903, 2147483647], np.int32)),
                Tensor(np.array([1134903170, 1073741824], np.int32)),
            ),
            ops.gcd(Tensor(np.array([[6], [9]], np.int32)), Tensor(np.array([4, 3], np.int32))),
            ops.lcm(Tensor(np.array([5, -100], np.int32)), Tensor(np.array([3, 2], np.int64))),
            ops.lcm(a, 2),
            ops.gcd(Tensor(np.array([12, -18], np.int16)), Tensor(np.array([8, 12], np.int16))),
        ),
        mode,
        Tensor(A),
        Tensor(B),
    )
    # MindSpore 2.10's printed values
    _check(got[0], [1, 1, 1, 2, 1, 2], "Int32")
    _check(got[1], [1, 1, 1, 2, 1, 2], "Int32")
    _check(got[2], [0, 3, 15, 60, 1785, 128], "Int32")
    _check(got[3], [0, 3, 15, 60, 1785, 128], "Int32")
    _check(got[4], [0, 5, 6, 2], "Int32")
    _check(got[5], [0, 0, 0, 12], "Int32")
    _check(got[6], [1, 1], "Int32")
    _check(got[7], [[2, 3], [1, 3]], "Int32")
    _check(got[8], [15, 100], "Int64")
    _check(got[9], [0, 2, 6, 12, 510, 128], "Int32")
    _check(got[10], [4, 6], "Int16")  # numpy's gcd


def test_errors():
    f32 = Tensor([1.0])
    for fn in (
        ops.bitwise_and,
        ops.bitwise_or,
        ops.bitwise_xor,
        ops.bitwise_left_shift,
        ops.bitwise_right_shift,
        ops.gcd,
        ops.lcm,
    ):
        with pytest.raises(TypeError):
            fn(f32, f32)
    with pytest.raises(TypeError):
        ops.bitwise_left_shift(Tensor([True]), Tensor([True]))
    with pytest.raises(TypeError):
        ops.bitwise_right_shift(Tensor(np.array([5], np.int32)), Tensor(np.array([3], np.int64)))
    with pytest.raises(TypeError):
        ops.gcd(Tensor(np.array([5], np.uint8)), Tensor(np.array([3], np.uint8)))
    with pytest.raises(TypeError):
        ops.gcd(Tensor(np.array([5], np.int32)), 2)
    with pytest.raises(TypeError):
        ops.lcm(Tensor(np.array([5], np.int16)), Tensor(np.array([3], np.int16)))
    with pytest.raises(TypeError):
        ops.invert(Tensor([True]))
    with pytest.raises(TypeError):
        ops.invert(f32)
    with pytest.raises(TypeError):
        ops.population_count(Tensor([True]))
    with pytest.raises(TypeError):
        ops.population_count(f32)
