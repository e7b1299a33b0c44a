"""The fault suite: mindjit under the faults a careless user or a bad day brings
(issue 29): processes sharing one compile cache, `kill -9` of writers at random
moments and right before their rename, odd output paths, a full standard
output, a closed pipe, Ctrl-C at several moments, threads making a Cell's first
calls. Prints a table scenario x outcome and exits 1 if any failed.

    python fuzz/faults.py                 # every scenario, full sizes (~2-3 minutes)
    python fuzz/faults.py --quick         # small sizes (tests/fuzz/test_faults.py)
    python fuzz/faults.py --only kills threads --seed 7

Scenarios live in fault_processes.py (processes, kills, threads) and
fault_edges.py (the tools' edges); the programs they start are in
fault_child.py. Random moments come from `--seed`, so a failure reruns.
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import fault_edges  # noqa: E402
import fault_processes  # noqa: E402
from fault_kit import Ctx, Row  # noqa: E402

SCENARIOS: dict[str, Callable[[Ctx], list[Row]]] = {
    "shared-cache": fault_processes.shared_cache,
    "kills": fault_processes.kills,
    "cache-kill": fault_processes.cache_kill,
    "threads": fault_processes.threads,
    "odd-paths": fault_edges.odd_paths,
    "full-stdout": fault_edges.full_stdout,
    "closed-pipe": fault_edges.closed_pipe,
    "sigint": fault_edges.sigint,
}


def run_scenario(name: str, ctx: Ctx) -> list[Row]:
    """The scenario's rows; one failed row if the scenario itself broke."""
    try:
        return SCENARIOS[name](ctx)
    except Exception as exc:  # noqa: BLE001 - the suite reports, it does not stop
        return [Row(name, "(the scenario)", False, f"{type(exc).__name__}: {exc}")]


def table(rows: list[Row]) -> str:
    wide = max(len(r.scenario) for r in rows)
    case_w = max(len(r.case) for r in rows)
    lines = [f"{'scenario':<{wide}}  {'case':<{case_w}}  outcome", "-" * (wide + case_w + 12)]
    for r in rows:
        outcome = "ok" if r.ok else f"FAILED: {r.reason}"
        lines.append(f"{r.scenario:<{wide}}  {r.case:<{case_w}}  {outcome}")
    failed = sum(not r.ok for r in rows)
    lines.append(f"{len(rows)} cases, {failed} failed")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes (seconds)")
    parser.add_argument("--seed", type=int, default=0, help="the random moments' seed")
    parser.add_argument("--only", nargs="+", choices=sorted(SCENARIOS), help="these scenarios")
    parser.add_argument("--keep", action="store_true", help="keep the scratch directory")
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="mindjit-faults-"))
    rows: list[Row] = []
    try:
        for name in args.only or SCENARIOS:
            ctx = Ctx(random.Random(f"{args.seed}:{name}"), args.quick, work)
            start = time.monotonic()
            got = run_scenario(name, ctx)
            rows += got
            took = time.monotonic() - start
            bad = sum(not r.ok for r in got)
            print(f"{name}: {len(got)} cases, {bad} failed ({took:.1f} s)", file=sys.stderr)
    finally:
        if args.keep:
            print(f"scratch directory: {work}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)
    print(table(rows))
    return 1 if any(not r.ok for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
