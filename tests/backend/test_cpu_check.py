"""The CPU executor's `cf.assert`, and `mindir.check_range` lowered and run."""

from __future__ import annotations

import numpy as np
import pytest

from mindjit.backend.cpu import CpuExecutable, ExecutionError, RuntimeCheckError
from mindjit.dialects.parsing import parse_module
from mindjit.passes.pipelines import lower_to_tensor

CHECKED = """
func.func @f(%x: tensor<2x3xf32>, %s: tensor<f16>) -> (tensor<2x3xf32>, tensor<f16>) {
  %y = mindir.check_range %x {min = 0.0 : f64, max = 1.0 : f64, message = "x out of [0, 1]"} : tensor<2x3xf32>
  %z = mindir.check_range %s {min = -0.5 : f64, max = 0x7ff0000000000000 : f64, message = "s below -0.5"} : tensor<f16>
  func.return %y, %z : tensor<2x3xf32>, tensor<f16>
}
"""


@pytest.fixture(scope="module")
def exe() -> CpuExecutable:
    return CpuExecutable(lower_to_tensor(parse_module(CHECKED, "checked.mlir")))


def test_values_in_range_pass_through_unchanged(exe):
    x = np.array([[0.0, 0.5, 1.0], [0.25, 1e-30, 0.999]], np.float32)
    y, z = exe.run("f", x, np.array(7.0, np.float16))
    np.testing.assert_array_equal(y, x)
    assert z.tolist() == 7.0
    _, z = exe.run("f", x, np.array(np.inf, np.float16))  # the bound is +inf
    assert z.tolist() == np.inf


@pytest.mark.parametrize("bad", [1.0000001, -1e-38, np.nan, np.inf, -np.inf])
def test_an_element_out_of_range_or_nan_raises_the_message(exe, bad):
    x = np.array([[0.0, 0.5, 1.0], [0.25, bad, 0.75]], np.float32)
    with pytest.raises(RuntimeCheckError) as info:
        exe.run("f", x, np.array(0.0, np.float16))
    assert info.value.message == "x out of [0, 1]"
    assert str(info.value).startswith("checked.mlir:3:")  # located at the check
    assert isinstance(info.value, RuntimeError) and isinstance(info.value, ExecutionError)


def test_a_rank_0_check(exe):
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(RuntimeCheckError, match="s below -0.5"):
        exe.run("f", x, np.array(-0.75, np.float16))
    with pytest.raises(RuntimeCheckError, match="s below -0.5"):
        exe.run("f", x, np.array(np.nan, np.float16))


def test_the_executor_stays_usable_after_a_failed_check(exe):
    with pytest.raises(RuntimeCheckError):
        exe.run("f", np.full((2, 3), 2.0, np.float32), np.array(0.0, np.float16))
    y, _ = exe.run("f", np.full((2, 3), 0.5, np.float32), np.array(0.0, np.float16))
    assert y.tolist() == [[0.5] * 3] * 2


def test_an_assert_is_kept_without_users_and_constant_ones_are_folded():
    module = parse_module(
        """
func.func @g(%c: i1) -> i1 {
  %t = arith.constant true
  cf.assert %t, "never"
  cf.assert %c, "c is false"
  func.return %t : i1
}
""",
        "asserts.mlir",
    )
    exe = CpuExecutable(module)
    assert exe.run("g", np.bool_(True)) == (True,)
    with pytest.raises(RuntimeCheckError, match="c is false"):
        exe.run("g", np.bool_(False))
