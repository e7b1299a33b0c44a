"""What @lazy_inline saves: graph nodes and compile time of a GPT-like model of N Blocks.

The model is examples/gpt.py (per Block: layer norm, single-head attention,
residual, layer norm, GELU MLP, residual; 12 Parameters; hidden 256, sequence
32, batch 1). For each N and with/without `@lazy_inline`, one fresh process
builds the model (same seed, so the same weights), compiles it in graph mode
with the default pipeline (MS_DEV_CELL_REUSE unset: level 1) and runs it:

- nodes after the frontend, and the largest node count after any mindir pass
  (MindSpore's way of counting: Parameters and get_parameter are graph inputs,
  see passes/analysis/graph_nodes.py);
- compile seconds: frontend + mindir passes + lowering + executor plan (the
  program's stage report; the per-stage op counting is not included), the
  median over --compiles fresh processes (one compile is too noisy on a shared
  machine to compare two of them), run in rounds over the sizes, all lazy
  configurations before the no-lazy ones;
- run seconds per call (median over --runs calls after one warm-up call, then
  the median over the --compiles processes: one process's timings shift with
  its memory layout);
- whether the outputs with and without lazy inline are equal (bit for bit).

The last columns are the ratios the targets are about: nodes and compile time
without / with lazy inline at the same N, and lazy compile time / lazy compile
time at N=16.

    .venv/bin/python benchmarks/lazy_inline.py [--sizes 4,16,64,256] [--runs 5] [--compiles 3]
    .venv/bin/python benchmarks/lazy_inline.py --pangu [--nodes 135000]

`--pangu` times the full default pipeline (mindir passes and lowering), per
pass, on one module of about 135,000 graph nodes without lazy inline: the size
of Pangu 13B in MindSpore's lazy_inline documentation (hidden 64 by default:
the node count does not depend on it, and the weights then fit in memory).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples"))


def _model(layers: int, lazy: bool, hidden: int, seq: int):
    from gpt import GPT, GPTConfig

    from mindjit import Tensor
    from mindjit.frontend.nn.init import set_seed

    set_seed(0)
    net = GPT(GPTConfig(layers, hidden=hidden, seq=seq), lazy)
    x = Tensor(np.random.default_rng(0).standard_normal((1, seq, hidden)).astype(np.float32))
    return net, x


def measure_one(layers: int, lazy: bool, hidden: int, seq: int, runs: int, out: str) -> dict:
    """Compile and run one configuration in this process; save its output to `out`."""
    import mindjit as ms
    from mindjit.frontend.graph.api import compile_cell

    net, x = _model(layers, lazy, hidden, seq)
    ms.set_context(mode=ms.GRAPH_MODE)
    program = compile_cell(net, (x,))
    y = net(x)  # warm-up, and the output compared across configurations
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        net(x)
        times.append(time.perf_counter() - start)
    np.save(out, y.asnumpy())
    return {
        "layers": layers,
        "lazy": lazy,
        "frontend_nodes": program.report.stages[0].nodes,
        "max_mindir_nodes": program.report.mindir_peak_nodes,
        "compile_s": program.report.compile_seconds,
        "run_s": statistics.median(times),
    }


def _run_child(layers: int, lazy: bool, args: argparse.Namespace, out: str) -> dict:
    cmd = [
        sys.executable,
        __file__,
        "--one",
        f"{layers},{int(lazy)}",
        "--hidden",
        str(args.hidden),
        "--seq",
        str(args.seq),
        "--runs",
        str(args.runs),
        "--out",
        out,
    ]
    env = dict(os.environ)
    env.pop("MS_DEV_CELL_REUSE", None)  # the default level (1)
    done = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if done.returncode != 0:
        raise SystemExit(f"configuration N={layers} lazy={lazy} failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def table(args: argparse.Namespace) -> int:
    sizes = [int(s) for s in args.sizes.split(",")]
    rows, lazy_compile = [], {}
    measured: dict[tuple[int, bool], list[dict]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        # Each mode in its own phase, rounds over the sizes: a lazy compile measured
        # right after a no-lazy N=256 process (gigabytes freed) runs slower, and the
        # lazy rows are compared with one another.
        for lazy in (True, False):
            for _ in range(args.compiles):
                for n in sizes:
                    out = os.path.join(tmp, f"{n}_{int(lazy)}.npy")
                    measured.setdefault((n, lazy), []).append(_run_child(n, lazy, args, out))
        for n in sizes:
            results = {}
            for lazy in (False, True):
                runs = measured[(n, lazy)]
                results[lazy] = dict(runs[0])
                for key in ("compile_s", "run_s"):  # medians over the processes
                    results[lazy][key] = statistics.median(r[key] for r in runs)
                results[lazy]["out"] = np.load(os.path.join(tmp, f"{n}_{int(lazy)}.npy"))
            same = np.array_equal(results[False]["out"], results[True]["out"])
            lazy_compile[n] = results[True]["compile_s"]
            rows.append((n, results[False], results[True], same))
    base = lazy_compile.get(16)
    print(
        "| N | lazy | frontend nodes | max mindir nodes | compile s | run ms/call "
        "| outputs equal | nodes no-lazy/lazy | compile no-lazy/lazy | run lazy/no-lazy "
        "| compile / lazy N=16 |"
    )
    print("|" + "---|" * 11)
    ok = True
    for n, plain, lazy, same in rows:
        ok &= same
        for r in (plain, lazy):
            ratios = ["", "", "", ""]
            if r is lazy:
                ratios = [
                    f"{plain['max_mindir_nodes'] / lazy['max_mindir_nodes']:.1f}",
                    f"{plain['compile_s'] / lazy['compile_s']:.1f}",
                    f"{lazy['run_s'] / plain['run_s']:.2f}",
                    f"{lazy['compile_s'] / base:.2f}" if base else "",
                ]
            print(
                f"| {n} | {'yes' if r['lazy'] else 'no'} | {r['frontend_nodes']} "
                f"| {r['max_mindir_nodes']} | {r['compile_s']:.2f} | {r['run_s'] * 1e3:.2f} "
                f"| {'yes' if same else 'NO'} | " + " | ".join(ratios) + " |"
            )
    return 0 if ok else 1


def pangu(args: argparse.Namespace) -> int:
    """Time the full default pipeline on a ~`args.nodes`-node module, without lazy inline."""
    import mindjit as ms
    from mindjit.dialects.context import make_context
    from mindjit.dialects.verify import verify_located
    from mindjit.frontend.graph.program import new_compiler
    from mindjit.passes.analysis.graph_nodes import graph_nodes
    from mindjit.passes.pipelines import LOWER_TO_TENSOR, jit_level_pipeline, parse_pipeline

    probe, x = _model(1, False, args.hidden, args.seq)
    ms.set_context(mode=ms.GRAPH_MODE)

    def frontend(net):
        compiler = new_compiler()
        compiler.entry(type(net).construct, net, (x,), {}, "GPT_construct")
        return compiler.module.module

    per_block = graph_nodes(frontend(probe)) - 2  # the reshapes around the blocks
    layers = max(1, round(args.nodes / per_block))
    net, x = _model(layers, False, args.hidden, args.seq)
    start = time.perf_counter()
    module = frontend(net)
    rows = [("frontend", graph_nodes(module), time.perf_counter() - start)]
    ctx = make_context()
    for spec in (jit_level_pipeline("O1"), LOWER_TO_TENSOR):
        for p in parse_pipeline(spec):
            start = time.perf_counter()
            p.apply(ctx, module)
            rows.append((p.name, graph_nodes(module), time.perf_counter() - start))
        start = time.perf_counter()
        verify_located(module)
        rows.append(("verify", graph_nodes(module), time.perf_counter() - start))
    print(f"GPT-like model, {layers} Blocks without lazy inline\n")
    print("| stage | nodes after | seconds |")
    print("|---|---|---|")
    for name, nodes, seconds in rows:
        print(f"| {name} | {nodes} | {seconds:.1f} |")
    total = sum(s for _, _, s in rows)
    print(f"| **total** | | **{total:.1f}** ({total / 60:.1f} min) |")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="4,16,64,256")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--compiles", type=int, default=3, help="processes per configuration")
    parser.add_argument("--hidden", type=int, help="256 (the table), 64 (--pangu)")
    parser.add_argument("--seq", type=int, default=32)
    parser.add_argument("--pangu", action="store_true", help="time a ~135,000-node module")
    parser.add_argument("--nodes", type=int, default=135_000)
    parser.add_argument("--one", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.hidden is None:  # node counts do not depend on it; --pangu's weights fit in memory
        args.hidden = 64 if args.pangu else 256
    if args.one:
        layers, lazy = (int(v) for v in args.one.split(","))
        result = measure_one(layers, bool(lazy), args.hidden, args.seq, args.runs, args.out)
        print(json.dumps(result))
        return 0
    if args.pangu:
        return pangu(args)
    return table(args)


if __name__ == "__main__":
    sys.exit(main())
