"""Pipeline parallelism and lazy inline (issue 26): the scenario MindSpore's lazy_inline
documentation measures. "When pipeline parallel is turned on, the size of the single
node graph becomes (O/X)*Y": each stage's graph holds its O/X nodes once per
micro-batch. With `@lazy_inline` on the repeated Block, the micro-batch loop calls
one shared Block graph and a stage's graph stays near O/X.

Workload: the GPT-like network of examples/gpt.py (LazyBlock or Block) with
`--layers` Blocks (32), Block i on stage i * X // layers, trained through
`nn.PipelineCell(nn.WithLossCell(net, MSELoss), micro_size=Y)` and a
TrainOneStepCell with SGD, X = 4 stages, Y = 8 micro-batches (batch Y, sequence
`--seq`, hidden `--hidden`: node counts do not depend on the sizes).

Columns:
- nodes: graph nodes (passes/analysis/graph_nodes.py) of each stage graph that
  mindir-pipeline-split makes, after the mindir passes of jit level O1 (the
  shared Block graphs lazy inline keeps are counted once, in "shared");
- O: the nodes of the same train step on one device, one micro-batch, every
  Block inlined (the docs' single graph); O/X and (O/X)*Y are the docs' figures;
- compile s: the first call of the train step in graph mode (trace, passes,
  split, lowering, the numpy executor's plans), fresh process each.

Then each stage's activations, measured on the numpy executor
(backend/cpu/memory_meter.py) under 1F1B and under GPipe, against the (X - s)/Y
that 1F1B's order promises (mindir-pipeline-schedule).

Then the same train step (lazy inline) on the simulated Ascend-like device:
X devices, one per stage, under MindSpore's 1F1B (step time, bubble fraction
against (X-1)/(Y+X-1), each device's peak memory), against one device running
the same Y micro-batches (PipelineCell without stages) and one device running
the whole batch at once (no PipelineCell).

    .venv/bin/python benchmarks/pipeline.py [--layers 32] [--stages 4] [--micro 8]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples"))


def build(
    layers: int, hidden: int, seq: int, stages: int, micro: int, lazy: bool, cell: bool = True
):
    """The train step and its inputs, with the auto-parallel context set; `cell`:
    through nn.PipelineCell (always with stages > 1)."""
    from gpt import GPT, GPTConfig

    import mindjit as ms
    from mindjit import nn

    ms.set_context(mode=ms.GRAPH_MODE)
    if stages > 1:
        ms.set_auto_parallel_context(
            parallel_mode=ms.ParallelMode.SEMI_AUTO_PARALLEL, pipeline_stages=stages
        )
    net = GPT(GPTConfig(layers, hidden, seq, batch=micro), lazy=lazy)
    if stages > 1:
        for i, block in enumerate(net.blocks):
            block.pipeline_stage = i * stages // layers
    loss = nn.WithLossCell(net, nn.MSELoss())
    if stages > 1 or cell:
        loss = nn.PipelineCell(loss, micro_size=micro)
    step = nn.TrainOneStepCell(loss, nn.SGD(net.trainable_params(), learning_rate=0.01))
    step.set_train()
    rng = np.random.default_rng(0)
    x = ms.Tensor(rng.standard_normal((micro, seq, hidden)).astype(np.float32))
    y = ms.Tensor(rng.standard_normal((micro, seq, hidden)).astype(np.float32))
    return step, x, y


def count_nodes(args: argparse.Namespace, stages: int, micro: int, lazy: bool) -> dict:
    """Nodes per graph after the mindir passes (the split included when stages > 1)."""
    from xdsl.dialects import func

    from mindjit.dialects.mindir.discardable import LAZY_INLINE_ATTR, PIPELINE_OF_ATTR
    from mindjit.frontend.graph.program import new_compiler
    from mindjit.passes.analysis.graph_nodes import graph_nodes
    from mindjit.passes.pipelines import jit_level_pipeline, parse_pipeline, run_passes
    from mindjit.support.config import compile_options

    step, x, y = build(args.layers, args.hidden, args.seq, stages, micro, lazy)
    compiler = new_compiler(1 if lazy else 0)
    entry_name = "TrainOneStepCell_construct"
    compiler.entry(type(step).construct, step, (x, y), {}, entry_name)
    module = compiler.module.module
    run_passes(parse_pipeline(jit_level_pipeline("O1", compile_options("O1"))), module)
    stage_nodes, shared, entry = [], 0, 0
    for op in module.ops:
        if not isinstance(op, func.FuncOp) or not op.body.blocks:
            continue
        if PIPELINE_OF_ATTR in op.attributes:
            stage_nodes.append(graph_nodes(op))
        elif LAZY_INLINE_ATTR in op.attributes or op.sym_name.data != entry_name:
            shared += graph_nodes(op)
        else:
            entry = graph_nodes(op)
    return {"stages": stage_nodes, "shared": shared, "entry": entry}


def compile_seconds(args: argparse.Namespace, stages: int, micro: int, lazy: bool) -> dict:
    step, x, y = build(args.layers, args.hidden, args.seq, stages, micro, lazy)
    start = time.perf_counter()
    first = float(step(x, y).asnumpy())
    took = time.perf_counter() - start
    second = float(step(x, y).asnumpy())
    return {"compile_s": took, "losses": [first, second]}


def on_device(args: argparse.Namespace, stages: int, micro: int, lazy: bool) -> dict:
    """One train step on the simulated device(s): its report's times and memory."""
    import mindjit as ms
    from mindjit.frontend.graph import api

    ms.set_context(device_target="Ascend")
    step, x, y = build(args.layers, args.hidden, args.seq, stages, micro, lazy, args.cell)
    start = time.perf_counter()
    loss = float(step(x, y).asnumpy())
    took = time.perf_counter() - start
    report = api.cached_programs()[-1].executable.report
    if stages == 1:
        return {
            "compile_s": took,
            "loss": loss,
            "step_us": report["total_time_us"],
            "peak": [report["peak_memory_bytes"]],
        }
    return {
        "compile_s": took,
        "loss": loss,
        "step_us": report["step_time_us"],
        "serial_us": report["serial_time_us"],
        "bubble": report["bubble_fraction"],
        "theory": report["theoretical_bubble"],
        "peak": [d["peak_memory_bytes"] for d in report["devices"]],
    }


def activations(args: argparse.Namespace, stages: int, micro: int, lazy: bool) -> dict:
    """One train step on the numpy executor (threads, one per stage) with the memory
    meter (backend/cpu/memory_meter.py): each stage's measured peaks."""
    import mindjit as ms
    from mindjit.backend.cpu.memory_meter import MemoryMeter
    from mindjit.dialects.mindir.discardable import pipeline_stage_graphs
    from mindjit.frontend.graph import api

    ms.set_auto_parallel_context(pipeline_config={"pipeline_scheduler": args.schedule})
    step, x, y = build(args.layers, args.hidden, args.seq, stages, micro, lazy)
    step(x, y)
    program = api.cached_programs()[-1]
    meter = MemoryMeter()
    program.executable.memory_meter = meter
    step(x, y)
    names = [f.sym_name.data for f in pipeline_stage_graphs(program.module, program.entry_name)]
    peaks = [meter.peak(n) for n in names]
    return {
        "held": [p.held_activation_bytes for p in peaks],
        "activations": [p.activation_bytes for p in peaks],
        "intermediates": [p.intermediate_bytes for p in peaks],
    }


def worker(args: argparse.Namespace) -> None:
    what = {
        "nodes": count_nodes,
        "compile": compile_seconds,
        "device": on_device,
        "memory": activations,
    }[args.worker]
    print(json.dumps(what(args, args.stages, args.micro, args.lazy)))


def fresh(
    args: argparse.Namespace,
    what: str,
    stages: int,
    micro: int,
    lazy: bool,
    cell: bool = True,
    schedule: str = "1f1b",
) -> dict:
    cmd = (
        [
            sys.executable,
            __file__,
            "--worker",
            what,
            "--layers",
            str(args.layers),
            "--hidden",
            str(args.hidden),
            "--seq",
            str(args.seq),
            "--stages",
            str(stages),
            "--micro",
            str(micro),
            "--schedule",
            schedule,
        ]
        + (["--lazy"] if lazy else [])
        + (["--cell"] if cell else [])
    )
    # lazy inline keeps the Block graph from MS_DEV_CELL_REUSE=1 on (MindSpore's switch)
    env = {**os.environ, "MS_DEV_CELL_REUSE": "1" if lazy else "0"}
    out = subprocess.run(cmd, capture_output=True, text=True, check=False, cwd=ROOT, env=env)
    if out.returncode != 0:
        raise SystemExit(f"worker failed: {' '.join(cmd)}\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--layers", type=int, default=32)
    p.add_argument("--hidden", type=int, default=64)
    p.add_argument("--seq", type=int, default=8)
    p.add_argument("--stages", type=int, default=4)
    p.add_argument("--micro", type=int, default=8)
    p.add_argument("--schedule", default="1f1b", help=argparse.SUPPRESS)
    p.add_argument("--lazy", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--cell", action="store_true", help=argparse.SUPPRESS)
    p.add_argument(
        "--worker", choices=("nodes", "compile", "device", "memory"), help=argparse.SUPPRESS
    )
    args = p.parse_args()
    if args.worker:
        worker(args)
        return
    X, Y = args.stages, args.micro
    one = fresh(args, "nodes", 1, 1, False)["entry"]
    rows = {lazy: fresh(args, "nodes", X, Y, lazy) for lazy in (False, True)}
    comp = {lazy: fresh(args, "compile", X, Y, lazy) for lazy in (False, True)}
    print(
        f"GPT-like, {args.layers} Blocks (hidden {args.hidden}, sequence {args.seq}), "
        f"X={X} stages, Y={Y} micro-batches; O = {one} nodes (one device, one micro-batch)\n"
    )
    print(
        "| lazy inline | nodes per stage graph | shared graphs | max / (O/X) | max / ((O/X)*Y) | compile s |"
    )
    print("|---|---|---|---|---|---|")
    for lazy in (False, True):
        r = rows[lazy]
        top = max(r["stages"])
        print(
            f"| {'yes' if lazy else 'no'} | {' / '.join(map(str, r['stages']))} | {r['shared']} "
            f"| {top / (one / X):.2f} | {top / (one / X * Y):.2f} | {comp[lazy]['compile_s']:.2f} |"
        )
    lazy_ratio = max(rows[True]["stages"]) / (one / X)
    speedup = comp[False]["compile_s"] / comp[True]["compile_s"]
    same = np.allclose(comp[False]["losses"], comp[True]["losses"], rtol=1e-4)

    # the simulated devices: X devices under 1F1B against one device
    piped = fresh(args, "device", X, Y, True)
    micro_one = fresh(args, "device", 1, Y, True)  # the same Y micro-batches on one device
    whole_one = fresh(args, "device", 1, Y, True, cell=False)  # the batch at once
    print()
    print("Simulated Ascend-like devices (1F1B, lazy inline; backend/ascend/DEVICE.md's link):\n")
    print(
        "| run | devices | step us | vs one device (same micro-batches) | bubble (theory) | peak memory per device B | compile s |"
    )
    print("|---|---|---|---|---|---|---|")
    print(
        f"| pipeline X={X}, Y={Y} | {X} | {piped['step_us']:.0f} | "
        f"{piped['step_us'] / micro_one['step_us']:.2f} | {piped['bubble']:.3f} "
        f"({piped['theory']:.3f}) | {' / '.join(map(str, piped['peak']))} | {piped['compile_s']:.2f} |"
    )
    print(
        f"| one device, Y={Y} micro-batches | 1 | {micro_one['step_us']:.0f} | 1.00 | | "
        f"{micro_one['peak'][0]} | {micro_one['compile_s']:.2f} |"
    )
    print(
        f"| one device, whole batch | 1 | {whole_one['step_us']:.0f} | "
        f"{whole_one['step_us'] / micro_one['step_us']:.2f} | | {whole_one['peak'][0]} | "
        f"{whole_one['compile_s']:.2f} |"
    )
    # measured on the numpy executor: each stage's activations under 1F1B and GPipe
    mem = {sched: fresh(args, "memory", X, Y, True, schedule=sched) for sched in ("1f1b", "gpipe")}
    print()
    print(
        "Measured activations per stage (numpy executor, lazy inline; held between two "
        "works, backend/cpu/memory_meter.py):\n"
    )
    print(
        "| stage s | 1F1B held B | GPipe held B | 1F1B / GPipe | (X-s)/Y | all values 1F1B / GPipe B |"
    )
    print("|---|---|---|---|---|---|")
    memory_met = True
    for s in range(X):
        a, b = mem["1f1b"]["held"][s], mem["gpipe"]["held"][s]
        bound = (X - s) / Y
        memory_met &= a <= bound * b + 4 * Y  # + the micro-batches' f32 losses
        print(
            f"| {s} | {a} | {b} | {a / b:.3f} | {bound:.3f} | "
            f"{mem['1f1b']['intermediates'][s]} / {mem['gpipe']['intermediates'][s]} |"
        )
    step_ratio = piped["step_us"] / micro_one["step_us"]
    bubble_gap = abs(piped["bubble"] - piped["theory"])
    same_device = abs(piped["loss"] - micro_one["loss"]) <= 1e-4 * abs(micro_one["loss"])
    print()
    print("| target | value | met |")
    print("|---|---|---|")
    print(
        f"| lazy stage graph <= 1.5 x O/X | {lazy_ratio:.2f} x | {'yes' if lazy_ratio <= 1.5 else 'no'} |"
    )
    print(
        f"| compile without / with lazy inline >= 5 | {speedup:.1f} x | {'yes' if speedup >= 5 else 'no'} |"
    )
    print(
        f"| same losses with and without lazy inline | {comp[True]['losses']} | {'yes' if same else 'no'} |"
    )
    print(
        f"| {X} devices' step <= 0.4 x one device's (Y={Y}) | {step_ratio:.2f} x | {'yes' if step_ratio <= 0.4 else 'no'} |"
    )
    print(
        f"| bubble within 0.05 of (X-1)/(Y+X-1) | {bubble_gap:.3f} | {'yes' if bubble_gap <= 0.05 else 'no'} |"
    )
    print(
        f"| same loss on {X} devices and on one | {piped['loss']:.6f} / {micro_one['loss']:.6f} | {'yes' if same_device else 'no'} |"
    )
    print(
        f"| each stage's activations under 1F1B <= (X-s)/Y of GPipe's | measured above | {'yes' if memory_met else 'no'} |"
    )


if __name__ == "__main__":
    main()
