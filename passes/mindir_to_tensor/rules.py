"""convert-mindir-to-tensor's per-op table: how each mindir op class is lowered.

A rule is `lower(op, rewriter)`: it inserts upstream ops before `op` (through
an `Emitter`, which gives them `op`'s location) and replaces `op`, or leaves it
(nothing to do yet). Each family module registers its rules
(`@LOWERINGS.register(mindir.AddOp, ...)`); the pass applies the rule of each
op's class in one walk. Ops lowered as a whole-module step rather than one by
one (Parameters, Load/Assign and print by `lower_state`; tuples by
`flatten_tuples`) are named in `LOWERED_BY_STEP`, and the ops an earlier pass
must expand are excluded with the pass's name.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.ir import Operation
from xdsl.pattern_rewriter import PatternRewriter

from mindjit.dialects import mindir
from mindjit.ir.rules import RuleTable

Lowering = Callable[[Operation, PatternRewriter], None]

LOWERINGS: RuleTable[Lowering] = RuleTable(
    "convert-mindir-to-tensor",
    "passes/mindir_to_tensor/: a rule in the op family's module, an elementwise op's "
    "scalar semantics in scalar.py",
    "lowering rule",
)

#: op class -> the step of the pass that lowers it (not a per-op rule)
LOWERED_BY_STEP: dict[type[Operation], str] = {
    mindir.ParameterOp: "lower_state: an ml_program.global",
    mindir.GetParameterOp: "lower_state: erased once its loads and assigns are lowered",
    mindir.LoadOp: "lower_state: ml_program.global_load",
    mindir.AssignOp: "lower_state: ml_program.global_store",
    mindir.ApplyMomentumOp: "lower_state: two global_loads, its formula, two global_stores",
    mindir.ApplyAdamOp: "lower_state: three global_loads, its formula, three global_stores",
    mindir.UpdateMovingStatsOp: "lower_state: two global_loads, its formula, two global_stores",
    mindir.PrintOp: "lower_state: a call of the print runtime",
    mindir.SendOp: "lower_state: ml_program.global_store of the tag's channel global",
    mindir.ReceiveOp: "lower_state: ml_program.global_load of the tag's channel global",
    mindir.MakeTupleOp: "flatten_tuples: its elements go where the tuple went",
}

LOWERINGS.exclude("expanded by mindir-grad before lowering", mindir.GradOp)
LOWERINGS.exclude("expanded by mindir-vmap before lowering", mindir.VmapOp)
