"""A pipelined graph on X simulated devices: one model file per stage, run at once.

`mindir-pipeline-split` cut the graph into stage graphs; each is compiled for a
device of its own (stage_modules.py: its graph, its callees, its Parameters),
with its own kernels, execution order, memory plan and model file
(`<entry>_stage<k>.msmodel` under MS_DEV_SAVE_GRAPHS_PATH). A call runs every
device's simulator at once, one thread each, their Send and Receive kernels
meeting in a `ChannelHub` (backend/cpu/pipeline_run.py): values are exactly what
the stages compute.

Time: each device's simulator times its own graph alone. The step time of the
pipeline is the schedule's (pipeline_schedule.py: MindSpore's 1F1B, or GPipe),
fed with each stage's forward and backward time per micro-batch and the bytes it
sends, over the link model of `DeviceConfig`. A stage's forward is every step
that the tensors it sends on to the next stage (the last stage: the graph's
results, the loss) are computed from; the rest of its graph is its backward
(and its optimizer update, which MindSpore also runs after the last backward).
The report (`report`) gives the step time, each device's busy time, peak memory
and share of the forward, and the bubble fraction beside the theory.
"""

from __future__ import annotations

import json
import os
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

from mindjit.backend.ascend.device import DeviceConfig
from mindjit.backend.ascend.executable import AscendExecutable
from mindjit.backend.ascend.model import DeviceModel, Graph, Step
from mindjit.backend.ascend.pipeline_schedule import Link, StageCost, Timeline, simulate
from mindjit.backend.ascend.pipeline_timeline import pipeline_svg, write_pipeline_timeline
from mindjit.backend.ascend.simulator import Simulator
from mindjit.backend.ascend.stage_modules import stage_module
from mindjit.backend.cpu.pipeline_run import PipelinePlan, run_pipeline
from mindjit.dialects.mindir.discardable import micro_batches
from mindjit.support.errors import MindjitError
from mindjit.support.files import write_dump


class DevicePipeline:
    """X simulators, one per stage graph: run at once for values, then timed by the
    schedule (module doc). Used by the executable below and by `ms-sim` with
    several model files."""

    def __init__(
        self,
        sims: list[Simulator],
        graphs: list[str],
        micro_batches: int,
        schedule: str = "1f1b",
        results: list[tuple[int, ...]] | None = None,
    ):
        if micro_batches < 1:
            raise MindjitError(f"micro-batches must be at least 1, got {micro_batches}")
        self.sims, self.graphs = sims, graphs
        self.micro_batches, self.schedule = micro_batches, schedule
        if results is None:  # each stage's results after the previous stage's
            results, n = [], 0
            for sim, g in zip(sims, graphs):
                k = len(sim.model.graphs[sim.entry_index(g)].outputs)
                results.append(tuple(range(n, n + k)))
                n += k
        self.plan = PipelinePlan(
            graphs[-1], tuple(zip(graphs, results)), sum(len(r) for r in results)
        )
        self.config = sims[0].config
        channels = _channel_stages([sim.model for sim in sims])
        #: each stage's (forward share of its time, bytes sent forward, bytes sent back):
        #: fixed by its model, found once
        self.shares = [
            _forward_share(sim.model, graph, k, channels, self.config)
            for k, (sim, graph) in enumerate(zip(sims, graphs))
        ]
        self.report: dict[str, Any] | None = None
        self.timeline: Timeline | None = None
        self.costs: list[StageCost] = []
        self.link = Link(self.config.link_latency_us, self.config.link_bytes_per_us)

    def run(self, args: Any) -> tuple[np.ndarray, ...]:
        outputs = run_pipeline(_Devices(self), self.plan, args)
        self.report = self._report()
        return outputs

    def _report(self) -> dict[str, Any]:
        y = self.micro_batches
        costs, devices = [], []
        for k, (sim, graph) in enumerate(zip(self.sims, self.graphs)):
            rep = sim.report or {}
            total = float(rep.get("total_time_us", 0.0))
            forward_share, sent_forward, sent_backward = self.shares[k]
            costs.append(
                StageCost(
                    forward_us=total * forward_share / y,
                    backward_us=total * (1 - forward_share) / y,
                    activation_bytes=sent_forward // y,
                    gradient_bytes=sent_backward // y,
                )
            )
            devices.append(
                {
                    "device": k,
                    "graph": graph,
                    "alone_us": total,
                    "forward_share": forward_share,
                    "peak_memory_bytes": rep.get("peak_memory_bytes", 0),
                    "sent_bytes": sent_forward + sent_backward,
                }
            )
        timeline = simulate(costs, y, self.link, self.schedule)
        self.timeline, self.costs = timeline, costs
        for d in devices:
            d["busy_us"] = timeline.busy_us(d["device"])
            d["micro_batches_held"] = timeline.max_in_flight(d["device"])
        return {
            "schedule": self.schedule,
            "stages": len(self.sims),
            "micro_batches": y,
            "step_time_us": timeline.step_us,
            "serial_time_us": sum(d["alone_us"] for d in devices),
            "bubble_fraction": timeline.bubble_fraction(),
            "theoretical_bubble": timeline.theoretical_bubble(),
            "link": {"latency_us": self.link.latency_us, "bytes_per_us": self.link.bytes_per_us},
            "devices": devices,
            "slots": [
                {
                    "device": s.device,
                    "kind": s.kind,
                    "micro": s.micro,
                    "start_us": s.start_us,
                    "end_us": s.end_us,
                }
                for s in timeline.slots
            ],
        }

    def write_timeline(self, path: str, title: str = "") -> None:
        """The last step as an SVG: one lane per device (pipeline_timeline.py)."""
        if self.timeline is None:
            raise MindjitError("the pipeline has not run yet: no timeline to draw")
        write_pipeline_timeline(self.timeline, self.costs, self.link, path, title)


def format_pipeline_report(report: dict[str, Any]) -> str:
    """The pipeline report as text (ms-sim with several model files)."""
    lines = [
        f"pipeline: {report['stages']} devices, {report['micro_batches']} micro-batches, "
        f"{report['schedule']} schedule",
        f"step time: {report['step_time_us']:.2f} us (the stages one after another on one "
        f"device: {report['serial_time_us']:.2f} us)",
        f"bubble fraction: {report['bubble_fraction']:.3f} (theory (X-1)/(Y+X-1): "
        f"{report['theoretical_bubble']:.3f})",
        f"link: {report['link']['latency_us']:g} us + bytes / {report['link']['bytes_per_us']:g} B/us",
    ]
    for d in report["devices"]:
        lines.append(
            f"  device {d['device']} ({d['graph']}): busy {d['busy_us']:.2f} us, forward "
            f"{d['forward_share']:.0%}, peak memory {d['peak_memory_bytes']} B, sends "
            f"{d['sent_bytes']} B, holds {d['micro_batches_held']} micro-batches"
        )
    return "\n".join(lines)


class AscendPipelineExecutable:
    """The CPU executable's interface over X device executables (module doc)."""

    def __init__(
        self,
        module: ModuleOp,
        entry: str,
        plan: PipelinePlan,
        save_dir: str | None = None,
        cell_reuse: int | None = None,
        schedule: str = "1f1b",
    ):
        self.entry = entry
        self.stages = [
            AscendExecutable(stage_module(module, name), name, save_dir, cell_reuse)
            for name, _ in plan.stages
        ]
        first = next(
            op
            for op in module.ops
            if isinstance(op, func.FuncOp) and op.sym_name.data == plan.stages[0][0]
        )
        self.pipeline = DevicePipeline(
            [exe.simulator for exe in self.stages],
            [name for name, _ in plan.stages],
            micro_batches(first),
            schedule,
            [indices for _, indices in plan.stages],
        )
        self._owner: dict[str, AscendExecutable] = {}
        for exe in self.stages:
            for name in exe.simulator.parameter_tensors:
                self._owner.setdefault(name, exe)
        self.save_dir = save_dir

    @property
    def report(self) -> dict[str, Any] | None:
        return self.pipeline.report

    def plan_for(self, name: str) -> None:
        pass

    def set_global(self, name: str, value: Any) -> None:
        self._param_owner(name).set_global(name, value)

    def get_global(self, name: str) -> np.ndarray:
        return self._param_owner(name).get_global(name)

    def _param_owner(self, name: str) -> AscendExecutable:
        exe = self._owner.get(name)
        if exe is None:
            raise MindjitError(f"no device of the pipeline holds Parameter @{name}")
        return exe

    def run(self, name: str, *args: Any) -> tuple[np.ndarray, ...]:
        if name != self.entry:
            raise MindjitError(f"the pipeline runs graph @{self.entry}, not @{name}")
        first = self.pipeline.report is None
        outputs = self.pipeline.run(args)
        if first and self.save_dir is not None:  # dumps, beside the stages' model files
            base = os.path.join(self.save_dir, self.entry)
            write_dump(f"{base}.pipeline.json", json.dumps(self.report, indent=1) + "\n")
            p = self.pipeline
            assert p.timeline is not None  # it has just run
            svg = pipeline_svg(p.timeline, p.costs, p.link, self._title())
            write_dump(f"{base}.pipeline.svg", svg)
        return outputs

    def write_timeline(self, path: str) -> None:
        self.pipeline.write_timeline(path, self._title())

    def _title(self) -> str:
        return f"@{self.entry} on {len(self.stages)} devices"


class _Devices:
    """What run_pipeline drives: `run(stage)` on its simulator, `channels` on them all."""

    def __init__(self, pipeline: DevicePipeline):
        self.by_name = dict(zip(pipeline.graphs, pipeline.sims))
        self.sims = pipeline.sims

    def plan_for(self, name: str) -> None:
        pass

    def run(self, name: str, *args: Any) -> list[np.ndarray]:
        return self.by_name[name].run(args, name)

    @property
    def channels(self) -> Any:
        return self.sims[0].channels

    @channels.setter
    def channels(self, hub: Any) -> None:
        for sim in self.sims:
            sim.channels = hub


# -- which steps are a stage's forward ----------------------------------------------------------


def _channel_stages(models: list[DeviceModel]) -> dict[str, tuple[int, int]]:
    """Each channel: (the device whose Send fills it, the device whose Receive reads it)."""
    found: dict[str, list[int]] = {}
    for k, model in enumerate(models):
        for g in model.graphs:
            for s in g.sequence:
                if s.op == "kernel" and s.name in ("Send", "Receive") and s.channel:
                    found.setdefault(s.channel, [-1, -1])[s.name == "Receive"] = k
    return {c: (s, r) for c, (s, r) in found.items()}


def _step_us(model: DeviceModel, step: Step, cfg: DeviceConfig) -> float:
    """What a step costs the device when issued alone: launch plus kernel time (a
    call: its graph's steps)."""
    if step.op == "kernel":
        return cfg.launch_us + cfg.kernel_us(step.unit, step.dtype, step.flops, step.bytes)
    if step.op == "call":
        return sum(_step_us(model, s, cfg) for s in model.graphs[step.graph].sequence)
    return 0.0


def _forward_share(
    model: DeviceModel,
    entry: str,
    stage: int,
    channels: dict[str, tuple[int, int]],
    cfg: DeviceConfig,
) -> tuple[float, int, int]:
    """The forward's share of the stage's time, and the bytes it sends forward and back."""
    graph: Graph = next(g for g in model.graphs if g.name == entry)
    last = max((r for _, r in channels.values()), default=stage) <= stage
    producer: dict[int, int] = {}  # activations only: a Parameter's Assign is no producer
    for i, s in enumerate(graph.sequence):
        for t in s.outputs:
            producer[t] = i
    seeds: list[int] = []
    sent_forward = sent_backward = 0
    for i, s in enumerate(graph.sequence):
        channel = _send_channel(model, s)
        if channel is None:
            continue
        nbytes = sum(model.tensors[t].nbytes for t in s.inputs)
        if channels.get(channel, (stage, -1))[1] > stage:
            seeds.append(i)
            sent_forward += nbytes
        else:
            sent_backward += nbytes
    if last or not seeds:
        seeds += [producer[t] for t in graph.outputs if t in producer]
    forward: set[int] = set()
    todo = list(seeds)
    while todo:
        i = todo.pop()
        if i in forward:
            continue
        forward.add(i)
        todo.extend(producer[t] for t in graph.sequence[i].inputs if t in producer)
    costs = [_step_us(model, s, cfg) for s in graph.sequence]
    total = sum(costs) or 1.0
    return sum(costs[i] for i in forward) / total, sent_forward, sent_backward


def _send_channel(model: DeviceModel, step: Step) -> str | None:
    """The channel global a Send kernel stores to, else None."""
    if step.op != "kernel" or step.name != "Send":
        return None
    return step.channel or None
