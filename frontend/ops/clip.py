"""Bounding and overwriting values: `ops.clamp` / `clip` / `clip_by_value`, `ops.masked_fill`.

clamp is min(max(x, lo), hi) (`mindir.maximum` / `minimum`): where lo > hi the
result is hi, as MindSpore documents. The bounds are cast to the input's dtype
and the result keeps it. masked_fill is `mindir.select(mask, value, x)`, so the
gradient reaching `x` is zero where the mask is set.
"""

from __future__ import annotations

from typing import Any

from mindjit.frontend import dtype as D
from mindjit.frontend.ops.cast import cast_to
from mindjit.frontend.ops.math import maximum, minimum, select
from mindjit.frontend.ops.promotion import is_number, is_tensor
from mindjit.frontend.ops.split import require_tensor


def _bound(v: Any, x: Any, name: str, what: str) -> Any:
    if v is None:
        return None
    if is_tensor(v):
        return cast_to(v, x.dtype)
    if is_number(v) and not isinstance(v, bool):
        return cast_to(v, x.dtype)
    raise TypeError(
        f"For '{name}', '{what}' must be a Tensor, a number or None, got {type(v).__name__}"
    )


def _clamp(name: str, input: Any, lo: Any, hi: Any, names: tuple[str, str]) -> Any:
    x = require_tensor(input, name)
    if x.dtype.is_bool:
        raise TypeError(f"For '{name}', the input must be a number tensor, got {x.dtype}")
    if lo is None and hi is None:
        raise ValueError(f"For '{name}', '{names[0]}' and '{names[1]}' must not both be None")
    low = _bound(lo, x, name, names[0])
    high = _bound(hi, x, name, names[1])
    out = x if low is None else maximum(x, low)
    return out if high is None else minimum(out, high)


def clamp(input: Any, min: Any = None, max: Any = None) -> Any:  # noqa: A002
    """`ops.clamp(input, min=None, max=None)`: every element brought into [min, max]."""
    return _clamp("clamp", input, min, max, ("min", "max"))


def clip(input: Any, min: Any = None, max: Any = None) -> Any:  # noqa: A002
    return _clamp("clip", input, min, max, ("min", "max"))


def clip_by_value(x: Any, clip_value_min: Any = None, clip_value_max: Any = None) -> Any:
    """`ops.clip_by_value(x, clip_value_min=None, clip_value_max=None)`: a Tensor, or a
    tuple or list of Tensors clipped one by one (the same kind of sequence back)."""
    if isinstance(x, tuple | list):
        return type(x)(clip_by_value(t, clip_value_min, clip_value_max) for t in x)
    return _clamp(
        "clip_by_value", x, clip_value_min, clip_value_max, ("clip_value_min", "clip_value_max")
    )


def masked_fill(input_x: Any, mask: Any, value: Any) -> Any:
    """`ops.masked_fill(input_x, mask, value)`: `value` where the (broadcast) bool `mask`
    is True, `input_x` elsewhere. `value` is a number or a 0-d Tensor of input_x's dtype."""
    x = require_tensor(input_x, "masked_fill", "input_x")
    m = require_tensor(mask, "masked_fill", "mask")
    if m.dtype != D.bool_:
        raise TypeError(f"For 'masked_fill', 'mask' must be a bool Tensor, got {m.dtype}")
    if is_tensor(value):
        if value.shape != ():
            raise ValueError(
                f"For 'masked_fill', 'value' must be a 0-d Tensor, got shape {value.shape}"
            )
        if value.dtype != x.dtype:
            raise TypeError(
                f"For 'masked_fill', 'value' ({value.dtype}) must have the dtype of "
                f"'input_x' ({x.dtype})"
            )
        fill = value
    elif is_number(value):
        fill = cast_to(value, x.dtype)
    else:
        raise TypeError(
            f"For 'masked_fill', 'value' must be a number or a Tensor, got {type(value).__name__}"
        )
    return select(m, fill, x)
