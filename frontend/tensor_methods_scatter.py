"""`TensorMethodsScatter`: Tensor's scatter, segment, sampling and editing methods
of MindSpore 2.10 (`scatter`, `scatter_sub/mul/div/max/min`, `unsorted_segment_max/
min/prod`, `reverse_sequence`, `inplace_update`, `unique_with_pad`, `quantile`,
`nanquantile`, `multinomial`, `random_categorical`, `bernoulli`, `index_put`,
`masked_scatter`, `choose`, `fill_diagonal`, `itemset`, `resize`), a mixin of
TensorOperators.

Each calls the functional op (frontend/ops: scatter_ops.py, segment_reduce.py,
sequence_blocks.py, random_more.py, tensor_edits.py ...), so a method computes
eagerly on a Tensor and emits mindir on a GraphValue. As MindSpore's, none of
them changes self: `x.scatter_sub(i, u)` is ops.tensor_scatter_sub(x, i, u), and
the editing methods return a new tensor.
"""

from __future__ import annotations

from typing import Any

from mindjit.frontend import dtype as D
from mindjit.frontend.tensor_method_support import ops_module


def _edits() -> Any:
    from mindjit.frontend.ops import tensor_edits  # function-level: ops import Tensor (its methods)

    return tensor_edits


class TensorMethodsScatter:
    __slots__ = ()

    # --- scatters (not in place) -----------------------------------------------------------
    def scatter(self, *args: Any, **kwargs: Any) -> Any:
        """`scatter(dim, index, src)`, `scatter(axis, index, src)`, `scatter(dim, index,
        value)`, optionally reduce='add'."""
        ops = ops_module()
        names = ("dim", "index", "src")
        given = dict(zip(names, args))
        if "axis" in kwargs:
            given["dim"] = kwargs.pop("axis")
        if "value" in kwargs:
            given["src"] = kwargs.pop("value")
        reduce = kwargs.pop("reduce", None)
        given.update(kwargs)
        if set(given) != set(names):
            raise TypeError(f"Tensor.scatter takes dim, index and src, got {sorted(given)}")
        src = given["src"]
        index = given["index"]
        if not hasattr(src, "shape"):
            src = ops.full(tuple(index.shape), src, dtype=self.dtype)
        elif src.dtype != self.dtype:
            src = ops.cast(src, self.dtype)
        if reduce not in (None, "none", "add"):
            raise ValueError(f"Tensor.scatter: 'reduce' must be None or 'add', got {reduce!r}")
        reduction = "add" if reduce == "add" else "none"
        return ops.tensor_scatter_elements(self, index, src, given["dim"], reduction)

    def scatter_sub(self, indices: Any, updates: Any) -> Any:
        return ops_module().tensor_scatter_sub(self, indices, updates)

    def scatter_mul(self, indices: Any, updates: Any) -> Any:
        return ops_module().tensor_scatter_mul(self, indices, updates)

    def scatter_div(self, indices: Any, updates: Any) -> Any:
        return ops_module().tensor_scatter_div(self, indices, updates)

    def scatter_max(self, indices: Any, updates: Any) -> Any:
        return ops_module().tensor_scatter_max(self, indices, updates)

    def scatter_min(self, indices: Any, updates: Any) -> Any:
        return ops_module().tensor_scatter_min(self, indices, updates)

    def unsorted_segment_max(self, segment_ids: Any, num_segments: Any) -> Any:
        return ops_module().unsorted_segment_max(self, segment_ids, num_segments)

    def unsorted_segment_min(self, segment_ids: Any, num_segments: Any) -> Any:
        return ops_module().unsorted_segment_min(self, segment_ids, num_segments)

    def unsorted_segment_prod(self, segment_ids: Any, num_segments: Any) -> Any:
        return ops_module().unsorted_segment_prod(self, segment_ids, num_segments)

    def reverse_sequence(self, seq_lengths: Any, seq_dim: int = 0, batch_dim: int = 0) -> Any:
        return ops_module().reverse_sequence(self, seq_lengths, seq_dim, batch_dim)

    def inplace_update(self, v: Any, indices: Any) -> Any:
        return ops_module().inplace_update(self, v, indices)

    def unique_with_pad(self, pad_num: Any) -> Any:
        return ops_module().unique_with_pad(self, pad_num)

    def quantile(self, q: Any, axis: Any = None, keepdims: bool = False) -> Any:
        return ops_module().quantile(self, q, axis, keepdims)

    def nanquantile(self, q: Any, axis: Any = None, keepdims: bool = False) -> Any:
        return ops_module().nanquantile(self, q, axis, keepdims)

    # --- sampling ------------------------------------------------------------------------
    def multinomial(self, num_samples: int, replacement: bool = True, seed: Any = None) -> Any:
        return ops_module().multinomial(self, num_samples, replacement, seed)

    def random_categorical(self, num_sample: int, seed: int = 0, dtype: Any = None) -> Any:
        ops = ops_module()
        return ops.random_categorical(self, num_sample, seed, D.int64 if dtype is None else dtype)

    def bernoulli(self, *, generator: Any = None) -> Any:
        """1 with probability self (floats in [0, 1]), else 0, in self's dtype."""
        ops = ops_module()
        if generator is not None:
            raise NotImplementedError("Tensor.bernoulli: 'generator' is not supported")
        if not self.dtype.is_float:
            raise TypeError(
                f"For primitive[BernoulliExt], the input[input] supports types: Float16, "
                f"Float32, Float64, BFloat16. But got {self.dtype}."
            )
        u = ops.rand_like(self, dtype=D.float32)
        return ops.cast(ops.less(u, ops.cast(self, D.float32)), self.dtype)

    # --- editing (a new tensor) -------------------------------------------------------------
    def index_put(self, indices: Any, values: Any, accumulate: bool = False) -> Any:
        return _edits().index_put(self, indices, values, accumulate)

    def masked_scatter(self, mask: Any, source: Any) -> Any:
        return _edits().masked_scatter(self, mask, source)

    def choose(self, choices: Any, mode: str = "clip") -> Any:
        return _edits().choose(self, choices, mode)

    def fill_diagonal(self, fill_value: Any, wrap: bool = False) -> Any:
        return _edits().fill_diagonal(self, fill_value, wrap)

    def itemset(self, *args: Any) -> Any:
        return _edits().itemset(self, *args)

    def resize(self, *new_shape: Any) -> Any:
        return _edits().resize(self, *new_shape)
