"""`nn.ClipByNorm(axis=None)`: `construct(x, clip_norm)` scales x so that its L2 norm
over `axis` (every axis by default) is at most `clip_norm`:

    x * clip_norm / max(l2norm(x), clip_norm)           (float32, x's shape)

as MindSpore computes it: the sum of squares kept with its axes, cast to
float32, its square root taken only where it is positive (so a zero x has a
zero norm and a finite gradient), the product x * clip_norm divided in float32.
x and clip_norm must be float16 or float32; clip_norm is a scalar Tensor (or a
number) or one that broadcasts with the kept norm.
"""

from __future__ import annotations

from typing import Any

from mindjit.frontend import dtype as D
from mindjit.frontend import ops
from mindjit.frontend.nn.cell import Cell

_FLOATS = (D.float16, D.float32)


def _axis(axis: Any) -> Any:
    if axis is None:
        return ()
    if isinstance(axis, int) and not isinstance(axis, bool):
        return axis
    if isinstance(axis, tuple | list) and all(
        isinstance(a, int) and not isinstance(a, bool) for a in axis
    ):
        return tuple(axis)
    raise TypeError(
        f"For 'ClipByNorm', 'axis' must be an int, a tuple of ints or None, got {axis!r}"
    )


class ClipByNorm(Cell):
    """`nn.ClipByNorm(axis=None)(x, clip_norm)` (see the module doc)."""

    def __init__(self, axis: Any = None):
        super().__init__()
        self.axis = _axis(axis)

    def construct(self, x, clip_norm):
        if x.dtype not in _FLOATS:
            raise TypeError(
                f"For 'ClipByNorm', the dtype of 'x' must be float16 or float32, but got {x.dtype}"
            )
        if ops.is_tensor(clip_norm) and clip_norm.dtype not in _FLOATS:
            raise TypeError(
                "For 'ClipByNorm', the dtype of 'clip_norm' must be float16 or float32, but got "
                f"{clip_norm.dtype}"
            )
        l2sum = ops.cast(ops.reduce_sum(ops.square(x), self.axis, True), D.float32)
        positive = ops.greater(l2sum, 0.0)
        l2norm = ops.select(positive, ops.sqrt(ops.select(positive, l2sum, 1.0)), l2sum)
        bound = ops.cast(clip_norm, D.float32) if ops.is_tensor(clip_norm) else float(clip_norm)
        scaled = ops.cast(ops.mul(x, clip_norm), D.float32)
        return ops.reshape(ops.div(scaled, ops.maximum(l2norm, bound)), x.shape)

    def extend_repr(self) -> str:
        return f"axis={self.axis}"
