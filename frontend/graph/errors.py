"""Frontend errors name the user's Python file and line, as MindSpore's do.

frontend error: example.py:12: 'try' is not supported in graph mode

An error raised inside a graph that another graph called (a layer's
`construct` rejecting its input, reached from the user's network) also lists
the call sites it came through, outermost first, like MindSpore's "The
Traceback of Net Construct Code": the user's own line is always there, not
only the library line that raised.
"""

from __future__ import annotations

import ast
import linecache
import re
from pathlib import Path

from mindjit.support.errors import MindjitError, SourceLoc

#: mindjit's own Cells and ops: a frame here is not the user's line
_LIBRARY = str(Path(__file__).resolve().parents[1]) + "/"


class FrontendError(MindjitError, RuntimeError):
    """Python that graph mode cannot compile; points at the offending source line."""

    def __init__(self, message: str, file: str | None = None, line: int | None = None):
        # an op's message naming the type of a traced tensor: the user knows it as a Tensor
        message = re.sub(r"\bGraphValue\b", "Tensor", message)
        loc = SourceLoc(file, line, 0) if file is not None and line is not None else file
        super().__init__(message, loc)
        self.file, self.line = file, line
        self.call_sites: list[tuple[str, int]] = []  # innermost first

    def add_call_site(self, file: str, line: int | None) -> None:
        """The error passed out of a graph called at `file:line`."""
        if line is not None and (file, line) != (self.file, self.line):
            self.call_sites.append((file, line))

    def user_location(self) -> tuple[str | None, int | None]:
        """The innermost frame outside mindjit's own Cells: the line MindSpore names
        (nn.Conv2d rejecting its input is reported where the user called it)."""
        for file, line in [(self.file, self.line), *self.call_sites]:
            if file is not None and not file.startswith(_LIBRARY):
                return file, line
        return self.file, self.line

    def __str__(self) -> str:
        file, line = self.user_location()
        if file is not None and line is not None:
            text = f"frontend error: {file}:{line}: {self.message}"
        else:
            text = f"frontend error: {self.message}"
        if not self.call_sites:
            return text
        frames = [*reversed(self.call_sites)]
        if self.file is not None and self.line is not None:
            frames.append((self.file, self.line))
        lines = [text, "", "The Traceback of Net Construct Code (most recent call last):"]
        for file, line in frames:
            lines.append(f'  File "{file}", line {line}')
            source = linecache.getline(file, line).strip()
            if source:
                lines.append(f"    {source}")
        return "\n".join(lines)


class FrontendValueError(FrontendError, ValueError):
    """A ValueError raised by a library call while a graph is traced (an op or a
    Cell rejecting its arguments, e.g. an optimizer given the wrong number of
    gradients), located at the graph's line: `except ValueError` catches it in
    graph mode as in PyNative mode."""


_LOCATED: dict[type, type] = {}


def located_class(cls: type[BaseException]) -> type[BaseException]:
    """A subclass of FrontendError and `cls` (the type MindSpore raises: ValueError,
    NameError, AttributeError, TypeError, or a user's own exception), so that
    `except cls` catches it as in PyNative mode and the message names file and
    line; `cls` itself if the two cannot be combined."""
    if issubclass(cls, FrontendError):
        return cls
    if cls is ValueError:
        return FrontendValueError
    if cls not in _LOCATED:
        try:
            _LOCATED[cls] = type(
                cls.__name__,
                (FrontendError, cls),
                {"__module__": cls.__module__, "__qualname__": cls.__qualname__},
            )
        except TypeError:
            _LOCATED[cls] = cls
    return _LOCATED[cls]


def located_error(
    cls: type[BaseException] | None, message: str, file: str | None, line: int | None
) -> BaseException:
    """`message` at file:line as a `cls` (a plain FrontendError when None)."""
    kind = located_class(cls) if cls is not None else FrontendError
    if issubclass(kind, FrontendError):
        return kind(message, file, line)
    return kind(str(FrontendError(message, file, line)))


def builtin_error_type(exc: BaseException) -> type[BaseException] | None:
    """The builtin exception type of `exc` (TypeError, IndexError, ...), for an error
    raised by a library call while tracing; None for mindjit's own errors."""
    for cls in type(exc).__mro__:
        if cls.__module__ == "builtins" and issubclass(cls, Exception) and cls is not Exception:
            if issubclass(type(exc), MindjitError) and cls is RuntimeError:
                return None
            return cls
    return None


def type_name(value: object) -> str:
    """The type of `value` as the user knows it: a traced tensor is a 'Tensor'."""
    from mindjit.frontend.graph_value import GraphValue  # function-level: avoid a cycle

    if isinstance(value, GraphValue):
        return "Tensor"
    return type(value).__name__


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
