"""Float Pow on IREE has C's `pow` semantics (backend/iree/pow.py): a negative
base with an integral exponent, `x ** 0`, `1 ** nan`, `(-1) ** inf` ... give
`np.power`'s values, where IREE 3.13's own `exp(b * log(a))` gave NaN."""

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
# fmt: off
BASES =     [-2, -2, -2, -2.5, -2,  0, 0, -0.0, -0.0, -0.0, 0,   1,   1,   NAN, -1,  -1,   -INF, -INF, -INF, INF, 2,    0.5, -3,   -1e-3, -8,  3,   -1.5, -4]  # noqa: E501
EXPONENTS = [1,  2,  3,  0.5,  -1,  0, -1, -1,   3,    2,    0.5, NAN, INF, 0,   INF, -INF, 3,    -2,   0.5,  -1,  -INF, INF, 1e30, 2,     1/3, NAN, -3,   1e10]  # noqa: E501
# fmt: on


def _module(n: int, t: str):
    text = f"""
func.func @pow(%a: tensor<{n}x{t}>, %b: tensor<{n}x{t}>) -> tensor<{n}x{t}> {{
  %p = mindir.pow %a, %b : tensor<{n}x{t}>
  func.return %p : tensor<{n}x{t}>
}}
"""
    return lower_to_tensor(parse_module(text, "<pow>"))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_iree_pow_is_numpy_power(dtype):
    t = {np.float32: "f32", np.float64: "f64", np.float16: "f16"}[dtype]
    with np.errstate(all="ignore"):  # float16: 1e10 and 1e30 are inf
        a, b = np.array(BASES, dtype), np.array(EXPONENTS, dtype)
        want = np.power(a, b)
    (cpu,) = CpuExecutable(_module(len(a), t)).run("pow", a, b)
    np.testing.assert_array_equal(cpu, want)  # the reference is the numpy executor's
    (got,) = IreeExecutable(_module(len(a), t)).run("pow", a, b)
    assert got.dtype == dtype
    rtol = 2e-3 if dtype == np.float16 else 1e-5
    np.testing.assert_allclose(got, want, rtol=rtol, atol=0, equal_nan=True)
    # signs too: (-0) ** 3 is -0, (-0) ** -1 is -inf, (-inf) ** 3 is -inf (a NaN's sign
    # is no value's)
    number = ~np.isnan(want)
    np.testing.assert_array_equal(np.signbit(got[number]), np.signbit(want[number]))


def test_every_powf_is_rewritten_on_the_absolute_base():
    text = prepare(_module(3, "f32")).text
    assert text.count("math.powf") == 1
    assert "math.absf" in text and "math.copysign" in text and "math.floor" in text
