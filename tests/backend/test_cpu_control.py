"""scf.if / scf.while / scf.for and func.call through the CPU executor."""

from __future__ import annotations

import numpy as np

from mindjit.backend.cpu import CpuExecutable
from mindjit.dialects.parsing import parse_module


def run(text: str, name: str, *args: np.ndarray) -> tuple[np.ndarray, ...]:
    return CpuExecutable(parse_module(text)).run(name, *args)


IF = """
func.func @f(%a: tensor<3xf32>, %s: tensor<f32>) -> tensor<3xf32> {
  %c0 = arith.constant 0.0 : f32
  %v = tensor.extract %s[] : tensor<f32>
  %cond = arith.cmpf ogt, %v, %c0 : f32
  %r = scf.if %cond -> (tensor<3xf32>) {
    %e = tensor.empty() : tensor<3xf32>
    %d = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
        ins(%a : tensor<3xf32>) outs(%e : tensor<3xf32>) {
    ^bb0(%x: f32, %o: f32):
      %y = arith.mulf %x, %v : f32
      linalg.yield %y : f32
    } -> tensor<3xf32>
    scf.yield %d : tensor<3xf32>
  } else {
    scf.yield %a : tensor<3xf32>
  }
  func.return %r : tensor<3xf32>
}
"""


def test_scf_if_both_branches_and_no_alias():
    exe = CpuExecutable(parse_module(IF))
    a = np.array([1, 2, 3], np.float32)
    (pos,) = exe.run("f", a, np.array(2.0, np.float32))
    np.testing.assert_array_equal(pos, 2 * a)
    (neg,) = exe.run("f", a, np.array(-1.0, np.float32))
    np.testing.assert_array_equal(neg, a)
    assert not np.shares_memory(neg, a)  # the else branch yields the input


WHILE = """
func.func @f(%x: tensor<2xf32>, %n: i32) -> (tensor<2xf32>, i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r:2 = scf.while (%acc = %x, %i = %c0) : (tensor<2xf32>, i32) -> (tensor<2xf32>, i32) {
    %go = arith.cmpi slt, %i, %n : i32
    scf.condition(%go) %acc, %i : tensor<2xf32>, i32
  } do {
  ^bb0(%acc2: tensor<2xf32>, %i2: i32):
    %e = tensor.empty() : tensor<2xf32>
    %d = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
        ins(%acc2 : tensor<2xf32>) outs(%e : tensor<2xf32>) {
    ^bb0(%v: f32, %o: f32):
      %w = arith.addf %v, %v : f32
      linalg.yield %w : f32
    } -> tensor<2xf32>
    %j = arith.addi %i2, %c1 : i32
    scf.yield %d, %j : tensor<2xf32>, i32
  }
  func.return %r#0, %r#1 : tensor<2xf32>, i32
}
"""


def test_scf_while_loops_and_zero_trip_returns_a_copy():
    exe = CpuExecutable(parse_module(WHILE))
    x = np.array([1.0, -3.0], np.float32)
    acc, i = exe.run("f", x, np.int32(5))
    np.testing.assert_array_equal(acc, x * 32)
    assert i == 5 and i.dtype == np.int32
    acc0, i0 = exe.run("f", x, np.int32(0))
    np.testing.assert_array_equal(acc0, x)
    assert not np.shares_memory(acc0, x)
    assert i0 == 0


def test_scf_for_with_iter_args():
    text = """
func.func @f(%x: tensor<3xi32>) -> tensor<3xi32> {
  %lb = arith.constant 0 : index
  %ub = arith.constant 4 : index
  %st = arith.constant 1 : index
  %r = scf.for %i = %lb to %ub step %st iter_args(%acc = %x) -> (tensor<3xi32>) {
    %e = tensor.empty() : tensor<3xi32>
    %k = arith.index_cast %i : index to i32
    %d = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
        ins(%acc : tensor<3xi32>) outs(%e : tensor<3xi32>) {
    ^bb0(%v: i32, %o: i32):
      %w = arith.addi %v, %k : i32
      linalg.yield %w : i32
    } -> tensor<3xi32>
    scf.yield %d : tensor<3xi32>
  }
  func.return %r : tensor<3xi32>
}
"""
    x = np.array([1, 2, 3], np.int32)
    (out,) = run(text, "f", x)
    np.testing.assert_array_equal(out, x + 6)


CALLS = """
func.func private @square(%a: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %e = tensor.empty() : tensor<2x2xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.mulf %x, %x : f32
    linalg.yield %y : f32
  } -> tensor<2x2xf32>
  func.return %r : tensor<2x2xf32>
}
func.func private @ident(%a: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
  func.return %a, %a : tensor<2x2xf32>, tensor<2x2xf32>
}
func.func @main(%a: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>) {
  %0 = func.call @square(%a) : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %1 = func.call @square(%0) : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %2:2 = func.call @ident(%1) : (tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>)
  func.return %2#0, %2#1, %1 : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>
}
"""


def test_func_call_plans_callee_once_and_results_never_alias():
    exe = CpuExecutable(parse_module(CALLS))
    a = np.array([[1, 2], [3, 4]], np.float32)
    r0, r1, r2 = exe.run("main", a)
    for r in (r0, r1, r2):
        np.testing.assert_array_equal(r, a**4)
    assert not np.shares_memory(r0, r1)
    assert not np.shares_memory(r0, r2) and not np.shares_memory(r1, r2)
    square = exe.plan_for("square")
    exe.run("main", a)
    assert exe.plan_for("square") is square
    assert sorted(exe.entry_names()) == ["ident", "main", "square"]
