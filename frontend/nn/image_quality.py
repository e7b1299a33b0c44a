"""`nn.PSNR` and `nn.SSIM`, MindSpore's image-quality Cells, from mindjit's ops
(so they run in both modes, with gradients):

- PSNR(max_val=1.0)(img1, img2): per image of an (N, C, H, W) batch,
  10 * log10(max_val^2 / mean((img1 - img2)^2)).
- SSIM(max_val=1.0, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03)(img1, img2):
  the structural similarity, local statistics taken with a Gaussian window (a
  'valid' 1-channel Conv2d, its weight a frozen Parameter as in MindSpore) on each
  channel, averaged over the positions, then over the channels.

Integer images are scaled to [0, 1] first (divided by their dtype's maximum), and
`max_val` with them, as MindSpore does. (MindSpore 2.10 runs both only in graph
mode: its PyNative path fails in ScalarCast; mindjit gives the graph's values in both.)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindjit.frontend import dtype as D
from mindjit.frontend import ops
from mindjit.frontend.nn.cell import Cell
from mindjit.frontend.nn.conv import Conv2d
from mindjit.frontend.tensor import Tensor


def _check_max_val(max_val: Any, owner: str) -> None:
    if isinstance(max_val, bool) or not isinstance(max_val, int | float):
        raise TypeError(
            f"For '{owner}', the type of 'max_val' should be 'int', 'float', but got type "
            f"'{type(max_val).__name__}'."
        )
    if not max_val > 0.0:
        raise ValueError(f"For '{owner}', the argument 'max_val' must > 0.0, but got {max_val}.")


def _float_arg(value: Any, name: str, owner: str) -> float:
    if isinstance(value, bool) or not isinstance(value, float):
        raise TypeError(
            f"For '{owner}', the type of '{name}' should be 'float', but got type "
            f"'{type(value).__name__}'."
        )
    return value


def _dtype_max(dtype: Any) -> float:
    """The largest value of an integer dtype; 1.0 for floats (images in [0, 1])."""
    if dtype.is_float or dtype.is_bool:
        return 1.0
    return float(np.iinfo(dtype.numpy).max)


def _check_pair(img1: Any, img2: Any, owner: str) -> None:
    if len(img1.shape) != 4:
        raise ValueError(
            f"For '{owner}', the dimension of 'img1' must be 4d, but got {len(img1.shape)}."
        )
    if len(img2.shape) != 4:
        raise ValueError(
            f"For '{owner}', the dimension of 'img2' must be 4d, but got {len(img2.shape)}."
        )
    if img1.dtype != img2.dtype:
        raise TypeError(
            f"For '{owner}', the 'img1' and 'img2' must have the same dtype, but got "
            f"{img1.dtype} and {img2.dtype}."
        )
    if tuple(img1.shape) != tuple(img2.shape):
        raise ValueError(
            f"For '{owner}', the 'img1' and 'img2' must have the same shape, but got "
            f"{tuple(img1.shape)} and {tuple(img2.shape)}."
        )


def _to_unit_float(img: Any, dtype_max: float) -> Any:
    img = ops.cast(img, D.float32)
    return img * (1.0 / dtype_max) if dtype_max > 1.0 else img


class PSNR(Cell):
    def __init__(self, max_val: float = 1.0):
        super().__init__()
        _check_max_val(max_val, "PSNR")
        self.max_val = max_val

    def construct(self, img1, img2):
        _check_pair(img1, img2, "PSNR")
        dtype_max = _dtype_max(img1.dtype)
        max_val = float(np.float32(self.max_val))
        if dtype_max > 1.0:
            max_val = max_val * (1.0 / dtype_max)
        diff = _to_unit_float(img1, dtype_max) - _to_unit_float(img2, dtype_max)
        mse = ops.reduce_mean(ops.square(diff), (-3, -2, -1))
        return 10.0 * ops.log(max_val * max_val / mse) / float(np.log(10.0))


def _gaussian_window(size: int, sigma: float) -> np.ndarray:
    """MindSpore's (1, 1, size, size) float32 Gaussian window, summing to 1."""
    grid = np.mgrid[-size // 2 + 1 : size // 2 + 1, -size // 2 + 1 : size // 2 + 1]
    x, y = (g.astype(np.float32) ** 2 for g in grid)
    g = np.exp(-(x + y) / (2 * sigma**2))
    return (g / np.sum(g))[None, None].astype(np.float32)


class SSIM(Cell):
    def __init__(
        self,
        max_val: float = 1.0,
        filter_size: int = 11,
        filter_sigma: float = 1.5,
        k1: float = 0.01,
        k2: float = 0.03,
    ):
        super().__init__()
        _check_max_val(max_val, "SSIM")
        self.max_val = max_val
        if isinstance(filter_size, bool) or not isinstance(filter_size, int):
            raise TypeError(
                f"For 'SSIM', the type of 'filter_size' should be 'int', but got type "
                f"'{type(filter_size).__name__}'."
            )
        if filter_size < 1:
            raise ValueError(f"For 'SSIM', the 'filter_size' must be >= 1, but got {filter_size}.")
        self.filter_size = filter_size
        self.filter_sigma = _float_arg(filter_sigma, "filter_sigma", "SSIM")
        if not filter_sigma > 0.0:
            raise ValueError(f"For 'SSIM', the 'filter_sigma' must be > 0, but got {filter_sigma}.")
        self.k1 = _float_arg(k1, "k1", "SSIM")
        self.k2 = _float_arg(k2, "k2", "SSIM")
        window = Tensor(_gaussian_window(filter_size, filter_sigma))
        self.conv = Conv2d(1, 1, filter_size, weight_init=window, pad_mode="valid")
        self.conv.weight.requires_grad = False

    def construct(self, img1, img2):
        if img1.dtype not in (D.float32, D.float16):
            raise TypeError(
                "For 'SSIM', the 'img1' should be one of [mindspore.float32, mindspore.float16], "
                f"but got 'mindspore.{str(img1.dtype).lower()}'."
            )
        if len(img1.shape) != 4:
            raise ValueError(
                f"For 'SSIM', the dimension of 'img1' must be 4d, but got {len(img1.shape)}."
            )
        for axis in (2, 3):
            if img1.shape[axis] < self.filter_size:
                raise ValueError(
                    f"For 'SSIM', the img1 shape[{axis}] should be >= filter_size: "
                    f"{self.filter_size}, but got {img1.shape[axis]}."
                )
        _check_pair(img1, img2, "SSIM")
        c1 = (self.k1 * self.max_val) ** 2
        c2 = (self.k2 * self.max_val) ** 2
        n, c, h, w = img1.shape
        x = ops.reshape(ops.cast(img1, D.float32), (n * c, 1, h, w))
        y = ops.reshape(ops.cast(img2, D.float32), (n * c, 1, h, w))
        mu1, mu2 = self.conv(x), self.conv(y)
        mu1_sq, mu2_sq, mu1_mu2 = mu1 * mu1, mu2 * mu2, mu1 * mu2
        sigma1_sq = self.conv(x * x) - mu1_sq
        sigma2_sq = self.conv(y * y) - mu2_sq
        sigma12 = self.conv(x * y) - mu1_mu2
        a = 2 * mu1_mu2 + c1
        b = mu1_sq + mu2_sq + c1
        v1 = 2 * sigma12 + c2
        v2 = sigma1_sq + sigma2_sq + c2
        ssim = a * v1 / (b * v2)
        per_channel = ops.reduce_mean(ops.reshape(ssim, (n, c, -1)), 2)
        return ops.reduce_mean(per_channel, -1)
