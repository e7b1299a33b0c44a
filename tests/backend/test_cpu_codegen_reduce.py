"""Compiled row sums (backend/cpu/codegen_reduce.py) against the numpy path, bit for
bit: every row length up to 300 and some far longer (each branch of numpy's pairwise
sum), f32 and f64, one and two reduced axes, NaN/inf and signed zeros; and what
stays numpy's (a maximum, a non-trailing axis, a strided input, a non-neutral init)."""

from __future__ import annotations

import numpy as np
import pytest

from mindjit.backend.cpu import CpuExecutable, codegen_llvm, codegen_reduce
from mindjit.dialects.parsing import parse_module

pytestmark = pytest.mark.skipif(not codegen_llvm.available(), reason="llvmlite not installed")


def reduce_text(
    shape: tuple[int, ...], dims: list[int], ty: str = "f32", comb: str = "addf", init: str = "0.0"
) -> str:
    """@f(x): linalg.reduce of x over `dims` with `comb`, from a fill of `init`."""
    t_in = f"tensor<{'x'.join(map(str, shape))}x{ty}>"
    kept = [n for d, n in enumerate(shape) if d not in dims]
    t_out = f"tensor<{'x'.join(map(str, kept))}x{ty}>" if kept else f"tensor<{ty}>"
    return f"""
func.func @f(%x: {t_in}) -> {t_out} {{
  %zero = arith.constant {init} : {ty}
  %e = tensor.empty() : {t_out}
  %i = linalg.fill ins(%zero : {ty}) outs(%e : {t_out}) -> {t_out}
  %r = linalg.reduce ins(%x : {t_in}) outs(%i : {t_out}) dimensions = {dims}
    (%a: {ty}, %b: {ty}) {{
      %s = arith.{comb} %a, %b : {ty}
      linalg.yield %s : {ty}
    }}
  func.return %r : {t_out}
}}
"""


def run_both(text: str, x: np.ndarray) -> tuple[np.ndarray, np.ndarray, CpuExecutable]:
    on = CpuExecutable(parse_module(text), codegen=True)
    off = CpuExecutable(parse_module(text), codegen=False)
    on.run("f", x)  # the first call starts the compile (and runs numpy's reducer)
    codegen_llvm.wait_all()
    with np.errstate(all="ignore"):
        return on.run("f", x)[0], off.run("f", x)[0], on


def data(shape: tuple[int, ...], dtype: type, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) * 10 ** rng.uniform(-3, 3, shape)).astype(dtype)


@pytest.fixture(autouse=True)
def small_sums_compile(monkeypatch):
    monkeypatch.setattr(codegen_reduce, "MIN_ELEMENTS", 1)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_every_row_length_sums_as_numpy(dtype):
    ty = "f32" if dtype == np.float32 else "f64"
    for n in [*range(1, 301), 383, 1000, 1024, 4097, 9000]:
        x = data((3, n), dtype, n)
        got, want, on = run_both(reduce_text((3, n), [1], ty), x)
        assert on.codegen.planned == 1
        assert got.dtype == want.dtype and got.shape == want.shape
        assert got.tobytes() == want.tobytes(), n
        assert want.tobytes() == np.add.reduce(x, axis=1).tobytes()


def test_trailing_axes_rank_three_and_a_whole_vector(monkeypatch):
    calls = []
    real = codegen_llvm.FusedKernel.__call__

    def counted(self, *arrays):
        calls.append(self)
        return real(self, *arrays)

    monkeypatch.setattr(codegen_llvm.FusedKernel, "__call__", counted)
    for shape, dims in [((4, 5, 40), [1, 2]), ((2, 64, 256), [2]), ((2, 3, 300), [1, 2])]:
        x = data(shape, np.float32, 1)
        got, want, on = run_both(reduce_text(shape, dims), x)
        assert on.codegen.planned == 1 and got.tobytes() == want.tobytes()
    x = data((777,), np.float32, 2)
    got, want, _ = run_both(reduce_text((777,), [0]), x)
    assert got.shape == () and got.tobytes() == want.tobytes()
    assert len(calls) == 4  # the second call of each ran the generated code


def test_nan_inf_and_signed_zeros():
    x = data((6, 40), np.float32, 3)
    x[0, 5] = np.nan
    x[1, 7], x[1, 30] = np.inf, -np.inf
    x[2, 3] = np.inf
    x[3] = -0.0
    x[4, :3] = -0.0
    x[4, 3:] = 0.0
    got, want, _ = run_both(reduce_text((6, 40), [1]), x)
    np.testing.assert_array_equal(got, want)
    assert not np.signbit(got[3]) and not np.signbit(got[4])  # 0 + (-0.0) is +0.0


@pytest.mark.parametrize(
    "text",
    [
        reduce_text((8, 64), [1], comb="maximumf", init="0xFF800000"),  # numpy's order
        reduce_text((8, 64), [0]),  # not a trailing axis
        reduce_text((8, 64), [1], init="1.0"),  # the init is not the neutral 0
        reduce_text((8, 64), [1], ty="i32", comb="addi", init="0"),
    ],
)
def test_other_reductions_stay_numpys(text):
    x = np.arange(8 * 64).reshape(8, 64).astype(np.int32 if "i32" in text else np.float32)
    got, want, on = run_both(text, x)
    assert on.codegen.planned == 0
    assert got.tobytes() == want.tobytes()


def test_a_strided_input_runs_numpys_reducer():
    text = reduce_text((16, 64), [1])
    on = CpuExecutable(parse_module(text), codegen=True)
    on.run("f", data((16, 64), np.float32, 4))
    codegen_llvm.wait_all()
    x = data((64, 16), np.float32, 5).T  # the planned shape, not C-contiguous
    np.testing.assert_array_equal(on.run("f", x)[0], np.add.reduce(x, axis=1))


def test_small_sums_stay_numpys(monkeypatch):
    monkeypatch.setattr(codegen_reduce, "MIN_ELEMENTS", 4096)
    _, _, on = run_both(reduce_text((8, 64), [1]), data((8, 64), np.float32, 6))
    assert on.codegen.planned == 0
