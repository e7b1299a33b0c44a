"""`nn.MaxPool1d` and `nn.AvgPool1d` (MindSpore 2.x signatures): the 2-D pooling
ops over (N, C, 1, L) with a (1, k) window, so every stage (grad, vmap, device)
is the 2-D one's. Inputs (N, C, L) or (C, L)."""

from __future__ import annotations

from typing import Any

from mindjit.frontend import ops
from mindjit.frontend.nn.cell import Cell
from mindjit.frontend.nn.pooling import _mode
from mindjit.frontend.ops.conv import pool2d, resolve_pads
from mindjit.frontend.ops.pool_argmax import max_pool2d_with_indices


def _one(value: Any, name: str, what: str, minimum: int = 1) -> int:
    """An int, or a tuple/list of one int."""
    v = value[0] if isinstance(value, tuple | list) and len(value) == 1 else value
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError(f"For '{name}', the '{what}' must be an int, but got {value!r}.")
    if v < minimum:
        raise ValueError(
            f"For '{name}', the '{what}' must be at least {minimum}, but got {value!r}."
        )
    return v


class _Pool1d(Cell):
    NAME = ""

    def _common(self, kernel_size: Any, stride: Any, pad_mode: Any, padding: Any) -> None:
        self.kernel_size = _one(kernel_size, self.NAME, "kernel_size")
        self.stride = _one(stride, self.NAME, "stride")
        self.pad_mode = _mode(pad_mode, self.NAME)
        self.padding = _one(padding, self.NAME, "padding", 0)
        if self.pad_mode != "pad" and self.padding != 0:
            raise ValueError(
                f"For '{self.NAME}', the 'padding' must be 0 when 'pad_mode' is not 'pad', "
                f"but got padding {padding!r} and pad_mode '{pad_mode}'."
            )

    def _as_2d(self, x: Any) -> tuple[Any, bool]:
        if len(x.shape) not in (2, 3):
            raise ValueError(
                f"For '{self.NAME}', the input must be (N, C, L) or (C, L), but got shape {x.shape}."
            )
        batched = len(x.shape) == 3
        x = x if batched else ops.expand_dims(x, 0)
        return ops.expand_dims(x, 2), batched

    def _pads(self, x4: Any) -> tuple[int, int, int, int]:
        if self.pad_mode == "pad":
            return (0, 0, self.padding, self.padding)
        k, s, d = (1, self.kernel_size), (1, self.stride), (1, self.dilation)
        return resolve_pads(self.NAME, self.pad_mode, 0, x4.shape[2:], k, s, d)

    @staticmethod
    def _back(y: Any, batched: bool) -> Any:
        y = ops.squeeze(y, 2)
        return y if batched else ops.squeeze(y, 0)


class MaxPool1d(_Pool1d):
    """`nn.MaxPool1d(kernel_size=1, stride=1, pad_mode='valid', padding=0, dilation=1,
    return_indices=False, ceil_mode=False)`; with return_indices, (output, int64
    index along L)."""

    NAME = "MaxPool1d"

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
        self.dilation = _one(dilation, self.NAME, "dilation")
        if self.pad_mode != "pad" and (self.dilation != 1 or return_indices or ceil_mode):
            raise ValueError(
                f"For '{self.NAME}', 'dilation', 'return_indices' and 'ceil_mode' can only be "
                f"set with pad_mode 'pad', got pad_mode '{pad_mode}'."
            )
        if self.padding * 2 > self.kernel_size:
            raise ValueError(
                f"For '{self.NAME}', the 'padding' must be at most half the kernel_size, "
                f"but got padding {self.padding} and kernel_size {self.kernel_size}."
            )
        self.return_indices = bool(return_indices)
        self.ceil_mode = bool(ceil_mode)

    def construct(self, x):
        return self._forward(x)

    def _forward(self, x: Any) -> Any:
        x4, batched = self._as_2d(x)
        k, s, d = (1, self.kernel_size), (1, self.stride), (1, self.dilation)
        pads = self._pads(x4)
        if self.return_indices:
            out, index = max_pool2d_with_indices(x4, k, s, pads, d, self.ceil_mode, self.NAME)
            return self._back(out, batched), self._back(index, batched)
        out = pool2d("max", x4, k, s, pads, d, self.ceil_mode, name=self.NAME)
        return self._back(out, batched)


class AvgPool1d(_Pool1d):
    """`nn.AvgPool1d(kernel_size=1, stride=1, pad_mode='valid', padding=0,
    ceil_mode=False, count_include_pad=True)`."""

    NAME = "AvgPool1d"

    def __init__(
        self,
        kernel_size: Any = 1,
        stride: Any = 1,
        pad_mode: str = "valid",
        padding: Any = 0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
    ):
        super().__init__()
        self._common(kernel_size, stride, pad_mode, padding)
        self.dilation = 1
        self.ceil_mode = bool(ceil_mode)
        self.count_include_pad = bool(count_include_pad)

    def construct(self, x):
        return self._forward(x)

    def _forward(self, x: Any) -> Any:
        x4, batched = self._as_2d(x)
        # "same" never counts its padding (MindSpore's CPU AvgPool, as AvgPool2d)
        include = self.count_include_pad and self.pad_mode == "pad"
        out = pool2d(
            "avg",
            x4,
            (1, self.kernel_size),
            (1, self.stride),
            self._pads(x4),
            (1, 1),
            self.ceil_mode,
            include,
            self.NAME,
        )
        return self._back(out, batched)


__all__ = ["AvgPool1d", "MaxPool1d"]
