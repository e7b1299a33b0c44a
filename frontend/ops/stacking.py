"""MindSpore 2.10's stacking, splitting and rearranging functions, composed of the
ops mindjit has (concat, reshape, flip, transpose, constant slices), so both modes
and gradients follow: `ops.atleast_1d/2d/3d`, `ops.hstack`, `ops.vstack`,
`ops.dstack`, `ops.column_stack`, `ops.tensor_split`, `ops.hsplit`, `ops.vsplit`,
`ops.dsplit`, `ops.rot90`, `ops.diff`, `ops.kron`, `ops.fliplr`, `ops.flipud`,
`ops.row_stack`, `ops.ravel`, `ops.cartesian_prod`.

Shapes are static, so every split is a tuple of constant slices (frontend/ops/split.py).
MindSpore 2.10's own rules, which mindjit follows: `hsplit` wants rank >= 2 (numpy
splits a 1-D tensor), `vsplit` splits a 1-D tensor on axis 0, `diff` takes only
n=1 (a RuntimeError otherwise), and `rot90`'s bad `dims` are a RuntimeError.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mindjit.frontend.ops.array import broadcast_to, concat, reshape, stack, transpose
from mindjit.frontend.ops.cast import promote
from mindjit.frontend.ops.conv import flip
from mindjit.frontend.ops.core import normalize_axis
from mindjit.frontend.ops.math import logical_xor, mul, sub
from mindjit.frontend.ops.promotion import is_tensor
from mindjit.frontend.ops.split import slice_axis


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


# --- atleast_nd and stacking ------------------------------------------------------------


def _atleast(name: str, rank: int, inputs: Any) -> Any:
    def one(x: Any) -> Any:
        if not is_tensor(x):
            raise TypeError(f"For '{name}', each input must be a Tensor, but got {type(x)}")
        shape = tuple(x.shape)
        if len(shape) >= rank:
            return x
        if rank == 3 and len(shape) == 2:
            return reshape(x, (*shape, 1))
        if rank == 3 and len(shape) == 1:
            return reshape(x, (1, *shape, 1))
        return reshape(x, (1,) * (rank - len(shape)) + shape)

    if is_tensor(inputs):
        return one(inputs)
    if not isinstance(inputs, list | tuple):
        raise TypeError(
            f"For '{name}', the input must be a Tensor, list or tuple, but got {type(inputs)}"
        )
    return tuple(one(x) for x in inputs)


def atleast_1d(inputs: Any) -> Any:
    """`ops.atleast_1d(inputs)`: a 0-D tensor as shape (1,); a list gives a tuple."""
    return _atleast("atleast_1d", 1, inputs)


def atleast_2d(inputs: Any) -> Any:
    """`ops.atleast_2d(inputs)`: leading 1s up to rank 2."""
    return _atleast("atleast_2d", 2, inputs)


def atleast_3d(inputs: Any) -> Any:
    """`ops.atleast_3d(inputs)`: numpy's rule: (n,) -> (1, n, 1), (a, b) -> (a, b, 1)."""
    return _atleast("atleast_3d", 3, inputs)


def _tensors(name: str, tensors: Any) -> Sequence[Any]:
    if not isinstance(tensors, list | tuple):
        raise TypeError(f"For {name}, the input must be list or tuple, but got {type(tensors)}.")
    if not tensors:
        raise TypeError(f"For '{name}', inputs can not be empty")
    return tensors


def hstack(tensors: Any) -> Any:
    """`ops.hstack(tensors)`: concatenated on axis 1 (axis 0 for 1-D tensors)."""
    ts = _atleast("hstack", 1, _tensors("hstack", tensors))
    return concat(list(ts), 0 if len(ts[0].shape) == 1 else 1)


def vstack(inputs: Any) -> Any:
    """`ops.vstack(inputs)`: each at least 2-D, concatenated on axis 0."""
    return concat(list(_atleast("vstack", 2, _tensors("vstack", inputs))), 0)


def dstack(tensors: Any) -> Any:
    """`ops.dstack(tensors)`: each at least 3-D, concatenated on axis 2."""
    return concat(list(_atleast("dstack", 3, _tensors("dstack", tensors))), 2)


def column_stack(tensors: Any) -> Any:
    """`ops.column_stack(tensors)`: 1-D tensors as columns, concatenated on axis 1."""

    def column(x: Any) -> Any:
        if not is_tensor(x):
            raise TypeError(f"For column_stack, each input must be a Tensor, but got {type(x)}")
        if len(x.shape) < 2:
            return reshape(x, (-1, 1))
        return x

    return concat([column(x) for x in _tensors("column_stack", tensors)], 1)


# --- splitting --------------------------------------------------------------------------


def _split_at(name: str, x: Any, indices_or_sections: Any, axis: int) -> tuple[Any, ...]:
    n = x.shape[axis]
    if _is_int(indices_or_sections):
        sections = indices_or_sections
        if sections <= 0:
            raise ValueError(
                f"For {name}, the value of 'indices_or_sections' must be more than zero "
                f"but got {sections}"
            )
        size, extra = divmod(n, sections)
        bounds, start = [], 0
        for i in range(sections):
            stop = start + size + (1 if i < extra else 0)
            bounds.append((start, stop))
            start = stop
    elif isinstance(indices_or_sections, list | tuple) and all(
        _is_int(i) for i in indices_or_sections
    ):
        edges = [0, *indices_or_sections, n]
        bounds = []
        for a, b in zip(edges, edges[1:], strict=False):
            start, stop, _ = slice(a, b).indices(n)
            bounds.append((start, max(start, stop)))
    else:
        raise TypeError(
            "Type of Argument `indices_or_sections` should be integer, tuple(int) or list(int), "
            f"but got {type(indices_or_sections)}"
        )
    return tuple(slice_axis(x, axis, a, b) for a, b in bounds)


def tensor_split(input: Any, indices_or_sections: Any, axis: int = 0) -> tuple[Any, ...]:  # noqa: A002
    """`ops.tensor_split(input, indices_or_sections, axis=0)`: numpy's array_split:
    n sections (the first n % size one longer) or pieces cut at the indices."""
    if not is_tensor(input):
        raise TypeError(f"expect `x` is a Tensor, but got {type(input)}")
    if not _is_int(axis):
        raise TypeError(f"For tensor_split, `axis` must be an int, but got {type(axis)}")
    rank = len(input.shape)
    if not -rank <= axis < rank:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {rank}")
    return _split_at("tensor_split", input, indices_or_sections, axis % rank)


def _split_rank(name: str, input: Any, rank: int) -> None:  # noqa: A002
    if not is_tensor(input):
        raise TypeError(f"expect `x` is a Tensor, but got {type(input)}")
    if len(input.shape) < rank:
        raise ValueError(
            f"{name} expect `x` is a Tensor with at least {rank} dimension, "
            f"but got {len(input.shape)}"
        )


def hsplit(input: Any, indices_or_sections: Any) -> tuple[Any, ...]:  # noqa: A002
    """`ops.hsplit(input, indices_or_sections)`: tensor_split on axis 1 (rank >= 2)."""
    _split_rank("hsplit", input, 2)
    return _split_at("hsplit", input, indices_or_sections, 1)


def vsplit(input: Any, indices_or_sections: Any) -> tuple[Any, ...]:  # noqa: A002
    """`ops.vsplit(input, indices_or_sections)`: tensor_split on axis 0."""
    _split_rank("vsplit", input, 1)
    return _split_at("vsplit", input, indices_or_sections, 0)


def dsplit(input: Any, indices_or_sections: Any) -> tuple[Any, ...]:  # noqa: A002
    """`ops.dsplit(input, indices_or_sections)`: tensor_split on axis 2 (rank >= 3)."""
    _split_rank("dsplit", input, 3)
    return _split_at("dsplit", input, indices_or_sections, 2)


# --- rot90, diff, kron ------------------------------------------------------------------


def rot90(input: Any, k: int, dims: Any) -> Any:  # noqa: A002
    """`ops.rot90(input, k, dims)`: rotated k times by 90 degrees from dims[0]
    toward dims[1] (torch's rule: k=1 flips dims[1], then swaps the two)."""
    if not is_tensor(input):
        raise TypeError(f"For `rot90`, the `input` must be Tensor!, but get {type(input)}.")
    if not _is_int(k):
        raise TypeError(f"For `rot90`, the `k` must be int!, but get {type(k)}.")
    if not isinstance(dims, list | tuple) or len(dims) != 2 or not all(_is_int(d) for d in dims):
        raise TypeError(
            f"For `rot90`, the `dims` must be a list or tuple of two ints, but get {dims}."
        )
    rank = len(input.shape)
    d0, d1 = dims
    if (
        rank < 2
        or d0 % max(rank, 1) == d1 % max(rank, 1)
        or not all(-rank <= d < rank for d in dims)
    ):
        raise RuntimeError(
            f"For `rot90`, rotation dims must be different, but get dim0={d0}, dim1={d1}."
        )
    d0, d1 = d0 % rank, d1 % rank
    perm = list(range(rank))
    perm[d0], perm[d1] = perm[d1], perm[d0]
    k %= 4
    if k == 0:
        return input
    if k == 2:
        return flip(input, (d0, d1))
    return transpose(flip(input, (d1 if k == 1 else d0,)), perm)


def diff(x: Any, n: int = 1, axis: int = -1, prepend: Any = None, append: Any = None) -> Any:
    """`ops.diff(x, n=1, axis=-1, prepend=None, append=None)`: x[i+1] - x[i] along
    `axis` after joining `prepend` and `append` (a bool tensor gives x[i+1] != x[i]).
    MindSpore 2.10 takes only n=1."""
    if not is_tensor(x):
        raise TypeError(f"For 'diff', 'x' must be a tensor, but got {type(x)}")
    if not _is_int(n):
        raise TypeError(f"For 'diff', the type of 'n' must be 'int', but got '{type(n).__name__}'.")
    if n != 1:
        raise RuntimeError(f"For 'diff', 'n' must be 1, but got {n}")
    rank = len(x.shape)
    if not -rank <= axis < rank:
        raise IndexError("tuple index out of range")
    axis = normalize_axis(axis, rank, "diff")
    parts = [p for p in (prepend, x, append) if p is not None]
    if len(parts) > 1:
        x = concat(parts, axis)
    length = x.shape[axis]
    later, earlier = slice_axis(x, axis, 1, length), slice_axis(x, axis, 0, length - 1)
    if x.dtype.is_bool:
        return logical_xor(later, earlier)
    return sub(later, earlier)


def kron(input: Any, other: Any) -> Any:  # noqa: A002
    """`ops.kron(input, other)`: the Kronecker product (the lower rank padded with
    leading 1s): out[i*b + k] = input[i] * other[k] on every axis."""
    if not is_tensor(input) or not is_tensor(other):
        raise TypeError("the input must be Tensor!")
    a, b = promote(input, other, what="kron")
    rank = max(len(a.shape), len(b.shape))
    sa = (1,) * (rank - len(a.shape)) + tuple(a.shape)
    sb = (1,) * (rank - len(b.shape)) + tuple(b.shape)
    ia = reshape(a, tuple(d for s in sa for d in (s, 1)))
    ib = reshape(b, tuple(d for s in sb for d in (1, s)))
    return reshape(mul(ia, ib), tuple(p * q for p, q in zip(sa, sb, strict=True)))


# --- flips, ravel, cartesian_prod ----------------------------------------------------------


def fliplr(input: Any) -> Any:  # noqa: A002 - MindSpore's name
    """`ops.fliplr(input)`: axis 1 reversed (rank >= 2)."""
    if not is_tensor(input):
        raise TypeError(f"For 'fliplr', the input must be a Tensor, but got {type(input)}")
    rank = len(input.shape)
    if rank < 2:
        raise ValueError(
            f"For 'ReverseV2', the 'axis[0]' must be in range of [{-rank}, {rank}), but got 1 "
            "with type 'int'."
        )
    return flip(input, (1,))


def flipud(input: Any) -> Any:  # noqa: A002 - MindSpore's name
    """`ops.flipud(input)`: axis 0 reversed (rank >= 1)."""
    if not is_tensor(input):
        raise TypeError(f"For 'flipud', the input must be a Tensor, but got {type(input)}")
    if not input.shape:
        raise ValueError("For 'ReverseV2', the 'axis[0]' must be in range of [0, 0), but got 0")
    return flip(input, (0,))


def row_stack(tensors: Any) -> Any:
    """`ops.row_stack(tensors)`: vstack's other name."""
    return vstack(tensors)


def ravel(input: Any) -> Any:  # noqa: A002 - MindSpore's name
    """`ops.ravel(input)`: the elements as a 1-D tensor, row-major."""
    if not is_tensor(input):
        raise TypeError(f"For 'ravel', the input must be a Tensor, but got {type(input)}")
    return reshape(input, (-1,))


def cartesian_prod(*inputs: Any) -> Any:
    """`ops.cartesian_prod(*inputs)`: every combination of the 1-D inputs' elements,
    one row each (shape (N, len(inputs)); MindSpore 2.10 keeps the 2-D shape for a
    single input)."""
    if not inputs:
        raise TypeError("For 'cartesian_prod', at least one input is required")
    for t in inputs:
        if not is_tensor(t) or len(t.shape) != 1:
            raise ValueError("For 'cartesian_prod', each input must be a 1-D Tensor")
    ts = promote(*inputs, what="cartesian_prod")
    shape = tuple(t.shape[0] for t in ts)
    grids = []
    for k, t in enumerate(ts):
        lane = tuple(-1 if a == k else 1 for a in range(len(ts)))
        grids.append(reshape(broadcast_to(reshape(t, lane), shape), (-1,)))
    return stack(grids, 1)
