"""Shape and dtype ops: cast, reshape, transpose, stack/concat, squeeze, constants.

Shapes are static (graph values know theirs), so `-1` in a reshape, negative
axes and squeezed axes are resolved here and the mindir ops get plain numbers.
Constant makers (`ones`, `fill` ...) return Tensors in both modes: MindSpore
folds them at compile time too, and a Tensor used in a graph is a constant.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from mindjit.dialects import mindir as M
from mindjit.frontend import dtype as D
from mindjit.frontend.ops.cast import cast, promote, snapshot  # noqa: F401 - ops.array.cast is its home in MindSpore's layout too
from mindjit.frontend.ops.core import normalize_axes, normalize_axis, one, run
from mindjit.frontend.ops.promotion import as_operand, default_dtype, is_tensor
from mindjit.frontend.tensor import Tensor

ShapeLike = int | Sequence[int]


def _tensor(x: Any, name: str) -> Any:
    x = as_operand(x, f"'{name}' input")
    if not is_tensor(x):
        x = Tensor(x)
    return x


def _shape_tuple(shape: Any, name: str) -> tuple[int, ...]:
    if is_tensor(shape):
        shape = shape.asnumpy().tolist() if hasattr(shape, "asnumpy") else None
        if shape is None:
            raise TypeError(f"For '{name}', the shape must be a constant")
    if isinstance(shape, int | np.integer) and not isinstance(shape, bool):
        return (int(shape),)
    if isinstance(shape, list | tuple) and all(
        isinstance(d, int | np.integer) and not isinstance(d, bool) for d in shape
    ):
        return tuple(int(d) for d in shape)
    raise TypeError(f"For '{name}', the shape must be an int or a tuple of ints, got {shape!r}")


def _resolve_shape(src: tuple[int, ...], shape: tuple[int, ...], name: str) -> tuple[int, ...]:
    """Fill in one -1 from the element count; check the count matches."""
    size = math.prod(src)
    if shape.count(-1) > 1:
        raise ValueError(f"For '{name}', only one dimension can be -1, got {shape}")
    if any(d < -1 for d in shape):
        raise ValueError(f"For '{name}', dimensions must be >= -1, got {shape}")
    if -1 in shape:
        known = math.prod(d for d in shape if d != -1)
        if known == 0 or size % known:
            raise ValueError(f"For '{name}', cannot reshape a tensor of shape {src} into {shape}")
        shape = tuple(size // known if d == -1 else d for d in shape)
    if math.prod(shape) != size:
        raise ValueError(f"For '{name}', cannot reshape a tensor of shape {src} into {shape}")
    return shape


def _reshape_to(x: Any, shape: tuple[int, ...]) -> Any:
    return run(("reshape", shape), lambda e, v: e.value(M.ReshapeOp.get(v[0], shape)), x)


def reshape(input: Any, shape: Any) -> Any:
    """`ops.reshape(x, (2, -1))`."""
    x = _tensor(input, "reshape")
    return _reshape_to(x, _resolve_shape(tuple(x.shape), _shape_tuple(shape, "reshape"), "reshape"))


def transpose(input: Any, input_perm: Sequence[int]) -> Any:
    """`ops.transpose(x, (1, 0))`: result axis i is input axis input_perm[i]."""
    x = _tensor(input, "transpose")
    rank = len(x.shape)
    perm = tuple(normalize_axis(int(p), rank, "transpose") for p in input_perm)
    if sorted(perm) != list(range(rank)):
        raise ValueError(
            f"For 'transpose', {tuple(input_perm)} is not a permutation of {rank} axes"
        )
    return run(("transpose", perm), one(M.TransposeOp, perm=perm), x)


def permute(input: Any, axis: Sequence[int]) -> Any:
    return transpose(input, axis)


def squeeze(input: Any, axis: int | Sequence[int] | None = None) -> Any:
    """Drop size-1 axes (all of them, or the given ones, which must have size 1)."""
    x = _tensor(input, "squeeze")
    shape = tuple(x.shape)
    if axis is None or (isinstance(axis, tuple | list) and not axis):
        drop = {i for i, d in enumerate(shape) if d == 1}
    else:
        drop = set(normalize_axes(axis, len(shape), "squeeze"))
        for a in drop:
            if shape[a] != 1:
                raise ValueError(
                    f"For 'squeeze', axis {a} of shape {shape} has size {shape[a]}, not 1"
                )
    return _reshape_to(x, tuple(d for i, d in enumerate(shape) if i not in drop))


def expand_dims(input_x: Any, axis: int) -> Any:
    """Insert a size-1 axis at `axis` (counted in the result's rank)."""
    x = _tensor(input_x, "expand_dims")
    shape = list(x.shape)
    shape.insert(normalize_axis(axis, len(shape) + 1, "expand_dims"), 1)
    return _reshape_to(x, tuple(shape))


def unsqueeze(input: Any, dim: int) -> Any:
    return expand_dims(input, dim)


def flatten(input: Any, order: str = "C", *, start_dim: int = 1, end_dim: int = -1) -> Any:
    """MindSpore 2.x `ops.flatten`: merge axes start_dim..end_dim (default: all but the first)."""
    if order != "C":
        raise ValueError("For 'flatten', only order='C' is supported")
    x = _tensor(input, "flatten")
    shape = tuple(x.shape)
    if not shape:
        return _reshape_to(x, (1,))
    lo = normalize_axis(start_dim, len(shape), "flatten")
    hi = normalize_axis(end_dim, len(shape), "flatten")
    if lo > hi:
        raise ValueError(f"For 'flatten', start_dim {start_dim} is after end_dim {end_dim}")
    return _reshape_to(x, (*shape[:lo], math.prod(shape[lo : hi + 1]), *shape[hi + 1 :]))


def broadcast_to(input: Any, shape: Sequence[int]) -> Any:
    """numpy broadcasting to `shape`; -1 keeps the input's size on that axis."""
    x = _tensor(input, "broadcast_to")
    src = tuple(x.shape)
    want = _shape_tuple(shape, "broadcast_to")
    offset = len(want) - len(src)
    if offset < 0:
        raise ValueError(f"For 'broadcast_to', cannot broadcast {src} to {want}")
    out = tuple(src[i - offset] if d == -1 and i >= offset else d for i, d in enumerate(want))
    if any(d < 0 for d in out):
        raise ValueError(f"For 'broadcast_to', cannot broadcast {src} to {want}")
    return run(("broadcast_to", out), lambda e, v: e.value(M.BroadcastToOp.get(v[0], out)), x)


def _join(name: str, op_cls: Any, tensors: Sequence[Any], axis: int, extra_rank: int) -> Any:
    if not isinstance(tensors, list | tuple):
        raise TypeError(f"For '{name}', the inputs must be a tuple or list of tensors")
    if not tensors:
        raise ValueError(f"For '{name}', the input list is empty")
    items = promote(*tensors, what=name)
    rank = len(items[0].shape) + extra_rank
    ax = normalize_axis(axis, rank, name)

    def build(e: Any, v: list[Any]) -> Any:
        return e.value(op_cls.get(v, ax))

    return run((name, ax, len(items)), build, *items)


def concat(tensors: Sequence[Any], axis: int = 0) -> Any:
    """Join tensors along an existing axis."""
    return _join("concat", M.ConcatOp, tensors, axis, 0)


def cat(tensors: Sequence[Any], axis: int = 0) -> Any:
    return concat(tensors, axis)


def stack(tensors: Sequence[Any], axis: int = 0) -> Any:
    """Join same-shaped tensors along a new axis."""
    return _join("stack", M.StackOp, tensors, axis, 1)


def unstack(input_x: Any, axis: int = 0) -> tuple[Any, ...]:
    """The slices of `input_x` along `axis`, as a tuple (the inverse of `stack`)."""
    x = _tensor(input_x, "unstack")
    rank = len(x.shape)
    if rank == 0:
        raise ValueError("For 'unstack', the input must have rank >= 1, got a scalar tensor")
    ax = normalize_axis(axis, rank, "unstack")

    def build(e: Any, v: list[Any]) -> Any:
        return list(e.insert(M.UnstackOp.get(v[0], ax)).results)

    return tuple(run(("unstack", ax), build, x))


# --- constants ----------------------------------------------------------------------


def _const(shape: Any, dtype: Any, value: Any, name: str) -> Any:

    dims = _shape_tuple(shape, name)
    if any(d < 0 for d in dims):
        raise ValueError(f"For '{name}', the shape must not be negative, got {dims}")
    return Tensor._wrap(np.full(dims, value, dtype=D.to_dtype(dtype).numpy))


def ones(shape: Any, dtype: Any = None) -> Any:
    """`ops.ones((2, 3), ms.float32)`; the default dtype is float32."""
    return _const(shape, dtype or D.float32, 1, "ones")


def zeros(size: Any, dtype: Any = None) -> Any:
    return _const(size, dtype or D.float32, 0, "zeros")


def fill(type: Any, shape: Any, value: Any) -> Any:
    """`ops.fill(mstype.float32, (2, 2), 1)`."""
    return _const(shape, type, value, "fill")


def full(size: Any, fill_value: Any, *, dtype: Any = None) -> Any:
    """`ops.full((2, 2), 3)`: the dtype defaults to the value's (int64, float32, bool)."""

    if is_tensor(fill_value):
        fill_value = fill_value.asnumpy().item()
    return _const(size, dtype or default_dtype(fill_value), fill_value, "full")


def ones_like(input: Any, *, dtype: Any = None) -> Any:
    x = _tensor(input, "ones_like")
    return _const(tuple(x.shape), dtype or x.dtype, 1, "ones_like")


def zeros_like(input: Any, *, dtype: Any = None) -> Any:
    x = _tensor(input, "zeros_like")
    return _const(tuple(x.shape), dtype or x.dtype, 0, "zeros_like")


def full_like(input: Any, fill_value: Any, *, dtype: Any = None) -> Any:
    x = _tensor(input, "full_like")
    return _const(tuple(x.shape), dtype or x.dtype, fill_value, "full_like")


# --- static facts --------------------------------------------------------------------


def shape(input_x: Any) -> tuple[int, ...]:
    """`ops.shape(x)`: a tuple of ints, known at compile time."""
    return tuple(_tensor(input_x, "shape").shape)


def rank(input_x: Any) -> int:
    return len(shape(input_x))


def size(input_x: Any) -> int:
    return math.prod(shape(input_x))


def dtype(input_x: Any) -> D.DType:
    return _tensor(input_x, "dtype").dtype
