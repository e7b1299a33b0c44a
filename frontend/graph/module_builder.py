"""The module being compiled and the graphs (func.funcs) in it.

`ModuleBuilder` owns the ModuleOp, one `mindir.parameter` per Parameter object,
and the cache of specialized graphs. `GraphBuilder` is the graph being traced:
ops called while it is active emit into its block (see dispatch.apply_op), and
it turns Parameters into refs + `load` and gives the side-effect ops their state
arguments. The entry graph takes each Parameter it uses as an argument bound to
it (`{mindir.parameter = @w}`, MindSpore's top-graph inputs: see
`mindjit.dialects.mindir.parameter_args`); the other graphs use `get_parameter`, or
their ref arguments under lazy inline. Side-effect ops are emitted in program order, all on the
graph's entry state; the auto-monad pass threads the states properly.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np
from immutabledict import immutabledict
from xdsl.builder import Builder
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseIntOrFPElementsAttr,
    DenseResourceAttr,
    DictionaryAttr,
    ModuleOp,
    StringAttr,
    TensorType,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint

from mindjit.dialects import mindir as M
from mindjit.dialects.mindir.parameter_args import PARAMETER_ARG_ATTR
from mindjit.dialects.mindir.types import ref_type
from mindjit.frontend import dtype as D
from mindjit.frontend.dispatch import GraphState
from mindjit.frontend.emitter import dense_attr
from mindjit.frontend.graph.errors import FrontendError
from mindjit.frontend.structure import flatten, is_tensor_like
from mindjit.frontend.tensor import Parameter
from mindjit.ir import interned, resources
from mindjit.ir.compat.block_args import detached_arg, set_args
from mindjit.ir.compat.unchecked_attrs import unchecked

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def tensor_type(dtype: D.DType, shape: tuple[int, ...]) -> TensorType:
    """One TensorType per (dtype, shape): a model's Parameters repeat a few shapes."""
    return interned.tensor_type(dtype.mlir, shape)


def parameter_value_attr(symbol: str, param: Any) -> DenseIntOrFPElementsAttr | DenseResourceAttr:
    """A small Parameter's value inline; a large one's as a `dense_resource` handle
    on the live Parameter (no copy: see `mindjit.ir.resources`)."""
    if param.nbytes <= resources.INLINE_LIMIT_BYTES:
        return dense_attr(param.asnumpy(), param.dtype)
    handle = resources.hold(symbol, param, _read_parameter)
    t = tensor_type(param.dtype, tuple(param.shape))
    return unchecked(DenseResourceAttr, resource_handle=interned.string(handle), type=t)


def _read_parameter(param: Any) -> np.ndarray:
    return param.asnumpy()


class ModuleBuilder:
    def __init__(self) -> None:
        self.module = ModuleOp([])
        self._block = self.module.body.block
        self.parameters: dict[int, tuple[str, Any]] = {}  # id(Parameter) -> (symbol, Parameter)
        self.graphs: dict[Any, Any] = {}  # specialization key -> CalleeGraph
        #: the objects whose ids are in `graphs`' keys (a Cell, a closure's values),
        #: alive while the module is: a temporary `nn.ClipByNorm()(x, c)` in a graph
        #: died after its call and the next Cell made took its address, so its
        #: call reused the first one's graph (a silent wrong result, 4 of 30 runs)
        self.key_owners: list[Any] = []
        self._names: set[str] = set()
        self._last_declaration: Operation | None = None
        self._declarations: dict[int, M.ParameterOp] = {}  # id(Parameter) -> its declaration

    def unique_name(self, base: str) -> str:
        """`base` made a valid identifier (MLIR's bare-id, xDSL's value names: no
        leading digit, as in a CellList's `0.weight`), unique in the module."""
        dotted = base.replace(".", "_")  # a Parameter's path: usually all that differs
        if _IDENTIFIER.fullmatch(dotted) is not None:
            base = dotted
        else:
            base = re.sub(r"[^A-Za-z0-9_]", "_", base) or "graph"
            if base[0].isdigit():
                base = "_" + base
        name, n = base, 1
        while name in self._names:
            name = f"{base}_{n}"
            n += 1
        self._names.add(name)
        return name

    def parameter_symbol(self, param: Any) -> str:
        """The symbol of the Parameter object's `mindir.parameter`, declared on first use."""
        return self.declaration(param).properties["sym_name"].data  # type: ignore[attr-defined]

    def declaration(self, param: Any) -> M.ParameterOp:
        """The `mindir.parameter` of a Parameter object, declared on first use."""
        op = self._declarations.get(id(param))
        if op is not None:
            return op
        symbol = self.unique_name(f"{param.name}")
        op = M.ParameterOp.from_name(interned.string(symbol), parameter_value_attr(symbol, param))
        block = self._block
        # declarations first, in order (after the last one: cheaper than before the first)
        if self._last_declaration is not None:
            block.insert_op_after(op, self._last_declaration)
        elif block.first_op is not None:
            block.insert_op_before(op, block.first_op)
        else:
            block.add_op(op)
        self._last_declaration = op
        self._declarations[id(param)] = op
        self.parameters[id(param)] = (symbol, param)
        return op

    def add_function(self, fn: func.FuncOp) -> None:
        self.module.body.block.add_op(fn)


class GraphBuilder(GraphState):
    """One func.func being traced."""

    def __init__(
        self,
        module: ModuleBuilder,
        name: str,
        arg_types: Sequence[Attribute],
        bind_parameters: bool = False,
    ):
        self.module = module
        self.name = name
        self.block = Block(arg_types=list(arg_types))
        self.n_inputs = len(arg_types)  # the arguments before the states
        super().__init__(Builder(InsertPoint.at_end(self.block)))
        self.ref_args: dict[int, BlockArgument] = {}  # id(Parameter) -> its ref argument
        # the entry graph: id(Parameter) -> (its bound argument, its symbol)
        self.bound: dict[int, tuple[BlockArgument, StringAttr]] | None = (
            {} if bind_parameters else None
        )
        self.memory_state: BlockArgument | None = None
        self.io_state: BlockArgument | None = None
        self.location: Any = None  # the xDSL location given to the ops emitted next
        # forwards a later gradient may reuse (grad_trace.recorded_forward)
        self.grad_forwards: dict[tuple, Any] = {}

    # --- states -----------------------------------------------------------------------
    def u(self) -> SSAValue:
        if self.memory_state is None:
            # states follow the tensor inputs, memory state first: (inputs..., u, io)
            self.memory_state = self.block.insert_arg(M.MonadUType(), self.n_inputs)
        return self.memory_state

    def io(self) -> SSAValue:
        if self.io_state is None:
            self.io_state = self.block.insert_arg(M.MonadIOType(), len(self.block.args))
        return self.io_state

    @property
    def has_effects(self) -> bool:
        return self.memory_state is not None or self.io_state is not None

    # --- values -----------------------------------------------------------------------
    def insert(self, op: Operation) -> Operation:
        if self.location is not None:
            op.location = self.location
        return self.emitter.insert(op)

    def as_value(self, x: Any) -> SSAValue:

        if isinstance(x, Parameter):
            return self.load(x)
        return super().as_value(x)

    def ref(self, param: Any) -> SSAValue:
        """The Parameter's ref: this graph's ref argument for it (lazy inline), the
        entry graph's argument bound to it, else a `get_parameter` of its
        module-level declaration."""
        if id(param) in self.ref_args:
            return self.ref_args[id(param)]
        if self.bound is not None:
            known = self.bound.get(id(param))
            return known[0] if known is not None else self._bind(param)
        symbol = self.module.parameter_symbol(param)
        t = tensor_type(param.dtype, tuple(param.shape))
        return self.insert(M.GetParameterOp.get(symbol, t)).results[0]

    def _bind(self, param: Any) -> BlockArgument:
        """A new argument bound to `param`; `finish` places the bound arguments after
        the inputs, before the states (one step for thousands of them)."""
        assert self.bound is not None
        props = self.module.declaration(param).properties
        name: StringAttr = props["sym_name"]  # type: ignore[assignment]
        arg = detached_arg(self.block, ref_type(props["type"]))  # type: ignore[arg-type]
        arg.name_hint = name.data
        self.bound[id(param)] = (arg, name)
        return arg

    def load(self, param: Any) -> SSAValue:
        return self.insert(M.LoadOp.get(self.ref(param), self.u())).results[0]

    def constant(self, value: Any, dtype: D.DType) -> SSAValue:
        return self.insert(
            M.ConstantOp.make([], {"value": dense_attr(np.asarray(value), dtype)})
        ).results[0]

    # --- forwards a gradient reuses ---------------------------------------------------
    def _forward_key(self, cell: Any, template: Any, operands: Sequence[SSAValue]) -> tuple:
        block = self.emitter.builder.insertion_point.block
        return (id(cell), id(block), template, tuple(operands))

    def record_forward(
        self, cell: Any, template: Any, operands: Sequence[SSAValue], output: Any
    ) -> None:
        """`cell(...)` (a Cell with `set_grad()`) was just traced with these tensor
        operands: a gradient of the same Cell on the same values, later in the same
        block, reuses this run instead of running the forward again (MindSpore's
        PyNative `check_run`; a TrainOneStepCell's forward runs once per step, so its
        BatchNorm statistics and random draws advance once)."""
        if len(set(operands)) == len(operands):  # a value passed twice: per-position grads
            self.grad_forwards[self._forward_key(cell, template, operands)] = (cell, output)

    def recorded_forward(self, cell: Any, template: Any, operands: Sequence[SSAValue]) -> Any:
        """The output `record_forward` kept for this call, or None."""
        entry = self.grad_forwards.get(self._forward_key(cell, template, operands))
        return None if entry is None else entry[1]

    # --- the side-effect hooks the ops call while tracing -----------------------------
    def assign(self, param: Any, value: Any) -> Any:

        if not isinstance(param, Parameter):
            raise FrontendError("ops.assign needs a Parameter as its first argument")
        v = self.as_value(value)
        ref = self.ref(param)
        want = ref.type.tensor  # type: ignore[attr-defined]
        if v.type != want:
            raise FrontendError(
                f"ops.assign: value of type {v.type} does not match Parameter "
                f"'{param.name}' of type {want}"
            )
        return self.wrap(self.insert(M.AssignOp.get(ref, v, self.u())).results[0])

    def write_in_place(self, params: Sequence[Any], values: Sequence[Any], build: Any) -> Any:
        """An op writing the Parameters `params` in place (an ApplyMomentum, an Adam
        step, a batch norm's running statistics: ops/effects.py checked the types),
        `build(refs, values, state)`; its result. None when one of them is a ref
        argument of this (reused) graph: the caller writes the update out (the
        lowering functionalizes only Loads and Assigns of those)."""
        if any(id(p) in self.ref_args for p in params):
            return None
        refs = [self.ref(p) for p in params]
        op = build(refs, [self.as_value(v) for v in values], self.u())
        return self.wrap(self.insert(op).results[0])

    def depend(self, value: Any, attach: Any) -> Any:

        _, leaves = flatten(attach)
        attached = [self.as_value(a) for a in leaves]
        if not attached:
            return value
        v = self.as_value(value)
        return self.wrap(self.insert(M.DependOp.get(v, attached)).results[0])

    def print(self, items: Sequence[Any]) -> None:
        values: list[SSAValue] = []
        fmt: list[str | int] = []
        for item in items:
            if isinstance(item, str):
                fmt.append(item)
            elif _is_tensor(item):
                fmt.append(len(values))
                values.append(self.as_value(item))
            else:
                fmt.append(str(item))
        self.insert(M.PrintOp.get(values, self.io(), fmt))

    def npu_status(self, kind: str, status: Any = None) -> Any:
        if kind == "alloc":
            return self.wrap(self.insert(M.NPUAllocFloatStatusOp.get()).results[0])
        op = {"clear": M.NPUClearFloatStatusOp, "get": M.NPUGetFloatStatusOp}[kind]
        return self.wrap(self.insert(op.get(self.as_value(status))).results[0])

    # --- finishing --------------------------------------------------------------------
    def finish(self, results: Sequence[SSAValue], doc: str | None = None) -> func.FuncOp:
        self.insert(func.ReturnOp(*results))
        if self.bound:
            args = self.block.args
            bound = [arg for arg, _ in self.bound.values()]
            set_args(self.block, [*args[: self.n_inputs], *bound, *args[self.n_inputs :]])
        fn = func.FuncOp(
            self.name, (list(self.block.arg_types), [r.type for r in results]), Region(self.block)
        )
        if self.bound:
            attrs = [_NO_ATTRS] * len(self.block.args)
            for arg, name in self.bound.values():
                attrs[arg.index] = _bound_to(name)
            fn.arg_attrs = ArrayAttr(attrs)
        if self.location is not None:
            fn.location = self.location
        if doc:
            fn.attributes["mindir.source"] = StringAttr(doc)
        return fn


_NO_ATTRS = DictionaryAttr({})


def _bound_to(name: StringAttr) -> DictionaryAttr:
    """`{mindir.parameter = @name}` (a string key to a symbol: valid as built)."""
    ref = interned.symbol_ref_to(name)
    return unchecked(DictionaryAttr, data=immutabledict({PARAMETER_ARG_ATTR: ref}))


def _is_tensor(x: Any) -> bool:

    return is_tensor_like(x)
