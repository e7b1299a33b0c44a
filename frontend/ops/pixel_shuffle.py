"""`ops.pixel_shuffle` / `ops.pixel_unshuffle`: channels to space and back, a
reshape, a transpose and a reshape (MindSpore 2.x signatures)."""

from __future__ import annotations

import math
from typing import Any

from mindjit.frontend.ops.array import reshape, transpose
from mindjit.frontend.ops.split import require_tensor


def _factor(value: Any, what: str, name: str) -> int:
    """A positive int; anything else is a ValueError, as MindSpore documents."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(
            f"For '{name}', the '{what}' must be a positive integer, but got {value!r}."
        )
    return value


def pixel_shuffle(input: Any, upscale_factor: int) -> Any:
    """(*, C * r^2, H, W) -> (*, C, H * r, W * r)."""
    name = "pixel_shuffle"
    x = require_tensor(input, name)
    r = _factor(upscale_factor, "upscale_factor", name)
    if len(x.shape) < 3:
        raise ValueError(
            f"For '{name}', the rank of 'input' must be at least 3, but got {x.shape}."
        )
    *lead, c, h, w = x.shape
    if c % (r * r):
        raise ValueError(
            f"For '{name}', the channel (the third last dim) {c} must be divisible by "
            f"upscale_factor^2 = {r * r}."
        )
    b = math.prod(lead)
    oc = c // (r * r)
    y = reshape(x, (b, oc, r, r, h, w))
    y = transpose(y, (0, 1, 4, 2, 5, 3))
    return reshape(y, (*lead, oc, h * r, w * r))


def pixel_unshuffle(input: Any, downscale_factor: int) -> Any:
    """(*, C, H * r, W * r) -> (*, C * r^2, H, W)."""
    name = "pixel_unshuffle"
    x = require_tensor(input, name)
    r = _factor(downscale_factor, "downscale_factor", name)
    if len(x.shape) < 3:
        raise ValueError(
            f"For '{name}', the rank of 'input' must be at least 3, but got {x.shape}."
        )
    *lead, c, h, w = x.shape
    if h % r or w % r:
        raise ValueError(
            f"For '{name}', the height {h} and width {w} must be divisible by downscale_factor {r}."
        )
    b = math.prod(lead)
    y = reshape(x, (b, c, h // r, r, w // r, r))
    y = transpose(y, (0, 1, 3, 5, 2, 4))
    return reshape(y, (*lead, c * r * r, h // r, w // r))


__all__ = ["pixel_shuffle", "pixel_unshuffle"]
