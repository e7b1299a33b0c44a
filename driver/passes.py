"""Every pass mindjit's tools know: xDSL's, the mindir passes and the device's."""

from __future__ import annotations

from mindjit.backend.ascend.passes.registry import device_pass_factories, passes_with_device
from mindjit.passes.registry import PassFactory, mindir_pass_factories


def mindjit_pass_factories() -> dict[str, PassFactory]:
    """mindjit's own passes: mindir's and the device's."""
    return {**mindir_pass_factories(), **device_pass_factories()}


def all_passes() -> dict[str, PassFactory]:
    """Upstream xDSL's passes and mindjit's, by name (a pipeline's vocabulary)."""
    return passes_with_device()
