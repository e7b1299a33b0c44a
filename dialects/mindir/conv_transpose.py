"""A convolution's input adjoint written in mindir ops: the transposed convolution.

`conv2d_input_adjoint` builds d(conv2d)/d(input) applied to an output
gradient `g`: `g` spread by the stride (`pad` with interior padding) and padded
by the window's reach less the forward padding (cropped before, not after: the
convolution computes only the input's own rows and columns; ResNet's 3x3
padding-1 input gradients were 34x34 convolutions cropped to 32x32), convolved
(stride 1) with the weight flipped (`reverse`) and its in/out channels swapped
per group. mindir-grad's conv2d rule uses it for the input gradient, and
the frontend's `Conv2dTranspose` is exactly this map, so both share it (the
frontend must not import passes). `emit` inserts one op and returns its
result (the frontend's `Emitter.value`, mindir-grad's `GradEmitter.v`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation, SSAValue

from mindjit.dialects.mindir.conv import Conv2DOp
from mindjit.dialects.mindir.data_movement import PadOp, ReshapeOp, ReverseOp, TransposeOp

Emit = Callable[[Operation], SSAValue]


def _shape(v: SSAValue) -> tuple[int, ...]:
    t = v.type
    assert isinstance(t, TensorType)
    return tuple(t.get_shape())


def conv2d_input_adjoint(
    emit: Emit,
    g: SSAValue,
    w: SSAValue,
    in_hw: Sequence[int],
    stride: Sequence[int],
    dilation: Sequence[int],
    pads: Sequence[int],
    group: int,
) -> SSAValue:
    """(N, C, *in_hw) from `g` (N, F, OH, OW) and the conv2d weight `w` (F, C / group, kh, kw)
    of a convolution of an (N, C, *in_hw) input with `stride`, `dilation`, `pads`, `group`."""
    f, cg, kh, kw = _shape(w)
    _, _, oh, ow = _shape(g)
    c = cg * group
    hp, wp = in_hw[0] + pads[0] + pads[1], in_hw[1] + pads[2] + pads[3]
    reach = ((kh - 1) * dilation[0], (kw - 1) * dilation[1])
    left = (hp - ((oh - 1) * stride[0] + 1 + reach[0]), wp - ((ow - 1) * stride[1] + 1 + reach[1]))
    pt, pb, pl, pr = pads
    # the forward padding is cropped from the spread gradient before the convolution
    # (a negative pad crops), so only the input's own rows and columns are computed
    spread = emit(
        PadOp.get(
            g,
            [0, 0, reach[0] - pt, reach[1] - pl],
            [0, 0, reach[0] + left[0] - pb, reach[1] + left[1] - pr],
            [0, 0, stride[0] - 1, stride[1] - 1],
        )
    )
    wt = w
    if group > 1:
        wt = emit(ReshapeOp.get(wt, (group, f // group, cg, kh, kw)))
        wt = emit(TransposeOp.get(wt, [0, 2, 1, 3, 4]))
        wt = emit(ReshapeOp.get(wt, (c, f // group, kh, kw)))
    else:
        wt = emit(TransposeOp.get(wt, [1, 0, 2, 3]))
    wt = emit(ReverseOp.get(wt, [2, 3]))
    return emit(Conv2DOp.get(spread, wt, (1, 1), tuple(dilation), (0, 0, 0, 0), group))
