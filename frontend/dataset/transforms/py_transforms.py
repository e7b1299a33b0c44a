"""`mindjit.dataset.transforms.py_transforms`: MindSpore 1.x's module, deprecated
(legacy.py); each transform is the 2.x one of `mindjit.dataset.transforms`
(`OneHotOp` is `OneHot`, whose smoothed rows are float32 where the 1.x Python
one made float64)."""

from mindjit.frontend.dataset.transforms import compose, tensor_ops
from mindjit.frontend.dataset.transforms.legacy import fill

__all__ = fill(
    globals(),
    [tensor_ops, compose],
    "Compose OneHotOp=OneHot RandomApply RandomChoice RandomOrder",
    "mindjit.dataset.transforms.py_transforms",
    "mindjit.dataset.transforms",
)
