"""Every mindjit pass by its kebab-case name. Add a pass here when you add its file."""

from __future__ import annotations

from collections.abc import Callable

from xdsl.passes import ModulePass


def _convert_mindir_to_tensor() -> type[ModulePass]:
    from mindjit.passes.convert_mindir_to_tensor import ConvertMindirToTensorPass

    return ConvertMindirToTensorPass


def _mindir_auto_monad() -> type[ModulePass]:
    from mindjit.passes.mindir_auto_monad import MindirAutoMonadPass

    return MindirAutoMonadPass


def _mindir_cf_to_select() -> type[ModulePass]:
    from mindjit.passes.mindir_cf_to_select import MindirCfToSelectPass

    return MindirCfToSelectPass


def _mindir_grad() -> type[ModulePass]:
    from mindjit.passes.mindir_grad import MindirGradPass

    return MindirGradPass


def _mindir_vmap() -> type[ModulePass]:
    from mindjit.passes.mindir_vmap import MindirVmapPass

    return MindirVmapPass


def _mindir_depend_order() -> type[ModulePass]:
    from mindjit.passes.mindir_depend_order import MindirDependOrderPass

    return MindirDependOrderPass


def _mindir_inline() -> type[ModulePass]:
    from mindjit.passes.mindir_inline import MindirInlinePass

    return MindirInlinePass


def _mindir_load_elim() -> type[ModulePass]:
    from mindjit.passes.mindir_load_elim import MindirLoadElimPass

    return MindirLoadElimPass


def _ascend(module: str, cls: str) -> Callable[[], type[ModulePass]]:
    """A factory importing an ascend-* pass only when it is used."""

    def load() -> type[ModulePass]:
        import importlib

        return getattr(importlib.import_module(f"mindjit.passes.{module}"), cls)

    return load


def mindjit_pass_factories() -> dict[str, Callable[[], type[ModulePass]]]:
    return {
        "ascend-select-kernels": _ascend("ascend_select_kernels", "AscendSelectKernelsPass"),
        "ascend-cell-reuse": _ascend("ascend_cell_reuse", "AscendCellReusePass"),
        "ascend-execution-order": _ascend("ascend_execution_order", "AscendExecutionOrderPass"),
        "ascend-plan-memory": _ascend("ascend_plan_memory", "AscendPlanMemoryPass"),
        "ascend-assign-streams": _ascend("ascend_assign_streams", "AscendAssignStreamsPass"),
        "convert-mindir-to-tensor": _convert_mindir_to_tensor,
        "mindir-load-elim": _mindir_load_elim,
        "mindir-auto-monad": _mindir_auto_monad,
        "mindir-depend-order": _mindir_depend_order,
        "mindir-inline": _mindir_inline,
        "mindir-cf-to-select": _mindir_cf_to_select,
        "mindir-grad": _mindir_grad,
        "mindir-vmap": _mindir_vmap,
    }
