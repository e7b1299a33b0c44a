"""Private: ms-opt's MLIR printer writes straight to its stream and prints each plain
shaped type object once.

xDSL's `Printer.print_string` hands every piece of text (an op name, a `%`, a
`, `) to the `print` builtin; an `arith.addf` line is 15 of them. And it prints
`tensor<4x64xf32>` anew, piece by piece, for every value of that type.
`DirectPrinter` writes a piece without newlines with `stream.write` (what
`print(text, end="")` does, keeping xDSL's column count), and keeps the text of
a tensor or vector type object with an integer, index or float element type and
no encoding: printing one has no effect but its text (the parser of
`parsed_types` hands out one object per distinct type). Everything else is
xDSL's own code. Printing 40k `arith.addf` ops: 0.75 s with xDSL's printer,
0.48 s with this one (same text).

`DirectMLIRTarget` is xDSL's `mlir` target printing with it (ms-opt registers it
in place of xDSL's): its `emit` restates `MLIRTarget.emit` with the printer class
swapped.
"""

from __future__ import annotations

from dataclasses import dataclass
from io import StringIO
from typing import IO

from xdsl.context import Context
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
    ModuleOp,
    NoneAttr,
    TensorType,
    VectorType,
)
from xdsl.ir import Attribute
from xdsl.printer import Printer
from xdsl.targets.mlir import MLIRTarget

from mindjit.ir.compat.touchpoint import Touchpoint

TOUCHPOINT = Touchpoint(
    name="direct-printer",
    kind="private",
    reason="xDSL's printer passes every piece of text through the `print` builtin and "
    "re-prints a type for every value of it; ms-opt prints large modules",
    cost="measured in docs/xdsl-compat.md (benchmarks/compat_costs.py)",
    upstream="no buffered printer or type text cache in xDSL",
    delete_when="xDSL's printer writes to its stream directly and prints a repeated type "
    "as cheaply as a dictionary lookup",
    xdsl_sources={
        "xdsl.utils.base_printer.BasePrinter.print_string": "d2f71125085e",
        "xdsl.printer.Printer.print_attribute": "5b29c4d5167f",
        "xdsl.dialects.builtin.TensorType.print_builtin": "5cf2cf53ca99",
        "xdsl.dialects.builtin.VectorType.print_builtin": "a5586cbf302b",
        "xdsl.targets.mlir.MLIRTarget.emit": "b23ca3720809",
    },
)

_PLAIN_ELEMENTS = frozenset(
    (IntegerType, IndexType, Float16Type, Float32Type, Float64Type, BFloat16Type)
)


def _plain(attr: Attribute) -> bool:
    """A type whose printing is its text only (it prints nothing but builtins)."""
    cls = type(attr)
    if cls is TensorType:
        return type(attr.element_type) in _PLAIN_ELEMENTS and isinstance(  # type: ignore[attr-defined]
            attr.encoding,  # type: ignore[attr-defined]
            NoneAttr,
        )
    return cls is VectorType and type(attr.element_type) in _PLAIN_ELEMENTS  # type: ignore[attr-defined]


class DirectPrinter(Printer):
    """xDSL's printer, writing to its stream directly, plain shaped types memoized."""

    def print_string(self, text: str, *, indent: int | None = None) -> None:
        if "\n" in text or self.stream is None:
            super().print_string(text, indent=indent)
            return
        self._current_column += len(text)
        self.stream.write(text)

    def print_attribute(self, attribute: Attribute) -> None:
        if type(attribute) not in (TensorType, VectorType):
            super().print_attribute(attribute)
            return
        # by identity, the object kept alive beside its text so its id is not reused
        texts: dict[int, tuple[Attribute, str]] = self.__dict__.setdefault(
            "_mindjit_type_texts", {}
        )
        known = texts.get(id(attribute))
        if known is not None:
            self.print_string(known[1])
            return
        if not _plain(attribute) or self.stream is None:
            super().print_attribute(attribute)
            return
        stream, self.stream = self.stream, StringIO()
        try:
            super().print_attribute(attribute)  # counts the columns as it prints
            text = self.stream.getvalue()
        finally:
            self.stream = stream
        texts[id(attribute)] = (attribute, text)
        stream.write(text)


@dataclass(frozen=True)
class DirectMLIRTarget(MLIRTarget):
    """xDSL's `mlir` target, printing with `DirectPrinter`."""

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        if self.syntax_highlight:
            super().emit(ctx, module, output)
            return
        printer = DirectPrinter(
            stream=output,
            print_generic_format=self.print_generic_format,
            print_properties_as_attributes=self.print_properties_as_attributes,
            print_debuginfo=self.print_debuginfo,
        )
        printer.print_op(module)
        printer.print_metadata(ctx.loaded_dialects)
        print("\n", file=output)
