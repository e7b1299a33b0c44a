"""MindSpore 2.10's older functional names that are other ops under another
signature: `ops.top_k`, `ops.unbind`, `ops.gather_d`, `ops.identity`, `ops.take`,
`ops.fills`, `ops.accumulate_n`, `ops.range`, `ops.batch_dot`, `ops.tensor_dot`,
`ops.intopk`, `ops.unique_with_pad`.

Each composes existing ops, so both modes and the gradients come for free. Three
of them (take, fills, accumulate_n) have no CPU kernel in MindSpore 2.10 (it
raises at run time); they follow the documented semantics (flattened gather, a
tensor like x filled with the value, addn). unique_with_pad has a static shape
(the input's), so it is a composition too: an element is the first of its value
when no earlier element equals it, its value's slot is the number of firsts
before it, and the slots after the last one hold pad_num.
"""

from __future__ import annotations

import builtins
import math
from typing import Any

import numpy as np

from mindjit.frontend import dtype as D
from mindjit.frontend.ops import array
from mindjit.frontend.ops import math as fmath
from mindjit.frontend.ops.core import normalize_axis
from mindjit.frontend.ops.creation import arange
from mindjit.frontend.ops.gather_ops import (
    _indices,
    _tensor,
    check_in_range,
    gather,
    gather_elements,
    known,
)
from mindjit.frontend.ops.promotion import is_tensor
from mindjit.frontend.ops.reduce import reduce_any, reduce_sum
from mindjit.frontend.ops.scan import cumsum
from mindjit.frontend.ops.segment_reduce import combine_rows
from mindjit.frontend.ops.sort import topk
from mindjit.frontend.tensor import Tensor


def top_k(input_x: Any, k: int, sorted: bool = True) -> tuple[Any, Any]:  # noqa: A002
    """`ops.top_k(input_x, k, sorted=True)`: the k largest along the last axis and their
    int32 indices. With sorted=False MindSpore leaves the order unspecified; here
    it is sorted too."""
    return topk(input_x, k, -1, True, sorted)


def unbind(input: Any, dim: int = 0) -> tuple[Any, ...]:  # noqa: A002
    """`ops.unbind(input, dim=0)`: the slices along `dim`, as a tuple."""
    return array.unstack(input, dim)


def gather_d(x: Any, dim: int, index: Any) -> Any:
    """`ops.gather_d(x, dim, index)`: ops.gather_elements."""
    return gather_elements(x, dim, index)


def identity(x: Any) -> Any:
    """`ops.identity(x)`: x itself (MindSpore returns the same object)."""
    return x


def take(input: Any, index: Any) -> Any:  # noqa: A002
    """`ops.take(input, index)`: the elements of the flattened input at `index`
    (int64), shape index.shape."""
    x = _tensor(input, "take", "input")
    if not is_tensor(index) or index.dtype != D.int64:
        got = getattr(index, "dtype", type(index).__name__)
        raise TypeError(f"For 'take', the dtype of 'index' must be int64 (long), got {got}")
    n = max(math.prod(x.shape), 1)
    check_in_range("take", "index", index, n)
    return gather(array.reshape(x, (n,)), index, 0)


def fills(x: Any, value: Any) -> Any:
    """`ops.fills(x, value)`: a tensor of x's shape and dtype filled with `value` (an
    int, a float or a 0-d Tensor)."""
    t = _tensor(x, "fills", "x")
    if is_tensor(value):
        if value.shape not in ((), (1,)):
            raise ValueError(f"For 'fills', a Tensor 'value' must be 0-D, got {value.shape}")
        v = array.reshape(array.cast(value, t.dtype), ())
        return array.broadcast_to(v, tuple(t.shape)) if t.shape else v
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"For 'fills', 'value' must be an int, a float or a Tensor, got {value!r}")
    return array.full_like(t, value)


def accumulate_n(x: Any) -> Any:
    """`ops.accumulate_n(x)`: the sum of a list or tuple of tensors (ops.addn)."""
    return fmath.addn(x)


def range(start: Any, end: Any, step: Any, maxlen: int = 1000000) -> Any:  # noqa: A001
    """`ops.range(start, end, step, maxlen=1000000)`: start, start + step, ... before
    `end`; int64 for integers, float32 for floats (MindSpore's CPU results)."""
    values = []
    for v in (start, end, step):
        if is_tensor(v):
            value = known(v)
            if value is None:
                raise ValueError(
                    "For 'range', the length of the result depends on 'start', 'end' and "
                    "'step': in GRAPH_MODE they must be constants (numbers or constant Tensors)"
                )
            v = value.item()
        values.append(v)
    kinds = {isinstance(v, float) for v in values}
    if len(kinds) > 1 or any(isinstance(v, bool) or not isinstance(v, int | float) for v in values):
        raise TypeError(
            f"For Range, the dtypes of inputs must be the same, but got "
            f"({', '.join(type(v).__name__ for v in values)})"
        )
    a, b, s = values
    if s == 0:
        raise ValueError("For Range, delta cannot be equal to zero.")
    if s > 0 and b < a:
        raise ValueError("For Range, delta cannot be positive when limit < start.")
    if s < 0 and b > a:
        raise ValueError("For Range, delta cannot be negative when limit > start.")
    if a == b:
        return Tensor(np.zeros((0,), np.float32 if isinstance(a, float) else np.int64))
    return arange(a, b, s, dtype=D.float32 if isinstance(a, float) else D.int64)


def _contract(a: Any, b: Any, axes_a: tuple[int, ...], axes_b: tuple[int, ...]) -> Any:
    """numpy's tensordot: a's free axes, then b's, the listed pairs summed over."""
    free_a = [i for i in builtins.range(len(a.shape)) if i not in axes_a]
    free_b = [i for i in builtins.range(len(b.shape)) if i not in axes_b]
    k = math.prod(a.shape[i] for i in axes_a)
    m = math.prod(a.shape[i] for i in free_a)
    n = math.prod(b.shape[i] for i in free_b)
    a2 = array.reshape(array.transpose(a, (*free_a, *axes_a)), (m, k))
    b2 = array.reshape(array.transpose(b, (*axes_b, *free_b)), (k, n))
    out_shape = tuple(a.shape[i] for i in free_a) + tuple(b.shape[i] for i in free_b)
    return array.reshape(fmath.matmul(a2, b2), out_shape)


def tensor_dot(x1: Any, x2: Any, axes: Any) -> Any:
    """`ops.tensor_dot(x1, x2, axes)`: numpy's tensordot; `axes` an int (the last n
    axes of x1 with the first n of x2) or a pair of axis lists."""
    name = "tensor_dot"
    a, b = _tensor(x1, name, "x1"), _tensor(x2, name, "x2")
    if a.dtype != b.dtype:
        raise TypeError(
            f"For '{name}', 'x1' and 'x2' must have one dtype, got {a.dtype}, {b.dtype}"
        )
    ra, rb = len(a.shape), len(b.shape)
    if isinstance(axes, int) and not isinstance(axes, bool):
        if not 0 <= axes <= min(ra, rb):
            raise ValueError(f"For '{name}', 'axes' must be in [0, {min(ra, rb)}], got {axes}")
        pa = tuple(builtins.range(ra - axes, ra))
        pb = tuple(builtins.range(axes))
    elif isinstance(axes, tuple | list) and len(axes) == 2:
        pa_raw = (axes[0],) if isinstance(axes[0], int) else tuple(axes[0])
        pb_raw = (axes[1],) if isinstance(axes[1], int) else tuple(axes[1])
        if len(pa_raw) != len(pb_raw):
            raise ValueError(f"For '{name}', the two axis lists must have one length, got {axes}")
        pa = tuple(normalize_axis(i, ra, name) for i in pa_raw)
        pb = tuple(normalize_axis(i, rb, name) for i in pb_raw)
    else:
        raise TypeError(f"For '{name}', 'axes' must be an int or a pair of lists, got {axes!r}")
    for i, j in zip(pa, pb):
        if a.shape[i] != b.shape[j]:
            raise ValueError(
                f"For '{name}', x1_shape[{i}] ({a.shape[i]}) must equal x2_shape[{j}] "
                f"({b.shape[j]}), but got 'x1_shape': {tuple(a.shape)}, 'x2_shape': "
                f"{tuple(b.shape)}"
            )
    return _contract(a, b, pa, pb)


def batch_dot(x1: Any, x2: Any, axes: Any = None) -> Any:
    """`ops.batch_dot(x1, x2, axes=None)`: per batch (axis 0), x1's axis axes[0]
    contracted with x2's axes[1]; axes None: x1's last with x2's last (x2 2-D) or
    second-to-last; a 2-D pair gives shape (batch, 1)."""
    name = "batch_dot"
    a, b = _tensor(x1, name, "x1"), _tensor(x2, name, "x2")
    for what, t in (("x1", a), ("x2", b)):
        if t.dtype not in (D.float32,):
            raise TypeError(
                f"The '{what}' doesn't support '{t.dtype}' and expect to receive "
                f"[mindspore.float32]."
            )
    ra, rb = len(a.shape), len(b.shape)
    if ra < 2 or rb < 2:
        raise ValueError(
            f"For '{name}', the inputs x1, x2 should have 'dimension >= 2', but got "
            f"'len(x1_shape)': ({ra}) and 'len(x2_shape)': ({rb})."
        )
    if axes is None:
        axes = (ra - 1, rb - 1) if rb == 2 else (ra - 1, rb - 2)
    elif isinstance(axes, int) and not isinstance(axes, bool):
        axes = (axes, axes)
    if not isinstance(axes, tuple | list) or len(axes) != 2:
        raise TypeError(f"For '{name}', 'axes' must be an int or a pair of ints, got {axes!r}")
    ia = axes[0] + ra if axes[0] < 0 else axes[0]
    ib = axes[1] + rb if axes[1] < 0 else axes[1]
    if ia == 0 or ib == 0:
        raise ValueError(f"For '{name}', the 'axes' cannot contain 0, but got axes: {tuple(axes)}.")
    if not (0 < ia < ra and 0 < ib < rb):
        raise ValueError(f"For '{name}', 'axes' {tuple(axes)} are out of range")
    if a.shape[0] != b.shape[0] or a.shape[ia] != b.shape[ib]:
        raise ValueError(
            f"For '{name}', the batch and contracted dimensions must match, but got "
            f"x1 shape {tuple(a.shape)}, x2 shape {tuple(b.shape)}, axes {tuple(axes)}"
        )
    bsz, k = a.shape[0], a.shape[ia]
    free_a = [i for i in builtins.range(1, ra) if i != ia]
    free_b = [i for i in builtins.range(1, rb) if i != ib]
    m = math.prod(a.shape[i] for i in free_a)
    n = math.prod(b.shape[i] for i in free_b)
    a3 = array.reshape(array.transpose(a, (0, *free_a, ia)), (bsz, m, k))
    b3 = array.reshape(array.transpose(b, (0, ib, *free_b)), (bsz, k, n))
    shape = (bsz, *(a.shape[i] for i in free_a), *(b.shape[i] for i in free_b))
    if len(shape) == 1:
        shape = (bsz, 1)
    return array.reshape(fmath.bmm(a3, b3), shape)


def intopk(x1: Any, x2: Any, k: int) -> Any:
    """`ops.intopk(x1, x2, k)`: bool (N,), whether the target class x2[i] is among the
    k largest of row x1[i] (ties at the boundary count as inside: fewer than k
    values are strictly larger); a target outside the row, or a NaN, is False."""
    name = "InTopK"
    x = _tensor(x1, name, "x1")
    t = _indices(x2, name, "x2")
    if x.dtype not in (D.float16, D.float32):
        raise TypeError(f"For '{name}', 'x1' must be float16 or float32, got {x.dtype}")
    if isinstance(k, bool) or not isinstance(k, int):
        raise TypeError(f"For '{name}', 'k' must be an int, got {k!r}")
    if len(x.shape) != 2 or tuple(t.shape) != (x.shape[0],):
        raise ValueError(
            f"For '{name}', 'x1' must be 2-D and 'x2' 1-D of its rows, got {tuple(x.shape)} "
            f"and {tuple(t.shape)}"
        )
    rows, cols = x.shape
    inside = fmath.logical_and(fmath.greater_equal(t, 0), fmath.less(t, cols))
    safe = fmath.select(inside, t, Tensor(np.array(0, t.dtype.numpy)))
    target = gather_elements(x, 1, array.reshape(safe, (rows, 1)))  # (N, 1)
    larger = reduce_sum(array.cast(fmath.greater(x, target), D.int32), 1)
    finite = fmath.equal(array.reshape(target, (rows,)), array.reshape(target, (rows,)))
    ok = fmath.logical_and(fmath.less(larger, k), fmath.logical_and(inside, finite))
    return ok


def unique_with_pad(x: Any, pad_num: Any) -> tuple[Any, Any]:
    """`ops.unique_with_pad(x, pad_num)`: (the unique values of the 1-D x in order of
    first appearance, padded with pad_num to x's length; each element's slot in
    it). The slots are int32, or int64 for an int64 input (MindSpore's)."""
    name = "UniqueWithPad"
    t = _tensor(x, name, "x")
    if len(t.shape) != 1:
        raise ValueError(
            f"For primitive[{name}], the input_shape_size must be equal to 1, but got "
            f"{len(t.shape)}."
        )
    n = t.shape[0]
    idx_dtype = D.int64 if t.dtype == D.int64 else D.int32
    if n == 0:
        return t, Tensor(np.zeros((0,), idx_dtype.numpy))
    same = fmath.equal(array.reshape(t, (n, 1)), array.reshape(t, (1, n)))  # [i, j]
    earlier = Tensor(np.tril(np.ones((n, n), bool), -1))  # j before i
    first = fmath.logical_not(reduce_any(fmath.logical_and(same, earlier), 1))
    slot_of_first = fmath.sub(cumsum(array.cast(first, idx_dtype), 0), 1)
    # each element's slot is the slot of the first element equal to it
    is_first_equal = fmath.logical_and(same, array.reshape(first, (1, n)))
    slots = reduce_sum(fmath.select(is_first_equal, array.reshape(slot_of_first, (1, n)), 0), 1)
    lin = fmath.select(first, slot_of_first, Tensor(np.array(-1, idx_dtype.numpy)))
    pad = array.full(
        (n,), pad_num.asnumpy().item() if is_tensor(pad_num) else pad_num, dtype=t.dtype
    )
    values = combine_rows("update", pad, lin, t)
    return values, array.cast(slots, idx_dtype)


__all__ = [
    "accumulate_n",
    "batch_dot",
    "fills",
    "gather_d",
    "identity",
    "intopk",
    "range",
    "take",
    "tensor_dot",
    "top_k",
    "unbind",
    "unique_with_pad",
]
