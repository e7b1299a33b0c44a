"""Padding layers (MindSpore 2.x): `nn.Pad(paddings, mode='CONSTANT')` with one
(before, after) pair per input axis, and `nn.ConstantPad1d/2d/3d(padding, value)`,
`nn.ZeroPad1d/2d/3d(padding)` with (left, right[, top, bottom[, front, back]])
from the last axis backwards. Constant padding is `ops.pad` (mindir.pad), where
negative amounts crop; nn.Pad's REFLECT (mirror without the edge) and SYMMETRIC
(mirror with the edge) modes are frontend/ops/mirror_pad.py's.
"""

from __future__ import annotations

from typing import Any

from mindjit.frontend.nn.cell import Cell
from mindjit.frontend.ops.conv import pad
from mindjit.frontend.ops.mirror_pad import mirror_pad_axes


class Pad(Cell):
    """`nn.Pad(paddings, mode='CONSTANT')`: paddings ((before, after), ...) from axis 0."""

    def __init__(self, paddings: Any, mode: str = "CONSTANT"):
        super().__init__()
        if not isinstance(mode, str) or mode not in ("CONSTANT", "REFLECT", "SYMMETRIC"):
            raise ValueError(
                f"For 'Pad', the 'mode' must be in ['CONSTANT', 'REFLECT', 'SYMMETRIC'], "
                f"but got {mode}."
            )
        if not isinstance(paddings, tuple):
            raise TypeError(
                f"For 'Pad', the type of 'paddings' must be tuple, but got "
                f"{type(paddings).__name__}."
            )
        for item in paddings:
            if not isinstance(item, tuple | list) or len(item) != 2:
                raise ValueError(
                    f"For 'Pad', the dimension of 'paddings' must be (n, 2), but got {paddings}."
                )
            if any(isinstance(v, bool) or not isinstance(v, int) for v in item):
                raise TypeError(f"For 'Pad', 'paddings' must hold ints, but got {paddings}.")
        self.paddings = paddings
        self.mode = mode

    def construct(self, x):
        return self._forward(x)

    def _forward(self, x: Any) -> Any:
        if len(self.paddings) != len(x.shape):
            raise ValueError(
                f"For 'Pad', 'paddings' must have one pair per input dimension, but got "
                f"{len(self.paddings)} pairs for an input of rank {len(x.shape)}."
            )
        if self.mode != "CONSTANT":
            symmetric = self.mode == "SYMMETRIC"
            for axis, (before, after) in enumerate(self.paddings):
                limit = x.shape[axis] if symmetric else x.shape[axis] - 1
                if min(before, after) < 0 or max(before, after) > limit:
                    raise ValueError(
                        f"For 'Pad', in mode {self.mode} the paddings of axis {axis} must be in "
                        f"[0, {limit}], but got {(before, after)}."
                    )
            return mirror_pad_axes(x, self.paddings, symmetric)
        flat: list[int] = []
        for before, after in reversed(self.paddings):
            flat += [before, after]
        return pad(x, tuple(flat), "constant", 0.0)


class _ConstantPadNd(Cell):
    _dims = 2
    NAME = ""

    def __init__(self, padding: Any, value: float = 0.0):
        super().__init__()
        n = 2 * self._dims
        if isinstance(padding, int) and not isinstance(padding, bool):
            padding = (padding,) * n
        if not isinstance(padding, tuple | list):
            raise TypeError(
                f"For '{self.NAME}', the type of 'padding' must be int or tuple, but got "
                f"{type(padding).__name__}."
            )
        if len(padding) != n:
            raise ValueError(
                f"For '{self.NAME}', the length of 'padding' with tuple type must equal to {n}, "
                f"but got {len(padding)}."
            )
        if any(isinstance(v, bool) or not isinstance(v, int) for v in padding):
            raise TypeError(f"For '{self.NAME}', 'padding' must hold ints, but got {padding}.")
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise TypeError(
                f"For '{self.NAME}', the 'value' must be a number, but got {type(value).__name__}."
            )
        self.padding = tuple(padding)
        self.value = float(value)

    def construct(self, x):
        return self._forward(x)

    def _forward(self, x: Any) -> Any:
        if len(x.shape) < self._dims + 1:
            raise ValueError(
                f"For '{self.NAME}', the rank of the input must be at least {self._dims + 1}, "
                f"but got shape {x.shape}."
            )
        return pad(x, self.padding, "constant", self.value)


class ConstantPad1d(_ConstantPadNd):
    """`nn.ConstantPad1d(padding, value)`: (left, right) on the last axis."""

    _dims, NAME = 1, "ConstantPad1d"


class ConstantPad2d(_ConstantPadNd):
    """`nn.ConstantPad2d(padding, value)`: (left, right, top, bottom)."""

    _dims, NAME = 2, "ConstantPad2d"


class ConstantPad3d(_ConstantPadNd):
    """`nn.ConstantPad3d(padding, value)`: (left, right, top, bottom, front, back)."""

    _dims, NAME = 3, "ConstantPad3d"


class ZeroPad1d(ConstantPad1d):
    """`nn.ZeroPad1d(padding)`."""

    NAME = "ZeroPad1d"

    def __init__(self, padding: Any):
        super().__init__(padding, 0.0)


class ZeroPad2d(ConstantPad2d):
    """`nn.ZeroPad2d(padding)`: (left, right, top, bottom) zeros on (N, C, H, W) or (C, H, W)."""

    NAME = "ZeroPad2d"

    def __init__(self, padding: Any):
        super().__init__(padding, 0.0)


class ZeroPad3d(ConstantPad3d):
    """`nn.ZeroPad3d(padding)`."""

    NAME = "ZeroPad3d"

    def __init__(self, padding: Any):
        super().__init__(padding, 0.0)


__all__ = [
    "ConstantPad1d",
    "ConstantPad2d",
    "ConstantPad3d",
    "Pad",
    "ZeroPad1d",
    "ZeroPad2d",
    "ZeroPad3d",
]
