"""More of MindSpore's primitive classes, those model-zoo code calls as `P.X()(...)`:
DType, Size, BroadcastTo, Flatten, FloorMod, LogicalXor, SquaredDifference,
TupleToArray, ScalarToTensor, ResizeNearestNeighbor, ResizeBilinear, and the
primitive forms of ops added with them (Unique, ScatterNd, TensorScatterUpdate,
TensorScatterAdd, Lgamma).

Each holds its attributes (checked when made, as MindSpore's `__init__` checks)
and calls an op function, so it runs eagerly and while a graph is traced alike.
Where MindSpore's primitive differs from the function of the same name, the
primitive's rule is kept: `Flatten` keeps axis 0 and merges the rest (a 1-D
input becomes (N, 1)); `LogicalXor` takes bool tensors only (a TypeError
otherwise, where ops.logical_xor casts).
"""

from __future__ import annotations

import math
from typing import Any

from mindjit.frontend.ops import array, conversions, resize, scatter_ops, special, value_shapes
from mindjit.frontend.ops import math as fmath
from mindjit.frontend.ops.cast import promote
from mindjit.frontend.ops.primitives import Primitive, _simple
from mindjit.frontend.ops.split import require_tensor

DType = _simple("DType", array.dtype, "DType()(x): the dtype of x")
Size = _simple("Size", array.size, "Size()(x): the number of elements of x, an int")
FloorMod = _simple("FloorMod", fmath.remainder, "FloorMod()(x, y): x - floor(x / y) * y")
TupleToArray = _simple("TupleToArray", conversions.tuple_to_array, "TupleToArray()(input_x)")
ScalarToTensor = _simple(
    "ScalarToTensor", conversions.scalar_to_tensor, "ScalarToTensor()(input_x, dtype=float32)"
)
Unique = _simple("Unique", value_shapes.unique, "Unique()(input_x) -> (y, idx)")
ScatterNd = _simple("ScatterNd", scatter_ops.scatter_nd, "ScatterNd()(indices, updates, shape)")
TensorScatterUpdate = _simple(
    "TensorScatterUpdate",
    scatter_ops.tensor_scatter_update,
    "TensorScatterUpdate()(input_x, indices, updates)",
)
TensorScatterAdd = _simple(
    "TensorScatterAdd",
    scatter_ops.tensor_scatter_add,
    "TensorScatterAdd()(input_x, indices, updates)",
)
Lgamma = _simple("Lgamma", special.lgamma, "Lgamma()(x): log |Gamma(x)|")


def _squared_difference(x: Any, y: Any) -> Any:
    a, b = promote(x, y, what="SquaredDifference")
    d = fmath.sub(a, b)
    return fmath.mul(d, d)


SquaredDifference = _simple("SquaredDifference", _squared_difference, "(x - y) ** 2")


def _logical_xor(x: Any, y: Any) -> Any:
    for what, v in (("x", x), ("y", y)):
        t = require_tensor(v, "LogicalXor", what)
        if not t.dtype.is_bool:
            raise TypeError(f"For 'LogicalXor', '{what}' must be a Bool tensor, but got {t.dtype}")
    return fmath.logical_xor(x, y)


LogicalXor = _simple("LogicalXor", _logical_xor, "x xor y, of Bool tensors")


def _flatten(input_x: Any) -> Any:
    x = require_tensor(input_x, "Flatten", "input_x")
    if not x.shape:
        raise ValueError("For 'Flatten', the dimension of 'input_x' must be at least 1, but got 0")
    return array.reshape(x, (x.shape[0], math.prod(x.shape[1:])))


Flatten = _simple("Flatten", _flatten, "Flatten()(x): shape (N, the product of the rest)")


class BroadcastTo(Primitive):
    """`BroadcastTo(shape)(input_x)`; -1 in `shape` keeps the input's size there."""

    def __init__(self, shape: Any):
        super().__init__()
        if not isinstance(shape, tuple | list) or not all(
            isinstance(d, int) and not isinstance(d, bool) for d in shape
        ):
            raise TypeError(f"For 'BroadcastTo', 'shape' must be a tuple of ints, got {shape!r}")
        if any(d < -1 or d == 0 for d in shape):
            raise ValueError(
                f"For 'BroadcastTo', every element of 'shape' must be positive or -1, got {shape}"
            )
        self.shape = tuple(shape)

    def __call__(self, input_x: Any) -> Any:
        return array.broadcast_to(input_x, self.shape)


class _Resize(Primitive):
    def __init__(self, size: Any, align_corners: bool = False, half_pixel_centers: bool = False):
        super().__init__()
        self.size = resize.check_size(size, self.name)
        self.align_corners, self.half_pixel_centers = resize.check_flags(
            align_corners, half_pixel_centers, self.name
        )


class ResizeNearestNeighbor(_Resize):
    """`ResizeNearestNeighbor(size, align_corners=False, half_pixel_centers=False)(x)`."""

    def __call__(self, input_x: Any) -> Any:
        return resize.resize_nearest_neighbor(
            input_x, self.size, self.align_corners, self.half_pixel_centers
        )


class ResizeBilinear(_Resize):
    """`ResizeBilinear(size, align_corners=False, half_pixel_centers=False)(x)` (float16/32)."""

    def __call__(self, x: Any) -> Any:
        return resize.resize_bilinear(x, self.size, self.align_corners, self.half_pixel_centers)


__all__ = [
    "BroadcastTo",
    "DType",
    "Flatten",
    "FloorMod",
    "Lgamma",
    "LogicalXor",
    "ResizeBilinear",
    "ResizeNearestNeighbor",
    "ScalarToTensor",
    "ScatterNd",
    "SquaredDifference",
    "TensorScatterAdd",
    "TensorScatterUpdate",
    "TupleToArray",
    "Unique",
]
