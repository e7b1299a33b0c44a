"""`mindspore.ops.primitive`: `Primitive`, `constexpr` and the classes for primitives
defined in Python, where MindSpore defines them.

    from mindjit.ops.primitive import constexpr, prim_attr_register, PrimitiveWithInfer

The base class is frontend/ops/primitives.py's, `constexpr` frontend/ops/constexpr.py's,
`PrimitiveWithInfer`, `PrimitiveWithCheck` and `prim_attr_register`
frontend/ops/custom_primitives.py's (what such a primitive can do without a
kernel of its own is said there). Any other name is an AttributeError naming it.
"""

from __future__ import annotations

from mindjit.frontend.ms_modules import attribute_hooks
from mindjit.frontend.ops.constexpr import constexpr
from mindjit.frontend.ops.custom_primitives import (
    PrimitiveWithCheck,
    PrimitiveWithInfer,
    prim_attr_register,
)
from mindjit.frontend.ops.primitives import Primitive

__all__ = [
    "Primitive",
    "PrimitiveWithCheck",
    "PrimitiveWithInfer",
    "constexpr",
    "prim_attr_register",
]

__getattr__, __dir__ = attribute_hooks("ops.primitive", lambda name: None, lambda: __all__)
