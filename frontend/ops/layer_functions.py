"""The functional forms of layers (`ops.glu`, `channel_shuffle`, `hardswish`, `rrelu`,
`gumbel_softmax`, `dropout1d`, `dropout3d`, `bias_add`, `bidense`).

Each is the one implementation of its formula: the nn Cells of the same name
(nn.GLU, nn.ChannelShuffle, nn.RReLU, nn.Dropout1d/3d, nn.BiDense) call these.
All are compositions of existing ops. Random ones draw from the default
generator (`uniform_real`), as MindSpore's ops draw from theirs: the same
distributions, not the same numbers.
"""

from __future__ import annotations

from typing import Any

from mindjit.frontend import dtype as D
from mindjit.frontend.ops.array import cast, reshape, transpose, zeros_like
from mindjit.frontend.ops.gather_ops import one_hot
from mindjit.frontend.ops.gradient_ops import stop_gradient
from mindjit.frontend.ops.index_reduce import argmax
from mindjit.frontend.ops.math import (
    add,
    greater_equal,
    hswish,
    log,
    matmul,
    maximum,
    minimum,
    mul,
    neg,
    sigmoid,
    sub,
)
from mindjit.frontend.ops.math_functions import sign
from mindjit.frontend.ops.nn_functional import softmax
from mindjit.frontend.ops.promotion import is_tensor
from mindjit.frontend.ops.random import uniform_real
from mindjit.frontend.ops.split import split


def _tensor(x: Any, name: str, what: str = "input") -> Any:
    if not is_tensor(x):
        raise TypeError(f"For '{name}', the '{what}' must be a Tensor, but got {type(x).__name__}")
    return x


def glu(x: Any, axis: int = -1) -> Any:
    """`ops.glu(x, axis=-1)`: a * sigmoid(b), a and b the halves of x along `axis`."""
    x = _tensor(x, "glu", "x")
    rank = len(x.shape)
    a = axis + rank if axis < 0 else axis
    n = x.shape[a]
    if n % 2:
        raise ValueError(
            f"For 'Split', x_shape[{a}] must be divisible by output_num = 2, but got {n}"
        )
    if not x.dtype.is_float:
        raise TypeError("Select CPU operator[Sigmoid] fail! Unsupported data type!")
    first, second = split(x, n // 2, a)
    return mul(first, sigmoid(second))


def channel_shuffle(x: Any, groups: int) -> Any:
    """`ops.channel_shuffle(x, groups)`: the C channels of (N, C, D1, ...) read as
    (groups, C / groups) and transposed."""
    x = _tensor(x, "ChannelShuffle", "x")
    if isinstance(groups, bool) or not isinstance(groups, int):
        raise ValueError("For 'ChannelShuffle', attr 'group' must be an positive int number")
    if groups < 1:
        raise ValueError(
            "For ChannelShuffle, number of groups to divide channels in must be positive, but "
            f"got {groups}."
        )
    shape = tuple(x.shape)
    if len(shape) < 4:
        raise TypeError(f"For ChannelShuffle, expect input with > 3 dims, but got {len(shape)}.")
    n, c = shape[0], shape[1]
    if c % groups:
        raise ValueError("For ChannelShuffle, number of channels must be divisible by groups.")
    out = reshape(x, (n, groups, c // groups, -1))
    return reshape(transpose(out, (0, 2, 1, 3)), shape)


def hardswish(input: Any) -> Any:
    """`ops.hardswish(input)`: x * relu6(x + 3) / 6; integers computed in float32 and
    truncated back, as MindSpore's CPU kernel."""
    x = _tensor(input, "hardswish")
    if x.dtype.is_float:
        return hswish(x)
    if x.dtype.is_bool:
        raise TypeError("Select CPU operator[HSwish] fail! Unsupported data type!")
    return cast(hswish(cast(x, D.float32)), x.dtype)


def rrelu(input: Any, lower: float = 1.0 / 8, upper: float = 1.0 / 3) -> Any:
    """`ops.rrelu`: x where x >= 0, else x times a slope drawn uniformly from
    [lower, upper] per element."""
    name = "rrelu"
    x = _tensor(input, name)
    for what, v in (("upper", upper), ("lower", lower)):
        if isinstance(v, bool) or not isinstance(v, float | int):
            raise TypeError(
                f"For '{name}', the type of '{what}' should be one of '['float', 'int']', but got "
                f"type '{type(v).__name__}'."
            )
    if lower > upper:
        raise ValueError(
            f"For '{name}', the value of 'upper' must be greater than or equal to 'lower', but "
            f"got upper: {upper}, lower: {lower}. "
        )
    s = sign(x)
    u = uniform_real(tuple(x.shape))
    slope = cast(add(mul(u, float(upper) - float(lower)), float(lower)), x.dtype)
    return mul(add(mul(neg(minimum(s, 0)), slope), maximum(s, 0)), x)


def gumbel_softmax(logits: Any, tau: float = 1.0, hard: bool = False, dim: int = -1) -> Any:
    """`ops.gumbel_softmax`: softmax((logits + g) / tau) with g = -log(-log(u)), u uniform;
    with `hard`, the one-hot of its argmax carrying the soft sample's gradient."""
    name = "gumbel_softmax"
    x = _tensor(logits, name, "logits")
    if x.dtype not in (D.float16, D.float32):
        raise TypeError(
            f"For '{name}', the 'logits' should be one of [mindspore.float16, mindspore.float32], "
            f"but got 'mindspore.{x.dtype}'."
        )
    if isinstance(tau, bool) or not isinstance(tau, float) or tau <= 0:
        raise ValueError(
            f"For '{name}', the 'tau' must be float and must > 0, but got '{tau}' with type "
            f"'{type(tau).__name__}'."
        )
    if not isinstance(hard, bool):
        raise TypeError(f"For '{name}', the 'hard' must be a bool, but got {type(hard).__name__}")
    rank = len(x.shape)
    if isinstance(dim, bool) or not isinstance(dim, int) or not -rank <= dim < rank:
        raise ValueError(f"For '{name}', the 'dim' must be in [{-rank}, {rank}), but got {dim}")
    u = cast(uniform_real(tuple(x.shape)), x.dtype)
    noise = neg(log(neg(log(u))))
    soft = softmax(mul(add(x, noise), 1.0 / tau), dim)
    if not hard:
        return soft
    index = argmax(soft, dim)
    axis = dim + rank if dim < 0 else dim
    hot = cast(one_hot(index, x.shape[axis], 1.0, 0.0, axis), x.dtype)
    return add(sub(hot, stop_gradient(soft)), soft)


def _channel_dropout(name: str, x: Any, p: Any, training: bool, channel_axes: int) -> Any:
    """Each slice over the first `channel_axes` axes zeroed with probability p (one
    draw each), the rest scaled by 1 / (1 - p); integers scaled in float32."""
    if isinstance(p, bool) or not isinstance(p, float | int):
        raise TypeError(f"For '{name}', the 'p' must be a float, but got {type(p).__name__}")
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"For '{name}', the 'p' must be in range [0, 1], but got {p}")
    if not training or p == 0:
        return x
    if p == 1:
        return zeros_like(x)
    shape = tuple(x.shape[:channel_axes]) + (1,) * (len(x.shape) - channel_axes)
    dtype = x.dtype if x.dtype.is_float else D.float32
    keep = mul(cast(greater_equal(uniform_real(shape), float(p)), dtype), 1.0 / (1.0 - p))
    if x.dtype.is_float:
        return mul(x, keep)
    return cast(mul(cast(x, dtype), keep), x.dtype)


def dropout1d(input: Any, p: float = 0.5, training: bool = True) -> Any:
    """`ops.dropout1d`: channels of (N, C, L) (rows of (C, L)) dropped with probability p."""
    x = _tensor(input, "dropout1d")
    rank = len(x.shape)
    if rank not in (2, 3):
        raise ValueError(f"For dropout1d, input shape should be 2D or 3D, but got {rank}.")
    return _channel_dropout("dropout1d", x, p, training, rank - 1)


def dropout3d(input: Any, p: float = 0.5, training: bool = True) -> Any:
    """`ops.dropout3d`: channels of (N, C, D, H, W) dropped with probability p."""
    x = _tensor(input, "dropout3d")
    if len(x.shape) != 5:
        raise ValueError(
            "For primitive[Dropout3D], the rank of input  must be equal to 5 , but got "
            f"{len(x.shape)}."
        )
    if x.dtype.is_bool:
        raise TypeError("For 'dropout3d', the dtype of 'input' must be a number type, got Bool")
    return _channel_dropout("dropout3d", x, p, training, 2)


def bias_add(input_x: Any, bias: Any) -> Any:
    """`ops.bias_add(input_x, bias)`: bias (C,) added along axis 1 of a 2- to 5-d input."""
    x, b = _tensor(input_x, "BiasAdd", "input_x"), _tensor(bias, "BiasAdd", "bias")
    rank = len(x.shape)
    if not 2 <= rank <= 5:
        raise ValueError(
            f"For primitive[BiasAdd], the rank of input_x must be in [2,5], but got {rank}."
        )
    if x.dtype != b.dtype:
        raise TypeError("For primitive[BiasAdd], the input type must be same.")
    if tuple(b.shape) != (x.shape[1],):
        raise ValueError(
            f"For 'BiasAdd', bias[0] shape should be equal to input_x[1] shape, but got bias "
            f"shape: {tuple(b.shape)}, input_shape: {tuple(x.shape)}."
        )
    return add(x, reshape(b, (x.shape[1],) + (1,) * (rank - 2)))


def bidense(input1: Any, input2: Any, weight: Any, bias: Any = None) -> Any:
    """`ops.bidense`: y[..., o] = sum_ij x1[..., i] w[o, i, j] x2[..., j] (+ bias[o])."""
    name = "bidense"
    x1, x2 = _tensor(input1, name, "input1"), _tensor(input2, name, "input2")
    w = _tensor(weight, name, "weight")
    if len(w.shape) != 3 or w.shape[1] != x1.shape[-1] or w.shape[2] != x2.shape[-1]:
        raise ValueError(
            f"For '{name}', 'weight' must be (out, in1, in2) = (out, {x1.shape[-1]}, "
            f"{x2.shape[-1]}), but got {tuple(w.shape)}"
        )
    if tuple(x1.shape[:-1]) != tuple(x2.shape[:-1]):
        raise ValueError(
            f"For '{name}', the dimensions except the last of 'input1' must be same as "
            f"'input2', but got {tuple(x1.shape)} and {tuple(x2.shape)}"
        )
    out, in1, in2 = w.shape
    lead = tuple(x1.shape[:-1])
    a = reshape(x1, (-1, in1))
    # (B, in1) @ (in1, out * in2) -> (B, out, in2), times x2, summed over in2
    mixed = reshape(matmul(a, reshape(transpose(w, (1, 0, 2)), (in1, out * in2))), (-1, out, in2))
    y = matmul(mixed, reshape(reshape(x2, (-1, in2)), (-1, in2, 1)))
    y = reshape(y, (*lead, out))
    if bias is not None:
        y = add(y, _tensor(bias, name, "bias"))
    return y
