"""Argument checks of the vision transforms, as MindSpore's vision/validators.py
words them (sizes, paddings, fill values, mean/std, scale/ratio ranges)."""

from __future__ import annotations

import numbers
from typing import Any

from mindjit.frontend.dataset.transforms.checks import (
    FLOAT_MAX_INTEGER,
    INT32_MAX,
    check_pos_float32,
    check_positive,
    check_uint8,
    check_value,
    type_check,
)
from mindjit.frontend.dataset.vision.utils import Border, Inter

SIZE_HELP = "Size should be a single integer or a list/tuple (h, w) of length 2."


def crop_size(size: Any) -> tuple[int, int]:
    """A crop's size: an int (a square) or (height, width), each in [1, 16777216]."""
    type_check(size, (int, list, tuple), "size")
    if isinstance(size, int):
        check_value(size, 1, FLOAT_MAX_INTEGER)
        return size, size
    if len(size) != 2:
        raise TypeError(SIZE_HELP)
    for i, value in enumerate(size):
        type_check(value, (int,), f"size[{i}]")
        check_value(value, 1, FLOAT_MAX_INTEGER)
    return int(size[0]), int(size[1])


def resize_size(size: Any) -> tuple[int, ...]:
    """A resize's size: an int (the shorter edge) or (height, width)."""
    if isinstance(size, int) and not isinstance(size, bool):
        check_value(size, 1, FLOAT_MAX_INTEGER)
        return (size,)
    if isinstance(size, list | tuple) and len(size) == 2:
        for i, value in enumerate(size):
            type_check(value, (int,), f"size at dim {i}")
            check_value(value, 1, INT32_MAX, f"size at dim {i}")
        return int(size[0]), int(size[1])
    raise TypeError(SIZE_HELP)


def coordinates(value: Any) -> tuple[int, int]:
    type_check(value, (list, tuple), "coordinates")
    if len(value) != 2:
        raise TypeError("Coordinates should be a list/tuple (y, x) of length 2.")
    for i, v in enumerate(value):
        type_check(v, (int,), f"coordinates[{i}]")
        check_value(v, 0, INT32_MAX, f"coordinates[{i}]")
    return int(value[0]), int(value[1])


def padding(value: Any) -> tuple[int, int, int, int]:
    """(left, top, right, bottom) from an int, (left/right, top/bottom) or four values."""
    type_check(value, (tuple, list, numbers.Number), "padding")
    if isinstance(value, numbers.Number):
        check_value(value, 0, INT32_MAX, "padding")
        if not isinstance(value, int):
            raise TypeError(f"Argument padding with value {value!r} is not of type [<class 'int'>]")
        return value, value, value, value
    if len(value) not in (2, 4):
        raise ValueError("The size of the padding list or tuple should be 2 or 4.")
    for i, v in enumerate(value):
        type_check(v, (int,), f"padding[{i}]")
        check_value(v, 0, INT32_MAX, "pad_value")
    if len(value) == 2:
        return value[0], value[1], value[0], value[1]
    return tuple(value)  # type: ignore[return-value]


def fill_value(value: Any) -> tuple[int, int, int]:
    """An int for every channel, or an (R, G, B) tuple, each in [0, 255]."""
    if isinstance(value, int) and not isinstance(value, bool):
        check_uint8(value, "fill_value")
        return value, value, value
    if isinstance(value, tuple) and len(value) == 3:
        for i, v in enumerate(value):
            check_uint8(v, f"fill_value[{i}]")
        return value
    raise TypeError("fill_value should be a single integer or a 3-tuple.")


def border(value: Any) -> Border:
    type_check(value, (Border,), "padding_mode")
    return value


def inter(value: Any, name: str = "interpolation") -> Inter:
    if value is None:
        raise KeyError("Interpolation should not be None")
    type_check(value, (Inter,), name)
    if value not in (Inter.NEAREST, Inter.BILINEAR):
        raise NotImplementedError(
            f"{name}={value!r}: mindjit's vision transforms implement Inter.NEAREST and "
            "Inter.BILINEAR (Inter.LINEAR) in numpy; the other modes need OpenCV or PIL"
        )
    return value


def mean_std(mean: Any, std: Any) -> None:
    type_check(mean, (list, tuple), "mean")
    type_check(std, (list, tuple), "std")
    if len(mean) != len(std):
        raise ValueError("Length of mean and std must be equal.")
    for i, m in enumerate(mean):
        type_check(m, (int, float), f"mean[{i}]")
        check_value(m, 0, 255, f"mean[{i}]")
    for j, s in enumerate(std):
        type_check(s, (int, float), f"std[{j}]")
        check_value(s, 0, 255, f"std[{j}]", open_lo=True)


def scale_ratio(scale: Any, ratio: Any, max_attempts: Any) -> None:
    """RandomResizedCrop's ranges: scale in [0, 16777216] with scale[1] > 0, ratio
    positive, both (min, max); max_attempts a positive int32."""
    type_check(scale, (tuple, list), "scale")
    if len(scale) != 2:
        raise TypeError("scale should be a list/tuple of length 2.")
    for i, v in enumerate(scale):
        type_check(v, (float, int), f"scale[{i}]")
    if scale[0] > scale[1]:
        raise ValueError("scale should be in (min,max) format. Got (max,min).")
    if not 0 <= scale[0] <= scale[1] <= FLOAT_MAX_INTEGER:
        raise ValueError(f"Input is not within the required interval of [0, {FLOAT_MAX_INTEGER}].")
    check_positive(scale[1], "scale[1]")
    type_check(ratio, (tuple, list), "ratio")
    if len(ratio) != 2:
        raise TypeError("ratio should be a list/tuple of length 2.")
    check_pos_float32(ratio[0], "ratio[0]")
    check_pos_float32(ratio[1], "ratio[1]")
    if ratio[0] > ratio[1]:
        raise ValueError("ratio should be in (min,max) format. Got (max,min).")
    type_check(max_attempts, (int,), "max_attempts")
    check_value(max_attempts, 1, INT32_MAX, "max_attempts")
