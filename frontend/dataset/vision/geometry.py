"""The vision transforms that move pixels: `Resize`, `Crop`, `CenterCrop`,
`RandomCrop`, `RandomResizedCrop`, `Pad`, the flips and their random forms.

They keep the image's dtype and channels and take `<H, W>` or `<H, W, C>`
(flips and CenterCrop also a batch `<..., H, W, C>`, as MindSpore's). The
random ones draw from the generator they are given (base.py): the pipeline's,
seeded by `ds.config.set_seed` / `ms.set_seed`. The geometry follows
MindSpore's C++ kernels: CenterCrop pads with zeros (the odd pixel on the top
and left) when the image is smaller and crops at the floor of the centring
offset; RandomCrop pads by `padding`, then (with `pad_if_needed`) by the
shortfall on both sides; RandomResizedCrop tries `max_attempts` random areas
and aspect ratios, then falls back to a centre crop clamped to the ratio range.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from mindjit.frontend.dataset.transforms.checks import check_prob, type_check
from mindjit.frontend.dataset.vision import checks
from mindjit.frontend.dataset.vision.image import ImageTensorOperation, crop, flip, hw, image, pad
from mindjit.frontend.dataset.vision.resize import resize
from mindjit.frontend.dataset.vision.utils import Border, Inter


def _target_size(size: tuple[int, ...], h: int, w: int) -> tuple[int, int]:
    """One value is the shorter edge (the other kept in proportion, floored)."""
    if len(size) == 2:
        return size[0], size[1]
    if h < w:
        return size[0], int(math.floor(w / h * size[0]))
    return int(math.floor(h / w * size[0])), size[0]


class Resize(ImageTensorOperation):
    """`Resize(size, interpolation=Inter.LINEAR)`: an int resizes the shorter edge
    to it, keeping the aspect ratio; (height, width) gives that size."""

    def __init__(self, size: Any, interpolation: Inter = Inter.LINEAR):
        self.size = checks.resize_size(size)
        self.interpolation = checks.inter(interpolation)

    def compute(self, rng, *arrays):
        img = image("Resize", arrays)
        height, width = _target_size(self.size, *hw(img))
        return resize(img, height, width, self.interpolation == Inter.NEAREST)


class Crop(ImageTensorOperation):
    """`Crop(coordinates, size)`: the `size` region whose top-left corner is
    `coordinates` (top, left)."""

    def __init__(self, coordinates: Any, size: Any):
        self.coordinates = checks.coordinates(coordinates)
        self.size = checks.crop_size(size)

    def compute(self, rng, *arrays):
        img = image("Crop", arrays)
        (top, left), (height, width), (h, w) = self.coordinates, self.size, hw(img)
        if top + height > h or left + width > w:
            raise RuntimeError(
                f"Crop: the crop region (top {top}, left {left}, height {height}, width {width}) "
                f"exceeds the image of height {h} and width {w}"
            )
        return crop(img, top, left, height, width)


class CenterCrop(ImageTensorOperation):
    """`CenterCrop(size)`: the centred `size` region (zero-padded if the image is smaller)."""

    def __init__(self, size: Any):
        self.size = checks.crop_size(size)

    def compute(self, rng, *arrays):
        img = image("CenterCrop", arrays, batched=True)
        (height, width), (h, w) = self.size, hw(img)
        top, left = height - h, width - w  # pixels to pad, when positive
        if top >= h * 3 or left >= w * 3:
            raise RuntimeError(
                "CenterCrop: CenterCropOp padding size is more than 3 times the original size."
            )
        if top > 0 or left > 0:
            pt, pl = max(top, 0), max(left, 0)
            img = pad(img, (pl + 1) // 2, (pt + 1) // 2, pl // 2, pt // 2)
            h, w = hw(img)
        return crop(img, (h - height) // 2, (w - width) // 2, height, width)


class RandomCrop(ImageTensorOperation):
    """`RandomCrop(size, padding=None, pad_if_needed=False, fill_value=0,
    padding_mode=Border.CONSTANT)`: a `size` region at a random place."""

    random = True

    def __init__(
        self,
        size: Any,
        padding: Any = None,
        pad_if_needed: bool = False,
        fill_value: Any = 0,
        padding_mode: Border = Border.CONSTANT,
    ):
        self.size = checks.crop_size(size)
        type_check(pad_if_needed, (bool,), "pad_if_needed")
        self.padding = (0, 0, 0, 0) if padding is None else checks.padding(padding)
        self.pad_if_needed = pad_if_needed
        self.fill_value = checks.fill_value(fill_value)
        self.padding_mode = checks.border(padding_mode)

    def compute(self, rng, *arrays):
        img = image("RandomCrop", arrays)
        if any(self.padding):
            img = pad(img, *self.padding, self.padding_mode, self.fill_value)
        (height, width), (h, w) = self.size, hw(img)
        if self.pad_if_needed and (w < width or h < height):
            dw, dh = max(width - w, 0), max(height - h, 0)
            img = pad(img, dw, dh, dw, dh, self.padding_mode, self.fill_value)
            h, w = hw(img)
        if h < height or w < width:
            raise RuntimeError(
                "RandomCrop: invalid crop size, crop size is bigger than the image dimensions, "
                f"got crop height: {height}, crop width: {width}, image height {h}, width {w}; "
                "pad_if_needed=True pads it"
            )
        left = int(rng.integers(w - width + 1))
        top = int(rng.integers(h - height + 1))
        return crop(img, top, left, height, width)


class RandomResizedCrop(ImageTensorOperation):
    """`RandomResizedCrop(size, scale=(0.08, 1.0), ratio=(3/4, 4/3),
    interpolation=Inter.BILINEAR, max_attempts=10)`: a random region of
    `scale` of the area and `ratio` aspect, resized to `size`."""

    random = True

    def __init__(
        self,
        size: Any,
        scale: Any = (0.08, 1.0),
        ratio: Any = (3.0 / 4.0, 4.0 / 3.0),
        interpolation: Inter = Inter.BILINEAR,
        max_attempts: int = 10,
    ):
        self.size = checks.crop_size(size)
        checks.scale_ratio(scale, ratio, max_attempts)
        self.scale, self.ratio = tuple(scale), tuple(ratio)
        self.interpolation = checks.inter(interpolation)
        self.max_attempts = max_attempts

    def region(self, rng: np.random.Generator, h: int, w: int) -> tuple[int, int, int, int]:
        area = h * w
        log_ratio = (math.log(self.ratio[0]), math.log(self.ratio[1]))
        for _ in range(self.max_attempts):
            target = rng.uniform(*self.scale) * area
            aspect = math.exp(rng.uniform(*log_ratio))
            cw = int(round(math.sqrt(target * aspect)))
            ch = int(round(math.sqrt(target / aspect)))
            if 0 < cw <= w and 0 < ch <= h:
                return int(rng.integers(h - ch + 1)), int(rng.integers(w - cw + 1)), ch, cw
        in_ratio = w / h
        if in_ratio < self.ratio[0]:
            cw, ch = w, int(round(w / self.ratio[0]))
        elif in_ratio > self.ratio[1]:
            ch, cw = h, int(round(h * self.ratio[1]))
        else:
            cw, ch = w, h
        return (h - ch) // 2, (w - cw) // 2, ch, cw

    def compute(self, rng, *arrays):
        img = image("RandomResizedCrop", arrays)
        top, left, ch, cw = self.region(rng, *hw(img))
        region = crop(img, top, left, ch, cw)
        return resize(region, *self.size, self.interpolation == Inter.NEAREST)


class Pad(ImageTensorOperation):
    """`Pad(padding, fill_value=0, padding_mode=Border.CONSTANT)`: borders of
    `padding` pixels (one value for all sides, (left/right, top/bottom), or
    (left, top, right, bottom))."""

    def __init__(self, padding: Any, fill_value: Any = 0, padding_mode: Border = Border.CONSTANT):
        self.padding = checks.padding(padding)
        self.fill_value = checks.fill_value(fill_value)
        self.padding_mode = checks.border(padding_mode)

    def compute(self, rng, *arrays):
        return pad(image("Pad", arrays), *self.padding, self.padding_mode, self.fill_value)


class HorizontalFlip(ImageTensorOperation):
    """`HorizontalFlip()`: the image mirrored left to right."""

    def compute(self, rng, *arrays):
        return flip(image("HorizontalFlip", arrays, batched=True), horizontal=True)


class VerticalFlip(ImageTensorOperation):
    """`VerticalFlip()`: the image upside down."""

    def compute(self, rng, *arrays):
        return flip(image("VerticalFlip", arrays, batched=True), horizontal=False)


class _RandomFlip(ImageTensorOperation):
    random = True
    horizontal = True

    def __init__(self, prob: float = 0.5):
        check_prob(prob)
        self.prob = prob

    def compute(self, rng, *arrays):
        img = image(type(self).__name__, arrays)
        return flip(img, self.horizontal) if rng.random() < self.prob else img


class RandomHorizontalFlip(_RandomFlip):
    """`RandomHorizontalFlip(prob=0.5)`: mirrored left to right with probability `prob`."""


class RandomVerticalFlip(_RandomFlip):
    """`RandomVerticalFlip(prob=0.5)`: upside down with probability `prob`."""

    horizontal = False
