"""`nn.Dropout` with MindSpore 2.x's signature (`keep_prob` deprecated, `p` preferred),
and `nn.Dropout1d` / `nn.Dropout2d` / `nn.Dropout3d(p=0.5)` (whole channels).

In training mode (`set_train()`; a Cell starts in eval mode, as in MindSpore)
each element is zeroed with probability p and the rest are scaled by 1 / (1 - p),
through `ops.dropout` and its default generator (see mindjit.frontend.ops.random:
`ms.set_seed` makes the masks reproducible, graph mode and PyNative draw the
same ones). In eval mode, or with p = 0, it is the identity. `training` is a
Python attribute, folded when a graph is traced, like BatchNorm's.
"""

from __future__ import annotations

from typing import Any

from mindjit.frontend import dtype as D
from mindjit.frontend import ops
from mindjit.frontend.nn.cell import Cell
from mindjit.frontend.ops.layer_functions import dropout1d, dropout3d


class Dropout(Cell):
    """`nn.Dropout(keep_prob=0.5, p=None, dtype=mstype.float32)`: `p` (the drop
    probability, in [0, 1)) wins when given; otherwise keep_prob (in (0, 1])."""

    def __init__(self, keep_prob: float = 0.5, p: float | None = None, dtype: Any = D.float32):
        super().__init__()
        if p is None:
            if isinstance(keep_prob, bool) or not isinstance(keep_prob, float | int):
                raise TypeError(
                    "For 'Dropout', the 'keep_prob' must be a float, but got "
                    f"{type(keep_prob).__name__}"
                )
            if not 0.0 < keep_prob <= 1.0:
                raise ValueError(
                    f"For 'Dropout', the 'keep_prob' must be a number in range (0, 1], "
                    f"but got {keep_prob}."
                )
            self.p = 1.0 - float(keep_prob)
        else:
            if isinstance(p, bool) or not isinstance(p, float | int):
                raise TypeError(
                    f"For 'Dropout', the 'p' must be a float or int, but got {type(p).__name__}"
                )
            if not 0.0 <= p < 1.0:
                raise ValueError(
                    f"For 'Dropout', the 'p' must be a number in range [0, 1), but got {p}."
                )
            self.p = float(p)
        self.keep_prob = 1.0 - self.p

    def construct(self, x):
        if x.dtype not in (D.float16, D.float32):
            raise TypeError(
                f"For 'Dropout', the dtype of 'x' must be float16 or float32, but got {x.dtype}"
            )
        if len(x.shape) < 1:
            raise ValueError("For 'Dropout', the rank of 'x' must be at least 1, but got 0")
        if not self.training or self.p == 0.0:
            return x
        return ops.dropout(x, self.p, True)

    def extend_repr(self) -> str:
        return f"p={self.p}"


class Dropout2d(Cell):
    """`nn.Dropout2d(p=0.5)`: in training mode each channel of an (N, C, H, W) input
    is zeroed with probability `p` (in [0, 1]) and the rest scaled by 1 / (1 - p)
    (`ops.dropout2d`, the default generator); in eval mode the identity."""

    def __init__(self, p: float = 0.5):
        super().__init__()
        if isinstance(p, bool) or not isinstance(p, float | int):
            raise TypeError(
                f"For 'Dropout2d', the 'p' must be a float or int, but got {type(p).__name__}"
            )
        if not 0.0 <= p <= 1.0:
            raise ValueError(
                f"For 'Dropout2d', the 'p' must be a number in range [0, 1], but got {p}."
            )
        self.p = float(p)
        self.keep_prob = 1.0 - self.p

    def construct(self, x):
        if not self.training or self.p == 0.0:
            return x
        return ops.dropout2d(x, self.p, True)

    def extend_repr(self) -> str:
        return f"p={self.p}"


def _float_p(p: Any, name: str) -> float:
    """MindSpore 2.10's Dropout1d / Dropout3d check: p a float (an int is a TypeError)
    in [0, 1]."""
    if not isinstance(p, float):
        raise TypeError(
            f"For '{name}', the type of 'p' should be 'float', but got type '{type(p).__name__}'."
        )
    if p < 0 or p > 1:
        raise ValueError(f"For '{name}', the 'p' must be a number in range [0, 1], but got {p}.")
    return p


class Dropout1d(Cell):
    """`nn.Dropout1d(p=0.5)`: in training mode each channel of an (N, C, L) input (or
    each row of a (C, L) one) is zeroed with probability p, the rest scaled by
    1 / (1 - p); in eval mode the identity."""

    def __init__(self, p: float = 0.5):
        super().__init__()
        self.prob = _float_p(p, "Dropout1d")

    def construct(self, x):
        if not self.training or self.prob == 0:
            return x
        return dropout1d(x, self.prob, True)


class Dropout3d(Cell):
    """`nn.Dropout3d(p=0.5)`: Dropout2d for (N, C, D, H, W) inputs. Its repr shows the
    keep probability as `p`, as MindSpore 2.10's does."""

    def __init__(self, p: float = 0.5):
        super().__init__()
        self.keep_prob = 1.0 - _float_p(p, "Dropout3d")

    def construct(self, x):
        if not self.training or self.keep_prob == 1:
            return x
        return dropout3d(x, 1.0 - self.keep_prob, True)

    def extend_repr(self) -> str:
        return f"p={self.keep_prob}"
