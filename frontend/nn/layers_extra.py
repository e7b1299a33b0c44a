"""Layers of MindSpore 2.10 built on mindjit's 2-D ones, as MindSpore builds them:

- Conv1dTranspose(in, out, kernel_size, stride=1, pad_mode='same', padding=0,
  dilation=1, group=1, has_bias=False, weight_init=None, bias_init=None): a
  Conv2dTranspose with a (1, k) kernel over an (N, C, 1, W) view; weight
  (in_channels, out_channels / group, 1, k).
- BatchNorm3d(num_features, ...): BatchNorm2d over (N, C, D * H, W) (moving
  statistics in `bn2d`, as MindSpore names them: `bn2d.moving_mean`).
- AdaptiveAvgPool1d / AdaptiveMaxPool1d(output_size): ops.adaptive_avg_pool1d /
  adaptive_max_pool1d (frontend/ops/adaptive_pool3d.py): W must be a multiple of
  output_size (a ValueError otherwise, as in MindSpore).
"""

from __future__ import annotations

from typing import Any

from mindjit.frontend import dtype as D
from mindjit.frontend import ops
from mindjit.frontend.nn.cell import Cell
from mindjit.frontend.nn.conv_variants import Conv2dTranspose
from mindjit.frontend.nn.normalization import BatchNorm2d
from mindjit.frontend.ops.adaptive_pool3d import adaptive_pool1d
from mindjit.frontend.ops.promotion import is_tensor


def _int(value: Any, what: str, name: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(
            f"For '{name}', the type of '{what}' should be 'int', but got type "
            f"'{type(value).__name__}'."
        )
    if value < minimum:
        raise ValueError(f"For '{name}', the '{what}' must be >= {minimum}, but got {value}.")
    return value


class Conv1dTranspose(Conv2dTranspose):
    NAME = "Conv1dTranspose"

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: int,
        stride: int = 1,
        pad_mode: str = "same",
        padding: int = 0,
        dilation: int = 1,
        group: int = 1,
        has_bias: bool = False,
        weight_init: Any = None,
        bias_init: Any = None,
        dtype: Any = D.float32,
    ):
        name = self.NAME
        _int(kernel_size, "kernel_size", name, 1)
        _int(stride, "stride", name, 1)
        _int(padding, "padding", name, 0)
        _int(dilation, "dilation", name, 1)
        if is_tensor(weight_init):
            if len(weight_init.shape) != 3:
                raise ValueError(
                    f"For '{name}', the 'weight_init_shape' must be 3-D, but got "
                    f"{tuple(weight_init.shape)}."
                )
            weight_init = ops.expand_dims(weight_init, 2)
        super().__init__(
            in_channels,
            out_channels,
            (1, kernel_size),
            (1, stride),
            pad_mode,
            (0, 0, padding, padding),
            0,
            (1, dilation),
            group,
            has_bias,
            weight_init,
            bias_init,
            dtype=dtype,
        )

    def construct(self, x):
        if len(x.shape) != 3:
            raise ValueError(
                f"For '{self.NAME}', the input must be 3-D (N, C, W), got shape {tuple(x.shape)}"
            )
        return ops.squeeze(super().construct(ops.expand_dims(x, 2)), 2)


class BatchNorm3d(Cell):
    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float = 0.9,
        affine: bool = True,
        gamma_init: Any = "ones",
        beta_init: Any = "zeros",
        moving_mean_init: Any = "zeros",
        moving_var_init: Any = "ones",
        use_batch_statistics: bool | None = None,
        dtype: Any = D.float32,
    ):
        super().__init__()
        self.bn2d = BatchNorm2d(
            num_features,
            eps,
            momentum,
            affine,
            gamma_init,
            beta_init,
            moving_mean_init,
            moving_var_init,
            use_batch_statistics,
            "NCHW",
            dtype,
        )

    def construct(self, x):
        shape = tuple(x.shape)
        if len(shape) != 5:
            raise ValueError(
                f"For '{self.cls_name}', the in_shape must have 5 dims, but got {len(shape)}."
            )
        y = self.bn2d(ops.reshape(x, (shape[0], shape[1], shape[2] * shape[3], shape[4])))
        return ops.reshape(y, shape)


class _AdaptivePool1d(Cell):
    KIND = ""

    def __init__(self, output_size: int):
        super().__init__()
        self.output_size = _int(output_size, "output_size", self.cls_name, 1)

    def construct(self, x):
        name = self.cls_name
        if len(x.shape) != 3:
            raise ValueError(f"For {name}, the input must has 3 dim, but got {len(x.shape)}.")
        return adaptive_pool1d(self.KIND, x, self.output_size, name)

    def extend_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_AdaptivePool1d):
    KIND = "avg"


class AdaptiveMaxPool1d(_AdaptivePool1d):
    KIND = "max"


__all__ = [
    "AdaptiveAvgPool1d",
    "AdaptiveMaxPool1d",
    "BatchNorm3d",
    "Conv1dTranspose",
]
