"""`ms-translate`: translate a .mlir file for a target.

    ms-translate --target=ascend-sim prog.mlir -o model.msmodel [--cell-reuse N]
                 [--streams N | --single-stream] [--align BYTES] [--emit-ir out.mlir]

The input may be mindir (lowered first, with the jit_level O1 pipeline when it
is not ordered yet: same as ms-run) or tensor-level MLIR. The device pipeline
(ascend-select-kernels, ascend-cell-reuse, ascend-execution-order,
ascend-plan-memory, ascend-assign-streams) runs, and the model file is written
(temporary file + rename). `--emit-ir` also writes the device IR. Errors are
`file:line:col: error: ...` and exit 1.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from mindjit.backend.ascend.compile import compile_for_device
from mindjit.backend.ascend.model_file import write_model
from mindjit.support.files import write_atomic
from mindjit.tools.cli import guarded
from mindjit.tools.ms_run import load_module

TARGETS = ("ascend-sim",)


def arg_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="ms-translate", description="Translate a .mlir file for a device target."
    )
    p.add_argument("file", help="the .mlir file ('-' reads stdin)")
    p.add_argument("--target", required=True, choices=TARGETS, help="the target format")
    p.add_argument("-o", "--output", required=True, metavar="PATH", help="the model file")
    p.add_argument(
        "--cell-reuse",
        type=int,
        choices=(0, 1, 2),
        default=None,
        help="MS_DEV_CELL_REUSE level for reused graphs (default: the variable, else 1)",
    )
    streams = p.add_mutually_exclusive_group()
    streams.add_argument("--streams", type=int, default=2, help="streams to use (default 2)")
    streams.add_argument("--single-stream", action="store_true", help="every kernel on one stream")
    p.add_argument("--align", type=int, default=512, help="memory alignment in bytes")
    p.add_argument("--emit-ir", metavar="PATH", help="also write the device IR here")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = arg_parser().parse_args(argv)
    return guarded("ms-translate", lambda: run(args))


def run(args: argparse.Namespace) -> None:

    module = load_module(args.file)
    streams = 1 if args.single_stream else args.streams
    model = compile_for_device(module, args.cell_reuse, streams, args.align)
    if args.emit_ir:
        write_atomic(args.emit_ir, f"{module}\n")
    write_model(model, args.output)


if __name__ == "__main__":
    sys.exit(main())
