"""`nn.GroupNorm` and `nn.InstanceNorm1d/2d/3d` (MindSpore 2.x signatures and
Parameter names): each sample normalized by its own statistics, per channel
group (GroupNorm) or per channel (InstanceNorm), in training and eval mode alike.

InstanceNorm keeps MindSpore's `moving_mean`/`moving_variance` Parameters
(named "mean"/"variance", requires_grad=False) so a checkpoint's names match,
but does not update them: the output never reads them (MindSpore's GPU kernel
updates them in training; mindjit leaves them at their initial values).
`affine=False` freezes gamma and beta (requires_grad=False), as MindSpore does;
they are still applied.
"""

from __future__ import annotations

import numbers
from typing import Any

from mindjit.frontend import dtype as D
from mindjit.frontend.nn.cell import Cell
from mindjit.frontend.nn.init import Initializer, initializer
from mindjit.frontend.nn.rnn_cells import check_bool, check_positive_int
from mindjit.frontend.ops.group_norm import affine, group_norm, normalize_groups
from mindjit.frontend.tensor import Parameter, Tensor

_FLOATS = (D.float16, D.float32, D.float64)


def _check_float(value: Any, name: str, cls: str) -> float:
    if not isinstance(value, float):
        raise TypeError(
            f"For '{cls}', the '{name}' must be a float, but got {type(value).__name__}."
        )
    return value


def _check_input(x: Any, cls: str) -> None:
    if x.dtype not in _FLOATS:
        raise TypeError(
            f"For '{cls}', the dtype of 'x' must be float16 or float32, but got {x.dtype}."
        )


class GroupNorm(Cell):
    """`nn.GroupNorm(num_groups, num_channels, eps=1e-05, affine=True, gamma_init='ones',
    beta_init='zeros', dtype=mstype.float32)`: x (N, C, *)."""

    def __init__(
        self,
        num_groups: int,
        num_channels: int,
        eps: float = 1e-05,
        affine: bool = True,
        gamma_init: Any = "ones",
        beta_init: Any = "zeros",
        dtype: Any = D.float32,
    ):
        super().__init__()
        cls = "GroupNorm"
        self.num_groups = check_positive_int(num_groups, "num_groups", cls)
        self.num_channels = check_positive_int(num_channels, "num_channels", cls)
        if num_channels % num_groups != 0:
            raise ValueError(
                f"For '{cls}', the 'num_channels' must be divided by 'num_groups', but got "
                f"'num_channels': {num_channels}, 'num_groups': {num_groups}."
            )
        self.eps = _check_float(eps, "eps", cls)
        self.affine = check_bool(affine, "affine", cls)
        shape = (self.num_channels,)
        self.gamma = Parameter(
            initializer(gamma_init, shape, dtype), name="gamma", requires_grad=self.affine
        )
        self.beta = Parameter(
            initializer(beta_init, shape, dtype), name="beta", requires_grad=self.affine
        )

    def construct(self, x):
        return self._forward(x)

    def _forward(self, x: Any) -> Any:
        _check_input(x, self.cls_name)
        if len(x.shape) < 2 or x.shape[1] != self.num_channels:
            raise ValueError(
                f"For '{self.cls_name}', the channel(the second dim of the input 'x') must be "
                f"equal to num_channels, but got input shape {x.shape}, num_channels: "
                f"{self.num_channels}."
            )
        return group_norm(x, self.num_groups, self.gamma, self.beta, self.eps)

    def extend_repr(self) -> str:
        return f"num_groups={self.num_groups}, num_channels={self.num_channels}"


class _InstanceNorm(Cell):
    _rank = 4

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float = 0.1,
        affine: bool = True,
        gamma_init: Any = "ones",
        beta_init: Any = "zeros",
        dtype: Any = D.float32,
    ):
        super().__init__()
        cls = type(self).__name__
        if isinstance(num_features, bool) or not isinstance(num_features, int):
            raise TypeError(
                f"For '{cls}', the 'num_features' must be an int, but got "
                f"{type(num_features).__name__}."
            )
        self.eps = _check_float(eps, "eps", cls)
        self.momentum = _check_float(momentum, "momentum", cls)
        self.affine = check_bool(affine, "affine", cls)
        for key, val in (("gamma_init", gamma_init), ("beta_init", beta_init)):
            if isinstance(val, bool) or not isinstance(
                val, Tensor | numbers.Number | str | Initializer
            ):
                raise TypeError(
                    f"For '{cls}', the type of '{key}' must be in [Tensor, numbers.Number, str, "
                    f"Initializer], but got type {type(val).__name__}."
                )
        if num_features < 1:
            raise ValueError(
                f"For '{cls}', the 'num_features' must be at least 1, but got {num_features}."
            )
        if not 0 <= momentum <= 1:
            raise ValueError(
                f"For '{cls}', the 'momentum' must be a number in range [0, 1], but got {momentum}."
            )
        self.num_features = num_features
        shape = (num_features,)
        self.moving_mean = Parameter(
            initializer("zeros", shape, dtype), name="mean", requires_grad=False
        )
        self.moving_variance = Parameter(
            initializer("ones", shape, dtype), name="variance", requires_grad=False
        )
        self.gamma = Parameter(
            initializer(gamma_init, shape, dtype), name="gamma", requires_grad=self.affine
        )
        self.beta = Parameter(
            initializer(beta_init, shape, dtype), name="beta", requires_grad=self.affine
        )

    def construct(self, x):
        return self._forward(x)

    def _forward(self, x: Any) -> Any:
        cls = self.cls_name
        if len(x.shape) != self._rank:
            raise ValueError(
                f"For '{cls}', the in_shape must have {self._rank} dims, but got {len(x.shape)}."
            )
        _check_input(x, cls)
        if x.shape[1] != self.num_features:
            raise ValueError(
                f"For '{cls}', the input has {x.shape[1]} channels (axis 1) but num_features "
                f"is {self.num_features}."
            )
        y = normalize_groups(x, self.num_features, self.eps)
        return affine(y, self.gamma, self.beta)

    def extend_repr(self) -> str:
        return f"num_features={self.num_features}, eps={self.eps}, momentum={self.momentum}"


class InstanceNorm1d(_InstanceNorm):
    """`nn.InstanceNorm1d(num_features, eps=1e-5, momentum=0.1, affine=True,
    gamma_init='ones', beta_init='zeros', dtype=mstype.float32)`: x (N, C, L)."""

    _rank = 3


class InstanceNorm2d(_InstanceNorm):
    """`nn.InstanceNorm2d(num_features, eps=1e-5, momentum=0.1, affine=True,
    gamma_init='ones', beta_init='zeros', dtype=mstype.float32)`: x (N, C, H, W)."""

    _rank = 4


class InstanceNorm3d(_InstanceNorm):
    """`nn.InstanceNorm3d(...)`: x (N, C, D, H, W)."""

    _rank = 5


__all__ = ["GroupNorm", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"]
