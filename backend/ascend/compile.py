"""Compile a tensor-level module for the simulated device: the ascend pipeline,
then the model. Used by `ms-translate --target=ascend-sim` and by
`set_context(device_target="Ascend")`."""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp

from mindjit.backend.ascend.model import DeviceModel
from mindjit.backend.ascend.passes.registry import passes_with_device
from mindjit.backend.ascend.serialize import serialize
from mindjit.dialects.context import make_context
from mindjit.passes.pipelines import parse_pipeline, run_passes, verify_stage
from mindjit.support import config


def ascend_pipeline(cell_reuse: int | None = None, streams: int = 2, align: int = 512) -> str:
    """The device pipeline; `cell_reuse` None leaves the option out (`parse_pipeline`
    gives it the level in force, MS_DEV_CELL_REUSE's)."""
    reuse = (
        "ascend-cell-reuse" if cell_reuse is None else f"ascend-cell-reuse{{level={cell_reuse}}}"
    )
    return (
        f"ascend-select-kernels,{reuse},ascend-execution-order,"
        f"ascend-plan-memory{{align={align}}},ascend-assign-streams{{streams={streams}}}"
    )


def compile_for_device(
    module: ModuleOp,
    cell_reuse: int | None = None,
    streams: int = 2,
    align: int = 512,
) -> DeviceModel:
    """Run the device pipeline on `module` (in place) and serialize it."""

    spec = ascend_pipeline(cell_reuse, streams, align)
    # verified once, after the pipeline (each pass: MINDJIT_VERIFY_EACH=1, for debugging)
    verify_each = config.verify_each_enabled()
    run_passes(parse_pipeline(spec, passes_with_device()), module, make_context(), verify_each)
    if not verify_each:
        verify_stage(module, spec)
    return serialize(module)
