"""Plan builders for the tensor dialect (static shapes; results from result types).

Slicing and reshaping give numpy views (tracked as aliases of their source);
everything that writes builds a new array, so no kernel ever mutates an operand.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from xdsl.dialects import tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX
from xdsl.ir import Operation

from mindjit.backend.cpu.errors import op_failure, unsupported
from mindjit.backend.cpu.registry import register
from mindjit.backend.cpu.steps import call_step
from mindjit.backend.cpu.types import dtype_of, static_shape

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
    shape, dtype = static_shape(result.type, op), dtype_of(result.type, op)
    c.constant(result, lambda: _readonly(np.zeros(shape, dtype)), splat=dtype.type(0))


@register(tensor.CastOp)
def build_cast(c: FunctionCompiler, op: Operation) -> None:
    static_shape(op.results[0].type, op)
    c.share(op.results[0], op.operands[0])


@register(tensor.DimOp)
def build_dim(c: FunctionCompiler, op: Operation) -> None:
    shape = static_shape(op.operands[0].type, op)
    index = c.known(op.operands[1])
    if index is None:
        raise unsupported(op, "the dimension index must be a constant")
    c.constant(op.results[0], np.int64(shape[int(index)]))


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
    idx = _slice_index(op, static_shape(source.type, op), static_shape(result.type, op))
    c.emit(call_step(lambda x: x[idx], [c.read(source)], c.define(result, like=[source])))


@register(tensor.InsertSliceOp)
def build_insert_slice(c: FunctionCompiler, op: Operation) -> None:
    source, dest = op.operands[0], op.operands[1]
    idx = _slice_index(op, static_shape(dest.type, op), static_shape(source.type, op))

    def insert_slice(src: np.ndarray, d: np.ndarray) -> np.ndarray:
        out = d.copy()
        out[idx] = src
        return out

    c.emit(
        call_step(insert_slice, [c.read(source), c.read(dest)], c.define(op.results[0], fresh=True))
    )


def _slice_index(op: Operation, full: Sequence[int], part: Sequence[int]) -> Index:
    """The numpy index for static offsets/sizes/strides; unit dims missing from
    the (rank-reduced) `part` shape are indexed by an int so numpy drops them."""
    if op.offsets or op.sizes or op.strides:
        raise unsupported(op, "dynamic offsets, sizes or strides")
    offsets = op.static_offsets.get_values()
    sizes = op.static_sizes.get_values()
    strides = op.static_strides.get_values()
    if DYNAMIC_INDEX in (*offsets, *sizes, *strides):
        raise unsupported(op, "dynamic offsets, sizes or strides")
    dropped = _dropped_dims(op, sizes, part)
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


def _dropped_dims(op: Operation, sizes: Sequence[int], part: Sequence[int]) -> set[int]:
    """Which size-1 dims a rank-reducing slice drops (matched left to right)."""
    dropped: set[int] = set()
    j = 0
    for i, size in enumerate(sizes):
        if j < len(part) and part[j] == size:
            j += 1
        elif size == 1:
            dropped.add(i)
        else:
            raise op_failure(op, f"slice sizes {list(sizes)} do not match shape {list(part)}")
    if j != len(part):
        raise op_failure(op, f"slice sizes {list(sizes)} do not match shape {list(part)}")
    return dropped
