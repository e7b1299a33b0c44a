"""tensor dialect ops through the CPU executor."""

from __future__ import annotations

import numpy as np

from mindjit.backend.cpu import CpuExecutable
from mindjit.dialects.parsing import parse_module


def run(text: str, name: str, *args: np.ndarray) -> tuple[np.ndarray, ...]:
    return CpuExecutable(parse_module(text)).run(name, *args)


A = np.arange(24, dtype=np.float32).reshape(2, 3, 4)


def test_extract_slice_plain_strided_and_rank_reducing():
    text = """
func.func @f(%a: tensor<2x3x4xf32>) -> (tensor<2x2x2xf32>, tensor<3x4xf32>, tensor<4xf32>, tensor<f32>) {
  %0 = tensor.extract_slice %a[0, 1, 0] [2, 2, 2] [1, 1, 2] : tensor<2x3x4xf32> to tensor<2x2x2xf32>
  %1 = tensor.extract_slice %a[1, 0, 0] [1, 3, 4] [1, 1, 1] : tensor<2x3x4xf32> to tensor<3x4xf32>
  %2 = tensor.extract_slice %a[0, 2, 0] [1, 1, 4] [1, 1, 1] : tensor<2x3x4xf32> to tensor<4xf32>
  %3 = tensor.extract_slice %a[1, 2, 3] [1, 1, 1] [1, 1, 1] : tensor<2x3x4xf32> to tensor<f32>
  func.return %0, %1, %2, %3 : tensor<2x2x2xf32>, tensor<3x4xf32>, tensor<4xf32>, tensor<f32>
}
"""
    s0, s1, s2, s3 = run(text, "f", A)
    np.testing.assert_array_equal(s0, A[:, 1:3, 0:4:2])
    np.testing.assert_array_equal(s1, A[1])
    np.testing.assert_array_equal(s2, A[0, 2])
    assert isinstance(s3, np.ndarray) and s3.shape == () and s3 == A[1, 2, 3]
    for s in (s0, s1, s2, s3):  # views of the input are copied on return
        assert not np.shares_memory(s, A)


def test_insert_slice_and_insert():
    text = """
func.func @f(%a: tensor<2x3x4xf32>, %p: tensor<3x2xf32>, %v: f32) -> tensor<2x3x4xf32> {
  %0 = tensor.insert_slice %p into %a[1, 0, 1] [1, 3, 2] [1, 1, 2] : tensor<3x2xf32> into tensor<2x3x4xf32>
  %i = arith.constant 0 : index
  %1 = tensor.insert %v into %0[%i, %i, %i] : tensor<2x3x4xf32>
  func.return %1 : tensor<2x3x4xf32>
}
"""
    p = -np.arange(6, dtype=np.float32).reshape(3, 2) - 1
    (out,) = run(text, "f", A, p, np.float32(100))
    expected = A.copy()
    expected[1, :, 1:4:2] = p
    expected[0, 0, 0] = 100
    np.testing.assert_array_equal(out, expected)
    assert A[1, 0, 1] == 13  # the input was not written


def test_extract_from_elements_splat_dim():
    text = """
func.func @f(%a: tensor<2x3x4xf32>, %s: tensor<i32>, %k: index) -> (f32, i32, tensor<2x2xf32>, tensor<3xi32>, index, f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %x = tensor.extract %a[%c1, %c2, %c1] : tensor<2x3x4xf32>
  %y = tensor.extract %s[] : tensor<i32>
  %z = tensor.extract %a[%c0, %k, %c0] : tensor<2x3x4xf32>
  %fe = tensor.from_elements %x, %x, %x, %z : tensor<2x2xf32>
  %sp = tensor.splat %y : tensor<3xi32>
  %d = tensor.dim %a, %c2 : tensor<2x3x4xf32>
  func.return %x, %y, %fe, %sp, %d, %z : f32, i32, tensor<2x2xf32>, tensor<3xi32>, index, f32
}
"""
    x, y, fe, sp, d, z = run(text, "f", A, np.array(7, np.int32), np.int64(2))
    assert x == A[1, 2, 1] and x.dtype == np.float32
    assert y == 7 and y.dtype == np.int32
    np.testing.assert_array_equal(fe, [[A[1, 2, 1]] * 2, [A[1, 2, 1], A[0, 2, 0]]])
    np.testing.assert_array_equal(sp, np.full(3, 7, np.int32))
    assert d == 4 and d.dtype == np.int64
    assert z == A[0, 2, 0]


def test_collapse_expand_reshape_cast_concat():
    text = """
func.func @f(%a: tensor<2x3x4xf32>, %b: tensor<2x1x4xf32>) -> (tensor<6x4xf32>, tensor<2x3x2x2xf32>, tensor<24xf32>, tensor<2x4x4xf32>, tensor<2x3x4xf32>) {
  %0 = tensor.collapse_shape %a [[0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
  %1 = tensor.expand_shape %a [[0], [1], [2, 3]] output_shape [2, 3, 2, 2] : tensor<2x3x4xf32> into tensor<2x3x2x2xf32>
  %shape = arith.constant dense<[24]> : tensor<1xindex>
  %2 = tensor.reshape %a(%shape) : (tensor<2x3x4xf32>, tensor<1xindex>) -> tensor<24xf32>
  %3 = tensor.concat dim(1) %a, %b : (tensor<2x3x4xf32>, tensor<2x1x4xf32>) -> tensor<2x4x4xf32>
  %4 = tensor.cast %a : tensor<2x3x4xf32> to tensor<2x3x4xf32>
  func.return %0, %1, %2, %3, %4 : tensor<6x4xf32>, tensor<2x3x2x2xf32>, tensor<24xf32>, tensor<2x4x4xf32>, tensor<2x3x4xf32>
}
"""
    b = -np.ones((2, 1, 4), np.float32)
    c, e, r, cat, same = run(text, "f", A, b)
    np.testing.assert_array_equal(c, A.reshape(6, 4))
    np.testing.assert_array_equal(e, A.reshape(2, 3, 2, 2))
    np.testing.assert_array_equal(r, A.reshape(24))
    np.testing.assert_array_equal(cat, np.concatenate([A, b], axis=1))
    np.testing.assert_array_equal(same, A)
    for arr in (c, e, r, same):
        assert not np.shares_memory(arr, A)
    assert not np.shares_memory(c, e)


def test_dense_constants_splat_and_types():
    text = """
func.func @f() -> (tensor<2x2xf16>, tensor<3xi1>, tensor<2xi8>, tensor<2x2xi32>) {
  %0 = arith.constant dense<[[1.5, 2.0], [-1.0, 0.25]]> : tensor<2x2xf16>
  %1 = arith.constant dense<[true, false, true]> : tensor<3xi1>
  %2 = arith.constant dense<[-1, 127]> : tensor<2xi8>
  %3 = arith.constant dense<7> : tensor<2x2xi32>
  func.return %0, %1, %2, %3 : tensor<2x2xf16>, tensor<3xi1>, tensor<2xi8>, tensor<2x2xi32>
}
"""
    exe = CpuExecutable(parse_module(text))
    h, b, i8, i32 = exe.run("f")
    np.testing.assert_array_equal(h, np.array([[1.5, 2.0], [-1.0, 0.25]], np.float16))
    assert h.dtype == np.float16
    np.testing.assert_array_equal(b, [True, False, True])
    assert b.dtype == np.bool_
    np.testing.assert_array_equal(i8, np.array([-1, 127], np.int8))
    np.testing.assert_array_equal(i32, np.full((2, 2), 7, np.int32))
    i32[0, 0] = 0  # returned constants are private, writable copies
    (again,) = exe.run("f")[3:]
    assert again[0, 0] == 7
