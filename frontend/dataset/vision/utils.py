"""`mindjit.dataset.vision.utils`: the enums of the vision transforms, with
MindSpore's members and values (`from mindjit.dataset.vision import Inter, Border`)."""

from __future__ import annotations

from enum import IntEnum, StrEnum


class Inter(IntEnum):
    """Interpolation modes. mindjit's Resize and RandomResizedCrop implement
    NEAREST and BILINEAR (= LINEAR); the others are a NotImplementedError."""

    NEAREST = 0
    ANTIALIAS = 1
    BILINEAR = 2
    LINEAR = 2
    BICUBIC = 3
    CUBIC = 3
    AREA = 4
    PILCUBIC = 5


class Border(StrEnum):
    """Padding modes; the values are numpy's `np.pad` modes, which mean the same:
    REFLECT leaves the edge value out (OpenCV's BORDER_REFLECT_101), SYMMETRIC
    repeats it."""

    CONSTANT = "constant"
    EDGE = "edge"
    REFLECT = "reflect"
    SYMMETRIC = "symmetric"


class ImageBatchFormat(IntEnum):
    NHWC = 0
    NCHW = 1
