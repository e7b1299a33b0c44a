"""`nn.Upsample`: the Cell around `ops.interpolate` (frontend/ops/interpolate.py), and
MindSpore's deprecated `nn.ResizeBilinear`, around `ops.ResizeBilinear` (ops/resize.py)."""

from __future__ import annotations

from typing import Any

from mindjit.frontend import ops
from mindjit.frontend.nn.cell import Cell


class Upsample(Cell):
    """`nn.Upsample(size=None, scale_factor=None, mode='nearest', align_corners=None,
    recompute_scale_factor=None)`."""

    def __init__(
        self,
        size: Any = None,
        scale_factor: Any = None,
        mode: str = "nearest",
        align_corners: bool | None = None,
        recompute_scale_factor: bool | None = None,
    ):
        super().__init__()
        self.size = size
        self.scale_factor = scale_factor
        self.mode = mode
        self.align_corners = align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def construct(self, x):
        return ops.interpolate(
            x,
            self.size,
            self.scale_factor,
            self.mode,
            self.align_corners,
            self.recompute_scale_factor,
        )


class ResizeBilinear(Cell):
    """`nn.ResizeBilinear(half_pixel_centers=False)(x, size=None, scale_factor=None,
    align_corners=False)`: MindSpore's deprecated bilinear resize of (N, C, H, W)
    float16/float32 images, the primitive `ops.ResizeBilinear`'s mapping
    (frontend/ops/resize.py; not ops.interpolate's): exactly one of `size` (new
    height, width) and `scale_factor` (a positive int: H * s, W * s) is given."""

    def __init__(self, half_pixel_centers: bool = False):
        super().__init__()
        if not isinstance(half_pixel_centers, bool):
            raise TypeError(
                "For 'ResizeBilinear', the type of 'half_pixel_centers' must be bool, but got "
                f"{type(half_pixel_centers).__name__}."
            )
        self.half_pixel_centers = half_pixel_centers

    def construct(self, x, size=None, scale_factor=None, align_corners=False):
        shape = _bilinear_size(x.shape, size, scale_factor, align_corners)
        resize = ops.ResizeBilinear(shape, align_corners, self.half_pixel_centers)
        return resize(x)


def _bilinear_size(shape: Any, size: Any, scale: Any, align_corners: Any) -> tuple[int, int]:
    """MindSpore's checks of nn.ResizeBilinear's arguments, and the output size."""
    prefix = "For 'ResizeBilinear', the"
    if not isinstance(align_corners, bool):
        raise TypeError(
            f"{prefix} type of 'align_corners' must be boolean, but got "
            f"{type(align_corners).__name__}."
        )
    if size is None and scale is None:
        raise ValueError(f"{prefix} 'size' and 'scale' both none.")
    if size is not None and scale is not None:
        raise ValueError(f"{prefix} 'size' and 'scale' both not none.")
    if size is not None:
        if not isinstance(size, tuple | list):
            raise ValueError(
                f"{prefix} 'size' must be tuple or list or None, but got {type(size).__name__}."
            )
        return tuple(size)
    if isinstance(scale, bool) or not isinstance(scale, int):
        raise TypeError(f"{prefix} 'scale_factor' must be an int, but got {type(scale).__name__}.")
    if scale < 1:
        raise ValueError(f"{prefix} 'scale_factor' must be >= 1, but got {scale}.")
    return (scale * shape[2], scale * shape[3])
