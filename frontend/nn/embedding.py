"""`nn.Embedding`: a lookup table of word vectors (MindSpore 2.x signature).

The lookup is `mindir.gather` of the table's rows (or, with `use_one_hot`, a
one-hot matrix times the table, as MindSpore computes it); its gradient is
the output gradient summed into the looked-up rows (`unsorted_segment_sum`),
so an optimizer step changes only those rows (with plain SGD). An id outside
[0, vocab_size) looks up a row of zeros, as MindSpore documents.

`padding_idx` zeroes that row of the initial table and nothing else: MindSpore
applies it at initialisation only, so the row still receives gradients.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindjit.frontend import dtype as D
from mindjit.frontend import ops
from mindjit.frontend.nn.cell import Cell
from mindjit.frontend.nn.init import initializer
from mindjit.frontend.ops.gather_ops import lookup_rows
from mindjit.frontend.tensor import Parameter, Tensor


def _positive_int(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise TypeError(f"For 'Embedding', '{what}' must be an int, got {type(value).__name__}")
    if value <= 0:
        raise ValueError(f"For 'Embedding', '{what}' must be positive, got {value}")
    return int(value)


class Embedding(Cell):
    """`nn.Embedding(vocab_size, embedding_size, use_one_hot=False,
    embedding_table='normal', dtype=mstype.float32, padding_idx=None)`: x of int ids
    -> x.shape + (embedding_size,)."""

    def __init__(
        self,
        vocab_size: int,
        embedding_size: int,
        use_one_hot: bool = False,
        embedding_table: Any = "normal",
        dtype: Any = D.float32,
        padding_idx: int | None = None,
    ):
        super().__init__()
        self.vocab_size = _positive_int(vocab_size, "vocab_size")
        self.embedding_size = _positive_int(embedding_size, "embedding_size")
        if not isinstance(use_one_hot, bool):
            raise TypeError(
                f"For 'Embedding', 'use_one_hot' must be a bool, got {type(use_one_hot).__name__}"
            )
        self.use_one_hot = use_one_hot
        self.dtype = D.to_dtype(dtype)
        if padding_idx is not None and (
            isinstance(padding_idx, bool)
            or not isinstance(padding_idx, int | np.integer)
            or not 0 <= padding_idx < self.vocab_size
        ):
            raise ValueError(
                f"For 'Embedding', 'padding_idx' must be an int in [0, {self.vocab_size}), "
                f"got {padding_idx!r}"
            )
        self.padding_idx = padding_idx
        table = initializer(embedding_table, (self.vocab_size, self.embedding_size), self.dtype)
        if padding_idx is not None:
            values = np.array(table.asnumpy())
            values[padding_idx] = 0
            table = Tensor(values)
        self.embedding_table = Parameter(table, name="embedding_table")

    def construct(self, x):
        if self.use_one_hot:
            flat = ops.reshape(x, (-1,))
            on = Tensor(np.array(1, self.dtype.numpy))
            off = Tensor(np.array(0, self.dtype.numpy))
            rows = ops.matmul(ops.one_hot(flat, self.vocab_size, on, off), self.embedding_table)
            return ops.reshape(rows, x.shape + (self.embedding_size,))
        return lookup_rows(self.embedding_table, x)

    def extend_repr(self) -> str:
        return (
            f"vocab_size={self.vocab_size}, embedding_size={self.embedding_size}, "
            f"use_one_hot={self.use_one_hot}, embedding_table={self.embedding_table!r}, "
            f"dtype={self.dtype}, padding_idx={self.padding_idx}"
        )
