"""Compile cost at the seed documents' scale: is the compiler linear, and cheap per node?

Pangu 13B's training graph reached about 135,000 nodes in MindSpore's lazy_inline
documentation; a compiler for graphs that big must cost the same per node at
100k nodes as at 1k, in time and in memory. Workloads, each in a fresh process:

- gpt N: examples/gpt.py's GPT (hidden 32, sequence 8, batch 2) with N Blocks,
  trained by `nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD)`
  in graph mode on the numpy backend; N = 8, 32, 128, 368, without lazy inline
  (MS_DEV_CELL_REUSE=0: every Block inlined) and with `@lazy_inline` Blocks;
- pipeline: benchmarks/pipeline.py's train step, 32 Blocks on 4 stages x 8
  micro-batches without lazy inline: the documents' (O/X)*Y graph;
- sentiment: the RNN tutorial's model (examples/models/sentiment.py), its
  unrolled 2-layer bidirectional LSTM over 50 time steps, one train step (the
  median of three fresh processes: a single 3 s compile varies by +-0.1 s);
- resnet device: the model zoo's ResNet-18 train step compiled for the
  simulated Ascend-like device;
- ms-opt: the N=368 train step's mindir as MS_DEV_SAVE_GRAPHS dumps it, read
  and printed by `ms-opt` (the largest mindir stage), and its frontend dump run
  through the O1 pipeline and the lowering.

Per configuration: compile seconds (the first call's wall clock less the second
call's, which only runs: everything the first call does beyond running, the
stage report's counting included; and the sum of the report's stages), the
largest mindir node count (MindSpore's counting, passes/analysis/graph_nodes.py),
the ops after lowering, peak RSS (`ru_maxrss`), ms and KB per node, and the first
step's loss against PyNative's on the same seed. Then each stage's seconds, and
the targets, each marked met or not.

    .venv/bin/python benchmarks/compile_scale.py [--sizes 8,32,128,368] [--skip-pynative]
    .venv/bin/python benchmarks/compile_scale.py --quick --sizes 2,4   # GPT rows only
    .venv/bin/python benchmarks/compile_scale.py --only sentiment      # one workload's rows
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples"))
sys.path.insert(0, str(ROOT / "examples" / "models"))

HIDDEN, SEQ, BATCH = 32, 8, 2


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _gpt_step(layers: int, lazy: bool):
    from gpt import GPT, GPTConfig

    import mindjit as ms
    from mindjit import nn

    ms.set_seed(0)
    net = GPT(GPTConfig(layers, hidden=HIDDEN, seq=SEQ, batch=BATCH), lazy)
    step = nn.TrainOneStepCell(
        nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), 0.01)
    )
    step.set_train()
    rng = np.random.default_rng(0)
    x = ms.Tensor(rng.standard_normal((BATCH, SEQ, HIDDEN)).astype(np.float32))
    y = ms.Tensor(rng.standard_normal((BATCH, SEQ, HIDDEN)).astype(np.float32))
    return step, (x, y)


def _compiled(step, inputs) -> dict:
    """Compile `step` for `inputs` (a Cell or a jit function), then run it once."""
    import mindjit as ms
    from mindjit.frontend.graph import api

    before = _rss_mb()
    start = time.perf_counter()
    out = step(*inputs)
    first = time.perf_counter() - start
    start = time.perf_counter()
    step(*inputs)  # a call that only runs: the first one's run time, taken off
    wall = first - (time.perf_counter() - start)
    program = api.cached_programs()[-1]
    report = program.report
    stages = [(s.name, s.seconds) for s in report.stages]
    loss = out[0] if isinstance(out, tuple) else out
    lowered = [s.ops for s in report.stages if s.name.startswith("verify-tensor")]
    del ms
    return {
        "wall_s": wall,
        "stages_s": report.compile_seconds,
        "stages": stages,
        "nodes": report.mindir_peak_nodes,
        "lowered_ops": lowered[-1] if lowered else 0,
        "rss_mb": _rss_mb(),
        "rss_before_mb": before,
        "loss": float(np.asarray(loss.asnumpy()).ravel()[0]),
    }


def worker(kind: str, n: int, lazy: bool) -> dict:
    import mindjit as ms

    mode = ms.PYNATIVE_MODE if kind == "pynative" else ms.GRAPH_MODE
    ms.set_context(mode=mode)
    if kind in ("gpt", "pynative"):
        step, inputs = _gpt_step(n, lazy)
        if kind == "pynative":
            return {"loss": float(step(*inputs).asnumpy())}
        return _compiled(step, inputs)
    if kind == "pipeline":
        from pipeline import build

        step, x, y = build(32, HIDDEN, SEQ, 4, 8, lazy=False)
        return _compiled(step, (x, y))
    if kind == "sentiment":
        import sentiment

        ms.set_seed(1)
        net = sentiment.build()
        step = ms.jit(sentiment.train_step_fn(net))
        return _compiled(step, sentiment.synthetic_batch(16, seq=50))
    if kind == "resnet-device":
        import resnet

        ms.set_context(device_target="Ascend")
        ms.set_seed(1)
        train = resnet.train_net(resnet.resnet18())
        return _compiled(train, resnet.synthetic_batch(8))
    raise SystemExit(f"unknown workload {kind}")


def fresh(kind: str, n: int = 0, lazy: bool = False, env: dict | None = None) -> dict:
    cmd = [sys.executable, __file__, "--worker", kind, "--n", str(n)] + (["--lazy"] if lazy else [])
    run_env = {**os.environ, "MS_DEV_CELL_REUSE": "1" if lazy else "0", **(env or {})}
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, env=run_env)
    if done.returncode != 0:
        raise SystemExit(f"{kind} n={n} lazy={lazy} failed:\n{done.stderr[-4000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def ms_opt_times(n: int) -> dict:
    """Dump the N-Block train step's stages, then time ms-opt on two of them."""
    from mindjit.support import config

    ms_opt = shutil.which("ms-opt", path=str(Path(sys.executable).parent)) or "ms-opt"
    with tempfile.TemporaryDirectory() as tmp:
        fresh("gpt", n, env={"MS_DEV_SAVE_GRAPHS": "1", "MS_DEV_SAVE_GRAPHS_PATH": tmp})
        dumps = sorted(Path(tmp).glob("*.mlir"))
        frontend = next(p for p in dumps if p.stem.endswith("_frontend"))
        grad = next(p for p in dumps if p.stem.endswith("_mindir_grad"))  # the most nodes
        out = Path(tmp) / "out.mlir"

        def timed(*args: str) -> float:
            start = time.perf_counter()
            done = subprocess.run([ms_opt, *args, "-o", str(out)], capture_output=True, text=True)
            if done.returncode != 0:
                raise SystemExit(f"ms-opt {' '.join(args)} failed:\n{done.stderr[-3000:]}")
            return time.perf_counter() - start

        from mindjit.passes.pipelines import LOWER_TO_TENSOR, jit_level_pipeline

        options = config.compile_options("O1")
        pipeline = f"{jit_level_pipeline('O1', options)},{LOWER_TO_TENSOR}"
        return {
            "mb": grad.stat().st_size / 1e6,
            "print_s": timed(str(grad)),
            "pipeline_s": timed(str(frontend), "-p", pipeline),
        }


def _row(name: str, r: dict, base_kb: float | None = None) -> str:
    per_node_ms = 1e3 * r["wall_s"] / max(r["nodes"], 1)
    kb = 1024 * r["rss_mb"] / max(r["nodes"], 1)
    return (
        f"| {name} | {r['nodes']:,} | {r['lowered_ops']:,} | {r['wall_s']:.1f} | "
        f"{r['stages_s']:.1f} | {per_node_ms:.3f} | {r['rss_mb']:,.0f} | {kb:.1f} |"
    )


def print_rows(rows: dict[str, dict]) -> None:
    """The table of `rows`, then each stage's seconds per row."""
    print("| workload | max mindir nodes | ops lowered | compile s (wall) | stages s "
          "| ms per node | peak RSS MB | KB per node |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|")
    for name, r in rows.items():
        print(_row(name, r))
    print()
    names = list(rows)
    stage_names: list[str] = []
    for r in rows.values():
        for s, _ in r["stages"]:
            if s not in stage_names:
                stage_names.append(s)
    print("| stage (s) | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    for s in stage_names:
        cells = []
        for r in rows.values():
            total = sum(sec for name, sec in r["stages"] if name == s)
            cells.append(f"{total:.2f}" if any(name == s for name, _ in r["stages"]) else "")
        print(f"| {s} | " + " | ".join(cells) + " |")
    print()


#: fresh processes timed for the sentiment row: one run of its 3 s compile varies by
#: +-0.1 s on the 2-core machine (the same code measured 2.75 to 2.96 s), so its row
#: is the run with the median compile time of three
SENTIMENT_RUNS = 3


def median_run(kind: str, runs: int) -> dict:
    """The result of the run with the median compile time of `runs` fresh ones."""
    results = sorted((fresh(kind) for _ in range(runs)), key=lambda r: r["wall_s"])
    return results[len(results) // 2]


def only(kind: str) -> int:
    """`--only pipeline|sentiment|resnet`: that workload's row, stages and target."""
    name, worker_kind = {
        "pipeline": ("pipeline 4x8", "pipeline"),
        "sentiment": ("sentiment seq 50", "sentiment"),
        "resnet": ("resnet18 device", "resnet-device"),
    }[kind]
    runs = SENTIMENT_RUNS if kind == "sentiment" else 1
    rows = {name: median_run(worker_kind, runs)}
    print_rows(rows)
    if kind != "sentiment":
        return 0
    wall = rows[name]["wall_s"]
    print("| target | measured | met |")
    print("|---|---|---|")
    print(f"| sentiment seq 50 compile < 3 s | {wall:.2f} s | {'yes' if wall < 3 else 'NO'} |")
    return 0 if wall < 3 else 1


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", default="8,32,128,368")
    p.add_argument(
        "--quick", action="store_true", help="the GPT rows only (no pipeline, models, ms-opt)"
    )
    p.add_argument("--skip-pynative", action="store_true")
    p.add_argument(
        "--only",
        choices=["gpt", "pipeline", "sentiment", "resnet"],
        help="one workload's rows and its stages, without the targets of the others",
    )
    p.add_argument("--worker", help=argparse.SUPPRESS)
    p.add_argument("--n", type=int, default=0, help=argparse.SUPPRESS)
    p.add_argument("--lazy", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker, args.n, args.lazy)))
        return 0
    sizes = [int(s) for s in args.sizes.split(",")]
    if args.only and args.only != "gpt":
        return only(args.only)
    args.quick = args.quick or args.only == "gpt"
    rows: dict[str, dict] = {}
    for n in sizes:
        rows[f"gpt N={n}"] = fresh("gpt", n)
    for n in sizes:
        rows[f"gpt N={n} lazy"] = fresh("gpt", n, lazy=True)
    if not args.quick:
        rows["pipeline 4x8"] = fresh("pipeline")
        rows["sentiment seq 50"] = median_run("sentiment", SENTIMENT_RUNS)
        rows["resnet18 device"] = fresh("resnet-device")
    pynative = {} if args.skip_pynative else {n: fresh("pynative", n)["loss"] for n in sizes}

    print_rows(rows)

    targets: list[tuple[str, str, bool]] = []
    big = max(sizes)
    small = 32 if 32 in sizes else min(sizes)
    r_big, r_small = rows[f"gpt N={big}"], rows[f"gpt N={small}"]
    if big == 368:
        targets.append(("N=368 compile < 60 s", f"{r_big['wall_s']:.1f} s", r_big["wall_s"] < 60))
        targets.append(
            ("N=368 peak RSS < 4 GB", f"{r_big['rss_mb'] / 1024:.2f} GB", r_big["rss_mb"] < 4096)
        )
        lazy = rows["gpt N=368 lazy"]
        targets.append(
            ("N=368 lazy compile < 15 s", f"{lazy['wall_s']:.1f} s", lazy["wall_s"] < 15)
        )
    ms_ratio = (r_big["wall_s"] / r_big["nodes"]) / (r_small["wall_s"] / r_small["nodes"])
    kb_ratio = (r_big["rss_mb"] / r_big["nodes"]) / (r_small["rss_mb"] / r_small["nodes"])
    targets.append((f"ms per node N={big} / N={small} <= 1.3", f"{ms_ratio:.2f}", ms_ratio <= 1.3))
    targets.append((f"RSS per node N={big} / N={small} <= 1.5", f"{kb_ratio:.2f}", kb_ratio <= 1.5))
    if "sentiment seq 50" in rows:
        sent = rows["sentiment seq 50"]
        targets.append(
            ("sentiment seq 50 compile < 3 s", f"{sent['wall_s']:.2f} s", sent["wall_s"] < 3)
        )
    for n, loss in pynative.items():
        got = rows[f"gpt N={n}"]["loss"]
        lazy_loss = rows[f"gpt N={n} lazy"]["loss"]
        same = abs(got - loss) <= 1e-5 * abs(loss) and abs(lazy_loss - loss) <= 1e-5 * abs(loss)
        targets.append((f"N={n} loss = PyNative's", f"{got:.6f} / {loss:.6f}", same))
    if not args.quick:
        t = ms_opt_times(big)
        targets.append(
            (
                f"ms-opt reads and prints N={big}'s mindir ({t['mb']:.0f} MB) < 30 s",
                f"{t['print_s']:.1f} s",
                t["print_s"] < 30,
            )  # fmt: skip
        )
        targets.append(
            (f"ms-opt O1 + lowering on N={big}'s frontend dump", f"{t['pipeline_s']:.1f} s", True)
        )
    print("| target | measured | met |")
    print("|---|---|---|")
    for what, measured, met in targets:
        print(f"| {what} | {measured} | {'yes' if met else 'NO'} |")
    return 0 if all(met for *_, met in targets) else 1


if __name__ == "__main__":
    raise SystemExit(main())
