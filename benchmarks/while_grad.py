"""A while-over-time LSTM's train step against the unrolled one: compile time, losses, memory.

Issue 40's target: an LSTM over a sequence of 50 steps, trained with
`nn.TrainOneStepCell` + Momentum, compiles at least 5x faster written as
`while t < seq_len` (one `mindir.while`, differentiated by `mindir-grad` with a
record of each step) than written as `for t in range(50)` (50 copies of the cell
and of its adjoint), and trains to the same losses. The models are
examples/lstm_while.py's.

Each kind runs in a fresh process (graph mode, CPU executor): compile seconds are
the first call's wall clock less the second call's (which only runs), as in
benchmarks/compile_scale.py, beside the stage report's sum; then the losses of the
steps, and the process's peak RSS (`ru_maxrss`). PyNative's losses on the same seed
are the reference both must equal (to 1e-5, relative). Last, the while step on the
simulated device: the device report's `loop_record_bytes` (the records' peak, capacity
x item bytes) against what the saved values need: (trip count + 1) x the items'
bytes, since the loop's condition runs once more than its body and each run
records the carried values (passes/mindir_grad/while_loop.py). The target: within
10% (the record grows by a sixteenth, passes/mindir_to_tensor/stack.py).

    .venv/bin/python benchmarks/while_grad.py [--seq 50] [--steps 3]
    .venv/bin/python benchmarks/while_grad.py --quick      # seq 6, hidden 8: a smoke run

Exit status 1 when a kind fails to compile, when the losses differ, or when the
compile ratio misses 5x (a timing target: a loaded machine may miss it).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples"))

TARGET_RATIO = 5.0
#: the device's loop records against the values they save (issue 40: within 10%)
TARGET_RECORD_SHARE = 1.10
LOSS_RTOL = 1e-5


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def worker(kind: str, seq: int, steps: int, hidden: int) -> dict:
    """One kind's train step: compile, then `steps` steps (the compile call is the first)."""
    import lstm_while

    import mindjit as ms
    from mindjit.frontend.graph import api

    pynative = kind == "pynative"
    ms.set_context(mode=ms.PYNATIVE_MODE if pynative else ms.GRAPH_MODE)
    if kind == "device":
        ms.set_context(device_target="Ascend")
    step = lstm_while.build(seq, unrolled=kind == "unrolled", hidden=hidden)
    inputs = lstm_while.batch(seq)
    if pynative:
        return {"losses": lstm_while.train(step, inputs, steps), "rss_mb": _rss_mb()}
    before = _rss_mb()
    start = time.perf_counter()
    first = float(step(*inputs).asnumpy())
    first_s = time.perf_counter() - start
    start = time.perf_counter()
    second = float(step(*inputs).asnumpy())
    run_s = time.perf_counter() - start
    losses = [first, second, *lstm_while.train(step, inputs, steps - 2)][:steps]
    program = api.cached_programs()[-1]
    report = program.report
    if kind == "device":
        device = program.executable.report
        return {
            "losses": losses,
            "record_bytes": device["loop_record_bytes"],
            "saved_bytes": (seq + 1) * sum(record_items(program.compiled.module)),
            "peak_bytes": device["peak_memory_bytes"],
        }
    return {
        "compile_s": first_s - run_s,
        "stages_s": report.compile_seconds,
        "nodes": report.mindir_peak_nodes,
        "run_ms": run_s * 1e3,
        "losses": losses,
        "rss_mb": _rss_mb(),
        "rss_before_mb": before,
    }


def record_items(module) -> list[int]:
    """The bytes of one item of each loop record a forward `scf.while` carries (a
    `tensor<?x...>` result: the lowered `mindir.stack_*`)."""
    items = []
    for op in module.walk():
        if op.name != "scf.while":
            continue
        for result in op.results:
            t = result.type
            if "?" not in str(t):
                continue
            element = t.get_element_type()
            bits = getattr(element, "bitwidth", None) or element.width.data
            items.append(int(np.prod(t.get_shape()[1:], dtype=np.int64)) * bits // 8)
    return items


def fresh(kind: str, seq: int, steps: int, hidden: int) -> dict:
    """worker() in a new process; {"error": first line} when it fails."""
    cmd = [sys.executable, __file__, "--worker", kind, "--seq", str(seq), "--steps", str(steps)]
    cmd += ["--hidden", str(hidden)]
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, env=dict(os.environ))
    if done.returncode != 0:
        lines = [line for line in done.stderr.strip().splitlines() if "error" in line.lower()]
        return {"error": (lines or done.stderr.strip().splitlines() or ["failed"])[-1][:200]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def same_losses(a: list[float], b: list[float]) -> bool:
    return len(a) == len(b) and bool(np.allclose(a, b, rtol=LOSS_RTOL, atol=1e-7))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seq", type=int, default=50)
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--hidden", type=int, default=32)
    ap.add_argument("--quick", action="store_true", help="seq 6, hidden 8")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.steps < 2:
        ap.error("--steps must be at least 2 (the second call times the run)")
    if args.worker:
        print(json.dumps(worker(args.worker, args.seq, args.steps, args.hidden)))
        return 0
    if args.quick:
        args.seq, args.hidden = 6, 8

    rows = {k: fresh(k, args.seq, args.steps, args.hidden) for k in ("unrolled", "while")}
    reference = fresh("pynative", args.seq, args.steps, args.hidden)
    device = fresh("device", args.seq, args.steps, args.hidden)
    print(f"LSTM over {args.seq} steps (hidden {args.hidden}, batch 16), {args.steps} train steps")
    print()
    print("| train step | compile s | stages s | mindir nodes | run ms | peak RSS MB | losses |")
    print("|---|---|---|---|---|---|---|")
    for kind, r in rows.items():
        if "error" in r:
            print(f"| {kind} | - | - | - | - | - | failed: {r['error']} |")
            continue
        losses = ", ".join(f"{v:.6f}" for v in r["losses"])
        print(
            f"| {kind} | {r['compile_s']:.2f} | {r['stages_s']:.2f} | {r['nodes']} | "
            f"{r['run_ms']:.1f} | {r['rss_mb']:.0f} | {losses} |"
        )
    if "error" in reference:
        print(f"| pynative | - | - | - | - | - | failed: {reference['error']} |")
    else:
        losses = ", ".join(f"{v:.6f}" for v in reference["losses"])
        print(f"| pynative | - | - | - | - | {reference['rss_mb']:.0f} | {losses} |")
    print()
    if "error" in device:
        print(f"simulated device, while: failed: {device['error']}")
    else:
        share = device["record_bytes"] / max(device["saved_bytes"], 1)
        print(
            f"simulated device, while: loop records {device['record_bytes']} bytes at peak "
            f"(report's loop_record_bytes), the saved values need {device['saved_bytes']} "
            f"({share:.2f}x); peak device memory {device['peak_bytes']} bytes; losses "
            + ", ".join(f"{v:.6f}" for v in device["losses"])
        )
    print()

    ok = True
    unrolled, looped = rows["unrolled"], rows["while"]
    if "error" in unrolled or "error" in looped:
        print("compile ratio: - (a kind failed)")
        ok = False
    else:
        ratio = unrolled["compile_s"] / max(looped["compile_s"], 1e-9)
        met = ratio >= TARGET_RATIO
        print(
            f"compile ratio unrolled / while: {ratio:.1f}x "
            f"(target >= {TARGET_RATIO:.0f}x: {'met' if met else 'missed'})"
        )
        ok = ok and met
    if "error" not in device:
        share = device["record_bytes"] / max(device["saved_bytes"], 1)
        fits = share <= TARGET_RECORD_SHARE
        print(
            f"loop records / saved values: {share:.3f} (target <= {TARGET_RECORD_SHARE:.2f}: "
            f"{'met' if fits else 'missed'})"
        )
        ok = ok and fits
    for kind, r in (*rows.items(), ("device", device)):
        if "error" in r or "error" in reference:
            continue
        equal = same_losses(r["losses"], reference["losses"])
        print(f"losses {kind} == pynative (rtol {LOSS_RTOL:g}): {'yes' if equal else 'NO'}")
        ok = ok and equal
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
