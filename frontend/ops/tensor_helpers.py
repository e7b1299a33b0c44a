"""MindSpore's small tensor helpers under other names: `ops.dyn_shape`,
`ops.shape_`, `ops.reshape_`, `ops.tensor_slice`, `ops.tensor_range`,
`ops.deepcopy`, `ops.is_nonzero`, `ops.eps`, `ops.padding`,
`ops.float_power_ext`, `ops.clip_by_norm`.

Each composes existing ops (ops.shape, reshape, slice, range, float_power,
norms and multiplications), so both modes and the gradients come for free.

- `dyn_shape` is the shape as an int64 Tensor (a constant: mindjit's shapes are
  static), `shape_` as a tuple.
- `is_nonzero` gives a Python bool, which depends on the value: in a graph the
  input must be a constant Tensor (a ValueError otherwise, as for ops.nonzero).
- `clip_by_norm(x, max_norm, norm_type=2.0, error_if_nonfinite=False)` scales a
  Tensor or a sequence of them by max_norm / (total norm + 1e-6) when that is
  below 1 (MindSpore's branch is a multiplication by min(coefficient, 1) here, so
  it compiles without a data-dependent branch; the values are the same). A list
  or tuple gives a tuple. `error_if_nonfinite` reads the norm, so it needs
  PyNative or constant inputs in a graph.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindjit.frontend import dtype as D
from mindjit.frontend.dispatch import current_graph
from mindjit.frontend.ops import array
from mindjit.frontend.ops import math as fmath
from mindjit.frontend.ops.gather_ops import known
from mindjit.frontend.ops.legacy_names import range as _range
from mindjit.frontend.ops.math_extras import float_power
from mindjit.frontend.ops.promotion import is_tensor
from mindjit.frontend.ops.reduce import reduce_max, reduce_sum
from mindjit.frontend.ops.slicing import slice_
from mindjit.frontend.tensor import Tensor


def _tensor(x: Any, name: str) -> Any:
    if not is_tensor(x):
        raise TypeError(
            f"For primitive[{name}], the input argument must be Tensor, but got {type(x)}."
        )
    return x


def shape_(x: Any) -> tuple:
    """`ops.shape_(x)`: the shape of a Tensor, a tuple of ints."""
    return tuple(_tensor(x, "Shape").shape)


def dyn_shape(input_x: Any) -> Tensor:
    """`ops.dyn_shape(input_x)`: the shape as a 1-D int64 Tensor."""
    return Tensor(np.array(tuple(_tensor(input_x, "TensorShape").shape), np.int64))


def reshape_(input: Any, shape: Any) -> Any:  # noqa: A002 - MindSpore's name
    """`ops.reshape_(input, shape)`: ops.reshape (one -1 is inferred)."""
    return array.reshape(input, shape)


def tensor_slice(input: Any, begin: Any, size: Any) -> Any:  # noqa: A002 - MindSpore's name
    """`ops.tensor_slice(input, begin, size)`: the Slice primitive, ops.slice."""
    for what, v in (("begin", begin), ("size", size)):
        if not isinstance(v, tuple | list):
            raise TypeError(
                f"For 'Slice', the '{what}' must be a tuple or list of ints, but got "
                f"{type(v).__name__}."
            )
    return slice_(input, begin, size)


def tensor_range(start: Any, end: Any, step: Any) -> Any:
    """`ops.tensor_range(start, end, step)`: the Range primitive, ops.range."""
    return _range(start, end, step)


def deepcopy(input_x: Any) -> Any:
    """`ops.deepcopy(input_x)`: a copy of the Tensor."""
    if not is_tensor(input_x):
        raise TypeError(
            f"For 'Identity', the 'input_x' must be a Tensor, but got {type(input_x).__name__}."
        )
    return array.reshape(input_x, tuple(input_x.shape))  # a new Tensor, on the tape


def is_nonzero(input: Any) -> bool:  # noqa: A002 - MindSpore's name
    """`ops.is_nonzero(input)`: whether the one element of the Tensor is nonzero."""
    name = "is_nonzero"
    if not is_tensor(input):
        raise TypeError(f"For {name}, the input must be a Tensor, but got {type(input)}.")
    if input.size != 1:
        raise ValueError(f"For {name}, the numel of input must be 1, but got {input.size}.")
    value = known(input)
    if value is None:
        raise ValueError(
            f"For '{name}', the result (a Python bool) depends on the input's value, and in "
            "GRAPH_MODE mindjit compiles static graphs: the input must be a constant here (a "
            "Tensor written in the program); call it in PyNative mode for a computed input"
        )
    return bool(value.reshape(-1)[0] != 0)


def eps(x: Any) -> Any:
    """`ops.eps(x)`: a Tensor like x filled with its float dtype's machine epsilon."""
    if not is_tensor(x):
        raise TypeError(
            f"For Primitive[Eps], the type of input argument[x] must be Tensor but got "
            f"{type(x).__name__}."
        )
    if x.dtype not in (D.float16, D.float32, D.float64):
        raise TypeError(
            "For primitive[Eps], the input argument[x] must be a type of {Tensor[Float16], "
            f"Tensor[Float32], Tensor[Float64]}}, but got Tensor[{x.dtype}]."
        )
    return array.full_like(x, float(np.finfo(x.dtype.numpy).eps))


def padding(x: Any, pad_dim_size: int = 8) -> Any:
    """`ops.padding(x, pad_dim_size=8)`: the last axis (of size 1) extended to
    pad_dim_size with zeros."""
    name = "Padding"
    if isinstance(pad_dim_size, bool) or not isinstance(pad_dim_size, int):
        raise TypeError(
            f"For '{name}', the type of 'pad_dim_size' should be 'int', but got type "
            f"'{type(pad_dim_size).__name__}'."
        )
    if pad_dim_size < 1:
        raise ValueError(
            f"For '{name}', the 'pad_dim_size' must be int and must > 0, but got "
            f"'{pad_dim_size}' with type 'int'."
        )
    x = _tensor(x, name)
    if x.ndim < 2:
        raise ValueError(
            f"For primitive[{name}], the x rank must be greater than or equal to 2, but got {x.ndim}."
        )
    if x.shape[-1] != 1:
        raise ValueError(
            f"For '{name}', the last dimension of 'x' must be 1, but got: {x.shape[-1]}."
        )
    zeros = array.zeros(tuple(x.shape[:-1]) + (pad_dim_size - 1,), x.dtype)
    return array.concat((x, zeros), -1)


def float_power_ext(input: Any, exponent: Any) -> Any:  # noqa: A002 - MindSpore's name
    """`ops.float_power_ext(input, exponent)`: input ** exponent in float64; one of
    them may be a number."""
    if not is_tensor(input):
        if not is_tensor(exponent):
            raise TypeError(
                "At least one of the types of inputs must be tensor, but the type of 'input' "
                f"got is {type(input)}, and the type of 'exponent' is {type(exponent)}."
            )
        input = array.full_like(array.cast(exponent, D.float64), float(input))
    return float_power(input, exponent)


def _total_norm(xs: tuple, norm_type: float) -> Any:
    floats = [x if x.dtype.is_float else array.cast(x, D.float32) for x in xs]
    if norm_type == float("inf"):
        maxima = [reduce_max(fmath.abs(x)) for x in floats]
        return maxima[0] if len(maxima) == 1 else reduce_max(array.stack(maxima))
    p = float(norm_type)

    def pnorm(v: Any) -> Any:
        return reduce_sum(fmath.abs(v) ** p) ** (1.0 / p)

    norms = [pnorm(x) for x in floats]
    return pnorm(array.stack(norms))


def clip_by_norm(
    x: Any, max_norm: Any, norm_type: Any = 2.0, error_if_nonfinite: bool = False
) -> Any:
    """`ops.clip_by_norm(x, max_norm, norm_type=2.0, error_if_nonfinite=False)`: the
    Tensor(s) scaled so that their total `norm_type` norm is at most max_norm."""
    single = is_tensor(x)
    xs = (x,) if single else x
    if not isinstance(xs, tuple | list) or not xs or not all(is_tensor(v) for v in xs):
        raise TypeError(
            "For 'clip_by_norm', the 'x' must be a Tensor, or a list or tuple of Tensors, "
            f"but got {type(x).__name__}."
        )
    total = _total_norm(tuple(xs), norm_type)
    if error_if_nonfinite:
        value = known(total) if current_graph() is None else None
        if value is None:
            raise ValueError(
                "For 'clip_by_norm', error_if_nonfinite=True reads the norm's value: in "
                "GRAPH_MODE mindjit compiles no such check; use PyNative mode"
            )
        if not np.isfinite(value).all():
            raise RuntimeError(
                f"For clip_by_norm, the total norm of order {norm_type} from input is non-finite."
            )
    coef = fmath.minimum(max_norm / (total + 1e-6), 1.0)
    out = tuple(v * coef for v in xs)
    return out[0] if single else out


__all__ = [
    "clip_by_norm",
    "deepcopy",
    "dyn_shape",
    "eps",
    "float_power_ext",
    "is_nonzero",
    "padding",
    "reshape_",
    "shape_",
    "tensor_range",
    "tensor_slice",
]
