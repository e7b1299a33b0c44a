"""Matmul kernels per shape class: numpy (OpenBLAS) against oneMKL through
backend/cpu/gemm.py, GFLOP/s at 1 and 2 threads, and what the planner picks.

Shape classes: GPT's (examples/gpt.py, hidden 256, 256 tokens: projections,
MLP, attention scores q k^T, the backward's transposed products), LeNet5's and
ResNet-like convolutions as gemms (batch 32 / 8), small matmuls, batched
(per-head attention). Each thread count runs in a fresh process
(`MKL_NUM_THREADS`/`OMP_NUM_THREADS` are read when the libraries load); in it,
numpy and oneMKL alternate on the same operands (median of `--repeats`
timings of `--calls` calls each), and "picks" is gemm.choice in auto mode (its
timed trial). A last column checks oneMKL's result against numpy's (max
relative error) and that operands at other alignments give the same bits.

    .venv/bin/python benchmarks/gemm_kernels.py [--threads 1,2] [--repeats 15]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time

import numpy as np

from mindjit.backend.cpu import gemm
from mindjit.support import config

# (name, batch or 0, M, N, K, a transposed, b transposed)
SHAPES = [
    ("GPT q/k/v/o x W^T", 0, 256, 256, 256, False, True),
    ("GPT fc1 x W^T", 0, 256, 1024, 256, False, True),
    ("GPT fc2 x W^T", 0, 256, 256, 1024, False, True),
    ("GPT scores q k^T", 0, 256, 256, 256, False, True),
    ("GPT attn p v", 0, 256, 256, 256, False, False),
    ("GPT bwd dW = dy^T x", 0, 1024, 256, 256, True, False),
    ("GPT bwd dW2 = dy^T h", 0, 256, 1024, 256, True, False),
    ("GPT bwd dx = dy W", 0, 256, 256, 1024, False, False),
    ("LeNet conv1 W cols", 0, 6, 25088, 25, False, False),
    ("LeNet conv2 W cols", 0, 16, 3200, 150, False, False),
    ("LeNet conv2 dW", 0, 16, 150, 3200, False, True),
    ("LeNet fc1", 0, 32, 120, 400, False, True),
    ("ResNet 3x3x64 @32x32", 0, 64, 8192, 576, False, False),
    ("ResNet 3x3x512 @4x4", 0, 512, 128, 4608, False, False),
    ("small 64^3", 0, 64, 64, 64, False, False),
    ("heads 32 x 32^3", 32, 32, 32, 32, False, True),
    ("heads 8 x (32,64,32)", 8, 32, 32, 64, False, True),
]


def operand(rng, batch, rows, cols, trans):
    shape = (cols, rows) if trans else (rows, cols)
    x = rng.standard_normal(((batch,) if batch else ()) + shape).astype(np.float32)
    return np.swapaxes(x, -1, -2) if trans else x


def misaligned(x: np.ndarray, offset: int) -> np.ndarray:
    """`x` with the same layout (a transposed view stays one) at `offset` floats
    past a fresh buffer's start."""
    base = np.swapaxes(x, -1, -2) if not x.flags.c_contiguous else x
    flat = np.empty(base.size + 8, np.float32)[offset : offset + base.size].reshape(base.shape)
    flat[...] = base
    return flat if base is x else np.swapaxes(flat, -1, -2)


def same_bits_misaligned(mkl, a, b) -> bool:
    """oneMKL's product of `a`, `b` equals, bit for bit, that of copies at other offsets."""
    plan = gemm._plan(a, b)
    ref = gemm._run(mkl, plan, a, b, np.empty(plan[-1], np.float32))
    for offset in (1, 3):
        ca, cb = misaligned(a, offset), misaligned(b, offset)
        moved = gemm._plan(ca, cb)
        assert gemm._key(moved) == gemm._key(plan)
        if not np.array_equal(gemm._run(mkl, moved, ca, cb, np.empty_like(ref)), ref):
            return False
    return True


def worker(repeats: int) -> list[dict]:
    mkl = gemm.library()
    if mkl is None:
        print("oneMKL is not installed: pip install 'mindjit[fast]'", file=sys.stderr)
        return []
    rng = np.random.default_rng(0)
    rows = []
    for name, batch, m, n, k, ta, tb in SHAPES:
        a, b = operand(rng, batch, m, k, ta), operand(rng, batch, k, n, tb)
        plan = gemm._plan(a, b)
        flops = 2.0 * max(batch, 1) * m * n * k
        calls = max(1, int(2e7 / flops))
        out = np.empty(plan[-1], np.float32)
        times = {"numpy": [], "mkl": []}
        for _ in range(repeats):
            for lib in ("numpy", "mkl"):
                start = time.perf_counter()
                for _ in range(calls):
                    if lib == "mkl":
                        gemm._run(mkl, plan, a, b, out)
                    else:
                        np.matmul(a, b, out=out)
                times[lib].append((time.perf_counter() - start) / calls)
        ref = np.matmul(a, b)
        got = gemm._run(mkl, plan, a, b, np.empty(plan[-1], np.float32))
        err = float(np.abs(got - ref).max() / np.abs(ref).max())
        gemm._choices.clear()
        picks = "mkl" if gemm.choice(plan) else "numpy"
        bits = same_bits_misaligned(mkl, a, b)
        rows.append(
            {
                "name": name,
                "shape": f"{batch}x" * bool(batch) + f"{m}x{n}x{k}" + "ᵀa" * ta + "ᵀb" * tb,
                "numpy": flops / statistics.median(times["numpy"]) / 1e9,
                "mkl": flops / statistics.median(times["mkl"]) / 1e9,
                "us_numpy": statistics.median(times["numpy"]) * 1e6,
                "us_mkl": statistics.median(times["mkl"]) * 1e6,
                "picks": picks,
                "err": err,
                "bits": bits,
            }
        )
    return rows


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--threads", default="1,2")
    p.add_argument("--repeats", type=int, default=15)
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.worker:
        print(json.dumps(worker(args.repeats)))
        return
    results = {}
    for t in (int(x) for x in args.threads.split(",")):
        env = config.child_environment(
            OMP_NUM_THREADS=str(t), MKL_NUM_THREADS=str(t), MINDJIT_GEMM="auto"
        )
        cmd = [sys.executable, __file__, "--worker", "--repeats", str(args.repeats)]
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
        results[t] = json.loads(done.stdout)
        if not results[t]:
            print(done.stderr.strip())
            return
    print(f"oneMKL: {gemm.library().version if gemm.library() else '-'}; numpy {np.__version__}")
    head = "| shape class | shape | " + " | ".join(
        f"{t}T numpy GF/s | {t}T MKL GF/s | {t}T picks" for t in results
    )
    print(head + " | MKL rel. err | same bits misaligned |")
    print("|---" * (2 + 3 * len(results) + 2) + "|")
    first = next(iter(results.values()))
    for i, row in enumerate(first):
        cells = []
        for rows in results.values():
            r = rows[i]
            cells.append(f"{r['numpy']:.1f} | {r['mkl']:.1f} | {r['picks']}")
        same = "yes" if all(rows[i]["bits"] for rows in results.values()) else "NO"
        print(
            f"| {row['name']} | {row['shape']} | "
            + " | ".join(cells)
            + f" | {row['err']:.1e} | {same} |"
        )


if __name__ == "__main__":
    main()
