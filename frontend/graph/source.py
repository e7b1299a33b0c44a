"""The AST of a Python function, with line numbers of the file it lives in."""

from __future__ import annotations

import ast
import inspect
import textwrap
from dataclasses import dataclass
from functools import cache
from types import FunctionType

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
    try:
        lines, start = inspect.getsourcelines(fn_code)  # type: ignore[arg-type]
    except (OSError, TypeError) as exc:
        raise FrontendError(
            f"cannot read the source of '{fn_code.co_name}' ({exc}); graph mode needs "  # type: ignore[attr-defined]
            "functions defined in a file"
        ) from None
    text = textwrap.dedent("".join(lines))
    module = ast.parse(text)
    ast.increment_lineno(module, start - 1)
    node = module.body[0]
    if not isinstance(node, ast.FunctionDef):
        raise FrontendError(f"'{fn_code.co_name}' is not a plain function definition")  # type: ignore[attr-defined]
    return FunctionSource(node, fn_code.co_filename)  # type: ignore[attr-defined]


def function_source(fn: FunctionType) -> FunctionSource:
    return _parse(fn.__code__)
