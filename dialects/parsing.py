"""Parsing `.mlir` text into a module whose ops remember their file:line:col.

MLIR gives every parsed op a `FileLineColLoc`; xDSL leaves them unknown unless the
text spells `loc(...)`. Verifier errors and pass errors need a place to point at,
so this parser records the location of every op it reads (from parts made once
per parse), reads a repeated shaped type once (`ir/compat/parsed_types.py`) and
checks a dense literal's type against a constraint built once
(`ir/compat/dense_literal_types.py`).

It also reads the file's `{-# dialect_resources #-}` blobs
(`ir/compat/dialect_resources.py`) and registers them for the `dense_resource`
handles the module uses (`ir/resource_section.py`): a bad blob is a located error.
"""

from __future__ import annotations

import sys
from typing import NoReturn

from xdsl.context import Context
from xdsl.dialects.builtin import FileLineColLoc, IntAttr, ModuleOp, StringAttr, UnknownLoc
from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.utils.exceptions import ParseError
from xdsl.utils.lexer import Span

from mindjit.dialects.context import make_context
from mindjit.dialects.verify import verify_located
from mindjit.ir.compat.dense_literal_types import DenseLiteralTypes
from mindjit.ir.compat.dialect_resources import ResourceSectionParsing
from mindjit.ir.compat.parsed_types import ParsedTypeMemo
from mindjit.ir.compat.unchecked_attrs import unchecked
from mindjit.ir.locations import from_xdsl_exception
from mindjit.ir.resource_section import adopt_parsed
from mindjit.support.errors import MindjitError


class LocatingParser(ParsedTypeMemo, DenseLiteralTypes, ResourceSectionParsing, Parser):
    """An xDSL parser that attaches a FileLineColLoc to every operation it parses.

    It also remembers where each not-yet-defined value is first used, so an
    undefined value is reported at its use (as MLIR does), not at the end of file.
    """

    def resolve_operand(self, operand, type):  # type: ignore[override]
        if operand.operand_name not in self.ssa_values:
            first_uses = self.__dict__.setdefault("_first_uses", {})
            first_uses.setdefault(operand.operand_name, operand.span)
        return super().resolve_operand(operand, type)

    def parse_module(self, allow_implicit_module: bool = True):  # type: ignore[override]
        try:
            module = super().parse_module(allow_implicit_module)
        except ParseError as exc:
            if "values used but not defined" in exc.msg and self.forward_ssa_references:
                name = next(iter(self.forward_ssa_references))
                span = self.__dict__.get("_first_uses", {}).get(name)
                if span is not None:
                    raise ParseError(span, f"use of undefined value %{name}") from None
            raise
        adopt_parsed(module, self.resource_blobs, _blob_error)
        return module

    def parse_operation(self) -> Operation:
        start_pos = self.pos
        line, col = self._line_col(start_pos)
        try:
            op = super().parse_operation()
        except (ParseError, MindjitError):
            raise
        except RecursionError:  # regions nested deeper than the stack takes (deep_stack.py)
            raise ParseError(
                Span(start_pos, start_pos, self.lexer.input),
                "regions are nested too deeply to parse (more than the Python stack safely allows)",
            ) from None
        except Exception as exc:  # a dialect's custom parser tripped on malformed text
            here = max(self.pos, start_pos)
            raise ParseError(
                Span(here, here, self.lexer.input), f"malformed operation: {exc}"
            ) from None
        if isinstance(op.location, UnknownLoc):
            op.location = self._location(line, col)
        return op

    def _location(self, line: int, col: int) -> FileLineColLoc:
        """`FileLineColLoc(file, line, col)`, built unverified from parts made once
        per parser (one file name, one IntAttr per number): 4 us less per op."""
        parts = self.__dict__.get("_location_parts")
        if parts is None:
            parts = self.__dict__["_location_parts"] = (StringAttr(self.lexer.input.name), {})
        filename, ints = parts
        if (line_attr := ints.get(line)) is None:
            line_attr = ints[line] = unchecked(IntAttr, data=line)
        if (col_attr := ints.get(col)) is None:
            col_attr = ints[col] = unchecked(IntAttr, data=col)
        return unchecked(FileLineColLoc, filename=filename, line=line_attr, column=col_attr)

    def _line_col(self, pos: int) -> tuple[int, int]:
        """The 1-based line and column of `pos`. xDSL's `Span.get_location` counts the
        newlines from the start of the text for every op (quadratic: 73 s for 80k
        ops); ops are parsed in order, so the count goes on from the last op's."""
        text = self.lexer.input.content
        last_pos, last_line = self.__dict__.get("_line_cursor", (0, 1))
        if pos < last_pos:  # never while parsing in order; start again to be safe
            last_pos, last_line = 0, 1
        line = last_line + text.count("\n", last_pos, pos)
        self.__dict__["_line_cursor"] = (pos, line)
        return line, pos - (text.rfind("\n", 0, pos) + 1) + 1


def _blob_error(where: object, message: str) -> NoReturn:
    assert isinstance(where, Span)
    raise ParseError(where, message)


def at_end(parser: Parser) -> bool:
    """Whether only whitespace and comments are left (the next token is the end)."""
    return parser.pos >= len(parser.lexer.input.content)


def parse_module(
    text: str | bytes, name: str = "<stdin>", ctx: Context | None = None, verify: bool = True
) -> ModuleOp:
    """Parse and verify MLIR text; any problem is a located `MindjitError`."""
    ctx = ctx or make_context()
    try:
        module = LocatingParser(ctx, text, name).parse_module()
    except ParseError as exc:
        raise from_xdsl_exception(exc) from None
    except MindjitError:
        raise
    except Exception as exc:  # xDSL raises plain exceptions for some bad input
        raise MindjitError(f"cannot parse: {exc}", name) from None
    if verify:
        verify_located(module)
    return module


def parse_file(path: str, ctx: Context | None = None, verify: bool = True) -> ModuleOp:
    """Read and parse a .mlir file ('-' reads stdin)."""

    if path == "-":
        return parse_module(sys.stdin.read(), "<stdin>", ctx, verify)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as exc:
        raise MindjitError(f"cannot read file: {exc.strerror}", path) from None
    return parse_module(data, path, ctx, verify)
