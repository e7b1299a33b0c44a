"""The statements loop flags make conditional (loop_flags.py keeps the flags).

After a statement that may have stopped an iteration on a tensor (`break`,
`continue`, `return` in a loop), the rest of the block runs under
`if <active>:`, and after the outermost loop a pending tensor `return` becomes
the tail `if <returned>: return <retval>`. Both are mindir.if ops built by
control_flow.py; kept apart from the flags so that control_flow can use the
flags and these can use control_flow, with no cycle.
"""

from __future__ import annotations

import ast
from typing import Any

from mindjit.frontend.graph import control_flow as C
from mindjit.frontend.graph import loop_flags as L
from mindjit.frontend.graph.branches import Branch
from mindjit.frontend.graph.evaluation import Return
from mindjit.frontend.graph_value import GraphValue


def rest_of_block(ev: Any, env: Any, rest: list[ast.stmt]) -> Any:
    """The statements after one that may have stopped the iteration: skipped when it
    stopped on constants, else traced under `if <active>:`."""
    flag = env[L.ACTIVE]
    if flag is False or not rest:
        return None
    return guarded(ev, rest[0], env, rest)


def guarded(ev: Any, node: ast.AST, env: Any, stmts: list[ast.stmt]) -> Any:
    """`if <active>: stmts` as a mindir.if; the variables it changes are merged."""
    flag = env[L.ACTIVE]
    assert isinstance(flag, GraphValue)
    then_b, else_b = Branch(ev), Branch(ev)
    inner = env.branch_copy()
    inner[L.ACTIVE] = inner[L.RUNNING] = True
    signal = then_b.run(lambda: ev.exec_block(stmts, inner))
    if isinstance(signal, Return):  # pragma: no cover - refused above
        raise ev.error(node, "'return' here is not supported in graph mode")
    # still True at the end of the branch: the flag is what it was (active => running)
    for key in (L.ACTIVE, L.RUNNING):
        if inner.get(key) is True:
            inner[key] = env[key]
    L.fill_returns(ev, (inner, then_b), (env, else_b))
    names = [
        n
        for n in inner
        if n in env and inner[n] is not env[n] and not L.same_constant(inner[n], env[n])
    ]
    for n in list(env):
        if n not in inner:
            env.pop(n)
    if not names:
        C.emit_if(ev, node, flag, (), (), then_b, else_b, "")
        return None
    merged = C.emit_if(
        ev,
        node,
        flag,
        tuple(inner[n] for n in names),
        tuple(env[n] for n in names),
        then_b,
        else_b,
        ", ".join(n.strip("<>") for n in names),
    )
    for n, v in zip(names, merged):
        env[n] = v
    return None


def finish_return(ev: Any, node: ast.AST, env: Any, rest: list[ast.stmt], tail: bool) -> Any:
    """After the outermost loop: `if <returned>: return <retval>` and the rest of the
    function in the else branch (the tail-if machinery of control_flow)."""
    returned = env.pop(L.RETURNED)
    value = env.pop(L.RETVAL, None)
    if returned is False:
        return None
    if returned is True:  # pragma: no cover - a branch's own flag never reaches here
        return Return(value)
    if not tail:
        raise ev.error(
            node,
            "a 'return' on a tensor inside this loop needs the loop to be followed by the "
            "end of the function (not inside an if or another block)",
        )
    env[L.RETVAL] = value
    synthetic = ast.If(
        test=ast.Name(id=L.RETURNED, ctx=ast.Load()),
        body=[ast.Return(value=ast.Name(id=L.RETVAL, ctx=ast.Load()))],
        orelse=[],
    )
    ast.copy_location(synthetic, node)
    ast.fix_missing_locations(synthetic)
    signal = C.tensor_if(ev, synthetic, returned, env, rest, True)
    env.pop(L.RETVAL, None)
    if isinstance(signal, tuple):  # ("consumed", Return)
        return signal[1]
    return signal
