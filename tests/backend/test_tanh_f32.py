"""mindjit's float32 tanh (backend/cpu/tanh_f32.py): its accuracy against float64's
tanh, and the same bits from every way it runs (numpy running the recipe, the
whole-array kernel, a loop nest with tanh fused in, graph mode and PyNative)."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import math
from xdsl.dialects import test as test_dialect
from xdsl.dialects.builtin import Float16Type, Float32Type, Float64Type

import mindjit as ms
from mindjit import Tensor, ops
from mindjit.backend.cpu import CpuExecutable, codegen_llvm, scalar_fns, tanh_f32
from mindjit.dialects.parsing import parse_module

needs_llvm = pytest.mark.skipif(not codegen_llvm.available(), reason="llvmlite not installed")

SPECIAL = np.array(
    [
        0.0,
        -0.0,
        np.inf,
        -np.inf,
        np.nan,
        -np.nan,
        1e-45,
        -1e-45,
        1e-38,
        2.0**-12,
        0.8,
        9.1,
        9.2,
        20.0,
        88.0,
        1e30,
        -1e30,
        np.float32(0.8) - np.float32(2.0**-24),
    ],
    dtype=np.float32,
)


def every_float(step: int) -> np.ndarray:
    """Every `step`-th float32 bit pattern (both signs, subnormals, NaNs) and SPECIAL."""
    bits = np.arange(-(2**31), 2**31 - 1, step, dtype=np.int64).astype(np.int32)
    return np.concatenate([bits.view(np.float32), SPECIAL])


def ulps(got: np.ndarray, x: np.ndarray) -> np.ndarray:
    """|got - tanh(x)| in units in the last place of float32 at tanh(x) (finite, nonzero)."""
    with np.errstate(invalid="ignore"):  # signalling NaNs among the bit patterns
        ref = np.tanh(x.astype(np.float64))
    keep = np.isfinite(ref) & (ref != 0)
    spacing = np.spacing(np.abs(ref[keep]).astype(np.float32)).astype(np.float64)
    return np.abs(got[keep].astype(np.float64) - ref[keep]) / spacing


def test_recipe_within_1_06_ulp_and_exact_at_the_edges():
    x = every_float(9973)
    got = tanh_f32.tanh(x)
    assert got.dtype == np.float32 and got.shape == x.shape
    assert ulps(got, x).max() <= 1.06  # np.tanh's own is 1.37
    nan = np.isnan(x)
    assert np.isnan(got[nan]).all() and not np.isnan(got[~nan]).any()
    zero = x == 0
    np.testing.assert_array_equal(np.signbit(got[zero]), np.signbit(x[zero]))  # tanh(-0) = -0
    big = np.abs(x) >= 9.1
    np.testing.assert_array_equal(got[big & ~nan], np.sign(x[big & ~nan]))
    tiny = np.abs(x) < 2.0**-12
    np.testing.assert_array_equal(got[tiny], x[tiny])  # a^3 P is below half an ulp


def test_recipe_on_scalars_and_odd_shapes():
    assert tanh_f32.tanh(np.float32(0.5)) == np.float32(np.tanh(np.float64(0.5)))
    assert isinstance(tanh_f32.tanh(np.float32(-2.0)), np.float32)
    assert tanh_f32.tanh(np.zeros((0, 3), np.float32)).shape == (0, 3)
    x = np.linspace(-5, 5, 24, dtype=np.float32).reshape(2, 3, 4)
    np.testing.assert_array_equal(tanh_f32.tanh(x).ravel(), tanh_f32.tanh(x.ravel()))


def test_the_recipe_is_only_ieee_steps():
    """What lets numpy and LLVM agree: no step whose result a library chooses."""
    assert {op for _, op, *_ in tanh_f32._RECIPE} <= {
        "abs",
        "mul",
        "add",
        "sub",
        "div",
        "lt",
        "select",
        "rint",
        "pow2",
        "copysign",
        "isnan",
    }


@needs_llvm
def test_the_kernel_gives_the_recipes_bits():
    x = every_float(997)
    np.testing.assert_array_equal(
        codegen_llvm.tanh_f32_array(x).view(np.int32), tanh_f32.tanh(x).view(np.int32)
    )
    for view in (x[::2], x[: 64 * 33].reshape(64, 33).T):  # not C-contiguous
        assert not view.flags.c_contiguous
        got = codegen_llvm.tanh_f32_array(view)
        assert got.shape == view.shape
        np.testing.assert_array_equal(got.view(np.int32), tanh_f32.tanh(view).view(np.int32))
    scalar = codegen_llvm.tanh_f32_array(np.float32(0.25))
    assert isinstance(scalar, np.float32) and scalar == tanh_f32.tanh(np.float32(0.25))
    assert codegen_llvm.tanh_f32_array(np.zeros(0, np.float32)).shape == (0,)


def _tanh_op(element) -> math.TanhOp:
    return math.TanhOp(test_dialect.TestOp(result_types=[element]).results[0])


def test_float32_tanh_is_the_recipe_everywhere_else_numpys():
    f32 = scalar_fns.scalar_fn(_tanh_op(Float32Type()), vectorized=True)
    if codegen_llvm.available():
        assert f32 is codegen_llvm.tanh_f32_array
        codegen_llvm.wait_all()  # planning it started the kernel's compile
        assert codegen_llvm._TANH.ready()
    else:
        assert f32 is np.tanh  # no loop nest computes it: numpy's own
    assert scalar_fns.scalar_fn(_tanh_op(Float64Type()), vectorized=True) is np.tanh
    assert scalar_fns.scalar_fn(_tanh_op(Float16Type()), vectorized=True) is np.tanh


GELU = """
func.func @f(%x: tensor<64x1024xf32>) -> tensor<64x1024xf32> {
  %e = tensor.empty() : tensor<64x1024xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
      affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<64x1024xf32>) outs(%e : tensor<64x1024xf32>) {
  ^bb0(%a: f32, %o: f32):
    %c = arith.constant 0.0447149984 : f32
    %k = arith.constant 0.797884583 : f32
    %h = arith.constant 5.000000e-01 : f32
    %one = arith.constant 1.000000e+00 : f32
    %a2 = arith.mulf %a, %a : f32
    %a3 = arith.mulf %a2, %a : f32
    %t0 = arith.mulf %a3, %c : f32
    %t1 = arith.addf %a, %t0 : f32
    %t2 = arith.mulf %t1, %k : f32
    %th = math.tanh %t2 : f32
    %t3 = arith.addf %th, %one : f32
    %t4 = arith.mulf %a, %h : f32
    %y = arith.mulf %t4, %t3 : f32
    linalg.yield %y : f32
  }  -> tensor<64x1024xf32>
  func.return %r : tensor<64x1024xf32>
}
"""


@needs_llvm
def test_a_fused_tanh_is_one_loop_nest_with_the_unfused_bits():
    x = (np.random.default_rng(0).standard_normal((64, 1024)) * 3).astype(np.float32)
    x[0, :4] = [np.nan, np.inf, -np.inf, -0.0]
    on = CpuExecutable(parse_module(GELU), codegen=True)
    off = CpuExecutable(parse_module(GELU), codegen=False)
    first = on.run("f", x)[0]  # starts the compile; numpy's path meanwhile
    codegen_llvm.wait_all()
    kernel = on.run("f", x)[0]
    unfused = off.run("f", x)[0]
    assert on.codegen.planned == 1
    for got in (first, kernel):
        np.testing.assert_array_equal(got.view(np.int32), unfused.view(np.int32))


@needs_llvm
def test_graph_mode_fuses_tanh_with_pynatives_bits():
    def gelu(x):
        return 0.5 * x * (1 + ops.tanh(0.7978846 * (x + 0.044715 * x * x * x)))

    x = Tensor((np.random.default_rng(1).standard_normal((64, 1024)) * 3).astype(np.float32))
    saved = ms.get_context("mode")
    try:
        ms.set_context(mode=ms.PYNATIVE_MODE)
        eager = gelu(x).asnumpy()
        ms.set_context(mode=ms.GRAPH_MODE)
        graph = ms.jit(gelu)
        before = codegen_llvm.compile_stats()["planned"]
        first = graph(x).asnumpy()
        codegen_llvm.wait_all()
        fused = graph(x).asnumpy()
        assert codegen_llvm.compile_stats()["planned"] - before == 1  # one loop nest, tanh in it
    finally:
        ms.set_context(mode=saved)
    for got in (first, fused):
        np.testing.assert_array_equal(got.view(np.int32), eager.view(np.int32))


def test_recipe_on_a_zero_dim_array():
    """numpy's steps on a 0-d array give numpy scalars: nothing to write into."""
    got = tanh_f32.tanh(np.array(0.5, np.float32))
    assert np.ndim(got) == 0 and got == tanh_f32.tanh(np.float32(0.5))
