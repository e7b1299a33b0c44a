"""`ms-opt`: mindjit's `mlir-opt`, an `xdsl-opt` with the mindir dialect and passes.

On top of xdsl-opt it accepts MLIR's `--pass-pipeline='builtin.module(...)'`, prints
the IR after every pass (`--print-ir-after-all`), a per-pass time table
(`--timing`), checks `// expected-error` comments (`--verify-diagnostics`), and
reports every user error as one `file:line:col: error: ...` line with exit code 1.
Its MLIR output carries the blobs of the `dense_resource` handles it uses, after
the module, as mlir-opt prints them (`ir/resource_section.py`).

Large inputs (issue 29): the round trip is linear and 1.1-1.3x xdsl-opt's ops/s
on a chain of 10k-160k `arith.addf` (benchmarks/parse_scale.py), by reading each
distinct type once (ir/compat/parsed_types.py), printing straight to the stream
(ir/compat/direct_printer.py) and holding full GC passes off while it runs.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipeline
from xdsl.printer import Printer
from xdsl.universe import Universe
from xdsl.xdsl_opt_main import xDSLOptMain

from mindjit.dialects.context import register_dialects
from mindjit.dialects.parsing import LocatingParser
from mindjit.dialects.verify import verify_located
from mindjit.driver.passes import mindjit_pass_factories
from mindjit.ir.compat.direct_printer import DirectMLIRTarget
from mindjit.ir.locations import from_xdsl_exception
from mindjit.ir.resource_section import section
from mindjit.passes.pipelines import parse_pipeline
from mindjit.passes.registry import extended_pass_factories
from mindjit.support.errors import MindjitError
from mindjit.support.files import write_atomic
from mindjit.support.gc_pause import no_full_collections
from mindjit.tools import diagnostics_check
from mindjit.tools.cli import guarded


class MsOptMain(xDSLOptMain):
    version_format = "ms-opt (mindjit) built on xdsl {xdsl_version}"

    def register_all_dialects(self) -> None:

        # xDSLOptMain's registration, with mindjit's completed upstream dialects
        # (ml_program) in place of xDSL's
        register_dialects(self.ctx, dict(Universe.get_multiverse().all_dialects))

    def register_all_passes(self) -> None:
        super().register_all_passes()
        # upstream passes in mindjit's extended form (canonicalize's region-simplify), then
        # mindjit's own
        for name, factory in {**extended_pass_factories(), **mindjit_pass_factories()}.items():
            self.register_pass(name, factory)

    def register_all_targets(self) -> None:
        super().register_all_targets()
        self.available_targets["mlir"] = lambda: DirectMLIRTarget

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser) -> None:
        super().register_all_arguments(arg_parser)
        arg_parser.add_argument(
            "--pass-pipeline",
            default="",
            help="MLIR-style pipeline, e.g. 'builtin.module(cse,canonicalize)'",
        )
        arg_parser.add_argument(
            "--print-ir-after-all",
            action="store_true",
            help="print the IR to stderr after every pass",
        )
        arg_parser.add_argument(
            "--timing",
            action="store_true",
            help="print a per-pass wall-time table to stderr",
        )

    def setup_pipeline(self) -> None:
        """Build the passes from -p and --pass-pipeline (both may be given, -p first)."""
        passes: list[ModulePass] = []
        for spec in (self.args.passes, self.args.pass_pipeline):
            if spec:
                passes.extend(parse_pipeline(spec, self.available_passes))
        self.pipeline = PassPipeline(tuple(passes))
        self.timings: list[tuple[str, float]] = []

    # --- running -------------------------------------------------------------------
    def _chunks(self) -> tuple[str, list[str]]:
        name = self.args.input_file or "<stdin>"
        if self.args.input_file is None:
            text = sys.stdin.read()
        else:
            try:
                with open(self.args.input_file, encoding="utf-8") as f:
                    text = f.read()
            except (OSError, UnicodeDecodeError) as exc:
                raise MindjitError(f"cannot read file: {exc}", name) from None
        if not self.args.split_input_file:
            return name, [text]
        parts = text.split("// -----")
        chunks, line = [], 0
        for part in parts:
            # pad with newlines so every op keeps its line number in the whole file
            chunks.append("\n" * line + part)
            line += part.count("\n")
        return name, chunks

    def _timed(self, label: str, fn):
        start = time.perf_counter()
        try:
            return fn()
        finally:
            self.timings.append((label, time.perf_counter() - start))

    def process_chunk(self, name: str, text: str) -> str:
        module = self._timed("parse", lambda: self._parse(name, text))
        if not self.args.disable_verify:
            self._timed("verify", lambda: verify_located(module))
        for p in self.pipeline.passes:
            self._timed(p.name, lambda p=p: self._apply(p, module))
            if not self.args.disable_verify:
                self._timed("verify", lambda: verify_located(module))
            if self.args.print_ir_after_all:
                print(f"// -----// IR Dump After {p.name} //----- //", file=sys.stderr)
                Printer(stream=sys.stderr).print_op(module)
                print(file=sys.stderr)
        return self._timed("output", lambda: self.output_resulting_program(module))

    def output_resulting_program(self, prog: ModuleOp) -> str:
        text = super().output_resulting_program(prog)
        if self.args.target.split("{")[0] != "mlir":
            return text
        return text + section(prog)  # xDSL's text ends with a blank line, as MLIR's

    def _parse(self, name: str, text: str) -> ModuleOp:
        try:
            return LocatingParser(self.ctx, text, name).parse_module(
                not self.args.no_implicit_module
            )
        except Exception as exc:
            raise from_xdsl_exception(exc, name) from None

    def _apply(self, p: ModulePass, module: ModuleOp) -> None:
        try:
            p.apply(self.ctx, module)
        except MindjitError:
            raise
        except Exception as exc:
            err = from_xdsl_exception(exc)
            raise MindjitError(f"pass '{p.name}' failed: {err.message}", err.loc) from None

    def run(self) -> int:
        # the parsed module lives until the end and holds little cyclic garbage: full
        # collections re-scan it for nothing (8-15% of parsing a 40k-op file)
        with no_full_collections():
            return self._run()

    def _run(self) -> int:
        name, chunks = self._chunks()
        outputs: list[str] = []
        problems: list[str] = []
        for text in chunks:
            try:
                outputs.append(self.process_chunk(name, text))
            except MindjitError as err:
                if not self.args.verify_diagnostics:
                    raise
                expected = diagnostics_check.collect_expected(text)
                problems += diagnostics_check.check(expected, [err], name)
                continue
            if self.args.verify_diagnostics:
                expected = diagnostics_check.collect_expected(text)
                problems += diagnostics_check.check(expected, [], name)
        self._write("// -----\n".join(outputs))
        if self.args.timing:
            self._print_timing()
        for line in problems:
            print(line, file=sys.stderr)
        return 1 if problems else 0

    def _write(self, text: str) -> None:
        if self.args.output_file is None:
            sys.stdout.write(text)
            return

        write_atomic(self.args.output_file, text)

    def _print_timing(self) -> None:
        totals: dict[str, float] = {}
        for label, seconds in self.timings:
            totals[label] = totals.get(label, 0.0) + seconds
        total = sum(totals.values()) or 1e-12
        out = sys.stderr
        print("===" + "-" * 73 + "===", file=out)
        print(" " * 26 + "... Execution time report ...", file=out)
        print("===" + "-" * 73 + "===", file=out)
        print(f"  Total Execution Time: {total:.4f} seconds\n", file=out)
        print("  ----Wall Time----  ----Name----", file=out)
        for label, seconds in totals.items():
            print(f"  {seconds:8.4f} ({100 * seconds / total:5.1f}%)  {label}", file=out)
        print(f"  {total:8.4f} (100.0%)  Total", file=out)


def main(argv: Sequence[str] | None = None) -> int:
    return guarded(
        "ms-opt",
        lambda: MsOptMain(description="mindjit's modular optimizer driver", args=argv).run(),
    )


if __name__ == "__main__":
    sys.exit(main())
