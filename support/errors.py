"""The one error type users see: a message and, when known, where it comes from.

Every error a user can cause (bad .mlir, bad options, bad inputs, a corrupt model
or cache file) is raised as a `MindjitError`; the tools print `str(error)`
(`file:line:col: error: msg`) and exit 1 instead of showing a traceback. This
module is the bottom of the import graph: it knows nothing of xDSL, so every
layer can raise it (`mindjit.ir.locations` finds the location of an op).

An error located in a Python file (a graph-mode op a pass rejects, located at
the user's line) also shows that line with a caret, as frontend errors do.
"""

from __future__ import annotations

import linecache
from dataclasses import dataclass


@dataclass(frozen=True)
class SourceLoc:
    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


class MindjitError(Exception):
    """An error the user caused, with the place it comes from when known."""

    def __init__(self, message: str, loc: SourceLoc | str | None = None):
        super().__init__(message)
        self.message = message
        self.loc = loc

    def __str__(self) -> str:
        where = str(self.loc) if self.loc is not None else "mindjit"
        return f"{where}: error: {self.message}{_python_line(self.loc)}"


def _python_line(loc: SourceLoc | str | None) -> str:
    """The source line (and a caret at the column) of a location in a .py file."""
    if not isinstance(loc, SourceLoc) or not loc.file.endswith(".py"):
        return ""
    source = linecache.getline(loc.file, loc.line).rstrip()
    if not source:
        return ""
    caret = ""
    if loc.col > 0:  # 1-based, in UTF-8 bytes as Python's ast counts
        caret = "\n" + " " * len(source.encode()[: loc.col - 1].decode(errors="ignore")) + "^"
    return f"\n{source}{caret}"
