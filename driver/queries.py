"""What the frontend asks the compiler while it traces, before anything is compiled."""

from __future__ import annotations

from mindjit.passes.mindir_vmap import batchable

__all__ = ["batchable"]
