"""The compile-time techniques of MindSpore's docs ("Using select Operator", ...),
measured on the docs' own programs.

Each case runs in a fresh process: it compiles its program in graph mode with
the default pipeline (O1) and runs it. Per case, the medians over --repeats
processes of:
- compile seconds: frontend + mindir passes + lowering + executor plan (the
  program's stage report);
- first call seconds: compile plus the first run, what the docs time;
- run milliseconds per call after the first (median over --runs calls);
and the output, which must equal that of the case it is compared with.

Comparisons (the issue's targets):
- HyperMap: the docs' `hyper_map_net` (HyperMap over two lists of 200 tensors)
  vs `for_loop_net`, the same 200 additions in a for loop: HyperMap compiles at
  least 6.7x faster;
- select: `select_net` vs `if_net` with every `if` kept (MINDJIT_CF_TO_SELECT=0):
  select compiles at least 2.4x faster; with `mindir-cf-to-select` on (the
  default), `if_net` compiles within 1.3x of `select_net`;
- vmap: the docs' `manually_batched` hswish loop over a (100, 2) input vs
  `vmap(hswish_func)` (both compiled): compile + first run at least 30x faster.

    .venv/bin/python benchmarks/compile_techniques.py [--repeats 5] [--runs 20]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import mindjit as ms

# --- the docs' programs (examples/docs_programs.py) ------------------------------------

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))
from docs_programs import (  # noqa: E402
    for_loop_net,
    hyper_map_net,
    if_net,
    manually_batched,
    select_net,
    vmap_batched,
)


def _no_inputs() -> tuple:
    return ()


def _select_inputs() -> tuple:
    return (ms.Tensor([0]), ms.Tensor([1]))


def _vmap_inputs() -> tuple:
    from mindjit import ops

    rng = np.random.default_rng(0)
    return (ops.sub(ms.Tensor((rng.standard_normal((100, 2)) * 100).astype(np.float32)), 0),)


@dataclass(frozen=True)
class Case:
    fn: object
    inputs: object
    env: tuple[tuple[str, str], ...] = ()
    #: the case whose output this one must equal
    reference: str | None = None


CASES: dict[str, Case] = {
    "for_loop_net (200 adds)": Case(for_loop_net, _no_inputs),
    "hyper_map_net": Case(hyper_map_net, _no_inputs, (), "for_loop_net (200 adds)"),
    "select_net": Case(select_net, _select_inputs),
    "if_net (ifs kept)": Case(
        if_net, _select_inputs, (("MINDJIT_CF_TO_SELECT", "0"),), "select_net"
    ),
    "if_net (cf-to-select)": Case(if_net, _select_inputs, (), "select_net"),
    "manually_batched (hswish loop)": Case(manually_batched, _vmap_inputs),
    "vmap(hswish_func)": Case(vmap_batched, _vmap_inputs, (), "manually_batched (hswish loop)"),
}

#: (what, numerator case, denominator case, measure, target, "min" or "max")
RATIOS = [
    (
        "for loop / HyperMap compile",
        "for_loop_net (200 adds)",
        "hyper_map_net",
        "compile_s",
        6.7,
        "min",
    ),
    ("if kept / select compile", "if_net (ifs kept)", "select_net", "compile_s", 2.4, "min"),
    (
        "if cf-to-select / select compile",
        "if_net (cf-to-select)",
        "select_net",
        "compile_s",
        1.3,
        "max",
    ),
    (
        "loop / vmap compile + first run",
        "manually_batched (hswish loop)",
        "vmap(hswish_func)",
        "first_call_s",
        30,
        "min",
    ),
]


# --- one case, in this process ------------------------------------------------------------


def run_one(name: str, runs: int) -> dict:
    from mindjit.frontend.graph import api

    case = CASES[name]
    ms.set_context(mode=ms.GRAPH_MODE)
    args = case.inputs()  # type: ignore[operator]
    fn = ms.jit(case.fn)
    start = time.perf_counter()
    out = fn(*args)
    first = time.perf_counter() - start
    (program,) = api.cached_programs()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - start)
    return {
        "compile_s": program.report.compile_seconds,
        "first_call_s": first,
        "run_ms": statistics.median(times) * 1e3,
        "output": _plain(out),
    }


def _plain(out: object) -> object:
    """The output as JSON-able lists (tensors, and tuples or lists of them)."""
    if isinstance(out, tuple | list):
        return [_plain(o) for o in out]
    return np.asarray(out.asnumpy()).tolist()  # type: ignore[attr-defined]


def _in_fresh_process(name: str, runs: int) -> dict:
    env = {**os.environ, **dict(CASES[name].env)}
    done = subprocess.run(
        [sys.executable, __file__, "--one", name, "--runs", str(runs)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"case '{name}' failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


# --- the table ----------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="fresh processes per case")
    parser.add_argument("--runs", type=int, default=20, help="timed calls per process")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(run_one(args.one, args.runs)))
        return
    results: dict[str, list[dict]] = {name: [] for name in CASES}
    for _ in range(args.repeats):  # rounds over the cases: drift hits them alike
        for name in CASES:
            results[name].append(_in_fresh_process(name, args.runs))
    med = {
        name: {
            k: statistics.median(r[k] for r in rs) for k in ("compile_s", "first_call_s", "run_ms")
        }
        for name, rs in results.items()
    }
    print(f"Medians over {args.repeats} fresh processes (run: {args.runs} calls each)\n")
    print("| case | compile s | first call s | run ms/call | output equal |")
    print("|---|---|---|---|---|")
    for name, case in CASES.items():
        equal = ""
        if case.reference is not None:
            outs = {json.dumps(r["output"]) for r in results[name]}
            refs = {json.dumps(r["output"]) for r in results[case.reference]}
            equal = "yes" if outs == refs else "NO"
        m = med[name]
        print(
            f"| {name} | {m['compile_s']:.3f} | {m['first_call_s']:.3f} | "
            f"{m['run_ms']:.2f} | {equal} |"
        )
    print("\n| ratio | value | target | met |")
    print("|---|---|---|---|")
    for what, num, den, measure, target, kind in RATIOS:
        value = med[num][measure] / med[den][measure]
        met = value >= target if kind == "min" else value <= target
        sign = ">=" if kind == "min" else "<="
        print(f"| {what} | {value:.2f} | {sign} {target} | {'yes' if met else 'no'} |")


if __name__ == "__main__":
    main()
