"""`mindspore.ops.composite`: gradients, HyperMap and friends, as `C`.

    from mindjit.ops import composite as C
    self.grad = C.GradOperation(get_by_list=True)
    self.hyper_map = C.HyperMap()
    _grad_scale = C.MultitypeFuncGraph("grad_scale")

A view (frontend/ms_modules.py) of mindjit.ops: `_NAMES` are the names
MindSpore's composite module exports (2.x, and 1.x's `core`), each looked up in
`mindjit.ops` when asked; those mindjit does not implement (C.Map,
C.clip_by_global_norm ...) are an AttributeError that names them.
"""

from __future__ import annotations

from typing import Any

from mindjit.frontend.ms_modules import attribute_hooks

#: `mindjit.ops`, where the names are looked up: the face attaches itself once it
#: has them all (ops/__init__.py), so this view imports no face
_ops: Any = None


def attach(face: Any) -> None:
    global _ops
    _ops = face


#: MindSpore's `mindspore.ops.composite.__all__`
_NAMES = (
    "GradOperation",
    "HyperMap",
    "Map",
    "MultitypeFuncGraph",
    "add_flags",
    "batch_dot",
    "clip_by_global_norm",
    "clip_by_value",
    "core",
    "count_nonzero",
    "cummin",
    "dot",
    "env_get",
    "gamma",
    "hyper_add",
    "laplace",
    "matmul",
    "mm",
    "multinomial",
    "normal",
    "ones_like",
    "poisson",
    "repeat_elements",
    "repeat_interleave",
    "sequence_mask",
    "tail",
    "tensor_dot",
    "uniform",
    "vecdot",
    "zeros_like",
    "zip_operation",
)


def _lookup(name: str) -> Any:
    return getattr(_ops, name, None) if name in _NAMES else None


def _names() -> list[str]:
    return [n for n in _NAMES if hasattr(_ops, n)]


__getattr__, __dir__ = attribute_hooks("ops.composite", _lookup, _names)
