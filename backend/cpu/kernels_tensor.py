"""Plan builders for the tensor dialect (results from result types).

Slicing and reshaping give numpy views (tracked as aliases of their source);
everything that writes builds a new array, so no kernel mutates an operand that
anything else can still see. The one exception is `tensor.insert_slice` into a
destination nobody else holds (`_insert_slice`): it writes in place.

Shapes are static, but for what a loop's record lowers to
(passes/mindir_to_tensor/stack.py): a `tensor.empty` with dynamic sizes,
`tensor.dim` of a dynamic dim, and slices at dynamic offsets and sizes.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from xdsl.dialects import tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX
from xdsl.ir import Operation

from mindjit.backend.cpu.errors import ExecutionError, op_failure, unsupported
from mindjit.backend.cpu.registry import register
from mindjit.backend.cpu.steps import call_step, steal_release_step, stealing
from mindjit.backend.cpu.types import dims_of, dtype_of, static_shape

if TYPE_CHECKING:
    from mindjit.backend.cpu.compiler import FunctionCompiler

Index = tuple[Any, ...]


def _readonly(array: np.ndarray) -> np.ndarray:
    array.flags.writeable = False
    return array


@register(tensor.EmptyOp)
def build_empty(c: FunctionCompiler, op: Operation) -> None:
    """Contents are undefined: a shared zero constant, free when unused."""
    result = op.results[0]
    dtype = dtype_of(result.type, op)
    if op.operands:  # dynamic sizes: a new buffer per run (a record's growth)
        dims = dims_of(result.type)
        given = tuple(k for k, d in enumerate(dims) if d < 0)
        if len(given) != len(op.operands):
            raise op_failure(op, f"{len(op.operands)} sizes for {len(given)} dynamic dims")

        def empty(*sizes: Any) -> np.ndarray:
            shape = list(dims)
            for k, n in zip(given, sizes):
                if n < 0:
                    raise ExecutionError(f"negative size {n} for dim {k}")
                shape[k] = int(n)
            return np.zeros(shape, dtype)  # calloc: pages are zeroed when first written

        ins = [c.read(v) for v in op.operands]
        c.emit(call_step(empty, ins, c.define(result, fresh=True)))
        return
    shape = static_shape(result.type, op)
    c.constant(result, lambda: _readonly(np.zeros(shape, dtype)), splat=dtype.type(0))


@register(tensor.CastOp)
def build_cast(c: FunctionCompiler, op: Operation) -> None:
    static_shape(op.results[0].type, op)
    c.share(op.results[0], op.operands[0])


@register(tensor.DimOp)
def build_dim(c: FunctionCompiler, op: Operation) -> None:
    dims = dims_of(op.operands[0].type)
    index = c.known(op.operands[1])
    if index is None:
        raise unsupported(op, "the dimension index must be a constant")
    k = int(index)
    if not 0 <= k < len(dims):
        raise op_failure(op, f"dimension {k} of a rank-{len(dims)} tensor")
    if dims[k] >= 0:
        c.constant(op.results[0], np.int64(dims[k]))
        return
    c.emit(
        call_step(lambda x: np.int64(x.shape[k]), [c.read(op.operands[0])], c.define(op.results[0]))
    )


@register(tensor.ExtractOp)
def build_extract(c: FunctionCompiler, op: Operation) -> None:
    source, *indices = op.operands
    if all(c.is_known(i) for i in indices):
        idx = tuple(int(c.known(i)) for i in indices)
        if c.is_known(source):
            c.constant(op.results[0], c.known(source)[idx])
            return
        c.emit(call_step(lambda t: t[idx], [c.read(source)], c.define(op.results[0])))
        return
    ins = [c.read(source), *[c.read(i) for i in indices]]
    c.emit(call_step(lambda t, *i: t[i], ins, c.define(op.results[0])))


@register(tensor.InsertOp)
def build_insert(c: FunctionCompiler, op: Operation) -> None:
    scalar, dest, *indices = op.operands

    def insert(v: Any, d: np.ndarray, *i: Any) -> np.ndarray:
        out = d.copy()
        out[i] = v
        return out

    ins = [c.read(scalar), c.read(dest), *[c.read(i) for i in indices]]
    c.emit(call_step(insert, ins, c.define(op.results[0], fresh=True)))


@register(tensor.FromElementsOp)
def build_from_elements(c: FunctionCompiler, op: Operation) -> None:
    result = op.results[0]
    shape, dtype = static_shape(result.type, op), dtype_of(result.type, op)
    ins = [c.read(v) for v in op.operands]
    c.emit(
        call_step(
            lambda *v: np.array(v, dtype=dtype).reshape(shape), ins, c.define(result, fresh=True)
        )
    )


@register(tensor.SplatOp)
def build_splat(c: FunctionCompiler, op: Operation) -> None:
    result = op.results[0]
    shape, dtype = static_shape(result.type, op), dtype_of(result.type, op)
    value = op.operands[0]
    if c.is_known(value):
        v = c.known(value)
        c.constant(result, lambda: _readonly(np.full(shape, v, dtype)), splat=v)
        return
    c.emit(
        call_step(lambda v: np.full(shape, v, dtype), [c.read(value)], c.define(result, fresh=True))
    )


@register(tensor.CollapseShapeOp, tensor.ExpandShapeOp, tensor.ReshapeOp)
def build_reshape(c: FunctionCompiler, op: Operation) -> None:
    """Row-major reshape to the result type (a view when numpy can)."""
    source, result = op.operands[0], op.results[0]
    shape = static_shape(result.type, op)
    if static_shape(source.type, op) == shape:
        c.share(result, source)
        return
    c.emit(call_step(lambda x: x.reshape(shape), [c.read(source)], c.define(result, like=[source])))


@register(tensor.ConcatOp)
def build_concat(c: FunctionCompiler, op: Operation) -> None:
    axis = op.dim.value.data
    ins = [c.read(v) for v in op.operands]
    if len(ins) == 1:
        c.emit(call_step(np.array, ins, c.define(op.results[0], fresh=True)))
        return
    c.emit(
        call_step(
            lambda *xs: np.concatenate(xs, axis=axis), ins, c.define(op.results[0], fresh=True)
        )
    )


@register(tensor.ExtractSliceOp)
def build_extract_slice(c: FunctionCompiler, op: Operation) -> None:
    source, result = op.operands[0], op.results[0]
    index = _slice_index(op, dims_of(source.type), dims_of(result.type))
    if not callable(index):
        idx = index
        if any(isinstance(i, slice) and i.step not in (None, 1) for i in idx):
            # A strided slice is copied: the generics reading it (a pooling gradient's
            # taps, each read by three or four) then run as generated loop nests,
            # which take C-contiguous inputs only (codegen_llvm.guarded). LeNet5's
            # step: its pooling gradients' generics 1.0 -> 0.3 ms for 0.06 ms of copies.
            out = c.define(result, fresh=True)
            c.emit(call_step(lambda x: np.ascontiguousarray(x[idx]), [c.read(source)], out))
        else:
            out = c.define(result, like=[source])
            c.emit(call_step(lambda x: x[idx], [c.read(source)], out))
        return
    out = c.define(result, like=[source])
    at = index

    def extract_slice(x: np.ndarray, *dyn: Any) -> np.ndarray:
        return x[at(x.shape, dyn)]

    c.emit(call_step(extract_slice, [c.read(source), *_dynamic_reads(c, op)], out))


def _sole_count() -> int:
    """What `sys.getrefcount` says, in a kernel called by `steal_release_step`, of an
    operand nothing else holds (measured: it differs between Python versions)."""
    s: list[Any] = [np.zeros(1), None]
    steal_release_step(lambda d, sole: sys.getrefcount(d), [0], 1, 0, [])(s)
    return int(s[1])


_SOLE = _sole_count()


def _owned(d: np.ndarray) -> bool:
    """`d` is the only reference to its own buffer: writing it changes no other value."""
    return d.base is None and d.flags.writeable and sys.getrefcount(d) <= _SOLE + 1


def _copied(d: np.ndarray) -> np.ndarray:
    """The copy an insert_slice makes of a destination others may still read (a
    module-level function: tests count the copies)."""
    return d.copy()


@register(tensor.InsertSliceOp)
def build_insert_slice(c: FunctionCompiler, op: Operation) -> None:
    """A copy of the destination with the slice written, or the destination itself
    written in place when the plan gives this op the destination's last reference
    (`steps.stealing`: its slot dies here) and the array is its own buffer, writable
    and held by nothing else (`_owned`, the refcount): a loop's record then costs one
    item per push, not the whole stack."""
    source, dest = op.operands[0], op.operands[1]
    index = _slice_index(op, dims_of(dest.type), dims_of(source.type))
    fixed = None if callable(index) else index
    at = index if callable(index) else None

    def insert_slice(src: np.ndarray, d: np.ndarray, *dyn: Any, sole: bool = False) -> np.ndarray:
        idx = fixed if at is None else at(d.shape, dyn)
        out = d if sole and _owned(d) else _copied(d)
        out[idx] = src
        return out

    ins = [c.read(source), c.read(dest), *_dynamic_reads(c, op)]
    out = c.define(op.results[0], fresh=True)
    c.set_roots(op.results[0], c.roots(op.results[0]) | c.roots(dest))
    c.emit(stealing(insert_slice, ins, out, 1))


def _dynamic_reads(c: FunctionCompiler, op: Operation) -> list[int]:
    return [c.read(v) for v in (*op.offsets, *op.sizes, *op.strides)]


def _slice_index(
    op: Operation, full: Sequence[int], part: Sequence[int]
) -> Index | Callable[[tuple[int, ...], Sequence[Any]], Index]:
    """The numpy index of a slice: a tuple for static offsets, sizes and strides;
    unit dims missing from the (rank-reduced) `part` shape are indexed by an int so
    numpy drops them. With dynamic ones, a function `(full shape, dynamic values) ->
    index` that checks the bounds (numpy would clip a slice and wrap a negative index
    where MLIR has undefined behaviour)."""
    offsets = op.static_offsets.get_values()
    sizes = op.static_sizes.get_values()
    strides = op.static_strides.get_values()
    dropped = _dropped_dims(op, sizes, part)
    if DYNAMIC_INDEX in (*offsets, *sizes, *strides) or -1 in full:
        return _dynamic_index(op, offsets, sizes, strides, dropped)
    idx: list[Any] = []
    for dim, (off, size, stride) in enumerate(zip(offsets, sizes, strides)):
        if dim in dropped:
            idx.append(off)
        elif off == 0 and stride == 1 and size == full[dim]:
            idx.append(slice(None))
        else:
            idx.append(slice(off, off + (size - 1) * stride + 1, stride))
    idx.append(Ellipsis)  # keeps a 0-d result an array, not a scalar
    return tuple(idx)


def _dynamic_index(
    op: Operation,
    offsets: Sequence[int],
    sizes: Sequence[int],
    strides: Sequence[int],
    dropped: set[int],
) -> Callable[[tuple[int, ...], Sequence[Any]], Index]:
    """Each of offsets, sizes, strides as ("given", position in the dynamic operands)
    or its constant, resolved per run."""
    n = 0
    spec: list[list[tuple[bool, int]]] = []
    for static in (offsets, sizes, strides):
        row = []
        for v in static:
            if v == DYNAMIC_INDEX:
                row.append((True, n))
                n += 1
            else:
                row.append((False, v))
        spec.append(row)
    dims = tuple(zip(*spec))
    drop = tuple(k in dropped for k in range(len(dims)))

    def index(full: tuple[int, ...], dyn: Sequence[Any]) -> Index:
        idx: list[Any] = []
        for k, ((od, o), (sd, z), (td, t)) in enumerate(dims):
            off = int(dyn[o]) if od else o
            size = int(dyn[z]) if sd else z
            stride = int(dyn[t]) if td else t
            last = off + (size - 1) * stride if size else off - 1
            if off < 0 or size < 0 or stride < 1 or last >= full[k] or (size and off >= full[k]):
                raise ExecutionError(
                    f"slice of dim {k} at offset {off}, size {size}, stride {stride} is out of "
                    f"bounds of size {full[k]}"
                )
            idx.append(off if drop[k] else slice(off, off + (size - 1) * stride + 1, stride))
        idx.append(Ellipsis)
        return tuple(idx)

    return index


def _dropped_dims(op: Operation, sizes: Sequence[int], part: Sequence[int]) -> set[int]:
    """Which size-1 dims a rank-reducing slice drops (matched left to right; a
    dynamic size matches a dynamic dim)."""
    dropped: set[int] = set()
    j = 0
    for i, size in enumerate(sizes):
        if j < len(part) and (part[j] == size or (size == DYNAMIC_INDEX and part[j] == -1)):
            j += 1
        elif size == 1:
            dropped.add(i)
        else:
            raise op_failure(op, f"slice sizes {list(sizes)} do not match shape {list(part)}")
    if j != len(part):
        raise op_failure(op, f"slice sizes {list(sizes)} do not match shape {list(part)}")
    return dropped
