"""The vision transforms that change values or layout: `Rescale`, `Normalize`,
`HWC2CHW`, `ToTensor`, `ToType`, `Grayscale`.

Dtypes are MindSpore's: Rescale and Normalize give float32 whatever the input
(uint8 images from a decoder, float64 from numpy), ToTensor its `output_type`
(float32 by default). Normalize's channels are the last axis (`is_hwc=True`)
or the one before H and W (`is_hwc=False`); an image without channels has one.
Grayscale takes an HWC RGB numpy image where MindSpore takes a PIL image
(mindjit has no PIL) and computes PIL's "L" conversion (ITU-R 601-2 luma,
PIL's integer rounding on uint8).
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from mindjit.frontend.dataset.transforms.base import numpy_dtype, single
from mindjit.frontend.dataset.transforms.checks import FLOAT_MAX_INTEGER, check_value, type_check
from mindjit.frontend.dataset.transforms.tensor_ops import TypeCast
from mindjit.frontend.dataset.vision import checks
from mindjit.frontend.dataset.vision.image import ImageTensorOperation, image


class Rescale(ImageTensorOperation):
    """`Rescale(rescale, shift)`: `image * rescale + shift`, as float32."""

    def __init__(self, rescale: float, shift: float):
        for value, name in ((rescale, "rescale"), (shift, "shift")):
            type_check(value, (numbers.Number,), name)
            type_check(value, (float, int), name)
            check_value(value, -FLOAT_MAX_INTEGER, FLOAT_MAX_INTEGER, name)
        self.rescale, self.shift = rescale, shift

    def compute(self, rng, *arrays):
        x = single("Rescale", arrays)
        return (x.astype(np.float64) * self.rescale + self.shift).astype(np.float32)


class Normalize(ImageTensorOperation):
    """`Normalize(mean, std, is_hwc=True)`: `(image[c] - mean[c]) / std[c]` per
    channel, as float32."""

    def __init__(self, mean: Any, std: Any, is_hwc: bool = True):
        checks.mean_std(mean, std)
        type_check(is_hwc, (bool,), "is_hwc")
        self.mean, self.std, self.is_hwc = list(mean), list(std), is_hwc

    def compute(self, rng, *arrays):
        img = image("Normalize", arrays, batched=True)
        if img.ndim == 2:
            channels, shape = 1, (1, 1)
        elif self.is_hwc:
            channels, shape = img.shape[-1], (img.shape[-1],)
        else:
            channels, shape = img.shape[-3], (img.shape[-3], 1, 1)
        if channels != len(self.mean):
            layout = "HWC" if self.is_hwc else "CHW"
            raise RuntimeError(
                "Normalize: number of channels does not match the size of mean and std vectors, "
                f"got channels: {channels} (image shape {img.shape}, {layout}), size of mean: "
                f"{len(self.mean)}"
            )
        mean = np.array(self.mean, np.float64).reshape(shape)
        std = np.array(self.std, np.float64).reshape(shape)
        return ((img.astype(np.float64) - mean) / std).astype(np.float32)


class HWC2CHW(ImageTensorOperation):
    """`HWC2CHW()`: `<H, W, C>` to `<C, H, W>`; an `<H, W>` image is left as it is."""

    def compute(self, rng, *arrays):
        img = single("HWC2CHW", arrays)
        if img.ndim == 2:
            return img
        if img.ndim != 3:
            raise RuntimeError(
                f"HWC2CHW: image shape is not <H,W,C> or <H,W>, but got rank: {img.ndim} "
                f"(shape {img.shape})"
            )
        return np.ascontiguousarray(img.transpose(2, 0, 1))


class ToTensor(ImageTensorOperation):
    """`ToTensor(output_type=np.float32)`: an `<H, W, C>` (or `<H, W>`) image in
    [0, 255] as `<C, H, W>` in [0.0, 1.0], of `output_type`."""

    def __init__(self, output_type: Any = np.float32):
        self.output_type = numpy_dtype(output_type, "output_type")

    def compute(self, rng, *arrays):
        img = single("ToTensor", arrays)
        if img.ndim not in (2, 3):
            raise TypeError(f"img dimension should be 2 or 3. Got {img.ndim}.")
        if img.ndim == 2:
            img = img[:, :, None]
        out = img.transpose(2, 0, 1).astype(np.float64) / 255.0
        return np.ascontiguousarray(out.astype(self.output_type))


class ToType(TypeCast):
    """`ToType(data_type)`: `TypeCast` under vision's name."""


class Grayscale(ImageTensorOperation):
    """`Grayscale(num_output_channels=1)`: an RGB `<H, W, 3>` image in gray, as
    `<H, W>` (one channel, as a PIL "L" image reads) or `<H, W, 3>` (three
    equal channels)."""

    def __init__(self, num_output_channels: int = 1):
        type_check(num_output_channels, (int,), "num_output_channels")
        if num_output_channels not in (1, 3):
            raise ValueError(
                "Number of channels of the output grayscale image should be either 1 or 3. "
                f"Got {num_output_channels}."
            )
        self.num_output_channels = num_output_channels

    def compute(self, rng, *arrays):
        img = image("Grayscale", arrays)
        if img.ndim == 3 and img.shape[2] == 1:
            img = img[:, :, 0]
        if img.ndim == 3:
            if img.shape[2] != 3:
                raise RuntimeError(
                    f"Grayscale: the image should have 3 channels (RGB), but got shape {img.shape}"
                )
            if img.dtype == np.uint8:  # PIL: L = (19595 R + 38470 G + 7471 B + 2**15) >> 16
                w = np.array([19595, 38470, 7471], np.int64)
                gray = ((img.astype(np.int64) @ w + (1 << 15)) >> 16).astype(np.uint8)
            else:
                gray = (img.astype(np.float64) @ np.array([0.299, 0.587, 0.114])).astype(img.dtype)
        else:
            gray = img
        if self.num_output_channels == 3:
            return np.repeat(gray[:, :, None], 3, axis=2)
        return gray
