"""`mindspore.ops.operations`: the primitive classes, as `P`.

    from mindjit.ops import operations as P
    self.matmul = P.MatMul(transpose_b=True)      # in __init__
    self.mean = P.ReduceMean(keep_dims=True)

Model-zoo code builds networks from primitive instances made in `__init__` and
called in `construct`. The classes are mindjit.ops's own (ops.MatMul is
P.MatMul); this module is a view of them (frontend/ms_modules.py): a name is
looked up in `mindjit.ops` when asked and must be a `Primitive` class, so a
primitive added to mindjit.ops is here too and no list is kept twice. A
MindSpore primitive mindjit does not implement (P.ApplyAdaMax, P.Conv3D ...)
is an AttributeError that names it. `_ALIASES` are MindSpore's old spellings
of primitives mindjit has.
"""

from __future__ import annotations

from typing import Any

from mindjit.frontend.ms_modules import attribute_hooks
from mindjit.frontend.ops.custom_primitives import PrimitiveWithCheck, PrimitiveWithInfer
from mindjit.frontend.ops.primitives import Primitive

#: `mindjit.ops`, where the names are looked up: the face attaches itself once it
#: has them all (ops/__init__.py), so this view imports no face
_ops: Any = None


def attach(face: Any) -> None:
    global _ops
    _ops = face


#: MindSpore's deprecated names in ops.operations -> the primitive's current name
_ALIASES = {
    "TensorAdd": "Add",
    "Pack": "Stack",
    "Unpack": "Unstack",
    "Gelu": "GeLU",
    "FastGelu": "FastGeLU",
}


#: base classes for primitives of one's own (ops.primitive), not primitives themselves
_BASES = (Primitive, PrimitiveWithCheck, PrimitiveWithInfer)


def _is_primitive_class(value: Any) -> bool:
    return isinstance(value, type) and issubclass(value, Primitive) and value not in _BASES


def _lookup(name: str) -> Any:
    value = getattr(_ops, _ALIASES.get(name, name), None)
    return value if _is_primitive_class(value) else None


def _names() -> list[str]:
    own = [n for n in _ops.__all__ if _is_primitive_class(getattr(_ops, n))]
    return own + [alias for alias, name in _ALIASES.items() if name in own]


__getattr__, __dir__ = attribute_hooks("ops.operations", _lookup, _names)
