"""Issue 39: pipeline stages and data-parallel replicas on Ray actors, measured.

Workload: the GPT-like network of examples/gpt.py (benchmarks/pipeline.py's),
lazy inline, trained with SGD; Block i on stage i * X // layers.

1. Equality: losses and every Parameter after 3 steps on Ray against the same
   training in one process without stages (max abs difference; 1e-5 to pass):
   pipelines X = 2, 4 with Y = 1, 4, 8 under 1F1B and GPipe, and data parallel
   N = 2, 4 (gradients_mean, whole batch against N slices), on the numpy
   executor and on IREE (small model, `--small-*`).
2. Speed (every process single-threaded, OMP_NUM_THREADS=1, the baseline too;
   a model whose step takes about a second in one process, `--layers`/`--hidden`/
   `--seq`): X=2, Y=8 on Ray against one process running the whole batch without
   pipelining (target 1.6x); data parallel N=2 on Ray against one process
   (samples per second, target 1.6x). Medians of `--steps` steps after a warm-up.
3. The measured step against the simulated schedule (backend/ascend/
   pipeline_schedule.py) fed with the measured per-stage costs (backend/ray/
   measured.py): within 25%. Its timeline (measured above simulated) is written
   to `--timeline` (HTML).
4. Memory: each stage's peak held activations (backend/cpu/memory_meter.py,
   measured in its actor) under 1F1B against GPipe: at most (X - s)/Y.

Each configuration runs in a fresh process (Ray's local cluster started by it).

    .venv/bin/python benchmarks/distributed.py [--quick]
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


def build(layers: int, hidden: int, seq: int, batch: int, stages: int, micro: int, cell: bool):
    """The train step, its inputs and its net, with the parallel context set."""
    from gpt import GPT, GPTConfig

    import mindjit as ms
    from mindjit import nn

    ms.set_context(mode=ms.GRAPH_MODE)
    ms.set_seed(11)
    net = GPT(GPTConfig(layers, hidden, seq, batch=batch // max(micro, 1)), lazy=True)
    if stages > 1:
        for i, block in enumerate(net.blocks):
            block.pipeline_stage = i * stages // layers
    loss = nn.WithLossCell(net, nn.MSELoss())
    if cell:
        loss = nn.PipelineCell(loss, micro_size=micro)
    step = nn.TrainOneStepCell(loss, nn.SGD(net.trainable_params(), learning_rate=0.01))
    step.set_train()
    rng = np.random.default_rng(0)
    x = ms.Tensor(rng.standard_normal((batch, seq, hidden)).astype(np.float32))
    y = ms.Tensor(rng.standard_normal((batch, seq, hidden)).astype(np.float32))
    return step, x, y


def configure(engine: str, backend: str, stages: int, schedule: str, replicas: int) -> None:
    import mindjit as ms

    ms.reset_auto_parallel_context()
    ms.set_distributed(engine=engine)
    ms.set_context(jit_config={"backend": backend})
    if stages > 1:
        ms.set_auto_parallel_context(
            parallel_mode=ms.ParallelMode.SEMI_AUTO_PARALLEL,
            pipeline_stages=stages,
            pipeline_config={"pipeline_scheduler": schedule},
        )
    if replicas > 1:
        from mindjit.communication import init

        ms.set_auto_parallel_context(
            parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True, device_num=replicas
        )
        init()


def _executable():
    from mindjit.frontend.graph import api

    return api.cached_programs()[-1].executable


def work_equal(cfg: dict) -> dict:
    """3 steps of one configuration: losses, and the Parameters written to cfg['out']."""
    configure(cfg["engine"], cfg["backend"], cfg["stages"], cfg["schedule"], cfg["replicas"])
    micro = cfg["micro"]
    step, x, y = build(
        cfg["layers"], cfg["hidden"], cfg["seq"], cfg["batch"], cfg["stages"], micro, cell=micro > 0
    )
    losses = [float(step(x, y).asnumpy()) for _ in range(3)]
    params = {n: p.asnumpy() for n, p in step.parameters_and_names()}
    np.savez(cfg["out"], **params)
    from mindjit.communication import release

    release()
    return {"losses": losses}


def work_speed(cfg: dict) -> dict:
    """Step times (after a warm-up) of one configuration; with `meter`, one metered
    step more: each stage's memory peaks and the measured-vs-simulated step."""
    configure(cfg["engine"], "numpy", cfg["stages"], cfg["schedule"], cfg["replicas"])
    micro = cfg["micro"]
    step, x, y = build(
        cfg["layers"], cfg["hidden"], cfg["seq"], cfg["batch"], cfg["stages"], micro, cell=micro > 0
    )
    start = time.perf_counter()
    step(x, y).asnumpy()
    first = time.perf_counter() - start
    times = []
    for _ in range(cfg["steps"]):
        start = time.perf_counter()
        step(x, y).asnumpy()
        times.append(time.perf_counter() - start)
    out = {"first_s": first, "step_s": statistics.median(times), "times": times}
    if cfg.get("meter"):
        from mindjit.backend.ray.measured import measure, timeline_html

        exe = _executable()
        exe.meter_memory()
        step(x, y).asnumpy()  # plans rebuilt with the meter
        start = time.perf_counter()
        step(x, y).asnumpy()
        out["metered_step_s"] = time.perf_counter() - start
        out["memory"] = exe.memory()
        m = measure(exe.last_step, micro, cfg["schedule"])
        out["measured_us"], out["predicted_us"] = m.measured.step_us, m.predicted.step_us
        out["costs"] = [(c.forward_us, c.backward_us) for c in m.costs]
        out["link_us"] = m.link.latency_us
        if cfg.get("timeline"):
            title = f"GPT-like X={cfg['stages']} Y={micro} {cfg['schedule']}"
            Path(cfg["timeline"]).write_text(timeline_html(m, title))
    return out


def worker(spec: str) -> None:
    cfgs = json.loads(spec)
    results = []
    for cfg in cfgs:
        what = work_equal if cfg["what"] == "equal" else work_speed
        results.append(what(cfg))
    print(json.dumps(results))


def fresh(cfgs: list[dict]) -> list[dict]:
    env = {
        **os.environ,
        "OMP_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "MS_DEV_CELL_REUSE": "1",
    }
    cmd = [sys.executable, __file__, "--worker", json.dumps(cfgs)]
    out = subprocess.run(cmd, capture_output=True, text=True, check=False, cwd=ROOT, env=env)
    if out.returncode != 0:
        raise SystemExit(f"worker failed: {cfgs}\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def max_diff(a: Path, b: Path) -> float:
    with np.load(a) as x, np.load(b) as y:
        assert set(x.files) == set(y.files), "different Parameters"
        return max(float(np.max(np.abs(x[k] - y[k]), initial=0.0)) for k in x.files)


def equality(args: argparse.Namespace, tmp: Path) -> bool:
    size = {
        "layers": args.small_layers,
        "hidden": args.small_hidden,
        "seq": args.small_seq,
        "batch": 8,
    }
    rows, ok = [], True
    backends = ["numpy"] if args.quick else ["numpy", "iree"]
    for backend in backends:
        runs = []
        for stages in (2, 4):
            for micro in (1, 4, 8):
                for schedule in ("1f1b", "gpipe"):
                    if micro == 1 and schedule == "gpipe":
                        continue  # one micro-batch: the two orders are one
                    runs.append(("pipeline", stages, micro, schedule, 1))
        runs += [("data parallel", 1, 0, "1f1b", n) for n in (2, 4)]
        cfgs, refs = [], {}
        for kind, stages, micro, schedule, n in runs:
            out = tmp / f"{backend}-{kind[0]}-{stages}-{micro}-{schedule}-{n}.npz"
            cfgs.append(
                {
                    "what": "equal",
                    "engine": "ray",
                    "backend": backend,
                    "stages": stages,
                    "micro": micro,
                    "schedule": schedule,
                    "replicas": n,
                    "out": str(out),
                    **size,
                }
            )
            ref = tmp / f"ref-{backend}-{micro}.npz"
            if micro not in refs:  # one process, no stages, the same micro-batches
                refs[micro] = {
                    "what": "equal",
                    "engine": "local",
                    "backend": backend,
                    "stages": 1,
                    "micro": micro,
                    "schedule": "1f1b",
                    "replicas": 1,
                    "out": str(ref),
                    **size,
                }
        want = dict(zip(refs, fresh(list(refs.values()))))
        got = fresh(cfgs)
        for (kind, stages, micro, schedule, n), cfg, result in zip(runs, cfgs, got):
            ref = want[micro]
            loss_d = max(abs(a - b) for a, b in zip(result["losses"], ref["losses"]))
            param_d = max_diff(Path(cfg["out"]), Path(refs[micro]["out"]))
            good = loss_d <= 1e-5 and param_d <= 1e-5
            ok &= good
            what = f"X={stages} Y={micro} {schedule}" if kind == "pipeline" else f"N={n}"
            rows.append(
                f"| {backend} | {kind} | {what} | {loss_d:.1e} | {param_d:.1e} | "
                f"{'yes' if good else 'no'} |"
            )
    print("Losses and Parameters after 3 steps on Ray against one process (max abs difference):\n")
    print("| backend | kind | run | losses | Parameters | <= 1e-5 |")
    print("|---|---|---|---|---|---|")
    print("\n".join(rows))
    return ok


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--layers", type=int, default=8)
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--seq", type=int, default=64)
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--steps", type=int, default=5)
    p.add_argument("--small-layers", type=int, default=4)
    p.add_argument("--small-hidden", type=int, default=32)
    p.add_argument("--small-seq", type=int, default=8)
    p.add_argument("--timeline", default="ray_timeline.html")
    p.add_argument("--quick", action="store_true", help="numpy only, fewer steps")
    p.add_argument("--worker", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.worker:
        worker(args.worker)
        return
    with tempfile.TemporaryDirectory() as tmp:
        equal_ok = equality(args, Path(tmp))
    size = {
        "layers": args.layers,
        "hidden": args.hidden,
        "seq": args.seq,
        "batch": args.batch,
        "steps": args.steps,
        "what": "speed",
    }
    base = fresh(
        [{**size, "engine": "local", "stages": 1, "micro": 0, "schedule": "1f1b", "replicas": 1}]
    )[0]
    piped = fresh(
        [
            {
                **size,
                "engine": "ray",
                "stages": 2,
                "micro": 8,
                "schedule": "1f1b",
                "replicas": 1,
                "meter": True,
                "timeline": args.timeline,
            }
        ]
    )[0]
    dp = fresh(
        [{**size, "engine": "ray", "stages": 1, "micro": 0, "schedule": "1f1b", "replicas": 2}]
    )[0]
    gpipe = {
        X: fresh(
            [
                {
                    **size,
                    "steps": 1,
                    "engine": "ray",
                    "stages": X,
                    "micro": 8,
                    "schedule": "gpipe",
                    "replicas": 1,
                    "meter": True,
                }
            ]
        )[0]
        for X in (2, 4)
    }
    f1b = {
        2: piped,
        4: fresh(
            [
                {
                    **size,
                    "steps": 1,
                    "engine": "ray",
                    "stages": 4,
                    "micro": 8,
                    "schedule": "1f1b",
                    "replicas": 1,
                    "meter": True,
                }
            ]
        )[0],
    }
    print(
        f"\nGPT-like, {args.layers} lazy Blocks, hidden {args.hidden}, sequence {args.seq}, "
        f"batch {args.batch}; OMP_NUM_THREADS=1 everywhere; median of {args.steps} steps:\n"
    )
    print("| run | processes | step s | samples/s | vs one process |")
    print("|---|---|---|---|---|")
    b = base["step_s"]
    for name, r, procs in (
        ("one process, whole batch", base, 1),
        ("Ray pipeline X=2 Y=8 (1F1B)", piped, 2),
        ("Ray data parallel N=2", dp, 2),
    ):
        print(
            f"| {name} | {procs} | {r['step_s']:.3f} | {args.batch / r['step_s']:.1f} | "
            f"{b / r['step_s']:.2f}x |"
        )
    ratio = piped["measured_us"] / piped["predicted_us"]
    print(
        f"\nMeasured against simulated (X=2, Y=8, 1F1B, metered step; per-stage forward/"
        f"backward us per micro-batch {[(round(f), round(bk)) for f, bk in piped['costs']]}, "
        f"link {piped['link_us']:.0f} us): measured {piped['measured_us'] / 1e6:.3f} s, "
        f"simulated {piped['predicted_us'] / 1e6:.3f} s, ratio {ratio:.2f}; timeline: "
        f"{args.timeline}\n"
    )
    print("Held activations per stage, measured in each actor (bytes), Y=8:\n")
    print("| X | stage | 1F1B | GPipe | ratio | (X-s)/Y | met |")
    print("|---|---|---|---|---|---|---|")
    memory_ok = True
    for X in (2, 4):
        for s, (a, g) in enumerate(zip(f1b[X]["memory"], gpipe[X]["memory"])):
            a, g = a["held_activation_bytes"], g["held_activation_bytes"]
            bound = (X - s) / 8
            good = a <= bound * g + 4 * 8  # + the micro-batches' f32 losses
            memory_ok &= good
            print(
                f"| {X} | {s} | {a} | {g} | {a / g:.3f} | {bound:.3f} | {'yes' if good else 'no'} |"
            )
    pipe_speed, dp_speed = b / piped["step_s"], b / dp["step_s"]
    print("\n| target | measured | met |")
    print("|---|---|---|")
    print(
        f"| losses and Parameters equal one process (<= 1e-5) | table above | "
        f"{'yes' if equal_ok else 'no'} |"
    )
    print(
        f"| Ray pipeline X=2 Y=8 >= 1.6x one process | {pipe_speed:.2f}x | "
        f"{'yes' if pipe_speed >= 1.6 else 'no'} |"
    )
    print(
        f"| Ray data parallel N=2 >= 1.6x samples/s | {dp_speed:.2f}x | "
        f"{'yes' if dp_speed >= 1.6 else 'no'} |"
    )
    print(
        f"| measured step within 25% of the simulated schedule | {ratio:.2f} | "
        f"{'yes' if abs(ratio - 1) <= 0.25 else 'no'} |"
    )
    print(
        f"| 1F1B held activations <= (X-s)/Y of GPipe's | table above | "
        f"{'yes' if memory_ok else 'no'} |"
    )


if __name__ == "__main__":
    main()
