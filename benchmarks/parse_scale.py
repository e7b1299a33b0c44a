"""Parsing large inputs (issue 29): ms-opt against xdsl-opt and iree-opt on a chain of
N `arith.addf` ops, fresh processes, ops/s and peak memory (ru_maxrss of the child).

ms-opt used to look each op's line up by counting newlines from the start of the
text (xDSL's `Span.get_location`), quadratic in the input: 20k ops 9.0 s, 80k ops
73 s. dialects/parsing.py now carries the count from one op to the next.

    .venv/bin/python benchmarks/parse_scale.py [--sizes 10000,40000,160000]
"""

from __future__ import annotations

import argparse
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def chain(n: int) -> str:
    body = "".join(f"  %v{i} = arith.addf %x, %x : tensor<f32>\n" for i in range(n))
    return f"func.func @f(%x: tensor<f32>) -> tensor<f32> {{\n{body}  func.return %x : tensor<f32>\n}}\n"


def run(tool: list[str], path: Path) -> tuple[float, float]:
    """Seconds and the child's peak memory (MiB) of `tool path -o /dev/null`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    subprocess.run([*tool, str(path), "-o", "/dev/null"], check=True, capture_output=True)
    took = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return took, max(peak, before) / 1024


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", default="10000,40000", help="comma-separated op counts")
    args = p.parse_args()
    bin_dir = Path(sys.executable).parent
    tools = {"ms-opt": [str(bin_dir / "ms-opt")], "xdsl-opt": [str(bin_dir / "xdsl-opt")]}
    iree = shutil.which("iree-opt") or (bin_dir / "iree-opt")
    if Path(iree).exists():
        tools["iree-opt"] = [str(iree)]
    print("| ops | tool | seconds | ops/s | peak MiB (max so far) | vs xdsl-opt |")
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as d:
        for n in (int(s) for s in args.sizes.split(",")):
            path = Path(d) / f"chain{n}.mlir"
            path.write_text(chain(n))
            times = {name: run(tool, path) for name, tool in tools.items()}
            for name, (secs, mib) in times.items():
                ratio = secs / times["xdsl-opt"][0]
                print(f"| {n} | {name} | {secs:.2f} | {n / secs:,.0f} | {mib:.0f} | {ratio:.2f} |")


if __name__ == "__main__":
    main()
