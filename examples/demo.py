"""The README demo: Python networks compiled in graph mode, with their reports.

    make run        # or: .venv/bin/python examples/demo.py [--timeline PATH]

1. A small classifier (Dense -> ReLU -> Dense, a tensor `if` and a `while`) is
   written the way MindSpore users write it, compiled by mindjit's frontend
   into mindir, run through the jit_level pipeline, lowered and executed on the
   CPU. The report shows the op count after each stage, the compile and run
   times, and checks the outputs against PyNative mode.
2. The same classifier on the simulated Ascend-like device: its report
   (simulated time per stream and kernel, peak memory against the lower bound,
   float status) and its timeline picture, written to `--timeline` (default
   `mindjit_demo_timeline.svg` in the working directory).
3. A GPT-like model of 16 transformer Blocks (examples/gpt.py) is compiled with
   and without `@ms.lazy_inline` on the Block: graph nodes (MindSpore's count)
   and compile times side by side, and the outputs compared.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

import mindjit as ms
from mindjit import Parameter, Tensor, nn, ops
from mindjit.frontend.graph.api import compile_cell
from mindjit.support.errors import MindjitError


class Classifier(nn.Cell):
    def __init__(self):
        super().__init__()
        rng = np.random.default_rng(1)
        w1 = Tensor(rng.normal(0, 0.5, (32, 16)).astype(np.float32))
        w2 = Tensor(rng.normal(0, 0.5, (4, 32)).astype(np.float32))
        self.body = nn.SequentialCell(
            [nn.Dense(16, 32, weight_init=w1), nn.ReLU(), nn.Dense(32, 4, weight_init=w2)]
        )
        self.temperature = Parameter(Tensor(np.array(2.0, np.float32)), name="temperature")

    def construct(self, x):
        logits = self.body(x) / self.temperature
        if logits.max() > 10.0:  # a tensor if: mindir.if
            logits = logits - logits.max()
        scale = ops.ones((), ms.float32)
        while scale < 8.0:  # a tensor while: mindir.while
            scale = scale * 2.0
        probs = ops.exp(logits - ops.amax(logits, 1, True))
        probs = probs / ops.sum(probs, 1, True)
        return probs, ops.mean(logits * scale)


def lazy_inline_report(layers: int = 16, hidden: int = 128, seq: int = 32) -> bool:
    """Compile the GPT-like model with and without @lazy_inline; print the comparison."""
    from gpt import GPT, GPTConfig

    from mindjit.frontend.nn.init import set_seed

    x = Tensor(np.random.default_rng(0).standard_normal((1, seq, hidden)).astype(np.float32))
    ms.set_context(mode=ms.GRAPH_MODE)
    rows, outputs = [], []
    for lazy in (False, True):
        set_seed(0)  # the same weights for both models
        net = GPT(GPTConfig(layers, hidden=hidden, seq=seq), lazy)
        report = compile_cell(net, (x,)).report
        outputs.append(net(x).asnumpy())
        lowered = next(s.ops for s in report.stages if s.name == "verify-tensor")
        rows.append(
            (
                lazy,
                report.stages[0].nodes,
                report.mindir_peak_nodes,
                lowered,
                report.compile_seconds,
            )
        )
    print(f"\nGPT-like model, {layers} Blocks (hidden {hidden}), with and without @lazy_inline:")
    print(
        f"  {'':<16}{'frontend nodes':>16}{'max mindir nodes':>18}{'lowered ops':>13}{'compile':>11}"
    )
    for lazy, frontend, graphs, lowered, compile_s in rows:
        name = "@lazy_inline" if lazy else "inlined"
        print(f"  {name:<16}{frontend:>16}{graphs:>18}{lowered:>13}{compile_s * 1e3:>8.0f} ms")
    (_, _, plain_nodes, _, plain_s), (_, _, lazy_nodes, _, lazy_s) = rows
    same = np.array_equal(outputs[0], outputs[1])
    print(
        f"  {plain_nodes / lazy_nodes:.1f}x fewer nodes, {plain_s / lazy_s:.1f}x faster compile; "
        f"outputs equal: {same}"
    )
    return same


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="mindjit's demo")
    parser.add_argument(
        "--timeline",
        default="mindjit_demo_timeline.svg",
        metavar="PATH",
        help="where the device timeline picture goes (default: in the working directory)",
    )
    args = parser.parse_args(argv)
    rng = np.random.default_rng(0)
    x = Tensor(rng.standard_normal((8, 16)).astype(np.float32))
    net = Classifier()

    ms.set_context(mode=ms.PYNATIVE_MODE)
    eager_probs, eager_score = net(x)

    ms.set_context(mode=ms.GRAPH_MODE)
    start = time.perf_counter()
    program = compile_cell(net, (x,))  # what net.compile(x) does, keeping the report
    compile_seconds = time.perf_counter() - start
    probs, score = net(x)

    print(
        "the network: Classifier, a batch of 8 inputs of 16 features -> Dense(16, 32) -> ReLU\n"
        "  -> Dense(32, 4) -> / temperature (a Parameter); a tensor `if` keeps the logits\n"
        "  below 10, a tensor `while` doubles a scale to 8; outputs: each input's softmax\n"
        "  probabilities over 4 classes, and a score (the mean of the scaled logits)"
    )
    print("\ngraph mode outputs:")
    print("  probs[0] =", np.array2string(probs.asnumpy()[0], precision=4), "(input 0's classes)")
    print("  score    =", score)
    print("\nops after each stage (compile time per stage):")
    for name, ops_count, seconds, _ in program.report.stages:
        print(f"  {name:<26} {ops_count:>5} ops  {seconds * 1e3:8.1f} ms")
    runs = 200
    start = time.perf_counter()
    for _ in range(runs):
        net(x)
    run_seconds = (time.perf_counter() - start) / runs
    print(f"\ncompile: {compile_seconds * 1e3:.1f} ms; run: {run_seconds * 1e6:.1f} us per call")
    same = np.array_equal(probs.asnumpy(), eager_probs.asnumpy()) and np.array_equal(
        score.asnumpy(), eager_score.asnumpy()
    )
    print(f"graph mode == PyNative mode (bit for bit): {same}")
    same_iree = iree_report(x, probs.asnumpy(), run_seconds)
    same_device = device_report(net, x, probs.asnumpy(), args.timeline)
    same_lazy = lazy_inline_report()
    return 0 if same and same_lazy and same_device and same_iree else 1


def iree_report(x: Tensor, cpu_probs: np.ndarray, numpy_seconds: float) -> bool:
    """The same classifier compiled by IREE (`jit_config={"backend": "iree"}`)."""
    net = Classifier()  # the same weights (fixed seed), its own graph and Parameters
    ms.set_context(mode=ms.GRAPH_MODE, jit_config={"backend": "iree"})
    try:
        start = time.perf_counter()
        program = compile_cell(net, (x,))
        compile_seconds = time.perf_counter() - start
        probs, _ = net(x)
        backend = program.executable.backend
        runs = 200
        start = time.perf_counter()
        for _ in range(runs):
            net(x)
        run_seconds = (time.perf_counter() - start) / runs
    finally:
        ms.set_context(jit_config={})
    print(f"\ncompiled by IREE (set_context(jit_config={{'backend': 'iree'}})): ran on {backend}")
    print(
        f"  compile: {compile_seconds * 1e3:.1f} ms; run: {run_seconds * 1e6:.1f} us per call "
        f"(numpy executor: {numpy_seconds * 1e6:.1f} us)"
    )
    same = np.allclose(probs.asnumpy(), cpu_probs, rtol=1e-5, atol=1e-6)
    print(f"  IREE == numpy executor (rtol 1e-5): {same}")
    return bool(same)


def device_report(net: nn.Cell, x: Tensor, cpu_probs: np.ndarray, path: str) -> bool:
    """Run the classifier on the simulated Ascend-like device; print its report."""
    from mindjit.backend.ascend.report import format_report
    from mindjit.backend.ascend.timeline import write_timeline

    ms.set_context(mode=ms.GRAPH_MODE, device_target="Ascend")
    try:
        program = compile_cell(net, (x,))
        probs, _ = net(x)
    finally:
        ms.set_context(device_target="CPU")
    report = program.executable.report
    print("\non the simulated Ascend-like device (set_context(device_target='Ascend')):")
    print("  " + format_report(report).replace("\n", "\n  "))
    kernels = len(report["kernels"])
    summed = sum(k["duration_us"] for k in report["kernels"])
    launch = program.executable.simulator.config.launch_us
    print(
        f"  the simulated time ({report['total_time_us']:.0f} us) is far above the kernels' "
        f"own {summed:.0f} us: the host issues each of the {kernels} kernels {launch:g} us "
        "apart (launch_us, backend/ascend/DEVICE.md), so a network this small is "
        "launch-bound; stream 1 starts when stream 0's ReduceMax and Compare have "
        "recorded the events it waits for (the dashed lines of the picture)"
    )
    write_timeline(report, path, title="demo classifier on the simulated device")
    print(f"  timeline picture: {os.path.abspath(path)} (--timeline PATH to move it)")
    same = np.allclose(probs.asnumpy(), cpu_probs, rtol=1e-6, atol=1e-7)
    print(f"  device == CPU executor: {same}")
    return bool(same)


if __name__ == "__main__":
    try:
        sys.exit(main())
    except MindjitError as err:
        print(err, file=sys.stderr)
        sys.exit(1)
