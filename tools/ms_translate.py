"""`ms-translate`: translate a .mlir file for a target.

    ms-translate --target=ascend-sim prog.mlir -o model.msmodel [--cell-reuse N]
                 [--streams N | --single-stream] [--align BYTES] [--emit-ir out.mlir]
    ms-translate --target=iree-input prog.mlir -o iree_input.mlir [--entry f]
    ms-translate --target=iree prog.mlir -o prog.vmfb [--entry f] [--emit-ir iree_input.mlir]

`iree-input` writes what the iree backend gives `iree-compile`
(backend/iree/prepare.py: Parameters as arguments and results, print imports,
tagged checks, reused lazy-inline graphs as modules of their own, `// -----`
between modules); `iree` compiles it (llvm-cpu, host CPU) and writes the entry's
vmfb (a program with reused graphs needs their modules too: use `iree-input`).

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

from xdsl.dialects.builtin import ModuleOp

from mindjit.backend.ascend.compile import compile_for_device
from mindjit.backend.ascend.model_file import write_model
from mindjit.backend.iree.prepare import IreeUnsupported, prepare
from mindjit.backend.iree.toolchain import compile_vmfb
from mindjit.ir.resource_section import module_text
from mindjit.support.errors import MindjitError
from mindjit.support.files import write_atomic
from mindjit.tools.cli import guarded
from mindjit.tools.ms_run import load_module

TARGETS = ("ascend-sim", "iree-input", "iree")


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
    p.add_argument(
        "--emit-ir", metavar="PATH", help="also write the device (or IREE's input) IR here"
    )
    p.add_argument(
        "--entry", help="iree targets: the function callers use (default: every public one)"
    )
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = arg_parser().parse_args(argv)
    return guarded("ms-translate", lambda: run(args))


def run(args: argparse.Namespace) -> None:

    module = load_module(args.file)
    if args.target != "ascend-sim":
        translate_for_iree(module, args)
        return
    streams = 1 if args.single_stream else args.streams
    model = compile_for_device(module, args.cell_reuse, streams, args.align)
    if args.emit_ir:
        write_atomic(args.emit_ir, module_text(module))
    write_model(model, args.output)


def translate_for_iree(module: ModuleOp, args: argparse.Namespace) -> None:
    try:
        prepared = prepare(module, [args.entry] if args.entry else None)
    except IreeUnsupported as exc:
        raise MindjitError(
            f"the iree backend cannot run this program: {exc.message}", exc.loc
        ) from None
    text = "\n// -----\n".join([*(t for _, t in prepared.parts), prepared.text]) + "\n"
    if args.target == "iree-input":
        write_text(args.output, text)
        return
    if prepared.parts:
        raise MindjitError(
            "this program's reused lazy-inline graphs are modules of their own: "
            "use --target=iree-input and compile each module",
            args.file,
        )
    if args.emit_ir:
        write_atomic(args.emit_ir, text)
    write_atomic(args.output, compile_vmfb(prepared.text, "llvm-cpu"))


def write_text(path: str, text: str) -> None:
    if path == "-":
        sys.stdout.write(text)
    else:
        write_atomic(path, text)


if __name__ == "__main__":
    sys.exit(main())
