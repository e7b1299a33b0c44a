"""linalg.generics that name their kernel with `library_call`, run as that kernel.

MLIR's `library_call` attribute says which library function implements a
structured op. mindjit's lowering sets it on the generics whose loops are
quadratic as written (sort's rank-by-counting and the scans, passes/mindir_to_tensor/
sort.py and scan.py);
the executor runs the named kernel instead, in O(n log n):

- `mindjit_sort_rank[_desc]`: each element's position in the stable sort along
  an axis (NaN larger than any number), the inverse of `np.argsort(kind="stable")`;
- `mindjit_sort_place`: out_k = sum of the i with rank_i == k along an axis
  (the inverse permutation of a permutation), one `np.bincount`;
- `mindjit_cumsum` / `mindjit_cumprod` (`_exclusive`, `_reverse`): `np.cumsum` /
  `np.cumprod` along the axis (passes/mindir_to_tensor/scan.py).

Each kernel checks the op is the form the lowering writes (maps, a zero init,
dtypes); anything else runs through the general linalg planner, which computes
the same values from the region.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Operation

from mindjit.backend.cpu.linalg_spec import structured_spec
from mindjit.backend.cpu.steps import call_step
from mindjit.backend.cpu.types import dtype_of, is_tensor, static_shape

if TYPE_CHECKING:
    from mindjit.backend.cpu.compiler import FunctionCompiler

Kernel = Callable[..., Any]


def _along_axis(op: Operation, operand: int) -> int | None:
    """The axis where operand `operand`'s map reads the extra (last) loop dim, every
    other axis reading its own dim; the other inputs and the output the identity."""
    spec = structured_spec(op)
    rank = spec.num_dims - 1
    if spec.reductions != [rank] or any(not is_tensor(v.type) for v in spec.ins + spec.outs):
        return None
    identity = list(range(rank))
    axis = None
    for k, m in enumerate(spec.maps):
        if k != operand:
            if m != identity:
                return None
        elif len(m) == rank and m.count(rank) == 1:
            axis = m.index(rank)
            if [d for d in m if d != rank] != [d for d in identity if d != axis]:
                return None
        else:
            return None
    return axis


def _sort_ranks(axis: int, descending: bool, dtype: np.dtype) -> Kernel:
    def ranks(x: np.ndarray, _x: np.ndarray) -> np.ndarray:
        xm = np.moveaxis(x, axis, -1)
        n = xm.shape[-1]
        if descending:  # stable: sort the reversed row ascending, reverse back
            order = n - 1 - np.argsort(xm[..., ::-1], axis=-1, kind="stable")[..., ::-1]
        else:
            order = np.argsort(xm, axis=-1, kind="stable")
        out = np.empty(xm.shape, dtype)
        np.put_along_axis(out, order, np.arange(n, dtype=dtype), axis=-1)
        return np.moveaxis(out, -1, axis)

    return ranks


def _place(axis: int, dtype: np.dtype) -> Kernel:
    def place(ranks: np.ndarray) -> np.ndarray:
        rm = np.moveaxis(ranks, axis, -1)
        shape, n = rm.shape, rm.shape[-1]
        flat = rm.reshape(-1, n).astype(np.int64)
        rows = flat.shape[0]
        valid = (flat >= 0) & (flat < n)
        keys = (np.arange(rows)[:, None] * n + flat)[valid]
        weights = np.broadcast_to(np.arange(n), flat.shape)[valid]
        out = np.bincount(keys, weights=weights, minlength=rows * n)
        return np.moveaxis(out.astype(dtype).reshape(shape), -1, axis)

    return place


def _scan(axis: int, product: bool, exclusive: bool, reverse: bool, dtype: np.dtype) -> Kernel:
    run = np.cumprod if product else np.cumsum
    neutral = dtype.type(1 if product else 0)

    def scan(x: np.ndarray) -> np.ndarray:
        xm = np.moveaxis(x, axis, -1)
        if reverse:
            xm = xm[..., ::-1]
        if exclusive:
            out = np.empty(xm.shape, dtype)
            out[..., 0] = neutral
            run(xm[..., :-1], axis=-1, dtype=dtype, out=out[..., 1:])
        else:
            out = run(xm, axis=-1, dtype=dtype)
        if reverse:
            out = out[..., ::-1]
        return np.moveaxis(out, -1, axis)

    return scan


_SCANS = {
    f"mindjit_cum{kind}{ex}{rev}": (kind == "prod", bool(ex), bool(rev))
    for kind in ("sum", "prod")
    for ex in ("", "_exclusive")
    for rev in ("", "_reverse")
}


def _plan(op: Operation, c: FunctionCompiler) -> Kernel | None:
    name = op.library_call.data if op.library_call is not None else None  # type: ignore[attr-defined]
    if name is None or len(op.results) != 1:
        return None
    out = dtype_of(op.results[0].type, op)
    if name in _SCANS and len(op.inputs) == 1:  # type: ignore[attr-defined]
        product, exclusive, reverse = _SCANS[name]
        axis = _along_axis(op, 0)
        same = op.inputs[0].type == op.results[0].type  # type: ignore[attr-defined]
        if axis is None or not same or c.splat(op.outputs[0]) != (1 if product else 0):  # type: ignore[attr-defined]
            return None
        return _scan(axis, product, exclusive, reverse, out)
    if out.kind not in "iu" or c.splat(op.outputs[0]) != 0:  # type: ignore[attr-defined]
        return None
    if name in ("mindjit_sort_rank", "mindjit_sort_rank_desc") and len(op.inputs) == 2:  # type: ignore[attr-defined]
        axis = _along_axis(op, 1)
        if axis is None or op.inputs[0] is not op.inputs[1]:  # type: ignore[attr-defined]
            return None
        return _sort_ranks(axis, name.endswith("_desc"), out)
    if name == "mindjit_sort_place" and len(op.inputs) == 1:  # type: ignore[attr-defined]
        axis = _along_axis(op, 0)
        return None if axis is None else _place(axis, out)
    return None


def build_library_call(c: FunctionCompiler, op: Operation) -> bool:
    """Plan `op` as its named kernel; False when it is not one this executor has."""
    if not isinstance(op, linalg.GenericOp) or op.library_call is None:
        return False
    kernel = _plan(op, c)
    if kernel is None:
        return False
    static_shape(op.results[0].type, op)
    ins = list(op.inputs)
    result = op.results[0]
    if all(c.is_known(v) for v in ins):
        value = np.array(kernel(*[c.known(v) for v in ins]))
        value.flags.writeable = False
        c.constant(result, value)
        return True
    c.emit(call_step(kernel, [c.read(v) for v in ins], c.define(result, fresh=True)))
    return True
