"""`mindspore.ops.primitive`: `Primitive` and `constexpr` where MindSpore defines them.

    from mindjit.ops.primitive import constexpr

The base class is frontend/ops/primitives.py's, `constexpr` frontend/ops/constexpr.py's.
MindSpore's ways to define a primitive of one's own with shape and dtype
inference (`PrimitiveWithInfer`, `PrimitiveWithCheck`, `prim_attr_register`)
are not implemented here: naming them is an AttributeError that says so.
"""

from __future__ import annotations

from mindjit.frontend.ms_modules import attribute_hooks
from mindjit.frontend.ops.constexpr import constexpr
from mindjit.frontend.ops.primitives import Primitive

__all__ = ["Primitive", "constexpr"]

__getattr__, __dir__ = attribute_hooks("ops.primitive", lambda name: None, lambda: __all__)
