"""HyperMap in graph mode: calls of one kind become one vmap.

`HyperMap(fn)(seq, ...)` calls `fn` once per element. Traced call by call, a
map over 200 elements is 200 calls, each inlined and lowered: the very cost the
docs use HyperMap to avoid. So the calls are grouped by what they compute: the
calls of one function (a MultitypeFuncGraph resolving to one registered
function) on tensors of the same types form a group. A group's elements are
stacked (constant Tensors into one constant), mapped by one `mindir.vmap`
around a single call of the function, and split by one `mindir.unstack` per
output: a handful of ops whatever the length. `mindir-vmap` batches it, and
pieces that are returned leave the graph as the one tensor (stacked_returns).

A group is batched only when mindir-vmap can batch the function's ops (asked
through `mindjit.driver.queries.batchable`: a batching rule for every op, no
side effects, no Parameter reads); otherwise, and for lone calls and non-tensor
elements, each call is traced on its own, in HyperMap's order.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.ir import Block, Operation, Region, SSAValue

from mindjit.dialects import mindir as M
from mindjit.dialects.mindir.vmap import NOT_BATCHED, VmapOp, batched_type
from mindjit.driver.queries import batchable
from mindjit.frontend.graph.branches import Branch
from mindjit.frontend.graph.compiler import tensor_type_of
from mindjit.frontend.graph_value import GraphValue
from mindjit.frontend.ops.hyper_map import HyperMap, MultitypeFuncGraph
from mindjit.frontend.structure import Leaf, unflatten
from mindjit.frontend.tensor import Parameter, Tensor
from mindjit.frontend.vmap import trace_example
from mindjit.ir.walk import block_ops, walk_ops

Call = Callable[[Any, list], Any]


@dataclass(eq=False)
class _Element:
    """One call of the map: `fn(*args)`, its result once traced, its group's key."""

    fn: Any
    args: list[Any]
    key: Any = None
    result: Any = None
    done: bool = False


def trace_hyper_map(ev: Any, hyper_map: HyperMap, args: list, call: Call) -> Any:
    """`hyper_map(*args)` in the graph being traced; `call(fn, args)` traces one call."""
    elements: list[_Element] = []

    def record(fn: Any, leaves: list[Any]) -> _Element:
        element = _Element(fn, list(leaves))
        element.key = _group_key(element)
        elements.append(element)
        return element

    structure = hyper_map.map(args, record)  # the order of the calls, reverse or not
    groups: dict[Any, list[_Element]] = {}
    for e in elements:
        if e.key is not None:
            groups.setdefault(e.key, []).append(e)
    for e in elements:
        if e.done:
            continue
        group = groups.pop(e.key, None) if e.key is not None else None
        if group is not None and len(group) > 1 and _batch(ev, group, call):
            continue
        e.result = call(e.fn, e.args)
        e.done = True
    return _results(structure)


def _group_key(e: _Element) -> Any:
    """Calls with equal keys compute the same function on the same types."""
    if not e.args or not all(
        isinstance(a, GraphValue | Tensor) and not isinstance(a, Parameter) for a in e.args
    ):
        return None
    target = e.fn
    if isinstance(e.fn, MultitypeFuncGraph):
        try:
            target = e.fn.resolve(e.args)
        except TypeError:
            return None  # traced alone, it raises the located error
    return (id(e.fn), id(target), tuple(tensor_type_of(a) for a in e.args))


def _batch(ev: Any, group: list[_Element], call: Call) -> bool:
    """Trace the group as one vmap; False (nothing emitted) when mindir-vmap could
    not batch the function."""
    first = group[0]
    template = tuple(Leaf(i) for i in range(len(first.args)))
    branch = Branch(ev, [tensor_type_of(a) for a in first.args])
    try:
        out_template, outs = trace_example(ev, call, first.fn, template, branch)
    except TypeError:  # fn returns no tensors: traced call by call, as written
        _discard(branch.block)
        return False
    except BaseException:
        _discard(branch.block)
        raise
    if not batchable(_walk_ops_of(branch.block), _graph_lookup(ev)):
        _discard(branch.block)
        return False
    columns = [[e.args[j] for e in group] for j in range(len(first.args))]
    shared = [all(x is column[0] for x in column) for column in columns]
    if all(shared):
        shared = [False] * len(columns)
    inputs = [
        ev.graph.as_value(column[0]) if same else _stacked(ev, column)
        for column, same in zip(columns, shared)
    ]
    in_axes = [NOT_BATCHED if same else 0 for same in shared]
    n = len(group)
    result_types = [batched_type(o.ssa.type, 0, n) for o in outs]
    vmap = ev.graph.insert(
        VmapOp(inputs, in_axes, [0] * len(outs), result_types, Region(branch.block))
    )
    pieces = [ev.graph.insert(M.UnstackOp.get(r, 0)).results for r in vmap.results]
    for i, e in enumerate(group):
        e.result = unflatten(out_template, [GraphValue(p[i]) for p in pieces])
        e.done = True
    return True


def _walk_ops_of(block: Block) -> list[Operation]:
    return [o for op in block_ops(block) for o in walk_ops(op)]


def _graph_lookup(ev: Any) -> Callable[[str], Operation | None]:
    graphs = {
        op.sym_name.data: op
        for op in block_ops(ev.compiler.module.module.body.block)
        if isinstance(op, func.FuncOp)
    }
    return graphs.get


def _discard(block: Block) -> None:
    """Erase a traced block that will not be used (its ops' uses of outer values go)."""
    block.erase(safe_erase=False)


def _stacked(ev: Any, column: list[Any]) -> SSAValue:
    """The elements of one argument stacked on a new axis 0."""
    if all(isinstance(x, Tensor) for x in column):  # constants: one constant
        return ev.graph.as_value(Tensor._wrap(np.stack([x.asnumpy() for x in column])))
    values = [ev.graph.as_value(x) for x in column]
    source = M.unstacked_source(values, 0)
    if source is not None:
        return source
    return ev.graph.insert(M.StackOp.get(values, 0)).results[0]


def _results(structure: Any) -> Any:
    if isinstance(structure, _Element):
        return structure.result
    if isinstance(structure, tuple):
        return tuple(_results(x) for x in structure)
    if isinstance(structure, list):
        return [_results(x) for x in structure]
    return structure


__all__ = ["trace_hyper_map"]
