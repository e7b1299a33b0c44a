"""The AST of a Python function, with line numbers of the file it lives in."""

from __future__ import annotations

import ast
import inspect
import linecache
import textwrap
from dataclasses import dataclass
from functools import cache
from types import CodeType, FunctionType

from mindjit.frontend.graph.errors import FrontendError


@dataclass(frozen=True)
class FunctionSource:
    tree: ast.FunctionDef
    file: str


def unwrap(fn: object) -> object:
    """The user's function under mindjit's (or functools') wrappers."""
    seen = 0
    while hasattr(fn, "__wrapped__") and seen < 16:
        fn = fn.__wrapped__  # type: ignore[attr-defined]
        seen += 1
    return fn


@cache
def _parse(code: object) -> FunctionSource:
    fn_code = code  # a code object: one parse per function body
    if fn_code.co_name == "<lambda>":  # type: ignore[attr-defined]
        return _lambda_source(fn_code)  # type: ignore[arg-type]
    try:
        lines, start = _source_lines(fn_code)
    except (OSError, TypeError) as exc:
        raise FrontendError(
            f"cannot read the source of '{fn_code.co_name}' ({exc}); graph mode needs "  # type: ignore[attr-defined]
            "functions defined in a file"
        ) from None
    text = textwrap.dedent("".join(lines))
    module = ast.parse(text)
    ast.increment_lineno(module, start - 1)
    _indent_columns(module, len(lines[0]) - len(text.split("\n", 1)[0] + "\n"))
    node = module.body[0]
    if not isinstance(node, ast.FunctionDef):
        raise FrontendError(f"'{fn_code.co_name}' is not a plain function definition")  # type: ignore[attr-defined]
    return FunctionSource(node, fn_code.co_filename)  # type: ignore[attr-defined]


def _indent_columns(tree: ast.AST, margin: int) -> None:
    """Give back to the columns of a method's AST the indentation that dedenting
    took (error carets and op locations point into the file as it is)."""
    if margin <= 0:
        return
    for node in ast.walk(tree):
        if hasattr(node, "col_offset"):
            node.col_offset += margin
            if getattr(node, "end_col_offset", None) is not None:
                node.end_col_offset += margin


def _lambda_source(code: CodeType) -> FunctionSource:
    """A lambda's body as a one-line `def` returning it: found in its file's AST
    by line and parameter names (a lambda's own lines need not parse alone)."""
    linecache.checkcache(code.co_filename)
    text = "".join(linecache.getlines(code.co_filename))
    names = list(code.co_varnames[: code.co_argcount + code.co_kwonlyargcount])
    found = []
    if text:
        try:
            module = ast.parse(text)
        except SyntaxError:
            module = None
        if module is not None:
            for node in ast.walk(module):
                if isinstance(node, ast.Lambda) and node.lineno == code.co_firstlineno:
                    a = node.args
                    if [x.arg for x in [*a.posonlyargs, *a.args, *a.kwonlyargs]] == names:
                        found.append(node)
    if len(found) != 1:
        why = "not found" if not found else "ambiguous: several lambdas alike on its line"
        raise FrontendError(
            f"cannot read the source of a lambda ({why}); graph mode needs functions "
            "defined in a file",
            code.co_filename,
            code.co_firstlineno,
        )
    node = found[0]
    ret = ast.copy_location(ast.Return(node.body), node.body)
    tree = ast.copy_location(
        ast.FunctionDef(name="<lambda>", args=node.args, body=[ret], decorator_list=[]), node
    )
    ast.fix_missing_locations(tree)
    return FunctionSource(tree, code.co_filename)


def _source_lines(code: CodeType) -> tuple[list[str], int]:
    """The function's lines and first line number, read from the file directly:
    `inspect.getsourcelines` first looks for the code's module, which costs a
    realpath per loaded module (tens of ms in a cold process)."""
    start = code.co_firstlineno  # the first decorator's line, or the def's
    linecache.checkcache(code.co_filename)  # the file may have changed, as inspect checks
    lines = linecache.getlines(code.co_filename)
    if not lines or start > len(lines) or code.co_name == "<lambda>":
        return inspect.getsourcelines(code)  # notebooks, zip imports, lambdas: the long way
    return inspect.getblock(lines[start - 1 :]), start


def function_source(fn: FunctionType) -> FunctionSource:
    return _parse(fn.__code__)
