"""arith/math ops through the CPU executor, on scalars and inside linalg bodies."""

from __future__ import annotations

import numpy as np
import pytest

from mindjit.backend.cpu import CpuExecutable
from mindjit.dialects.parsing import parse_module

ID2 = "affine_map<(d0, d1) -> (d0, d1)>"


def run(text: str, name: str, *args: np.ndarray) -> tuple[np.ndarray, ...]:
    return CpuExecutable(parse_module(text)).run(name, *args)


def unary_generic(body: str, in_t: str, out_t: str, shape: str = "2x3") -> str:
    """A 2-D elementwise linalg.generic applying `body` (uses %x, yields %r)."""
    return f"""
func.func @f(%a: tensor<{shape}x{in_t}>) -> tensor<{shape}x{out_t}> {{
  %e = tensor.empty() : tensor<{shape}x{out_t}>
  %r = linalg.generic {{indexing_maps = [{ID2}, {ID2}], iterator_types = ["parallel", "parallel"]}}
      ins(%a : tensor<{shape}x{in_t}>) outs(%e : tensor<{shape}x{out_t}>) {{
  ^bb0(%x: {in_t}, %o: {out_t}):
    {body}
    linalg.yield %r : {out_t}
  }} -> tensor<{shape}x{out_t}>
  func.return %r : tensor<{shape}x{out_t}>
}}
"""


def binary_generic(op: str, in_t: str, out_t: str, n: int = 6) -> str:
    return f"""
func.func @f(%a: tensor<{n}x{in_t}>, %b: tensor<{n}x{in_t}>) -> tensor<{n}x{out_t}> {{
  %e = tensor.empty() : tensor<{n}x{out_t}>
  %r = linalg.generic {{indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}}
      ins(%a, %b : tensor<{n}x{in_t}>, tensor<{n}x{in_t}>) outs(%e : tensor<{n}x{out_t}>) {{
  ^bb0(%x: {in_t}, %y: {in_t}, %o: {out_t}):
    %r = {op} %x, %y : {in_t}
    linalg.yield %r : {out_t}
  }} -> tensor<{n}x{out_t}>
  func.return %r : tensor<{n}x{out_t}>
}}
"""


F32 = np.array([1.5, -2.25, 0.0, 3.0, -0.5, 7.0], np.float32)
G32 = np.array([0.5, 4.0, -1.0, 3.0, 2.0, -7.0], np.float32)


@pytest.mark.parametrize(
    "op, ref",
    [
        ("arith.addf", np.add),
        ("arith.subf", np.subtract),
        ("arith.mulf", np.multiply),
        ("arith.divf", np.divide),
        ("arith.maximumf", np.maximum),
        ("arith.minimumf", np.minimum),
        ("arith.maxnumf", np.fmax),
        ("arith.minnumf", np.fmin),
    ],
)
def test_float_binary_in_body(op, ref):
    (out,) = run(binary_generic(op, "f32", "f32"), "f", F32, G32)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, ref(F32, G32), rtol=1e-6)


def test_f16_keeps_its_type():
    a = F32.astype(np.float16)
    b = G32.astype(np.float16)
    (out,) = run(binary_generic("arith.mulf", "f16", "f16"), "f", a, b)
    assert out.dtype == np.float16
    np.testing.assert_array_equal(out, a * b)


@pytest.mark.parametrize(
    "body, ref",
    [
        ("%r = math.exp %x : f32", np.exp),
        ("%r = math.tanh %x : f32", np.tanh),
        ("%r = math.absf %x : f32", np.abs),
        ("%r = arith.negf %x : f32", np.negative),
        ("%r = math.floor %x : f32", np.floor),
        ("%r = math.ceil %x : f32", np.ceil),
        ("%r = math.sin %x : f32", np.sin),
        ("%r = math.cos %x : f32", np.cos),
        ("%s = math.absf %x : f32\n    %r = math.sqrt %s : f32", lambda x: np.sqrt(np.abs(x))),
        ("%s = math.absf %x : f32\n    %r = math.rsqrt %s : f32", lambda x: 1 / np.sqrt(np.abs(x))),
        ("%s = math.absf %x : f32\n    %r = math.log %s : f32", lambda x: np.log(np.abs(x))),
        ("%r = math.powf %x, %x : f32", np.power),
    ],
)
def test_math_unary(body, ref):
    a = np.array([[0.5, -1.25, 2.0], [3.5, -0.75, 1.0]], np.float32)
    (out,) = run(unary_generic(body, "f32", "f32"), "f", a)
    with np.errstate(all="ignore"):
        expected = ref(a) if ref is not np.power else np.power(a, a)
    np.testing.assert_allclose(out, expected, rtol=1e-6, equal_nan=True)


def test_erf_is_accurate():
    x = np.linspace(-4, 4, 97, dtype=np.float32).reshape(1, 97)
    (out,) = run(unary_generic("%r = math.erf %x : f32", "f32", "f32", "1x97"), "f", x)
    import math

    expected = np.array([[math.erf(float(v)) for v in x[0]]])
    np.testing.assert_allclose(out, expected, rtol=2e-6, atol=1e-7)


def test_body_with_captured_constant_and_several_ops():
    text = unary_generic(
        "%c = arith.constant 2.0 : f32\n    %m = arith.mulf %x, %c : f32\n"
        "    %z = arith.constant 0.0 : f32\n    %r = arith.maximumf %m, %z : f32",
        "f32",
        "f32",
    )
    a = np.array([[1, -2, 3], [-4, 5, -6]], np.float32)
    (out,) = run(text, "f", a)
    np.testing.assert_array_equal(out, np.maximum(a * 2, 0))


I32A = np.array([7, -7, 7, -7, 2147483647, 0], np.int32)
I32B = np.array([2, 2, -2, -2, 1, 5], np.int32)


@pytest.mark.parametrize(
    "op, expected",
    [
        ("arith.addi", np.array([9, -5, 5, -9, -2147483648, 5], np.int32)),  # wraps
        ("arith.subi", I32A - I32B),
        ("arith.muli", I32A * I32B),
        ("arith.divsi", np.array([3, -3, -3, 3, 2147483647, 0], np.int32)),  # toward zero
        ("arith.remsi", np.array([1, -1, 1, -1, 0, 0], np.int32)),
        ("arith.floordivsi", np.array([3, -4, -4, 3, 2147483647, 0], np.int32)),
        ("arith.maxsi", np.maximum(I32A, I32B)),
        ("arith.minsi", np.minimum(I32A, I32B)),
        ("arith.andi", I32A & I32B),
        ("arith.ori", I32A | I32B),
        ("arith.xori", I32A ^ I32B),
        ("arith.divui", (I32A.view(np.uint32) // I32B.view(np.uint32)).view(np.int32)),
        ("arith.remui", (I32A.view(np.uint32) % I32B.view(np.uint32)).view(np.int32)),
        ("arith.maxui", np.maximum(I32A.view(np.uint32), I32B.view(np.uint32)).view(np.int32)),
    ],
)
def test_i32_ops_keep_mlir_semantics(op, expected):
    (out,) = run(binary_generic(op, "i32", "i32"), "f", I32A, I32B)
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize(
    "pred, ref",
    [
        ("oeq", lambda a, b: a == b),
        ("one", lambda a, b: (a != b) & ~np.isnan(a) & ~np.isnan(b)),
        ("ogt", lambda a, b: a > b),
        ("oge", lambda a, b: a >= b),
        ("olt", lambda a, b: a < b),
        ("ole", lambda a, b: a <= b),
        ("ord", lambda a, b: ~np.isnan(a) & ~np.isnan(b)),
        ("ueq", lambda a, b: (a == b) | np.isnan(a) | np.isnan(b)),
        ("ugt", lambda a, b: (a > b) | np.isnan(a) | np.isnan(b)),
        ("uge", lambda a, b: (a >= b) | np.isnan(a) | np.isnan(b)),
        ("ult", lambda a, b: (a < b) | np.isnan(a) | np.isnan(b)),
        ("ule", lambda a, b: (a <= b) | np.isnan(a) | np.isnan(b)),
        ("une", lambda a, b: a != b),
        ("uno", lambda a, b: np.isnan(a) | np.isnan(b)),
        ("true", lambda a, b: np.ones(a.shape, bool)),
        ("false", lambda a, b: np.zeros(a.shape, bool)),
    ],
)
def test_cmpf_predicates(pred, ref):
    a = np.array([1.0, np.nan, 2.0, 3.0, np.nan, -1.0], np.float32)
    b = np.array([1.0, 1.0, 3.0, 2.0, np.nan, -1.0], np.float32)
    (out,) = run(binary_generic(f"arith.cmpf {pred},", "f32", "i1"), "f", a, b)
    assert out.dtype == np.bool_
    np.testing.assert_array_equal(out, ref(a, b))


@pytest.mark.parametrize(
    "pred", ["eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"]
)
def test_cmpi_predicates(pred):
    a = np.array([-1, 0, 5, 3, -8, 2], np.int32)
    b = np.array([1, 0, 5, -3, -8, 7], np.int32)
    ops = {
        "eq": np.equal,
        "ne": np.not_equal,
        "lt": np.less,
        "le": np.less_equal,
        "gt": np.greater,
        "ge": np.greater_equal,
    }
    x, y = (a.view(np.uint32), b.view(np.uint32)) if pred[0] == "u" else (a, b)
    (out,) = run(binary_generic(f"arith.cmpi {pred},", "i32", "i1"), "f", a, b)
    np.testing.assert_array_equal(
        out, ops[pred.lstrip("su") if pred not in ("eq", "ne") else pred](x, y)
    )


def test_i1_logic_and_select():
    text = """
func.func @f(%c: tensor<4xi1>, %d: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xi1>) {
  %e = tensor.empty() : tensor<4xf32>
  %ei = tensor.empty() : tensor<4xi1>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%c, %d, %a, %b : tensor<4xi1>, tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) outs(%e, %ei : tensor<4xf32>, tensor<4xi1>) {
  ^bb0(%p: i1, %q: i1, %x: f32, %y: f32, %o: f32, %oi: i1):
    %s = arith.select %p, %x, %y : f32
    %t = arith.addi %p, %q : i1
    linalg.yield %s, %t : f32, i1
  } -> tensor<4xf32>, tensor<4xi1>
  func.return %r#0, %r#1 : tensor<4xf32>, tensor<4xi1>
}
"""
    c = np.array([True, False, True, False])
    d = np.array([True, True, False, False])
    a = np.arange(4, dtype=np.float32)
    b = -a
    sel, xor = run(text, "f", c, d, a, b)
    np.testing.assert_array_equal(sel, np.where(c, a, b))
    np.testing.assert_array_equal(xor, c ^ d)


@pytest.mark.parametrize(
    "body, in_t, out_t, a, expected",
    [
        (
            "%r = arith.sitofp %x : i32 to f32",
            "i32",
            "f32",
            [[-3, 4, 5]],
            np.array([[-3, 4, 5]], np.float32),
        ),
        (
            "%r = arith.uitofp %x : i32 to f32",
            "i32",
            "f32",
            [[-1, 4, 5]],
            np.array([[4294967295.0, 4, 5]], np.float32),
        ),
        (
            "%r = arith.fptosi %x : f32 to i32",
            "f32",
            "i32",
            [[-3.7, 4.2, 0.5]],
            np.array([[-3, 4, 0]], np.int32),
        ),
        (
            "%r = arith.extf %x : f16 to f32",
            "f16",
            "f32",
            [[1.5, -2.0, 0.25]],
            np.array([[1.5, -2.0, 0.25]], np.float32),
        ),
        (
            "%r = arith.truncf %x : f32 to f16",
            "f32",
            "f16",
            [[1.5, -2.0, 0.25]],
            np.array([[1.5, -2.0, 0.25]], np.float16),
        ),
        (
            "%r = arith.extsi %x : i8 to i32",
            "i8",
            "i32",
            [[-1, 5, -128]],
            np.array([[-1, 5, -128]], np.int32),
        ),
        (
            "%r = arith.extui %x : i8 to i32",
            "i8",
            "i32",
            [[-1, 5, -128]],
            np.array([[255, 5, 128]], np.int32),
        ),
        (
            "%r = arith.trunci %x : i32 to i8",
            "i32",
            "i8",
            [[257, -1, 128]],
            np.array([[1, -1, -128]], np.int8),
        ),
        (
            "%r = arith.extui %x : i1 to i32",
            "i1",
            "i32",
            [[True, False, True]],
            np.array([[1, 0, 1]], np.int32),
        ),
        (
            "%r = arith.extsi %x : i1 to i32",
            "i1",
            "i32",
            [[True, False, True]],
            np.array([[-1, 0, -1]], np.int32),
        ),
        (
            "%r = arith.trunci %x : i32 to i1",
            "i32",
            "i1",
            [[3, 2, -1]],
            np.array([[True, False, True]]),
        ),
        (
            "%r = arith.index_cast %x : i32 to index",
            "i32",
            "index",
            [[3, -2, 7]],
            np.array([[3, -2, 7]], np.int64),
        ),
        (
            "%r = arith.bitcast %x : f32 to i32",
            "f32",
            "i32",
            [[1.0, -2.0, 0.0]],
            np.array([[1.0, -2.0, 0.0]], np.float32).view(np.int32),
        ),
    ],
)
def test_casts(body, in_t, out_t, a, expected):
    from xdsl.dialects.builtin import Float16Type, Float32Type, IndexType, IntegerType

    from mindjit.backend.cpu.types import element_dtype

    types = {"f32": Float32Type(), "f16": Float16Type(), "index": IndexType()}
    t = types.get(in_t) or IntegerType(int(in_t[1:]))
    arr = np.array(a).astype(element_dtype(t))
    (out,) = run(unary_generic(body, in_t, out_t, "1x3"), "f", arr)
    assert out.dtype == expected.dtype
    np.testing.assert_array_equal(out, expected)


def test_scalar_arith_outside_bodies_and_folding():
    text = """
func.func @f(%x: f32, %i: i32) -> (f32, i32, i1, index) {
  %c = arith.constant 3.0 : f32
  %a = arith.mulf %x, %c : f32
  %k = arith.constant -7 : i32
  %d = arith.divsi %k, %i : i32
  %t = arith.cmpf ogt, %a, %c : f32
  %n1 = arith.constant 4 : index
  %n2 = arith.constant 5 : index
  %n = arith.addi %n1, %n2 : index
  func.return %a, %d, %t, %n : f32, i32, i1, index
}
"""
    a, d, t, n = run(text, "f", np.float32(2.0), np.int32(2))
    assert a == np.float32(6.0) and a.dtype == np.float32 and isinstance(a, np.ndarray)
    assert d == -3 and d.dtype == np.int32
    assert t == True and t.dtype == np.bool_  # noqa: E712
    assert n == 9 and n.dtype == np.int64


def test_elementwise_arith_on_whole_tensors():
    text = """
func.func @f(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>, %s: tensor<f32>) -> (tensor<2x2xf32>, tensor<f32>) {
  %r = arith.addf %a, %b : tensor<2x2xf32>
  %q = math.exp %s : tensor<f32>
  func.return %r, %q : tensor<2x2xf32>, tensor<f32>
}
"""
    a = np.ones((2, 2), np.float32)
    r, q = run(text, "f", a, a, np.array(0.0, np.float32))
    np.testing.assert_array_equal(r, 2 * a)
    assert isinstance(q, np.ndarray) and q.shape == () and q == 1.0


def test_an_empty_loop_stays_empty():
    """A loop dimension of extent 0 (an empty tensor, e.g. `y[mask]` with no element
    set) is 0, not the 1 of an operand broadcast against it."""
    text = """
func.func @f(%a: tensor<0xf32>, %s: tensor<f32>) -> tensor<0xf32> {
  %e = tensor.empty() : tensor<0xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%a, %s : tensor<0xf32>, tensor<f32>) outs(%e : tensor<0xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %m = arith.mulf %x, %y : f32
    linalg.yield %m : f32
  } -> tensor<0xf32>
  func.return %r : tensor<0xf32>
}
"""
    (out,) = run(text, "f", np.ones((0,), np.float32), np.array(2.0, np.float32))
    assert out.shape == (0,) and out.dtype == np.float32


def test_an_all_false_mask_assignment_changes_nothing():
    """`y[y < 0] *= 2` with no negative element (MindSpore 2.10: a no-op)."""
    import mindjit as ms

    y = ms.Tensor(np.ones((4, 4), np.float32))
    y[y < 0] *= 2
    np.testing.assert_array_equal(y.asnumpy(), np.ones((4, 4), np.float32))
