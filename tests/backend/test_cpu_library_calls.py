"""The CPU executor's named kernels (linalg.generic `library_call`: sort, cumsum,
cumprod) and its argmax/argmin recogniser compute what the regions say: the same
module run with the attribute stripped (the general linalg planner, quadratic)
gives the same values, NaN, infinities and ties included."""

from __future__ import annotations

import re

import numpy as np
import pytest

from mindjit.backend.cpu import CpuExecutable
from mindjit.dialects.parsing import parse_module
from mindjit.passes.pipelines import lower_to_tensor

PROGRAM = """
func.func @f(%a: tensor<5x6xf32>, %n: tensor<5x6xi32>) -> (
    tensor<5x6xf32>, tensor<5x6xi32>, tensor<5x6xi32>, tensor<5x6xi32>,
    tensor<5x6xf32>, tensor<5x6xf32>, tensor<5x6xi32>, tensor<5x6xi32>,
    tensor<5xi32>, tensor<6xi64>, tensor<5xi32>) {
  %v, %i = mindir.sort %a {axis = 0 : i64, descending = true} : tensor<5x6xf32> -> (tensor<5x6xf32>, tensor<5x6xi32>)
  %w, %j = mindir.sort %n : tensor<5x6xi32> -> (tensor<5x6xi32>, tensor<5x6xi32>)
  %c = mindir.cumsum %a {axis = 1 : i64, exclusive = true} : tensor<5x6xf32>
  %p = mindir.cumprod %a {axis = 0 : i64, reverse = true} : tensor<5x6xf32>
  %q = mindir.cumsum %n {axis = 0 : i64, exclusive = true, reverse = true} : tensor<5x6xi32>
  %r = mindir.cumprod %n {axis = 1 : i64} : tensor<5x6xi32>
  %m = mindir.argmax %a {axis = 1 : i64} : (tensor<5x6xf32>) -> tensor<5xi32>
  %k = mindir.argmin %a {axis = 0 : i64, index_type = i64} : (tensor<5x6xf32>) -> tensor<6xi64>
  %l = mindir.argmin %n {axis = 1 : i64} : (tensor<5x6xi32>) -> tensor<5xi32>
  func.return %v, %i, %w, %j, %c, %p, %q, %r, %m, %k, %l : tensor<5x6xf32>, tensor<5x6xi32>, tensor<5x6xi32>, tensor<5x6xi32>, tensor<5x6xf32>, tensor<5x6xf32>, tensor<5x6xi32>, tensor<5x6xi32>, tensor<5xi32>, tensor<6xi64>, tensor<5xi32>
}
"""


def _inputs(seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    a = rng.integers(-2, 3, (5, 6)).astype(np.float32)
    a[1, 2] = a[3, 2] = np.nan
    a[0, 4], a[2, 5] = np.inf, -np.inf
    return [a, rng.integers(-2, 3, (5, 6)).astype(np.int32)]


@pytest.mark.parametrize("seed", [0, 1])
def test_named_kernels_match_their_regions(seed):
    module = lower_to_tensor(parse_module(PROGRAM))
    assert "library_call" in str(module)
    plain = parse_module(re.sub(r', library_call = "[a-z_]+"', "", str(module)))
    inputs = _inputs(seed)
    fast = CpuExecutable(module).run("f", *inputs)
    slow = CpuExecutable(plain).run("f", *inputs)
    for got, want in zip(fast, slow, strict=True):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)


def test_sort_and_argmax_follow_numpy():
    module = lower_to_tensor(parse_module(PROGRAM))
    a, n = _inputs(2)
    v, _, w, j, *_, m, k, low = CpuExecutable(module).run("f", a, n)
    np.testing.assert_array_equal(j, np.argsort(n, 1, kind="stable"))
    np.testing.assert_array_equal(w, np.sort(n, 1))
    np.testing.assert_array_equal(m, np.argmax(a, 1))
    np.testing.assert_array_equal(k, np.argmin(a, 0))
    np.testing.assert_array_equal(low, np.argmin(n, 1))
    assert np.isnan(v[0, 2]) and np.isnan(v[1, 2])  # NaN first when descending
