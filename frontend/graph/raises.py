"""`raise` and `assert` in graph mode, as MindSpore's static graph runs them.

- On constants (a `raise` reached while tracing, outside any `if` on a tensor:
  an `if` on constants has already picked its branch) the user's exception is
  raised while compiling, with its own type and message, located at its line:
  the class raised is a subclass of both `FrontendError` (file and line) and the
  user's type, so `except ValueError` catches it as in PyNative mode.
- Under an `if` on a tensor (`if x.sum() > 0: raise ValueError("...")`) and for
  `assert` on a tensor the check happens when the graph runs: a
  `mindir.check_range` of the condition (as 0.0/1.0) that fails when the raise
  is reached, with the message `"ValueError: ..."`. The check's result is
  attached (`mindir.depend`) to every tensor variable and to the function's
  return value, so it is not dead code. When the graph runs, a failed check with
  such a message is raised as the user's type (`user_error_of`, called where
  program.py runs the graph); IREE reports the failed `cf.assert` with the message.
- A `raise` elsewhere under a tensor condition (not the last statement of a
  branch, e.g. inside a loop inside the branch) is refused with its line.
"""

from __future__ import annotations

import ast
import builtins
import re
from typing import Any

from mindjit.frontend import dtype as D
from mindjit.frontend.graph import control_flow
from mindjit.frontend.graph.errors import located_error
from mindjit.frontend.graph_value import GraphValue
from mindjit.frontend.ops import array
from mindjit.frontend.ops.checks import check_range
from mindjit.frontend.structure import flatten, unflatten
from mindjit.frontend.tensor import Tensor

#: check messages of user raises -> the user's exception class (this process)
_RAISED: dict[str, type[BaseException]] = {}
_PREFIX = re.compile(r"error: ([A-Z][A-Za-z0-9_]*(?:Error|Exception|Warning)): ")
NOT_HANDLED = object()


def _exception_of(ev: Any, node: ast.AST, value: Any) -> tuple[type[BaseException], str]:
    if isinstance(value, type) and issubclass(value, BaseException):
        return value, ""
    if isinstance(value, BaseException):
        return type(value), ", ".join(str(a) for a in value.args)
    raise ev.error(node, "exceptions must derive from BaseException")


def _message_of(ev: Any, node: ast.AST, call: ast.expr | None, env: Any) -> tuple[type, str]:
    """The class and message of `raise E(...)` (E's arguments are compile-time values)."""
    if call is None:
        raise ev.error(node, "a bare 'raise' (re-raise) is not supported in graph mode")
    value = ev.eval(call, env)
    return _exception_of(ev, node, value)


def _user_error(ev: Any, node: ast.AST, cls: type[BaseException], text: str) -> BaseException:
    return located_error(cls, text, ev.source.file, getattr(node, "lineno", None), node)


def exec_raise(ev: Any, node: ast.Raise, env: Any) -> None:
    """`raise E(msg)`: at once on constants; a run-time check under an if on a tensor."""
    cls, text = _message_of(ev, node, node.exc, env)
    if ev.tensor_branch_depth == 0:
        raise _user_error(ev, node, cls, text)
    raise ev.error(
        node,
        "a 'raise' under an if on a tensor must be the last statement of one of its branches",
    )


def exec_assert(ev: Any, node: ast.Assert, env: Any) -> None:
    value = ev.eval(node.test, env)
    text = ""
    if node.msg is not None:
        msg = ev.eval(node.msg, env)
        if isinstance(msg, GraphValue):
            raise ev.error(node, "the message of an assert must be a constant in graph mode")
        text = str(msg)
    if not isinstance(value, GraphValue):
        if not ev.truth(node.test, value):
            raise _user_error(ev, node, AssertionError, text)
        return
    ok = control_flow.as_bool(ev, node.test, value, scalar=True)
    ev.at(node)
    runtime_check(ev, ok, AssertionError, text, fail_when=False, env=env)


def runtime_check(
    ev: Any, cond: GraphValue, cls: type, text: str, fail_when: bool, env: Any
) -> None:
    """Emit a check failing when the 0-d bool `cond` is `fail_when`, and keep it
    alive: every tensor variable of `env` (and, outside tensor branches, the
    function's return value) depends on it."""
    message = f"{cls.__name__}: {text}"
    _RAISED[message] = cls
    expected = 0.0 if fail_when else 1.0
    checked = check_range(array.cast(cond, D.float32), expected, expected, message)
    if ev.graph.location is not None:  # the failure names the user's raise/assert line
        checked.ssa.owner.location = ev.graph.location
    if ev.tensor_branch_depth == 0:
        ev.pending_checks.append(checked)
    for name, v in list(env.items()):
        if isinstance(v, GraphValue):
            env[name] = ev.graph.depend(v, checked)


def checked_range(
    ev: Any, x: GraphValue, low: float, high: float, cls: type, text: str
) -> GraphValue:
    """`x` as float after a run-time check `low <= x <= high` that raises `cls(text)`:
    the result depends on the check, so whatever uses it keeps it alive."""
    message = f"{cls.__name__}: {text}"
    _RAISED[message] = cls
    checked = check_range(x, low, high, message)
    if ev.graph.location is not None:
        checked.ssa.owner.location = ev.graph.location
    return checked


def tensor_if_raises(ev: Any, node: ast.If, cond: GraphValue, env: Any) -> Any:
    """`if <tensor>: ... raise E(msg)` [else: ...]: a check of the condition, then
    the other branch inline. NOT_HANDLED when neither branch ends with a raise."""
    body_raises, else_raises = _ends_in_raise(node.body), _ends_in_raise(node.orelse)
    if not body_raises and not else_raises:
        return NOT_HANDLED
    if body_raises and else_raises:
        raise ev.error(node, "both branches of an if on a tensor raise; raise unconditionally")
    raising, other = (node.body, node.orelse) if body_raises else (node.orelse, node.body)
    prefix, last = raising[:-1], raising[-1]
    assert isinstance(last, ast.Raise)
    for stmt in prefix:
        if any(isinstance(s, ast.Call) for s in ast.walk(stmt)):
            raise ev.error(
                stmt,
                "before a 'raise' under an if on a tensor only assignments without calls "
                "are supported in graph mode",
            )
    scratch = env.branch_copy()
    ev.exec_block(prefix, scratch)
    cls, text = _message_of(ev, last, last.exc, scratch)
    ev.at(last)
    runtime_check(ev, cond, cls, text, fail_when=body_raises, env=env)
    return ev.exec_block(other, env)


def _ends_in_raise(stmts: list[ast.stmt]) -> bool:
    return bool(stmts) and isinstance(stmts[-1], ast.Raise)


def attach_pending(ev: Any, value: Any) -> Any:
    """The function's return value with the top-level checks attached (a constant
    Tensor returned becomes a value of the graph, so that the checks run; a
    function returning no tensor at all keeps its checks only through its
    variables)."""
    if not ev.pending_checks:
        return value
    template, leaves = flatten(value, lambda x: isinstance(x, GraphValue | Tensor))
    out = [ev.graph.depend(GraphValue(ev.graph.as_value(x)), ev.pending_checks) for x in leaves]
    return unflatten(template, out)


def user_error_of(exc: BaseException) -> BaseException | None:
    """The user's exception for a failed run-time check of a user `raise`/`assert`
    (None when `exc` is something else)."""
    text = str(exc)
    cls = None
    for message, c in _RAISED.items():
        if message in text:
            cls = c
            break
    if cls is None:
        if not isinstance(exc, RuntimeError):
            return None
        match = _PREFIX.search(text)
        candidate = getattr(builtins, match.group(1), None) if match else None
        if not (isinstance(candidate, type) and issubclass(candidate, BaseException)):
            return None
        cls = candidate
    if isinstance(exc, cls):
        return None
    try:
        return cls(text)
    except Exception:
        return None
