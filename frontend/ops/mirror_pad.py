"""`ops.mirror_pad(input_x, paddings, mode)`: REFLECT (mirror without the edge) and
SYMMETRIC (mirror with the edge) padding, per axis flipped slices concatenated
before and after (`mirror_pad_axes`, which nn.Pad's modes also use).

`paddings` is an int Tensor (rank, 2) as in MindSpore; the output's shape
depends on its values, so they must be known when the op is built: any Tensor
in PyNative, a constant in a graph (a graph input is a ValueError naming it).
"""

from __future__ import annotations

from typing import Any

from mindjit.frontend import dtype as D
from mindjit.frontend.ops.array import concat
from mindjit.frontend.ops.conv import flip
from mindjit.frontend.ops.gather_ops import known
from mindjit.frontend.ops.promotion import is_tensor
from mindjit.frontend.ops.split import slice_axis


def mirror_pad_axes(x: Any, paddings: tuple, symmetric: bool) -> Any:
    """REFLECT / SYMMETRIC padding of axis i by paddings[i] = (before, after)."""
    edge = 0 if symmetric else 1
    for axis, (before, after) in enumerate(paddings):
        size = x.shape[axis]
        pieces = []
        if before:
            pieces.append(flip(slice_axis(x, axis, edge, edge + before), (axis,)))
        pieces.append(x)
        if after:
            pieces.append(flip(slice_axis(x, axis, size - after - edge, size - edge), (axis,)))
        if len(pieces) > 1:
            x = concat(tuple(pieces), axis)
    return x


def mirror_pad(input_x: Any, paddings: Any, mode: str) -> Any:
    """`ops.mirror_pad`: `mode` "REFLECT" or "SYMMETRIC", `paddings` an int Tensor (rank, 2)."""
    name = "MirrorPad"
    if not is_tensor(input_x):
        raise TypeError(f"For '{name}', 'input_x' must be a Tensor, got {type(input_x).__name__}")
    if mode not in ("REFLECT", "SYMMETRIC"):
        raise ValueError(
            f"For '{name}', the 'mode' must be str and must be in '['REFLECT', 'SYMMETRIC']', "
            f"but got '{mode}'."
        )
    if not is_tensor(paddings):
        raise TypeError(
            f"For Primitive[{name}], the type of input argument[paddings] must be Tensor but got "
            f"{type(paddings).__name__}."
        )
    if paddings.dtype not in (D.int32, D.int64):
        raise TypeError(
            f"For primitive[{name}], the input argument[paddings] must be a type of "
            f"{{Tensor[Int32], Tensor[Int64]}}, but got Tensor[{paddings.dtype}]."
        )
    value = known(paddings)
    if value is None:
        raise ValueError(
            f"For '{name}', 'paddings' must be a constant Tensor in a graph: the output's shape "
            "depends on its values"
        )
    rank = len(input_x.shape)
    if value.shape != (rank, 2):
        raise ValueError(
            f"For '{name}', paddings.shape[0] must equal to input's rank, but got {value.shape[0]}"
        )
    if (value < 0).any():
        raise ValueError(f"For '{name}', all elements of paddings must be >= 0.")
    symmetric = mode == "SYMMETRIC"
    for axis, (before, after) in enumerate(value.tolist()):
        size = input_x.shape[axis]
        if max(before, after) > size or (not symmetric and max(before, after) >= size):
            raise ValueError(
                f"For '{name}', paddings must be no greater than the dimension size: "
                f"[{before}, {after}] against dimension {axis} of size [{size}] ({mode})"
            )
    return mirror_pad_axes(input_x, tuple(tuple(p) for p in value.tolist()), symmetric)
