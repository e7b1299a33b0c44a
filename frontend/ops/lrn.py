"""Local response normalization (`ops.lrn`; nn.LRN calls it), MindSpore's (TensorFlow's)
form over the channels of an (N, C, H, W) input:

    out[n, c] = x[n, c] / (bias + alpha * sum_{|c' - c| <= depth_radius} x[n, c']^2) ** beta

(alpha is not divided by the window size). The window sum is the sum of the
2r + 1 shifted channel slices of the zero padded squares (r clipped to C - 1,
past which the window only adds zeros): a composition, so its gradient and
graph mode come from the ops it is made of.
"""

from __future__ import annotations

from typing import Any

from mindjit.frontend.ops.conv import pad
from mindjit.frontend.ops.math import _tensor, add, addn, div, mul, pow, square
from mindjit.frontend.ops.split import slice_axis


def check_lrn_args(depth_radius: Any, bias: Any, alpha: Any, beta: Any, norm_region: Any) -> None:
    name = "LRN"
    if isinstance(depth_radius, bool) or not isinstance(depth_radius, int):
        raise TypeError(
            f"For '{name}', the type of 'depth_radius' should be 'int', but got type "
            f"'{type(depth_radius).__name__}'."
        )
    if depth_radius < 0:
        raise ValueError(f"For '{name}', 'depth_radius' must be >= 0, but got {depth_radius}.")
    for what, v in (("bias", bias), ("alpha", alpha), ("beta", beta)):
        if not isinstance(v, float):
            raise TypeError(
                f"For '{name}', the type of '{what}' should be 'float', but got type "
                f"'{type(v).__name__}'."
            )
    if not isinstance(norm_region, str):
        raise TypeError(f"For '{name}', 'norm_region' must be a str, got {norm_region!r}")
    if norm_region != "ACROSS_CHANNELS":
        raise ValueError(
            f"For '{name}', the 'norm_region' must be str and must be in '['ACROSS_CHANNELS']', "
            f"but got '{norm_region}'."
        )


def lrn(
    x: Any,
    depth_radius: int = 5,
    bias: float = 1.0,
    alpha: float = 1.0,
    beta: float = 0.5,
    norm_region: str = "ACROSS_CHANNELS",
) -> Any:
    """`ops.lrn`: x / (bias + alpha * (sum of squares over 2 r + 1 channels)) ** beta."""
    check_lrn_args(depth_radius, bias, alpha, beta, norm_region)
    t = _tensor(x, "LRN")
    if len(t.shape) != 4:
        raise ValueError(
            f"For primitive[LRN], the rank of input  must be equal to 4 , but got {len(t.shape)}."
        )
    if not t.dtype.is_float:
        raise TypeError(f"For primitive[LRN], the input must be float16 or float32, got {t.dtype}")
    c = t.shape[1]
    r = min(depth_radius, c - 1)
    sq = square(t)
    padded = pad(sq, (0, 0, 0, 0, r, r)) if r else sq
    window = addn([slice_axis(padded, 1, i, i + c) for i in range(2 * r + 1)]) if r else sq
    return div(t, pow(add(mul(window, alpha), bias), beta))
