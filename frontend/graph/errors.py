"""Frontend errors name the user's Python file and line, as MindSpore's do.

frontend error: example.py:12: 'try' is not supported in graph mode
"""

from __future__ import annotations

import ast

from mindjit.support.errors import MindjitError, SourceLoc


class FrontendError(MindjitError, RuntimeError):
    """Python that graph mode cannot compile; points at the offending source line."""

    def __init__(self, message: str, file: str | None = None, line: int | None = None):
        loc = SourceLoc(file, line, 0) if file is not None and line is not None else file
        super().__init__(message, loc)
        self.file, self.line = file, line

    def __str__(self) -> str:
        if self.file is not None and self.line is not None:
            return f"frontend error: {self.file}:{self.line}: {self.message}"
        return f"frontend error: {self.message}"


class FrontendValueError(FrontendError, ValueError):
    """A ValueError raised by a library call while a graph is traced (an op or a
    Cell rejecting its arguments, e.g. an optimizer given the wrong number of
    gradients), located at the graph's line: `except ValueError` catches it in
    graph mode as in PyNative mode."""


def describe_node(node: ast.AST) -> str:
    """A short name for a construct, for 'X is not supported' messages."""
    names = {
        ast.Try: "'try'",
        ast.With: "'with'",
        ast.AsyncWith: "'async with'",
        ast.Raise: "'raise'",
        ast.Global: "'global'",
        ast.Nonlocal: "'nonlocal'",
        ast.Delete: "'del'",
        ast.Import: "'import'",
        ast.ImportFrom: "'import'",
        ast.FunctionDef: "a nested 'def'",
        ast.AsyncFunctionDef: "'async def'",
        ast.ClassDef: "a nested 'class'",
        ast.Lambda: "'lambda'",
        ast.Yield: "'yield'",
        ast.YieldFrom: "'yield from'",
        ast.Await: "'await'",
        ast.ListComp: "a list comprehension",
        ast.SetComp: "a set comprehension",
        ast.DictComp: "a dict comprehension",
        ast.GeneratorExp: "a generator expression",
        ast.Set: "a set",
        ast.Starred: "'*' unpacking",
        ast.NamedExpr: "':='",
        ast.Match: "'match'",
    }
    if type(node) in names:
        return names[type(node)]
    return f"'{type(node).__name__}'"
