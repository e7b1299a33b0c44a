"""`nn.LayerNorm` with MindSpore's signature and Parameter names (gamma, beta)."""

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
