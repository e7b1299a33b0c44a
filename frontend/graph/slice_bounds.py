"""Slice bounds that are 0-d integer Tensors (`x[start:start + 2]`, `seq[:n]`).

MindSpore's graph mode gives such a slice a dynamic shape. mindjit's IR is
static-shaped, so a bound must be known when the graph is built, and it is in
the two ways programs write one:

- computed from constants only (`s = Tensor(2); x[s:s + 2]`): the ops that
  compute it are pure and few, so they are run once, here, on the CPU executor
  (`constant_bound`), exactly as the graph would run them;
- an input of the compiled function (`def f(x, start): return x[start:start + 2]`):
  the program is specialized on that input's value (`DynamicSliceBound` tells
  graph/api.py, which compiles again with the 0-d integer Tensor inputs as
  constants: one program per value, as for Python numbers).

A bound computed from the data (`x[:ops.argmax(y)]`) is neither: a clear error,
since its shape would only be known when the graph runs.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType, ModuleOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.traits import Pure

from mindjit.driver.eager import compile_op
from mindjit.frontend.graph.errors import FrontendError
from mindjit.frontend.graph_value import GraphValue
from mindjit.frontend.structure import is_integer_scalar
from mindjit.frontend.tensor import Parameter, Tensor

#: the most ops a bound is computed with that `constant_bound` runs (a bound is
#: a few scalar ops; a long chain is not a bound worth running here)
MAX_OPS = 64


class DynamicSliceBound(FrontendError):
    """A slice bound known only when the graph runs (see the module doc)."""


def bound_value(value: Any) -> Any:
    """A slice bound as Python slicing takes it: a 0-d integer Tensor's int (a
    concrete one, or one computed from constants), None when it is only known at
    run time; any other value as it is."""
    if isinstance(value, Tensor) and not isinstance(value, Parameter) and is_integer_scalar(value):
        return int(value.asnumpy())
    if isinstance(value, GraphValue) and is_integer_scalar(value):
        found = constant_bound(value.ssa)
        return None if found is None else int(found)
    return value


def constant_bound(value: SSAValue) -> np.ndarray | None:
    """The value of `value` when it is computed by at most MAX_OPS pure ops from
    constants, run on the CPU executor; else None."""
    ops: list[Operation] = []
    seen: set[int] = set()
    stack: list[tuple[Operation, int]] = []
    root = value.owner
    if not isinstance(root, Operation):
        return None
    stack.append((root, 0))
    seen.add(id(root))
    while stack:
        op, i = stack.pop()
        if op.regions or not op.has_trait(Pure):
            return None
        if i == len(op.operands):
            ops.append(op)
            continue
        stack.append((op, i + 1))
        owner = op.operands[i].owner
        if not isinstance(owner, Operation):
            return None  # an argument of the graph: known when it runs
        if id(owner) not in seen:
            seen.add(id(owner))
            if len(seen) > MAX_OPS:
                return None
            stack.append((owner, 0))
    mapping: dict[SSAValue, SSAValue] = {}
    block = Block()
    for op in ops:
        block.add_op(op.clone(value_mapper=mapping))
    block.add_op(func.ReturnOp(mapping[value]))
    fn = func.FuncOp("bound", FunctionType.from_lists([], [value.type]), Region(block))
    (out,) = compile_op(ModuleOp([fn])).run("bound")
    return np.asarray(out)
