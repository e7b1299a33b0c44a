"""The Ascend float-status ops on the CPU: lowered to runtime calls, emulated with
an overflow flag that f16/f32 results set once they hold inf or nan after a
clear; the executed order can be read from the trace."""

from __future__ import annotations

import numpy as np
import pytest

from mindjit.backend.cpu import CpuExecutable, ExecutionError
from mindjit.dialects.parsing import parse_module
from mindjit.passes.pipelines import lower_to_tensor

STATUS = """
func.func @status(%x: tensor<2x3xf16>) -> (tensor<2x3xf16>, tensor<8xf32>) {
  %init = mindir.npu_alloc_float_status : tensor<8xf32>
  %clear = mindir.npu_clear_float_status %init : tensor<8xf32>
  %x1 = mindir.depend %x, %clear : tensor<2x3xf16>, tensor<8xf32>
  %n = mindir.neg %x1 : tensor<2x3xf16>
  %res = mindir.sub %x1, %n : tensor<2x3xf16>
  %init1 = mindir.depend %init, %res : tensor<8xf32>, tensor<2x3xf16>
  %get = mindir.npu_get_float_status %init1 : tensor<8xf32>
  %out = mindir.depend %res, %get : tensor<2x3xf16>, tensor<8xf32>
  func.return %out, %get : tensor<2x3xf16>, tensor<8xf32>
}

func.func @before_clear(%x: tensor<f32>) -> (tensor<f32>, tensor<8xf32>) {
  %big = mindir.mul %x, %x : tensor<f32>
  %init = mindir.npu_alloc_float_status : tensor<8xf32>
  %b1 = mindir.depend %big, %init : tensor<f32>, tensor<8xf32>
  %clear = mindir.npu_clear_float_status %init : tensor<8xf32>
  %x1 = mindir.depend %x, %clear : tensor<f32>, tensor<8xf32>
  %half = mindir.constant dense<0.5> : tensor<f32>
  %small = mindir.mul %x1, %half : tensor<f32>
  %c1 = mindir.depend %clear, %small : tensor<8xf32>, tensor<f32>
  %get = mindir.npu_get_float_status %c1 : tensor<8xf32>
  func.return %b1, %get : tensor<f32>, tensor<8xf32>
}

func.func @f32_and_nan(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<8xf32>) {
  %init = mindir.npu_alloc_float_status : tensor<8xf32>
  %clear = mindir.npu_clear_float_status %init : tensor<8xf32>
  %x1 = mindir.depend %x, %clear : tensor<3xf32>, tensor<8xf32>
  %l = mindir.log %x1 : tensor<3xf32>
  %c1 = mindir.depend %clear, %l : tensor<8xf32>, tensor<3xf32>
  %get = mindir.npu_get_float_status %c1 : tensor<8xf32>
  func.return %l, %get : tensor<3xf32>, tensor<8xf32>
}

func.func @ints(%x: tensor<i32>) -> (tensor<i32>, tensor<8xf32>) {
  %init = mindir.npu_alloc_float_status : tensor<8xf32>
  %clear = mindir.npu_clear_float_status %init : tensor<8xf32>
  %x1 = mindir.depend %x, %clear : tensor<i32>, tensor<8xf32>
  %sq = mindir.mul %x1, %x1 : tensor<i32>
  %c1 = mindir.depend %clear, %sq : tensor<8xf32>, tensor<i32>
  %get = mindir.npu_get_float_status %c1 : tensor<8xf32>
  func.return %sq, %get : tensor<i32>, tensor<8xf32>
}
"""

ZERO = [0.0] * 8
SET = [1.0] + [0.0] * 7


@pytest.fixture
def exe() -> CpuExecutable:
    return CpuExecutable(lower_to_tensor(parse_module(STATUS, "status.mlir")))


def test_lowered_to_runtime_calls():
    text = str(lower_to_tensor(parse_module(STATUS, "status.mlir")))
    for kind, signature in [
        ("alloc", "()"),
        ("clear", "(tensor<8xf32>)"),
        ("get", "(tensor<8xf32>)"),
    ]:
        assert (
            f"func.func private @__mindjit_float_status_{kind}{signature} -> tensor<8xf32> "
            f'attributes {{mindjit.runtime = "float_status_{kind}"}}'
        ) in text
    assert text.count("func.func private @__mindjit_float_status_") == 3  # shared by functions
    assert "%get = func.call @__mindjit_float_status_get(%init)" in text


def test_no_overflow_reads_zeros(exe):
    x = np.full((2, 3), 5, np.float16)
    res, status = exe.run("status", x)
    np.testing.assert_array_equal(res, np.full((2, 3), 10, np.float16))
    assert status.tolist() == ZERO
    assert exe.checks_float_status is True


def test_an_f16_overflow_after_the_clear_sets_the_status(exe):
    x = np.full((2, 3), 40000, np.float16)  # x - (-x) = 80000 > f16 max
    res, status = exe.run("status", x)
    assert np.isinf(res).all()
    assert status.tolist() == SET
    # the next run clears it again
    _, status = exe.run("status", np.full((2, 3), 1, np.float16))
    assert status.tolist() == ZERO


def test_an_overflow_before_the_clear_does_not_count(exe):
    big, status = exe.run("before_clear", np.array(3e38, np.float32))
    assert np.isinf(big)
    assert status.tolist() == ZERO


def test_f32_nan_counts_and_integers_do_not(exe):
    _, status = exe.run("f32_and_nan", np.array([1.0, -1.0, 2.0], np.float32))
    assert status.tolist() == SET
    _, status = exe.run("f32_and_nan", np.array([1.0, 3.0, 2.0], np.float32))
    assert status.tolist() == ZERO
    sq, status = exe.run("ints", np.array(70000, np.int32))  # wraps, not a float overflow
    assert status.tolist() == ZERO


def test_the_executed_order_is_alloc_clear_sub_get(exe):
    exe.trace_enabled = True
    exe.run("status", np.full((2, 3), 5, np.float16))
    trace = exe.trace

    def at(fragment: str) -> int:
        return next(i for i, name in enumerate(trace) if fragment in name)

    assert at("float_status_alloc") < at("float_status_clear") < at("arith.subf")
    assert at("arith.subf") < at("float_status_get")
    assert at("float_status_clear") < at("arith.negf")


def test_programs_without_float_status_pay_nothing():
    src = """
func.func @f(%x: tensor<2xf16>) -> tensor<2xf16> {
  %y = mindir.mul %x, %x : tensor<2xf16>
  func.return %y : tensor<2xf16>
}
"""
    exe = CpuExecutable(lower_to_tensor(parse_module(src, "plain.mlir")))
    assert exe.checks_float_status is False
    (y,) = exe.run("f", np.array([300, 1], np.float16))
    assert np.isinf(y[0])
    assert exe.float_status.overflow is False  # not even watched
    assert len(exe.plan_for("f").body) == 1  # one step: no check added


def test_a_malformed_runtime_call_is_a_plan_error():
    src = """
func.func private @__mindjit_float_status_get() -> tensor<8xf32> attributes {mindjit.runtime = "float_status_get"}
func.func @f() -> tensor<8xf32> {
  %s = func.call @__mindjit_float_status_get() : () -> tensor<8xf32>
  func.return %s : tensor<8xf32>
}
"""
    exe = CpuExecutable(parse_module(src, "bad.mlir"))
    with pytest.raises(ExecutionError, match="float-status call takes 1 status operand"):
        exe.run("f")
