"""`nn.EmbeddingLookup(vocab_size, embedding_size, param_init='normal',
target='CPU', slice_mode='batch_slice', manual_shapes=None, max_norm=None,
sparse=True, dtype=float32)`: the rows of `embedding_table` at the indices, an
index outside [0, vocab_size) giving a row of zeros (MindSpore's CPU
EmbeddingLookup kernel, offset 0); with `max_norm`, each looked-up vector is
clipped to that L2 norm (nn.ClipByNorm over the embedding axes).

On one device the slice modes and manual shapes change nothing (they shard the
table under auto-parallel); 'DEVICE' looks the rows up the same way. MindSpore
gives the table a sparse (RowTensor) gradient; mindjit's is the dense one, the
same values summed into the rows. MindSpore 2.10's CPU ClipByNorm kernel with an
axis does not compute per-vector norms (it is a bug there): with `max_norm`,
mindjit clips each vector as documented, and its values differ from MindSpore's."""

from __future__ import annotations

from typing import Any

from mindjit.frontend import dtype as D
from mindjit.frontend.nn.cell import Cell
from mindjit.frontend.nn.clip import ClipByNorm
from mindjit.frontend.nn.init import initializer
from mindjit.frontend.ops.gather_ops import lookup_rows
from mindjit.frontend.tensor import Parameter, Tensor

SLICE_MODES = ("batch_slice", "field_slice", "table_row_slice", "table_column_slice")


def _positive_int(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"The '{name}' must be int, but got '{type(value).__name__}'.")
    if value <= 0:
        raise ValueError(
            f"The '{name}' must be int and must > 0, but got '{value}' with type 'int'."
        )
    return value


class EmbeddingLookup(Cell):
    BATCH_SLICE = "batch_slice"
    FIELD_SLICE = "field_slice"
    TABLE_ROW_SLICE = "table_row_slice"
    TABLE_COLUMN_SLICE = "table_column_slice"

    def __init__(
        self,
        vocab_size: int,
        embedding_size: int,
        param_init: Any = "normal",
        target: str = "CPU",
        slice_mode: str = "batch_slice",
        manual_shapes: Any = None,
        max_norm: float | None = None,
        sparse: bool = True,
        dtype: Any = D.float32,
    ):
        super().__init__()
        if not isinstance(sparse, bool):
            raise TypeError(
                f"For 'EmbeddingLookup', the type of 'sparse' should be 'bool', but got type "
                f"'{type(sparse).__name__}'."
            )
        self.vocab_size = _positive_int(vocab_size, "vocab_size")
        if target not in ("CPU", "DEVICE"):
            raise ValueError(
                f"For 'EmbeddingLookup', the 'target' must be str and must be in "
                f"'['CPU', 'DEVICE']', but got '{target}'."
            )
        if not sparse and target == "CPU":
            raise ValueError(
                "For 'EmbeddingLookup', 'sparse' must be True when 'target' is \"CPU\", but got "
                f"'sparse': {sparse} and 'target': {target}"
            )
        self.target, self.sparse = target, sparse
        self.slice_mode, self.manual_shapes = slice_mode, manual_shapes
        self.embedding_size = _positive_int(embedding_size, "embedding_size")
        table = initializer(param_init, (self.vocab_size, self.embedding_size), D.to_dtype(dtype))
        self.embedding_table = Parameter(table, name="embedding_table")
        self.max_norm = None
        if max_norm is not None:
            if isinstance(max_norm, bool) or not isinstance(max_norm, float):
                raise TypeError(
                    f"The 'max_norm' must be float, but got '{type(max_norm).__name__}'"
                )
            if not max_norm > 0:
                raise ValueError(
                    f"The 'max_norm' must be float and must > 0, but got '{max_norm}' with type "
                    "'float'."
                )
            self.max_norm = Tensor(max_norm, dtype=D.float32)

    def construct(self, indices):
        out = lookup_rows(self.embedding_table, indices)
        if self.max_norm is not None:
            axis = tuple(range(len(indices.shape), len(out.shape)))
            out = ClipByNorm(axis)(out, self.max_norm)
        return out

    def extend_repr(self) -> str:
        return (
            f"vocab_size={self.vocab_size}, embedding_size={self.embedding_size}, "
            f"target={self.target}, sparse={self.sparse}"
        )
