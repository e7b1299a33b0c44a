"""Parameters, Load/Assign and print in convert-mindir-to-tensor.

`lower_state` runs before tuples are flattened and before the pattern walk. It
relies on block order only (the program order the frontend emits and
mindir-depend-order fixes), never on how monads are threaded, and keeps that
order: every op is rewritten in place.

- `mindir.parameter @w = dense<...> : T` -> `ml_program.global private mutable
  @w(dense<...> : T) : T`, where the Parameter was.
- `mindir.load %p, %u` (with `%p = mindir.get_parameter @w`, possibly through
  `mindir.depend`) -> `ml_program.global_load @w : T`.
- `mindir.assign %p, %v, %u` -> `ml_program.global_store @w = %v : T`; the
  Assign's result (MindSpore's Assign returns the new value) becomes `%v`.
- `mindir.apply_momentum %var, %accum, %lr, %g, %m, %u` -> the two
  `global_load`s, `mindir.mul` / `add` / `mul` / `sub` (MindSpore's formula, lowered
  and fused by the pattern walk like the ops written out) and the two
  `global_store`s; its result becomes the new variable.
- `mindir.update_moving_stats %mean, %var, %bm, %bv, %u {momentum, count}` ->
  likewise: two loads, the running statistics' update as mindir ops with float32
  constants, two stores; its result becomes the new mean.
- `mindir.print %x, %y, %io {format = [...]}` -> `func.call
  @__mindjit_print_<k>(%x, %y) {mindjit.print_format = [...]}` to a private
  declaration `func.func private @__mindjit_print_<k>(T_x, T_y) attributes
  {mindjit.runtime = "print"}`, one per distinct operand-type signature. The
  format (strings and value indices) is always on the call; without one it lists
  every value in order. The print's `!mindir.io` result becomes its io operand.
- `mindir.send %x, %io {sr_tag = k}` -> `ml_program.global_store
  @__mindjit_channel_<k> = %x` and `%y, %io1 = mindir.receive %io {sr_tag = k}`
  -> `%y = ml_program.global_load @__mindjit_channel_<k>`, with one `ml_program.global
  private mutable @__mindjit_channel_<k>(dense<0> : T) : T` per tag: in one
  process every pipeline stage shares memory, so a channel is a global (the
  zero initial value keeps a receive before any send well defined on the CPU
  executor). Every send and receive of one tag must agree on T (a located error).
- `get_parameter` dies with its last user (see `erase_dead_state`); the
  `!mindir.u` / `!mindir.io` arguments and results of functions, calls, if and
  while are dropped by `flatten_tuples`, and update_state / depend vanish.

Refs passed between graphs (lazy inline's reused graphs take their Parameters
as `!mindir.ref` arguments) are functionalized first by `lower_ref_arguments`
(mindir_to_tensor/refs.py): ref arguments become tensor arguments and extra
results, call sites load the Parameters before the call and store what the
callee writes back after it. It also checks every ref before anything changes,
so after it every ref left comes from a `mindir.get_parameter` of its function.
"""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.dialects.builtin import (
    AnyFloat,
    ArrayAttr,
    DenseIntOrFPElementsAttr,
    FunctionType,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    SymbolRefAttr,
    TensorType,
    TupleType,
    UnitAttr,
    i64,
)
from xdsl.dialects.ml_program import GlobalOp
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from mindjit.dialects import mindir
from mindjit.dialects.mindir.discardable import PIPELINE_MICRO_ATTR
from mindjit.dialects.ml_program_ext import GlobalLoadOp, GlobalStoreOp
from mindjit.ir.compat.leaf_ops import leaf_op
from mindjit.ir.locations import op_error
from mindjit.ir.walk import block_ops
from mindjit.passes.analysis.effects import ref_root
from mindjit.passes.analysis.graph_walk import walk_graphs
from mindjit.passes.mindir_to_tensor.refs import lower_ref_arguments

#: The discardable attribute marking a declaration as a mindjit runtime function.
RUNTIME_ATTR = "mindjit.runtime"
#: The runtime kind of print declarations, and the print calls' format attribute.
PRINT_RUNTIME = "print"
PRINT_FORMAT_ATTR = "mindjit.print_format"
PRINT_PREFIX = "__mindjit_print_"
#: The prefix of the globals standing for send/receive channels (the tag follows).
CHANNEL_PREFIX = "__mindjit_channel_"

# -- print declarations ---------------------------------------------------------------------


class _PrintRuntime:
    """The module's print declarations, one per operand-type signature."""

    def __init__(self, module: ModuleOp):
        self.module = module
        self.by_type: dict[FunctionType, str] = {}
        self.taken: set[str] = set()
        self.anchor: Operation | None = None
        for op in module.ops:
            name = op.properties.get("sym_name") or op.attributes.get("sym_name")
            if isinstance(name, StringAttr):
                self.taken.add(name.data)
            if is_print_declaration(op):
                assert isinstance(op, func.FuncOp)
                self.by_type.setdefault(op.function_type, op.sym_name.data)
            elif self.anchor is None and isinstance(op, func.FuncOp):
                self.anchor = op
        self.next = 0

    def callee(self, types: list[Attribute], loc: Attribute) -> str:
        ftype = FunctionType.from_lists(types, [])
        name = self.by_type.get(ftype)
        if name is not None:
            return name
        while f"{PRINT_PREFIX}{self.next}" in self.taken:
            self.next += 1
        name = f"{PRINT_PREFIX}{self.next}"
        self.taken.add(name)
        self.by_type[ftype] = name
        decl = func.FuncOp.external(name, types, [])
        decl.attributes[RUNTIME_ATTR] = StringAttr(PRINT_RUNTIME)
        decl.location = loc  # type: ignore[assignment]
        where = (
            InsertPoint.before(self.anchor)
            if self.anchor is not None
            else InsertPoint.at_end(self.module.body.block)
        )
        Rewriter.insert_op(decl, where)
        return name


def is_print_declaration(op: Operation) -> bool:
    """A `func.func private` declaration standing for mindjit's print runtime."""
    kind = op.attributes.get(RUNTIME_ATTR)
    return (
        isinstance(op, func.FuncOp)
        and not op.body.blocks
        and isinstance(kind, StringAttr)
        and kind.data == PRINT_RUNTIME
    )


def _print_call(op: mindir.PrintOp, runtime: _PrintRuntime) -> func.CallOp:
    values = list(op.values)
    for v in values:
        if isinstance(v.type, TupleType) or v.type.name.startswith("mindir."):  # type: ignore[attr-defined]
            raise op_error(op, f"'mindir.print' of a value of type {v.type} is not supported yet")
    types = [v.type for v in values]
    callee = runtime.callee(types, op.location)
    call = func.CallOp(callee, values, [])
    items = [
        StringAttr(item) if isinstance(item, str) else IntegerAttr(item, i64)
        for item in op.format_items()
    ]
    call.attributes[PRINT_FORMAT_ATTR] = ArrayAttr(items)
    call.location = op.location
    return call


# -- send/receive channels -----------------------------------------------------------------


class _Channels:
    """The module's channel globals, one per `sr_tag`, declared on first use."""

    def __init__(self, module: ModuleOp):
        self.module = module
        self.types: dict[str, Attribute] = {}
        for op in module.ops:
            if isinstance(op, GlobalOp) and op.sym_name.data.startswith(CHANNEL_PREFIX):
                self.types[op.sym_name.data] = op.type

    def symbol(self, op: mindir.SendOp | mindir.ReceiveOp, type_: Attribute) -> SymbolRefAttr:
        name = f"{CHANNEL_PREFIX}{op.sr_tag.value.data}"
        known = self.types.get(name)
        if known is None:
            self.types[name] = type_
            assert isinstance(type_, TensorType)
            zero = 0.0 if isinstance(type_.element_type, AnyFloat) else 0
            glob = leaf_op(
                GlobalOp,
                {
                    "sym_name": StringAttr(name),
                    "type": type_,
                    "is_mutable": _MUTABLE,
                    "value": DenseIntOrFPElementsAttr.from_list(type_, [zero]),
                    "sym_visibility": _PRIVATE,
                },
            )
            glob.location = op.location  # type: ignore[assignment]
            Rewriter.insert_op(glob, InsertPoint.at_start(self.module.body.block))
        elif known != type_:
            raise op_error(
                op,
                f"'{op.name}' with sr_tag {op.sr_tag.value.data} moves a {type_}, but another "
                f"send/receive of that tag moves a {known}",
            )
        return SymbolRefAttr(name)


# -- the lowering ----------------------------------------------------------------------------


def _replace(op: Operation, new: Operation | None, results: list[SSAValue]) -> None:
    _replace_by(op, [] if new is None else [new], results)


def _replace_by(op: Operation, new: list[Operation], results: list[SSAValue]) -> None:
    """Put `new` (located at `op`, marked with its pipeline work) where `op` was; its
    results become `results`."""
    mark = op.attributes.get(PIPELINE_MICRO_ATTR)
    for step in new:
        step.location = op.location  # type: ignore[assignment]
        if mark is not None:
            step.attributes[PIPELINE_MICRO_ATTR] = mark  # the pipeline work it is
    if new:
        Rewriter.insert_op(new, InsertPoint.before(op))
    for old, value in zip(op.results, results):
        old.replace_all_uses_with(value)
    op.detach()
    op.erase()


def _replace_declaration(op: Operation, new: Operation) -> None:
    """`_replace` for a module-level op without results (thousands of them)."""
    new.location = op.location
    block = op.parent
    assert block is not None
    block.insert_op_before(new, op)
    block.detach_op(op)


def _global_name(ref: SSAValue) -> SymbolRefAttr:
    getter = ref_root(ref)
    # lower_ref_arguments checked every ref and lowered the others
    assert isinstance(getter, mindir.GetParameterOp)
    return getter.parameter


_MUTABLE = UnitAttr()
_PRIVATE = StringAttr("private")


def _lower_apply_momentum(op: mindir.ApplyMomentumOp) -> None:
    """The two loads, MindSpore's formula as mindir's elementwise ops (lowered and
    fused by the pattern walk after this, as the ops written out are: the same
    bits) and the two stores, in the op's place."""
    var, accum = _global_name(op.variable), _global_name(op.accumulation)
    tensor = op.result.type
    steps = _Steps(TensorType(tensor.element_type, []))
    old_var, old_accum = (steps.emit(GlobalLoadOp.get(n, tensor)) for n in (var, accum))
    new_accum = steps.add(steps.mul(old_accum, op.momentum), op.gradient)
    new_var = steps.emit(mindir.SubOp.get(old_var, steps.mul(new_accum, op.learning_rate)))
    steps.ops += [GlobalStoreOp(accum, new_accum), GlobalStoreOp(var, new_var)]
    steps.replace(op, new_var)


def _lower_update_moving_stats(op: mindir.UpdateMovingStatsOp) -> None:
    """The two loads, `running * (1 - momentum) + batch * momentum` for each (the
    batch variance times count / (count - 1) first) as mindir's elementwise ops with
    float32 constants rounded from the same Python floats the frontend's written-out
    form used (the same bits), and the two stores."""
    momentum, count = op.factors()
    tensor = op.result.type
    steps = _Steps(TensorType(tensor.element_type, []))
    keep, take = steps.constant(1.0 - momentum), steps.constant(momentum)
    unbiased = steps.mul(op.batch_variance, steps.constant(count / (count - 1)))
    stores = []
    for ref, batch in ((op.mean, op.batch_mean), (op.variance, unbiased)):
        name = _global_name(ref)
        running = steps.emit(GlobalLoadOp.get(name, tensor))
        stores.append(
            GlobalStoreOp(name, steps.add(steps.mul(running, keep), steps.mul(batch, take)))
        )
    steps.ops += stores
    steps.replace(op, stores[0].value)


def _lower_apply_adam(op: mindir.ApplyAdamOp) -> None:
    """The three loads, Adam's step as mindir's elementwise ops in the order nn.Adam
    writes them out (float32 constants rounded from the same Python floats: the
    same bits), the three stores."""
    beta1, beta2, eps = op.factors()
    tensor = op.result.type
    steps = _Steps(TensorType(tensor.element_type, []))
    names = [_global_name(r) for r in (op.variable, op.moment1, op.moment2)]
    var, m, v = (steps.emit(GlobalLoadOp.get(n, tensor)) for n in names)
    g = op.gradient
    m_new = steps.add(
        steps.mul(m, steps.constant(beta1)), steps.mul(g, steps.constant(1.0 - beta1))
    )
    v_new = steps.add(
        steps.mul(v, steps.constant(beta2)),
        steps.mul(steps.mul(g, g), steps.constant(1.0 - beta2)),
    )
    denom = steps.add(steps.emit(mindir.SqrtOp.get(v_new)), steps.constant(eps))
    ratio = steps.emit(mindir.DivOp.get(m_new, denom))
    new_var = steps.emit(mindir.SubOp.get(var, steps.mul(ratio, op.learning_rate)))
    for name, value in zip(names[1:] + names[:1], (m_new, v_new, new_var)):
        steps.ops.append(GlobalStoreOp(name, value))
    steps.replace(op, new_var)


class _Steps:
    """The ops an in-place writer becomes, in order (`replace` puts them in its place)."""

    def __init__(self, scalar: TensorType) -> None:
        self.scalar = scalar
        self.ops: list[Operation] = []

    def emit(self, op: Operation) -> SSAValue:
        self.ops.append(op)
        return op.results[0]

    def constant(self, value: float) -> SSAValue:
        attr = DenseIntOrFPElementsAttr.from_list(self.scalar, [value])  # rounded as numpy
        return self.emit(mindir.ConstantOp.make([], {"value": attr}))

    def mul(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.emit(mindir.MulOp.get(a, b))

    def add(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.emit(mindir.AddOp.get(a, b))

    def replace(self, op: Operation, result: SSAValue) -> None:
        _replace_by(op, self.ops, [result])


def lower_state(module: ModuleOp) -> None:
    """Lower Parameters, Load/Assign, print and send/receive in place (see the module doc)."""
    lower_ref_arguments(module)
    runtime: _PrintRuntime | None = None
    channels: _Channels | None = None
    declarations = [op for op in block_ops(module.body.block) if type(op) is mindir.ParameterOp]
    for op in [*declarations, *walk_graphs(module)]:
        kind = type(op)  # exact classes: every op of the module is asked
        if kind is mindir.ParameterOp:
            props = op.properties
            glob = leaf_op(
                GlobalOp,
                {
                    "sym_name": props["sym_name"],
                    "type": props["type"],
                    "is_mutable": _MUTABLE,
                    "value": props["initial_value"],
                    "sym_visibility": _PRIVATE,
                },
            )
            _replace_declaration(op, glob)
        elif kind is mindir.LoadOp:
            load = GlobalLoadOp.get(_global_name(op.ref), op.result.type)
            _replace(op, load, [load.result])
        elif kind is mindir.AssignOp:
            _replace(op, GlobalStoreOp(_global_name(op.ref), op.value), [op.value])
        elif kind is mindir.ApplyMomentumOp:
            _lower_apply_momentum(op)
        elif kind is mindir.ApplyAdamOp:
            _lower_apply_adam(op)
        elif kind is mindir.UpdateMovingStatsOp:
            _lower_update_moving_stats(op)
        elif kind is mindir.PrintOp:
            if runtime is None:
                runtime = _PrintRuntime(module)
            _replace(op, _print_call(op, runtime), [op.io])
        elif kind is mindir.SendOp:
            channels = channels or _Channels(module)
            store = GlobalStoreOp(channels.symbol(op, op.input.type), op.input)
            _replace(op, store, [op.io])
        elif kind is mindir.ReceiveOp:
            channels = channels or _Channels(module)
            load = GlobalLoadOp.get(channels.symbol(op, op.result.type), op.result.type)
            _replace(op, load, [load.result, op.io])
