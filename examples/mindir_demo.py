"""A mindir program from a file (examples/mlp.mlir): parse it, lower it, run it on
the CPU, report. (`make run` runs examples/demo.py, the Python networks.)

    .venv/bin/python examples/mindir_demo.py
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

from mindjit.backend.cpu import CpuExecutable
from mindjit.dialects.parsing import parse_file
from mindjit.passes.pipelines import LOWER_TO_TENSOR, lower_to_tensor
from mindjit.support.errors import MindjitError

HERE = Path(__file__).resolve().parent


def op_counts(module) -> Counter:
    return Counter(op.name.split(".")[0] for op in module.walk() if op.name != "builtin.module")


def numpy_reference(x, w1, b1, w2, b2):
    logits = np.maximum(x @ w1 + b1, 0) @ w2 + b2
    z = logits - logits.max(axis=1, keepdims=True)
    return logits, np.log(np.exp(z).sum(axis=1, keepdims=True)).mean()


def main() -> int:
    path = HERE / "mlp.mlir"
    module = parse_file(str(path))
    print(f"parsed {path.name}: {dict(op_counts(module))}")

    start = time.perf_counter()
    lower_to_tensor(module)
    print(
        f"lowered with '{LOWER_TO_TENSOR}' in {time.perf_counter() - start:.3f} s: {dict(op_counts(module))}"
    )

    rng = np.random.default_rng(0)
    inputs = [
        rng.standard_normal(shape).astype(np.float32)
        for shape in [(4, 8), (8, 16), (16,), (16, 3), (3,)]
    ]
    exe = CpuExecutable(module)
    logits, score = exe.run("Net_construct", *inputs)
    print("logits =", np.array2string(logits, precision=4))
    print("score  =", score)

    ref_logits, ref_score = numpy_reference(*inputs)
    ok = np.allclose(logits, ref_logits, rtol=1e-5, atol=1e-5) and np.allclose(
        score, ref_score, rtol=1e-5
    )
    runs = 1000
    start = time.perf_counter()
    for _ in range(runs):
        exe.run("Net_construct", *inputs)
    per_call = (time.perf_counter() - start) / runs
    print(f"matches numpy: {ok}; {per_call * 1e6:.1f} us per call over {runs} runs")
    return 0 if ok else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except MindjitError as err:
        print(err, file=sys.stderr)
        sys.exit(1)
