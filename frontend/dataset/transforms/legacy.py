"""MindSpore's legacy modules, `transforms.c_transforms`, `transforms.py_transforms`
and `vision.c_transforms`: deprecated since MindSpore 1.8 and still importable
in 2.x (its API pages say so), so old tutorials run. Each transform there is a
subclass of the 2.x one that warns when made, in MindSpore's words, naming the
replacement; enums (`Relational`, `Inter`, `Border`) are the same objects."""

from __future__ import annotations

import warnings
from enum import Enum
from typing import Any


def deprecated(cls: type, old_module: str, new_module: str, name: str) -> type:
    """`cls` under its legacy module and name: making one warns (a FutureWarning,
    shown by default) that `new_module` has it."""
    message = (
        f"'{name}' from {old_module} is deprecated from version 1.8 of MindSpore and will be "
        f"removed in a future version. Use '{cls.__name__}' from {new_module} instead."
    )

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        warnings.warn(message, FutureWarning, stacklevel=2)
        cls.__init__(self, *args, **kwargs)

    return type(name, (cls,), {"__init__": __init__, "__module__": old_module, "__doc__": message})


def fill(module_globals: dict, modules: list[Any], names: str, old: str, new: str) -> list[str]:
    """Put the transforms `names` of `modules` in a legacy module (an entry
    'Old=New' renames); returns the names, for `__all__`."""
    available = {k: v for m in modules for k, v in vars(m).items()}
    out = []
    for entry in names.split():
        old_name, _, new_name = entry.partition("=")
        target = available[new_name or old_name]
        if isinstance(target, type) and not issubclass(target, Enum):
            target = deprecated(target, old, new, old_name)
        module_globals[old_name] = target
        out.append(old_name)
    return out
