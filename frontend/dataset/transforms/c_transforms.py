"""`mindjit.dataset.transforms.c_transforms`: MindSpore 1.x's module, deprecated
(legacy.py); each transform is the 2.x one of `mindjit.dataset.transforms`."""

from mindjit.frontend.dataset.transforms import compose, tensor_ops
from mindjit.frontend.dataset.transforms.legacy import fill

__all__ = fill(
    globals(),
    [tensor_ops, compose],
    "Compose Concatenate Duplicate Fill Mask OneHot PadEnd RandomApply RandomChoice Relational "
    "Slice TypeCast Unique",
    "mindjit.dataset.transforms.c_transforms",
    "mindjit.dataset.transforms",
)
