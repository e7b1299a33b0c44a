"""Math ops on IREE give numpy's (C's) values (backend/iree/c_math.py): Pow of a
negative base with an integral exponent, `x ** 0`, `1 ** nan`, `(-1) ** inf`;
atan2 at zeros and infinities and of a tiny negative y; f64 log1p/expm1 of small
x, where IREE 3.13's own expansions gave NaN, the wrong sign of pi, or 0."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("iree.runtime")
pytest.importorskip("iree.compiler")

from mindjit.backend.cpu import CpuExecutable  # noqa: E402
from mindjit.backend.iree.executable import IreeExecutable  # noqa: E402
from mindjit.backend.iree.prepare import prepare  # noqa: E402
from mindjit.dialects.parsing import parse_module  # noqa: E402
from mindjit.passes.pipelines import lower_to_tensor  # noqa: E402

INF, NAN = np.inf, np.nan
TYPES = {np.float32: "f32", np.float64: "f64", np.float16: "f16"}
# fmt: off
BASES =     [-2, -2, -2, -2.5, -2,  0, 0, -0.0, -0.0, -0.0, 0,   1,   1,   NAN, -1,  -1,   -INF, -INF, -INF, INF, 2,    0.5, -3,   -1e-3, -8,  3,   -1.5, -4]  # noqa: E501
EXPONENTS = [1,  2,  3,  0.5,  -1,  0, -1, -1,   3,    2,    0.5, NAN, INF, 0,   INF, -INF, 3,    -2,   0.5,  -1,  -INF, INF, 1e30, 2,     1/3, NAN, -3,   1e10]  # noqa: E501
# every (y, x) of these: zeros, infinities, a tiny y next to a large x
ATAN2 = [0.0, -0.0, 1.0, -1.0, 1e-30, -1e-30, 1e10, -1e10, INF, -INF, NAN, 0.5]
SMALL = [0.0, -0.0, 1e-300, -1e-300, 1e-30, -1e-30, 1e-6, -1e-6, 1e-3, 0.5, -0.5, 30.0, -1.0,
         -2.0, 800.0, -800.0, INF, -INF, NAN]
# fmt: on


def _module(op: str, n: int, t: str, binary: bool):
    args = f"%a: tensor<{n}x{t}>, %b: tensor<{n}x{t}>" if binary else f"%a: tensor<{n}x{t}>"
    operands = "%a, %b" if binary else "%a"
    text = f"""
func.func @f({args}) -> tensor<{n}x{t}> {{
  %p = mindir.{op} {operands} : tensor<{n}x{t}>
  func.return %p : tensor<{n}x{t}>
}}
"""
    return lower_to_tensor(parse_module(text, f"<{op}>"))


def _check(op: str, dtype, *args: np.ndarray, rtol: float) -> None:
    module = _module(op, len(args[0]), TYPES[dtype], len(args) == 2)
    (want,) = CpuExecutable(module).run("f", *args)
    (got,) = IreeExecutable(module.clone()).run("f", *args)
    # IREE's float32 code flushes subnormals to zero (atan2(1e-30, 1e10) is 1e-40): a
    # documented difference, not this test's
    flushed = (np.abs(want) < np.finfo(dtype).tiny) & (got == 0)
    want = np.where(flushed, np.copysign(0, want), want)
    assert got.dtype == want.dtype == dtype
    np.testing.assert_allclose(got, want, rtol=rtol, atol=0, equal_nan=True)
    # signs too: (-0) ** 3 is -0, atan2(-1, -inf) is -pi, log1p(-0) is -0 (a NaN's
    # sign is no value's)
    number = ~np.isnan(want)
    np.testing.assert_array_equal(np.signbit(got[number]), np.signbit(want[number]))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_pow_is_numpy_power(dtype):
    with np.errstate(all="ignore"):  # float16: 1e10 and 1e30 are inf
        a, b = np.array(BASES, dtype), np.array(EXPONENTS, dtype)
        want = np.power(a, b)
    assert np.isnan(want).sum() == 3  # (-2.5) ** 0.5, (-8) ** (1/3), 3 ** nan
    _check("pow", dtype, a, b, rtol=2e-3 if dtype == np.float16 else 1e-5)


def test_atan2_is_numpy_arctan2():  # IREE has no float64 atan2 (prepare.NO_F64)
    y, x = (v.ravel().astype(np.float32) for v in np.meshgrid(ATAN2, ATAN2))
    _check("atan2", np.float32, y, x, rtol=1e-6)


@pytest.mark.parametrize("op", ["log1p", "expm1"])
def test_float64_log1p_expm1_keep_small_values(op):
    x = np.array(SMALL, np.float64)
    _check(op, np.float64, x, rtol=1e-15)


def test_the_rewrites_keep_iree_ops_where_they_are_right():
    text = prepare(_module("pow", 3, "f32", True)).text
    assert text.count("math.powf") == 1 and "math.absf" in text and "math.copysign" in text
    assert "math.log1p" not in prepare(_module("log1p", 3, "f64", False)).text
    # float32 log1p is accurate on IREE: left alone
    assert "math.log1p" in prepare(_module("log1p", 3, "f32", False)).text


@pytest.mark.parametrize("op", ["sin", "cos"])
def test_float32_sin_cos_are_off_as_documented(op):
    """Not rewritten (c_math.py, README): IREE's float32 sin/cos are off by about
    1.6e-7 + 2.7e-8 * |x| where numpy's float32 ones are within 6e-8."""
    x = np.geomspace(1e-8, 1e4, 2000).astype(np.float32)
    x = np.concatenate([x, -x])
    (got,) = IreeExecutable(_module(op, len(x), "f32", False)).run("f", x)
    error = np.abs(got - getattr(np, op)(x.astype(np.float64)))
    assert (error <= 2e-7 + 3e-8 * np.abs(x)).all()
    assert error.max() > 1e-4  # a new IREE that is exact: update the docs
