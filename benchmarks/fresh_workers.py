"""Fresh worker processes for the benchmarks that time rows side by side
(benchmarks/cpu_backends.py, benchmarks/vs_pytorch.py and its torch-only worker
benchmarks/torch_peers.py).

A worker is a script run with some arguments in a fresh process; it prints one JSON
line on stdout (its last line) or fails with its last stderr line saying why, which
becomes the table's "n/a (error: ...)". Outputs travel as .npz files (arr_0, arr_1,
... in order). This module needs only the standard library and numpy: the torch
worker, which must not import mindjit, uses it too.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
import traceback
from collections.abc import Callable

import numpy as np

WORKER_TIMEOUT_S = 600
THREAD_ENV = {"OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "XLA_FLAGS"}


def thread_env(threads: str) -> dict[str, str]:
    """os.environ without the thread limits, then with threads == "1" every BLAS/OpenMP
    pool limited to one thread (any other value: the libraries' defaults)."""
    env = {k: v for k, v in os.environ.items() if k not in THREAD_ENV}
    if threads == "1":
        env.update(OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
        env["XLA_FLAGS"] = "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
    return env


def run_worker(
    script: str, argv: list[str], env: dict[str, str], python: str | None = None
) -> dict:
    """`python script *argv`'s JSON line, or {"error": one line} if it failed."""
    try:
        done = subprocess.run(
            [python or sys.executable, script, *argv],
            env=env,
            capture_output=True,
            text=True,
            timeout=WORKER_TIMEOUT_S,
        )
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {WORKER_TIMEOUT_S} s"}
    except OSError as exc:
        return {"error": f"cannot run {python or sys.executable}: {exc.strerror}"}
    lines = done.stdout.strip().splitlines()
    if done.returncode == 0 and lines:
        return json.loads(lines[-1])
    errors = [line for line in done.stderr.strip().splitlines() if line.strip()]
    return {"error": errors[-1].strip() if errors else f"exit code {done.returncode}"}


def worker_main(run: Callable[[], dict]) -> int:
    """A worker's body: print run()'s JSON line (exit 0), or the traceback then one
    line `Type: message` on stderr (exit 1)."""
    try:
        result = run()
    except Exception as exc:  # noqa: BLE001 - one line for the table, the rest on stderr
        traceback.print_exc()
        print(f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}",
              file=sys.stderr)  # fmt: skip
        return 1
    print(json.dumps(result))
    return 0


def time_steps(
    call: Callable[[], np.ndarray],
    recorded: int,
    warmup: int,
    calls: int,
    settle: Callable[[], None] | None = None,
) -> tuple[list[np.ndarray], dict]:
    """The timing protocol every row shares: the first call (compile and run), then
    `recorded - 1` more calls whose outputs are kept with the first's (a train step's
    losses), `settle()` (waits for work a compile left running in the background,
    e.g. mindjit's LLVM kernels, which the calls meanwhile do not wait for),
    `warmup` calls, then `calls` timed calls: the steady step of a long training
    run. `call` must return host data (so the work is done when it returns).
    Returns the kept outputs and {"first_s", "run_ms" (median), "compile_s" (the
    first call less a steady one: what the caller waited for)}."""
    start = time.perf_counter()
    outputs = [np.asarray(call())]
    first_s = time.perf_counter() - start
    outputs += [np.asarray(call()) for _ in range(recorded - 1)]
    if settle is not None:
        settle()
    for _ in range(warmup):
        call()
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    run_s = statistics.median(times)
    return outputs, {"first_s": first_s, "run_ms": run_s * 1e3, "compile_s": first_s - run_s}


def rel_err(a: list[np.ndarray], b: list[np.ndarray]) -> float:
    """max over the arrays of max |a - b| / max |b| (inf if the shapes differ)."""
    if len(a) != len(b) or any(x.shape != y.shape for x, y in zip(a, b, strict=False)):
        return float("inf")
    worst = 0.0
    for x, y in zip(a, b, strict=True):
        x, y = x.astype(np.float64), y.astype(np.float64)
        scale = max(float(np.max(np.abs(y), initial=0.0)), 1e-30)
        worst = max(worst, float(np.max(np.abs(x - y), initial=0.0)) / scale)
    return worst


def save_npz(path: str, arrays: list[np.ndarray]) -> None:
    np.savez(path, *[np.asarray(a) for a in arrays])


def load_npz(path: str) -> list[np.ndarray]:
    with np.load(path) as data:
        return [data[f"arr_{i}"] for i in range(len(data.files))]
