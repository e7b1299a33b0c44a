"""Detection boxes (x0, y0, x1, y1) in pixel units: `ops.iou`,
`ops.bounding_box_encode`, `ops.bounding_box_decode`, `ops.check_valid`
(MindSpore 2.10's deprecated but CPU-runnable names).

MindSpore's kernels count pixels inclusively: a box's width is x1 - x0 + 1 (the
+1 is in the areas of iou, and in the widths of encode and decode). Decoded
boxes are clipped to [0, max_shape[1]] (x) and [0, max_shape[0]] (y), and the
log-ratio deltas to |log(wh_ratio_clip)|, as MindSpore's CPU kernel does. All
are elementwise compositions, so both modes and the gradients come for free.
"""

from __future__ import annotations

import math
from typing import Any

from mindjit.frontend import dtype as D
from mindjit.frontend.ops import array
from mindjit.frontend.ops import math as fmath
from mindjit.frontend.ops.clip import clamp as clamp_values
from mindjit.frontend.ops.gather_ops import _tensor


def _boxes(x: Any, name: str, what: str, dtypes: tuple[D.DType, ...]) -> Any:
    t = _tensor(x, name, what)
    if t.dtype not in dtypes:
        raise TypeError(f"For '{name}', '{what}' must be {dtypes}, got {t.dtype}")
    if len(t.shape) != 2 or t.shape[1] != 4:
        raise ValueError(
            f"For primitive[{name}], the {what}.shape[1] must be equal to 4, but got "
            f"{tuple(t.shape)[1:] or tuple(t.shape)}."
        )
    return t


def _col(b: Any, i: int) -> Any:
    return b[:, i]


def iou(anchor_boxes: Any, gt_boxes: Any, mode: str = "iou") -> Any:
    """`ops.iou(anchor_boxes, gt_boxes, mode='iou')`: (N_gt, N_anchor) overlaps; 'iof'
    divides the intersection by the ground-truth box's area."""
    name = "IOU"
    if mode not in ("iou", "iof"):
        raise KeyError(f"For '{name}', only 'iou' or 'iof' are supported, but got 'mode': {mode}.")
    floats = (D.float16, D.float32)
    a = _boxes(anchor_boxes, name, "anchor_boxes", floats)
    g = _boxes(gt_boxes, name, "gt_boxes", floats)
    if a.dtype != g.dtype:
        raise TypeError(f"For '{name}', the boxes must have one dtype, got {a.dtype}, {g.dtype}")
    ax0, ay0, ax1, ay1 = (array.reshape(_col(a, i), (1, -1)) for i in range(4))
    gx0, gy0, gx1, gy1 = (array.reshape(_col(g, i), (-1, 1)) for i in range(4))
    w = fmath.maximum(fmath.add(fmath.sub(fmath.minimum(ax1, gx1), fmath.maximum(ax0, gx0)), 1), 0)
    h = fmath.maximum(fmath.add(fmath.sub(fmath.minimum(ay1, gy1), fmath.maximum(ay0, gy0)), 1), 0)
    inter = fmath.mul(w, h)
    area_a = fmath.mul(fmath.add(fmath.sub(ax1, ax0), 1), fmath.add(fmath.sub(ay1, ay0), 1))
    area_g = fmath.mul(fmath.add(fmath.sub(gx1, gx0), 1), fmath.add(fmath.sub(gy1, gy0), 1))
    if mode == "iof":
        return fmath.div(inter, area_g)
    return fmath.div(inter, fmath.sub(fmath.add(area_a, area_g), inter))


def _four(values: Any, name: str, what: str) -> tuple[float, ...]:
    if not isinstance(values, tuple | list) or len(values) != 4:
        raise TypeError(f"For '{name}', '{what}' must be a tuple of 4 floats, got {values!r}")
    return tuple(float(v) for v in values)


def _centres(b: Any) -> tuple[Any, Any, Any, Any]:
    x0, y0, x1, y1 = (_col(b, i) for i in range(4))
    return (
        fmath.mul(fmath.add(x0, x1), 0.5),
        fmath.mul(fmath.add(y0, y1), 0.5),
        fmath.add(fmath.sub(x1, x0), 1.0),
        fmath.add(fmath.sub(y1, y0), 1.0),
    )


def bounding_box_encode(
    anchor_box: Any,
    groundtruth_box: Any,
    means: Any = (0.0, 0.0, 0.0, 0.0),
    stds: Any = (1.0, 1.0, 1.0, 1.0),
) -> Any:
    """`ops.bounding_box_encode(anchor_box, groundtruth_box, means, stds)`: the deltas
    ((dx, dy, dw, dh) - means) / stds taking each anchor to its ground truth."""
    name = "BoundingBoxEncode"
    floats = (D.float16, D.float32)
    a = _boxes(anchor_box, name, "anchor_box", floats)
    g = _boxes(groundtruth_box, name, "groundtruth_box", floats)
    m, s = _four(means, name, "means"), _four(stds, name, "stds")
    px, py, pw, ph = _centres(a)
    gx, gy, gw, gh = _centres(g)
    deltas = (
        fmath.div(fmath.sub(gx, px), pw),
        fmath.div(fmath.sub(gy, py), ph),
        fmath.log(fmath.div(gw, pw)),
        fmath.log(fmath.div(gh, ph)),
    )
    cols = [fmath.div(fmath.sub(d, mi), si) for d, mi, si in zip(deltas, m, s)]
    return array.stack(cols, 1)


def bounding_box_decode(
    anchor_box: Any,
    deltas: Any,
    max_shape: Any,
    means: Any = (0.0, 0.0, 0.0, 0.0),
    stds: Any = (1.0, 1.0, 1.0, 1.0),
    wh_ratio_clip: float = 0.016,
) -> Any:
    """`ops.bounding_box_decode(anchor_box, deltas, max_shape, means, stds,
    wh_ratio_clip=0.016)`: the boxes the deltas take the anchors to, clipped to the
    image (max_shape = (height, width))."""
    name = "BoundingBoxDecode"
    floats = (D.float16, D.float32)
    a = _boxes(anchor_box, name, "anchor_box", floats)
    d = _boxes(deltas, name, "deltas", floats)
    m, s = _four(means, name, "means"), _four(stds, name, "stds")
    if not isinstance(max_shape, tuple | list) or len(max_shape) != 2:
        raise TypeError(f"For '{name}', 'max_shape' must be a tuple of 2 ints, got {max_shape!r}")
    if isinstance(wh_ratio_clip, bool) or not isinstance(wh_ratio_clip, int | float):
        raise TypeError(f"For '{name}', 'wh_ratio_clip' must be a float, got {wh_ratio_clip!r}")
    height, width = float(max_shape[0]), float(max_shape[1])
    limit = abs(math.log(wh_ratio_clip))
    dx, dy, dw, dh = (fmath.add(fmath.mul(_col(d, i), s[i]), m[i]) for i in range(4))
    dw = clamp_values(dw, -limit, limit)
    dh = clamp_values(dh, -limit, limit)
    px, py, pw, ph = _centres(a)
    gx = fmath.add(px, fmath.mul(pw, dx))
    gy = fmath.add(py, fmath.mul(ph, dy))
    gw = fmath.mul(pw, fmath.exp(dw))
    gh = fmath.mul(ph, fmath.exp(dh))
    x0 = fmath.add(fmath.sub(gx, fmath.mul(gw, 0.5)), 0.5)
    y0 = fmath.add(fmath.sub(gy, fmath.mul(gh, 0.5)), 0.5)
    x1 = fmath.sub(fmath.add(gx, fmath.mul(gw, 0.5)), 0.5)
    y1 = fmath.sub(fmath.add(gy, fmath.mul(gh, 0.5)), 0.5)
    cols = [
        clamp_values(x0, 0.0, width),
        clamp_values(y0, 0.0, height),
        clamp_values(x1, 0.0, width),
        clamp_values(y1, 0.0, height),
    ]
    return array.stack(cols, 1)


def check_valid(bboxes: Any, img_metas: Any) -> Any:
    """`ops.check_valid(bboxes, img_metas)`: bool (N,), whether x0 >= 0, y0 >= 0,
    x1 <= width * ratio - 1 and y1 <= height * ratio - 1 (img_metas = (height,
    width, ratio))."""
    name = "CheckValid"
    kinds = (D.float16, D.float32, D.int16, D.uint8)
    b = _boxes(bboxes, name, "bboxes", kinds)
    meta = _tensor(img_metas, name, "img_metas")
    if tuple(meta.shape) != (3,):
        raise ValueError(f"For '{name}', 'img_metas' must have shape (3,), got {meta.shape}")
    fb = array.cast(b, D.float32)
    fm = array.cast(meta, D.float32)
    x0, y0, x1, y1 = (_col(fb, i) for i in range(4))
    height, width, ratio = fm[0], fm[1], fm[2]
    ok = fmath.logical_and(fmath.greater_equal(x0, 0.0), fmath.greater_equal(y0, 0.0))
    ok = fmath.logical_and(ok, fmath.less_equal(x1, fmath.sub(fmath.mul(width, ratio), 1.0)))
    return fmath.logical_and(ok, fmath.less_equal(y1, fmath.sub(fmath.mul(height, ratio), 1.0)))


__all__ = ["bounding_box_decode", "bounding_box_encode", "check_valid", "iou"]
