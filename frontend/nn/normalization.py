"""Normalization layers with MindSpore's signatures and Parameter names: `nn.LayerNorm`
(gamma, beta) and `nn.BatchNorm1d`/`BatchNorm2d` (gamma, beta, moving_mean, moving_variance)."""

from __future__ import annotations

from typing import Any

from mindjit.frontend import dtype as D
from mindjit.frontend import ops
from mindjit.frontend.nn.cell import Cell
from mindjit.frontend.nn.init import initializer
from mindjit.frontend.tensor import Parameter


class LayerNorm(Cell):
    """Normalize the axes from `begin_norm_axis` on; scale by gamma and shift by beta.

    gamma and beta have shape `normalized_shape` and broadcast over the
    trailing axes, as in MindSpore (begin_params_axis must name the same axes).
    """

    def __init__(
        self,
        normalized_shape: Any,
        begin_norm_axis: int = -1,
        begin_params_axis: int = -1,
        gamma_init: Any = "ones",
        beta_init: Any = "zeros",
        epsilon: float = 1e-7,
        dtype: Any = D.float32,
    ):
        super().__init__()
        if not isinstance(normalized_shape, tuple | list) or not all(
            isinstance(d, int) and d > 0 for d in normalized_shape
        ):
            raise TypeError(
                "For 'LayerNorm', 'normalized_shape' must be a tuple or list of positive ints, "
                f"got {normalized_shape!r}"
            )
        if begin_norm_axis != begin_params_axis:
            raise ValueError(
                "For 'LayerNorm', mindjit needs begin_params_axis == begin_norm_axis, got "
                f"{begin_params_axis} and {begin_norm_axis}"
            )
        self.normalized_shape = tuple(normalized_shape)
        self.begin_norm_axis = int(begin_norm_axis)
        self.begin_params_axis = int(begin_params_axis)
        self.epsilon = float(epsilon)
        self.gamma = Parameter(initializer(gamma_init, self.normalized_shape, dtype), name="gamma")
        self.beta = Parameter(initializer(beta_init, self.normalized_shape, dtype), name="beta")

    def construct(self, input_x):
        rank = len(input_x.shape)
        begin = self.begin_norm_axis % rank
        if rank - begin != len(self.normalized_shape):
            raise ValueError(
                f"For 'LayerNorm', input of rank {rank} normalized from axis "
                f"{self.begin_norm_axis} does not match normalized_shape {self.normalized_shape}"
            )
        axes = tuple(range(begin, rank))
        return ops.layer_norm(input_x, axes, self.gamma, self.beta, self.epsilon)

    def extend_repr(self) -> str:
        return (
            f"normalized_shape={self.normalized_shape}, begin_norm_axis={self.begin_norm_axis}, "
            f"begin_params_axis={self.begin_params_axis}"
        )


class _BatchNorm(Cell):
    """MindSpore's `_BatchNorm`: gamma/beta (trainable) and moving_mean/
    moving_variance (Parameters with requires_grad=False) of shape (num_features,).

    Which statistics normalize follows `use_batch_statistics`: None means the
    batch's in training mode and the moving ones in eval mode; True always the
    batch's; False always the moving ones. Whenever the batch's are used the
    moving ones become `momentum * moving + (1 - momentum) * batch`. `training`
    is a Python attribute, so graph mode folds the branch at compile time and
    `set_train` makes the next call compile the other program.
    """

    _ranks: tuple[int, ...] = ()

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
        data_format: str = "NCHW",
        dtype: Any = D.float32,
    ):
        super().__init__()
        name = type(self).__name__
        if isinstance(num_features, bool) or not isinstance(num_features, int) or num_features < 1:
            raise ValueError(
                f"For '{name}', 'num_features' must be a positive int, got {num_features!r}"
            )
        if isinstance(momentum, bool) or not isinstance(momentum, int | float):
            raise TypeError(f"For '{name}', 'momentum' must be a float, got {momentum!r}")
        if not 0.0 <= momentum <= 1.0:
            raise ValueError(f"For '{name}', 'momentum' must be in [0, 1], got {momentum}")
        if isinstance(eps, bool) or not isinstance(eps, int | float) or eps <= 0:
            raise ValueError(f"For '{name}', 'eps' must be a positive float, got {eps!r}")
        if use_batch_statistics not in (None, True, False):
            raise TypeError(
                f"For '{name}', 'use_batch_statistics' must be a bool or None, "
                f"got {use_batch_statistics!r}"
            )
        if data_format != "NCHW":
            raise ValueError(
                f"For '{name}', only data_format='NCHW' is supported, got {data_format!r}"
            )
        self.num_features = num_features
        self.eps = float(eps)
        self.momentum = float(momentum)
        self.affine = bool(affine)
        self.use_batch_statistics = use_batch_statistics
        shape = (num_features,)
        self.gamma = Parameter(
            initializer(gamma_init, shape, dtype), name="gamma", requires_grad=self.affine
        )
        self.beta = Parameter(
            initializer(beta_init, shape, dtype), name="beta", requires_grad=self.affine
        )
        self.moving_mean = Parameter(
            initializer(moving_mean_init, shape, dtype), name="moving_mean", requires_grad=False
        )
        self.moving_variance = Parameter(
            initializer(moving_var_init, shape, dtype), name="moving_variance", requires_grad=False
        )

    def construct(self, x):
        if len(x.shape) not in self._ranks:
            raise ValueError(
                f"For '{self.cls_name}', the input must have rank "
                f"{' or '.join(str(r) for r in self._ranks)}, got shape {x.shape}"
            )
        if x.shape[1] != self.num_features:
            raise ValueError(
                f"For '{self.cls_name}', the input has {x.shape[1]} channels (axis 1) but "
                f"num_features is {self.num_features}"
            )
        if self.use_batch_statistics is None:
            batch_stats = self.training
        else:
            batch_stats = self.use_batch_statistics
        return ops.batch_norm(
            x,
            self.moving_mean,
            self.moving_variance,
            self.gamma,
            self.beta,
            batch_stats,
            1.0 - self.momentum,
            self.eps,
        )

    def extend_repr(self) -> str:
        return (
            f"num_features={self.num_features}, eps={self.eps}, momentum={self.momentum}, "
            f"gamma={self.gamma}, beta={self.beta}, moving_mean={self.moving_mean}, "
            f"moving_variance={self.moving_variance}"
        )


class BatchNorm1d(_BatchNorm):
    """`nn.BatchNorm1d`: inputs (N, C) or (N, C, L)."""

    _ranks = (2, 3)


class BatchNorm2d(_BatchNorm):
    """`nn.BatchNorm2d`: inputs (N, C, H, W)."""

    _ranks = (4,)
