"""linalg ops through the CPU executor: broadcasting maps, reductions, contractions."""

from __future__ import annotations

import numpy as np
import pytest

from mindjit.backend.cpu import CpuExecutable, ExecutionError
from mindjit.backend.cpu.compiler import FunctionCompiler
from mindjit.backend.cpu.plan import Plan
from mindjit.dialects.parsing import parse_module

RNG = np.random.default_rng(7)


def run(text: str, name: str, *args: np.ndarray) -> tuple[np.ndarray, ...]:
    return CpuExecutable(parse_module(text)).run(name, *args)


def rand(*shape: int, dtype=np.float32) -> np.ndarray:
    return RNG.standard_normal(shape).astype(dtype)


def test_generic_broadcasts_row_column_and_scalar_maps():
    text = """
func.func @f(%a: tensor<3x4xf32>, %row: tensor<4xf32>, %col: tensor<3xf32>, %s: tensor<f32>) -> tensor<3x4xf32> {
  %e = tensor.empty() : tensor<3x4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>,
                                        affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> ()>,
                                        affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%a, %row, %col, %s : tensor<3x4xf32>, tensor<4xf32>, tensor<3xf32>, tensor<f32>) outs(%e : tensor<3x4xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32, %w: f32, %o: f32):
    %0 = arith.addf %x, %y : f32
    %1 = arith.mulf %0, %z : f32
    %2 = arith.subf %1, %w : f32
    linalg.yield %2 : f32
  } -> tensor<3x4xf32>
  func.return %r : tensor<3x4xf32>
}
"""
    a, row, col, s = rand(3, 4), rand(4), rand(3), np.array(0.5, np.float32)
    (out,) = run(text, "f", a, row, col, s)
    np.testing.assert_allclose(out, (a + row) * col[:, None] - s, rtol=1e-6)


def test_generic_transposed_input_and_output_maps():
    text = """
func.func @f(%a: tensor<4x3xf32>, %b: tensor<3x4xf32>) -> tensor<4x3xf32> {
  %e = tensor.empty() : tensor<4x3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>,
                                        affine_map<(d0, d1) -> (d1, d0)>], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<4x3xf32>, tensor<3x4xf32>) outs(%e : tensor<4x3xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %0 = arith.subf %x, %y : f32
    linalg.yield %0 : f32
  } -> tensor<4x3xf32>
  func.return %r : tensor<4x3xf32>
}
"""
    a, b = rand(4, 3), rand(3, 4)
    (out,) = run(text, "f", a, b)
    np.testing.assert_allclose(out, a - b.T, rtol=1e-6)


def test_generic_reads_output_argument_and_constant_map_index():
    text = """
func.func @f(%a: tensor<2x1x3xf32>, %acc: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, 0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<2x1x3xf32>) outs(%acc : tensor<2x3xf32>) {
  ^bb0(%x: f32, %o: f32):
    %0 = arith.addf %x, %o : f32
    linalg.yield %0 : f32
  } -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}
"""
    a, acc = rand(2, 1, 3), rand(2, 3)
    (out,) = run(text, "f", a, acc)
    np.testing.assert_allclose(out, a[:, 0, :] + acc, rtol=1e-6)


def test_generic_identity_yield_broadcast_is_a_writable_copy():
    text = """
func.func @f(%b: tensor<3xf32>) -> tensor<2x3xf32> {
  %e = tensor.empty() : tensor<2x3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%b : tensor<3xf32>) outs(%e : tensor<2x3xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  } -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}
"""
    b = rand(3)
    (out,) = run(text, "f", b)
    np.testing.assert_array_equal(out, np.broadcast_to(b, (2, 3)))
    out[0, 0] = 42.0  # must be writable and not alias %b
    assert b[0] != 42.0


def test_linalg_index_in_body():
    text = """
func.func @f(%a: tensor<2x3xi64>) -> tensor<2x3xi64> {
  %e = tensor.empty() : tensor<2x3xi64>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<2x3xi64>) outs(%e : tensor<2x3xi64>) {
  ^bb0(%x: i64, %o: i64):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %k = arith.muli %i, %j : index
    %c = arith.index_cast %k : index to i64
    %s = arith.addi %x, %c : i64
    linalg.yield %s : i64
  } -> tensor<2x3xi64>
  func.return %r : tensor<2x3xi64>
}
"""
    a = np.ones((2, 3), np.int64)
    (out,) = run(text, "f", a)
    np.testing.assert_array_equal(out, 1 + np.outer(np.arange(2), np.arange(3)))


SUM_ROWS = """
func.func @f(%a: tensor<3x5x{t}>, %init: tensor<3x{t}>) -> tensor<3x{t}> {{
  %r = linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}}
      ins(%a : tensor<3x5x{t}>) outs(%init : tensor<3x{t}>) {{
  ^bb0(%x: {t}, %o: {t}):
    %0 = {op} %x, %o : {t}
    linalg.yield %0 : {t}
  }} -> tensor<3x{t}>
  func.return %r : tensor<3x{t}>
}}
"""


@pytest.mark.parametrize(
    "op, t, dtype, ref",
    [
        ("arith.addf", "f32", np.float32, lambda a, i: a.sum(1) + i),
        ("arith.mulf", "f32", np.float32, lambda a, i: a.prod(1) * i),
        ("arith.maximumf", "f32", np.float32, lambda a, i: np.maximum(a.max(1), i)),
        ("arith.minimumf", "f32", np.float32, lambda a, i: np.minimum(a.min(1), i)),
        ("arith.addi", "i32", np.int32, lambda a, i: a.sum(1, dtype=np.int32) + i),
        ("arith.maxsi", "i32", np.int32, lambda a, i: np.maximum(a.max(1), i)),
        ("arith.minsi", "i32", np.int32, lambda a, i: np.minimum(a.min(1), i)),
    ],
)
def test_reductions_fold_into_the_init(op, t, dtype, ref):
    a = (rand(3, 5) * 10).astype(dtype)
    init = (rand(3) * 10).astype(dtype)
    (out,) = run(SUM_ROWS.format(op=op, t=t), "f", a, init)
    assert out.dtype == dtype
    np.testing.assert_allclose(out, ref(a, init), rtol=1e-5)


def test_reduction_to_rank0_with_function_of_inputs():
    text = """
func.func @f(%a: tensor<4x3xf32>) -> tensor<f32> {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %z = linalg.fill ins(%c0 : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> ()>],
                       iterator_types = ["reduction", "reduction"]}
      ins(%a : tensor<4x3xf32>) outs(%z : tensor<f32>) {
  ^bb0(%x: f32, %o: f32):
    %sq = arith.mulf %x, %x : f32
    %0 = arith.addf %o, %sq : f32
    linalg.yield %0 : f32
  } -> tensor<f32>
  func.return %r : tensor<f32>
}
"""
    a = rand(4, 3)
    (out,) = run(text, "f", a)
    assert isinstance(out, np.ndarray) and out.shape == () and out.dtype == np.float32
    np.testing.assert_allclose(out, (a * a).sum(), rtol=1e-5)


def test_reduction_over_a_broadcast_dim_counts_every_element():
    text = """
func.func @f(%a: tensor<3xf32>) -> tensor<3xf32> {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3xf32>
  %z = linalg.fill ins(%c0 : f32) outs(%e : tensor<3xf32>) -> tensor<3xf32>
  %b = tensor.empty() : tensor<4x3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>],
                       iterator_types = ["reduction", "parallel"]}
      ins(%a, %b : tensor<3xf32>, tensor<4x3xf32>) outs(%z : tensor<3xf32>) {
  ^bb0(%x: f32, %unused: f32, %o: f32):
    %0 = arith.addf %x, %o : f32
    linalg.yield %0 : f32
  } -> tensor<3xf32>
  func.return %r : tensor<3xf32>
}
"""
    a = rand(3)
    (out,) = run(text, "f", a)
    np.testing.assert_allclose(out, 4 * a, rtol=1e-6)


def test_unsupported_reduction_body_is_a_located_error():
    text = """
func.func @f(%a: tensor<3x5xf32>, %init: tensor<3xf32>) -> tensor<3xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<3x5xf32>) outs(%init : tensor<3xf32>) {
  ^bb0(%x: f32, %o: f32):
    %0 = arith.subf %o, %x : f32
    linalg.yield %0 : f32
  } -> tensor<3xf32>
  func.return %r : tensor<3xf32>
}
"""
    with pytest.raises(
        ExecutionError, match=r"<stdin>:3:3: error: .*linalg.generic.*reduction body"
    ):
        run(text, "f", rand(3, 5), rand(3))


@pytest.mark.parametrize("yields", ["", "%x, %x : f32, f32"])
def test_body_yielding_the_wrong_number_of_values_is_a_located_error(yields):
    # xDSL's verifier accepts it; run unchecked it gave an empty float64 array
    text = f"""
func.func @f(%a: tensor<3xf32>) -> tensor<3xf32> {{
  %e = tensor.empty() : tensor<3xf32>
  %r = linalg.generic {{indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}}
      ins(%a : tensor<3xf32>) outs(%e : tensor<3xf32>) {{
  ^bb0(%x: f32, %o: f32):
    linalg.yield {yields}
  }} -> tensor<3xf32>
  func.return %r : tensor<3xf32>
}}
"""
    n = 0 if not yields else 2
    with pytest.raises(
        ExecutionError, match=rf"<stdin>:4:3: error: 'linalg.generic' body yields {n} values for 1"
    ):
        run(text, "f", rand(3))


MATMUL = """
func.func @f(%a: tensor<4x6x{t}>, %b: tensor<6x5x{t}>, %c: tensor<4x5x{t}>) -> (tensor<4x5x{t}>, tensor<4x5x{t}>) {{
  %z0 = arith.constant {zero} : {t}
  %e = tensor.empty() : tensor<4x5x{t}>
  %z = linalg.fill ins(%z0 : {t}) outs(%e : tensor<4x5x{t}>) -> tensor<4x5x{t}>
  %m = linalg.matmul ins(%a, %b : tensor<4x6x{t}>, tensor<6x5x{t}>) outs(%z : tensor<4x5x{t}>) -> tensor<4x5x{t}>
  %acc = linalg.matmul ins(%a, %b : tensor<4x6x{t}>, tensor<6x5x{t}>) outs(%c : tensor<4x5x{t}>) -> tensor<4x5x{t}>
  func.return %m, %acc : tensor<4x5x{t}>, tensor<4x5x{t}>
}}
"""


@pytest.mark.parametrize(
    "t, dtype, zero",
    [("f32", np.float32, "0.0"), ("f16", np.float16, "0.0"), ("i32", np.int32, "0")],
)
def test_matmul_with_zero_fill_and_with_accumulator(t, dtype, zero):
    a, b, c = ((rand(*s) * 4).astype(dtype) for s in [(4, 6), (6, 5), (4, 5)])
    m, acc = run(MATMUL.format(t=t, zero=zero), "f", a, b, c)
    assert m.dtype == dtype and acc.dtype == dtype
    tol = 1e-2 if dtype == np.float16 else 1e-5
    np.testing.assert_allclose(m, a @ b, rtol=tol, atol=tol)
    np.testing.assert_allclose(acc, c + a @ b, rtol=tol, atol=tol)


def test_matmul_with_zero_fill_elides_fill_and_empty():
    exe = CpuExecutable(parse_module(MATMUL.format(t="f32", zero="0.0")))
    plan = exe.plan_for("f")
    assert plan.num_steps == 2  # the two matmuls: fill/empty cost nothing


def test_contraction_generic_batch_matmul_and_transposed_operand():
    text = """
func.func @f(%a: tensor<2x3x4xf32>, %b: tensor<2x5x4xf32>, %init: tensor<2x3x5xf32>) -> tensor<2x3x5xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>,
                                        affine_map<(b, m, n, k) -> (b, m, n)>],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<2x3x4xf32>, tensor<2x5x4xf32>) outs(%init : tensor<2x3x5xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<2x3x5xf32>
  func.return %r : tensor<2x3x5xf32>
}
"""
    a, b, init = rand(2, 3, 4), rand(2, 5, 4), rand(2, 3, 5)
    (out,) = run(text, "f", a, b, init)
    np.testing.assert_allclose(out, init + a @ b.transpose(0, 2, 1), rtol=1e-5, atol=1e-6)


def test_contraction_matvec_and_dot():
    text = """
func.func @f(%a: tensor<3x4xf32>, %v: tensor<4xf32>, %y: tensor<3xf32>, %d: tensor<f32>) -> (tensor<3xf32>, tensor<f32>) {
  %r = linalg.generic {indexing_maps = [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (k)>, affine_map<(i, k) -> (i)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%a, %v : tensor<3x4xf32>, tensor<4xf32>) outs(%y : tensor<3xf32>) {
  ^bb0(%x: f32, %w: f32, %o: f32):
    %p = arith.mulf %x, %w : f32
    %s = arith.addf %p, %o : f32
    linalg.yield %s : f32
  } -> tensor<3xf32>
  %q = linalg.generic {indexing_maps = [affine_map<(k) -> (k)>, affine_map<(k) -> (k)>, affine_map<(k) -> ()>],
                       iterator_types = ["reduction"]}
      ins(%v, %v : tensor<4xf32>, tensor<4xf32>) outs(%d : tensor<f32>) {
  ^bb0(%x: f32, %w: f32, %o: f32):
    %p = arith.mulf %x, %w : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  func.return %r, %q : tensor<3xf32>, tensor<f32>
}
"""
    a, v, y, d = rand(3, 4), rand(4), rand(3), np.array(1.0, np.float32)
    r, q = run(text, "f", a, v, y, d)
    np.testing.assert_allclose(r, y + a @ v, rtol=1e-5)
    assert q.shape == () and isinstance(q, np.ndarray)
    np.testing.assert_allclose(q, 1.0 + v @ v, rtol=1e-5)


def test_named_linalg_ops_transpose_broadcast_reduce_fill():
    text = """
func.func @f(%a: tensor<2x3xf32>, %v: tensor<3xf32>, %s: f32) -> (tensor<3x2xf32>, tensor<2x3xf32>, tensor<2xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %e32 = tensor.empty() : tensor<3x2xf32>
  %t = linalg.transpose ins(%a : tensor<2x3xf32>) outs(%e32 : tensor<3x2xf32>) permutation = [1, 0]
  %e23 = tensor.empty() : tensor<2x3xf32>
  %b = linalg.broadcast ins(%v : tensor<3xf32>) outs(%e23 : tensor<2x3xf32>) dimensions = [0]
  %ninf = arith.constant 0xFF800000 : f32
  %e2 = tensor.empty() : tensor<2xf32>
  %i = linalg.fill ins(%ninf : f32) outs(%e2 : tensor<2xf32>) -> tensor<2xf32>
  %m = linalg.reduce ins(%a : tensor<2x3xf32>) outs(%i : tensor<2xf32>) dimensions = [1]
    (%x: f32, %o: f32) {
      %0 = arith.maximumf %x, %o : f32
      linalg.yield %0 : f32
    }
  %f = linalg.fill ins(%s : f32) outs(%e23 : tensor<2x3xf32>) -> tensor<2x3xf32>
  %add = linalg.add ins(%a, %b : tensor<2x3xf32>, tensor<2x3xf32>) outs(%e23 : tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %t, %b, %m, %f, %add : tensor<3x2xf32>, tensor<2x3xf32>, tensor<2xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}
"""
    a, v = rand(2, 3), rand(3)
    t, b, m, f, add = run(text, "f", a, v, np.float32(2.5))
    np.testing.assert_array_equal(t, a.T)
    np.testing.assert_array_equal(b, np.broadcast_to(v, (2, 3)))
    np.testing.assert_array_equal(m, a.max(1))
    np.testing.assert_array_equal(f, np.full((2, 3), 2.5, np.float32))
    np.testing.assert_allclose(add, a + v, rtol=1e-6)
    for arr in (t, b, m, f, add):
        assert arr.flags.writeable
    t[0, 0] = 99.0
    assert a[0, 0] != 99.0


def test_named_elementwise_ops():
    text = """
func.func @f(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %e = tensor.empty() : tensor<4xf32>
  %0 = linalg.sub ins(%a, %b : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %1 = linalg.mul ins(%a, %b : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %2 = linalg.max ins(%a, %b : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %3 = linalg.min ins(%a, %b : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %4 = linalg.exp ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %5 = linalg.copy ins(%b : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  func.return %0, %1, %2, %3, %4, %5 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
"""
    a, b = rand(4), rand(4)
    outs = run(text, "f", a, b)
    expected = [a - b, a * b, np.maximum(a, b), np.minimum(a, b), np.exp(a), b]
    for got, want in zip(outs, expected):
        np.testing.assert_allclose(got, want, rtol=1e-6)
    outs[5][0] = 123.0
    assert b[0] != 123.0


def test_constant_operands_are_folded_at_plan_time():
    text = """
func.func @f(%x: tensor<2x3xf32>) -> tensor<2x2xf32> {
  %w = arith.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
  %e = tensor.empty() : tensor<2x3xf32>
  %wt = linalg.transpose ins(%w : tensor<3x2xf32>) outs(%e : tensor<2x3xf32>) permutation = [1, 0]
  %e2 = tensor.empty() : tensor<3x2xf32>
  %w2 = linalg.transpose ins(%wt : tensor<2x3xf32>) outs(%e2 : tensor<3x2xf32>) permutation = [1, 0]
  %c0 = arith.constant 0.0 : f32
  %o = tensor.empty() : tensor<2x2xf32>
  %z = linalg.fill ins(%c0 : f32) outs(%o : tensor<2x2xf32>) -> tensor<2x2xf32>
  %m = linalg.matmul ins(%x, %w2 : tensor<2x3xf32>, tensor<3x2xf32>) outs(%z : tensor<2x2xf32>) -> tensor<2x2xf32>
  func.return %m : tensor<2x2xf32>
}
"""
    exe = CpuExecutable(parse_module(text))
    x = rand(2, 3)
    (out,) = exe.run("f", x)
    np.testing.assert_allclose(out, x @ np.array([[1, 2], [3, 4], [5, 6]], np.float32), rtol=1e-6)
    assert exe.plan_for("f").num_steps == 1


def test_reduction_with_permuted_output_map():
    text = """
func.func @f(%a: tensor<2x3x4xf32>, %init: tensor<4x2xf32>) -> tensor<4x2xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d2, d0)>],
                       iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a : tensor<2x3x4xf32>) outs(%init : tensor<4x2xf32>) {
  ^bb0(%x: f32, %o: f32):
    %0 = arith.maxnumf %o, %x : f32
    linalg.yield %0 : f32
  } -> tensor<4x2xf32>
  func.return %r : tensor<4x2xf32>
}
"""
    a, init = rand(2, 3, 4), rand(4, 2)
    (out,) = run(text, "f", a, init)
    np.testing.assert_array_equal(out, np.fmax(a.max(1).T, init))


def test_contraction_with_transposed_output_and_einsum_fallback():
    text = """
func.func @f(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>, %c: tensor<3x4x2xf32>, %z: tensor<5x3xf32>) -> (tensor<5x3xf32>, tensor<5x3xf32>) {
  %r = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (n, m)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<3x4xf32>, tensor<4x5xf32>) outs(%z : tensor<5x3xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<5x3xf32>
  %q = linalg.generic {indexing_maps = [affine_map<(m, n, k, j) -> (m, k, j)>, affine_map<(m, n, k, j) -> (k, n)>, affine_map<(m, n, k, j) -> (n, m)>],
                       iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%c, %b : tensor<3x4x2xf32>, tensor<4x5xf32>) outs(%z : tensor<5x3xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<5x3xf32>
  func.return %r, %q : tensor<5x3xf32>, tensor<5x3xf32>
}
"""
    a, b, c, z = rand(3, 4), rand(4, 5), rand(3, 4, 2), rand(5, 3)
    r, q = run(text, "f", a, b, c, z)
    np.testing.assert_allclose(r, z + (a @ b).T, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(q, z + (c.sum(2) @ b).T, rtol=1e-5, atol=1e-6)


def test_i32_contraction_wraps_and_i1_reduction():
    text = """
func.func @f(%a: tensor<2x2xi32>, %b: tensor<2x2xi32>, %c: tensor<3x4xi1>) -> (tensor<2x2xi32>, tensor<3xi1>) {
  %z0 = arith.constant 0 : i32
  %e = tensor.empty() : tensor<2x2xi32>
  %z = linalg.fill ins(%z0 : i32) outs(%e : tensor<2x2xi32>) -> tensor<2x2xi32>
  %m = linalg.matmul ins(%a, %b : tensor<2x2xi32>, tensor<2x2xi32>) outs(%z : tensor<2x2xi32>) -> tensor<2x2xi32>
  %f = arith.constant false
  %e3 = tensor.empty() : tensor<3xi1>
  %i = linalg.fill ins(%f : i1) outs(%e3 : tensor<3xi1>) -> tensor<3xi1>
  %any = linalg.reduce ins(%c : tensor<3x4xi1>) outs(%i : tensor<3xi1>) dimensions = [1]
    (%x: i1, %o: i1) {
      %0 = arith.ori %x, %o : i1
      linalg.yield %0 : i1
    }
  func.return %m, %any : tensor<2x2xi32>, tensor<3xi1>
}
"""
    a = np.array([[65536, 1], [2, 3]], np.int32)
    c = np.array([[0, 0, 0, 0], [0, 1, 0, 0], [1, 1, 1, 1]], bool)
    m, any_ = run(text, "f", a, a, c)
    np.testing.assert_array_equal(m, a @ a)  # numpy int32 matmul wraps like i32
    assert m.dtype == np.int32
    np.testing.assert_array_equal(any_, [False, True, True])


def _random_generic(
    rng: np.random.Generator, body: str
) -> tuple[str, list[int], list[list[int]], list[int]]:
    """A random generic over 0-4 loops: two inputs with random projected
    permutation maps, an output over the parallel dims in random order,
    `out + sum(x <body> y)` (or `x <body> y + out` without reductions)."""
    n = int(rng.integers(0, 5))
    loop = [int(e) for e in rng.integers(1, 4, n)]
    red = (
        sorted(int(d) for d in rng.choice(n, int(rng.integers(0, n + 1)), replace=False))
        if n
        else []
    )
    dims = [
        [int(d) for d in rng.choice(n, int(rng.integers(0, n + 1)), replace=False)] if n else []
        for _ in range(2)
    ]
    dims[0] += [d for d in red if d not in dims[0] and d not in dims[1]]
    out = [int(d) for d in rng.permutation([d for d in range(n) if d not in red])]
    letters = ", ".join(f"d{i}" for i in range(n))
    amap = lambda ds: f"affine_map<({letters}) -> ({', '.join(f'd{d}' for d in ds)})>"  # noqa: E731
    ty = lambda ds: f"tensor<{''.join(f'{loop[d]}x' for d in ds)}f32>"  # noqa: E731
    its = ", ".join('"reduction"' if d in red else '"parallel"' for d in range(n))
    text = f"""
func.func @f(%x: {ty(dims[0])}, %y: {ty(dims[1])}, %init: {ty(out)}) -> {ty(out)} {{
  %r = linalg.generic {{indexing_maps = [{amap(dims[0])}, {amap(dims[1])}, {amap(out)}], iterator_types = [{its}]}}
      ins(%x, %y : {ty(dims[0])}, {ty(dims[1])}) outs(%init : {ty(out)}) {{
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = {body} %a, %b : f32
    %s = arith.addf %o, %v : f32
    linalg.yield %s : f32
  }} -> {ty(out)}
  func.return %r : {ty(out)}
}}
"""
    return text, loop, dims, red + [-1] + out


@pytest.mark.parametrize("body, op", [("arith.mulf", np.multiply), ("arith.subf", np.subtract)])
def test_random_maps_match_an_index_level_reference(body, op):
    rng = np.random.default_rng(11)
    for _ in range(60):
        text, loop, dims, red_out = _random_generic(rng, body)
        split = red_out.index(-1)
        red, out = red_out[:split], red_out[split + 1 :]
        x, y = (rand(*[loop[d] for d in ds]) for ds in dims)
        init = rand(*[loop[d] for d in out])
        (got,) = run(text, "f", x, y, init)
        idx = np.indices(loop) if loop else ()
        vals = [
            np.broadcast_to(a[tuple(idx[d] for d in ds)] if ds else a, loop)
            for a, ds in zip((x, y), dims)
        ]
        total = op(*vals).sum(axis=tuple(red)) if red else op(*vals)
        parallel = [d for d in range(len(loop)) if d not in red]
        expected = np.transpose(total, [parallel.index(d) for d in out]) + init
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5, err_msg=text)


# -- one kernel per structure (kernels_linalg._build_by_structure) -------------------------


def _add_generic(result: str, lhs: str, rhs: str, body_const: str | None = None) -> str:
    body = (
        f"%k = arith.constant {body_const} : f32\n    %s = arith.addf %x, %k : f32\n"
        "    %t = arith.addf %s, %y : f32"
        if body_const is not None
        else "%t = arith.addf %x, %y : f32"
    )
    return f"""
  {result} = linalg.generic {{indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>,
                                        affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}}
      ins({lhs}, {rhs} : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {{
  ^bb0(%x: f32, %y: f32, %o: f32):
    {body}
    linalg.yield %t : f32
  }} -> tensor<4xf32>"""


def _kernels(text: str) -> tuple[CpuExecutable, list]:
    """The executable and the kernel of each generic of @f, in order."""
    exe = CpuExecutable(parse_module(text))
    compiler = FunctionCompiler(exe, exe.function("f"))
    compiler.keep_top = True
    compiler.compile(Plan("f"))
    assert compiler.top is not None
    nodes = [n for n in compiler.top[0] if n.op.name == "linalg.generic"]
    return exe, [n.steps[0].call_spec[0] for n in nodes]


def test_ops_of_one_structure_share_a_kernel_with_their_own_slots():
    text = f"""
func.func @f(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {{
  %e = tensor.empty() : tensor<4xf32>
  {_add_generic("%1", "%a", "%b", "1.0")}
  {_add_generic("%2", "%1", "%a", "1.0")}
  {_add_generic("%3", "%2", "%2", "1.0")}
  func.return %3 : tensor<4xf32>
}}
"""
    a, b = rand(4), rand(4)
    exe, kernels = _kernels(text)
    # %3 reads one value twice: another structure than %1 and %2
    assert kernels[0] is kernels[1] and kernels[2] is not kernels[0]
    (out,) = exe.run("f", a, b)
    one = np.float32(1.0)
    two = ((a + one) + b + one) + a
    np.testing.assert_array_equal(out, (two + one) + two)


def test_bodies_differing_only_in_a_constant_get_their_own_kernels():
    """0.0 and -0.0 are equal floats: the structures tell them apart by their bits."""
    text = f"""
func.func @f(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {{
  %e = tensor.empty() : tensor<4xf32>
  {_add_generic("%1", "%a", "%b", "0.0")}
  {_add_generic("%2", "%a", "%b", "-0.0")}
  {_add_generic("%3", "%a", "%b", "1.0")}
  func.return %1, %2, %3 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}}
"""
    a = np.array([-0.0, 1.0, -0.0, 2.0], np.float32)
    b = np.array([-0.0, -0.0, 0.0, 1.0], np.float32)
    exe, kernels = _kernels(text)
    assert len({id(k) for k in kernels}) == 3
    one, two, three = exe.run("f", a, b)
    np.testing.assert_array_equal(np.signbit(one), np.signbit((a + np.float32(0.0)) + b))
    np.testing.assert_array_equal(np.signbit(two), np.signbit((a + np.float32(-0.0)) + b))
    np.testing.assert_array_equal(three, (a + np.float32(1.0)) + b)
