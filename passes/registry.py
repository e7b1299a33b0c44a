"""Every mindir pass by its kebab-case name. Add a pass here when you add its file.

Passes are imported on first use (`ms-opt --help` lists them without loading
them). The device's passes have their own table beside the device backend
(`mindjit.backend.ascend.passes.registry`); `mindjit.driver.passes` joins both.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from xdsl.passes import ModulePass

PassFactory = Callable[[], type[ModulePass]]

#: pass name -> (module, class)
MINDIR_PASSES: dict[str, tuple[str, str]] = {
    "convert-mindir-to-tensor": (
        "mindjit.passes.mindir_to_tensor.convert_mindir_to_tensor",
        "ConvertMindirToTensorPass",
    ),
    "mindir-auto-monad": ("mindjit.passes.mindir_auto_monad", "MindirAutoMonadPass"),
    "mindir-cf-to-select": ("mindjit.passes.mindir_cf_to_select", "MindirCfToSelectPass"),
    "mindir-depend-order": ("mindjit.passes.mindir_depend_order", "MindirDependOrderPass"),
    "mindir-grad": ("mindjit.passes.mindir_grad.mindir_grad", "MindirGradPass"),
    "mindir-inline": ("mindjit.passes.mindir_inline", "MindirInlinePass"),
    "mindir-load-elim": ("mindjit.passes.mindir_load_elim", "MindirLoadElimPass"),
    "mindir-pipeline-schedule": (
        "mindjit.passes.mindir_pipeline_schedule",
        "MindirPipelineSchedulePass",
    ),
    "mindir-pipeline-split": (
        "mindjit.passes.mindir_pipeline_split",
        "MindirPipelineSplitPass",
    ),
    "mindir-vmap": ("mindjit.passes.mindir_vmap", "MindirVmapPass"),
}


def lazy_pass(module: str, cls: str) -> PassFactory:
    """A factory importing `module` only when the pass is used."""

    def load() -> type[ModulePass]:
        return getattr(importlib.import_module(module), cls)

    return load


def factories(table: dict[str, tuple[str, str]]) -> dict[str, PassFactory]:
    return {name: lazy_pass(module, cls) for name, (module, cls) in table.items()}


def mindir_pass_factories() -> dict[str, PassFactory]:
    return factories(MINDIR_PASSES)


#: upstream passes mindjit's pipelines (and ms-opt) use in an extended form, by the
#: same name; not offered to xDSL's own tools, which keep xDSL's
EXTENDED_PASSES: dict[str, tuple[str, str]] = {
    # MLIR's region-simplify option (passes/canonicalize.py)
    "canonicalize": ("mindjit.passes.canonicalize", "CanonicalizePass"),
}


def extended_pass_factories() -> dict[str, PassFactory]:
    return factories(EXTENDED_PASSES)
