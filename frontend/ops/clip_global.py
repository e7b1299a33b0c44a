"""`ops.clip_by_global_norm(x, clip_norm=1.0, use_norm=None)` (also `C.clip_by_global_norm`):
a tuple of tensors (gradients) scaled together so that their global L2 norm,
sqrt(sum of every element squared), is at most `clip_norm`:

    x_i * clip_norm / max(global_norm, clip_norm)

MindSpore's computation, step for step: each tensor's sum of squares in its own
dtype, cast to float32, added up (`addn`); each result `x * clip_norm /
global_norm` cast back to its tensor's dtype. Composed of mindir ops, so it runs
in both modes and has a gradient. `use_norm` must be None, as MindSpore requires.
"""

from __future__ import annotations

from typing import Any

from mindjit.frontend import dtype as D
from mindjit.frontend.ops.array import cast
from mindjit.frontend.ops.math import addn, div, maximum, mul, sqrt, square
from mindjit.frontend.ops.promotion import is_tensor
from mindjit.frontend.ops.reduce import reduce_sum


def clip_by_global_norm(x: Any, clip_norm: Any = 1.0, use_norm: Any = None) -> tuple[Any, ...]:
    """The tensors of `x` scaled by clip_norm / max(global norm, clip_norm)."""
    name = "clip_by_global_norm"
    if use_norm is not None:
        raise ValueError(
            f"For '{name}', input 'use_norm' only supports None currently, but got "
            f"'use_norm': {use_norm}"
        )
    if isinstance(clip_norm, bool) or not isinstance(clip_norm, int | float):
        raise TypeError(f"For '{name}', 'clip_norm' must be a float or int, got {clip_norm!r}")
    if not clip_norm > 0:
        raise ValueError(f"For '{name}', 'clip_norm' must be greater than 0, but got {clip_norm}")
    if not isinstance(x, tuple | list) or not x or not all(is_tensor(t) for t in x):
        raise TypeError(f"For '{name}', 'x' must be a non-empty tuple or list of Tensors")
    squares = [cast(reduce_sum(square(t)), D.float32) for t in x]
    global_norm = maximum(sqrt(addn(squares)), float(clip_norm))
    return tuple(cast(div(mul(t, float(clip_norm)), global_norm), t.dtype) for t in x)


__all__ = ["clip_by_global_norm"]
