"""mindir-grad's adjoint rules for convolution, pooling, pad and reverse.

Each adjoint is written with mindir ops, so it is lowered, batched, run and
compiled for the device like any program (no backward-only kernels):

- conv2d, d input: the transposed convolution of the output gradient
  (dialects/mindir/conv_transpose.py: spread by the stride, padded by the
  window, convolved with the weight flipped and its in/out channels swapped per
  group, the forward padding cropped). d weight: the padded input, channels first, convolved
  with the output gradient as the filter (stride and dilation trade places),
  cropped to the kernel and transposed back.
- max_pool2d: per tap of the window, the gradient goes where the tap held the
  window's maximum, to the first such tap in row-major order (as MaxPoolGrad),
  spread back to the input by `pad`; when the windows tile the input
  (`_tiles`: stride == kernel, no padding or dilation), the taps' pieces are
  stacked side by side instead.
- avg_pool2d: the gradient divided by each window's count, spread to every tap
  (broadcast to the taps when the windows tile the input).
- pad: the slice of the gradient the input landed on; reverse: reversed again.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, TensorType
from xdsl.ir import SSAValue

from mindjit.dialects import mindir as M
from mindjit.dialects.mindir.conv_transpose import conv2d_input_adjoint
from mindjit.passes.mindir_grad.emitter import GradEmitter, element_of, shape_of
from mindjit.passes.mindir_grad.rules import rule


def _crop(e: GradEmitter, g: SSAValue, pads) -> SSAValue:
    pt, pb, pl, pr = pads
    if not any(pads):
        return g
    return e.v(M.PadOp.get(g, [0, 0, -pt, -pl], [0, 0, -pb, -pr]))


def _spread(e: GradEmitter, g: SSAValue, at, stride, padded_hw) -> SSAValue:
    """`g` (N, C, OH, OW) placed at rows at[0] + i * stride[0] (columns likewise)
    of a zero (N, C, *padded_hw) tensor."""
    _, _, oh, ow = shape_of(g)
    low = [0, 0, at[0], at[1]]
    high = [
        0,
        0,
        padded_hw[0] - (at[0] + (oh - 1) * stride[0] + 1),
        padded_hw[1] - (at[1] + (ow - 1) * stride[1] + 1),
    ]
    return e.v(M.PadOp.get(g, low, high, [0, 0, stride[0] - 1, stride[1] - 1]))


@rule(M.Conv2DOp)
def _conv2d(e: GradEmitter, op, douts):
    (g,) = douts
    x, w = op.input, op.weight
    stride, dilation, pads, group = op.params()
    n, _, h, wd = shape_of(x)
    _, cg, kh, kw = shape_of(w)
    hp, wp = h + pads[0] + pads[1], wd + pads[2] + pads[3]

    # d input: the transposed convolution of g (shared with the frontend's Conv2dTranspose)
    dx = conv2d_input_adjoint(e.v, g, w, (h, wd), stride, dilation, pads, group)

    # d weight
    xp = e.v(M.PadOp.get(x, [0, 0, pads[0], pads[2]], [0, 0, pads[1], pads[3]])) if any(pads) else x
    xt = e.reshape(xp, (n, group, cg, hp, wp))
    xt = e.v(M.TransposeOp.get(xt, [2, 1, 0, 3, 4]))
    xt = e.reshape(xt, (cg, group * n, hp, wp))
    gt = e.v(M.TransposeOp.get(g, [1, 0, 2, 3]))
    dw = e.v(M.Conv2DOp.get(xt, gt, dilation, stride, (0, 0, 0, 0), group))
    _, _, kh2, kw2 = shape_of(dw)
    if (kh2, kw2) != (kh, kw):
        dw = e.v(M.PadOp.get(dw, [0, 0, 0, 0], [0, 0, kh - kh2, kw - kw2]))
    dw = e.v(M.TransposeOp.get(dw, [1, 0, 2, 3]))
    return [dx, dw]


def _taps(kernel, dilation):
    for i in range(kernel[0]):
        for j in range(kernel[1]):
            yield i * dilation[0], j * dilation[1]


def _tiles(kernel, stride, dilation, pads, in_hw, out_hw) -> bool:
    """The windows tile the input exactly: stride == kernel, no dilation, no
    padding, nothing left over. Then each input element is in one window, and
    the gradient is the windows' pieces put side by side (stacked and reshaped)
    rather than one zero tensor per tap spread and added: LeNet5's 2x2 pool
    gradient was 4 zero fills, 4 strided writes and a 4-way add on its 32x6x28x28
    input; its train step's elementwise, insert_slice and concat ops took 7.5 ms
    before, 4.4 after (2-core machine under load, both programs interleaved)."""
    return (
        tuple(stride) == tuple(kernel)
        and tuple(dilation) == (1, 1)
        and not any(pads)
        and tuple(in_hw) == (out_hw[0] * kernel[0], out_hw[1] * kernel[1])
    )


def _tile(e: GradEmitter, pieces, kernel, in_shape) -> SSAValue:
    """(N, C, H, W) from the KH*KW row-major pieces (N, C, OH, OW), piece (i, j)
    at rows i::KH, columns j::KW: stacked to (N, C, OH, KH, OW, KW), reshaped."""
    rows = [
        e.v(M.StackOp.get(pieces[i * kernel[1] : (i + 1) * kernel[1]], 4)) for i in range(kernel[0])
    ]  # each N, C, OH, OW, KW
    return e.reshape(e.v(M.StackOp.get(rows, 3)), in_shape)


@rule(M.MaxPool2DOp)
def _max_pool2d(e: GradEmitter, op, douts):
    (g,) = douts
    kernel, stride, dilation, pads = op.params()
    in_shape = shape_of(op.input)
    _, _, h, w = in_shape
    _, _, oh, ow = shape_of(g)
    tiles = _tiles(kernel, stride, dilation, pads, (h, w), (oh, ow))
    padded = (h + pads[0] + pads[1], w + pads[2] + pads[3])
    xp = e.v(
        M.PadOp.get(op.input, [0, 0, pads[0], pads[2]], [0, 0, pads[1], pads[3]], None, -np.inf)
    )
    out = op.result
    nchw = shape_of(xp)
    taken = None
    total = None
    pieces = []
    for at in _taps(kernel, dilation):
        tap = e.v(
            M.GetItemOp.get(
                xp,
                [0, 0, at[0], at[1]],
                [
                    nchw[0],
                    nchw[1],
                    at[0] + (oh - 1) * stride[0] + 1,
                    at[1] + (ow - 1) * stride[1] + 1,
                ],
                [1, 1, stride[0], stride[1]],
            )
        )
        hit = e.compare(M.EqualOp, tap, out)
        if taken is not None:
            hit = e.v(M.LogicalAndOp.get(hit, e.unary(M.LogicalNotOp, taken)))
        taken = hit if taken is None else e.v(M.LogicalOrOp.get(taken, hit))
        if tiles:
            pieces.append(e.mask(hit, g))
            continue
        part = _spread(e, e.mask(hit, g), at, stride, padded)
        total = part if total is None else e.add(total, part)
    if tiles:
        return [_tile(e, pieces, kernel, in_shape)]
    return [_crop(e, total, pads)]


@rule(M.AvgPool2DOp)
def _avg_pool2d(e: GradEmitter, op, douts):
    (g,) = douts
    kernel, stride, _, pads = op.params()
    _, _, h, w = shape_of(op.input)
    padded = (h + pads[0] + pads[1], w + pads[2] + pads[3])
    counts = op.window_counts()
    element = element_of(g)
    if (counts == counts.flat[0]).all():
        share = e.div(g, e.scalar(float(counts.flat[0]), element))
    else:
        table_type = TensorType(element, [1, 1, *counts.shape])
        value = DenseIntOrFPElementsAttr.from_list(table_type, [float(v) for v in counts.flat])
        table = e.v(M.ConstantOp.make([], {"value": value}))
        share = e.div(g, table)
    n, c, _, _ = shape_of(op.input)
    _, _, oh, ow = shape_of(g)
    if _tiles(kernel, stride, (1, 1), pads, (h, w), (oh, ow)):  # every tap gets its share
        share = e.reshape(share, (n, c, oh, 1, ow, 1))
        share = e.broadcast_to(share, (n, c, oh, kernel[0], ow, kernel[1]))
        return [e.reshape(share, (n, c, h, w))]
    total = None
    for at in _taps(kernel, (1, 1)):
        part = _spread(e, share, at, stride, padded)
        total = part if total is None else e.add(total, part)
    return [_crop(e, total, pads)]


@rule(M.PadOp)
def _pad(e: GradEmitter, op, douts):
    (g,) = douts
    low, high, interior = op.paddings()
    shape = shape_of(op.input)
    if min(low + high) < 0:  # put the cropped border back first
        g = e.v(M.PadOp.get(g, [max(-v, 0) for v in low], [max(-v, 0) for v in high]))
        low, high = [max(v, 0) for v in low], [max(v, 0) for v in high]
    starts = low
    limits = [lo + d + max(d - 1, 0) * it for lo, d, it in zip(low, shape, interior)]
    return [e.v(M.GetItemOp.get(g, starts, limits, [it + 1 for it in interior]))]


@rule(M.ReverseOp)
def _reverse(e: GradEmitter, op, douts):
    (g,) = douts
    return [e.v(M.ReverseOp.get(g, list(op.axis.get_values())))]
