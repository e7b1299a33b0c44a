"""Issue 38: `ops.nextafter` and Tensor.nextafter (frontend/ops/nextafter.py) against
numpy's np.nextafter, bit for bit (subnormals, signed zeros, infinities, NaN), in
PyNative and graph mode, and MindSpore 2.10's printed float64 values. MindSpore's
float32 kernel returns the input unchanged (it steps in float64 and rounds back):
not kept, mindjit gives the float32 step."""

from __future__ import annotations

import numpy as np
import pytest
from modes import run

from mindjit import Tensor, ops

RNG = np.random.default_rng(3843)


def _cases(dt):
    fi = np.finfo(dt)
    special = np.array(
        [0.0, -0.0, 1.0, -1.0, 2.0, 0.5, 3.0, fi.max, -fi.max, fi.tiny, -fi.tiny, fi.smallest_subnormal,
         3 * fi.smallest_subnormal, np.inf, -np.inf, np.nan, 1e-30, 123.456, 2.0**-125],
        dt,
    )  # fmt: skip
    x = np.concatenate(
        [special, special, (RNG.standard_normal(40) * 10.0 ** RNG.integers(-30, 30, 40)).astype(dt)]
    )
    y = np.concatenate(
        [
            np.full(len(special), np.inf, dt),
            np.full(len(special), -np.inf, dt),
            (RNG.standard_normal(40) * 1e3).astype(dt),
        ]
    )
    y[5] = x[5]
    return x, y


@pytest.mark.parametrize("dt", [np.float32, np.float64], ids=["float32", "float64"])
def test_nextafter_is_numpys(dt, mode):
    x, y = _cases(dt)
    got = run(lambda a, b: (ops.nextafter(a, b), a.nextafter(b)), mode, Tensor(x), Tensor(y))
    want = np.nextafter(x, y)
    for g in got:
        g = g.asnumpy()
        assert g.dtype == dt
        same = (g == want) | (np.isnan(g) & np.isnan(want))
        assert (same & (np.signbit(g) == np.signbit(want))).all(), (x[~same], g[~same], want[~same])


def test_mindspore_float64_and_broadcast(mode):
    got = run(
        lambda a, b, c: (
            ops.nextafter(a, b),
            ops.nextafter(c, Tensor(np.array([0.0], np.float32))),
        ),
        mode,
        Tensor(np.array([1.0, 0.0])),
        Tensor(np.array([2.0, -1.0])),
        Tensor(np.array([1.0, 2.0], np.float32)),
    )
    # MindSpore 2.10's printed values
    assert got[0].asnumpy().tolist() == [1.0000000000000002, -5e-324]
    assert (
        got[1].asnumpy().tolist() == np.nextafter(np.float32([1.0, 2.0]), np.float32(0.0)).tolist()
    )


def test_errors():
    with pytest.raises(TypeError):
        ops.nextafter(Tensor(np.array([1.0], np.float16)), Tensor(np.array([2.0], np.float16)))
    with pytest.raises(TypeError):
        ops.nextafter(Tensor([1]), Tensor([2]))
    with pytest.raises(TypeError):
        ops.nextafter(Tensor(np.array([1.0], np.float32)), Tensor(np.array([0.0])))
