"""Reductions and contractions for linalg: combiner ops as numpy reducers,
neutral-init detection, and contractions planned onto `np.matmul`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from math import prod
from typing import Any

import numpy as np

from mindjit.backend.cpu.types import unsigned_twin

Reducer = Callable[[Any, tuple[int, ...]], Any]

_FLOAT_REDUCE: dict[str, np.ufunc] = {
    "arith.addf": np.add,
    "arith.mulf": np.multiply,
    "arith.maximumf": np.maximum,
    "arith.minimumf": np.minimum,
    "arith.maxnumf": np.fmax,
    "arith.minnumf": np.fmin,
}
_INT_REDUCE: dict[str, np.ufunc] = {
    "arith.addi": np.add,
    "arith.muli": np.multiply,
    "arith.maxsi": np.maximum,
    "arith.minsi": np.minimum,
    "arith.andi": np.bitwise_and,
    "arith.ori": np.bitwise_or,
    "arith.xori": np.bitwise_xor,
}
_UINT_REDUCE: dict[str, np.ufunc] = {"arith.maxui": np.maximum, "arith.minui": np.minimum}
_BOOL_REDUCE: dict[str, np.ufunc] = {
    "arith.addi": np.bitwise_xor,
    "arith.muli": np.bitwise_and,
    "arith.maxsi": np.bitwise_and,
    "arith.minsi": np.bitwise_or,
    "arith.maxui": np.bitwise_or,
    "arith.minui": np.bitwise_and,
    "arith.andi": np.bitwise_and,
    "arith.ori": np.bitwise_or,
    "arith.xori": np.bitwise_xor,
}

COMBINERS = frozenset(set(_FLOAT_REDUCE) | set(_INT_REDUCE) | set(_UINT_REDUCE))

# Combiners for which counting an element twice changes the result.
_NOT_IDEMPOTENT = frozenset({"arith.addf", "arith.mulf", "arith.addi", "arith.muli", "arith.xori"})


def needs_full_extent(name: str) -> bool:
    """Sum-like combiners must see every element of a broadcast operand."""
    return name in _NOT_IDEMPOTENT


def reducer(name: str, dtype: np.dtype) -> Reducer | None:
    """`f(v, axes)` folding `v` over `axes` with the combiner `name` in `dtype`."""
    if dtype == np.bool_:
        ufunc = _BOOL_REDUCE.get(name)
    elif dtype.kind == "f":
        ufunc = _FLOAT_REDUCE.get(name)
    else:
        ufunc = _INT_REDUCE.get(name)
        if ufunc is None and name in _UINT_REDUCE and dtype.kind == "i":
            u, base = unsigned_twin(dtype), _UINT_REDUCE[name]
            return lambda v, axes: base.reduce(v.view(u), axis=axes).view(dtype)
        ufunc = ufunc or _UINT_REDUCE.get(name)
    if ufunc is None:
        return None
    red = ufunc.reduce
    return lambda v, axes: red(v, axis=axes, dtype=dtype)


def is_neutral(name: str, dtype: np.dtype, value: Any) -> bool:
    """Whether folding starting from `value` equals folding without it, so a
    fill of `value` used as the init needs no combine step at all."""
    if value is None:
        return False
    v = np.asarray(value)
    if dtype.kind == "f":
        x = float(v)
        return {
            "arith.addf": x == 0.0,
            "arith.mulf": x == 1.0,
            "arith.maximumf": x == -np.inf,
            "arith.minimumf": x == np.inf,
            "arith.maxnumf": x == -np.inf or np.isnan(x),
            "arith.minnumf": x == np.inf or np.isnan(x),
        }.get(name, False)
    if dtype == np.bool_:
        b = bool(v)
        ones = {"arith.muli", "arith.andi", "arith.maxsi", "arith.minui"}
        return b if name in ones else not b
    i = int(v)
    info = np.iinfo(dtype)
    all_ones = -1 if dtype.kind == "i" else info.max
    return {
        "arith.addi": i == 0,
        "arith.ori": i == 0,
        "arith.xori": i == 0,
        "arith.maxui": i == 0,
        "arith.muli": i == 1,
        "arith.andi": i == all_ones,
        "arith.minui": i == all_ones,
        "arith.maxsi": i == info.min,
        "arith.minsi": i == info.max,
    }.get(name, False)


def contraction(
    a_dims: Sequence[int], b_dims: Sequence[int], o_dims: Sequence[int], loop: Sequence[int]
) -> Callable[[Any, Any], Any]:
    """`f(a, b)` = sum over the dims missing from the output of a*b, laid out
    in output order.  Batch/M/N/K shaped contractions become one `np.matmul`
    (transposes and reshapes decided here); anything else uses `np.einsum`."""
    sa, sb, so = set(a_dims), set(b_dims), set(o_dims)
    batch = [d for d in o_dims if d in sa and d in sb]
    m = [d for d in o_dims if d in sa and d not in sb]
    n = [d for d in o_dims if d in sb and d not in sa]
    k = [d for d in a_dims if d in sb and d not in so]
    if (
        (sa | sb | so) != set(batch + m + n + k)
        or len(set(a_dims)) != len(a_dims)
        or len(set(b_dims)) != len(b_dims)
    ):
        return _einsum(a_dims, b_dims, o_dims)
    prep_a = _to_matrix(a_dims, batch, m, k, loop)
    prep_b = _to_matrix(b_dims, batch, k, n, loop)
    post = _from_matrix(batch, m, n, o_dims, loop)
    mm = np.matmul
    if prep_a is None and prep_b is None and post is None:
        return mm
    pa = prep_a or _identity
    pb = prep_b or _identity
    pc = post or _identity
    return lambda a, b: pc(mm(pa(a), pb(b)))


def _identity(x: Any) -> Any:
    return x


def _to_matrix(
    dims: Sequence[int],
    batch: Sequence[int],
    rows: Sequence[int],
    cols: Sequence[int],
    loop: Sequence[int],
) -> Callable[[Any], Any] | None:
    """Transpose/reshape an operand to (batch?, rows, cols); None if it already is."""
    order = [*batch, *rows, *cols]
    perm = tuple(dims.index(d) for d in order)
    target = ((prod(loop[d] for d in batch),) if batch else ()) + (
        prod(loop[d] for d in rows),
        prod(loop[d] for d in cols),
    )
    current = tuple(loop[d] for d in order)
    transpose = perm != tuple(range(len(perm)))
    reshape = current != target
    if transpose and reshape:
        return lambda x: x.transpose(perm).reshape(target)
    if transpose:
        return lambda x: x.transpose(perm)
    if reshape:
        return lambda x: x.reshape(target)
    return None


def _from_matrix(
    batch: Sequence[int],
    m: Sequence[int],
    n: Sequence[int],
    o_dims: Sequence[int],
    loop: Sequence[int],
) -> Callable[[Any], Any] | None:
    """Undo `_to_matrix` on the product: back to the output's dims and order."""
    order = [*batch, *m, *n]
    product = ((prod(loop[d] for d in batch),) if batch else ()) + (
        prod(loop[d] for d in m),
        prod(loop[d] for d in n),
    )
    shape = tuple(loop[d] for d in order)
    perm = tuple(order.index(d) for d in o_dims)
    transpose = perm != tuple(range(len(perm)))
    reshape = product != shape
    if transpose and reshape:
        return lambda x: x.reshape(shape).transpose(perm)
    if transpose:
        return lambda x: x.transpose(perm)
    if reshape:
        return lambda x: x.reshape(shape)
    return None


def _einsum(
    a_dims: Sequence[int], b_dims: Sequence[int], o_dims: Sequence[int]
) -> Callable[[Any, Any], Any]:
    letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    spec = (
        "".join(letters[d] for d in a_dims)
        + ","
        + "".join(letters[d] for d in b_dims)
        + "->"
        + "".join(letters[d] for d in o_dims)
    )
    return lambda a, b: np.einsum(spec, a, b)
