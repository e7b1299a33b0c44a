"""`nn.RNN`, `nn.GRU`, `nn.LSTM` (MindSpore 2.x): stacked, optionally bidirectional
recurrent layers, unrolled over the (static) sequence length.

The recurrence is plain Python over the time steps, run by the layer's own
`_forward` (library code, so graph mode calls it directly with the graph's
values and it unrolls, as examples/models/lstm.py does by hand): the input's
projection x W_ih^T + b_ih is one matmul for all the steps of a layer, then
each step adds h W_hh^T + b_hh and applies the gates (nn/rnn_cells.py). Every
op is an existing one, so gradients, vmap and the device come for free.

Parameters are named as MindSpore names them, `weight_ih_l{k}`, `weight_hh_l{k}`,
`bias_ih_l{k}`, `bias_hh_l{k}` with `_reverse` for the backward direction,
drawn from U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)).

`seq_length` (int32/int64, one length per batch row) masks the padded steps as
MindSpore's dynamic RNN does: past its length a row keeps its state and
outputs zeros. Running the backward direction from the last step down with the
same mask reverses each row within its own length (MindSpore's ReverseSequence).
Dropout (training mode only) is applied to every layer's output but the last.
"""

from __future__ import annotations

import logging
import math
from typing import Any

from mindjit.frontend import dtype as D
from mindjit.frontend import ops
from mindjit.frontend.nn.cell import Cell
from mindjit.frontend.nn.init import Uniform, initializer
from mindjit.frontend.nn.rnn_cells import (
    as_dtype,
    check_bool,
    check_dtype,
    check_float_dtypes,
    check_hx_tuple,
    check_positive_int,
    check_tensor,
    linear,
    rnn_step,
)
from mindjit.frontend.tensor import Parameter

_log = logging.getLogger(__name__)
_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


class _RNNBase(Cell):
    """The stacked layers shared by RNN, GRU and LSTM (`mode` picks the step)."""

    def __init__(
        self,
        mode: str,
        input_size: int,
        hidden_size: int,
        num_layers: int = 1,
        has_bias: bool = True,
        batch_first: bool = False,
        dropout: float = 0.0,
        bidirectional: bool = False,
        dtype: Any = D.float32,
    ):
        super().__init__()
        cls = type(self).__name__
        self.hidden_size = check_positive_int(hidden_size, "hidden_size", cls)
        self.input_size = check_positive_int(input_size, "input_size", cls)
        self.num_layers = check_positive_int(num_layers, "num_layers", cls)
        if isinstance(dropout, bool) or not isinstance(dropout, float | int):
            raise TypeError(
                f"For '{cls}', the 'dropout' must be a float, but got {type(dropout).__name__}."
            )
        self.has_bias = check_bool(has_bias, "has_bias", cls)
        self.batch_first = check_bool(batch_first, "batch_first", cls)
        self.bidirectional = check_bool(bidirectional, "bidirectional", cls)
        if not 0 <= dropout < 1:
            raise ValueError(
                f"For '{cls}', the 'dropout' must be a number in range [0, 1) representing "
                f"the probability of an element being zeroed, but got {dropout}."
            )
        if dropout > 0 and num_layers == 1:
            _log.warning(
                "dropout option adds dropout after all but last recurrent layer, so non-zero "
                "dropout expects num_layers greater than 1, but got dropout=%s and "
                "num_layers=%s",
                dropout,
                num_layers,
            )
        if mode not in _GATES:
            raise ValueError(
                f"For '{cls}', the 'mode' must be in ['RNN_RELU', 'RNN_TANH', 'LSTM', 'GRU'], "
                f"but got {mode}."
            )
        self.mode = mode
        self.is_lstm = mode == "LSTM"
        self.dropout = float(dropout)
        self.dtype = check_dtype(dtype, cls)
        self.num_directions = 2 if self.bidirectional else 1
        gate_size = _GATES[mode] * self.hidden_size
        init = Uniform(1 / math.sqrt(self.hidden_size))
        #: per (layer, direction), in MindSpore's order: the attribute names of
        #: (w_ih, w_hh, b_ih, b_hh), the biases None without has_bias
        self._weight_names: list[tuple[str, str, str | None, str | None]] = []
        for layer in range(self.num_layers):
            for direction in range(self.num_directions):
                in_size = self.input_size if layer == 0 else self.hidden_size * self.num_directions
                suffix = f"l{layer}" + ("_reverse" if direction == 1 else "")
                shapes = {
                    f"weight_ih_{suffix}": (gate_size, in_size),
                    f"weight_hh_{suffix}": (gate_size, self.hidden_size),
                }
                if self.has_bias:
                    shapes[f"bias_ih_{suffix}"] = (gate_size,)
                    shapes[f"bias_hh_{suffix}"] = (gate_size,)
                for name, shape in shapes.items():
                    setattr(self, name, Parameter(initializer(init, shape, self.dtype), name=name))
                bias = (f"bias_ih_{suffix}", f"bias_hh_{suffix}") if self.has_bias else (None, None)
                self._weight_names.append((f"weight_ih_{suffix}", f"weight_hh_{suffix}", *bias))

    def construct(self, x, hx=None, seq_length=None):
        return self._forward(x, hx, seq_length)

    # --- plain Python (run directly in both modes) -------------------------------------
    def _weights(self, index: int, dt: D.DType) -> tuple[Any, Any, Any, Any]:
        return tuple(
            None if name is None else as_dtype(getattr(self, name), dt)
            for name in self._weight_names[index]
        )  # type: ignore[return-value]

    def _check_inputs(self, x: Any, hx: Any, seq_length: Any) -> None:
        cls = self.cls_name
        check_tensor(x, "x", cls)
        if len(x.shape) != 3:
            raise ValueError(
                f"For '{cls}', 'x' must be a 3-D Tensor (seq_len, batch_size, input_size) "
                f"or (batch_size, seq_len, input_size), but got shape {x.shape}."
            )
        if x.shape[2] != self.input_size:
            raise ValueError(
                f"For '{cls}', the last dimension of 'x' must be input_size "
                f"{self.input_size}, but got {x.shape[2]}."
            )
        batch = x.shape[0] if self.batch_first else x.shape[1]
        if hx is not None:
            if self.is_lstm:
                check_hx_tuple(hx, cls)
                names, states = ["x", "hx[0]", "hx[1]"], [x, hx[0], hx[1]]
            else:
                names, states = ["x", "hx"], [x, hx]
            check_float_dtypes(names, states, cls)
            want = (self.num_layers * self.num_directions, batch, self.hidden_size)
            for name, state in zip(names[1:], states[1:], strict=True):
                if tuple(state.shape) != want:
                    raise ValueError(
                        f"For '{cls}', '{name}' must have shape (num_directions * num_layers, "
                        f"batch_size, hidden_size) = {want}, but got {state.shape}."
                    )
        else:
            check_float_dtypes(["x"], [x], cls)
        if seq_length is not None:
            check_tensor(seq_length, "seq_length", cls)
            if seq_length.dtype not in (D.int32, D.int64):
                raise TypeError(
                    f"For '{cls}', the dtype of 'seq_length' must be int32 or int64, "
                    f"but got {seq_length.dtype}."
                )
            if tuple(seq_length.shape) != (batch,):
                raise ValueError(
                    f"For '{cls}', 'seq_length' must have shape (batch_size,) = ({batch},), "
                    f"but got {seq_length.shape}."
                )

    def _forward(self, x: Any, hx: Any = None, seq_length: Any = None) -> Any:
        self._check_inputs(x, hx, seq_length)
        dt = x.dtype
        if self.batch_first:
            x = ops.transpose(x, (1, 0, 2))
        steps, batch = x.shape[0], x.shape[1]
        shape = (self.num_layers * self.num_directions, batch, self.hidden_size)
        if hx is None:
            zeros = ops.zeros(shape, dt)
            hx = (zeros, zeros) if self.is_lstm else zeros
        if self.is_lstm:
            h0s, c0s = ops.unstack(hx[0], 0), ops.unstack(hx[1], 0)
            states = [(h, c) for h, c in zip(h0s, c0s, strict=True)]
        else:
            states = list(ops.unstack(hx, 0))
        masks = None
        if seq_length is not None:
            masks = [
                ops.broadcast_to(
                    ops.expand_dims(ops.gt(seq_length, t), 1), (batch, self.hidden_size)
                )
                for t in range(steps)
            ]
        layer_in = x
        finals: list[Any] = []
        for layer in range(self.num_layers):
            outs = []
            for direction in range(self.num_directions):
                index = layer * self.num_directions + direction
                out, final = self._run(layer_in, states[index], index, direction == 1, masks, dt)
                outs.append(out)
                finals.append(final)
            layer_in = outs[0] if len(outs) == 1 else ops.concat(outs, 2)
            if self.training and self.dropout > 0 and layer < self.num_layers - 1:
                layer_in = ops.dropout(layer_in, self.dropout)
        output = ops.transpose(layer_in, (1, 0, 2)) if self.batch_first else layer_in
        if self.is_lstm:
            h_n = ops.stack([f[0] for f in finals], 0)
            c_n = ops.stack([f[1] for f in finals], 0)
            return output, (h_n, c_n)
        return output, ops.stack(finals, 0)

    def _run(
        self, x: Any, state: Any, index: int, reverse: bool, masks: Any, dt: D.DType
    ) -> tuple[Any, Any]:
        """One direction of one layer over all the steps: (outputs (T, B, H), last state)."""
        w_ih, w_hh, b_ih, b_hh = self._weights(index, dt)
        steps, batch = x.shape[0], x.shape[1]
        projected = linear(ops.reshape(x, (steps * batch, x.shape[2])), w_ih, b_ih)
        gxs = ops.unstack(ops.reshape(projected, (steps, batch, w_ih.shape[0])), 0)
        outputs: list[Any] = [None] * steps
        order = range(steps - 1, -1, -1) if reverse else range(steps)
        zero = None if masks is None else ops.zeros((batch, self.hidden_size), dt)
        for t in order:
            new = rnn_step(self.mode, gxs[t], state, w_hh, b_hh)
            if masks is None:
                state = new
                outputs[t] = new[0] if self.is_lstm else new
                continue
            keep = masks[t]
            if self.is_lstm:
                state = (ops.select(keep, new[0], state[0]), ops.select(keep, new[1], state[1]))
                outputs[t] = ops.select(keep, new[0], zero)
            else:
                state = ops.select(keep, new, state)
                outputs[t] = ops.select(keep, new, zero)
        return ops.stack(outputs, 0), state

    def extend_repr(self) -> str:
        return (
            f"input_size={self.input_size}, hidden_size={self.hidden_size}, "
            f"num_layers={self.num_layers}, has_bias={self.has_bias}, "
            f"batch_first={self.batch_first}, dropout={self.dropout}, "
            f"bidirectional={self.bidirectional}"
        )


class RNN(_RNNBase):
    """`nn.RNN(input_size, hidden_size, num_layers=1, has_bias=True, batch_first=False,
    dropout=0.0, bidirectional=False, dtype=mstype.float32, *, nonlinearity='tanh')`:
    h_t = act(W_ih x_t + b_ih + W_hh h_(t-1) + b_hh). As in MindSpore, `nonlinearity`
    is a keyword (the fourth positional argument is has_bias). Inputs (x, hx=None,
    seq_length=None) -> (output, h_n)."""

    def __init__(self, *args: Any, nonlinearity: str = "tanh", **kwargs: Any):
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(
                f"For 'RNN', the 'nonlinearity' must be in ['tanh', 'relu'], "
                f"but got {nonlinearity}."
            )
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", *args, **kwargs)
        self.nonlinearity = nonlinearity


class GRU(_RNNBase):
    """`nn.GRU(input_size, hidden_size, num_layers=1, has_bias=True, batch_first=False,
    dropout=0.0, bidirectional=False, dtype=mstype.float32)`: gates r, z, n.
    Inputs (x, hx=None, seq_length=None) -> (output, h_n)."""

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__("GRU", *args, **kwargs)


class LSTM(_RNNBase):
    """`nn.LSTM(input_size, hidden_size, num_layers=1, has_bias=True, batch_first=False,
    dropout=0.0, bidirectional=False, dtype=mstype.float32)`: gates i, f, g, o.
    Inputs (x, hx=(h_0, c_0) or None, seq_length=None) -> (output, (h_n, c_n))."""

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__("LSTM", *args, **kwargs)


__all__ = ["GRU", "LSTM", "RNN"]
