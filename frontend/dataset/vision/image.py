"""What the vision transforms share: images are numpy arrays `<H, W>` or
`<H, W, C>` (HWC, as MindSpore's C++ transforms take them; `Decode` would give
uint8 HWC RGB), and the small array operations several transforms use (crop,
pad, flip). A shape a transform cannot take is MindSpore's RuntimeError naming
the transform and the shape."""

from __future__ import annotations

from typing import Any

import numpy as np

from mindjit.frontend.dataset.transforms.base import TensorOperation, single
from mindjit.frontend.dataset.vision.utils import Border


class ImageTensorOperation(TensorOperation):
    """A vision transform: eager inputs must be numpy arrays (MindSpore also takes
    PIL images; mindjit has no PIL)."""

    def check_inputs(self, inputs: tuple[Any, ...]) -> list[np.ndarray]:
        for x in inputs:
            if not isinstance(x, np.ndarray):
                raise TypeError(f"Input should be NumPy or PIL image, got {type(x)}.")
        return list(inputs)


def image(op: str, arrays: tuple[np.ndarray, ...], batched: bool = False) -> np.ndarray:
    """The one image a transform gets: `<H, W>` or `<H, W, C>` (`<..., H, W, C>` too
    where MindSpore takes a batch)."""
    img = single(op, arrays)
    if img.ndim < 2 or (img.ndim > 3 and not batched):
        shapes = "<H, W> or <..., H, W, C>" if batched else "<H, W> or <H, W, C>"
        raise RuntimeError(
            f"{op}: the image shape should be {shapes}, but got rank {img.ndim} (shape {img.shape})"
        )
    return img


def hw_axes(img: np.ndarray) -> tuple[int, int]:
    """The height and width axes: the first two of `<H, W>`, else the two before C."""
    return (0, 1) if img.ndim == 2 else (img.ndim - 3, img.ndim - 2)


def hw(img: np.ndarray) -> tuple[int, int]:
    h, w = hw_axes(img)
    return img.shape[h], img.shape[w]


def crop(img: np.ndarray, top: int, left: int, height: int, width: int) -> np.ndarray:
    ha, wa = hw_axes(img)
    index = [slice(None)] * img.ndim
    index[ha], index[wa] = slice(top, top + height), slice(left, left + width)
    return img[tuple(index)].copy()


def pad(
    img: np.ndarray,
    left: int,
    top: int,
    right: int,
    bottom: int,
    mode: Border = Border.CONSTANT,
    fill: tuple[int, int, int] = (0, 0, 0),
) -> np.ndarray:
    """Borders added around the image; a constant border takes fill[c] in channel
    c (fill[0] for an image without channels, 0 past the third channel)."""
    ha, wa = hw_axes(img)
    widths = [(0, 0)] * img.ndim
    widths[ha], widths[wa] = (top, bottom), (left, right)
    if mode != Border.CONSTANT:
        h, w = hw(img)
        if mode == Border.REFLECT and (max(top, bottom) >= h or max(left, right) >= w):
            raise RuntimeError(
                f"Pad: a REFLECT border must be narrower than the image: padding "
                f"(left {left}, top {top}, right {right}, bottom {bottom}), image {h}x{w}"
            )
        return np.pad(img, widths, mode=mode.value)
    if img.ndim == 2:
        return np.pad(img, widths, constant_values=np.array(fill[0]).astype(img.dtype))
    out = np.empty(tuple(n + a + b for n, (a, b) in zip(img.shape, widths)), dtype=img.dtype)
    channels = img.shape[-1]
    out[...] = np.array([fill[c] if c < 3 else 0 for c in range(channels)]).astype(img.dtype)
    index = [slice(a, a + n) for n, (a, _) in zip(img.shape, widths)]
    out[tuple(index)] = img
    return out


def flip(img: np.ndarray, horizontal: bool) -> np.ndarray:
    ha, wa = hw_axes(img)
    return np.ascontiguousarray(np.flip(img, axis=wa if horizontal else ha))
