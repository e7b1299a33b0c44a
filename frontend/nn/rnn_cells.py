"""`nn.RNNCell`, `nn.GRUCell`, `nn.LSTMCell` (MindSpore 2.x): one time step of a
recurrent layer, and the step functions `nn.RNN`/`GRU`/`LSTM` (nn/rnn.py) unroll.

Each is a composition of existing ops (matmul against the transposed weight,
`split` into the gates, sigmoid/tanh), so PyNative, graph mode, gradients and
the device all come from those ops. The gate order is MindSpore's: LSTM i, f,
g, o; GRU r, z, n with n = tanh(W_in x + b_in + r * (W_hn h + b_hn)).

The Parameters are named `weight_ih`, `weight_hh`, `bias_ih`, `bias_hh`, of
shape (chunks * hidden_size, input_size / hidden_size) and (chunks *
hidden_size,), drawn from U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)), so a
MindSpore checkpoint's names and shapes match.

MindSpore accepts float16 and float32 inputs; mindjit also accepts float64
when the cell is built with `dtype=mstype.float64` (for finite-difference
checks), an extension MindSpore does not have.
"""

from __future__ import annotations

import math
from typing import Any

from mindjit.frontend import dtype as D
from mindjit.frontend import ops
from mindjit.frontend.nn.cell import Cell
from mindjit.frontend.nn.init import Uniform, initializer
from mindjit.frontend.tensor import Parameter

FLOAT_TYPES = (D.float16, D.float32, D.float64)
_TRANSPOSE_B = ops.MatMul(transpose_b=True)


# --- argument checks (MindSpore's validator messages and exception types) ---------------


def check_positive_int(value: Any, name: str, cls: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(
            f"For '{cls}', the '{name}' must be an int, but got {type(value).__name__}."
        )
    if value <= 0:
        raise ValueError(f"For '{cls}', the '{name}' must be a positive int, but got {value}.")
    return int(value)


def check_bool(value: Any, name: str, cls: str) -> bool:
    if not isinstance(value, bool):
        raise TypeError(
            f"For '{cls}', the '{name}' must be a bool, but got {type(value).__name__}."
        )
    return value


def check_dtype(dtype: Any, cls: str) -> D.DType:
    try:
        target = D.to_dtype(dtype)
    except (TypeError, ValueError, KeyError):
        target = None
    if target not in FLOAT_TYPES:
        raise TypeError(
            f"For '{cls}', the 'dtype' must be float16 or float32 (mindjit: or float64), "
            f"but got {dtype}."
        )
    return target


def is_tensor(x: Any) -> bool:
    return hasattr(x, "shape") and hasattr(x, "dtype") and not isinstance(x, tuple | list)


def check_tensor(x: Any, name: str, cls: str) -> None:
    if not is_tensor(x):
        raise TypeError(f"For '{cls}', the '{name}' must be a Tensor, but got {type(x).__name__}.")


def check_float_dtypes(names: list[str], values: list[Any], cls: str) -> None:
    """Every value a float Tensor of one dtype (MindSpore's
    `_check_input_dtype_same_and_valid`)."""
    for name, value in zip(names, values, strict=True):
        check_tensor(value, name, cls)
        if value.dtype not in FLOAT_TYPES:
            raise TypeError(
                f"For '{cls}', the dtype of '{name}' must be float16 or float32, "
                f"but got {value.dtype}."
            )
    if len({v.dtype for v in values}) > 1:
        got = ", ".join(f"'{n}': {v.dtype}" for n, v in zip(names, values, strict=True))
        raise TypeError(f"For '{cls}', the dtypes of the inputs must be the same, but got {got}.")


def check_hx_tuple(hx: Any, cls: str) -> None:
    if not isinstance(hx, tuple | list):
        raise TypeError(f"For '{cls}', the 'hx' must be a tuple, but got {type(hx).__name__}.")
    if len(hx) != 2:
        raise TypeError(f"For '{cls}', the length of 'hx' must be 2, but got {len(hx)}.")


# --- the step functions -------------------------------------------------------------


def as_dtype(w: Any, dtype: D.DType) -> Any:
    """`w` (a weight) in the input's dtype, as MindSpore casts its weights."""
    return w if w is None or w.dtype == dtype else ops.cast(w, dtype)


def linear(x: Any, w: Any, b: Any) -> Any:
    """x @ w^T (+ b): x (N, in), w (out, in)."""
    y = _TRANSPOSE_B(x, w)
    return y if b is None else y + b


def rnn_step(mode: str, gx: Any, hx: Any, w_hh: Any, b_hh: Any) -> Any:
    """One step given the input's projection gx = x W_ih^T + b_ih: the new hidden
    state (LSTM: the pair (h, c))."""
    if mode == "LSTM":
        h, c = hx
        i, f, g, o = ops.split(gx + linear(h, w_hh, b_hh), h.shape[-1], axis=1)
        c = ops.sigmoid(f) * c + ops.sigmoid(i) * ops.tanh(g)
        return ops.sigmoid(o) * ops.tanh(c), c
    gh = linear(hx, w_hh, b_hh)
    if mode == "GRU":
        size = hx.shape[-1]
        i_r, i_z, i_n = ops.split(gx, size, axis=1)
        h_r, h_z, h_n = ops.split(gh, size, axis=1)
        r = ops.sigmoid(i_r + h_r)
        z = ops.sigmoid(i_z + h_z)
        n = ops.tanh(i_n + r * h_n)
        return n + z * (hx - n)
    if mode == "RNN_RELU":
        return ops.relu(gx + gh)
    return ops.tanh(gx + gh)


# --- the cells ------------------------------------------------------------------------


class RNNCellBase(Cell):
    """weight_ih (chunks * hidden, input), weight_hh (chunks * hidden, hidden) and,
    with has_bias, bias_ih and bias_hh (chunks * hidden,), all U(-stdv, stdv)."""

    _mode = "RNN_TANH"

    def __init__(
        self, input_size: int, hidden_size: int, has_bias: bool, num_chunks: int, dtype: Any
    ):
        super().__init__()
        cls = type(self).__name__
        self.has_bias = check_bool(has_bias, "has_bias", cls)
        self.input_size = check_positive_int(input_size, "input_size", cls)
        self.hidden_size = check_positive_int(hidden_size, "hidden_size", cls)
        self.dtype = check_dtype(dtype, cls)
        init = Uniform(1 / math.sqrt(self.hidden_size))
        gates = num_chunks * self.hidden_size
        self.weight_ih = Parameter(
            initializer(init, (gates, self.input_size), self.dtype), name="weight_ih"
        )
        self.weight_hh = Parameter(
            initializer(init, (gates, self.hidden_size), self.dtype), name="weight_hh"
        )
        if self.has_bias:
            self.bias_ih = Parameter(initializer(init, (gates,), self.dtype), name="bias_ih")
            self.bias_hh = Parameter(initializer(init, (gates,), self.dtype), name="bias_hh")
        else:
            self.bias_ih = None
            self.bias_hh = None

    def _step(self, x: Any, hx: Any) -> Any:
        dt = x.dtype
        b_ih, b_hh = as_dtype(self.bias_ih, dt), as_dtype(self.bias_hh, dt)
        gx = linear(x, as_dtype(self.weight_ih, dt), b_ih)
        return rnn_step(self._mode, gx, hx, as_dtype(self.weight_hh, dt), b_hh)

    def _check_batch(self, x: Any, h: Any) -> None:
        cls = self.cls_name
        if len(x.shape) != 2 or x.shape[1] != self.input_size:
            raise ValueError(
                f"For '{cls}', 'x' must have shape (batch_size, {self.input_size}), "
                f"but got {x.shape}."
            )
        if len(h.shape) != 2 or h.shape[1] != self.hidden_size:
            raise ValueError(
                f"For '{cls}', 'hx' must have shape (batch_size, {self.hidden_size}), "
                f"but got {h.shape}."
            )
        if x.shape[0] != h.shape[0]:
            raise ValueError(
                f"For '{cls}' batch size of x and hx should be equal, but got {x.shape[0]} of x "
                f"and {h.shape[0]} of hx."
            )

    def extend_repr(self) -> str:
        return (
            f"input_size={self.input_size}, hidden_size={self.hidden_size}, "
            f"has_bias={self.has_bias}"
        )


class RNNCell(RNNCellBase):
    """`nn.RNNCell(input_size, hidden_size, has_bias=True, nonlinearity='tanh',
    dtype=mstype.float32)`: h' = act(W_ih x + b_ih + W_hh h + b_hh)."""

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        has_bias: bool = True,
        nonlinearity: str = "tanh",
        dtype: Any = D.float32,
    ):
        super().__init__(input_size, hidden_size, has_bias, 1, dtype)
        if not isinstance(nonlinearity, str):
            raise TypeError(
                f"For 'RNNCell', the 'nonlinearity' must be a str, but got "
                f"{type(nonlinearity).__name__}."
            )
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(
                f"For 'RNNCell', the 'nonlinearity' must be in ['tanh', 'relu'], "
                f"but got {nonlinearity}."
            )
        self.nonlinearity = nonlinearity
        self._mode = "RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU"

    def construct(self, x, hx):
        return self._forward(x, hx)

    def _forward(self, x: Any, hx: Any) -> Any:
        check_float_dtypes(["x", "hx"], [x, hx], self.cls_name)
        self._check_batch(x, hx)
        return self._step(x, hx)


class GRUCell(RNNCellBase):
    """`nn.GRUCell(input_size, hidden_size, has_bias=True, dtype=mstype.float32)`:
    r, z, n gates; h' = (1 - z) * n + z * h."""

    _mode = "GRU"

    def __init__(
        self, input_size: int, hidden_size: int, has_bias: bool = True, dtype: Any = D.float32
    ):
        super().__init__(input_size, hidden_size, has_bias, 3, dtype)

    def construct(self, x, hx):
        return self._forward(x, hx)

    def _forward(self, x: Any, hx: Any) -> Any:
        check_float_dtypes(["x", "hx"], [x, hx], self.cls_name)
        self._check_batch(x, hx)
        return self._step(x, hx)


class LSTMCell(RNNCellBase):
    """`nn.LSTMCell(input_size, hidden_size, has_bias=True, dtype=mstype.float32)`:
    hx = (h, c) -> (h', c') with the i, f, g, o gates."""

    _mode = "LSTM"

    def __init__(
        self, input_size: int, hidden_size: int, has_bias: bool = True, dtype: Any = D.float32
    ):
        super().__init__(input_size, hidden_size, has_bias, 4, dtype)

    def construct(self, x, hx):
        return self._forward(x, hx)

    def _forward(self, x: Any, hx: Any) -> Any:
        check_hx_tuple(hx, self.cls_name)
        check_float_dtypes(["x", "hx[0]", "hx[1]"], [x, hx[0], hx[1]], self.cls_name)
        self._check_batch(x, hx[0])
        self._check_batch(x, hx[1])
        return self._step(x, tuple(hx))


__all__ = ["GRUCell", "LSTMCell", "RNNCell", "RNNCellBase"]
