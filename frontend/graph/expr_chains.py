"""Long expression chains evaluated bottom-up, without one Python frame per link.

`x + x + ... + x` is a left-deep tree: the evaluator's `eval -> eval_BinOp ->
eval` recursion went 2 frames per term, so 1000 terms hit Python's recursion
limit (issue 29). CPython's own compiler takes ~2,900 terms at the default
limit and any length under a raised one, so the evaluator must not recurse per
term (the raised limit of support/deep_stack.py would stop at ~2,000).

A *link* is the child a node evaluates before anything else that could have an
effect: a BinOp's left operand (or its right one when the left is a name or a
constant), a unary operand, the object of `a.b` and `a[i]`, a Compare's left
side, a BoolOp's first value, a call's callee (or its first argument when the
callee is a plain name like `f`, `self.f`, `ops.add`). `chain` walks these links
down with a loop; `evaluate` then evaluates the chain from its innermost node
up, each node by its own `eval_*` method, which finds its link's value already
computed in `ev.chain_values` instead of recursing. Python evaluates in the same
order (the link first), so the ops are emitted in the order they were before;
only chains of at least `LONG` links take this path.

Nested parentheses (`x + (x + (...))`) and nested calls `f(f(...))` are links
too; CPython refuses more than 200 nested brackets, so a bracketed tree is
shallow except along such a chain.
"""

from __future__ import annotations

import ast
from typing import Any

#: Chains shorter than this recurse as before (`is_long` looks this far only).
LONG = 16

_MISSING = object()


def _plain(node: ast.expr) -> bool:
    """A name, a constant or `a.b.c` of names: evaluating it emits nothing, so it
    may be evaluated after its sibling."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name | ast.Constant)


def link(node: ast.AST) -> ast.expr | None:
    """The child `node` evaluates first (see the module docstring), or None."""
    match node:
        case ast.BinOp(left=left, right=right):
            return right if _plain(left) and not _plain(right) else left
        case ast.UnaryOp(operand=operand):
            return operand
        case ast.Attribute(value=value) | ast.Subscript(value=value):
            return value
        case ast.Compare(left=left):
            return left
        case ast.BoolOp(values=values):
            return values[0]
        case ast.Call(func=func, args=args):
            if _plain(func) and args and not isinstance(args[0], ast.Starred):
                return args[0]
            return func
    return None


def is_long(node: ast.AST) -> bool:
    """Whether `node` starts a chain of at least `LONG` links (looks no further)."""
    for _ in range(LONG):
        node = link(node)  # type: ignore[assignment]
        if node is None:
            return False
    return True


def chain(node: ast.AST) -> list[ast.AST]:
    """`node` and its links, outermost first."""
    out = [node]
    while (child := link(out[-1])) is not None:
        out.append(child)
    return out


def evaluate(ev: Any, node: ast.expr, env: Any) -> Any:
    """`ev.eval(node, env)` for a long chain: innermost link first, each node's
    value left in `ev.chain_values` for its parent's `eval` to take."""
    nodes = chain(node)
    if ev.chain_values is None:
        ev.chain_values = {}
    values = ev.chain_values
    try:
        value = ev.eval(nodes[-1], env)  # the innermost: short by construction
        for inner, outer in zip(reversed(nodes[1:]), reversed(nodes[:-1])):
            values[inner] = value
            value = ev.eval_node(outer, env)
            if values.pop(inner, _MISSING) is not _MISSING:  # the parent did not take it
                raise AssertionError(f"{type(outer).__name__} did not evaluate its link first")
        return value
    finally:
        for inner in nodes:
            values.pop(inner, None)


def take(ev: Any, node: ast.AST) -> Any:
    """The value `evaluate` left for `node`, or `_MISSING`."""
    return ev.chain_values.pop(node, _MISSING)


MISSING = _MISSING

__all__ = ["LONG", "MISSING", "chain", "evaluate", "is_long", "link", "take"]
