"""convert-mindir-to-tensor: mindir -> func + arith + math + tensor + linalg + scf
(+ ml_program for Parameters).

The pass runs in five steps:

1. `reject_unsupported`: ops listed in `DEVICE_OPS` (none today; the Ascend
   float-status ops become runtime calls) stop the pass with an error at the op,
   before anything changes.
2. `lower_state` (mindir_to_tensor/state.py) first functionalizes Parameter
   refs passed between graphs (`lower_ref_arguments`, mindir_to_tensor/refs.py:
   ref arguments become tensor arguments plus written-back results, call sites load
   before and store after), checking every ref before any change; then Parameters become
   `ml_program.global`, Load/Assign `ml_program.global_load/global_store` and
   print a call to a runtime declaration, each in place, so block order (the
   program order) is kept; monads are no longer needed after this.
3. `flatten_tuples`: tuples are split into their elements and `!mindir.u` /
   `!mindir.io` states dropped at every func, call, if/while and yield boundary
   (mindir_to_tensor/tuples.py).
4. One greedy walk per graph applies to each op the lowering rule of its class
   (`LOWERINGS`, rules.py: one table, keyed by op class), registered by one file
   per family: constants (here), elementwise, matmul, reduce, shape, control,
   effects, tuples, checks (`mindir.check_range` -> a reduction and `cf.assert`).
   With `fuse-elementwise` a pointwise op whose only user is a pointwise op of
   its shape is computed in that user's generic (elementwise.py says why there).
   The `tensor.empty`s and scalar constants the rules need are made once per
   block, at its start (builders.Emitter.shared). Every rule emits upstream
   ops only, so the walk is not re-applied to what it creates (`apply_recursively=False`); the walk visits an op before the ops in
   its regions, so the contents of if/while are lowered after they are moved into
   scf. Dead-code elimination stays on: a pure mindir op with no use is erased
   instead of lowered (stores and print calls are not pure).
5. The leftover bookkeeping ops (update_state, get_parameter, depend,
   make_tuple, tuple_get_item) are erased users-first, and `check_no_mindir`
   raises a located error for any mindir op or type, or tuple type, still present.

The result is valid MLIR (iree-opt accepts it) in the subset the CPU executor runs,
once unsigned element types are made signless (backend/iree/signless.py, a type
rewrite: the lowering keeps `ui8` for the executors and reads it with the
unsigned ops, see mindir_to_tensor/scalar.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import ModuleOp, TupleType
from xdsl.dialects.ml_program import GlobalOp
from xdsl.ir import Attribute, Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)

from mindjit.dialects import mindir
from mindjit.dialects.mindir.discardable import PIPELINE_MICRO_ATTR
from mindjit.ir.dead_ops import erase_dead_ops
from mindjit.ir.locations import op_error
from mindjit.passes.analysis.graph_walk import top_level_graphs, walk_graphs
from mindjit.passes.mindir_to_tensor import (  # noqa: F401 - each registers its rules
    batch_norm,
    check,
    collective,
    control,
    conv,
    elementwise,
    gather,
    index_reduce,
    matmul,
    random,
    reduce,
    scan,
    shape,
    sort,
    stack,
)
from mindjit.passes.mindir_to_tensor.builders import Emitter, hoisting
from mindjit.passes.mindir_to_tensor.effects import (
    erase_dead_state,
    reject_unsupported,
    unsupported_message,
)
from mindjit.passes.mindir_to_tensor.elementwise import fusing
from mindjit.passes.mindir_to_tensor.rules import LOWERED_BY_STEP, LOWERINGS
from mindjit.passes.mindir_to_tensor.state import lower_state
from mindjit.passes.mindir_to_tensor.tuples import flatten_tuples


@LOWERINGS.register(mindir.ConstantOp)
def lower_constant(op: mindir.ConstantOp, rewriter: PatternRewriter) -> None:
    """One `arith.constant` per value and block (`Emitter.shared`): the late
    mindir-inline of cell reuse level 2 copies a reused graph's constants into each
    call site, and the device stores each copy in its model file."""
    value = op.value
    e = Emitter(rewriter, op.location)
    rewriter.replace(op, [], [e.shared(("constant", value), lambda: arith.ConstantOp(value))])


class LowerByRule(RewritePattern):
    """The rule `LOWERINGS` has for the op's class, if any. The ops it makes in the
    op's place inherit its `mindir.pipeline_micro` mark (an executor measures a
    pipeline stage's activations by it, backend/cpu/memory_meter.py)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        rule = LOWERINGS.get(type(op))
        if rule is None:
            return
        mark = op.attributes.get(PIPELINE_MICRO_ATTR)
        if mark is None:
            rule(op, rewriter)
            return
        block, before, after = op.parent, op.prev_op, op.next_op
        rule(op, rewriter)
        new = before.next_op if before is not None else (block.first_op if block else None)
        while new is not None and new is not after:
            new.attributes.setdefault(PIPELINE_MICRO_ATTR, mark)
            new = new.next_op


def _bad_type(t: Attribute) -> bool:
    return isinstance(t, TupleType) or t.name.startswith("mindir.")  # type: ignore[attr-defined]


def _leftover_op_message(op: Operation) -> str | None:
    if (message := unsupported_message(op)) is not None:
        return message
    if isinstance(op, mindir.MakeTupleOp):
        return "tuple value cannot be flattened: its user is not a call, return, yield, tuple_get_item or addn"
    if isinstance(op, mindir.TupleGetItemOp | mindir.AddNOp):
        return f"'{op.name}' cannot be lowered: its tuple is not built by mindir.make_tuple"
    if isinstance(op, mindir.UpdateStateOp):
        users = sorted({u.operation.name for u in op.result.uses})
        return (
            f"'mindir.update_state' cannot be erased: its state is still used by {', '.join(users)}"
        )
    if (
        op.name.startswith("mindir.")
        and LOWERINGS.get(type(op)) is None
        and type(op) not in LOWERED_BY_STEP
        and LOWERINGS.excluded(type(op)) is None
    ):
        return LOWERINGS.missing(type(op))
    if op.name.startswith("mindir."):
        return f"'{op.name}' was not lowered by convert-mindir-to-tensor"
    return None


def _leftover_type_message(op: Operation, good: set[int]) -> str | None:
    """`good`: ids of types found fine so far (an entry graph repeats a few types
    over thousands of arguments); the types are alive, so their ids stay theirs."""

    def bad(t: Attribute) -> bool:
        if id(t) in good:
            return False
        if _bad_type(t):
            return True
        good.add(id(t))
        return False

    for r in op.results:
        if bad(r.type):
            return f"'{op.name}' still produces a value of type {r.type} after convert-mindir-to-tensor"
    for region in op.regions:
        for block in region.blocks:
            for a in block.args:
                if bad(a.type):
                    return f"'{op.name}' still has a block argument of type {a.type} after convert-mindir-to-tensor"
    if type(op) is func.FuncOp:
        for t in (*op.function_type.inputs.data, *op.function_type.outputs.data):
            if bad(t):
                return f"function @{op.sym_name.data} still has type {t} in its signature after convert-mindir-to-tensor"
    return None


def check_no_mindir(module: ModuleOp) -> None:
    """Raise a located error at the first mindir op left, else at the first op that
    still carries a mindir or tuple type (one walk: a lowered graph is large)."""
    good: set[int] = set()
    first_bad_type: tuple[Operation, str] | None = None
    for op in walk_graphs(module, skip=(GlobalOp,)):  # globals are what Parameters became
        if op.name.startswith("mindir."):  # every op message is about a mindir op
            if (message := _leftover_op_message(op)) is not None:
                # Report a tuple at the op that still uses it, where the user can see why.
                if isinstance(op, mindir.MakeTupleOp) and op.results[0].uses:
                    raise op_error(next(iter(op.results[0].uses)).operation, message)
                raise op_error(op, message)
        if first_bad_type is None and (message := _leftover_type_message(op, good)) is not None:
            first_bad_type = (op, message)
    if first_bad_type is not None:
        raise op_error(*first_bad_type)


@dataclass(frozen=True)
class ConvertMindirToTensorPass(ModulePass):
    """Lower every mindir op (values, if/while, Parameters, Load/Assign, print) to
    upstream tensor-level dialects."""

    name = "convert-mindir-to-tensor"

    #: fuse single-use pointwise producers into their user's generic (elementwise.py)
    fuse_elementwise: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        reject_unsupported(op)
        lower_state(op)
        flatten_tuples(op)
        walker = PatternRewriteWalker(
            GreedyRewritePatternApplier([LowerByRule()], dce_enabled=True),
            apply_recursively=False,
        )
        # Only graphs have ops to lower: at module level lower_state left declarations.
        with hoisting(), fusing(self.fuse_elementwise):
            for fn in [
                f for f in top_level_graphs(op) if isinstance(f, func.FuncOp) and f.body.blocks
            ]:
                walker.rewrite_region(fn.body)
        erase_dead_state(op)
        erase_dead_ops(op)  # what the rewrites left unused (ir/dead_ops.py)
        check_no_mindir(op)
