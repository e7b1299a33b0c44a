"""Discardable attributes the frontend writes and the passes read (MLIR's
`dialect.name` convention: any op may carry them, and dropping one loses a
fact, never correctness)."""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, ModuleOp, StringAttr
from xdsl.ir import Operation

#: On a `func.func`: lazy inline keeps this graph as a call (the value is the reuse key).
LAZY_INLINE_ATTR = "mindir.lazy_inline"

#: On any op, or on a call (then on every op mindir-inline copies from it): the
#: pipeline stage (`Cell.pipeline_stage`) the op belongs to, an i64.
PIPELINE_STAGE_ATTR = "mindir.pipeline_stage"

#: On an entry graph (and its stage graphs): the micro-batches `nn.PipelineCell` slices
#: a batch into (Y), for the pipeline schedule of the devices that run the stages.
MICRO_BATCHES_ATTR = "mindir.micro_batches"

#: On a stage graph `mindir-pipeline-split` made: the graph it is a stage of (a string).
PIPELINE_OF_ATTR = "mindir.pipeline_of"

#: On a stage graph: which of the split graph's results it returns, in its order (i64s).
PIPELINE_RESULTS_ATTR = "mindir.pipeline_results"

#: On an op of a stage graph `mindir-pipeline-schedule` ordered: the work it belongs to,
#: "F<m>" (forward of micro-batch m) or "B<m>" (its backward); ops of several
#: micro-batches or of none (accumulation, optimizer, Parameter loads) have none.
#: The lowering copies it onto the ops it makes, so an executor can tell activations.
PIPELINE_MICRO_ATTR = "mindir.pipeline_micro"

#: On a stage graph: the schedule `mindir-pipeline-schedule` ordered it by ("1f1b", "gpipe").
PIPELINE_SCHEDULE_ATTR = "mindir.pipeline_schedule"


def stage_of_attr(op: Operation) -> int | None:
    """An op's (or a stage graph's) `mindir.pipeline_stage`, or None."""
    attr = op.attributes.get(PIPELINE_STAGE_ATTR)
    return attr.value.data if isinstance(attr, IntegerAttr) else None


def pipeline_stage_graphs(module: ModuleOp, graph: str) -> list[func.FuncOp]:
    """The stage graphs `mindir-pipeline-split` made of `graph`, by stage ([] if none)."""
    found = [
        op
        for op in module.body.block.ops
        if isinstance(op, func.FuncOp)
        and isinstance(a := op.attributes.get(PIPELINE_OF_ATTR), StringAttr)
        and a.data == graph
    ]
    return sorted(found, key=lambda f: stage_of_attr(f) or 0)


def micro_batches(fn: func.FuncOp) -> int:
    """A graph's `mindir.micro_batches` (1 when it has none)."""
    attr = fn.attributes.get(MICRO_BATCHES_ATTR)
    return attr.value.data if isinstance(attr, IntegerAttr) else 1


def pipeline_results(fn: func.FuncOp) -> list[int]:
    """A stage graph's `mindir.pipeline_results`: the split graph's result indices."""
    attr = fn.attributes.get(PIPELINE_RESULTS_ATTR)
    return [int(x) for x in attr.get_values()] if isinstance(attr, DenseArrayBase) else []
