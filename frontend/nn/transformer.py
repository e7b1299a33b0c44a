"""`nn.TransformerEncoderLayer`, `TransformerEncoder`, `TransformerDecoderLayer`,
`TransformerDecoder` and `Transformer` (MindSpore 2.x), built from
`nn.MultiheadAttention`, `Dense`, `LayerNorm` and `Dropout`.

Post-norm (default) is x = norm(x + block(x)); `norm_first=True` is
x = x + block(norm(x)). The feed-forward block is dense2(dropout(act(dense1(x))))
with act relu or gelu (a string, `nn.ReLU`/`nn.GELU`, or `ops.relu`/`ops.gelu`).
Dense layers are initialised He uniform (a = sqrt(5)) with U(-1/sqrt(fan_in),
1/sqrt(fan_in)) biases, as MindSpore does.

As in MindSpore, `TransformerEncoder(encoder_layer, num_layers)` builds a fresh
layer with `encoder_layer`'s settings and stacks `num_layers` deep copies of it
(so every layer starts from the same weights, and `encoder_layer`'s own weights
are not used); the same holds for the decoder. `Transformer` re-initialises every
Parameter of rank > 1 Xavier uniform.

Dropout cells are applied only in training mode: they are the identity in eval
mode anyway, and skipping them keeps float64 layers usable (nn.Dropout accepts
float16/float32 only).
"""

from __future__ import annotations

import copy
import math
from typing import Any

from mindjit.frontend import dtype as D
from mindjit.frontend import ops
from mindjit.frontend.nn.cell import Cell
from mindjit.frontend.nn.containers import CellList
from mindjit.frontend.nn.dropout import Dropout
from mindjit.frontend.nn.init import HeUniform, Uniform, XavierUniform, initializer
from mindjit.frontend.nn.layers import GELU, Dense, ReLU
from mindjit.frontend.nn.multihead_attention import MultiheadAttention, check_mask_dtype
from mindjit.frontend.nn.normalization import LayerNorm


def _activation(activation: Any) -> Any:
    """MindSpore's accepted activations: 'relu'/'gelu', nn.ReLU/nn.GELU, ops.relu/ops.gelu."""
    if isinstance(activation, str):
        if activation == "relu":
            return ops.relu
        if activation == "gelu":
            return ops.gelu
        raise ValueError(f"The activation must be relu/gelu, but get {activation}")
    if isinstance(activation, Cell):
        if not isinstance(activation, ReLU | GELU):
            raise ValueError(
                f"The argument 'activation' must be nn.ReLU or nn.GELU instance, but get {activation}."
            )
        return activation
    if callable(activation):
        if activation is not ops.relu and activation is not ops.gelu:
            raise ValueError(
                f"The argument 'activation' must be ops.relu or ops.gelu instance, "
                f"but get {activation}."
            )
        return activation
    raise ValueError(
        f"The argument 'activation' must be str, callable or Cell instance, but get {activation}."
    )


def _dense(fan_in: int, fan_out: int, dtype: Any) -> Dense:
    bound = 1 / math.sqrt(fan_in)
    return Dense(
        fan_in, fan_out, weight_init=HeUniform(math.sqrt(5)), bias_init=Uniform(bound), dtype=dtype
    )


class _LayerBase(Cell):
    """The settings and the feed-forward block the encoder and decoder layers share."""

    def _setup(
        self,
        d_model: int,
        nhead: int,
        dim_feedforward: int,
        dropout: float,
        activation: Any,
        layer_norm_eps: float,
        batch_first: bool,
        norm_first: bool,
        dtype: Any,
        norms: int,
    ) -> None:
        self.activation1 = activation
        self.activation = _activation(activation)
        self.dense1 = _dense(d_model, dim_feedforward, dtype)
        self.dropout = Dropout(p=dropout)
        self.dense2 = _dense(dim_feedforward, d_model, dtype)
        for i in range(1, norms + 1):
            setattr(self, f"norm{i}", LayerNorm((d_model,), epsilon=layer_norm_eps, dtype=dtype))
            setattr(self, f"dropout{i}", Dropout(p=dropout))
        self.d_model = d_model
        self.nhead = nhead
        self.dim_feedforward = dim_feedforward
        self.dropout_num = dropout
        self.layernorm_eps = layer_norm_eps
        self.batch_first = batch_first
        self.norm_first = norm_first
        self.dtype = dtype


class TransformerEncoderLayer(_LayerBase):
    """`nn.TransformerEncoderLayer(d_model, nhead, dim_feedforward=2048, dropout=0.1,
    activation='relu', layer_norm_eps=1e-5, batch_first=False, norm_first=False,
    dtype=mstype.float32)`; inputs (src, src_mask=None, src_key_padding_mask=None)."""

    def __init__(
        self,
        d_model: int,
        nhead: int,
        dim_feedforward: int = 2048,
        dropout: float = 0.1,
        activation: Any = "relu",
        layer_norm_eps: float = 1e-5,
        batch_first: bool = False,
        norm_first: bool = False,
        dtype: Any = D.float32,
    ):
        super().__init__()
        self.self_attn = MultiheadAttention(
            d_model, nhead, dropout=dropout, batch_first=batch_first, dtype=dtype
        )
        self._setup(
            d_model,
            nhead,
            dim_feedforward,
            dropout,
            activation,
            layer_norm_eps,
            batch_first,
            norm_first,
            dtype,
            2,
        )

    def construct(self, src, src_mask=None, src_key_padding_mask=None):
        # sub-Cells are called here, in construct, so graph mode traces them as Cells
        check_mask_dtype(
            src_key_padding_mask, "key_padding_mask", AssertionError, "TransformerEncoderLayer"
        )
        x = src
        h = self.norm1(x) if self.norm_first else x
        a = self.self_attn(
            h, h, h, attn_mask=src_mask, key_padding_mask=src_key_padding_mask, need_weights=False
        )[0]
        if self.training:
            a = self.dropout1(a)
        x = x + a if self.norm_first else self.norm1(x + a)
        h = self.norm2(x) if self.norm_first else x
        f = self.activation(self.dense1(h))
        if self.training:
            f = self.dropout(f)
        f = self.dense2(f)
        if self.training:
            f = self.dropout2(f)
        return x + f if self.norm_first else self.norm2(x + f)


class TransformerDecoderLayer(_LayerBase):
    """`nn.TransformerDecoderLayer(d_model, nhead, dim_feedforward=2048, dropout=0.1,
    activation='relu', layer_norm_eps=1e-5, batch_first=False, norm_first=False,
    dtype=mstype.float32)`; inputs (tgt, memory, tgt_mask=None, memory_mask=None,
    tgt_key_padding_mask=None, memory_key_padding_mask=None)."""

    def __init__(
        self,
        d_model: int,
        nhead: int,
        dim_feedforward: int = 2048,
        dropout: float = 0.1,
        activation: Any = "relu",
        layer_norm_eps: float = 1e-5,
        batch_first: bool = False,
        norm_first: bool = False,
        dtype: Any = D.float32,
    ):
        super().__init__()
        self.self_attn = MultiheadAttention(
            d_model, nhead, dropout=dropout, batch_first=batch_first, dtype=dtype
        )
        self.multihead_attn = MultiheadAttention(
            d_model, nhead, dropout=dropout, batch_first=batch_first, dtype=dtype
        )
        self._setup(
            d_model,
            nhead,
            dim_feedforward,
            dropout,
            activation,
            layer_norm_eps,
            batch_first,
            norm_first,
            dtype,
            3,
        )

    def construct(
        self,
        tgt,
        memory,
        tgt_mask=None,
        memory_mask=None,
        tgt_key_padding_mask=None,
        memory_key_padding_mask=None,
    ):
        x = tgt
        h = self.norm1(x) if self.norm_first else x
        a = self.self_attn(
            h, h, h, attn_mask=tgt_mask, key_padding_mask=tgt_key_padding_mask, need_weights=False
        )[0]
        if self.training:
            a = self.dropout1(a)
        x = x + a if self.norm_first else self.norm1(x + a)
        h = self.norm2(x) if self.norm_first else x
        m = self.multihead_attn(
            h,
            memory,
            memory,
            attn_mask=memory_mask,
            key_padding_mask=memory_key_padding_mask,
            need_weights=False,
        )[0]
        if self.training:
            m = self.dropout2(m)
        x = x + m if self.norm_first else self.norm2(x + m)
        h = self.norm3(x) if self.norm_first else x
        f = self.activation(self.dense1(h))
        if self.training:
            f = self.dropout(f)
        f = self.dense2(f)
        if self.training:
            f = self.dropout3(f)
        return x + f if self.norm_first else self.norm3(x + f)


def _copies(layer: Cell, num_layers: int) -> list[Cell]:
    if isinstance(num_layers, bool) or not isinstance(num_layers, int):
        raise TypeError(f"The 'num_layers' must be an int, but got {type(num_layers).__name__}.")
    if num_layers < 0:
        raise ValueError(f"The 'num_layers' must be at least 0, but got {num_layers}.")
    return [copy.deepcopy(layer) for _ in range(num_layers)]


class TransformerEncoder(Cell):
    """`nn.TransformerEncoder(encoder_layer, num_layers, norm=None)`; inputs (src,
    src_mask=None, src_key_padding_mask=None)."""

    def __init__(self, encoder_layer: TransformerEncoderLayer, num_layers: int, norm: Any = None):
        super().__init__()
        e = encoder_layer
        layer = TransformerEncoderLayer(
            e.d_model,
            e.nhead,
            e.dim_feedforward,
            e.dropout_num,
            e.activation1,
            e.layernorm_eps,
            e.batch_first,
            e.norm_first,
            dtype=e.dtype,
        )
        self.layers = CellList(_copies(layer, num_layers))
        self.num_layers = num_layers
        self.norm = norm

    def construct(self, src, src_mask=None, src_key_padding_mask=None):
        check_mask_dtype(
            src_key_padding_mask, "key_padding_mask", AssertionError, "TransformerEncoder"
        )
        output = src
        for mod in self.layers:
            output = mod(output, src_mask=src_mask, src_key_padding_mask=src_key_padding_mask)
        if self.norm is not None:
            output = self.norm(output)
        return output


class TransformerDecoder(Cell):
    """`nn.TransformerDecoder(decoder_layer, num_layers, norm=None)`; inputs (tgt, memory,
    tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
    memory_key_padding_mask=None)."""

    def __init__(self, decoder_layer: TransformerDecoderLayer, num_layers: int, norm: Any = None):
        super().__init__()
        d = decoder_layer
        layer = TransformerDecoderLayer(
            d.d_model,
            d.nhead,
            d.dim_feedforward,
            d.dropout_num,
            d.activation1,
            d.layernorm_eps,
            d.batch_first,
            d.norm_first,
            dtype=d.dtype,
        )
        self.layers = CellList(_copies(layer, num_layers))
        self.num_layers = num_layers
        self.norm = norm

    def construct(
        self,
        tgt,
        memory,
        tgt_mask=None,
        memory_mask=None,
        tgt_key_padding_mask=None,
        memory_key_padding_mask=None,
    ):
        output = tgt
        for mod in self.layers:
            output = mod(
                output,
                memory,
                tgt_mask=tgt_mask,
                memory_mask=memory_mask,
                tgt_key_padding_mask=tgt_key_padding_mask,
                memory_key_padding_mask=memory_key_padding_mask,
            )
        if self.norm is not None:
            output = self.norm(output)
        return output


class Transformer(Cell):
    """`nn.Transformer(d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6,
    dim_feedforward=2048, dropout=0.1, activation='relu', custom_encoder=None,
    custom_decoder=None, layer_norm_eps=1e-5, batch_first=False, norm_first=False,
    dtype=mstype.float32)`; inputs (src, tgt, src_mask, tgt_mask, memory_mask,
    src_key_padding_mask, tgt_key_padding_mask, memory_key_padding_mask)."""

    def __init__(
        self,
        d_model: int = 512,
        nhead: int = 8,
        num_encoder_layers: int = 6,
        num_decoder_layers: int = 6,
        dim_feedforward: int = 2048,
        dropout: float = 0.1,
        activation: Any = "relu",
        custom_encoder: Cell | None = None,
        custom_decoder: Cell | None = None,
        layer_norm_eps: float = 1e-5,
        batch_first: bool = False,
        norm_first: bool = False,
        dtype: Any = D.float32,
    ):
        super().__init__()
        settings = (dim_feedforward, dropout, activation, layer_norm_eps, batch_first, norm_first)
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            layer = TransformerEncoderLayer(d_model, nhead, *settings, dtype=dtype)
            norm = LayerNorm((d_model,), epsilon=layer_norm_eps, dtype=dtype)
            self.encoder = TransformerEncoder(layer, num_encoder_layers, norm)
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            layer = TransformerDecoderLayer(d_model, nhead, *settings, dtype=dtype)
            norm = LayerNorm((d_model,), epsilon=layer_norm_eps, dtype=dtype)
            self.decoder = TransformerDecoder(layer, num_decoder_layers, norm)
        for _, p in self.parameters_and_names():
            if len(p.shape) > 1:
                p.set_data(initializer(XavierUniform(), p.shape, p.dtype))
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first

    def construct(
        self,
        src,
        tgt,
        src_mask=None,
        tgt_mask=None,
        memory_mask=None,
        src_key_padding_mask=None,
        tgt_key_padding_mask=None,
        memory_key_padding_mask=None,
    ):
        batched = len(src.shape) == 3
        axis = 0 if self.batch_first else 1
        if batched and src.shape[axis] != tgt.shape[axis]:
            raise ValueError("The number of batch size for 'src' and 'tgt' must be equal.")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise ValueError(
                "The number of features for 'src' and 'tgt' must be equal to `d_model`."
            )
        memory = self.encoder(src, src_mask=src_mask, src_key_padding_mask=src_key_padding_mask)
        return self.decoder(
            tgt,
            memory,
            tgt_mask=tgt_mask,
            memory_mask=memory_mask,
            tgt_key_padding_mask=tgt_key_padding_mask,
            memory_key_padding_mask=memory_key_padding_mask,
        )


__all__ = [
    "Transformer",
    "TransformerDecoder",
    "TransformerDecoderLayer",
    "TransformerEncoder",
    "TransformerEncoderLayer",
]
