"""`nn.PixelShuffle(upscale_factor)` and `nn.PixelUnshuffle(downscale_factor)`
(MindSpore 2.x): the Cells of `ops.pixel_shuffle` / `ops.pixel_unshuffle`."""

from __future__ import annotations

from mindjit.frontend.nn.cell import Cell
from mindjit.frontend.ops.pixel_shuffle import _factor, pixel_shuffle, pixel_unshuffle


class PixelShuffle(Cell):
    """(*, C * r^2, H, W) -> (*, C, H * r, W * r)."""

    def __init__(self, upscale_factor: int):
        super().__init__()
        self.upscale_factor = _factor(upscale_factor, "upscale_factor", "PixelShuffle")

    def construct(self, input):
        return pixel_shuffle(input, self.upscale_factor)

    def extend_repr(self) -> str:
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Cell):
    """(*, C, H * r, W * r) -> (*, C * r^2, H, W)."""

    def __init__(self, downscale_factor: int):
        super().__init__()
        self.downscale_factor = _factor(downscale_factor, "downscale_factor", "PixelUnshuffle")

    def construct(self, input):
        return pixel_unshuffle(input, self.downscale_factor)

    def extend_repr(self) -> str:
        return f"downscale_factor={self.downscale_factor}"


__all__ = ["PixelShuffle", "PixelUnshuffle"]
