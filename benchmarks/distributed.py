"""Issue 39: pipeline stages and data-parallel replicas on Ray actors, measured.

Workload: the GPT-like network of examples/gpt.py (benchmarks/pipeline.py's),
lazy inline, trained with SGD; Block i on stage i * X // layers.

1. Equality: losses and every Parameter after 3 steps on Ray against the same
   training in one process without stages (max abs difference; 1e-5 to pass):
   pipelines X = 2, 4 with Y = 1, 4, 8 under 1F1B and GPipe, and data parallel
   N = 2, 4 (gradients_mean, whole batch against N slices), on the numpy
   executor and on IREE (small models, `--small-*`). Data parallel trains an
   MLP: the GPT-like model attends over all batch x sequence rows, so a slice of
   its batch is other math (its pipeline runs are compared with one process
   running the same micro-batches).
2. Speed (every process single-threaded, OMP_NUM_THREADS=1, the baseline too;
   a model whose step takes about a second in one process, `--layers`/`--hidden`/
   `--seq`): X=2, Y=8 on Ray against one process running the whole batch without
   pipelining (target 1.6x); data parallel N=2 on Ray against one process
   (samples per second, target 1.6x; the MLP, `--mlp-*`). Medians of `--steps` steps after 3 warm-up steps.
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
#: steps before the timed ones, in every process alike: an actor's first steps are
#: slower (N=2 MLP: 0.75-0.78 s, then 0.63-0.65 s: fresh pages, the object store)
WARM_UP = 3
sys.path.insert(0, str(ROOT / "examples"))


def mlp(layers: int, hidden: int):
    """Data parallel's model: Dense + tanh layers, every sample on its own. (The
    GPT-like model attends over all batch x sequence rows, so a replica's slice of
    the batch changes its math: one process on the whole batch is not the
    reference there, as it is not for its micro-batches.)"""
    from mindjit import nn

    cells = []
    for _ in range(layers):
        cells += [nn.Dense(hidden, hidden), nn.Tanh()]
    return nn.SequentialCell(cells)


def build(
    layers: int,
    hidden: int,
    seq: int,
    batch: int,
    stages: int,
    micro: int,
    cell: bool,
    model: str = "gpt",
):
    """The train step and its inputs, with the parallel context set."""
    from gpt import GPT, GPTConfig

    import mindjit as ms
    from mindjit import nn

    ms.set_context(mode=ms.GRAPH_MODE)
    ms.set_seed(11)
    if model == "mlp":
        net = mlp(layers, hidden)
        step = nn.TrainOneStepCell(
            nn.WithLossCell(net, nn.MSELoss()),
            nn.SGD(net.trainable_params(), learning_rate=0.01),
        )
        step.set_train()
        rng = np.random.default_rng(0)
        x = ms.Tensor(rng.standard_normal((batch, hidden)).astype(np.float32))
        y = ms.Tensor(rng.standard_normal((batch, hidden)).astype(np.float32))
        return step, x, y
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


def _build(cfg: dict):
    return build(
        cfg["layers"], cfg["hidden"], cfg["seq"], cfg["batch"], cfg["stages"], cfg["micro"],
        cell=cfg["micro"] > 0, model=cfg.get("model", "gpt"),
    )  # fmt: skip


def work_equal(cfg: dict) -> dict:
    """3 steps of one configuration: losses, and the Parameters written to cfg['out']."""
    from mindjit.communication import release

    configure(cfg["engine"], cfg["backend"], cfg["stages"], cfg["schedule"], cfg["replicas"])
    step, x, y = _build(cfg)
    losses = [float(step(x, y).asnumpy()) for _ in range(3)]
    np.savez(cfg["out"], **{n: p.asnumpy() for n, p in step.parameters_and_names()})
    release()
    return {"losses": losses}


def work_speed(cfg: dict) -> dict:
    """Step times (after a warm-up) of one configuration; with `meter`, one metered
    step more: each stage's memory peaks and the measured-vs-simulated step."""
    from mindjit.backend.ray.measured import measure, timeline_html

    configure(cfg["engine"], "numpy", cfg["stages"], cfg["schedule"], cfg["replicas"])
    step, x, y = _build(cfg)
    start = time.perf_counter()
    step(x, y).asnumpy()
    first = time.perf_counter() - start
    for _ in range(WARM_UP - 1):  # the actors' first steps map fresh memory
        step(x, y).asnumpy()
    times = []
    for _ in range(cfg["steps"]):
        start = time.perf_counter()
        step(x, y).asnumpy()
        times.append(time.perf_counter() - start)
    out = {"first_s": first, "step_s": statistics.median(times), "times": times}
    if cfg.get("meter"):
        exe = _executable()
        exe.meter_memory()
        step(x, y).asnumpy()  # plans rebuilt with the meter
        step(x, y).asnumpy()
        out["memory"] = exe.memory()
        m = measure(exe.last_step, cfg["micro"], cfg["schedule"])
        out["measured_us"], out["predicted_us"] = m.measured.step_us, m.predicted.step_us
        out["costs"] = [(c.forward_us, c.backward_us) for c in m.costs]
        out["link_us"] = m.link.latency_us
        if cfg.get("timeline"):
            title = f"GPT-like X={cfg['stages']} Y={cfg['micro']} {cfg['schedule']}"
            Path(cfg["timeline"]).write_text(timeline_html(m, title))
    return out


def worker(spec: str) -> None:
    results = []
    for cfg in json.loads(spec):
        results.append((work_equal if cfg["what"] == "equal" else work_speed)(cfg))
    print(json.dumps(results))


def fresh(cfgs: list[dict]) -> list[dict]:
    """Run configurations in a new single-threaded process (one Ray cluster for them)."""
    env = {**os.environ, "MS_DEV_CELL_REUSE": "1"}
    env.update({k: "1" for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")})
    cmd = [sys.executable, __file__, "--worker", json.dumps(cfgs)]
    out = subprocess.run(cmd, capture_output=True, text=True, check=False, cwd=ROOT, env=env)
    if out.returncode != 0:
        raise SystemExit(f"worker failed: {cfgs}\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def cfg(what: str, engine: str, stages: int = 1, micro: int = 0, schedule: str = "1f1b",
        replicas: int = 1, **more) -> dict:  # fmt: skip
    return dict(what=what, engine=engine, stages=stages, micro=micro, schedule=schedule,
                replicas=replicas, **more)  # fmt: skip


def max_diff(a: Path, b: Path) -> float:
    with np.load(a) as x, np.load(b) as y:
        assert set(x.files) == set(y.files), "different Parameters"
        return max(float(np.max(np.abs(x[k] - y[k]), initial=0.0)) for k in x.files)


def equality(args: argparse.Namespace, tmp: Path) -> bool:
    size = dict(layers=args.small_layers, hidden=args.small_hidden, seq=args.small_seq, batch=8)
    rows, ok = [], True
    for backend in ["numpy"] if args.quick else ["numpy", "iree"]:
        runs = [
            ("pipeline", stages, micro, schedule, 1)
            for stages in (2, 4)
            for micro in (1, 4, 8)
            for schedule in ("1f1b", "gpipe")
            if not (micro == 1 and schedule == "gpipe")  # one micro-batch: one order
        ] + [("data parallel", 1, 0, "1f1b", n) for n in (2, 4)]
        cfgs, refs = [], {}
        for _, stages, micro, schedule, n in runs:
            model = "mlp" if n > 1 else "gpt"
            out = tmp / f"{backend}-{model}-{stages}-{micro}-{schedule}-{n}.npz"
            cfgs.append(cfg("equal", "ray", stages, micro, schedule, n, backend=backend,
                            model=model, out=str(out), **size))  # fmt: skip
            if micro not in refs:  # one process, no stages, the same micro-batches
                ref = tmp / f"ref-{backend}-{micro}.npz"
                refs[micro] = cfg("equal", "local", 1, micro, backend=backend, model=model,
                                  out=str(ref), **size)  # fmt: skip
        want = dict(zip(refs, fresh(list(refs.values()))))
        for (kind, stages, micro, schedule, n), c, got in zip(runs, cfgs, fresh(cfgs)):
            loss_d = max(abs(a - b) for a, b in zip(got["losses"], want[micro]["losses"]))
            param_d = max_diff(Path(c["out"]), Path(refs[micro]["out"]))
            good = loss_d <= 1e-5 and param_d <= 1e-5
            ok &= good
            run = f"X={stages} Y={micro} {schedule}" if n == 1 else f"N={n}"
            rows.append(f"| {backend} | {kind} | {run} | {loss_d:.1e} | {param_d:.1e} | "
                        f"{'yes' if good else 'no'} |")  # fmt: skip
    print("Losses and Parameters after 3 steps on Ray against one process (max abs difference;")
    print(f"GPT-like {args.small_layers} Blocks for pipelines, an MLP for data parallel):\n")
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
    p.add_argument("--mlp-layers", type=int, default=8)
    p.add_argument("--mlp-hidden", type=int, default=1024)
    p.add_argument("--mlp-batch", type=int, default=2048)
    p.add_argument("--small-layers", type=int, default=4)
    p.add_argument("--small-hidden", type=int, default=32)
    p.add_argument("--small-seq", type=int, default=8)
    p.add_argument("--timeline", default="ray_timeline.html")
    p.add_argument("--quick", action="store_true", help="numpy only")
    p.add_argument("--worker", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.worker:
        worker(args.worker)
        return
    with tempfile.TemporaryDirectory() as tmp:
        equal_ok = equality(args, Path(tmp))
    gpt = dict(layers=args.layers, hidden=args.hidden, seq=args.seq, batch=args.batch,
               steps=args.steps)  # fmt: skip
    mlp_ = dict(model="mlp", layers=args.mlp_layers, hidden=args.mlp_hidden, seq=1,
                batch=args.mlp_batch, steps=args.steps)  # fmt: skip
    base = fresh([cfg("speed", "local", **gpt)])[0]
    # the same 8 micro-batches in one process: what the pipeline itself buys (the
    # GPT-like attention is quadratic in batch x sequence, so micro-batches alone
    # cost less than the whole batch)
    micro_one = fresh([cfg("speed", "local", 1, 8, **gpt)])[0]
    piped = fresh([cfg("speed", "ray", 2, 8, meter=True, timeline=args.timeline, **gpt)])[0]
    dp_base = fresh([cfg("speed", "local", **mlp_)])[0]
    dp = fresh([cfg("speed", "ray", replicas=2, **mlp_)])[0]
    one = {**gpt, "steps": 1}
    memory = {
        (X, sched): (piped if (X, sched) == (2, "1f1b") else
                     fresh([cfg("speed", "ray", X, 8, sched, meter=True, **one)])[0])["memory"]
        for X in (2, 4)
        for sched in ("1f1b", "gpipe")
    }  # fmt: skip
    print(
        f"\nSpeed, OMP_NUM_THREADS=1 in every process, median of {args.steps} steps after {WARM_UP}:\n"
    )
    print("| workload | run | processes | step s | samples/s | vs one process |")
    print("|---|---|---|---|---|---|")
    gname = (
        f"GPT-like {args.layers} Blocks, hidden {args.hidden}, seq {args.seq}, batch {args.batch}"
    )
    mname = f"MLP {args.mlp_layers} x Dense({args.mlp_hidden}), batch {args.mlp_batch}"
    for name, run, r, ref, procs, batch in (
        (gname, "one process, whole batch", base, base, 1, args.batch),
        (gname, "one process, the same 8 micro-batches", micro_one, base, 1, args.batch),
        (gname, "Ray pipeline X=2 Y=8 (1F1B)", piped, base, 2, args.batch),
        (mname, "one process", dp_base, dp_base, 1, args.mlp_batch),
        (mname, "Ray data parallel N=2", dp, dp_base, 2, args.mlp_batch),
    ):
        print(f"| {name} | {run} | {procs} | {r['step_s']:.3f} | {batch / r['step_s']:.1f} | "
              f"{ref['step_s'] / r['step_s']:.2f}x |")  # fmt: skip
    ratio = piped["measured_us"] / piped["predicted_us"]
    costs = ", ".join(f"({f / 1e3:.1f}, {b / 1e3:.1f})" for f, b in piped["costs"])
    print(f"\nMeasured against simulated (X=2, Y=8, 1F1B, a metered step): stages' (forward, "
          f"backward) ms per micro-batch {costs}, link {piped['link_us'] / 1e3:.1f} ms; "
          f"measured {piped['measured_us'] / 1e6:.3f} s, simulated "
          f"{piped['predicted_us'] / 1e6:.3f} s, ratio {ratio:.2f}; timeline: {args.timeline}\n")  # fmt: skip
    print("Held activations per stage, measured in each stage's actor (bytes), Y=8:\n")
    print("| X | stage | 1F1B | GPipe | ratio | (X-s)/Y | met |")
    print("|---|---|---|---|---|---|---|")
    memory_ok = True
    for X in (2, 4):
        for s, (a, g) in enumerate(zip(memory[(X, "1f1b")], memory[(X, "gpipe")])):
            a, g = a["held_activation_bytes"], g["held_activation_bytes"]
            bound = (X - s) / 8
            good = a <= bound * g + 4 * 8  # + the micro-batches' f32 losses
            memory_ok &= good
            print(f"| {X} | {s} | {a} | {g} | {a / g:.3f} | {bound:.3f} | "
                  f"{'yes' if good else 'no'} |")  # fmt: skip
    pipe_speed, dp_speed = base["step_s"] / piped["step_s"], dp_base["step_s"] / dp["step_s"]
    yes = {True: "yes", False: "no"}
    print("\n| target | measured | met |")
    print("|---|---|---|")
    print(f"| losses and Parameters equal one process (<= 1e-5) | table above | {yes[equal_ok]} |")
    print(
        f"| Ray pipeline X=2 Y=8 >= 1.6x one process | {pipe_speed:.2f}x "
        f"({micro_one['step_s'] / piped['step_s']:.2f}x the same micro-batches) | "
        f"{yes[pipe_speed >= 1.6]} |"
    )
    print(f"| Ray data parallel N=2 >= 1.6x samples/s | {dp_speed:.2f}x | {yes[dp_speed >= 1.6]} |")
    print(
        f"| measured step within 25% of the simulated schedule | {ratio:.2f} | {yes[abs(ratio - 1) <= 0.25]} |"
    )
    print(f"| 1F1B held activations <= (X-s)/Y of GPipe's | table above | {yes[memory_ok]} |")


if __name__ == "__main__":
    main()
