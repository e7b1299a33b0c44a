"""Parsing large inputs (issue 29): ms-opt against xdsl-opt and iree-opt on a chain of
N `arith.addf` ops, a round trip (parse, verify, print) in a fresh process.

Each tool's best of --rounds runs, interleaved (ms-opt, xdsl-opt, iree-opt, again)
so a shared machine's load falls on all alike: wall and CPU seconds, ops/s, CPU µs
per op (flat when linear), the child's own peak memory, ops/s against xdsl-opt's
by wall time and by CPU time (the CPU ratio is the steadier one on a loaded
machine), and whether its output is xdsl-opt's.

ms-opt used to look each op's line up by counting newlines from the start of the
text (xDSL's `Span.get_location`), quadratic: 20k ops 9.0 s, 80k ops 73 s. With the
count carried from op to op it was linear but 13-18% slower than xdsl-opt (the
locations it records, GC passes over the parsed module). Now, on the 2-core
machine: parse reads each distinct shaped type's text once (ir/compat/
parsed_types.py), locations are built from shared parts, full GC passes wait until
the end (support/gc_pause.py), and the printer writes straight to its
stream (ir/compat/direct_printer.py): 1.10x, 1.23x and 1.30x xdsl-opt's ops/s by
CPU time at 10k, 40k and 160k ops (the shared start-up weighs most at 10k), with
CPU µs per op 179, 136, 121: linear. The table is in README.md (Tools: ms-opt).

    .venv/bin/python benchmarks/parse_scale.py [--sizes 10000,40000,160000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def chain(n: int) -> str:
    body = "".join(f"  %v{i} = arith.addf %x, %x : tensor<f32>\n" for i in range(n))
    return f"func.func @f(%x: tensor<f32>) -> tensor<f32> {{\n{body}  func.return %x : tensor<f32>\n}}\n"


def run(tool: list[str], path: Path, out: Path) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (user + system) and peak memory (MiB) of the child
    `tool path -o out`, its own (os.wait4), not the largest child's so far."""
    with tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        child = subprocess.Popen([*tool, str(path), "-o", str(out)], stderr=err)
        _, status, usage = os.wait4(child.pid, 0)
        took = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
        if child.returncode != 0:
            err.seek(0)
            sys.exit(f"{tool[0]} failed on {path.name}: {err.read().decode()}")
    return took, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", default="10000,40000,160000", help="comma-separated op counts")
    p.add_argument("--rounds", type=int, default=3, help="runs per tool, best taken")
    args = p.parse_args()
    bin_dir = Path(sys.executable).parent
    tools = {"ms-opt": [str(bin_dir / "ms-opt")], "xdsl-opt": [str(bin_dir / "xdsl-opt")]}
    iree = shutil.which("iree-opt") or (bin_dir / "iree-opt")
    if Path(iree).exists():
        tools["iree-opt"] = [str(iree)]
    print(f"round trip of a chain of N arith.addf, best of {args.rounds} interleaved runs")
    print(
        "| ops | tool | wall s | CPU s | ops/s | CPU µs/op | peak MiB "
        "| ops/s ÷ xdsl-opt's (wall) | (CPU) | output = xdsl-opt's |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as d:
        for n in (int(s) for s in args.sizes.split(",")):
            path = Path(d) / f"chain{n}.mlir"
            path.write_text(chain(n))
            runs: dict[str, list[tuple[float, float, float]]] = {name: [] for name in tools}
            for _ in range(args.rounds):
                for name, tool in tools.items():
                    runs[name].append(run(tool, path, Path(d) / f"{name}.mlir"))
            best = {
                name: (min(r[0] for r in rs), min(r[1] for r in rs), max(r[2] for r in rs))
                for name, rs in runs.items()
            }
            reference = (Path(d) / "xdsl-opt.mlir").read_text()
            wall0, cpu0, _ = best["xdsl-opt"]
            for name, (wall, cpu, mib) in best.items():
                same = "n/a" if name == "iree-opt" else _same(Path(d) / f"{name}.mlir", reference)
                print(
                    f"| {n} | {name} | {wall:.2f} | {cpu:.2f} | {n / wall:,.0f} "
                    f"| {1e6 * cpu / n:.0f} | {mib:.0f} | {wall0 / wall:.2f} | {cpu0 / cpu:.2f} "
                    f"| {same} |"
                )


def _same(output: Path, reference: str) -> str:
    return "yes" if output.read_text() == reference else "NO"


if __name__ == "__main__":
    main()
