"""Frontend errors name the user's Python file and line, as MindSpore's do.

    frontend error: example.py:12: 'try' is not supported in graph mode

An error raised inside a graph that another graph called (nn.Dense rejecting
its input, reached from the user's network) carries the frames it unwound
through: each call site adds itself as the error leaves the callee
(calls.call_value), and a graph whose top is mindjit's own code (a gradient
called at top level in GRAPH_MODE) gets the Python line that called it
(compiler.entry). The headline names the innermost line of the user's own
code; below it, as MindSpore's "The Traceback of Net Construct Code", every
frame outermost first, with its source line and a caret under the call.
A recursion unrolled until Python's limit shows its cycle once.

The exception is the builtin type MindSpore raises (ValueError for shapes,
TypeError for dtypes, ...) and is shown under that name: the located classes
are subclasses of FrontendError and the builtin, named as the builtin, so
`except ValueError` catches them and no internal class name is printed.
"""

from __future__ import annotations

import ast
import linecache
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from mindjit.frontend.graph_value import GraphValue
from mindjit.support.errors import MindjitError, SourceLoc

#: mindjit's own Cells and ops: a frame here is not the user's line
_LIBRARY = str(Path(__file__).resolve().parents[1]) + "/"
#: the longest cycle of calls folded when it repeats (a recursion through k graphs)
_MAX_CYCLE = 8


def is_library_file(file: str | None) -> bool:
    return file is not None and file.startswith(_LIBRARY)


@dataclass(frozen=True)
class Frame:
    """One line of the call chain; `col`/`end_col` (0-based) underline the call."""

    file: str
    line: int
    col: int | None = None
    end_col: int | None = None

    @staticmethod
    def of(file: str, node: ast.AST | None) -> Frame | None:
        line = getattr(node, "lineno", None)
        if line is None:
            return None
        col = getattr(node, "col_offset", None)
        end = getattr(node, "end_col_offset", None)
        if getattr(node, "end_lineno", line) != line:
            end = None  # a call over several lines: underline to the end of the first
        return Frame(file, line, col, end)

    def render(self, index: int) -> list[str]:
        lines = [f"# {index} In file {self.file}:{self.line}"]
        source = linecache.getline(self.file, self.line).rstrip()
        if source:
            lines.append(source)
            if self.col is not None:
                text = source.encode()  # ast columns count UTF-8 bytes
                start = len(text[: self.col].decode(errors="ignore"))
                stop = len(text[: self.end_col].decode(errors="ignore")) if self.end_col else None
                width = max((stop or len(source)) - start, 1)
                lines.append(" " * start + "^" + "~" * (width - 1))
        return lines


def python_caller() -> Frame | None:
    """The innermost line of Python outside mindjit on the stack: where the user
    called a graph whose own top is mindjit's code."""
    frame = sys._getframe(1)
    while frame is not None:
        module = frame.f_globals.get("__name__", "")
        if module != "mindjit" and not module.startswith("mindjit."):
            col = end = None
            positions = _positions(frame)
            if positions is not None and positions[0] == positions[1] == frame.f_lineno:
                col, end = positions[2], positions[3]
            return Frame(frame.f_code.co_filename, frame.f_lineno, col, end)
        frame = frame.f_back
    return None


def _positions(frame: object) -> tuple | None:
    code, lasti = frame.f_code, frame.f_lasti  # type: ignore[attr-defined]
    positions = getattr(code, "co_positions", None)
    if positions is None or lasti < 0:
        return None
    for index, position in enumerate(positions()):
        if index == lasti // 2:
            return position
    return None


class FrontendError(MindjitError, RuntimeError):
    """Python that graph mode cannot compile; points at the offending source line."""

    def __init__(self, message: str, file: str | None = None, line: int | None = None):
        # an op's message naming the type of a traced tensor: the user knows it as a Tensor
        message = re.sub(r"\bGraphValue\b", "Tensor", message)
        loc = SourceLoc(file, line, 0) if file is not None and line is not None else file
        super().__init__(message, loc)
        self.file, self.line = file, line
        self.origin: Frame | None = Frame(file, line) if file and line else None
        self.call_sites: list[Frame] = []  # innermost first
        self._last_call: object = None

    def at_node(self, node: ast.AST | None) -> FrontendError:
        """Underline `node` (on the error's own line) in the call chain."""
        if self.file is not None and getattr(node, "lineno", None) == self.line:
            self.origin = Frame.of(self.file, node)
        return self

    def add_call_site(
        self, file: str, line: int | None, node: ast.AST | None = None, call: object = None
    ) -> None:
        """The error passed out of a graph called at `file:line` (`node`: the call;
        `call`: what identifies this one call, as a grad's call reaches its
        function's through a nested call handling of the same node)."""
        if line is None or (not self.call_sites and (file, line) == (self.file, self.line)):
            return  # raised by the call itself: its own line is already the origin
        if call is not None and call == self._last_call:
            return
        self._last_call = call
        frame = Frame.of(file, node) if getattr(node, "lineno", None) == line else None
        self.add_frame(frame or Frame(file, line))

    def add_frame(self, frame: Frame) -> None:
        """`frame` called what the chain holds so far."""
        self.call_sites.append(frame)

    def frames(self) -> list[Frame]:
        """The call chain, outermost first."""
        inner = [self.origin] if self.origin is not None else []
        return [*reversed(self.call_sites), *inner]

    def user_location(self) -> tuple[str | None, int | None]:
        """The innermost frame outside mindjit's own Cells: the line MindSpore names
        (nn.Conv2d rejecting its input is reported where the user called it)."""
        for frame in reversed(self.frames()):
            if not is_library_file(frame.file):
                return frame.file, frame.line
        return self.file, self.line

    def __str__(self) -> str:
        file, line = self.user_location()
        if file is not None and line is not None:
            text = f"frontend error: {file}:{line}: {self.message}"
        else:
            text = f"frontend error: {self.message}"
        frames = self.frames()
        if not frames:
            return text
        rule = "-" * 52
        lines = [text, rule, "- The Traceback of Net Construct Code:", rule]
        index = 0
        for item in _fold_cycles(frames):
            if isinstance(item, str):
                lines.append(item)
            else:
                lines += item.render(index)
                index += 1
        return "\n".join(lines)

    def __reduce__(self) -> tuple:
        # a located class is named as its builtin: pickle rebuilds it from that
        for base, kind in _LOCATED.items():
            if kind is type(self):
                return (_rebuild, (base, self.message, self.file, self.line), self.__dict__)
        return super().__reduce__()


def _rebuild(kind: type | None, message: str, file: str | None, line: int | None) -> BaseException:
    return located_error(kind, message, file, line)


def _fold_cycles(frames: list[Frame]) -> list[Frame | str]:
    """`frames` with a cycle repeated three times or more shown once and counted
    (a recursion unrolled until Python's limit: tens of identical frames)."""
    out: list[Frame | str] = []
    i = 0
    while i < len(frames):
        for size in range(1, _MAX_CYCLE + 1):
            cycle = frames[i : i + size]
            repeats = 1
            while frames[i + repeats * size : i + (repeats + 1) * size] == cycle:
                repeats += 1
            if repeats >= 3:
                out += cycle
                calls = "call" if size == 1 else f"{size} calls"
                out.append(f"  [the {calls} above repeated {repeats - 1} more times]")
                i += repeats * size
                break
        else:
            out.append(frames[i])
            i += 1
    return out


def _located_name(cls: type, kind: type) -> type:
    kind.__module__, kind.__qualname__, kind.__name__ = (
        cls.__module__,
        cls.__qualname__,
        cls.__name__,
    )
    return kind


class FrontendValueError(FrontendError, ValueError):
    """A ValueError raised by a library call while a graph is traced (an op or a
    Cell rejecting its arguments, e.g. an optimizer given the wrong number of
    gradients), located at the graph's line: `except ValueError` catches it in
    graph mode as in PyNative mode. Shown as `ValueError`."""


_LOCATED: dict[type, type] = {ValueError: _located_name(ValueError, FrontendValueError)}


def located_class(cls: type[BaseException]) -> type[BaseException]:
    """A subclass of FrontendError and `cls` (the type MindSpore raises: ValueError,
    NameError, AttributeError, TypeError, or a user's own exception), named as
    `cls`, so that `except cls` catches it as in PyNative mode and the message
    names file and line; `cls` itself if the two cannot be combined."""
    if issubclass(cls, FrontendError):
        return cls
    if cls not in _LOCATED:
        try:
            _LOCATED[cls] = _located_name(cls, type(cls.__name__, (FrontendError, cls), {}))
        except TypeError:
            _LOCATED[cls] = cls
    return _LOCATED[cls]


def located_error(
    cls: type[BaseException] | None,
    message: str,
    file: str | None,
    line: int | None,
    node: ast.AST | None = None,
) -> BaseException:
    """`message` at file:line as a `cls` (a plain FrontendError when None); `node`
    is underlined in the call chain."""
    kind = located_class(cls) if cls is not None else FrontendError
    if issubclass(kind, FrontendError):
        return kind(message, file, line).at_node(node)
    return kind(str(FrontendError(message, file, line)))


def public_message(exc: BaseException) -> str:
    """`exc` as a located error's message: its type as the user knows it (mindjit's
    own classes by the builtin they stand for) and its text."""
    cls = type(exc)
    if cls.__module__ == "mindjit" or cls.__module__.startswith("mindjit."):
        cls = builtin_error_type(exc) or cls
    return f"{cls.__name__}: {exc}"


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
