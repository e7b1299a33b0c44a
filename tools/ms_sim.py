"""`ms-sim`: run a device model file on the simulated Ascend-like device.

    ms-sim model.msmodel [--entry NAME] --input 'tensor<2xf32>=[1,2]' --input-npy x.npy
           [--output-npy out0.npy] [--report-json report.json] [--timeline out.svg]
           [--device name=value ...] [--device-config device.json]
    ms-sim stage0.msmodel stage1.msmodel ... --micro-batches Y [--schedule 1f1b|gpipe] ...

Inputs and outputs work as in ms-run. The file is validated before anything
runs. Prints the outputs, then the report: simulated time (total, per stream),
the per-kernel table, peak device memory against the lower bound and the
float-status register. `--report-json` writes the report as JSON, `--timeline`
draws kernels per stream and memory over time as an SVG. `--device` and
`--device-config` override the device's figures (backend/ascend/DEVICE.md).

Several model files are the stages of a pipeline (the `<graph>_stage<k>.msmodel`
files graph mode saves): one simulated device each, all run at once with the same
inputs, their Send and Receive kernels passing tensors. The outputs are printed
device by device, then the pipeline's report: the step time of the schedule
(`--schedule`, MindSpore's 1F1B by default, over `--micro-batches` Y), each
device's busy time and peak memory, the bubble fraction beside the theory;
`--timeline` draws one lane per device (forward, backward, link transfers).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from mindjit.backend.ascend.device import DeviceConfig, configured, load_config
from mindjit.backend.ascend.model_file import read_model
from mindjit.backend.ascend.pipeline_executable import DevicePipeline, format_pipeline_report
from mindjit.backend.ascend.pipeline_schedule import SCHEDULES
from mindjit.backend.ascend.report import format_report
from mindjit.backend.ascend.simulator import Simulator
from mindjit.backend.ascend.timeline import write_timeline
from mindjit.support.errors import MindjitError
from mindjit.support.files import write_atomic
from mindjit.tools.cli import guarded
from mindjit.tools.ms_run import _InOrder, emit_results, read_input


def arg_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="ms-sim", description="Run a model file on the simulated Ascend-like device."
    )
    p.add_argument(
        "files",
        nargs="+",
        metavar="file",
        help="the model file (from ms-translate --target=ascend-sim); several: a pipeline's stages",
    )
    p.add_argument(
        "--micro-batches",
        type=int,
        default=1,
        metavar="Y",
        help="a pipeline's micro-batches per step (several model files)",
    )
    p.add_argument(
        "--schedule",
        choices=SCHEDULES,
        default="1f1b",
        help="a pipeline's schedule (several model files; default 1f1b, MindSpore's)",
    )
    p.add_argument("--entry", help="the entry graph to run (default: the first)")
    p.add_argument("--input", dest="inputs", action=_InOrder, metavar="TYPE=LITERAL")
    p.add_argument("--input-npy", dest="inputs", action=_InOrder, metavar="PATH")
    p.add_argument("--output-npy", action="append", default=[], metavar="PATH")
    p.add_argument("--report-json", metavar="PATH", help="write the report as JSON")
    p.add_argument("--timeline", metavar="PATH", help="draw the run as an SVG picture")
    p.add_argument(
        "--device",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="override one device figure, e.g. launch_us=2 (repeatable)",
    )
    p.add_argument("--device-config", metavar="PATH", help="device figures from a JSON file")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = arg_parser().parse_args(argv)
    return guarded("ms-sim", lambda: run(args))


def run(args: argparse.Namespace) -> None:
    try:
        _run(args)
    except MindjitError as err:  # located at the model file, as ms-run locates its input
        if err.loc is None:
            err.loc = args.files[0] if len(args.files) == 1 else "ms-sim"
        raise


def _run(args: argparse.Namespace) -> None:

    settings = load_config(args.device_config) if args.device_config else {}
    for item in args.device:
        name, sep, value = item.partition("=")
        if not sep:
            raise MindjitError(f"expected --device NAME=VALUE, got '{item}'", "ms-sim")
        settings[name.strip()] = value.strip()
    config = configured(None, settings)
    if len(args.files) > 1:
        run_pipeline_files(args, config)
        return
    args.file = args.files[0]
    model = read_model(args.file)
    sim = Simulator(model, config)
    inputs = [read_input(kind, value, i) for i, (kind, value) in enumerate(args.inputs or [])]
    graph = model.graphs[sim.entry_index(args.entry)]
    if args.output_npy and len(args.output_npy) != len(graph.outputs):
        raise MindjitError(
            f"'{graph.name}' has {len(graph.outputs)} result(s) but "
            f"{len(args.output_npy)} --output-npy path(s) were given",
            "ms-sim",
        )
    outputs = sim.run(inputs, args.entry)
    emit_results(outputs, args.output_npy)
    print(format_report(sim.report))
    if args.report_json:
        write_atomic(args.report_json, json.dumps(sim.report, indent=1) + "\n")
    if args.timeline:
        write_timeline(sim.report, args.timeline, title=f"{graph.name} on the simulated device")
        print(f"timeline: {args.timeline}")


def run_pipeline_files(args: argparse.Namespace, config: DeviceConfig) -> None:
    """Several model files: the stages of a pipeline, one device each."""
    if args.entry or args.output_npy:
        raise MindjitError(
            "--entry and --output-npy take one model file; a pipeline runs each file's "
            "first entry graph",
            "ms-sim",
        )
    sims = [Simulator(read_model(path), config) for path in args.files]
    graphs = [sim.model.graphs[sim.entry_index(None)].name for sim in sims]
    pipeline = DevicePipeline(sims, graphs, args.micro_batches, args.schedule)
    inputs = [read_input(kind, value, i) for i, (kind, value) in enumerate(args.inputs or [])]
    outputs = pipeline.run(inputs)
    for k, (_, indices) in enumerate(pipeline.plan.stages):
        if indices:
            print(f"device {k}:")
            emit_results([outputs[i] for i in indices], [])
    assert pipeline.report is not None
    print(format_pipeline_report(pipeline.report))
    if args.report_json:
        write_atomic(args.report_json, json.dumps(pipeline.report, indent=1) + "\n")
    if args.timeline:
        pipeline.write_timeline(args.timeline, f"{len(sims)} simulated devices")
        print(f"timeline: {args.timeline}")


if __name__ == "__main__":
    sys.exit(main())
