"""How much the CPU executor adds on top of numpy.

An N-block MLP (per block `tanh(x @ W_i + b_i)`, hidden 256, batch 32, f32,
distinct weights) is built as mindir in memory, lowered with the default
pipeline and run by the CPU executor; the same computation runs in plain
numpy in the same process. Prints seconds per call (median over interleaved
rounds) and the ratio executor / numpy (median of the per-round ratios).
Target: ratio <= 1.15 at N = 16.

    .venv/bin/python benchmarks/executor_overhead.py [--blocks 4 16 64] [--rounds 41]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from xdsl.builder import Builder
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType, f32
from xdsl.ir import Block, Region
from xdsl.rewriter import InsertPoint

from mindjit.backend.cpu import CpuExecutable
from mindjit.dialects import mindir as M
from mindjit.passes.pipelines import lower_to_tensor

HIDDEN, BATCH = 256, 32


def build_mlp(blocks: int) -> ModuleOp:
    """`f(x, W_0, b_0, ..., W_{N-1}, b_{N-1})` as mindir ops, built with the builders."""
    x_type = TensorType(f32, [BATCH, HIDDEN])
    arg_types = [x_type]
    for _ in range(blocks):
        arg_types += [TensorType(f32, [HIDDEN, HIDDEN]), TensorType(f32, [HIDDEN])]
    block = Block(arg_types=arg_types)
    b = Builder(InsertPoint.at_end(block))
    x = block.args[0]
    for i in range(blocks):
        w, bias = block.args[1 + 2 * i], block.args[2 + 2 * i]
        y = b.insert(M.MatMulOp.get(x, w)).result
        y = b.insert(M.AddOp.get(y, bias)).result
        x = b.insert(M.TanhOp.get(y)).result
    b.insert(func.ReturnOp(x))
    fn = func.FuncOp("mlp", (arg_types, [x_type]), Region(block))
    return ModuleOp([fn])


def numpy_mlp(x: np.ndarray, *params: np.ndarray) -> np.ndarray:
    for i in range(0, len(params), 2):
        x = np.tanh(x @ params[i] + params[i + 1])
    return x


def time_per_call(fn, args, calls: int) -> float:
    start = time.perf_counter()
    for _ in range(calls):
        fn(*args)
    return (time.perf_counter() - start) / calls


def measure(blocks: int, rounds: int) -> tuple[float, float, float]:
    rng = np.random.default_rng(blocks)
    inputs = [rng.standard_normal((BATCH, HIDDEN)).astype(np.float32)]
    for _ in range(blocks):
        inputs.append((rng.standard_normal((HIDDEN, HIDDEN)) / np.sqrt(HIDDEN)).astype(np.float32))
        inputs.append(rng.standard_normal(HIDDEN).astype(np.float32))
    module = lower_to_tensor(build_mlp(blocks))
    exe = CpuExecutable(module)

    def run_executor(*args):
        return exe.run("mlp", *args)

    (result,) = run_executor(*inputs)  # warm-up, builds the plan
    expected = numpy_mlp(*inputs)
    if not np.allclose(result, expected, rtol=1e-4, atol=1e-5):
        raise SystemExit(f"N={blocks}: executor result differs from numpy")
    numpy_mlp(*inputs)
    calls = max(3, 800 // blocks)
    exe_times, np_times = [], []
    for _ in range(rounds):  # interleaved, so drift hits both sides alike
        exe_times.append(time_per_call(run_executor, inputs, calls))
        np_times.append(time_per_call(numpy_mlp, inputs, calls))
    # The ratio is the median of the paired per-round ratios: each pair ran back to
    # back, so load from other processes cancels out better than in a ratio of medians.
    ratio = statistics.median(e / n for e, n in zip(exe_times, np_times, strict=True))
    return statistics.median(exe_times), statistics.median(np_times), ratio


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, nargs="+", default=[4, 16, 64])
    parser.add_argument("--rounds", type=int, default=41)
    args = parser.parse_args()
    print(f"N-block MLP tanh(x @ W + b), batch {BATCH}, hidden {HIDDEN}, f32")
    print(f"| {'N':>3} | {'executor s/call':>15} | {'numpy s/call':>12} | {'ratio':>6} |")
    print(f"|{'-' * 5}|{'-' * 17}|{'-' * 14}|{'-' * 8}|")
    for n in args.blocks:
        exe_t, np_t, ratio = measure(n, args.rounds)
        print(f"| {n:>3} | {exe_t:>15.6f} | {np_t:>12.6f} | {ratio:>6.3f} |")
    print("target: ratio <= 1.15 at N = 16")


if __name__ == "__main__":
    main()
