"""`nn.MaxPool2d` and `nn.AvgPool2d` with MindSpore 2.x's signatures and defaults.

As in MindSpore, `stride` defaults to 1 (not the kernel size), `pad_mode`
is case-insensitive, and `padding`, `dilation`, `ceil_mode` (and, for the
average, `count_include_pad=False` and `divisor_override`) need pad_mode "pad"
for max pooling. "same" average pooling divides by the elements inside the
input (MindSpore's CPU kernel), "pad" by the window with its padding unless
`count_include_pad=False`.
"""

from __future__ import annotations

from typing import Any

from mindjit.frontend.nn.cell import Cell
from mindjit.frontend.ops.conv import avg_pool2d, pair, pool2d, resolve_pads, symmetric_pads
from mindjit.frontend.ops.pool_argmax import max_pool2d_with_indices


def _mode(pad_mode: Any, name: str) -> str:
    if not isinstance(pad_mode, str):
        raise TypeError(f"For '{name}', 'pad_mode' must be a str, got {pad_mode!r}")
    mode = pad_mode.lower()
    if mode not in ("same", "valid", "pad"):
        raise ValueError(
            f"For '{name}', 'pad_mode' must be 'VALID', 'SAME' or 'PAD', got '{pad_mode}'"
        )
    return mode


class _Pool2d(Cell):
    NAME = ""

    def _common(self, kernel_size, stride, pad_mode, data_format):
        if data_format != "NCHW":
            raise ValueError(f"For '{self.NAME}', only data_format 'NCHW' is supported")
        self.kernel_size = pair(kernel_size, self.NAME, "kernel_size")
        self.stride = pair(stride, self.NAME, "stride")
        self.pad_mode = _mode(pad_mode, self.NAME)

    def _pads(self, x) -> tuple[int, int, int, int]:
        if self.pad_mode == "pad":
            return self.padding
        return resolve_pads(
            self.NAME, self.pad_mode, 0, x.shape[2:], self.kernel_size, self.stride, self.dilation
        )


class MaxPool2d(_Pool2d):
    NAME = "MaxPool2d"

    def __init__(
        self,
        kernel_size: Any = 1,
        stride: Any = 1,
        pad_mode: str = "valid",
        padding: Any = 0,
        dilation: Any = 1,
        return_indices: bool = False,
        ceil_mode: bool = False,
        data_format: str = "NCHW",
    ):
        super().__init__()
        self._common(kernel_size, stride, pad_mode, data_format)
        if self.pad_mode != "pad" and (
            padding != 0 or dilation != 1 or return_indices or ceil_mode
        ):
            raise ValueError(
                f"For '{self.NAME}', 'padding', 'dilation', 'return_indices' and 'ceil_mode' "
                f"can only be set with pad_mode 'pad', got pad_mode '{pad_mode}'"
            )
        self.padding = symmetric_pads(padding, self.NAME)
        self.dilation = pair(dilation, self.NAME, "dilation")
        self.ceil_mode = bool(ceil_mode)
        self.return_indices = bool(return_indices)

    def construct(self, x):
        if self.return_indices:  # (the maximum, its int64 index into H * W)
            return max_pool2d_with_indices(
                x,
                self.kernel_size,
                self.stride,
                self._pads(x),
                self.dilation,
                self.ceil_mode,
                self.NAME,
            )
        return pool2d(
            "max",
            x,
            self.kernel_size,
            self.stride,
            self._pads(x),
            self.dilation,
            self.ceil_mode,
            name=self.NAME,
        )


class AvgPool2d(_Pool2d):
    NAME = "AvgPool2d"

    def __init__(
        self,
        kernel_size: Any = 1,
        stride: Any = 1,
        pad_mode: str = "valid",
        padding: Any = 0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
        divisor_override: Any = None,
        data_format: str = "NCHW",
    ):
        super().__init__()
        self._common(kernel_size, stride, pad_mode, data_format)
        self.dilation = (1, 1)
        self.padding = symmetric_pads(padding, self.NAME)
        self.ceil_mode = bool(ceil_mode)
        self.count_include_pad = bool(count_include_pad)
        if divisor_override is not None and (
            isinstance(divisor_override, bool)
            or not isinstance(divisor_override, int)
            or divisor_override <= 0
        ):
            raise ValueError(
                f"For '{self.NAME}', 'divisor_override' must be a positive int, got "
                f"{divisor_override!r}"
            )
        self.divisor_override = divisor_override or 0

    def construct(self, x):
        pads = self._pads(x)
        # "same" never counts its padding (MindSpore's CPU AvgPool)
        include = self.count_include_pad and self.pad_mode == "pad"
        if self.divisor_override:
            return avg_pool2d(
                x,
                self.kernel_size,
                self.stride,
                pads,
                self.ceil_mode,
                include,
                self.divisor_override,
            )
        return pool2d(
            "avg",
            x,
            self.kernel_size,
            self.stride,
            pads,
            (1, 1),
            self.ceil_mode,
            include,
            self.NAME,
        )
