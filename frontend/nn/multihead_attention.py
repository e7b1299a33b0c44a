"""`nn.MultiheadAttention` (MindSpore 2.x) and the attention it computes.

softmax(q k^T / sqrt(head_dim) + mask) v per head, as a composition of existing
ops: the projections are matmuls against slices of `in_proj_weight` (or the
separate q/k/v weights when kdim/vdim differ from embed_dim), the heads are a
reshape to (batch * num_heads, length, head_dim) and `bmm`. A bool mask (True =
do not attend) becomes 0 / -inf, a float mask is added as it is;
`key_padding_mask` (N, S) is broadcast over heads and query positions and added
to `attn_mask` (L, S) or (N * num_heads, L, S). Dropout on the attention
weights applies in training mode only; the returned weights are those after
dropout, averaged over the heads unless `average_attn_weights=False`.

`multi_head_attention` is library code, so graph mode calls it directly with
the graph's values (the Cell's construct stays a small graph of its own).
Parameters: `in_proj_weight` (3E, E, Xavier uniform) or `q_proj_weight`,
`k_proj_weight`, `v_proj_weight`; `in_proj_bias` (3E, zeros); `out_proj`, a
Dense (He uniform a=sqrt(5), bias U(-1/sqrt(E), 1/sqrt(E))); with add_bias_kv,
`bias_k`/`bias_v` (1, 1, E, Xavier normal).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from mindjit.frontend import dtype as D
from mindjit.frontend import ops
from mindjit.frontend.nn.cell import Cell
from mindjit.frontend.nn.init import HeUniform, Uniform, XavierNormal, XavierUniform, initializer
from mindjit.frontend.nn.layers import Dense
from mindjit.frontend.nn.rnn_cells import as_dtype, linear
from mindjit.frontend.tensor import Parameter, Tensor


def check_mask_dtype(mask: Any, name: str, exc: type[Exception], cls: str) -> None:
    if mask is not None and mask.dtype != D.bool_ and not mask.dtype.is_float:
        raise exc(
            f"For '{cls}', only bool and floating types of {name} are supported, "
            f"but got {mask.dtype}."
        )


def _float_mask(mask: Any, dtype: D.DType) -> Any:
    """A bool mask as 0 / -inf in `dtype`; a float mask in `dtype`."""
    if mask.dtype == D.bool_:
        zeros = ops.zeros(mask.shape, dtype)
        return ops.masked_fill(zeros, mask, Tensor(np.array(-np.inf, dtype.numpy)))
    return as_dtype(mask, dtype)


def _project(x: Any, w: Any, b: Any) -> Any:
    """(L, N, in) -> (L, N, out) through x w^T + b."""
    length, batch = x.shape[0], x.shape[1]
    y = linear(ops.reshape(x, (length * batch, x.shape[2])), w, b)
    return ops.reshape(y, (length, batch, w.shape[0]))


def _heads(x: Any, heads: int) -> Any:
    """(S, N, E) -> (N * heads, S, E / heads)."""
    length, batch, embed = x.shape
    x = ops.reshape(x, (length, batch * heads, embed // heads))
    return ops.transpose(x, (1, 0, 2))


def _pad_last(x: Any, dtype: D.DType) -> Any:
    """One zero column appended to the last axis (masks after add_bias_kv/add_zero_attn)."""
    if x is None:
        return None
    return ops.concat((x, ops.zeros(x.shape[:-1] + (1,), dtype)), -1)


def multi_head_attention(
    cell: Any,
    query: Any,
    key: Any,
    value: Any,
    key_padding_mask: Any = None,
    attn_mask: Any = None,
    average_attn_weights: bool = True,
) -> tuple[Any, Any]:
    """(attn_output, attn_weights) of `cell` (a MultiheadAttention) for (L, N, E)
    inputs, or unbatched (L, E) ones."""
    cls = "MultiheadAttention"
    batched = len(query.shape) == 3
    if len(query.shape) not in (2, 3):
        raise ValueError(
            f"For '{cls}', 'query' must be 2-D (unbatched) or 3-D, but got shape {query.shape}."
        )
    if len(key.shape) != len(query.shape) or len(value.shape) != len(query.shape):
        raise ValueError(
            f"For '{cls}', 'query', 'key' and 'value' must have the same rank, but got "
            f"{query.shape}, {key.shape} and {value.shape}."
        )
    check_mask_dtype(key_padding_mask, "key_padding_mask", TypeError, cls)
    check_mask_dtype(attn_mask, "attn_mask", TypeError, cls)
    if not batched:
        query, key, value = (ops.expand_dims(t, 1) for t in (query, key, value))
        if key_padding_mask is not None:
            key_padding_mask = ops.expand_dims(key_padding_mask, 0)
    elif cell.batch_first:
        query, key, value = (ops.transpose(t, (1, 0, 2)) for t in (query, key, value))
    tgt_len, batch, embed = query.shape
    if embed != cell.embed_dim:
        raise ValueError(
            f"For '{cls}', the last dimension of 'query' must be embed_dim {cell.embed_dim}, "
            f"but got {embed}."
        )
    if key.shape[2] != cell.kdim or value.shape[2] != cell.vdim:
        raise ValueError(
            f"For '{cls}', the last dimensions of 'key' and 'value' must be kdim {cell.kdim} and "
            f"vdim {cell.vdim}, but got {key.shape[2]} and {value.shape[2]}."
        )
    if key.shape[:2] != value.shape[:2] or key.shape[1] != batch:
        raise ValueError(
            f"For '{cls}', 'key' and 'value' must share (source length, batch) with batch "
            f"{batch}, but got {key.shape} and {value.shape}."
        )
    dt = query.dtype
    heads, head_dim = cell.num_heads, cell.head_dim
    bias = as_dtype(cell.in_proj_bias, dt)
    b_q, b_k, b_v = (None, None, None) if bias is None else ops.split(bias, embed, 0)
    if cell.in_proj_weight is not None:
        w_q, w_k, w_v = ops.split(as_dtype(cell.in_proj_weight, dt), embed, 0)
    else:
        w_q, w_k, w_v = (
            as_dtype(w, dt) for w in (cell.q_proj_weight, cell.k_proj_weight, cell.v_proj_weight)
        )
    q = _project(query, w_q, b_q)
    k = _project(key, w_k, b_k)
    v = _project(value, w_v, b_v)
    if attn_mask is not None:
        attn_mask = _float_mask(attn_mask, dt)
        src_len = key.shape[0]
        if len(attn_mask.shape) == 2:
            if attn_mask.shape != (tgt_len, src_len):
                raise ValueError(
                    f"For '{cls}', the 2-D 'attn_mask' must have shape {(tgt_len, src_len)}, "
                    f"but got {attn_mask.shape}."
                )
            attn_mask = ops.expand_dims(attn_mask, 0)
        elif attn_mask.shape != (batch * heads, tgt_len, src_len):
            raise ValueError(
                f"For '{cls}', the 3-D 'attn_mask' must have shape "
                f"{(batch * heads, tgt_len, src_len)}, but got {attn_mask.shape}."
            )
    if key_padding_mask is not None:
        key_padding_mask = _float_mask(key_padding_mask, dt)
        if key_padding_mask.shape != (batch, key.shape[0]):
            raise ValueError(
                f"For '{cls}', 'key_padding_mask' must have shape {(batch, key.shape[0])}, "
                f"but got {key_padding_mask.shape}."
            )
    if cell.bias_k is not None:
        k = ops.concat((k, ops.broadcast_to(as_dtype(cell.bias_k, dt), (1, batch, embed))), 0)
        v = ops.concat((v, ops.broadcast_to(as_dtype(cell.bias_v, dt), (1, batch, embed))), 0)
        attn_mask = _pad_last(attn_mask, dt)
        key_padding_mask = _pad_last(key_padding_mask, dt)
    q, k, v = _heads(q, heads), _heads(k, heads), _heads(v, heads)
    if cell.add_zero_attn:
        zeros = ops.zeros((batch * heads, 1, head_dim), dt)
        k = ops.concat((k, zeros), 1)
        v = ops.concat((v, zeros), 1)
        attn_mask = _pad_last(attn_mask, dt)
        key_padding_mask = _pad_last(key_padding_mask, dt)
    src_len = k.shape[1]
    mask = attn_mask
    if key_padding_mask is not None:
        kpm = ops.broadcast_to(
            ops.reshape(key_padding_mask, (batch, 1, 1, src_len)), (batch, heads, 1, src_len)
        )
        kpm = ops.reshape(kpm, (batch * heads, 1, src_len))
        mask = kpm if mask is None else mask + kpm
    scores = ops.bmm(q * (1.0 / math.sqrt(head_dim)), ops.transpose(k, (0, 2, 1)))
    if mask is not None:
        scores = scores + mask
    weights = ops.softmax(scores, -1)
    if cell.training and cell.dropout > 0:
        weights = ops.dropout(weights, cell.dropout)
    out = ops.bmm(weights, v)  # (N * H, L, D)
    out = ops.reshape(ops.transpose(out, (1, 0, 2)), (tgt_len * batch, embed))
    out_w = as_dtype(cell.out_proj.weight, dt)
    out_b = as_dtype(cell.out_proj.bias, dt) if cell.out_proj.has_bias else None
    out = ops.reshape(linear(out, out_w, out_b), (tgt_len, batch, embed))
    weights = ops.reshape(weights, (batch, heads, tgt_len, src_len))
    if average_attn_weights:
        weights = ops.reduce_mean(weights, 1)
    if not batched:
        return ops.squeeze(out, 1), ops.squeeze(weights, 0)
    if cell.batch_first:
        out = ops.transpose(out, (1, 0, 2))
    return out, weights


class MultiheadAttention(Cell):
    """`nn.MultiheadAttention(embed_dim, num_heads, dropout=0.0, has_bias=True,
    add_bias_kv=False, add_zero_attn=False, kdim=None, vdim=None, batch_first=False,
    dtype=mstype.float32)`; inputs (query, key, value, key_padding_mask=None,
    need_weights=True, attn_mask=None, average_attn_weights=True) -> (attn_output,
    attn_weights), or (attn_output,) with need_weights=False (as MindSpore returns)."""

    def __init__(
        self,
        embed_dim: int,
        num_heads: int,
        dropout: float = 0.0,
        has_bias: bool = True,
        add_bias_kv: bool = False,
        add_zero_attn: bool = False,
        kdim: int | None = None,
        vdim: int | None = None,
        batch_first: bool = False,
        dtype: Any = D.float32,
    ):
        super().__init__()
        for name, v in (("embed_dim", embed_dim), ("num_heads", num_heads)):
            if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
                raise ValueError(
                    f"For 'MultiheadAttention', the '{name}' must be a positive int, but got {v}."
                )
        if isinstance(dropout, bool) or not isinstance(dropout, float | int):
            raise TypeError(
                f"For 'MultiheadAttention', the 'dropout' must be a float, but got {dropout!r}."
            )
        if not 0 <= dropout < 1:
            raise ValueError(
                f"For 'MultiheadAttention', the 'dropout' must be in [0, 1), but got {dropout}."
            )
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = float(dropout)
        self.batch_first = bool(batch_first)
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise ValueError("The init argument 'embed_dim' must be divisible by 'num_heads'.")
        dtype = D.to_dtype(D.float32 if dtype is None else dtype)
        self.dtype = dtype
        if self._qkv_same_embed_dim:
            self.in_proj_weight = Parameter(
                initializer(XavierUniform(), (3 * embed_dim, embed_dim), dtype), "in_proj_weight"
            )
            self.q_proj_weight = self.k_proj_weight = self.v_proj_weight = None
        else:
            self.q_proj_weight = Parameter(
                initializer(XavierUniform(), (embed_dim, embed_dim), dtype), "q_proj_weight"
            )
            self.k_proj_weight = Parameter(
                initializer(XavierUniform(), (embed_dim, self.kdim), dtype), "k_proj_weight"
            )
            self.v_proj_weight = Parameter(
                initializer(XavierUniform(), (embed_dim, self.vdim), dtype), "v_proj_weight"
            )
            self.in_proj_weight = None
        if has_bias:
            self.in_proj_bias = Parameter(
                initializer("zeros", (3 * embed_dim,), dtype), "in_proj_bias"
            )
        else:
            self.in_proj_bias = None
        bound = 1 / math.sqrt(embed_dim)
        self.out_proj = Dense(
            embed_dim,
            embed_dim,
            weight_init=HeUniform(math.sqrt(5)),
            bias_init=Uniform(bound),
            has_bias=has_bias,
            dtype=dtype,
        )
        if add_bias_kv:
            self.bias_k = Parameter(initializer(XavierNormal(), (1, 1, embed_dim), dtype), "bias_k")
            self.bias_v = Parameter(initializer(XavierNormal(), (1, 1, embed_dim), dtype), "bias_v")
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = bool(add_zero_attn)

    def construct(
        self,
        query,
        key,
        value,
        key_padding_mask=None,
        need_weights=True,
        attn_mask=None,
        average_attn_weights=True,
    ):
        out, weights = multi_head_attention(
            self, query, key, value, key_padding_mask, attn_mask, average_attn_weights
        )
        if need_weights:
            return out, weights
        return (out,)

    def extend_repr(self) -> str:
        return f"embed_dim={self.embed_dim}, num_heads={self.num_heads}, dropout={self.dropout}"


__all__ = ["MultiheadAttention", "multi_head_attention"]
