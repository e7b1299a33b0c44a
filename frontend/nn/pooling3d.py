"""`nn.MaxPool3d`, `nn.AvgPool3d` (MindSpore 2.x signatures), NCDHW or CDHW, and
`nn.AdaptiveAvgPool3d` / `nn.AdaptiveMaxPool3d` (frontend/ops/adaptive_pool3d.py).

The Cells check their arguments when built and resolve `pad_mode` to six
explicit pads when called; the pooling is frontend/ops/pool3d.py's (two 2-d
pools). Unlike the 2-d Cells, MindSpore's AvgPool3D counts "same" padding
unless `count_include_pad=False`; `divisor_override` divides each window's sum.
MaxPool3d's `dilation` and `return_indices` need pad_mode "pad", as MindSpore's.
"""

from __future__ import annotations

from typing import Any

from mindjit.frontend import ops
from mindjit.frontend.nn.cell import Cell
from mindjit.frontend.nn.pooling import _mode
from mindjit.frontend.ops.adaptive_pool3d import (
    adaptive_avg_pool3d,
    adaptive_max_pool3d,
    output_dhw,
)
from mindjit.frontend.ops.conv import same_pads
from mindjit.frontend.ops.conv3d import triple
from mindjit.frontend.ops.pool3d import avg_pool3d_padded, max_pool3d_padded


def _stride(stride: Any, name: str) -> tuple[int, int, int]:
    if not isinstance(stride, int | tuple | list) or isinstance(stride, bool):
        raise TypeError(
            f"For '{name}', the type of 'stride' should be one of '['int', 'tuple']', but got "
            f"type '{type(stride).__name__}'."
        )
    return triple(tuple(stride) * 3 if isinstance(stride, tuple | list) and len(stride) == 1
                  else stride, name, "stride")  # fmt: skip


def _sym(padding: Any, name: str) -> tuple[int, ...]:
    """An int or 1 or 3 ints: (head, tail, top, bottom, left, right)."""
    if isinstance(padding, tuple | list) and len(padding) == 1:
        padding = padding[0]
    p = triple(padding, name, "padding", 0)
    return tuple(v for v in p for _ in range(2))


class _Pool3d(Cell):
    NAME = ""

    def _common(self, kernel_size: Any, stride: Any, pad_mode: Any, padding: Any) -> None:
        name = self.NAME
        if isinstance(kernel_size, tuple | list) and len(kernel_size) == 1:
            kernel_size = kernel_size[0]
        self.kernel_size = triple(kernel_size, name, "kernel_size")
        self.stride = _stride(stride, name)
        self.pad_mode = _mode(pad_mode, name)
        self.padding = _sym(padding, name)
        if self.pad_mode != "pad" and any(self.padding):
            raise ValueError(
                f"For '{name}', the 'pad' must be zero or (0, 0, 0, 0, 0, 0) when 'pad_mode' is "
                f"not \"PAD\", but got 'pad' is {self.padding} and 'pad_mode' is {self.pad_mode}."
            )

    def _pads(self, x: Any) -> tuple[int, ...]:
        if self.pad_mode != "same":
            return self.padding
        return tuple(
            p
            for a in range(3)
            for p in same_pads(
                x.shape[2 + a], self.kernel_size[a], self.stride[a], self.dilation[a]
            )
        )

    def _forward(self, x: Any, pool: Any) -> Any:
        if len(x.shape) not in (4, 5):
            raise ValueError(
                f"For '{self.NAME}', the input must be (N, C, D, H, W) or (C, D, H, W), but got "
                f"shape {tuple(x.shape)}."
            )
        if not x.dtype.is_float:
            raise TypeError(f"For '{self.NAME}', the input must be a float tensor, got {x.dtype}")
        batched = len(x.shape) == 5
        out = pool(x if batched else ops.expand_dims(x, 0))
        if batched:
            return out
        if isinstance(out, tuple):
            return tuple(ops.squeeze(o, 0) for o in out)
        return ops.squeeze(out, 0)


class MaxPool3d(_Pool3d):
    """`nn.MaxPool3d(kernel_size=1, stride=1, pad_mode='valid', padding=0, dilation=1,
    return_indices=False, ceil_mode=False)`; with return_indices (output, int64 index
    into D * H * W)."""

    NAME = "MaxPool3d"

    def __init__(
        self,
        kernel_size: Any = 1,
        stride: Any = 1,
        pad_mode: str = "valid",
        padding: Any = 0,
        dilation: Any = 1,
        return_indices: bool = False,
        ceil_mode: bool = False,
    ):
        super().__init__()
        self._common(kernel_size, stride, pad_mode, padding)
        self.dilation = triple(dilation, self.NAME, "dilation")
        self.return_indices = bool(return_indices)
        self.ceil_mode = bool(ceil_mode)
        if self.pad_mode != "pad" and (self.dilation != (1, 1, 1) or self.return_indices):
            raise ValueError(
                f"For {self.NAME}, the pad_mode must be 'pad' when dilation is not 1 or "
                f"return_indices is True, but got pad_mode:{self.pad_mode}."
            )

    def construct(self, x):
        return self._forward(
            x,
            lambda x5: max_pool3d_padded(
                x5,
                self.kernel_size,
                self.stride,
                self._pads(x5),
                self.dilation,
                self.ceil_mode,
                self.return_indices,
                self.NAME,
            ),
        )


class AvgPool3d(_Pool3d):
    """`nn.AvgPool3d(kernel_size=1, stride=1, pad_mode='valid', padding=0, ceil_mode=False,
    count_include_pad=True, divisor_override=None)`."""

    NAME = "AvgPool3d"

    def __init__(
        self,
        kernel_size: Any = 1,
        stride: Any = 1,
        pad_mode: str = "valid",
        padding: Any = 0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
        divisor_override: Any = None,
    ):
        super().__init__()
        self._common(kernel_size, stride, pad_mode, padding)
        self.dilation = (1, 1, 1)
        self.ceil_mode = bool(ceil_mode)
        self.count_include_pad = bool(count_include_pad)
        if divisor_override is not None and (
            isinstance(divisor_override, bool)
            or not isinstance(divisor_override, int)
            or divisor_override < 0
        ):
            raise ValueError(
                f"For '{self.NAME}', 'divisor_override' must be a non-negative int, got "
                f"{divisor_override!r}"
            )
        self.divisor_override = divisor_override or 0

    def _pool(self, x: Any) -> Any:
        return avg_pool3d_padded(
            x, self.kernel_size, self.stride, self._pads(x), self.ceil_mode,
            self.count_include_pad, self.divisor_override, self.NAME,
        )  # fmt: skip

    def construct(self, x):
        return self._forward(x, self._pool)


class AdaptiveAvgPool3d(Cell):
    """`nn.AdaptiveAvgPool3d(output_size)`: ops.adaptive_avg_pool3d."""

    def __init__(self, output_size: Any):
        super().__init__()
        output_dhw(output_size, (1, 1, 1), "AdaptiveAvgPool3D", True)
        self.output_size = output_size

    def construct(self, input):
        return adaptive_avg_pool3d(input, self.output_size)

    def extend_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveMaxPool3d(Cell):
    """`nn.AdaptiveMaxPool3d(output_size, return_indices=False)`: ops.adaptive_max_pool3d."""

    def __init__(self, output_size: Any, return_indices: bool = False):
        super().__init__()
        output_dhw(output_size, (1, 1, 1), "AdaptiveMaxPool3D", False)
        self.output_size = output_size
        self.return_indices = bool(return_indices)

    def construct(self, input):
        return adaptive_max_pool3d(input, self.output_size, self.return_indices)

    def extend_repr(self) -> str:
        return f"output_size={self.output_size}, return_indices={self.return_indices}"
