"""`ops.crop_and_resize(image, boxes, box_indices, crop_size, method='bilinear',
extrapolation_value=0.0)`: TensorFlow's (and MindSpore's) crop-and-resize, NHWC.

Crop row y of box b reads image row in_y = y1 (H - 1) + y (y2 - y1) (H - 1) /
(crop_h - 1) (the box centre when crop_h is 1), columns likewise; a sample
outside [0, H - 1] x [0, W - 1] is `extrapolation_value`. 'bilinear' mixes the
floor and ceil rows and columns, 'nearest' takes the rounded (half away from
zero) ones. Every read is a gather of the (N * H * W, C) image with indices
computed at run time (box_indices and boxes are tensors), so graph mode works
and gradients reach the image and the boxes. The result is float32, as
MindSpore's. MindSpore's third method, 'bilinear_v2', is not implemented (a
NotImplementedError).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindjit.frontend import dtype as D
from mindjit.frontend.ops.array import broadcast_to, cast, expand_dims, reshape
from mindjit.frontend.ops.gather_ops import gather
from mindjit.frontend.ops.indexing import getitem
from mindjit.frontend.ops.math import (
    abs,
    add,
    ceil,
    floor,
    greater_equal,
    less_equal,
    logical_and,
    maximum,
    minimum,
    mul,
    select,
    sub,
)
from mindjit.frontend.ops.math_functions import sign
from mindjit.frontend.ops.promotion import constant, is_tensor

_METHODS = ("bilinear", "nearest", "bilinear_v2")


def _positions(lo: Any, hi: Any, size: int, crop: int) -> Any:
    """(B, crop): the image coordinate each crop row / column reads."""
    if crop > 1:
        steps = constant(np.arange(crop, dtype=np.float32)[None, :], D.float32)
        scale = mul(sub(hi, lo), (size - 1) / (crop - 1))
        return add(mul(lo, float(size - 1)), mul(steps, scale))
    return mul(add(lo, hi), 0.5 * (size - 1))


def crop_and_resize(
    image: Any,
    boxes: Any,
    box_indices: Any,
    crop_size: Any,
    method: str = "bilinear",
    extrapolation_value: float = 0.0,
) -> Any:
    """(num_boxes, crop_h, crop_w, depth) crops of `image` (N, H, W, depth)."""
    name = "CropAndResize"
    for what, v in (("image", image), ("boxes", boxes), ("box_indices", box_indices)):
        if not is_tensor(v):
            raise TypeError(f"For '{name}', '{what}' must be a Tensor, got {type(v).__name__}")
    if method not in _METHODS:
        raise ValueError(
            f"For '{name}', the 'method' must be str and must be in '{list(_METHODS)}', but got "
            f"'{method}'."
        )
    if method == "bilinear_v2":
        raise NotImplementedError(f"For '{name}', method 'bilinear_v2' is not supported")
    if len(image.shape) != 4:
        raise ValueError(
            f"For crop_and_resize, the input image must be 4D Tensor, but got is "
            f"{len(image.shape)}D"
        )
    if (
        not isinstance(crop_size, tuple)
        or len(crop_size) != 2
        or any(isinstance(v, bool) or not isinstance(v, int) or v < 1 for v in crop_size)
    ):
        raise ValueError(f"For '{name}', 'crop_size' must be a tuple of 2 positive ints")
    if len(boxes.shape) != 2 or boxes.shape[1] != 4:
        raise ValueError(f"For '{name}', 'boxes' must be (num_boxes, 4), got {boxes.shape}")
    if tuple(box_indices.shape) != (boxes.shape[0],):
        raise ValueError(
            f"For '{name}', 'box_indices' must be (num_boxes,), got {box_indices.shape}"
        )
    if box_indices.dtype != D.int32:
        raise TypeError(f"For '{name}', 'box_indices' must be int32, got {box_indices.dtype}")
    if not isinstance(extrapolation_value, float | int) or isinstance(extrapolation_value, bool):
        raise TypeError(f"For '{name}', 'extrapolation_value' must be a float")
    n, h, w, depth = image.shape
    ch, cw = crop_size
    img = image if image.dtype == D.float32 else cast(image, D.float32)
    box = boxes if boxes.dtype == D.float32 else cast(boxes, D.float32)
    col = [expand_dims(getitem(box, (slice(None), i)), 1) for i in range(4)]  # (B, 1) each
    ys = _positions(col[0], col[2], h, ch)  # (B, ch) or (B, 1)
    xs = _positions(col[1], col[3], w, cw)
    inside_y = logical_and(greater_equal(ys, 0.0), less_equal(ys, float(h - 1)))
    inside_x = logical_and(greater_equal(xs, 0.0), less_equal(xs, float(w - 1)))
    flat = reshape(img, (n * h * w, depth))
    base = mul(cast(expand_dims(box_indices, 1), D.int32), h * w)  # (B, 1)

    def clip_int(v: Any, size: int) -> Any:
        return cast(minimum(maximum(v, 0.0), float(size - 1)), D.int32)

    def read(yi: Any, xi: Any) -> Any:
        """(B, ch, cw, depth) pixels at integer rows (B, ch) and columns (B, cw)."""
        rows = add(expand_dims(mul(clip_int(yi, h), w), 2), expand_dims(clip_int(xi, w), 1))
        return gather(flat, add(rows, expand_dims(base, 2)), 0)

    def rounded(v: Any) -> Any:  # half away from zero, as roundf
        return mul(sign(v), floor(add(abs(v), 0.5)))

    if method == "nearest":
        out = read(rounded(ys), rounded(xs))
    else:
        top, bottom, left, right = floor(ys), ceil(ys), floor(xs), ceil(xs)
        y_lerp = expand_dims(expand_dims(sub(ys, top), 2), 3)
        x_lerp = expand_dims(expand_dims(sub(xs, left), 1), 3)
        tl, tr = read(top, left), read(top, right)
        bl, br = read(bottom, left), read(bottom, right)
        upper = add(tl, mul(sub(tr, tl), x_lerp))
        lower = add(bl, mul(sub(br, bl), x_lerp))
        out = add(upper, mul(sub(lower, upper), y_lerp))
    inside = logical_and(expand_dims(inside_y, 2), expand_dims(inside_x, 1))  # (B, ch, cw)
    fill = add(mul(out, 0.0), float(extrapolation_value))
    return select(broadcast_to(expand_dims(inside, 3), tuple(out.shape)), out, fill)
