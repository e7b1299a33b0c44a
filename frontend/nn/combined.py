"""DenseBnAct, Conv2dBnAct and TimeDistributed of MindSpore 2.10 (issue 38):

- DenseBnAct(in_channels, out_channels, weight_init='normal', bias_init='zeros',
  has_bias=True, has_bn=False, momentum=0.9, eps=1e-5, activation=None,
  alpha=0.2, after_fake=True): Dense, then BatchNorm1d if has_bn, then the
  activation ('leakyrelu' takes `alpha`). Parameters `dense.*`, `batchnorm.*`.
- Conv2dBnAct(in, out, kernel_size, stride=1, pad_mode='same', padding=0,
  dilation=1, group=1, has_bias=False, weight_init='normal', bias_init='zeros',
  has_bn=False, momentum=0.997, eps=1e-5, activation=None, alpha=0.2,
  after_fake=True): the same around Conv2d and BatchNorm2d.
- TimeDistributed(layer, time_axis, reshape_with_axis=None): `layer` applied to
  every step of `time_axis`; with reshape_with_axis the time axis is merged into
  that one for a single call (MindSpore's transpose / reshape), else the steps
  are unstacked, run one by one and stacked again.
"""

from __future__ import annotations

from typing import Any

from mindjit.frontend import ops
from mindjit.frontend.nn.cell import Cell
from mindjit.frontend.nn.conv import Conv2d
from mindjit.frontend.nn.layers import Dense, LeakyReLU, get_activation
from mindjit.frontend.nn.normalization import BatchNorm1d, BatchNorm2d


def _bool(value: Any, what: str, name: str) -> bool:
    if not isinstance(value, bool):
        raise TypeError(
            f"For '{name}', the '{what}' must be a bool, but got {type(value).__name__}."
        )
    return value


def _activation(activation: Any, alpha: float, name: str) -> Any:
    if activation == "leakyrelu":
        return LeakyReLU(alpha)
    act = get_activation(activation) if isinstance(activation, str) else activation
    if activation is not None and not isinstance(act, Cell | ops.Primitive):
        raise TypeError(
            f"For '{name}', the 'activation' must be str or Cell or Primitive, but got "
            f"{type(activation).__name__}."
        )
    return act


class DenseBnAct(Cell):
    """`nn.DenseBnAct`: Dense -> [BatchNorm1d] -> [activation]."""

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        weight_init: Any = "normal",
        bias_init: Any = "zeros",
        has_bias: bool = True,
        has_bn: bool = False,
        momentum: float = 0.9,
        eps: float = 1e-5,
        activation: Any = None,
        alpha: float = 0.2,
        after_fake: bool = True,
    ):
        super().__init__()
        self.dense = Dense(in_channels, out_channels, weight_init, bias_init, has_bias)
        self.has_bn = _bool(has_bn, "has_bn", "DenseBnAct")
        self.has_act = activation is not None
        self.after_fake = _bool(after_fake, "after_fake", "DenseBnAct")
        if has_bn:
            self.batchnorm = BatchNorm1d(out_channels, eps, momentum)
        self.activation = _activation(activation, alpha, "DenseBnAct")

    def construct(self, x):
        x = self.dense(x)
        if self.has_bn:
            x = self.batchnorm(x)
        if self.has_act:
            x = self.activation(x)
        return x


class Conv2dBnAct(Cell):
    """`nn.Conv2dBnAct`: Conv2d -> [BatchNorm2d] -> [activation]."""

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: Any,
        stride: Any = 1,
        pad_mode: str = "same",
        padding: Any = 0,
        dilation: Any = 1,
        group: int = 1,
        has_bias: bool = False,
        weight_init: Any = "normal",
        bias_init: Any = "zeros",
        has_bn: bool = False,
        momentum: float = 0.997,
        eps: float = 1e-5,
        activation: Any = None,
        alpha: float = 0.2,
        after_fake: bool = True,
    ):
        super().__init__()
        self.conv = Conv2d(
            in_channels,
            out_channels,
            kernel_size=kernel_size,
            stride=stride,
            pad_mode=pad_mode,
            padding=padding,
            dilation=dilation,
            group=group,
            has_bias=has_bias,
            weight_init=weight_init,
            bias_init=bias_init,
        )
        self.has_bn = _bool(has_bn, "has_bn", "Conv2dBnAct")
        self.has_act = activation is not None
        self.after_fake = _bool(after_fake, "after_fake", "Conv2dBnAct")
        if has_bn:
            self.batchnorm = BatchNorm2d(out_channels, eps, momentum)
        self.activation = _activation(activation, alpha, "Conv2dBnAct")

    def construct(self, x):
        x = self.conv(x)
        if self.has_bn:
            x = self.batchnorm(x)
        if self.has_act:
            x = self.activation(x)
        return x


def _check_int(value: Any, what: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(
            f"For 'TimeDistributed', the type of '{what}' must be 'int', but got "
            f"'{type(value).__name__}'."
        )


def _perm(axis_a: int, axis_b: int, length: int) -> tuple[int, ...]:
    perm = tuple(range(length))
    axis_a, axis_b = (axis_a, axis_b) if axis_a < axis_b else (axis_b, axis_a)
    return perm[:axis_a] + (perm[axis_b],) + perm[axis_a:axis_b] + perm[axis_b + 1 :]


class TimeDistributed(Cell):
    """`nn.TimeDistributed(layer, time_axis, reshape_with_axis=None)`."""

    def __init__(self, layer: Any, time_axis: int, reshape_with_axis: int | None = None):
        if not isinstance(layer, Cell | ops.Primitive):
            raise TypeError(
                "For 'TimeDistributed', the 'layer' must be Cell or Primitive instance, but got "
                f"type: {type(layer).__name__}."
            )
        super().__init__()
        _check_int(time_axis, "time_axis")
        if reshape_with_axis is not None:
            _check_int(reshape_with_axis, "reshape_with_axis")
        self.layer = layer
        self.time_axis = time_axis
        self.reshape_with_axis = reshape_with_axis

    def construct(self, inputs):
        rank = len(inputs.shape)
        if rank < 3:
            raise ValueError(
                f"For 'TimeDistributed', the inputs shape must be at least 3D, but got {rank}."
            )
        time_axis = self.time_axis % rank
        if self.reshape_with_axis is None:
            outputs = ()
            for step in ops.unstack(inputs, time_axis):
                outputs += (self.layer(step),)
            return ops.stack(outputs, time_axis)
        with_axis = self.reshape_with_axis % rank
        if with_axis == rank - 1:
            time_new = rank - 2
        elif time_axis > with_axis:
            time_new = with_axis + 1
        else:
            time_new = with_axis - 1
        pos = min(time_new, with_axis)
        inputs = ops.transpose(inputs, _perm(time_new, time_axis, rank))
        shape = tuple(inputs.shape)
        outputs = self.layer(ops.reshape(inputs, shape[:pos] + (-1,) + shape[pos + 2 :]))
        out_shape = tuple(outputs.shape)
        if pos >= len(out_shape):
            raise ValueError(
                "For 'TimeDistributed', the 'reshape_with_axis' is invalid in the input and "
                "output. You may try pass parameters without 'reshape_with_axis'."
            )
        new_shape = out_shape[:pos] + shape[pos : pos + 2]
        if pos + 1 < len(out_shape):
            new_shape = new_shape + out_shape[pos + 1 :]
        return ops.reshape(outputs, (-1,) + new_shape[1:])
