"""Reductions and contractions for linalg: combiner ops as numpy reducers,
neutral-init detection, and contractions planned onto a matmul (backend/cpu/gemm.py:
oneMKL or `np.matmul`, chosen per shape).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from math import prod
from typing import Any

import numpy as np
from xdsl.dialects import arith
from xdsl.ir import Operation

from mindjit.backend.cpu import gemm
from mindjit.backend.cpu.types import unsigned_twin

Reducer = Callable[[Any, tuple[int, ...]], Any]

_FLOAT_REDUCE: dict[type[Operation], np.ufunc] = {
    arith.AddfOp: np.add,
    arith.MulfOp: np.multiply,
    arith.MaximumfOp: np.maximum,
    arith.MinimumfOp: np.minimum,
    arith.MaxnumfOp: np.fmax,
    arith.MinnumfOp: np.fmin,
}
_INT_REDUCE: dict[type[Operation], np.ufunc] = {
    arith.AddiOp: np.add,
    arith.MuliOp: np.multiply,
    arith.MaxSIOp: np.maximum,
    arith.MinSIOp: np.minimum,
    arith.AndIOp: np.bitwise_and,
    arith.OrIOp: np.bitwise_or,
    arith.XOrIOp: np.bitwise_xor,
}
_UINT_REDUCE: dict[type[Operation], np.ufunc] = {
    arith.MaxUIOp: np.maximum,
    arith.MinUIOp: np.minimum,
}
_BOOL_REDUCE: dict[type[Operation], np.ufunc] = {
    arith.AddiOp: np.bitwise_xor,
    arith.MuliOp: np.bitwise_and,
    arith.MaxSIOp: np.bitwise_and,
    arith.MinSIOp: np.bitwise_or,
    arith.MaxUIOp: np.bitwise_or,
    arith.MinUIOp: np.bitwise_and,
    arith.AndIOp: np.bitwise_and,
    arith.OrIOp: np.bitwise_or,
    arith.XOrIOp: np.bitwise_xor,
}

COMBINERS = frozenset(set(_FLOAT_REDUCE) | set(_INT_REDUCE) | set(_UINT_REDUCE))

# Combiners for which counting an element twice changes the result.
_NOT_IDEMPOTENT = frozenset({arith.AddfOp, arith.MulfOp, arith.AddiOp, arith.MuliOp, arith.XOrIOp})


def needs_full_extent(name: type[Operation]) -> bool:
    """Sum-like combiners must see every element of a broadcast operand."""
    return name in _NOT_IDEMPOTENT


def reducer(name: type[Operation], dtype: np.dtype) -> Reducer | None:
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


def is_neutral(name: type[Operation], dtype: np.dtype, value: Any) -> bool:
    """Whether folding starting from `value` equals folding without it, so a
    fill of `value` used as the init needs no combine step at all."""
    if value is None:
        return False
    v = np.asarray(value)
    if dtype.kind == "f":
        x = float(v)
        return {
            arith.AddfOp: x == 0.0,
            arith.MulfOp: x == 1.0,
            arith.MaximumfOp: x == -np.inf,
            arith.MinimumfOp: x == np.inf,
            arith.MaxnumfOp: x == -np.inf or np.isnan(x),
            arith.MinnumfOp: x == np.inf or np.isnan(x),
        }.get(name, False)
    if dtype == np.bool_:
        b = bool(v)
        ones = {arith.MuliOp, arith.AndIOp, arith.MaxSIOp, arith.MinUIOp}
        return b if name in ones else not b
    i = int(v)
    info = np.iinfo(dtype)
    all_ones = -1 if dtype.kind == "i" else info.max
    return {
        arith.AddiOp: i == 0,
        arith.OrIOp: i == 0,
        arith.XOrIOp: i == 0,
        arith.MaxUIOp: i == 0,
        arith.MuliOp: i == 1,
        arith.AndIOp: i == all_ones,
        arith.MinUIOp: i == all_ones,
        arith.MaxSIOp: i == info.min,
        arith.MinSIOp: i == info.max,
    }.get(name, False)


def contraction(
    a_dims: Sequence[int],
    b_dims: Sequence[int],
    o_dims: Sequence[int],
    loop: Sequence[int],
    dtype: np.dtype | None = None,
) -> Callable[[Any, Any], Any]:
    """`f(a, b)` = sum over the dims missing from the output of a*b, laid out
    in output order.  Batch/M/N/K shaped contractions become one matmul
    (`gemm.planned(dtype)`; transposes and reshapes decided here); anything
    else uses `np.einsum`."""
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
    mm = gemm.planned(dtype, 2 * prod(loop[d] for d in batch + m + n + k))
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
