"""Differential test: the CPU executor against IREE (llvm-cpu) on the same programs.

The text fed to IREE is what xDSL prints for the parsed module, so this also
checks that MLIR accepts xDSL's printed form of these ops.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mindjit.backend.cpu import CpuExecutable
from mindjit.dialects.parsing import parse_module

RNG = np.random.default_rng(3)


def _tool(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    beside = Path(sys.executable).parent / name
    return str(beside) if beside.exists() else None


IREE_COMPILE, IREE_RUN = _tool("iree-compile"), _tool("iree-run-module")
pytestmark = pytest.mark.skipif(
    IREE_COMPILE is None or IREE_RUN is None,
    reason="iree-compile / iree-run-module not found on PATH or next to sys.executable",
)


def f32(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


BROADCAST = """
func.func @f(%a: tensor<3x4xf32>, %row: tensor<4xf32>, %col: tensor<3xf32>) -> tensor<4x3xf32> {
  %e = tensor.empty() : tensor<4x3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>,
                                        affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1, d0)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%a, %row, %col : tensor<3x4xf32>, tensor<4xf32>, tensor<3xf32>) outs(%e : tensor<4x3xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32, %o: f32):
    %0 = arith.addf %x, %y : f32
    %1 = arith.mulf %0, %z : f32
    %2 = math.tanh %1 : f32
    linalg.yield %2 : f32
  } -> tensor<4x3xf32>
  func.return %r : tensor<4x3xf32>
}
"""

MATMUL = """
func.func @f(%x: tensor<8x16xf32>, %w: tensor<16x32xf32>, %b: tensor<32xf32>) -> tensor<8x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x32xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  %m = linalg.matmul ins(%x, %w : tensor<8x16xf32>, tensor<16x32xf32>) outs(%z : tensor<8x32xf32>) -> tensor<8x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%m, %b : tensor<8x32xf32>, tensor<32xf32>) outs(%e : tensor<8x32xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    %t = arith.maximumf %s, %zero : f32
    linalg.yield %t : f32
  } -> tensor<8x32xf32>
  func.return %r : tensor<8x32xf32>
}
"""

BATCH_MATMUL = """
func.func @f(%a: tensor<2x3x4xf32>, %b: tensor<2x5x4xf32>) -> tensor<2x3x5xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x3x5xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>,
                                        affine_map<(b, m, n, k) -> (b, m, n)>],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<2x3x4xf32>, tensor<2x5x4xf32>) outs(%z : tensor<2x3x5xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<2x3x5xf32>
  func.return %r : tensor<2x3x5xf32>
}
"""

REDUCTIONS = """
func.func @f(%a: tensor<4x6xf32>) -> (tensor<4xf32>, tensor<6xf32>) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e4 = tensor.empty() : tensor<4xf32>
  %z4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                         iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<4x6xf32>) outs(%z4 : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %sq = arith.mulf %x, %x : f32
    %s = arith.addf %sq, %o : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %e6 = tensor.empty() : tensor<6xf32>
  %m6 = linalg.fill ins(%ninf : f32) outs(%e6 : tensor<6xf32>) -> tensor<6xf32>
  %max = linalg.reduce ins(%a : tensor<4x6xf32>) outs(%m6 : tensor<6xf32>) dimensions = [0]
    (%x: f32, %o: f32) {
      %m = arith.maximumf %x, %o : f32
      linalg.yield %m : f32
    }
  func.return %sum, %max : tensor<4xf32>, tensor<6xf32>
}
"""

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
    %e = tensor.empty() : tensor<3xf32>
    %d = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
        ins(%a : tensor<3xf32>) outs(%e : tensor<3xf32>) {
    ^bb0(%x: f32, %o: f32):
      %y = arith.subf %x, %v : f32
      linalg.yield %y : f32
    } -> tensor<3xf32>
    scf.yield %d : tensor<3xf32>
  }
  func.return %r : tensor<3xf32>
}
"""

WHILE = """
func.func @f(%x: tensor<2xf32>, %lim: tensor<f32>) -> (tensor<2xf32>, tensor<i32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %k = arith.constant 0 : index
  %l = tensor.extract %lim[] : tensor<f32>
  %r:2 = scf.while (%acc = %x, %i = %c0) : (tensor<2xf32>, i32) -> (tensor<2xf32>, i32) {
    %v = tensor.extract %acc[%k] : tensor<2xf32>
    %go = arith.cmpf olt, %v, %l : f32
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
  %t = tensor.from_elements %r#1 : tensor<i32>
  func.return %r#0, %t : tensor<2xf32>, tensor<i32>
}
"""

INTEGER = """
func.func @f(%a: tensor<6xi32>, %b: tensor<6xi32>) -> tensor<6xi32> {
  %e = tensor.empty() : tensor<6xi32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%a, %b : tensor<6xi32>, tensor<6xi32>) outs(%e : tensor<6xi32>) {
  ^bb0(%x: i32, %y: i32, %o: i32):
    %q = arith.divsi %x, %y : i32
    %m = arith.remsi %x, %y : i32
    %t = arith.muli %q, %m : i32
    %s = arith.addi %t, %x : i32
    linalg.yield %s : i32
  } -> tensor<6xi32>
  func.return %r : tensor<6xi32>
}
"""

SHAPES = """
func.func @f(%a: tensor<2x3x4xf32>) -> (tensor<3x8xf32>, tensor<4x2xf32>) {
  %s = tensor.extract_slice %a[0, 1, 0] [2, 1, 4] [1, 1, 1] : tensor<2x3x4xf32> to tensor<2x4xf32>
  %e = tensor.empty() : tensor<4x2xf32>
  %t = linalg.transpose ins(%s : tensor<2x4xf32>) outs(%e : tensor<4x2xf32>) permutation = [1, 0]
  %c = tensor.collapse_shape %a [[0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
  %x = tensor.expand_shape %c [[0, 1], [2]] output_shape [3, 2, 4] : tensor<6x4xf32> into tensor<3x2x4xf32>
  %y = tensor.collapse_shape %x [[0], [1, 2]] : tensor<3x2x4xf32> into tensor<3x8xf32>
  func.return %y, %t : tensor<3x8xf32>, tensor<4x2xf32>
}
"""

CASES = {
    "broadcast": (BROADCAST, [f32(3, 4), f32(4), f32(3)]),
    "matmul": (MATMUL, [f32(8, 16), f32(16, 32), f32(32)]),
    "batch_matmul": (BATCH_MATMUL, [f32(2, 3, 4), f32(2, 5, 4)]),
    "reductions": (REDUCTIONS, [f32(4, 6)]),
    "if_then": (IF, [f32(3), np.array(2.0, np.float32)]),
    "if_else": (IF, [f32(3), np.array(-2.0, np.float32)]),
    "while": (WHILE, [np.array([1.0, 5.0], np.float32), np.array(20.0, np.float32)]),
    "integer": (
        INTEGER,
        [np.array([7, -7, 7, -7, 100, -3], np.int32), np.array([2, 2, -2, -2, 7, 5], np.int32)],
    ),
    "shapes": (SHAPES, [np.arange(24, dtype=np.float32).reshape(2, 3, 4)]),
}


def run_iree(
    text: str, inputs: list[np.ndarray], n_out: int, tmp: Path, entry: str = "f"
) -> list[np.ndarray]:
    src, vmfb = tmp / "prog.mlir", tmp / "prog.vmfb"
    src.write_text(text)
    compiled = subprocess.run(
        [
            IREE_COMPILE,
            "--iree-hal-target-backends=llvm-cpu",
            "--iree-llvmcpu-target-cpu=host",
            str(src),
            "-o",
            str(vmfb),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert compiled.returncode == 0, f"IREE rejected xDSL's printed IR:\n{compiled.stderr}\n{text}"
    args = [IREE_RUN, f"--module={vmfb}", f"--function={entry}"]
    for i, x in enumerate(inputs):
        np.save(tmp / f"in{i}.npy", x)
        args.append(f"--input=@{tmp / f'in{i}.npy'}")
    args += [f"--output=@{tmp / f'out{i}.npy'}" for i in range(n_out)]
    ran = subprocess.run(args, capture_output=True, text=True, timeout=300)
    assert ran.returncode == 0, ran.stderr
    return [np.load(tmp / f"out{i}.npy") for i in range(n_out)]


@pytest.mark.parametrize("case", sorted(CASES))
def test_matches_iree(case, tmp_path):
    text, inputs = CASES[case]
    module = parse_module(text)
    ours = CpuExecutable(module).run("f", *inputs)
    theirs = run_iree(str(module), inputs, len(ours), tmp_path)
    for got, want in zip(ours, theirs):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-5)


MINDIR_CONTROL = """
func.func @f(%x: tensor<4xf32>, %limit: tensor<f32>) -> (tensor<4xf32>, tensor<f32>) {
  %zero = mindir.constant dense<0.0> : tensor<f32>
  %s = mindir.reduce_sum %x : (tensor<4xf32>) -> tensor<f32>
  %c = mindir.greater %s, %zero : (tensor<f32>, tensor<f32>) -> tensor<i1>
  %y = mindir.if %c -> (tensor<4xf32>) {
    %t = mindir.tanh %x : tensor<4xf32>
    mindir.yield %t : tensor<4xf32>
  } else {
    %n = mindir.neg %x : tensor<4xf32>
    mindir.yield %n : tensor<4xf32>
  }
  %one = mindir.constant dense<1.0> : tensor<f32>
  %w = mindir.while (%i = %zero) : (tensor<f32>) -> tensor<f32> {
    %lt = mindir.less %i, %limit : (tensor<f32>, tensor<f32>) -> tensor<i1>
    mindir.condition(%lt : tensor<i1>) %i : tensor<f32>
  } do {
  ^bb0(%j: tensor<f32>):
    %next = mindir.add %j, %one : tensor<f32>
    mindir.yield %next : tensor<f32>
  }
  func.return %y, %w : tensor<4xf32>, tensor<f32>
}
"""

MINDIR_UNARY = """
func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %s = mindir.sin %x : tensor<2x3xf32>
  %c = mindir.cos %x : tensor<2x3xf32>
  %t = mindir.tanh %s : tensor<2x3xf32>
  %g = mindir.sigmoid %c : tensor<2x3xf32>
  %m = mindir.mul %t, %g : tensor<2x3xf32>
  %e = mindir.erf %m : tensor<2x3xf32>
  %x4 = mindir.mul %x, %x : tensor<2x3xf32>
  %fl = mindir.floor %x4 : tensor<2x3xf32>
  %ce = mindir.ceil %x4 : tensor<2x3xf32>
  %ro = mindir.round %x4 : tensor<2x3xf32>
  %r1 = mindir.add %e, %fl : tensor<2x3xf32>
  %r2 = mindir.add %ce, %ro : tensor<2x3xf32>
  %r = mindir.add %r1, %r2 : tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}
"""

MINDIR_CONV = """
func.func @f(%x: tensor<2x4x9x8xf32>, %w: tensor<6x4x3x3xf32>, %wg: tensor<4x2x2x3xf32>)
    -> (tensor<2x6x5x4xf32>, tensor<2x6x2x2xf32>, tensor<2x4x5x4xf32>, tensor<2x4x9x8xf32>) {
  %y = mindir.conv2d %x, %w {stride = array<i64: 2, 2>, pad = array<i64: 1, 1, 1, 0>} : (tensor<2x4x9x8xf32>, tensor<6x4x3x3xf32>) -> tensor<2x6x5x4xf32>
  %m = mindir.max_pool2d %y {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>} : (tensor<2x6x5x4xf32>) -> tensor<2x6x2x2xf32>
  %g = mindir.conv2d %x, %wg {stride = array<i64: 2, 2>, dilation = array<i64: 2, 1>, pad = array<i64: 2, 1, 1, 1>, group = 2} : (tensor<2x4x9x8xf32>, tensor<4x2x2x3xf32>) -> tensor<2x4x5x4xf32>
  %a = mindir.avg_pool2d %x {kernel = array<i64: 3, 3>, pad = array<i64: 1, 1, 1, 1>, count_include_pad = false} : tensor<2x4x9x8xf32>
  %p = mindir.pad %a {low = array<i64: 0, 0, 1, -1>, high = array<i64: 0, 0, -1, 1>, value = 2.5 : f64} : tensor<2x4x9x8xf32>
  %r = mindir.reverse %p {axis = array<i64: 1, 3>} : tensor<2x4x9x8xf32>
  func.return %y, %m, %g, %r : tensor<2x6x5x4xf32>, tensor<2x6x2x2xf32>, tensor<2x4x5x4xf32>, tensor<2x4x9x8xf32>
}
"""

MINDIR_GATHER = """
func.func @f(%p: tensor<5x4xf32>, %i: tensor<2x3xi32>, %x: tensor<2x3x4xf32>)
    -> (tensor<2x3x4xf32>, tensor<4x2x3xf32>, tensor<5x4xf32>) {
  %g = mindir.gather %p, %i : (tensor<5x4xf32>, tensor<2x3xi32>) -> tensor<2x3x4xf32>
  %t = mindir.transpose %p {perm = array<i64: 1, 0>} : (tensor<5x4xf32>) -> tensor<4x5xf32>
  %h = mindir.gather %t, %i {axis = 1 : i64} : (tensor<4x5xf32>, tensor<2x3xi32>) -> tensor<4x2x3xf32>
  %a = mindir.add %g, %x : tensor<2x3x4xf32>
  %s = mindir.unsorted_segment_sum %a, %i {num_segments = 5 : i64} : (tensor<2x3x4xf32>, tensor<2x3xi32>) -> tensor<5x4xf32>
  %o = mindir.gather %s, %i : (tensor<5x4xf32>, tensor<2x3xi32>) -> tensor<2x3x4xf32>
  func.return %o, %h, %s : tensor<2x3x4xf32>, tensor<4x2x3xf32>, tensor<5x4xf32>
}
"""

MINDIR_RANDOM = """
func.func @f(%k: tensor<i32>, %o: tensor<i32>) -> (tensor<3x5x7xf32>, tensor<f32>) {
  %u = mindir.uniform_real %k, %o {seed = 3 : i64, seed2 = 7 : i64, shape = array<i64: 3, 5, 7>} : (tensor<i32>, tensor<i32>) -> tensor<3x5x7xf32>
  %s = mindir.uniform_real %k, %o {seed = 0 : i64, seed2 = 0 : i64, shape = array<i64>} : (tensor<i32>, tensor<i32>) -> tensor<f32>
  func.return %u, %s : tensor<3x5x7xf32>, tensor<f32>
}
"""

LOWERED_CASES = {
    "mlp_example": (
        (Path(__file__).resolve().parents[2] / "examples" / "mlp.mlir").read_text(),
        "Net_construct",
        [f32(4, 8), f32(8, 16), f32(16), f32(16, 3), f32(3)],
    ),
    "mindir_if_while": (MINDIR_CONTROL, "f", [f32(4), np.array(5.5, np.float32)]),
    "mindir_unary": (MINDIR_UNARY, "f", [f32(2, 3) * 4]),
    "mindir_conv_pool_pad": (MINDIR_CONV, "f", [f32(2, 4, 9, 8), f32(6, 4, 3, 3), f32(4, 2, 2, 3)]),
    # repeated and out-of-range (-1, 5, 7) indices
    "mindir_gather_segment_sum": (
        MINDIR_GATHER,
        "f",
        [f32(5, 4), np.array([[0, 4, 2], [4, -1, 7]], np.int32), f32(2, 3, 4)],
    ),
    # bit-exact: the same 24 random bits on both engines (the tolerance is moot)
    "mindir_uniform_real": (
        MINDIR_RANDOM,
        "f",
        [np.array(-123456789, np.int32), np.array(2**31 - 1, np.int32)],
    ),
}

# index reductions, sort and scans (argmax ties: integers with repeats)
MINDIR_INDEX = """
func.func @f(%x: tensor<3x5xf32>, %n: tensor<4x6xi32>)
    -> (tensor<3xi64>, tensor<1x5xi32>, tensor<4xi32>, tensor<6xi64>) {
  %a = mindir.argmax %x {axis = 1 : i64, index_type = i64} : (tensor<3x5xf32>) -> tensor<3xi64>
  %b = mindir.argmin %x {axis = 0 : i64, keep_dims = true} : (tensor<3x5xf32>) -> tensor<1x5xi32>
  %c = mindir.argmax %n : (tensor<4x6xi32>) -> tensor<4xi32>
  %d = mindir.argmin %n {axis = 0 : i64, index_type = i64} : (tensor<4x6xi32>) -> tensor<6xi64>
  func.return %a, %b, %c, %d : tensor<3xi64>, tensor<1x5xi32>, tensor<4xi32>, tensor<6xi64>
}
"""
MINDIR_SORT = """
func.func @f(%x: tensor<3x5xf32>, %n: tensor<4x6xi32>)
    -> (tensor<3x5xf32>, tensor<3x5xi32>, tensor<4x6xi32>, tensor<4x6xi32>) {
  %v, %i = mindir.sort %x {descending = true} : tensor<3x5xf32> -> (tensor<3x5xf32>, tensor<3x5xi32>)
  %w, %j = mindir.sort %n {axis = 0 : i64} : tensor<4x6xi32> -> (tensor<4x6xi32>, tensor<4x6xi32>)
  func.return %v, %i, %w, %j : tensor<3x5xf32>, tensor<3x5xi32>, tensor<4x6xi32>, tensor<4x6xi32>
}
"""
LOWERED_CASES["mindir_sort"] = (
    MINDIR_SORT,
    "f",
    [f32(3, 5), np.random.default_rng(5).integers(-2, 3, (4, 6)).astype(np.int32)],
)
MINDIR_SCANS = """
func.func @f(%x: tensor<3x5xf32>, %n: tensor<6xi32>)
    -> (tensor<3x5xf32>, tensor<3x5xf32>, tensor<6xi32>, tensor<6xi32>) {
  %a = mindir.cumsum %x {axis = 1 : i64} : tensor<3x5xf32>
  %b = mindir.cumprod %x {axis = 0 : i64, exclusive = true, reverse = true} : tensor<3x5xf32>
  %c = mindir.cumsum %n {reverse = true} : tensor<6xi32>
  %d = mindir.cumprod %n {exclusive = true} : tensor<6xi32>
  func.return %a, %b, %c, %d : tensor<3x5xf32>, tensor<3x5xf32>, tensor<6xi32>, tensor<6xi32>
}
"""
LOWERED_CASES["mindir_scans"] = (
    MINDIR_SCANS,
    "f",
    [f32(3, 5), np.random.default_rng(7).integers(-3, 4, 6).astype(np.int32)],
)
LOWERED_CASES["mindir_index_ops"] = (
    MINDIR_INDEX,
    "f",
    [f32(3, 5), np.random.default_rng(3).integers(-2, 3, (4, 6)).astype(np.int32)],
)

# log1p/expm1 at tiny and ordinary x, atan2 in every quadrant (broadcast operands)
MINDIR_MATH = """
func.func @f(%x: tensor<2x3xf32>, %y: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %a = mindir.abs %x : tensor<2x3xf32>
  %l = mindir.log1p %a : tensor<2x3xf32>
  %e = mindir.expm1 %x : tensor<2x3xf32>
  %t = mindir.atan2 %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  func.return %l, %e, %t : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}
"""
LOWERED_CASES["mindir_math"] = (
    MINDIR_MATH,
    "f",
    [np.array([[1e-6, -2.0, 0.5], [3.0, -1e-5, -0.7]], np.float32), f32(3)],
)

# sigmoid's and tanh's adjoint ops (composite bodies: several arith ops in one
# generic), sigmoid_grad broadcasting its dy
MINDIR_ACTIVATION_GRADS = """
func.func @f(%x: tensor<2x3xf32>, %dy: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %s = mindir.sigmoid %x : tensor<2x3xf32>
  %sg = mindir.sigmoid_grad %s, %dy : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %t = mindir.tanh %x : tensor<2x3xf32>
  %tg = mindir.tanh_grad %t, %x : tensor<2x3xf32>
  func.return %sg, %tg : tensor<2x3xf32>, tensor<2x3xf32>
}
"""
LOWERED_CASES["mindir_activation_grads"] = (MINDIR_ACTIVATION_GRADS, "f", [f32(2, 3) * 3, f32(3)])


@pytest.mark.parametrize("case", sorted(LOWERED_CASES))
def test_lowered_mindir_matches_iree(case, tmp_path):
    """mindir lowered by the default pipeline runs the same on our executor and on IREE."""
    from mindjit.passes.pipelines import lower_to_tensor

    text, entry, inputs = LOWERED_CASES[case]
    module = lower_to_tensor(parse_module(text))
    ours = CpuExecutable(module).run(entry, *inputs)
    theirs = run_iree(str(module), inputs, len(ours), tmp_path, entry)
    for got, want in zip(ours, theirs, strict=True):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-5)


def test_uniform_real_is_bit_exact_on_iree(tmp_path):
    """The counter-based generator gives the same bits on both engines (and a
    negative key / the largest offset exercise the unsigned wrap-around)."""
    from mindjit.passes.pipelines import lower_to_tensor

    text, entry, inputs = LOWERED_CASES["mindir_uniform_real"]
    module = lower_to_tensor(parse_module(text))
    ours = CpuExecutable(module).run(entry, *inputs)
    theirs = run_iree(str(module), inputs, len(ours), tmp_path, entry)
    for got, want in zip(ours, theirs, strict=True):
        np.testing.assert_array_equal(got, want)
    assert 0.0 <= ours[0].min() and ours[0].max() < 1.0 and len(np.unique(ours[0])) == 105
