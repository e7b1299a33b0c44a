"""`ms-run`: run one function of a .mlir file on the CPU (numpy executor or IREE).

    ms-run prog.mlir --entry f --input 'tensor<2x3xf32>=[[1,2,3],[4,5,6]]' --input-npy b.npy
    ms-run prog.mlir --entry f ... --output-npy out0.npy --benchmark 100
    ms-run prog.mlir --entry f --backend iree ...   # compiled by IREE (llvm-cpu, host CPU)

`--backend` defaults to MINDJIT_BACKEND (else numpy). A program IREE cannot run
(e.g. the float-status ops) is an error with the reason under `--backend iree`:
the tool runs what it is asked to, or says why not.

mindir input is first lowered to upstream tensor-level dialects.  Inputs are
taken in the order given (`--input` and `--input-npy` mixed).  Parameters
(`ml_program` globals) start at their initial values; prints go to stdout, before
the results.  Every user
error is one `location: error: message` line on stderr and exit code 1.
"""

from __future__ import annotations

import argparse
import io
import statistics
import sys
import time
from collections.abc import Sequence
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Attribute
from xdsl.parser import Parser
from xdsl.utils.exceptions import ParseError

from mindjit.backend.cpu import CpuExecutable
from mindjit.backend.cpu.pipeline_run import pipeline_plan
from mindjit.backend.cpu.types import dense_array
from mindjit.backend.iree.executable import IreeExecutable
from mindjit.backend.iree.pipeline_executable import IreePipelineExecutable
from mindjit.backend.iree.pipeline_executable import iree_executable as build_iree
from mindjit.backend.iree.prepare import IreeUnsupported
from mindjit.dialects.context import make_context
from mindjit.dialects.parsing import at_end, parse_file
from mindjit.ir.locations import from_xdsl_exception
from mindjit.passes.pipelines import compile_to_tensor
from mindjit.support import config
from mindjit.support.config import BACKENDS
from mindjit.support.errors import MindjitError
from mindjit.support.files import write_atomic
from mindjit.tools.cli import guarded


class _InOrder(argparse.Action):
    """Collects --input and --input-npy into one list, keeping their order."""

    def __call__(
        self, parser: Any, namespace: Any, values: Any, option_string: str | None = None
    ) -> None:
        items = getattr(namespace, self.dest, None) or []
        items.append((option_string, values))
        setattr(namespace, self.dest, items)


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def arg_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="ms-run", description="Run a function of a .mlir file on the CPU."
    )
    p.add_argument("file", help="the .mlir file ('-' reads stdin)")
    p.add_argument("--entry", required=True, help="name of the function to run")
    p.add_argument(
        "--input",
        dest="inputs",
        action=_InOrder,
        metavar="TYPE=LITERAL",
        help="an input as MLIR dense literal, e.g. 'tensor<2xf32>=[1,2]' (repeatable)",
    )
    p.add_argument(
        "--input-npy",
        dest="inputs",
        action=_InOrder,
        metavar="PATH",
        help="an input read from a .npy file (repeatable, mixes with --input in order)",
    )
    p.add_argument(
        "--output-npy",
        action="append",
        default=[],
        metavar="PATH",
        help="write result i to the i-th path instead of printing (one per result)",
    )
    p.add_argument(
        "--backend",
        choices=BACKENDS,
        default=None,
        help="what runs the program: the numpy executor or IREE (default: $MINDJIT_BACKEND, else numpy)",
    )
    p.add_argument(
        "--benchmark",
        type=_positive,
        metavar="N",
        help="after one warm-up call, time N calls and print the median",
    )
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = arg_parser().parse_args(argv)
    return guarded("ms-run", lambda: run(args))


def run(args: argparse.Namespace) -> None:

    module = load_module(args.file)
    backend = args.backend or config.backend()
    exe: Any = CpuExecutable(module) if backend == "numpy" else iree_executable(module, args.entry)
    split = isinstance(exe, CpuExecutable) and exe.pipeline(args.entry) is not None
    if args.entry not in exe.entry_names() and not split:  # a split graph runs by its name
        available = ", ".join(f"@{n}" for n in exe.entry_names()) or "none"
        raise MindjitError(
            f"no function @{args.entry} in {args.file}; available: {available}", args.file
        )
    _, out_types = exe.signature(args.entry)
    inputs = [read_input(kind, value, i) for i, (kind, value) in enumerate(args.inputs or [])]
    if args.output_npy and len(args.output_npy) != len(out_types):
        raise MindjitError(
            f"@{args.entry} has {len(out_types)} result(s) but {len(args.output_npy)} --output-npy path(s) were given",
            "ms-run",
        )
    results = exe.run(args.entry, *inputs)
    emit_results(results, args.output_npy)
    if args.benchmark:
        print(
            f"median {benchmark(exe, args.entry, inputs, args.benchmark):.9f} s/call over {args.benchmark} runs"
        )


def iree_executable(module: ModuleOp, entry: str) -> IreeExecutable | IreePipelineExecutable:
    """IREE's executable for `entry` (one module per stage for a graph split into
    pipeline stages); a missing entry is checked by `run` first."""
    names = [op.sym_name.data for op in module.body.block.ops if isinstance(op, func.FuncOp)]
    known = entry in names or pipeline_plan(module, entry) is not None
    try:
        return build_iree(module, entry if known else None, driver=config.iree_driver())
    except IreeUnsupported as exc:
        raise MindjitError(
            f"the iree backend cannot run this program: {exc.message} (use --backend numpy)",
            exc.loc,
        ) from None


def load_module(path: str) -> ModuleOp:
    """Parse the file; lower mindir to upstream dialects when it has any."""

    module = parse_file(path)
    if any(op.name.startswith("mindir.") for op in module.walk()):
        compile_to_tensor(module)
    return module


def read_input(kind: str, value: str, index: int) -> Any:
    if kind == "--input-npy":
        return read_npy(value)
    return parse_literal(value, index)


def read_npy(path: str) -> np.ndarray:
    try:
        with open(path, "rb") as f:
            if f.read(6) != b"\x93NUMPY":
                raise MindjitError("cannot read npy file: not in .npy format", path)
        return np.load(path, allow_pickle=False)
    except OSError as exc:
        raise MindjitError(f"cannot read npy file: {exc.strerror or exc}", path) from None
    except ValueError as exc:
        raise MindjitError(f"cannot read npy file: {exc}", path) from None


def parse_literal(spec: str, index: int) -> Any:
    """`TYPE=LITERAL` -> numpy value, parsing `dense<LITERAL> : TYPE` with xDSL."""

    where = f"<input {index}>"
    type_text, sep, literal = spec.partition("=")
    if not sep or not literal.strip():
        raise MindjitError(
            f"expected TYPE=LITERAL, e.g. 'tensor<2xf32>=[1,2]', got '{spec}'", where
        )
    ctx = make_context()
    type_text, literal = type_text.strip(), literal.strip()
    t = _parse_whole(ctx, type_text, where, f"bad type '{type_text}'")
    what = f"bad literal '{literal}' for {type_text}"
    if isinstance(t, TensorType):
        return dense_array(_parse_whole(ctx, f"dense<{literal}> : {type_text}", where, what), t)
    # a scalar is read as the one element of a 0-d tensor of its type
    t0 = TensorType(t, [])
    return dense_array(_parse_whole(ctx, f"dense<{literal}> : {t0}", where, what), t0)[()]


def _parse_whole(ctx: Any, text: str, where: str, what: str) -> Attribute:
    """Parse all of `text` as a type (`what` starts with 'bad type') or attribute."""
    parser = Parser(ctx, text, where)
    try:
        attr = parser.parse_type() if what.startswith("bad type") else parser.parse_attribute()
        if not at_end(parser):
            raise MindjitError(f"{what}: unexpected trailing text", where)
    except ParseError as exc:
        raise MindjitError(f"{what}: {from_xdsl_exception(exc).message}", where) from None
    return attr


def emit_results(results: Sequence[Any], npy_paths: Sequence[str]) -> None:
    """Write result i to the i-th .npy path, or print them all when no path is given."""
    if npy_paths:
        for path, value in zip(npy_paths, results):
            write_npy(path, value)
    else:
        for value in results:
            print(repr(value))


def write_npy(path: str, value: np.ndarray) -> None:
    """Write atomically: temp file in the same directory, then os.replace."""

    buffer = io.BytesIO()
    np.save(buffer, np.asarray(value), allow_pickle=False)
    write_atomic(path, buffer.getvalue())


def benchmark(exe: Any, entry: str, inputs: list[Any], runs: int) -> float:
    """Median wall time of one call, after one warm-up call."""
    exe.run(entry, *inputs)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        exe.run(entry, *inputs)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


if __name__ == "__main__":
    sys.exit(main())
