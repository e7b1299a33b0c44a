"""Convolution and pooling -> linalg's named ops (MLIR's NCHW forms).

- conv2d: the padding as `pad_tensor` (a fill and an insert_slice), then
  `linalg.conv_2d_nchw_fchw` into a zero-filled accumulator; a grouped
  convolution reshapes to `linalg.conv_2d_ngchw_gfchw` (input N,G,C/G,H,W;
  weight G,F/G,C/G,KH,KW) and back.
- max_pool2d: padding with -inf, then `linalg.pooling_nchw_max` over a KH x KW
  window (a `tensor.empty`: only its shape matters) into a -inf accumulator.
- avg_pool2d: padding with 0, `linalg.pooling_nchw_sum`, then a division by
  each window's count: one scalar when every window counts the same, else a
  constant (OH, OW) tensor of counts computed here, broadcast over N and C.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, i64
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap
from xdsl.pattern_rewriter import PatternRewriter

from mindjit.dialects import mindir
from mindjit.dialects.linalg_ext import PoolingNchwSumOp
from mindjit.dialects.mindir import shapes as S
from mindjit.passes.mindir_to_tensor.builders import Emitter
from mindjit.passes.mindir_to_tensor.rules import LOWERINGS
from mindjit.passes.mindir_to_tensor.shape import pad_tensor


def _ints(values) -> DenseIntOrFPElementsAttr:
    return DenseIntOrFPElementsAttr.from_list(S.tensor_type((len(values),), i64), list(values))


def _spatial_pad(e: Emitter, x: SSAValue, pad, value: float) -> SSAValue:
    pt, pb, pl, pr = pad
    return pad_tensor(e, x, [0, 0, pt, pl], [0, 0, pb, pr], None, value)


@LOWERINGS.register(mindir.Conv2DOp)
def lower_conv2d(op: mindir.Conv2DOp, rewriter: PatternRewriter) -> None:
    stride, dilation, pad, group = op.params()
    e = Emitter(rewriter, op.location)
    result = S.tensor_of(op.result.type)
    element = result.get_element_type()
    x = _spatial_pad(e, op.input, pad, 0.0)
    attrs = {"strides": _ints(stride), "dilations": _ints(dilation)}
    if group == 1:
        acc = e.filled(result.get_shape(), element, 0)
        out = e.convolution(linalg.Conv2DNchwFchwOp, [x, op.weight], acc, **attrs)
        rewriter.replace(op, [], [out])
        return
    n, c, h, w = S.tensor_of(x.type).get_shape()
    f, cg, kh, kw = S.tensor_of(op.weight.type).get_shape()
    _, _, oh, ow = result.get_shape()
    xg = e.reshape(x, (n, group, c // group, h, w))
    wg = e.reshape(op.weight, (group, f // group, cg, kh, kw))
    acc = e.filled((n, group, f // group, oh, ow), element, 0)
    out = e.convolution(linalg.Conv2DNgchwGfchwOp, [xg, wg], acc, **attrs)
    rewriter.replace(op, [], [e.reshape(out, (n, f, oh, ow))])


def _window(e: Emitter, op: mindir.Pool2DOp, neutral: float, named) -> SSAValue:
    kernel, stride, dilation, pad = op.params()
    result = S.tensor_of(op.result.type)
    element = result.get_element_type()
    x = _spatial_pad(e, op.input, pad, neutral)
    window = e.empty(kernel, element)
    acc = e.filled(result.get_shape(), element, neutral)
    return e.value(
        named([x, window], [acc], [acc.type], strides=_ints(stride), dilations=_ints(dilation))
    )


@LOWERINGS.register(mindir.MaxPool2DOp)
def lower_max_pool2d(op: mindir.MaxPool2DOp, rewriter: PatternRewriter) -> None:
    e = Emitter(rewriter, op.location)
    rewriter.replace(op, [], [_window(e, op, float("-inf"), linalg.PoolingNchwMaxOp)])


@LOWERINGS.register(mindir.AvgPool2DOp)
def lower_avg_pool2d(op: mindir.AvgPool2DOp, rewriter: PatternRewriter) -> None:
    e = Emitter(rewriter, op.location)
    total = _window(e, op, 0.0, PoolingNchwSumOp)
    result = S.tensor_of(op.result.type)
    element = result.get_element_type()
    counts = op.window_counts()
    if (counts == counts.flat[0]).all():
        count = float(counts.flat[0])
        out = e.elementwise(
            [total], result, lambda b, a: b.value(arith.DivfOp(a[0], b.scalar(element, count)))
        )
    else:
        table = e.value(
            arith.ConstantOp(
                DenseIntOrFPElementsAttr.from_list(
                    S.tensor_type(counts.shape, element), [float(v) for v in counts.flat]
                )
            )
        )
        out = e.generic(
            [total, table],
            e.empty(result.get_shape(), element),
            [
                AffineMap.identity(4),
                AffineMap(4, 0, (AffineDimExpr(2), AffineDimExpr(3))),
                AffineMap.identity(4),
            ],
            ["parallel"] * 4,
            lambda b, a: b.value(arith.DivfOp(a[0], a[1])),
        )
    rewriter.replace(op, [], [out])
