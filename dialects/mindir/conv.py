"""mindir's convolution and pooling ops, NCHW as MindSpore's Conv2D / MaxPool / AvgPool.

    %y = mindir.conv2d %x, %w {stride = array<i64: 2, 2>, pad = array<i64: 1, 1, 1, 1>}
           : (tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<8x16x16x16xf32>
    %p = mindir.max_pool2d %x {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>}
           : (tensor<8x16x16x16xf32>) -> tensor<8x16x8x8xf32>

Padding is explicit (`pad` = top, bottom, left, right): the frontend turns
MindSpore's `pad_mode` ("same", "valid", "pad") and `ceil_mode` into numbers,
so every later stage sees one form. The weight of a grouped convolution is
(out_channels, in_channels / group, kh, kw), as in MindSpore. Output size per
spatial axis: (in + pad_lo + pad_hi - (dilation * (k - 1) + 1)) // stride + 1.

Pooling pads with the value that changes nothing (-inf for max); `avg_pool2d`
divides each window's sum by the number of its elements that are inside the
input, plus the padded ones when `count_include_pad` (MindSpore's
AvgPool2d default); `pad_extra` (bottom, right) is padding a ceil_mode window
reaches past `pad`, never counted.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import numpy as np
from xdsl.dialects.builtin import BoolAttr, DenseArrayBase, IntegerAttr, TensorType, i64
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import irdl_op_definition, operand_def, prop_def, result_def, traits_def
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from mindjit.dialects.mindir import shapes as S
from mindjit.dialects.mindir.format import TRUE, TypedOp, bool_attr, bool_prop, int_prop, ints_prop
from mindjit.dialects.mindir.reduce import i64_array


def window_out(size: int, k: int, stride: int, dilation: int, lo: int, hi: int) -> int:
    """Output length of a window of `k` taps over `size` padded by lo/hi."""
    return (size + lo + hi - (dilation * (k - 1) + 1)) // stride + 1


def _pair(props: dict[str, Attribute], name: str, default: int, op: str) -> tuple[int, int]:
    values = ints_prop(props, name) or (default, default)
    if len(values) != 2 or min(values) < 1:
        raise VerifyException(f"{op} '{name}' must be two positive integers, got {list(values)}")
    return values[0], values[1]


def _pads(props: dict[str, Attribute], name: str, op: str) -> tuple[int, int, int, int]:
    values = ints_prop(props, name) or (0, 0, 0, 0)
    if len(values) != 4 or min(values) < 0:
        raise VerifyException(
            f"{op} '{name}' must be four non-negative integers (top, bottom, left, right), "
            f"got {list(values)}"
        )
    return values[0], values[1], values[2], values[3]


def _nchw(t: Attribute, what: str, op: str) -> TensorType:
    x = S.tensor_of(t, what)
    if len(x.get_shape()) != 4:
        raise VerifyException(f"{op} {what} must be 4-d (NCHW), got {x}")
    if not S.is_float(x.get_element_type()):
        raise VerifyException(f"{op} needs float elements, got {x.get_element_type()}")
    return x


def _spatial(
    op: str, hw: Sequence[int], k: Sequence[int], stride, dilation, pads: Sequence[int]
) -> tuple[int, int]:
    out = []
    for axis, (size, kk, s, d, lo, hi) in enumerate(
        zip(hw, k, stride, dilation, pads[0::2], pads[1::2])
    ):
        n = window_out(size, kk, s, d, lo, hi)
        if n < 1:
            raise VerifyException(
                f"{op}: the window ({kk} taps, dilation {d}) is larger than the padded input "
                f"({size} + {lo} + {hi}) on spatial axis {axis}"
            )
        out.append(n)
    return out[0], out[1]


@irdl_op_definition
class Conv2DOp(TypedOp):
    """`conv2d(x, w)`: x (N, C, H, W), w (F, C / group, KH, KW) -> (N, F, OH, OW)."""

    name = "mindir.conv2d"
    input = operand_def(TensorType)
    weight = operand_def(TensorType)
    result = result_def(TensorType)
    stride = prop_def(DenseArrayBase.constr(i64), i64_array([1, 1]))
    dilation = prop_def(DenseArrayBase.constr(i64), i64_array([1, 1]))
    pad = prop_def(DenseArrayBase.constr(i64), i64_array([0, 0, 0, 0]))
    group = prop_def(IntegerAttr, IntegerAttr(1, i64))
    traits = traits_def(Pure())

    @classmethod
    def infer_result(cls, operand_types, props):
        x = _nchw(operand_types[0], "input", cls.name)
        w = _nchw(operand_types[1], "weight", cls.name)
        if x.get_element_type() != w.get_element_type():
            raise VerifyException(
                f"{cls.name} input and weight must have one element type, got "
                f"{x.get_element_type()} and {w.get_element_type()}"
            )
        n, c, h, wd = x.get_shape()
        f, cg, kh, kw = w.get_shape()
        group = int_prop(props, "group", 1)
        if group < 1 or c % group or f % group:
            raise VerifyException(
                f"{cls.name} group {group} must divide the input channels ({c}) and the "
                f"output channels ({f})"
            )
        if cg != c // group:
            raise VerifyException(
                f"{cls.name} weight has {cg} input channels, expected {c} / group {group} = "
                f"{c // group}"
            )
        stride = _pair(props, "stride", 1, cls.name)
        dilation = _pair(props, "dilation", 1, cls.name)
        pads = _pads(props, "pad", cls.name)
        oh, ow = _spatial(cls.name, (h, wd), (kh, kw), stride, dilation, pads)
        return S.tensor_type((n, f, oh, ow), x.get_element_type())

    @classmethod
    def get(
        cls,
        x: SSAValue,
        w: SSAValue,
        stride: Sequence[int] = (1, 1),
        dilation: Sequence[int] = (1, 1),
        pad: Sequence[int] = (0, 0, 0, 0),
        group: int = 1,
    ) -> Conv2DOp:
        return cls.make(
            [x, w],
            {
                "stride": i64_array(stride),
                "dilation": i64_array(dilation),
                "pad": i64_array(pad),
                "group": IntegerAttr(group, i64),
            },
        )

    def params(self) -> tuple[tuple[int, int], tuple[int, int], tuple[int, int, int, int], int]:
        """(stride, dilation, pad, group) as plain ints."""
        props = dict(self.properties)
        return (
            _pair(props, "stride", 1, self.name),
            _pair(props, "dilation", 1, self.name),
            _pads(props, "pad", self.name),
            int_prop(props, "group", 1),
        )


class Pool2DOp(TypedOp):
    """A pooling window over the spatial axes of an NCHW tensor."""

    input = operand_def(TensorType)
    result = result_def(TensorType)
    kernel = prop_def(DenseArrayBase.constr(i64))
    stride = prop_def(DenseArrayBase.constr(i64), i64_array([1, 1]))
    pad = prop_def(DenseArrayBase.constr(i64), i64_array([0, 0, 0, 0]))
    pad_extra = prop_def(DenseArrayBase.constr(i64), i64_array([0, 0]))
    traits = traits_def(Pure())
    DILATED: ClassVar[bool] = False

    @classmethod
    def infer_result(cls, operand_types, props):
        x = _nchw(operand_types[0], "input", cls.name)
        n, c, h, w = x.get_shape()
        kernel = _pair(props, "kernel", 0, cls.name)
        stride = _pair(props, "stride", 1, cls.name)
        dilation = _pair(props, "dilation", 1, cls.name) if cls.DILATED else (1, 1)
        pt, pb, pl, pr = _pads(props, "pad", cls.name)
        extra = ints_prop(props, "pad_extra") or (0, 0)
        if len(extra) != 2 or min(extra) < 0:
            raise VerifyException(
                f"{cls.name} 'pad_extra' must be two non-negative integers, got {list(extra)}"
            )
        oh, ow = _spatial(
            cls.name, (h, w), kernel, stride, dilation, (pt, pb + extra[0], pl, pr + extra[1])
        )
        return S.tensor_type((n, c, oh, ow), x.get_element_type())

    @staticmethod
    def window_props(kernel, stride, pad, pad_extra) -> dict[str, Attribute]:
        """The properties both pooling ops have."""
        return {
            "kernel": i64_array(kernel),
            "stride": i64_array(stride),
            "pad": i64_array(pad),
            "pad_extra": i64_array(pad_extra),
        }

    def params(self) -> tuple[tuple[int, int], tuple[int, int], tuple[int, int], tuple[int, ...]]:
        """(kernel, stride, dilation, pad with pad_extra added to bottom and right)."""
        props = dict(self.properties)
        pt, pb, pl, pr = _pads(props, "pad", self.name)
        eb, er = ints_prop(props, "pad_extra") or (0, 0)
        dilation = _pair(props, "dilation", 1, self.name) if self.DILATED else (1, 1)
        return (
            _pair(props, "kernel", 0, self.name),
            _pair(props, "stride", 1, self.name),
            dilation,
            (pt, pb + eb, pl, pr + er),
        )


@irdl_op_definition
class MaxPool2DOp(Pool2DOp):
    """`max_pool2d(x)`: the largest element of each window (padding never wins)."""

    name = "mindir.max_pool2d"
    dilation = prop_def(DenseArrayBase.constr(i64), i64_array([1, 1]))
    DILATED: ClassVar[bool] = True

    @classmethod
    def get(
        cls,
        x: SSAValue,
        kernel: Sequence[int],
        stride: Sequence[int],
        pad: Sequence[int] = (0, 0, 0, 0),
        dilation: Sequence[int] = (1, 1),
        pad_extra: Sequence[int] = (0, 0),
    ) -> MaxPool2DOp:
        props = cls.window_props(kernel, stride, pad, pad_extra)
        return cls.make([x], {**props, "dilation": i64_array(dilation)})


@irdl_op_definition
class AvgPool2DOp(Pool2DOp):
    """`avg_pool2d(x)`: each window's mean (see the module docstring for the divisor)."""

    name = "mindir.avg_pool2d"
    count_include_pad = prop_def(BoolAttr, TRUE)

    @classmethod
    def get(
        cls,
        x: SSAValue,
        kernel: Sequence[int],
        stride: Sequence[int],
        pad: Sequence[int] = (0, 0, 0, 0),
        count_include_pad: bool = True,
        pad_extra: Sequence[int] = (0, 0),
    ) -> AvgPool2DOp:
        props = cls.window_props(kernel, stride, pad, pad_extra)
        return cls.make([x], {**props, "count_include_pad": bool_attr(count_include_pad)})

    def window_counts(self) -> np.ndarray:
        """(OH, OW): how many elements each window's sum is divided by: the input's,
        plus `pad`'s when count_include_pad; `pad_extra`'s never."""
        kernel, stride, _, _ = self.params()
        pt, pb, pl, pr = _pads(dict(self.properties), "pad", self.name)
        _, _, h, w = S.tensor_of(self.input.type).get_shape()
        _, _, oh, ow = S.tensor_of(self.result.type).get_shape()
        lo_h, hi_h, lo_w, hi_w = (-pt, h + pb, -pl, w + pr) if self.includes_pad() else (0, h, 0, w)

        def counts(n_out: int, k: int, s: int, start: int, lo: int, hi: int) -> np.ndarray:
            first = np.arange(n_out) * s + start
            return np.minimum(first + k, hi) - np.maximum(first, lo)

        rows = counts(oh, kernel[0], stride[0], -pt, lo_h, hi_h)
        cols = counts(ow, kernel[1], stride[1], -pl, lo_w, hi_w)
        return np.outer(rows, cols)

    def includes_pad(self) -> bool:
        if "count_include_pad" not in self.properties:
            return True
        return bool_prop(dict(self.properties), "count_include_pad")


CONV_OPS = (Conv2DOp, MaxPool2DOp, AvgPool2DOp)
POOL_OPS = (MaxPool2DOp, AvgPool2DOp)
