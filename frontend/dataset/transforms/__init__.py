"""`mindjit.dataset.transforms` (`import mindjit.dataset.transforms as transforms`):
MindSpore's general transforms, numpy functions run in `Dataset.map` or called
directly.

    data = data.map(transforms.TypeCast(ms.int32), "label")
    data = data.map(transforms.Compose([vision.Rescale(1 / 255, 0), vision.HWC2CHW()]), "image")

base.py is the shared base (random transforms draw from the pipeline's seeded
generator), tensor_ops.py the column transforms, compose.py the ones made of
transforms; c_transforms / py_transforms are MindSpore's deprecated 1.x
modules (legacy.py).
"""

from mindjit.frontend.dataset.transforms import c_transforms, py_transforms
from mindjit.frontend.dataset.transforms.base import TensorOperation
from mindjit.frontend.dataset.transforms.compose import (
    Compose,
    RandomApply,
    RandomChoice,
    RandomOrder,
)
from mindjit.frontend.dataset.transforms.tensor_ops import (
    Concatenate,
    Duplicate,
    Fill,
    Mask,
    OneHot,
    PadEnd,
    Plugin,
    Relational,
    Slice,
    TypeCast,
    Unique,
)

__all__ = [
    "Compose",
    "Concatenate",
    "Duplicate",
    "Fill",
    "Mask",
    "OneHot",
    "PadEnd",
    "Plugin",
    "RandomApply",
    "RandomChoice",
    "RandomOrder",
    "Relational",
    "Slice",
    "TensorOperation",
    "TypeCast",
    "Unique",
    "c_transforms",
    "py_transforms",
]
