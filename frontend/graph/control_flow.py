"""`if` and `while` on tensors: `mindir.if` and `mindir.while`.

Each branch (or loop region) is traced into its own block with its own copy of
the variables. Afterwards the variables a branch changed are merged: values
both branches agree on stay compile-time values; the rest become the if's
results (numbers turn into 0-d tensors), and must have one type in both
branches. A `while` carries every variable its body assigns that exists
before the loop.
"""

from __future__ import annotations

import ast
from functools import partial
from typing import Any

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Region, SSAValue

from mindjit.dialects import mindir as M
from mindjit.frontend import dtype as D
from mindjit.frontend.graph import loop_flags, loop_values
from mindjit.frontend.graph.branches import Branch
from mindjit.frontend.graph.errors import FrontendError
from mindjit.frontend.graph.evaluation import Return
from mindjit.frontend.graph_value import GraphValue
from mindjit.frontend.ops import array
from mindjit.frontend.ops import math as tensor_math
from mindjit.frontend.tensor import Tensor


class _Varies:
    """Marks a leaf that differs between branches and becomes an if/while result."""


def as_bool(ev: Any, node: ast.AST, value: Any, scalar: bool) -> Any:
    """A tensor used as a condition: `!= 0` unless bool, and 0-d when `scalar`."""

    if not isinstance(value, GraphValue):
        return value
    if not value.dtype.is_bool:
        value = tensor_math.not_equal(value, 0)
    if scalar and value.shape != ():
        if value.size != 1:
            raise ev.error(
                node,
                f"the truth value of a tensor of shape {list(value.shape)} is ambiguous; "
                "a condition must have exactly one element",
                ValueError,
            )
        value = array.reshape(value, ())
    return value


def _default_dtype(value: Any) -> D.DType:
    if isinstance(value, bool):
        return D.bool_
    if isinstance(value, int):
        return D.int64
    return D.float32


def _to_graph_value(ev: Any, value: Any, like: Any = None) -> GraphValue:
    """A tensor for `value`: numbers become 0-d constants (of `like`'s dtype if given)."""

    if isinstance(value, GraphValue):
        return value
    if isinstance(value, Tensor):
        return GraphValue(ev.graph.as_value(value))
    if isinstance(value, bool | int | float):
        dtype = like.dtype if like is not None else _default_dtype(value)
        return GraphValue(ev.graph.constant(value, dtype))
    raise TypeError(f"{type(value).__name__} cannot become a tensor")


def _is_number_or_tensor(v: Any) -> bool:

    return isinstance(v, GraphValue | Tensor | bool | int | float)


def _merge_template(ev: Any, node: ast.AST, name: str, a: Any, b: Any) -> Any:
    """The shared structure of two branch values; `_Varies` where they differ."""

    if a is b:
        return a
    if isinstance(a, tuple | list) and isinstance(b, tuple | list):
        if type(a) is not type(b) or len(a) != len(b):
            raise ev.error(node, f"'{name}' has a different structure in the two branches")
        merged = [_merge_template(ev, node, name, x, y) for x, y in zip(a, b)]
        return type(a)(merged)
    plain = (bool, int, float, str, type(None))
    if isinstance(a, plain) and isinstance(b, plain) and type(a) is type(b) and a == b:
        return a
    if _is_number_or_tensor(a) and _is_number_or_tensor(b):
        if isinstance(a, Tensor | GraphValue) or isinstance(b, Tensor | GraphValue):
            return _Varies()
        if isinstance(a, bool | int | float) and isinstance(b, bool | int | float):
            return _Varies()
    raise ev.error(
        node,
        f"'{name}' is {type(a).__name__} in one branch and {type(b).__name__} in the other; "
        "graph mode needs one type",
    )


def _leaves_of(template: Any, value: Any) -> list[Any]:
    """The parts of `value` where `template` says `_Varies`."""
    if isinstance(template, _Varies):
        return [value]
    if isinstance(template, tuple | list):
        out: list[Any] = []
        for t, v in zip(template, value):
            out.extend(_leaves_of(t, v))
        return out
    return []


def _rebuild(template: Any, results: list[Any]) -> Any:
    it = iter(results)

    def walk(t: Any) -> Any:
        if isinstance(t, _Varies):
            return next(it)
        if isinstance(t, tuple | list):
            return type(t)(walk(x) for x in t)
        return t

    return walk(template)


def _branch_leaves(ev: Any, branch: Branch, leaves: list[Any], others: list[Any]) -> list[SSAValue]:
    """SSA values of `leaves` inside `branch`, numbers typed like the other branch's."""

    def convert() -> list[SSAValue]:
        out = []
        for value, other in zip(leaves, others):
            like = other if isinstance(other, GraphValue) else None
            out.append(_to_graph_value(ev, value, like).ssa)
        return out

    return branch.run(convert)


def _check_same_types(
    ev: Any, node: ast.AST, names: list[str], a: list[SSAValue], b: list[SSAValue]
) -> None:
    for name, x, y in zip(names, a, b):
        if x.type != y.type:
            raise ev.error(
                node,
                f"'{name}' has type {x.type} in one branch and {y.type} in the other; "
                "both branches must give it one type",
            )


def emit_if(
    ev: Any,
    node: ast.AST,
    cond: Any,
    then_value: Any,
    else_value: Any,
    then_b: Branch,
    else_b: Branch,
    label: str,
) -> Any:
    """Merge two branch results (any structure) into a mindir.if; returns the merged value."""
    template = _merge_template(ev, node, label, then_value, else_value)
    t_leaves = _leaves_of(template, then_value)
    e_leaves = _leaves_of(template, else_value)
    t_ssa = _branch_leaves(ev, then_b, t_leaves, e_leaves)
    e_ssa = _branch_leaves(ev, else_b, e_leaves, t_leaves)
    _check_same_types(ev, node, [label] * len(t_ssa), t_ssa, e_ssa)
    then_b.run(lambda: ev.graph.insert(M.YieldOp(*t_ssa)))
    else_b.run(lambda: ev.graph.insert(M.YieldOp(*e_ssa)))
    cond_ssa = ev.graph.as_value(as_bool(ev, node, cond, scalar=True))
    op = ev.graph.insert(
        M.IfOp(cond_ssa, [v.type for v in t_ssa], Region(then_b.block), Region(else_b.block))
    )
    return _rebuild(template, [GraphValue(r) for r in op.results])


def _contains(stmts: list[ast.stmt], kinds: tuple) -> bool:
    for stmt in stmts:
        for sub in ast.walk(stmt):
            if isinstance(sub, kinds):
                return True
    return False


def _always_returns(stmts: list[ast.stmt]) -> bool:
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, ast.Return):
        return True
    if isinstance(last, ast.If):
        return _always_returns(last.body) and _always_returns(last.orelse)
    return False


def tensor_if(
    ev: Any, node: ast.If, cond: GraphValue, env: Any, rest: list[ast.stmt], tail: bool
) -> Any:
    returns = _contains(node.body, (ast.Return,)) or _contains(node.orelse, (ast.Return,))
    returns = returns and not loop_flags.in_flagged_loop(env)  # in a loop: loop_flags
    cond = as_bool(ev, node, cond, scalar=True)
    then_b, else_b = Branch(ev), Branch(ev)
    if returns:
        if not tail:
            raise ev.error(
                node,
                "'return' under an if on a tensor is only supported when the if is not inside a loop",
            )
        body = node.body + ([] if _always_returns(node.body) else rest)
        orelse = node.orelse + ([] if _always_returns(node.orelse) else rest)

        def returned(block: list[ast.stmt], benv: Any) -> Any:
            signal = ev.exec_block(block, benv, tail=True)
            return signal.value if isinstance(signal, Return) else None

        t_env, e_env = env.branch_copy(), env.branch_copy()
        t_val = then_b.run(lambda: returned(body, t_env))
        e_val = else_b.run(lambda: returned(orelse, e_env))
        return (
            "consumed",
            Return(emit_if(ev, node, cond, t_val, e_val, then_b, else_b, "return value")),
        )

    t_env, e_env = env.branch_copy(), env.branch_copy()
    for branch, block, benv in ((then_b, node.body, t_env), (else_b, node.orelse, e_env)):
        signal = branch.run(lambda block=block, benv=benv: ev.exec_block(block, benv))
        if signal is not None:
            raise ev.error(node, "'break'/'continue' under an if on a tensor is not supported")
    loop_flags.fill_returns(ev, (t_env, then_b), (e_env, else_b))
    names = [
        n
        for n in dict.fromkeys([*t_env, *e_env])
        if n in t_env and n in e_env and (t_env[n] is not env.get(n) or e_env[n] is not env.get(n))
    ]
    for n in list(env):
        if n not in t_env or n not in e_env:
            env.pop(n, None)
    names = _mergeable(ev, node, names, t_env, e_env, env)
    if not names:
        # still emit the if: its branches may hold side effects (print, assign)
        emit_if(ev, node, cond, (), (), then_b, else_b, "")
        return None
    merged = emit_if(
        ev,
        node,
        cond,
        tuple(t_env[n] for n in names),
        tuple(e_env[n] for n in names),
        then_b,
        else_b,
        ", ".join(names),
    )
    for n, v in zip(names, merged):
        env[n] = v
    return None


class Unmerged:
    """A name the two branches of a tensor `if` bind to values of different kinds
    (a tuple in one, a number in the other). Python keeps whichever ran; a graph
    cannot, so the name has no value after the if. Reading it raises `error`, at
    the if; a name never read again (`a, _ = x, (x, x)`) is no error, as it is
    none in PyNative."""

    __slots__ = ("error",)

    def __init__(self, error: Exception):
        self.error = error


def _mergeable(
    ev: Any, node: ast.AST, names: list[str], t_env: Any, e_env: Any, env: Any
) -> list[str]:
    """The names whose branch values merge; the others become `Unmerged` in `env`."""
    kept = []
    for n in names:
        try:
            _merge_template(ev, node, n, t_env[n], e_env[n])
        except FrontendError as err:
            env[n] = Unmerged(err)
        else:
            kept.append(n)
    return kept


def tensor_ifexp(ev: Any, node: ast.IfExp, cond: GraphValue, env: Any) -> Any:
    then_b, else_b = Branch(ev), Branch(ev)
    t_val = then_b.run(lambda: ev.eval(node.body, env))
    e_val = else_b.run(lambda: ev.eval(node.orelse, env))
    return emit_if(
        ev, node, as_bool(ev, node, cond, scalar=True), t_val, e_val, then_b, else_b, "value"
    )


def _assigned_names(stmts: list[ast.stmt]) -> list[str]:
    names: list[str] = []
    for stmt in stmts:
        for sub in ast.walk(stmt):
            if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                names.append(sub.id)
            elif isinstance(sub, ast.Subscript) and isinstance(sub.ctx, ast.Store):
                base = sub.value  # x[i] = v (and x[i][j] = v) rebind x
                while isinstance(base, ast.Subscript):
                    base = base.value
                if isinstance(base, ast.Name):
                    names.append(base.id)
    return list(dict.fromkeys(names))


def tensor_while(ev: Any, node: ast.While, env: Any, running: Any = None) -> None:
    """`running`: a while on constants whose tensor `break` made its condition a tensor
    continues here, still running only where that flag is."""
    if _contains(node.body, (ast.Return,)):
        raise ev.error(node, "'return' in a while on a tensor is not supported in graph mode")
    exits = loop_flags.exits_loop(node.body)  # break/continue: the loop carries <running>
    saved = loop_flags.enter_loop(env)
    if running is not None:
        env[loop_flags.RUNNING] = running
    try:
        exits = exits or running is not None
        _tensor_while(ev, node, env, [loop_flags.RUNNING] if exits else [])
    finally:
        loop_flags.exit_loop(env, saved)


def _reads(node: ast.AST | list, name: str) -> bool:
    nodes = node if isinstance(node, list) else [node]
    return any(
        isinstance(sub, ast.Name) and sub.id == name and isinstance(sub.ctx, ast.Load)
        for n in nodes
        for sub in ast.walk(n)
    )


def _binds(target: ast.AST, name: str) -> bool:
    """Whether assigning to `target` always binds the plain name `name`."""
    if isinstance(target, ast.Name):
        return target.id == name
    if isinstance(target, ast.Tuple | ast.List):
        return any(_binds(t, name) for t in target.elts)
    return False


def _bound_before_read(body: list[ast.stmt], name: str) -> bool:
    """Whether each iteration of a loop body binds `name` before any read of it, so
    the loop need not carry it (`for blk in self.blocks: x = blk(x)` in a while's
    body: `blk` is the body's own). Top-level statements in order: a plain
    assignment binds; a `for` binds for its own body only; anything else that reads
    the name first says no."""
    for stmt in body:
        if isinstance(stmt, ast.Assign) and any(_binds(t, name) for t in stmt.targets):
            return not _reads(stmt.value, name)
        if isinstance(stmt, ast.For) and _binds(stmt.target, name):
            if _reads(stmt.iter, name) or _reads(stmt.orelse, name):
                return False
            continue  # read in its body: bound; after it: bound only if it ran
        if _reads(stmt, name):
            return False
    return True


def _body_local(node: ast.While, name: str) -> bool:
    """Whether each iteration binds `name` before reading it (and the test does not
    read it): its value need not go from one iteration to the next."""
    return not _reads(node.test, name) and _bound_before_read(node.body, name)


def _make_local(ev: Any, node: ast.While, env: Any, carried: list[str], name: str) -> None:
    """Stop carrying `name`: after the loop it has no value (reading it is the error).
    A None the body replaces (`y = None` then `y = x * 2`) is MindSpore's TypeError."""
    carried.remove(name)
    if env[name] is None:
        error = ev.error(
            node,
            f"'{name}' is None before this while on a tensor and the body binds it afresh, "
            "so it has no one value after the loop; define it before the loop as the "
            "tensor (or tuple of tensors) the body gives it",
            TypeError,
        )
    else:
        error = ev.error(
            node,
            f"'{name}' becomes a value that is not a tensor or a number in a while on a "
            "tensor; graph mode keeps only tensors and numbers from one iteration to the next",
        )
    env[name] = Unmerged(error)


def _tensor_while(ev: Any, node: ast.While, env: Any, flags: list[str]) -> None:
    carried = [n for n in _assigned_names(node.body) if n in env] + flags
    # a value the body binds afresh each iteration (`for blk in self.blocks`, `y = None`
    # then `y = x * 2`) is the body's own: not carried, and no value after the loop
    for n in [n for n in carried if not loop_values.carriable(env[n]) and _body_local(node, n)]:
        _make_local(ev, node, env, carried, n)
    _check_carried(ev, node, carried, env)
    _tensor_while_of(ev, node, env, carried)


def _check_carried(ev: Any, node: ast.While, carried: list[str], env: Any) -> None:
    """Loop variables must be tensors, numbers or tuples of them before the loop."""
    for n in carried:
        if not loop_values.carriable(env[n]):
            raise ev.error(
                node,
                f"loop variable '{n}' is a {type(env[n]).__name__}; a while on a tensor can "
                "only carry tensors, numbers and tuples of them",
            )


def _check_kept(
    ev: Any, node: ast.While, carried: list[str], shapes: list[Any], before: Any, env: Any
) -> None:
    """At the end of the body each loop variable has the structure it had before the
    loop (MindSpore's TypeError otherwise: its "Cannot join" of the loop's values)."""
    for n, shape in zip(carried, shapes):
        if not loop_values.fits(shape, env[n]):
            raise ev.error(
                node,
                f"loop variable '{n}' is a {type(env[n]).__name__} at the end of the body; a "
                f"while on a tensor keeps each loop variable's kind, and '{n}' is "
                f"{loop_values.kind(before[n])} before the loop and "
                f"{loop_values.kind(env[n])} after one iteration",
                TypeError,
            )


def _tensor_while_of(ev: Any, node: ast.While, env: Any, carried: list[str]) -> None:
    # Not traced again when the body leaves a number a tuple: a trace's side effects
    # (the state chain) are not undone, so a second trace of the body is unsafe.
    shapes = [loop_values.template(env[n]) for n in carried]
    py_leaves = [v for n in carried for v in loop_values.leaves(env[n])]
    leaf_names = [n for n in carried for _ in loop_values.leaves(env[n])]
    init = [_to_graph_value(ev, v) for v in py_leaves]
    for _attempt in range(4):
        before, after, new_values = _trace_while_regions(ev, node, env, carried, shapes, init)
        mismatched = [
            i for i, (old, new) in enumerate(zip(init, new_values)) if old.ssa.type != new.ssa.type
        ]
        if not mismatched:
            after.run(partial(ev.graph.insert, M.YieldOp(*[v.ssa for v in new_values])))
            op = ev.graph.insert(
                M.WhileOp(
                    [v.ssa for v in init],
                    [v.ssa.type for v in init],
                    Region(before.block),
                    Region(after.block),
                )
            )
            results = [GraphValue(r) for r in op.results]
            for n, value in zip(carried, _split(shapes, results)):
                env[n] = value
            return
        init = _retyped(ev, node, leaf_names, py_leaves, init, new_values, mismatched)
    raise ev.error(node, "the loop variables of this while keep changing type")


def _split(shapes: list[Any], values: list[Any]) -> list[Any]:
    """Each loop variable's value: its structure rebuilt around its leaves."""
    out, at = [], 0
    for shape in shapes:
        size = loop_values.count(shape)
        out.append(loop_values.rebuild(shape, values[at : at + size]))
        at += size
    return out


def _trace_while_regions(
    ev: Any,
    node: ast.While,
    env: Any,
    carried: list[str],
    shapes: list[Any],
    init: list[GraphValue],
) -> tuple[Branch, Branch, list[GraphValue]]:
    """Trace the condition and body regions for loop values typed like `init`."""
    types = [v.ssa.type for v in init]
    before, after = Branch(ev, types), Branch(ev, types)
    b_env, a_env = env.branch_copy(), env.branch_copy()
    b_args = [GraphValue(a) for a in before.block.args]
    a_args = [GraphValue(a) for a in after.block.args]
    for n, value in zip(carried, _split(shapes, b_args)):
        b_env[n] = value
    for n, value in zip(carried, _split(shapes, a_args)):
        a_env[n] = value
    if "<running>" in carried:  # the body runs only while the loop runs
        a_env["<running>"] = a_env["<active>"] = True

    def condition() -> None:
        c = as_bool(ev, node, ev.eval(node.test, b_env), scalar=True)
        if not isinstance(c, GraphValue):
            raise ev.error(node, "the condition of this while must stay a tensor")
        if "<running>" in carried:  # not broken out of (loop_flags)
            c = tensor_math.logical_and(c, b_env["<running>"])
        ev.graph.insert(M.ConditionOp(c.ssa, *before.block.args))

    def body() -> list[GraphValue]:
        ev.exec_block(node.body, a_env)
        _check_kept(ev, node, carried, shapes, env, a_env)
        new = [v for n in carried for v in loop_values.leaves(a_env[n])]
        return [_to_graph_value(ev, v, like=old) for v, old in zip(new, init)]

    before.run(condition)
    ev.loop_depth += 1
    try:
        new_values = after.run(body)
    finally:
        ev.loop_depth -= 1
    return before, after, new_values


def _retyped(
    ev: Any,
    node: ast.AST,
    names: list[str],
    py_leaves: list[Any],
    init: list[GraphValue],
    new: list[GraphValue],
    mismatched: list[int],
) -> list[GraphValue]:
    """Initial values cast to the type the body gives them (numbers only, as Python
    would). Otherwise MindSpore's exception types: TypeError for a number that becomes
    a tensor of another shape and for a dtype that changes, ValueError for a tensor
    whose shape changes."""

    out = list(init)
    for i in mismatched:
        old_t, new_t = init[i].ssa.type, new[i].ssa.type
        assert isinstance(old_t, TensorType) and isinstance(new_t, TensorType)
        number = isinstance(py_leaves[i], bool | int | float)
        if old_t.get_shape() != new_t.get_shape() or not number:
            shape_only = not number and old_t.get_element_type() == new_t.get_element_type()
            was = loop_values.kind(py_leaves[i]) if number else str(old_t)
            raise ev.error(
                node,
                f"loop variable '{names[i]}' is {was} before the loop and {new_t} after "
                "its body; a while on a tensor needs one type",
                ValueError if shape_only else TypeError,
            )
        out[i] = array.cast(init[i], D.from_mlir(new_t.get_element_type()))
    return out


__all__ = ["as_bool", "tensor_if", "tensor_ifexp", "tensor_while"]
