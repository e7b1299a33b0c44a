"""Shape and type inference shared by mindir's builders and verifiers.

Builders call these to infer result types (so passes never spell them out);
verifiers call the same functions and compare, so the two can never disagree.
Every function raises `VerifyException` with a message meant for the user.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import (
    AnyFloat,
    IntegerType,
    TensorType,
    i1,
)
from xdsl.ir import Attribute
from xdsl.utils.exceptions import VerifyException

from mindjit.ir import interned

Shape = tuple[int, ...]


def tensor_of(value_type: Attribute, what: str = "operand") -> TensorType:
    """The value's type as a statically shaped tensor, or a clear error."""
    if not isinstance(value_type, TensorType):
        raise VerifyException(f"{what} must be a tensor, got {value_type}")
    if any(d < 0 for d in value_type.get_shape()):
        raise VerifyException(f"{what} must have a static shape, got {value_type}")
    return value_type


def broadcast_shapes(shapes: Sequence[Shape]) -> Shape:
    """numpy broadcasting of several shapes."""
    rank = max((len(s) for s in shapes), default=0)
    result: list[int] = []
    for axis in range(rank):
        size = 1
        for s in shapes:
            d = s[axis - rank + len(s)] if axis - rank + len(s) >= 0 else 1
            if d == 1:
                continue
            if size not in (1, d):
                pretty = ", ".join("x".join(map(str, s)) or "scalar" for s in shapes)
                raise VerifyException(f"shapes are not broadcastable: {pretty}")
            size = d
        result.append(size)
    return tuple(result)


def same_element_type(types: Sequence[TensorType], op_name: str) -> Attribute:
    elements = {t.get_element_type() for t in types}
    if len(elements) != 1:
        pretty = ", ".join(str(t.get_element_type()) for t in types)
        raise VerifyException(f"operands of {op_name} must have one element type, got {pretty}")
    return types[0].get_element_type()


#: the classes of `AnyFloat` (each final): a set lookup, where isinstance on the
#: union checks each of its ten ABCs in turn
_FLOAT_CLASSES = frozenset(AnyFloat.__args__)


def is_float(element: Attribute) -> bool:
    return type(element) in _FLOAT_CLASSES


def is_bool(element: Attribute) -> bool:
    return element == i1


def is_int(element: Attribute) -> bool:
    return type(element) is IntegerType and element != i1  # IntegerType is final


def normalize_axis(axis: int, rank: int, what: str = "axis") -> int:
    if not -rank <= axis < max(rank, 1) or (rank == 0 and axis not in (0, -1)):
        raise VerifyException(f"{what} {axis} is out of range for rank {rank}")
    return axis % rank if rank else 0


def reduce_shape(shape: Shape, axes: Sequence[int], keep_dims: bool) -> Shape:
    """Result shape of a reduction; empty `axes` reduces every axis."""
    rank = len(shape)
    norm = {normalize_axis(a, rank) for a in axes} if axes else set(range(rank))
    if axes and len(norm) != len(axes):
        raise VerifyException(f"axis {list(axes)} names an axis twice")
    if keep_dims:
        return tuple(1 if i in norm else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in norm)


def matmul_shape(a: Shape, b: Shape, transpose_a: bool, transpose_b: bool) -> Shape:
    """Batched matmul with broadcast batch dimensions, like numpy's matmul on rank >= 2."""
    if len(a) < 2 or len(b) < 2:
        raise VerifyException(
            f"matmul operands must have rank >= 2, got ranks {len(a)} and {len(b)}"
        )
    m, ka = (a[-1], a[-2]) if transpose_a else (a[-2], a[-1])
    kb, n = (b[-1], b[-2]) if transpose_b else (b[-2], b[-1])
    if ka != kb:
        raise VerifyException(f"matmul contraction sizes differ: {ka} (lhs) vs {kb} (rhs)")
    batch = broadcast_shapes([a[:-2], b[:-2]])
    return (*batch, m, n)


def transpose_shape(shape: Shape, perm: Sequence[int]) -> Shape:
    if sorted(perm) != list(range(len(shape))):
        raise VerifyException(f"perm {list(perm)} is not a permutation of the {len(shape)} axes")
    return tuple(shape[p] for p in perm)


def reshape_check(src: Shape, dst: Shape) -> None:
    if _numel(src) != _numel(dst):
        raise VerifyException(
            f"cannot reshape {_pretty(src)} ({_numel(src)} elements) into "
            f"{_pretty(dst)} ({_numel(dst)} elements)"
        )


def broadcast_to_check(src: Shape, dst: Shape) -> None:
    ok = len(src) <= len(dst) and all(s in (1, d) for s, d in zip(reversed(src), reversed(dst)))
    if not ok:
        raise VerifyException(f"cannot broadcast {_pretty(src)} to {_pretty(dst)}")


def concat_shape(shapes: Sequence[Shape], axis: int) -> Shape:
    if not shapes:
        raise VerifyException("concat needs at least one input")
    rank = len(shapes[0])
    if rank == 0:
        raise VerifyException("concat inputs must have rank >= 1")
    ax = normalize_axis(axis, rank)
    for s in shapes:
        if len(s) != rank or any(s[i] != shapes[0][i] for i in range(rank) if i != ax):
            raise VerifyException(
                f"concat inputs must agree on every axis but {ax}: "
                + ", ".join(_pretty(x) for x in shapes)
            )
    out = list(shapes[0])
    out[ax] = sum(s[ax] for s in shapes)
    return tuple(out)


def stack_shape(shapes: Sequence[Shape], axis: int) -> Shape:
    if not shapes:
        raise VerifyException("stack needs at least one input")
    if any(s != shapes[0] for s in shapes):
        raise VerifyException(
            "stack inputs must have one shape: " + ", ".join(_pretty(x) for x in shapes)
        )
    ax = normalize_axis(axis, len(shapes[0]) + 1)
    out = list(shapes[0])
    out.insert(ax, len(shapes))
    return tuple(out)


def slice_shape(
    shape: Shape,
    starts: Sequence[int],
    limits: Sequence[int],
    strides: Sequence[int],
    squeeze: Sequence[int],
) -> Shape:
    """Shape of `x[start:limit:stride, ...]` with the `squeeze` axes (int indices) dropped."""
    rank = len(shape)
    if not len(starts) == len(limits) == len(strides) == rank:
        raise VerifyException(
            f"get_item needs starts, limits and strides for each of the {rank} axes"
        )
    out: list[int] = []
    for axis, (d, lo, hi, st) in enumerate(zip(shape, starts, limits, strides)):
        if st <= 0:
            raise VerifyException(f"get_item stride on axis {axis} must be positive, got {st}")
        if not 0 <= lo <= hi <= d:
            raise VerifyException(f"get_item range [{lo}, {hi}) on axis {axis} is outside 0..{d}")
        out.append((hi - lo + st - 1) // st)
    for axis in squeeze:
        if not 0 <= axis < rank or out[axis] != 1:
            raise VerifyException(f"get_item cannot drop axis {axis}: it does not have size 1")
    return tuple(d for i, d in enumerate(out) if i not in set(squeeze))


def _numel(shape: Shape) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def _pretty(shape: Shape) -> str:
    return "x".join(map(str, shape)) if shape else "scalar"


def tensor_type(shape: Sequence[int], element: Attribute) -> TensorType:
    """Interned: a graph repeats a few types on thousands of ops."""
    return interned.tensor_type(element, tuple(shape))


def bool_tensor(shape: Sequence[int]) -> TensorType:
    return TensorType(i1, list(shape))
