"""Differentiating a call of a graph lazy inline keeps, without inlining it.

MindSpore's lazy inline keeps one graph per repeated Cell for the forward *and*
for its backward: a pipeline stage that runs a Block for each of Y micro-batches
holds Y calls of two shared graphs, not Y copies of the Block's forward and
backward (the "(O/X)*Y" its documentation measures). Inlining every call before
differentiating, as mindir-grad did at first, lost the sharing exactly where it
matters: in a train step.

A call of a kept graph G whose only effects are Loads of its Parameter-reference
arguments (no Assign, print or call; a Block of layers) is rewritten before the
region is differentiated:

    %y, %u1 = func.call @G(%x, %ref_w, %u0)
  becomes
    %w = mindir.load %ref_w, %u0
    %u1 = mindir.update_state %u0, %w
    %y = func.call @G_pure(%x, %w)

`@G_pure` is G with the loaded values as arguments (pure: no states). Its call
is then differentiated like any op, by a call of one shared graph

    %dx, %dw = func.call @G_pure_vjp(%x, %w, %dy)

whose body is G_pure's forward and adjoints (made once per graph by expanding a
`mindir.grad` over a call of G_pure: the forward is recomputed there, the
activation recomputation MindSpore's `recompute` also trades for memory). The
hoisted Load is a Load of a weight like any other: its adjoint `%dw` reaches the
Parameter's gradient. Calls of graphs with other effects are inlined as before.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Block, Operation, Region, SSAValue

from mindjit.dialects import mindir as M
from mindjit.dialects.mindir.discardable import LAZY_INLINE_ATTR
from mindjit.dialects.mindir.types import is_monad
from mindjit.ir.dead_ops import erase_dead_ops
from mindjit.passes.analysis.effects import is_ref
from mindjit.passes.mindir_grad.adjoints import materialize

if TYPE_CHECKING:
    from mindjit.passes.mindir_grad.emitter import GradEmitter

#: What marks the graphs made here (the value: the graph they come from).
PURE_OF_ATTR = "mindir.pure_of"
VJP_OF_ATTR = "mindir.vjp_of"


def pure_callee(callee: func.FuncOp) -> bool:
    """Whether a call of `callee` can be differentiated by a shared graph: kept by
    lazy inline, one block, and no effect but Loads of its reference arguments."""
    if LAZY_INLINE_ATTR not in callee.attributes or len(callee.body.blocks) != 1:
        return False
    args = set(callee.body.block.args)
    for op in callee.body.walk():
        if isinstance(op, M.LoadOp):
            if op.ref not in args:
                return False
        elif isinstance(op, M.UpdateStateOp | func.ReturnOp):
            continue
        elif (
            op.regions
            or isinstance(op, func.CallOp | M.GetParameterOp)
            or any(is_monad(t) or is_ref(t) for t in op.result_types)
            or any(is_monad(v.type) for v in op.operands)
        ):
            return False
    return True


class SharedGrads:
    """The pure graphs and their vjp graphs of one module, made on first use."""

    def __init__(self, module: ModuleOp, funcs: dict[str, func.FuncOp]):
        self.module = module
        self.funcs = funcs
        self.pure: dict[str, func.FuncOp] = {}  # G -> G_pure
        self.pure_names: set[str] = set()  # the G_pure (G itself when it is pure)
        self.vjp: dict[str, func.FuncOp] = {}  # G_pure -> G_pure_vjp
        self._shareable: dict[str, bool] = {}  # G -> pure_callee(G), asked once per graph

    def is_pure_graph(self, name: str) -> bool:
        """Whether @name is the pure form of a kept graph (maybe the graph itself)."""
        return name in self.pure_names

    def shareable(self, callee: func.FuncOp) -> bool:
        """`pure_callee(callee)`, walked once per graph however many calls it has."""
        name = callee.sym_name.data
        if name not in self._shareable:
            self._shareable[name] = pure_callee(callee)
        return self._shareable[name]

    # -- the call site ------------------------------------------------------------------------

    def rewrite_call(self, call: func.CallOp, callee: func.FuncOp) -> None:
        """`call @G(..refs.., u)` -> Loads of the refs and `call @G_pure` (module doc)."""
        pure = self._pure(callee)
        if pure is callee:
            return  # already pure: the call stays as it is
        block_args = callee.body.block.args
        state = next((v for v in call.arguments if is_monad(v.type)), None)
        operands: list[SSAValue] = []
        new_ops: list[Operation] = []
        loads: list[SSAValue] = []
        for arg, value in zip(block_args, call.arguments):
            if is_monad(arg.type):
                continue
            if is_ref(arg.type):
                assert state is not None
                load = M.LoadOp.create(operands=[value, state], result_types=[arg.type.tensor])  # type: ignore[attr-defined]
                load.location = call.location
                load.attributes.update(_discardable(call))
                new_ops.append(load)
                loads.append(load.results[0])
                operands.append(load.results[0])
            else:
                operands.append(value)
        after = state
        if loads and state is not None:
            update = M.UpdateStateOp.get(state, loads)
            update.attributes.update(_discardable(call))
            new_ops.append(update)
            after = update.result
        new_call = func.CallOp(
            pure.sym_name.data, operands, [r.type for r in call.results if not is_monad(r.type)]
        )
        new_call.location = call.location
        new_call.attributes.update(_discardable(call))
        new_ops.append(new_call)
        block = call.parent_block()
        assert block is not None
        block.insert_ops_before(new_ops, call)
        values = iter(new_call.results)
        for r in call.results:
            r.replace_all_uses_with(after if is_monad(r.type) else next(values))  # type: ignore[arg-type]
        call.detach()
        call.erase()

    def _pure(self, callee: func.FuncOp) -> func.FuncOp:
        name = callee.sym_name.data
        if name in self.pure:
            return self.pure[name]
        old = callee.body.block
        if not any(is_monad(a.type) or is_ref(a.type) for a in old.args):
            self.pure[name] = callee  # no state, no Parameter: its own pure form
            self.pure_names.add(name)
            return callee
        keep = [a for a in old.args if not is_monad(a.type)]
        block = Block(arg_types=[a.type.tensor if is_ref(a.type) else a.type for a in keep])  # type: ignore[attr-defined]
        mapping: dict[SSAValue, SSAValue] = dict(zip(keep, block.args))
        for a, b in zip(keep, block.args):
            b.name_hint = a.name_hint
        for op in old.ops:
            if isinstance(op, M.LoadOp):
                mapping[op.results[0]] = mapping[op.ref]
            elif isinstance(op, M.UpdateStateOp):
                continue
            elif isinstance(op, func.ReturnOp):
                values = [mapping.get(v, v) for v in op.operands if not is_monad(v.type)]
                block.add_op(func.ReturnOp(*values))
            else:
                clone = op.clone(value_mapper=dict(mapping))
                block.add_op(clone)
                mapping.update(zip(op.results, clone.results))
        results = [t for t in callee.function_type.outputs.data if not is_monad(t)]
        pure = func.FuncOp(
            f"{name}_pure", ([a.type for a in block.args], results), Region(block), "private"
        )
        pure.attributes[LAZY_INLINE_ATTR] = callee.attributes[LAZY_INLINE_ATTR]
        pure.attributes[PURE_OF_ATTR] = StringAttr(name)
        self.module.body.block.insert_op_after(pure, callee)
        self.funcs[pure.sym_name.data] = pure
        self.pure[name] = pure
        self.pure_names.add(pure.sym_name.data)
        return pure

    # -- the adjoint ------------------------------------------------------------------------

    def adjoint(
        self, e: GradEmitter, call: func.CallOp, douts: list, expand
    ) -> list[SSAValue | None]:
        """The adjoints of a `call @G_pure`'s operands: one call of its vjp graph."""
        pure = self.funcs[call.callee.root_reference.data]
        vjp = self._vjp(pure, expand)
        sens = [materialize(e, d, r.type) for d, r in zip(douts, call.results)]
        grads = e.op(
            func.CallOp(
                vjp.sym_name.data, [*call.arguments, *sens], [a.type for a in call.arguments]
            )
        )
        return list(grads.results)

    def _vjp(self, pure: func.FuncOp, expand) -> func.FuncOp:
        name = pure.sym_name.data
        if name in self.vjp:
            return self.vjp[name]
        inputs = list(pure.function_type.inputs.data)
        outputs = list(pure.function_type.outputs.data)
        block = Block(arg_types=[*inputs, *outputs])
        xs, dys = block.args[: len(inputs)], block.args[len(inputs) :]
        for a, b in zip(pure.body.block.args, xs):
            b.name_hint = a.name_hint
        for i, d in enumerate(dys):
            d.name_hint = f"dout{i}"
        body = Block(arg_types=inputs)
        inner = func.CallOp(name, list(body.args), outputs)
        body.add_ops([inner, M.YieldOp(*inner.results)])
        grad = M.GradOp(
            inputs=list(xs),
            sens=list(dys),
            wrt=list(range(len(inputs))),
            weights=[],
            aux=0,
            return_value=False,
            result_types=inputs,
            body=Region(body),
        )
        block.add_ops([grad, func.ReturnOp(*grad.results)])
        vjp = func.FuncOp(f"{name}_vjp", ([*inputs, *outputs], inputs), Region(block), "private")
        vjp.attributes[LAZY_INLINE_ATTR] = pure.attributes[LAZY_INLINE_ATTR]
        vjp.attributes[VJP_OF_ATTR] = StringAttr(name)
        self.module.body.block.insert_op_after(vjp, pure)
        self.funcs[vjp.sym_name.data] = vjp
        self.vjp[name] = vjp
        expand(grad)  # its call of G_pure is inlined there, once
        erase_dead_ops(block)  # forward values the backward does not read
        return vjp


def _discardable(op: Operation) -> dict:
    """The frontend facts a call carries (its pipeline stage), for what replaces it."""
    return {k: v for k, v in op.attributes.items() if k.startswith("mindir.")}
