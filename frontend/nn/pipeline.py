"""`nn.PipelineCell`: MindSpore's micro-batching wrapper, and the stage plan it checks.

What exists (issue 26, its API slice): the user's side of pipeline parallelism.
`set_auto_parallel_context(pipeline_stages=X)` (support/config.py),
`cell.pipeline_stage = k` (nn/cell.py) and `nn.PipelineCell(net, micro_size=Y)`,
which slices every input's axis 0 into Y micro-batches, calls `net` on each and
adds the Y losses. Everything still runs on one device, in one graph: the
split into one graph per stage, the send/receive ops and the schedule are later
work, which reads `stage_plan` for each Cell's stage.

The loss is the SUM of the micro-batches' losses, as MindSpore's PipelineCell
(an `Add` per micro-batch, no division). With a `reduction="sum"` loss this is
the whole batch's loss; with a mean loss it is Y times the whole batch's mean,
so the gradients are Y times too (MindSpore users scale the learning rate or the
loss themselves).

`construct` is ordinary graph-mode Python (a `for i in range(self.micro_size)`
loop that the graph compiler unrolls, static slices), so graph mode compiles the
Y calls of `net` like any Cell; `@lazy_inline` on the repeated Block keeps one
shared graph for all of them. The set-up is checked when the PipelineCell is
built: `set_auto_parallel_context` and `pipeline_stage` come first, as in
MindSpore, where the parallel context must be set before the network is built.
"""

from __future__ import annotations

from typing import Any

from mindjit.frontend.nn.cell import Cell
from mindjit.support import config


def stage_plan(network: Cell) -> dict[str, int]:
    """Each Cell's stage by its path in `network` ("" is `network`): its own
    `pipeline_stage`, else its nearest enclosing Cell's; -1 where none is set."""
    plan: dict[str, int] = {}

    def walk(cell: Cell, path: str, inherited: int) -> None:
        if path in plan:
            return
        stage = cell.pipeline_stage if cell.pipeline_stage >= 0 else inherited
        plan[path] = stage
        for name, child in cell._registry("_cells").items():
            if child is not None:
                walk(child, f"{path}.{name}" if path else name, stage)

    walk(network, "", -1)
    return plan


def _label(path: str, cell: Cell) -> str:
    return f"Cell '{path}' ({cell.cls_name})" if path else f"Cell '{cell.cls_name}'"


def check_stages(network: Cell, owner: str = "PipelineCell") -> dict[str, int]:
    """`stage_plan(network)` after the checks of the pipeline's set-up (ValueError)."""
    stages = config.pipeline_stages()
    assigned = [(p, c) for p, c in network.cells_and_names() if c.pipeline_stage >= 0]
    if stages == 1 and assigned:
        path, cell = assigned[0]
        raise ValueError(
            f"For '{owner}', {_label(path, cell)} has pipeline_stage={cell.pipeline_stage}, "
            "but pipeline_stages is 1: call ms.set_auto_parallel_context("
            "parallel_mode='semi_auto_parallel', pipeline_stages=X) first."
        )
    if stages == 1:
        return stage_plan(network)
    mode = config.parallel_mode()
    if mode not in config.PIPELINE_MODES:
        raise ValueError(
            f"For '{owner}', pipeline_stages={stages} needs parallel_mode "
            f"{' or '.join(config.PIPELINE_MODES)}, but it is {mode!r}."
        )
    for path, cell in assigned:
        if cell.pipeline_stage >= stages:
            raise ValueError(
                f"For '{owner}', {_label(path, cell)} has pipeline_stage={cell.pipeline_stage}, "
                f"out of range for pipeline_stages={stages} (stages are 0..{stages - 1})."
            )
    used = {cell.pipeline_stage for _, cell in assigned}
    for stage in range(stages):
        if stage not in used:
            raise ValueError(
                f"For '{owner}', pipeline stage {stage} of 0..{stages - 1} has no Cell: set "
                f"`cell.pipeline_stage = {stage}` on the sub-Cells it should run."
            )
    return stage_plan(network)


def _micro_size(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(
            f"For 'PipelineCell', 'micro_size' must be an int, but got {type(value).__name__}."
        )
    if value < 1:
        raise ValueError(f"For 'PipelineCell', 'micro_size' must be >= 1, but got {value}.")
    return value


class PipelineCell(Cell):
    """`nn.PipelineCell(network, micro_size)`: the batch as `micro_size` micro-batches,
    the losses summed (see the module docstring)."""

    def __init__(self, network: Cell, micro_size: int):
        super().__init__(auto_prefix=False)
        if not isinstance(network, Cell):
            raise TypeError(
                f"For 'PipelineCell', 'network' must be a Cell, got {type(network).__name__}."
            )
        self.network = network
        self.micro_size = _micro_size(micro_size)
        self.stage_plan = check_stages(network)

    def pipeline_micro_batches(self) -> int:
        return self.micro_size

    def construct(self, *inputs):
        for x in inputs:
            if x.shape[0] % self.micro_size != 0:
                raise ValueError(
                    f"For 'PipelineCell', the batch size {x.shape[0]} is not divisible "
                    f"by micro_size {self.micro_size}."
                )
        loss = None
        for i in range(self.micro_size):
            micro = tuple(
                x[i * (x.shape[0] // self.micro_size) : (i + 1) * (x.shape[0] // self.micro_size)]
                for x in inputs
            )
            out = self.network(*micro)
            if loss is None:
                loss = out
            else:
                loss = loss + out
        return loss
