"""Evaluating a Python function's AST into a graph, as MindSpore's parser does.

Python values that are known while compiling (numbers, strings, tuples, Cells,
jit_class objects, constant Tensors) are computed right away; tensors that
only exist when the graph runs are `GraphValue`s, and every op applied to them
emits mindir. So `if` on a constant picks a branch now, `if` on a tensor emits
`mindir.if`; `for` over a range, tuple, list or CellList is unrolled; `while`
on a tensor emits `mindir.while`. Anything else is a `FrontendError` naming the
file, the line and the construct.
"""

from __future__ import annotations

import ast
import builtins
import copy
import inspect
import operator
from typing import Any

from mindjit.frontend.graph import (
    control_flow,
    expr_chains,
    flagged_flow,
    functional,
    loop_flags,
    raises,
    slice_bounds,
    switch_layer,
    tensor_items,
)
from mindjit.frontend.graph.calls import call_value
from mindjit.frontend.graph.errors import (
    FrontendError,
    builtin_error_type,
    describe_node,
    located_error,
    public_message,
    type_name,
)
from mindjit.frontend.graph.evaluation import BREAK, CONTINUE, Env, LoopSignal, Return, Signal
from mindjit.frontend.graph.source import FunctionSource
from mindjit.frontend.graph_value import GraphValue
from mindjit.frontend.ops import math as tensor_math
from mindjit.ir import interned

_BINOPS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
    ast.MatMult: operator.matmul,
    ast.BitAnd: operator.and_,
    ast.BitOr: operator.or_,
    ast.BitXor: operator.xor,
    ast.LShift: operator.lshift,
    ast.RShift: operator.rshift,
}
_UNARY = {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Invert: operator.invert}
_COMPARE = {
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Is: operator.is_,
    ast.IsNot: operator.is_not,
    ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
}
_MAX_CONSTANT_WHILE = 100_000


class FunctionEvaluator:
    # set on first use (functional.py makes evaluators without __init__)
    chain_values: dict[ast.AST, Any] | None = None  # links of long chains (expr_chains.py)
    elif_cond: tuple[ast.If, Any] | None = None  # an elif's test, for exec_if

    def __init__(self, compiler: Any, graph: Any, fn: Any, source: FunctionSource, self_obj: Any):
        self.compiler = compiler
        self.graph = graph
        self.fn = fn
        self.source = source
        self.self_obj = self_obj
        self.loop_depth = 0
        self.tensor_branch_depth = 0
        self.active_envs: list[Env] = []  # the scopes of the blocks being run, innermost last
        self.pending_checks: list[Any] = []  # run-time checks of raise/assert (raises.py)
        closure = {}
        if fn.__closure__:
            for name, cell in zip(fn.__code__.co_freevars, fn.__closure__):
                try:
                    closure[name] = cell.cell_contents
                except ValueError:
                    pass
        self.closure = closure

    # --- errors and locations -----------------------------------------------------------
    def error(self, node: ast.AST, message: str, kind: type | None = None) -> FrontendError:
        """A located error; `kind` is the type MindSpore raises (NameError, TypeError...)."""
        line = getattr(node, "lineno", None)
        return located_error(kind, message, self.source.file, line, node)  # type: ignore[return-value]

    def at(self, node: ast.AST) -> None:
        if hasattr(node, "lineno"):
            self.graph.location = interned.file_line_col(
                self.source.file, node.lineno, node.col_offset + 1
            )

    # --- entry ---------------------------------------------------------------------------
    def run(self, args: tuple, kwargs: dict) -> Any:
        env = Env()
        call_args = args
        if self.self_obj is not None:
            call_args = (self.self_obj, *args)
        try:
            bound = inspect.signature(self.fn).bind(*call_args, **kwargs)
        except TypeError as exc:
            raise self.error(
                self.source.tree, f"cannot call '{self.fn.__name__}': {exc}", TypeError
            ) from None
        bound.apply_defaults()
        env.update(bound.arguments)
        signal = self.exec_block(self.source.tree.body, env, tail=True)
        if isinstance(signal, Return):
            return raises.attach_pending(self, signal.value)
        if isinstance(signal, LoopSignal):
            raise self.error(self.source.tree, f"'{signal.name}' outside a loop")
        return None

    # --- statements ----------------------------------------------------------------------
    def exec_block(self, stmts: list[ast.stmt], env: Env, tail: bool = False) -> Signal:
        """Run statements; `tail` blocks end the function, so a tensor `if` with a
        `return` in it may take the rest of the block into its branches."""
        self.active_envs.append(env)
        try:
            return self._exec_block(stmts, env, tail)
        finally:
            self.active_envs.pop()

    def _exec_block(self, stmts: list[ast.stmt], env: Env, tail: bool) -> Signal:
        for index, stmt in enumerate(stmts):
            if isinstance(stmt, ast.If):
                signal = self.exec_if(stmt, env, stmts[index + 1 :], tail)
                if signal == "consumed":
                    return None
                if isinstance(signal, tuple):  # ("consumed", Return)
                    return signal[1]
            else:
                signal = self.exec_stmt(stmt, env)
            if signal is not None:
                return signal
            if loop_flags.iteration_may_have_stopped(env):  # a break/continue on a tensor
                return flagged_flow.rest_of_block(self, env, stmts[index + 1 :])
            if loop_flags.return_pending(env):  # a loop may have returned on a tensor
                return flagged_flow.finish_return(self, stmt, env, stmts[index + 1 :], tail)
        return None

    def exec_stmt(self, node: ast.stmt, env: Env) -> Signal:
        self.at(node)
        match node:
            case ast.Expr(value=value):
                self.eval(value, env)
                return None
            case ast.Assign(targets=targets, value=value):
                result = self.eval(value, env)
                for target in targets:
                    self.assign(target, result, env)
                return None
            case ast.AnnAssign(target=target, value=value):
                if value is not None:
                    self.assign(target, self.eval(value, env), env)
                return None
            case ast.AugAssign(target=target, op=op, value=value):
                if tensor_items.masked_aug_assign(self, node, env):
                    return None
                current = self.eval(_load_of(target), env)
                result = self.binop(node, op, current, self.eval(value, env))
                self.assign(target, result, env)
                return None
            case ast.Return(value=value):
                result = None if value is None else self.eval(value, env)
                if self.tensor_branch_depth and loop_flags.in_flagged_loop(env):
                    return loop_flags.record_return(env, result)  # a return on a tensor
                return Return(result)
            case ast.Pass():
                return None
            case ast.FunctionDef():
                functional.define(self, node, env)
                return None
            case ast.For():
                return self.exec_for(node, env)
            case ast.While():
                return self.exec_while(node, env)
            case ast.Break():
                return self._loop_signal(node, BREAK, env)
            case ast.Continue():
                return self._loop_signal(node, CONTINUE, env)
            case ast.Assert():
                return raises.exec_assert(self, node, env)
            case ast.Raise():
                return raises.exec_raise(self, node, env)
            case _:
                raise self.error(node, f"{describe_node(node)} is not supported in graph mode")

    def _loop_signal(self, node: ast.stmt, signal: LoopSignal, env: Env) -> Signal:
        if self.loop_depth == 0:
            raise self.error(node, f"'{signal.name}' outside a loop")
        if self.tensor_branch_depth and loop_flags.in_flagged_loop(env):
            return loop_flags.loop_signal(env, signal is BREAK)
        if self.tensor_branch_depth:
            raise self.error(
                node, f"'{signal.name}' under an if on a tensor is not supported in graph mode"
            )
        return signal

    def assign(self, target: ast.expr, value: Any, env: Env) -> None:
        match target:
            case ast.Name(id=name):
                env[name] = value
            case ast.Tuple(elts=elts) | ast.List(elts=elts):
                if any(isinstance(e, ast.Starred) for e in elts):
                    return functional.assign_starred(self, target, value, env)
                items = self.unpack(target, value, len(elts))
                for t, v in zip(elts, items):
                    self.assign(t, v, env)
            case ast.Subscript(value=obj_node, slice=index_node):
                obj = self.eval(obj_node, env)
                if tensor_items.is_item_target(obj):
                    tensor_items.assign(self, target, obj, self.eval(index_node, env), value, env)
                    return
                if not isinstance(obj, list | dict):
                    raise self.error(
                        target, "item assignment is only supported on lists in graph mode"
                    )
                obj[self.eval(index_node, env)] = value
            case ast.Attribute():
                raise self.error(target, "attribute assignment is not supported in graph mode")
            case _:
                raise self.error(target, f"cannot assign to {describe_node(target)}")

    def unpack(self, node: ast.AST, value: Any, n: int) -> list[Any]:
        if isinstance(value, GraphValue):
            if not value.shape or value.shape[0] != n:
                raise self.error(
                    node,
                    f"cannot unpack a tensor of shape {value.shape} into {n} names",
                    ValueError,
                )
            return [value[i] for i in range(n)]
        try:
            items = list(value)
        except TypeError:
            raise self.error(node, f"cannot unpack {type_name(value)}", TypeError) from None
        if len(items) != n:
            raise self.error(node, f"expected {n} values to unpack, got {len(items)}", ValueError)
        return items

    # --- control flow --------------------------------------------------------------------
    def exec_if(self, node: ast.If, env: Env, rest: list[ast.stmt], tail: bool) -> Any:
        if self.elif_cond is not None and self.elif_cond[0] is node:
            cond = self.elif_cond[1]  # evaluated by the loop below
            self.elif_cond = None
        else:
            self.at(node)
            cond = self.eval(node.test, env)
        while not isinstance(cond, GraphValue):  # an elif chain on constants: a loop
            if self.truth(node.test, cond):
                return self.exec_block(node.body, env, tail=False)
            if len(node.orelse) != 1 or not isinstance(node.orelse[0], ast.If):
                return self.exec_block(node.orelse, env, tail=False)
            elif_node = node.orelse[0]
            self.at(elif_node)
            cond = self.eval(elif_node.test, env)
            if isinstance(cond, GraphValue):  # on a tensor: the else block, as it was
                self.elif_cond = (elif_node, cond)
                return self.exec_block(node.orelse, env, tail=False)
            node = elif_node
        if (raised := raises.tensor_if_raises(self, node, cond, env)) is not raises.NOT_HANDLED:
            return raised
        return control_flow.tensor_if(self, node, cond, env, rest, tail)

    def exec_for(self, node: ast.For, env: Env) -> Signal:
        if node.orelse:
            raise self.error(node, "'for ... else' is not supported in graph mode")
        items = functional.iterate(self, node, self.eval(node.iter, env))
        self.loop_depth += 1
        flags = loop_flags.enter_loop(env)
        try:
            for item in items:  # unrolled, as MindSpore does
                loop_flags.start_iteration(env)
                self.assign(node.target, item, env)
                if loop_flags.iteration_may_have_stopped(env):  # broken on a tensor
                    signal = flagged_flow.guarded(self, node, env, node.body)
                else:
                    signal = self.exec_block(node.body, env)
                if signal is BREAK or loop_flags.broken(env):
                    break
                if isinstance(signal, Return):
                    return signal
        finally:
            self.loop_depth -= 1
            loop_flags.exit_loop(env, flags)
        return None

    def exec_while(self, node: ast.While, env: Env) -> Signal:
        if node.orelse:
            raise self.error(node, "'while ... else' is not supported in graph mode")
        cond = self.eval(node.test, env)
        if isinstance(cond, GraphValue):
            return control_flow.tensor_while(self, node, env)
        self.loop_depth += 1
        flags = loop_flags.enter_loop(env)
        try:
            for _ in range(_MAX_CONSTANT_WHILE):
                if not self.truth(node.test, cond):
                    return None
                loop_flags.start_iteration(env)
                if loop_flags.iteration_may_have_stopped(env):  # broken on a tensor
                    signal = flagged_flow.guarded(self, node, env, node.body)
                else:
                    signal = self.exec_block(node.body, env)
                if signal is BREAK or loop_flags.broken(env):
                    return None
                if isinstance(signal, Return):
                    return signal
                cond = self.eval(node.test, env)
                if isinstance(cond, GraphValue):
                    if loop_flags.broken_on_a_tensor(env):  # the rest is a while on a tensor
                        return control_flow.tensor_while(self, node, env, env[loop_flags.RUNNING])
                    raise self.error(
                        node, "the condition of this while became a tensor inside the loop"
                    )
        finally:
            self.loop_depth -= 1
            loop_flags.exit_loop(env, flags)
        raise self.error(node, f"while loop on constants ran more than {_MAX_CONSTANT_WHILE} times")

    def truth(self, node: ast.AST, value: Any) -> bool:
        try:
            return bool(value)
        except Exception as exc:
            raise self.error(
                node,
                f"cannot use {type_name(value)} as a condition: {exc}",
                builtin_error_type(exc),
            ) from None

    # --- expressions ---------------------------------------------------------------------
    def eval(self, node: ast.expr, env: Env) -> Any:
        if self.chain_values and (value := expr_chains.take(self, node)) is not expr_chains.MISSING:
            return value  # a link of a long chain, already evaluated (expr_chains.py)
        if expr_chains.is_long(node):
            return expr_chains.evaluate(self, node, env)
        return self.eval_node(node, env)

    def eval_node(self, node: ast.expr, env: Env) -> Any:
        """`eval` of one node by its `eval_*` method (its children through `eval`)."""
        method = getattr(self, f"eval_{type(node).__name__}", None)
        if method is None:
            raise self.error(node, f"{describe_node(node)} is not supported in graph mode")
        return method(node, env)

    def eval_Constant(self, node: ast.Constant, env: Env) -> Any:
        return node.value

    def eval_Name(self, node: ast.Name, env: Env) -> Any:
        name = node.id
        if name in env:
            value = env[name]
            if isinstance(value, control_flow.Unmerged):  # no value after a tensor if
                raise value.error
            return value
        if name in self.closure:
            return self.closure[name]
        if name in self.fn.__globals__:
            return self.fn.__globals__[name]
        if hasattr(builtins, name):
            return getattr(builtins, name)
        raise self.error(node, f"name '{name}' is not defined", NameError)

    def eval_Attribute(self, node: ast.Attribute, env: Env) -> Any:
        obj = self.eval(node.value, env)
        try:
            return getattr(obj, node.attr)
        except AttributeError:
            raise self.error(
                node, f"'{type_name(obj)}' object has no attribute '{node.attr}'", AttributeError
            ) from None

    def eval_Tuple(self, node: ast.Tuple, env: Env) -> tuple:
        return tuple(functional.display_items(self, node.elts, env))

    def eval_List(self, node: ast.List, env: Env) -> list:
        return functional.display_items(self, node.elts, env)

    def eval_Dict(self, node: ast.Dict, env: Env) -> dict:
        return functional.dict_display(self, node, env)

    def eval_Lambda(self, node: ast.Lambda, env: Env) -> Any:
        return functional.GraphFunction(self, node, env)

    def eval_ListComp(self, node: ast.expr, env: Env) -> Any:
        return functional.comprehension(self, node, env)

    eval_SetComp = eval_DictComp = eval_GeneratorExp = eval_ListComp

    def eval_Slice(self, node: ast.Slice, env: Env) -> slice:
        def part(n: ast.expr | None) -> Any:
            v = None if n is None else self.eval(n, env)
            known = slice_bounds.bound_value(v)
            if isinstance(known, GraphValue) or (known is None and v is not None):
                kind = slice_bounds.DynamicSliceBound if known is None else None
                raise self.error(
                    node,
                    "a slice bound must be known when the graph is built: an int, or a "
                    "0-d integer Tensor that is an input of the compiled function or is "
                    "computed from constants (mindjit's shapes are static; MindSpore gives "
                    "this slice a dynamic shape)",
                    kind,
                )
            return known

        return slice(part(node.lower), part(node.upper), part(node.step))

    def eval_Subscript(self, node: ast.Subscript, env: Env) -> Any:
        obj = self.eval(node.value, env)
        index = self.eval(node.slice, env)
        if tensor_items.is_item_target(obj):
            return tensor_items.read(self, node, obj, index)
        if switch_layer.is_switch(obj, index):
            return switch_layer.select(self, node, obj, index)
        if isinstance(obj, dict) and _missing_key(obj, index):
            shown = obj if not any(isinstance(v, GraphValue) for v in obj.values()) else "ValueAny"
            raise self.error(
                node, f"The key {index} does not exist in the dict:{shown}", ValueError
            )  # MindSpore's type and message
        return self.apply(node, operator.getitem, obj, index)

    def eval_BinOp(self, node: ast.BinOp, env: Env) -> Any:
        return self.binop(node, node.op, self.eval(node.left, env), self.eval(node.right, env))

    def binop(self, node: ast.AST, op: ast.operator, left: Any, right: Any) -> Any:
        fn = _BINOPS.get(type(op))
        if fn is None:
            raise self.error(node, f"operator {type(op).__name__} is not supported in graph mode")
        return self.apply(node, fn, left, right)

    def eval_UnaryOp(self, node: ast.UnaryOp, env: Env) -> Any:
        operand = self.eval(node.operand, env)
        if isinstance(node.op, ast.Not):
            if isinstance(operand, GraphValue):
                return tensor_math.logical_not(
                    control_flow.as_bool(self, node, operand, scalar=False)
                )
            return not self.truth(node, operand)
        return self.apply(node, _UNARY[type(node.op)], operand)

    def eval_Compare(self, node: ast.Compare, env: Env) -> Any:
        left = self.eval(node.left, env)
        result: Any = True
        for op, right_node in zip(node.ops, node.comparators):
            right = self.eval(right_node, env)
            value = self.apply(node, _COMPARE[type(op)], left, right)
            result = value if result is True else self.logical(node, ast.And(), result, value)
            left = right
        return result

    def eval_BoolOp(self, node: ast.BoolOp, env: Env) -> Any:
        result = self.eval(node.values[0], env)
        for value_node in node.values[1:]:
            if not isinstance(result, GraphValue):
                truth = self.truth(node, result)
                if isinstance(node.op, ast.And) and not truth:
                    return result
                if isinstance(node.op, ast.Or) and truth:
                    return result
                result = self.eval(value_node, env)
                continue
            result = self.logical(node, node.op, result, self.eval(value_node, env))
        return result

    def logical(self, node: ast.AST, op: ast.boolop, a: Any, b: Any) -> Any:
        """`and`/`or` once a tensor is involved: elementwise on bool tensors."""

        if not isinstance(a, GraphValue) and not isinstance(b, GraphValue):
            return (a and b) if isinstance(op, ast.And) else (a or b)
        a = control_flow.as_bool(self, node, a, scalar=False)
        b = control_flow.as_bool(self, node, b, scalar=False)
        return (
            tensor_math.logical_and(a, b)
            if isinstance(op, ast.And)
            else tensor_math.logical_or(a, b)
        )

    def eval_IfExp(self, node: ast.IfExp, env: Env) -> Any:
        cond = self.eval(node.test, env)
        if not isinstance(cond, GraphValue):
            return self.eval(node.body if self.truth(node.test, cond) else node.orelse, env)
        return control_flow.tensor_ifexp(self, node, cond, env)

    def eval_JoinedStr(self, node: ast.JoinedStr, env: Env) -> str:
        parts = []
        for value in node.values:
            if isinstance(value, ast.Constant):
                parts.append(str(value.value))
            elif isinstance(value, ast.FormattedValue):
                v = self.eval(value.value, env)
                if isinstance(v, GraphValue):
                    raise self.error(node, "f-strings of tensors are not supported in graph mode")
                spec = self.eval(value.format_spec, env) if value.format_spec else ""
                conv = {115: str, 114: repr, 97: ascii}.get(value.conversion, lambda x: x)
                parts.append(format(conv(v), spec))
        return "".join(parts)

    def eval_Call(self, node: ast.Call, env: Env) -> Any:
        callee = self.eval(node.func, env)
        args: list[Any] = []
        for a in node.args:
            if isinstance(a, ast.Starred):
                args.extend(
                    self.unpack(
                        a, self.eval(a.value, env), _static_len(self, a, self.eval(a.value, env))
                    )
                )
            else:
                args.append(self.eval(a, env))
        kwargs: dict[str, Any] = {}
        for kw in node.keywords:
            if kw.arg is None:
                extra = self.eval(kw.value, env)
                if not isinstance(extra, dict):
                    raise self.error(node, "'**' needs a dict")
                kwargs.update(extra)
            else:
                kwargs[kw.arg] = self.eval(kw.value, env)
        self.at(node)
        return call_value(self, node, callee, args, kwargs)

    # --- applying Python operations ----------------------------------------------------------
    def apply(self, node: ast.AST, fn: Any, *args: Any) -> Any:
        """Apply an operator: constant folding, or an op on tensors (which emits mindir)."""
        self.at(node)
        try:
            return fn(*args)
        except FrontendError:
            raise
        except Exception as exc:
            raise self.error(node, public_message(exc), builtin_error_type(exc)) from None


def _missing_key(d: dict, key: Any) -> bool:
    """A constant key a dict lacks (an unhashable key is getitem's own TypeError)."""
    try:
        return not isinstance(key, GraphValue) and key not in d
    except TypeError:
        return False


def _load_of(target: ast.expr) -> ast.expr:
    """The expression reading an augmented-assignment target."""
    node = copy.copy(target)
    node.ctx = ast.Load()  # type: ignore[attr-defined]
    return node


def _static_len(ev: FunctionEvaluator, node: ast.AST, value: Any) -> int:
    if isinstance(value, GraphValue):
        if not value.shape:
            raise ev.error(node, "cannot unpack a 0-d tensor")
        return value.shape[0]
    try:
        return len(value)
    except TypeError:
        raise ev.error(node, f"cannot unpack {type_name(value)}", TypeError) from None
