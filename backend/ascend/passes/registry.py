"""The device's passes by name (`ms-opt -p ascend-select-kernels,...`)."""

from __future__ import annotations

import functools

from mindjit.passes.pipelines import available_passes
from mindjit.passes.registry import PassFactory, factories

_HERE = "mindjit.backend.ascend.passes"

DEVICE_PASSES: dict[str, tuple[str, str]] = {
    "ascend-select-kernels": (f"{_HERE}.ascend_select_kernels", "AscendSelectKernelsPass"),
    "ascend-cell-reuse": (f"{_HERE}.ascend_cell_reuse", "AscendCellReusePass"),
    "ascend-execution-order": (f"{_HERE}.ascend_execution_order", "AscendExecutionOrderPass"),
    "ascend-plan-memory": (f"{_HERE}.ascend_plan_memory", "AscendPlanMemoryPass"),
    "ascend-assign-streams": (f"{_HERE}.ascend_assign_streams", "AscendAssignStreamsPass"),
}


def device_pass_factories() -> dict[str, PassFactory]:
    return factories(DEVICE_PASSES)


@functools.cache
def passes_with_device() -> dict[str, PassFactory]:
    """xDSL's and mindir's passes plus the device's: the device pipeline's vocabulary."""
    return {**available_passes(), **device_pass_factories()}
