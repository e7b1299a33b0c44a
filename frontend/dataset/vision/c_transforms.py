"""`mindjit.dataset.vision.c_transforms`: MindSpore 1.x's module, deprecated (see
transforms/legacy.py); each transform is the 2.x one of `mindjit.dataset.vision`."""

from mindjit.frontend.dataset.transforms.legacy import fill
from mindjit.frontend.dataset.vision import geometry, pixels, unsupported, utils

__all__ = fill(
    globals(),
    [geometry, pixels, unsupported, utils],
    "CenterCrop Crop Decode HWC2CHW HorizontalFlip Normalize Pad RandomCrop "
    "RandomCropDecodeResize RandomHorizontalFlip RandomResizedCrop RandomVerticalFlip Rescale "
    "Resize VerticalFlip Border Inter",
    "mindjit.dataset.vision.c_transforms",
    "mindjit.dataset.vision",
)
