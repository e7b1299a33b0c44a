"""Every mindjit pass by its kebab-case name. Add a pass here when you add its file."""

from __future__ import annotations

from collections.abc import Callable

from xdsl.passes import ModulePass


def _convert_mindir_to_tensor() -> type[ModulePass]:
    from mindjit.passes.convert_mindir_to_tensor import ConvertMindirToTensorPass

    return ConvertMindirToTensorPass


def mindjit_pass_factories() -> dict[str, Callable[[], type[ModulePass]]]:
    return {
        "convert-mindir-to-tensor": _convert_mindir_to_tensor,
    }
