"""`ops.stop_gradient`: its value, through which no gradient flows (`mindir.stop_gradient`,
which mindir-grad gives no adjoint; PyNative's tape uses the same rule)."""

from __future__ import annotations

from typing import Any

from mindjit.dialects import mindir as M
from mindjit.frontend.ops.core import one, run
from mindjit.frontend.ops.promotion import is_tensor


def stop_gradient(value: Any) -> Any:
    """`ops.stop_gradient(value)`: `value` itself with its gradient stopped. Tensors go
    through `mindir.stop_gradient`; tuples, lists and dicts element by element; other
    values (numbers, strings, None) carry no gradient and are returned as they are."""
    if is_tensor(value):
        return run(("stop_gradient",), one(M.StopGradientOp), value)
    if isinstance(value, tuple | list):
        return type(value)(stop_gradient(v) for v in value)
    if isinstance(value, dict):
        return {k: stop_gradient(v) for k, v in value.items()}
    return value
