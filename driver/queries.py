"""What the frontend asks the compiler while it traces, before anything is compiled."""

from __future__ import annotations

from mindjit.backend.iree.toolchain import RUNTIME_DRIVERS, TARGETS, device
from mindjit.passes.mindir_vmap import batchable

__all__ = ["batchable", "check_device_available"]


def check_device_available(target: str) -> None:
    """Raise a clear error when `target` ("GPU") cannot run here (no CUDA GPU or
    driver, or IREE missing)."""
    if target == "GPU":
        device(RUNTIME_DRIVERS[TARGETS[target]][0])
