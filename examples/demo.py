"""The README demo: a Python network compiled in graph mode, with its report.

    make run        # or: .venv/bin/python examples/demo.py

A small classifier (Dense -> ReLU -> Dense, a tensor `if` and a `while`) is
written the way MindSpore users write it, compiled by mindjit's frontend into
mindir, run through the jit_level pipeline, lowered and executed on the CPU.
The report shows the op count after each stage, the compile and run times, and
checks the outputs against PyNative mode.
"""

from __future__ import annotations

import sys
import time

import numpy as np

import mindjit as ms
from mindjit import Parameter, Tensor, nn, ops
from mindjit.dialects.diagnostics import MindjitError
from mindjit.frontend.graph.api import compile_cell


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


def main() -> int:
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

    print("graph mode outputs:")
    print("  probs[0] =", np.array2string(probs.asnumpy()[0], precision=4))
    print("  score    =", score)
    print("\nops after each stage (compile time per stage):")
    for name, ops_count, seconds in program.report.stages:
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
    return 0 if same else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except MindjitError as err:
        print(err, file=sys.stderr)
        sys.exit(1)
