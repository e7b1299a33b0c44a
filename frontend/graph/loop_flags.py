"""`break` and `continue` under an `if` on a tensor inside an unrolled loop.

A `for` (over a range, tuple, list, CellList or a tensor's rows) and a `while`
on constants are unrolled while tracing. Each such loop keeps two flags among
its variables, which no Python name can spell:

- `<running>`: the loop has not been broken out of;
- `<active>`: the current iteration has not hit a `break` or `continue`.

Both start as the constant True; a `break` / `continue` reached on constants
still ends the unrolling at once, as before. One reached inside an `if` on a
tensor sets the flags to False in that branch only, so that when the branches
merge the flags become `mindir.if` results (0-d bool tensors), like any other
variable. From then on every statement that follows (the rest of the
iteration's blocks, and the later iterations) is traced under
`if <active>:` — a `mindir.if` whose else keeps the variables unchanged — so
its effects (an `ops.assign`, a `print`, a changed variable) happen only when
the loop is still running at run time. Passes (auto-monad, grad, cf-to-select)
and the backends see ordinary `mindir.if`s on ordinary values.

Inside the guarded branch the flags are known True (the branch runs only when
the iteration is active), so a block is guarded once, not once per statement.
"""

from __future__ import annotations

import ast
from typing import Any

from mindjit.frontend.graph_value import GraphValue
from mindjit.frontend.ops import array
from mindjit.frontend.ops import math as tensor_math
from mindjit.frontend.tensor import Tensor

ACTIVE, RUNNING = "<active>", "<running>"
#: a `return` on a tensor inside an unrolled loop: whether it ran, and its value
RETURNED, RETVAL = "<returned>", "<retval>"
_MISSING = object()


def enter_loop(env: Any) -> tuple[Any, Any]:
    """A new unrolled loop: its own flags (the enclosing loop's are saved)."""
    saved = (env.get(ACTIVE, _MISSING), env.get(RUNNING, _MISSING))
    env[RUNNING] = True
    env[ACTIVE] = True
    return saved


def exit_loop(env: Any, saved: tuple[Any, Any]) -> None:
    """Back to the enclosing loop's flags; a `return` on a tensor in this loop stops
    the enclosing loop too."""
    returned = env.get(RETURNED, False)
    for key, value in zip((ACTIVE, RUNNING), saved):
        if value is _MISSING:
            env.pop(key, None)
        elif returned is False or value is False:
            env[key] = value
        elif returned is True:
            env[key] = False
        else:
            still = tensor_math.logical_not(returned)
            env[key] = still if value is True else tensor_math.logical_and(value, still)


def start_iteration(env: Any) -> None:
    env[ACTIVE] = env[RUNNING]


def broken(env: Any) -> bool:
    """The loop has ended on constants (a `break` every path took)."""
    return env.get(RUNNING, True) is False


def in_flagged_loop(env: Any) -> bool:
    return ACTIVE in env


def loop_signal(env: Any, is_break: bool) -> None:
    """A `break` / `continue` under an if on a tensor: this branch stops the iteration."""
    env[ACTIVE] = False
    if is_break:
        env[RUNNING] = False


def iteration_may_have_stopped(env: Any) -> bool:
    return env.get(ACTIVE, True) is not True


def exits_loop(stmts: list[ast.stmt]) -> bool:
    """Whether a `break` or `continue` of this loop (not of a loop nested in it) is in
    `stmts`."""
    for stmt in stmts:
        if isinstance(stmt, ast.Break | ast.Continue):
            return True
        if isinstance(stmt, ast.For | ast.While | ast.FunctionDef | ast.ClassDef):
            continue
        for field in ("body", "orelse", "handlers", "finalbody"):
            if exits_loop(getattr(stmt, field, []) or []):
                return True
    return False


def broken_on_a_tensor(env: Any) -> bool:
    """A `break` on a tensor may have ended this loop (its variables became tensors:
    a while on constants continues as a while on a tensor, from this flag)."""
    return isinstance(env.get(RUNNING), GraphValue)


def record_return(env: Any, value: Any) -> None:
    """`return value` inside an if on a tensor in a loop: this branch has returned; the
    loops stop, and after the outermost one the function returns `<retval>` where
    `<returned>` holds."""
    env[RETURNED] = True
    env[RETVAL] = value
    loop_signal(env, is_break=True)


def return_pending(env: Any) -> bool:
    return RETURNED in env and not in_flagged_loop(env)


def fill_returns(ev: Any, *branches: tuple[Any, Any]) -> None:
    """A `return` recorded in one branch only: the other branch gets `<returned>`
    False and a placeholder `<retval>` of the same structure (zeros), so both merge."""
    envs = [b[0] for b in branches]
    for key in (RETURNED, RETVAL):
        having = [e for e in envs if key in e]
        if not having or len(having) == len(envs):
            continue
        model = having[0][key]
        for benv, branch in branches:
            if key not in benv:
                if key == RETURNED:
                    benv[key] = False
                else:
                    benv[key] = branch.run(lambda model=model: _placeholder(model))


def _placeholder(value: Any) -> Any:
    if isinstance(value, tuple | list):
        return type(value)(_placeholder(v) for v in value)
    if isinstance(value, GraphValue | Tensor):
        return array.zeros_like(value)
    return value


def same_constant(a: Any, b: Any) -> bool:
    plain = (bool, int, float, str, type(None))
    return isinstance(a, plain) and type(a) is type(b) and a == b
