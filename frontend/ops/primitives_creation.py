"""MindSpore's primitive classes for tensor creation and triangles: `ops.Range`,
`ops.Eye`, `ops.Tril`, `ops.Triu` (each calls the functional op of creation.py)."""

from __future__ import annotations

from typing import Any

from mindjit.frontend.ops import creation
from mindjit.frontend.ops.primitives import Primitive


class Range(Primitive):
    """`Range(maxlen=1000000)(start, limit, delta)`: a 1-D sequence in the inputs' dtype."""

    def __init__(self, maxlen: int = 1000000):
        super().__init__()
        if isinstance(maxlen, bool) or not isinstance(maxlen, int) or maxlen <= 0:
            raise ValueError(f"For 'Range', the 'maxlen' must be a positive int, got {maxlen!r}")
        self.maxlen = maxlen

    def __call__(self, start: Any, limit: Any, delta: Any) -> Any:
        out = creation.range_(start, limit, delta)
        if out.shape[0] > self.maxlen:
            raise ValueError(
                f"For 'Range', the number of elements {out.shape[0]} exceeds 'maxlen' {self.maxlen}"
            )
        return out


class Eye(Primitive):
    """`Eye()(n, m, t)`: an n x m identity of dtype t."""

    def __call__(self, n: Any, m: Any, t: Any) -> Any:
        return creation.eye(n, m, t)


class _Triangle(Primitive):
    def __init__(self, diagonal: int = 0):
        super().__init__()
        self.diagonal = diagonal


class Tril(_Triangle):
    """`Tril(diagonal=0)(x)`: ops.tril(x, diagonal)."""

    def __call__(self, x: Any) -> Any:
        return creation.tril(x, self.diagonal)


class Triu(_Triangle):
    """`Triu(diagonal=0)(x)`: ops.triu(x, diagonal)."""

    def __call__(self, x: Any) -> Any:
        return creation.triu(x, self.diagonal)


__all__ = ["Eye", "Range", "Tril", "Triu"]
