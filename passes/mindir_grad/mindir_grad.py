"""mindir-grad: reverse-mode differentiation of every `mindir.grad` op.

Each `mindir.grad` (see `mindjit.dialects.mindir.grad`) is replaced by its
forward region's ops, followed by their adjoints in reverse order, the way
MindSpore's GradOperation expands a forward graph into forward + bprop:

- Seeds: each differentiated output gets its `sens` operand, or ones.
- Adjoints flow only through *varying* values: those computed from a `wrt`
  input or from a Load of a `weights` Parameter (activity analysis), so
  nothing is emitted for the rest of the forward.
- Every mindir value op has an adjoint rule (rules.py, rules_shape.py, rules_conv.py, rules_norm.py);
  comparisons, logical ops and constants carry none; `depend` and
  `tensor_move` hand the adjoint to their value.
- A Load of a `weights` Parameter adds its adjoint to that Parameter's
  gradient, and the backward reads the Load's own value: the Parameter *at
  the state it was read*. When an Assign follows, mindir-load-elim decides
  where that value needs a real copy (TensorMove), as in MindSpore.
- `mindir.if` is differentiated by a second if on the same condition whose
  branches hold each branch's adjoints; forward values they need are handed
  out of the forward if as extra results (control_flow in
  control.py).
- Calls left in the region (graphs kept by lazy inline) are inlined first;
  nested `mindir.grad` ops are expanded innermost first (higher-order
  gradients). A `mindir.while` (a loop the frontend could not unroll) gets a
  backward loop over a record of its iterations (while_loop.py). A
  `mindir.vmap` in the region is a located error unless the option `vmap` is
  on (below).

Grad of vmap (the option `vmap=true`, which the jit pipelines set): the batching
rules and the adjoint rules compose, so a grad whose region holds a vmap is
differentiated after that vmap is batched (mindir-vmap's rewrite, which leaves
only value ops with adjoint rules). The pass alternates rounds, innermost
first: each round expands every grad with no `mindir.vmap` left in its forward
(its region, and the ops before it whose outputs it reuses), then batches every
vmap that sits in a remaining grad's forward and has no `mindir.grad` left
inside it. The deepest grad or vmap always qualifies, so every round makes
progress until no grad is left (a round that makes none is a located error on
the first grad left, and the rounds are bounded by the number of grads and
vmaps). vmaps outside every grad stay for mindir-vmap, which then finds no grad
inside any vmap (vmap of grad: the grad was expanded here). So any nesting,
grad(vmap(f)), vmap(grad(f)), grad(vmap(grad(f))), vmap(grad(vmap(f))), needs
no more than mindir-grad{vmap=true} then mindir-vmap. Without the option the
pass behaves as before: a vmap inside a grad is refused.

A region yielding outputs computed before the op (a forward that already
ran: reused_forward.py) differentiates those ops where they are.

The forward keeps its side effects in order: its ops move out of the region
unchanged (states were threaded by mindir-auto-monad), and the backward is
pure. Run after mindir-auto-monad and mindir-inline.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint

from mindjit.dialects import mindir as M
from mindjit.dialects.mindir.discardable import PIPELINE_STAGE_ATTR
from mindjit.ir.locations import op_error
from mindjit.ir.walk import walk_ops
from mindjit.passes.analysis.effects import Effects, parameter_symbol
from mindjit.passes.analysis.graph_walk import top_level_graphs
from mindjit.passes.mindir_grad import (  # noqa: F401  (register their rules)
    rules_collective,
    rules_conv,
    rules_gather,
    rules_index,
    rules_math,
    rules_norm,
    rules_shape,
)
from mindjit.passes.mindir_grad.adjoints import (
    Adjoint,
    accumulate,
    differentiable,
    materialize,
    used_values,
)
from mindjit.passes.mindir_grad.calls import SharedGrads
from mindjit.passes.mindir_grad.control import grad_if
from mindjit.passes.mindir_grad.emitter import GradEmitter
from mindjit.passes.mindir_grad.reused_forward import (
    forward_slice,
    outer_outputs,
    prepare_slice,
)
from mindjit.passes.mindir_grad.rules import RULES
from mindjit.passes.mindir_grad.while_loop import grad_while, mark_while
from mindjit.passes.mindir_inline import inline_call


class Backprop:
    """Adjoints of one forward region (and the regions nested in it)."""

    def __init__(
        self,
        weights: set[str],
        shared: SharedGrads | None = None,
        expand=None,
        module: ModuleOp | None = None,
    ):
        self.weights = weights
        self.varying: set[SSAValue] = set()
        self.shared = shared  # calls of pure shared graphs: their vjp graphs
        self.expand = expand
        #: the whiles recorded for their backward loops (while_loop.py), pruned at the end
        self.records: list[Any] = []
        #: which Parameters an op may write (made on the first while: while_loop.py)
        self.module = module
        self._effects: Effects | None = None

    @property
    def effects(self) -> Effects:
        if self._effects is None:
            assert self.module is not None, "Backprop.module is set before a while is seen"
            self._effects = Effects(self.module)
        return self._effects

    # --- activity -----------------------------------------------------------------------
    def reads_weight(self, op: Operation) -> bool:
        return isinstance(op, M.LoadOp) and parameter_symbol(op.ref) in self.weights

    def mark(self, block: Block) -> None:
        """Add the values of `block` computed from varying values (or weight Loads)."""
        self.mark_ops(block.ops)

    def mark_ops(self, ops: Iterable[Operation]) -> None:
        """Add the values of `ops` computed from varying values (or weight Loads)."""
        for op in ops:
            if self.reads_weight(op):
                self.varying.add(op.results[0])
                continue
            if isinstance(op, M.WhileOp):
                mark_while(self, op)
                continue
            if op.regions:
                for region in op.regions:
                    for inner in region.blocks:
                        self.mark(inner)
                # varying through a value from outside, or through what a region
                # yields (a weight Load inside a branch: nothing outside is varying)
                live = any(o in self.varying for o in used_values(op)) or any(
                    o in self.varying
                    for region in op.regions
                    for inner in region.blocks
                    if inner.last_op is not None
                    for o in inner.last_op.operands
                )
            else:
                live = any(o in self.varying for o in op.operands)
            if live:
                self.varying.update(r for r in op.results if differentiable(r.type))

    # --- the backward ---------------------------------------------------------------------
    def run(
        self,
        ops: list[Operation],
        adj: dict[Any, Adjoint],
        e: GradEmitter,
        weight_adj: dict[str, Adjoint],
    ) -> None:
        """Emit the adjoints of `ops` (in reverse), seeded by `adj`."""
        for op in reversed(ops):
            douts = [adj.get(r) for r in op.results]
            if all(d is None for d in douts):
                continue
            e.location = op.location
            e.stage = op.attributes.get(PIPELINE_STAGE_ATTR)
            if isinstance(op, M.LoadOp):
                symbol = parameter_symbol(op.ref)
                if symbol in self.weights:
                    accumulate(e, weight_adj, symbol, douts[0])
                continue
            if isinstance(op, M.IfOp):
                grad_if(self, e, op, douts, adj, weight_adj)
                continue
            if isinstance(op, M.WhileOp):
                grad_while(self, e, op, douts, adj, weight_adj)
                continue
            if isinstance(op, func.CallOp) and self.shared is not None:
                grads = self.shared.adjoint(e, op, douts, self.expand)
                for operand, g in zip(op.operands, grads):
                    if operand in self.varying:
                        accumulate(e, adj, operand, g)
                continue
            rule = RULES.get(type(op))
            if rule is None:
                if (why := RULES.refused(type(op))) is not None:
                    raise op_error(op, f"mindir-grad: '{op.name}' cannot be differentiated: {why}")
                if RULES.excluded(type(op)) is not None:
                    continue  # no gradient flows through it
                raise op_error(op, RULES.missing(type(op)))
            grads = rule(e, op, douts)
            for operand, g in zip(op.operands, grads):
                if operand in self.varying:
                    accumulate(e, adj, operand, g)


class _Expander:
    def __init__(self, module: ModuleOp):
        self.module = module
        self.funcs: dict[str, func.FuncOp] = {}
        self.parameter_types: dict[str, Attribute] = {}
        for op in top_level_graphs(module):
            if isinstance(op, func.FuncOp):
                self.funcs[op.sym_name.data] = op
        for op in module.body.block.ops:
            if isinstance(op, M.ParameterOp):
                self.parameter_types[op.sym_name.data] = op.type
        self.shared = SharedGrads(module, self.funcs)

    def _inline_calls(self, block: Block, share: bool) -> None:
        """Inline the calls left in the region (graphs lazy inline keeps), to a fixpoint;
        with `share`, a call of a pure kept graph becomes a call of its pure form
        instead, differentiated by a shared graph (calls.py)."""
        while self._rewrite_calls(
            [op for op in block.walk() if isinstance(op, func.CallOp)], block, share
        ):
            pass

    def _rewrite_calls(self, calls: list[func.CallOp], block: Block, share: bool) -> bool:
        """Inline `calls` (or, with `share`, rewrite a call of a pure kept graph made in
        `block` itself to its pure form); whether any was left to rewrite."""
        calls = [
            op
            for op in calls
            if not (share and self.shared.is_pure_graph(op.callee.root_reference.data))
        ]
        for call in calls:
            callee = self.funcs.get(call.callee.root_reference.data)
            if callee is None or len(callee.body.blocks) != 1:
                raise op_error(
                    call,
                    f"mindir-grad cannot differentiate a call of "
                    f"@{call.callee.root_reference.data}: not a graph of this module",
                )
            if share and self.shared.shareable(callee) and call.parent_block() is block:
                self.shared.rewrite_call(call, callee)
            else:
                inline_call(call, callee)
        return bool(calls)

    @staticmethod
    def _check_supported(block: Block) -> None:
        for op in block.walk():
            if isinstance(op, M.VmapOp):
                raise op_error(
                    op,
                    "mindir-grad cannot differentiate 'mindir.vmap' without the option "
                    "vmap=true (which batches it first; the jit pipelines set it)",
                )

    def _expand_nested(self, op: M.GradOp, share: bool) -> None:
        """Expand `op` and every grad nested in it, innermost first."""
        for g in reversed([g for g in walk_ops(op) if isinstance(g, M.GradOp)]):
            self.expand(g, share)

    def _reused_forward(self, op: M.GradOp, share: bool) -> list[Operation]:
        """The ops outside `op` that computed the outputs its region yields from outside
        (reused_forward.py), ready to differentiate; [] when it yields none."""
        if not outer_outputs(op):
            return []
        parent = op.parent_block()
        ops = prepare_slice(
            op,
            lambda g: self._expand_nested(g, share),
            lambda calls: self._rewrite_calls(calls, parent, share),
        )
        for o in ops:
            self._check_supported(o)
        return ops

    def expand(self, op: M.GradOp, share: bool = True) -> None:
        block = op.body.block
        self._inline_calls(block, share)
        self._check_supported(block)
        reused = self._reused_forward(op, share)
        outs, states = op.yielded()
        weights = op.weight_symbols
        for symbol in weights:
            if symbol not in self.parameter_types:
                raise op_error(op, f"mindir.grad weights: unknown Parameter @{symbol}")
        bp = Backprop(
            set(weights),
            self.shared if share else None,
            lambda g: self.expand(g, share=False),
            self.module,
        )
        for i in op.wrt_list:
            if differentiable(block.args[i].type):
                bp.varying.add(block.args[i])
                if reused:
                    bp.varying.add(op.inputs[i])
        bp.mark_ops(reused)
        bp.mark(block)

        # the forward, moved out of the region (its arguments replaced at the end)
        terminator = block.last_op
        assert terminator is not None
        forward = list(block.ops)[:-1]
        parent = op.parent_block()
        assert parent is not None
        for f in forward:
            f.detach()
        parent.insert_ops_before(forward, op)

        e = GradEmitter(InsertPoint.before(op), op.location)
        adj: dict[Any, Adjoint] = {}
        for k in range(op.n_differentiated()):
            v = outs[k]
            if v in bp.varying:
                accumulate(e, adj, v, op.sens[k] if op.sens else e.full(1, v.type))
        weight_adj: dict[str, Adjoint] = {}
        bp.run(reused + forward, adj, e, weight_adj)
        outs, states = op.yielded()  # a forward if the backward re-created has new results

        e.location = op.location
        e.stage = None  # the gradients' own ops: no forward op's stage
        values, input_grads, weight_grads, state_results = op.result_groups()
        replacements: list[SSAValue] = list(outs) if values else []
        for i, r in zip(op.wrt_list, input_grads):
            if reused:  # the reused forward's share joins the region's
                accumulate(e, adj, block.args[i], adj.get(op.inputs[i]))
            replacements.append(materialize(e, adj.get(block.args[i]), r.type))
        for symbol, r in zip(weights, weight_grads):
            want = self.parameter_types[symbol]
            if r.type != want:
                raise op_error(
                    op, f"mindir.grad: the gradient of @{symbol} must be {want}, not {r.type}"
                )
            replacements.append(materialize(e, weight_adj.get(symbol), want))
        replacements += states
        for arg, operand in zip(block.args, op.inputs):
            arg.replace_all_uses_with(operand)
        mapped = {arg: operand for arg, operand in zip(block.args, op.inputs)}
        for result, value in zip(op.results, replacements):
            result.replace_all_uses_with(mapped.get(value, value))
        terminator.detach()
        terminator.erase()
        op.detach()
        op.erase()
        e.erase_unused()
        for rec in bp.records:
            rec.prune()


def grad_module(module: ModuleOp, vmap: bool = False) -> int:
    """Expand every `mindir.grad` of `module`, innermost first; returns how many.
    With `vmap`, the vmaps inside grads are batched in between (module doc)."""
    ops = [op for op in walk_ops(module) if type(op) is M.GradOp]
    if not ops:
        return 0
    if vmap:
        return _grad_with_vmaps(module)
    expander = _Expander(module)
    for op in reversed(ops):  # pre-order reversed: nested grads before their parents
        expander.expand(op)
    return len(ops)


def _holds(op: Operation, kind: type[Operation]) -> bool:
    """Whether an op of `kind` is nested in `op` (`op` itself excluded)."""
    return any(isinstance(o, kind) for o in walk_ops(op) if o is not op)


def _inside(op: Operation, kind: type[Operation]) -> bool:
    """Whether `op` is nested in an op of `kind`."""
    parent = op.parent_op()
    while parent is not None:
        if isinstance(parent, kind):
            return True
        parent = parent.parent_op()
    return False


def _grad_with_vmaps(module: ModuleOp) -> int:
    """Alternate rounds of grad expansion and vmap batching until no grad is left."""
    from mindjit.passes.mindir_vmap import vmap_ops  # mindir-vmap imports nothing of ours

    done = 0
    bound = sum(1 for o in walk_ops(module) if type(o) is M.GradOp or type(o) is M.VmapOp)
    for _ in range(bound + 1):
        grads = [op for op in walk_ops(module) if type(op) is M.GradOp]
        if not grads:
            return done
        # a grad's forward: its region, and the ops before it computing the outputs it
        # reuses (reused_forward.py)
        slices = {g: forward_slice(g, outer_outputs(g)) if outer_outputs(g) else [] for g in grads}
        in_slices = {v for ops in slices.values() for o in ops for v in walk_ops(o)}
        ready = [
            g
            for g in grads
            if not _holds(g, M.VmapOp)
            and not any(isinstance(v, M.VmapOp) for o in slices[g] for v in walk_ops(o))
        ]
        if ready:
            expander = _Expander(module)
            for op in reversed(ready):  # nested grads before their parents
                expander.expand(op)
            done += len(ready)
        vmaps = [
            v
            for v in walk_ops(module)
            if type(v) is M.VmapOp
            and (_inside(v, M.GradOp) or v in in_slices)
            and not _holds(v, M.GradOp)
        ]
        vmap_ops(module, list(reversed(vmaps)))  # inner vmaps first
        if not ready and not vmaps:
            break
    left = next(op for op in module.walk() if isinstance(op, M.GradOp))
    raise op_error(
        left,
        "mindir-grad: no progress differentiating this grad and batching the vmaps in it",
    )


@dataclass(frozen=True)
class MindirGradPass(ModulePass):
    """Replace every `mindir.grad` by its forward and the adjoints (see the module doc)."""

    name = "mindir-grad"

    #: batch the vmaps inside grads in between rounds (grad of vmap; module doc)
    vmap: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        grad_module(op, self.vmap)
