"""More `mindspore.nn` Cells of MindSpore 2.10 (issue 38), built from mindjit's ops
as MindSpore builds them:

- Softsign(): x / (1 + |x|), float inputs only (TypeError otherwise).
- GLU(axis=-1): a * sigmoid(b), a and b the two halves of x along `axis`.
- Softmax2d(): softmax over axis -3 of a (C, H, W) or (N, C, H, W) input.
- Unflatten(axis, unflattened_size): `axis` reshaped into `unflattened_size`.
- Linear(in_features, out_features, bias=True, weight_init=None, bias_init=None,
  dtype=None): MindSpore 2.x's torch-like Dense; weight (out, in) from
  HeUniform(sqrt(5)), bias from Uniform(1 / sqrt(in_features)).
- Tril() / Triu(): construct(x, k=0), the lower / upper triangle (x times a 0/1
  mask computed in float32 and cast back, so a negative entry masked out is -0.0).
- Roll(shift, axis): `ops.roll` along each axis in turn.
- OneHot(axis=-1, depth=1, on_value=1.0, off_value=0.0, dtype=float32).
- Norm(axis=(), keep_dims=False): sqrt(sum(x^2)) over `axis` (() = all).
- RReLU(lower=1/8, upper=1/3): x where x > 0, x * a elsewhere, a drawn uniformly
  in [lower, upper) per element from the default generator -- in eval mode too:
  MindSpore 2.10's RReLU ignores `training`.
"""

from __future__ import annotations

import math
from typing import Any

from mindjit.frontend import dtype as D
from mindjit.frontend import ops
from mindjit.frontend.nn.cell import Cell
from mindjit.frontend.nn.init import HeUniform, Uniform, initializer
from mindjit.frontend.ops.layer_functions import glu, rrelu
from mindjit.frontend.ops.promotion import is_tensor
from mindjit.frontend.tensor import Parameter

_FLOATS = (D.float16, D.float32, D.float64)


def check_type(value: Any, what: str, types: tuple[type, ...], name: str) -> Any:
    """MindSpore's Validator.check_value_type: a TypeError naming the accepted types
    (bool is not an int)."""
    if (isinstance(value, bool) and bool not in types) or not isinstance(value, types):
        names = [t.__name__ for t in types]
        shown = f"'{names[0]}'" if len(names) == 1 else f"one of '{names}'"
        raise TypeError(
            f"For '{name}', the type of '{what}' should be {shown}, but got type "
            f"'{type(value).__name__}'."
        )
    return value


class Softsign(Cell):
    """`nn.Softsign()`: x / (1 + |x|)."""

    def construct(self, x):
        if x.dtype not in _FLOATS:
            raise TypeError(
                "For primitive[Softsign], the input argument[input_x] must be a type of "
                f"{{Tensor[Float16], Tensor[Float32], Tensor[Float64]}}, but got {x.dtype}."
            )
        return x / (ops.abs(x) + 1.0)


class GLU(Cell):
    """`nn.GLU(axis=-1)`: the first half of x along `axis` times the sigmoid of the
    second; that axis must be even (a ValueError, as MindSpore's Split gives)."""

    def __init__(self, axis: int = -1):
        super().__init__()
        self.dim = axis

    def construct(self, x):
        return glu(x, self.dim)


class Softmax2d(Cell):
    """`nn.Softmax2d()`: softmax over the channels (axis -3) of a 3-D or 4-D input."""

    def construct(self, x):
        if len(x.shape) not in (3, 4):
            raise ValueError(
                f"For 'Softmax2d', the in_shape must have 3 or 4 dims, but got {len(x.shape)}."
            )
        return ops.softmax(x, -3)


class Unflatten(Cell):
    """`nn.Unflatten(axis, unflattened_size)`: axis `axis` reshaped into the tuple."""

    def __init__(self, axis: int, unflattened_size: Any):
        super().__init__()
        if isinstance(axis, bool) or not isinstance(axis, int):
            raise TypeError(
                f"For 'Unflatten', the type of 'axis' must be 'int', but got "
                f"'{type(axis).__name__}'."
            )
        check_type(unflattened_size, "unflattended_size", (list, tuple), "Unflatten")
        self.axis = axis
        self.unflattened_size = tuple(unflattened_size)

    def construct(self, input_x):
        shape = tuple(input_x.shape)
        new_shape = shape[: self.axis] + self.unflattened_size
        if self.axis != -1:
            new_shape = new_shape + shape[self.axis + 1 :]
        return ops.reshape(input_x, new_shape)


def positive_int(value: Any, what: str, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise (TypeError if not isinstance(value, int) else ValueError)(
            f"For '{name}', the '{what}' must be int and must > 0, but got '{value}' with type "
            f"'{type(value).__name__}'."
        )
    return value


class Linear(Cell):
    """`nn.Linear(in_features, out_features, bias=True, weight_init=None,
    bias_init=None, dtype=None)`: x @ weight^T + bias."""

    def __init__(
        self,
        in_features: int,
        out_features: int,
        bias: bool = True,
        weight_init: Any = None,
        bias_init: Any = None,
        dtype: Any = None,
    ):
        super().__init__()
        self.in_features = positive_int(in_features, "in_features", "Linear")
        self.out_features = positive_int(out_features, "out_features", "Linear")
        if not isinstance(bias, bool):
            raise TypeError(
                f"For 'Linear', the 'has_bias' must be a bool, but got {type(bias).__name__}."
            )
        self.has_bias = bias
        dtype = D.float32 if dtype is None else dtype
        if is_tensor(weight_init) and tuple(weight_init.shape) != (out_features, in_features):
            raise ValueError(
                "For 'Linear', weight init shape error. The ndim of 'weight_init' must be equal "
                "to 2, and the first dim must be equal to 'out_features', and the second dim "
                f"must be equal to 'in_features'. But got 'weight_init': {weight_init}, "
                f"'out_features': {out_features}, 'in_features': {in_features}."
            )
        if weight_init is None:
            weight_init = HeUniform(math.sqrt(5))
        self.weight = Parameter(
            initializer(weight_init, (out_features, in_features), dtype), name="weight"
        )
        self.bias = None
        if self.has_bias:
            if is_tensor(bias_init) and tuple(bias_init.shape) != (out_features,):
                raise ValueError(
                    "For 'Linear', bias init shape error. The ndim of 'bias_init' must be equal "
                    "to 1, and the first dim must be equal to 'out_features'. But got "
                    f"'bias_init': {bias_init}, 'out_features': {out_features}."
                )
            if bias_init is None:
                bias_init = Uniform(scale=1 / math.sqrt(in_features))
            self.bias = Parameter(initializer(bias_init, (out_features,), dtype), name="bias")

    def construct(self, x):
        return ops.dense(x, self.weight, self.bias)

    def extend_repr(self) -> str:
        s = f"input_features={self.in_features}, output_features={self.out_features}"
        if self.has_bias:
            s += f", has_bias={self.has_bias}"
        return s


def _triangle(x: Any, k: int, lower: bool) -> Any:
    if len(x.shape) < 2:
        raise ValueError(
            f"For primitive[{'Tril' if lower else 'Triu'}], the x's rank must be greater than "
            f"or equal to 2, but got {len(x.shape)}."
        )
    ones = ops.ones(tuple(x.shape), D.float32)
    mask = ops.tril(ones, k) if lower else ops.triu(ones, k)
    return ops.cast(ops.cast(x, D.float32) * mask, x.dtype)


class Tril(Cell):
    """`nn.Tril()`: construct(x, k=0), the entries on and below diagonal k."""

    def construct(self, x, k=0):
        return _triangle(x, k, True)


class Triu(Cell):
    """`nn.Triu()`: construct(x, k=0), the entries on and above diagonal k."""

    def construct(self, x, k=0):
        return _triangle(x, k, False)


class Roll(Cell):
    """`nn.Roll(shift, axis)`: int or tuple/list shifts along int or tuple/list axes
    (of the same length)."""

    def __init__(self, shift: Any, axis: Any):
        super().__init__()
        check_type(shift, "shift", (int, tuple, list), "Roll")
        check_type(axis, "axis", (int, tuple, list), "Roll")
        self.shift = list(shift) if isinstance(shift, list | tuple) else [shift]
        self.axis = list(axis) if isinstance(axis, list | tuple) else [axis]
        if len(self.shift) != len(self.axis):
            raise ValueError(
                "For 'Roll', the shape of 'shift' and the shape of 'axis' must be the same, "
                f"but got the length of 'shift' {len(self.shift)} and the length of 'axis' "
                f"{len(self.axis)}."
            )

    def construct(self, input_x):
        return ops.roll(input_x, tuple(self.shift), tuple(self.axis))


class OneHot(Cell):
    """`nn.OneHot(axis=-1, depth=1, on_value=1.0, off_value=0.0, dtype=float32)`:
    int32 / int64 indices only (TypeError otherwise)."""

    def __init__(
        self,
        axis: int = -1,
        depth: int = 1,
        on_value: float = 1.0,
        off_value: float = 0.0,
        dtype: Any = D.float32,
    ):
        super().__init__()
        self.axis, self.depth, self.dtype = axis, depth, dtype
        self.on_value, self.off_value = on_value, off_value

    def construct(self, indices):
        if indices.dtype not in (D.int32, D.int64):
            raise TypeError(
                "For primitive[OneHot], the input argument[indices] must be a type of "
                f"{{Tensor[Int32], Tensor[Int64]}}, but got {indices.dtype}."
            )
        if self.depth < 0:
            raise ValueError(
                "For primitive[OneHot], the depth value must be greater than or equal to 0, "
                f"but got {self.depth}."
            )
        on = ops.cast(ops.scalar_to_tensor(self.on_value), self.dtype)
        off = ops.cast(ops.scalar_to_tensor(self.off_value), self.dtype)
        return ops.one_hot(indices, self.depth, on, off, self.axis)


class Norm(Cell):
    """`nn.Norm(axis=(), keep_dims=False)`: the Euclidean norm over `axis`."""

    def __init__(self, axis: Any = (), keep_dims: bool = False):
        super().__init__()
        check_type(keep_dims, "keep_dims", (bool,), "Norm")
        self.axis = axis
        self.keep_dims = keep_dims

    def construct(self, x):
        if not x.dtype.is_float:
            x = ops.cast(x, D.float32)
        return ops.sqrt(ops.reduce_sum(ops.square(x), self.axis, self.keep_dims))

    def extend_repr(self) -> str:
        return f"axis={self.axis}, keep_dims={self.keep_dims}"


class RReLU(Cell):
    """`nn.RReLU(lower=1/8, upper=1/3)`: a random leaky slope per negative element."""

    def __init__(self, lower: float = 1 / 8, upper: float = 1 / 3):
        super().__init__()
        check_type(upper, "upper", (float, int), "RReLU")
        check_type(lower, "lower", (float, int), "RReLU")
        if lower > upper:
            raise ValueError(
                "For RReLU, the value of 'upper' must be greater than or equal to 'lower', but "
                f"got upper: {upper}, lower: {lower}. "
            )
        self.lower, self.upper = float(lower), float(upper)

    def construct(self, x):
        if not is_tensor(x):
            raise TypeError(f"For 'rrelu', the input must be a Tensor, but got {type(x)}.")
        return rrelu(x, self.lower, self.upper)
