"""Running sums and products with MindSpore 2.x's signatures: `ops.cumsum(x, axis,
dtype=None)`, `ops.cumprod(input, dim, dtype=None)`, and the primitives'
`exclusive` / `reverse` (`ops.CumSum(exclusive=False, reverse=False)(x, axis)`).

`dtype` casts the input first (to avoid an overflow, as MindSpore says); a Bool
input counts in int32. A scalar is scanned as a one-element vector. The
gradient of cumprod divides by the input (exact without zeros, as MindSpore's).
"""

from __future__ import annotations

from typing import Any

from mindjit.dialects import mindir as M
from mindjit.frontend import dtype as D
from mindjit.frontend.ops.array import reshape
from mindjit.frontend.ops.cast import cast_to
from mindjit.frontend.ops.core import normalize_axis, run
from mindjit.frontend.ops.promotion import is_tensor


def scan(
    name: str, x: Any, axis: Any, exclusive: bool = False, reverse: bool = False, dtype: Any = None
) -> Any:
    """`mindir.cumsum`/`cumprod` (`name`) of `x` along `axis` (MindSpore's checks)."""
    if not is_tensor(x):
        raise TypeError(f"For '{name}', the input must be a Tensor, got {type(x).__name__}")
    for what, flag in (("exclusive", exclusive), ("reverse", reverse)):
        if not isinstance(flag, bool):
            raise TypeError(f"For '{name}', '{what}' must be a bool, got {type(flag).__name__}")
    if dtype is not None:
        x = cast_to(x, D.to_dtype(dtype))
    elif x.dtype.is_bool:
        x = cast_to(x, D.int32)
    shape = tuple(x.shape)
    ax = normalize_axis(axis, len(shape), name)
    op_cls = M.CumSumOp if name.endswith("sum") else M.CumProdOp
    flat = reshape(x, (1,)) if not shape else x

    def build(e: Any, v: list[Any]) -> Any:
        return e.value(op_cls.get(v[0], ax, exclusive, reverse))

    out = run((name, ax, exclusive, reverse), build, flat)
    return reshape(out, ()) if not shape else out


def cumsum(x: Any, axis: int, dtype: Any = None) -> Any:
    """`ops.cumsum(x, axis, dtype=None)`: y_i = x_1 + ... + x_i along `axis`."""
    return scan("cumsum", x, axis, dtype=dtype)


def cumprod(input: Any, dim: int, dtype: Any = None) -> Any:
    """`ops.cumprod(input, dim, dtype=None)`: y_i = x_1 * ... * x_i along `dim`."""
    return scan("cumprod", input, dim, dtype=dtype)
