"""Convolution and pooling kernels: strided window views and one matmul.

`sliding_window_view` gives every output position's receptive field as a view
(N, C, OH, OW, KH, KW) of the padded input, without copying; strides and
dilations are steps of that view. A convolution copies the view into the
im2col matrix (in the order `conv_nchw` says) and calls BLAS once, the same work
as im2col + matmul written by hand (benchmarks/models.py measures the two). A grouped convolution contracts per group with `einsum`;
pooling folds the view's taps (`_pool`). Never a Python loop over pixels.

The accumulator (`outs`) is added (max-ed for max pooling) unless it is a fill
of the neutral value, which is what convert-mindir-to-tensor emits.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Operation

from mindjit.backend.cpu.errors import unsupported
from mindjit.backend.cpu.registry import register
from mindjit.backend.cpu.steps import call_step
from mindjit.backend.cpu.types import dtype_of, is_tensor
from mindjit.dialects.linalg_ext import PoolingNchwSumOp

if TYPE_CHECKING:
    from mindjit.backend.cpu.compiler import FunctionCompiler


def _pairs(op: Operation) -> tuple[tuple[int, int], tuple[int, int]]:
    strides = tuple(int(v) for v in op.strides.get_values())  # type: ignore[attr-defined]
    dilations = tuple(int(v) for v in op.dilations.get_values())  # type: ignore[attr-defined]
    if len(strides) != 2 or len(dilations) != 2:
        raise unsupported(op, "strides and dilations must have two values")
    return strides, dilations  # type: ignore[return-value]


def windows(x: np.ndarray, k: tuple[int, int], stride, dilation, out_hw) -> np.ndarray:
    """View (..., OH, OW, KH, KW) of `x`'s last two axes: each output's taps."""
    span = ((k[0] - 1) * dilation[0] + 1, (k[1] - 1) * dilation[1] + 1)
    v = sliding_window_view(x, span, axis=(-2, -1))
    v = v[..., :: stride[0], :: stride[1], :: dilation[0], :: dilation[1]]
    return v[..., : out_hw[0], : out_hw[1], :, :]


def conv_nchw(x: np.ndarray, w: np.ndarray, stride, dilation, out_hw, dtype) -> np.ndarray:
    """N, F, OH, OW: the im2col matrix copied in the order whose innermost run is
    the longer one, then one BLAS matmul.

    The copy, not the matmul, is most of a numpy convolution's time, and a copy
    is fast when its innermost axis is long. A forward convolution (small
    kernel, large output) copies (C, KH, KW, N, OH, OW), rows along OW; a
    weight gradient (the output gradient as a large "kernel", a small output)
    copies (N, OH, OW, C, KH, KW), rows along KW, which `tensordot` does.
    Measured on a 2-core machine (benchmarks/models.py's shapes): 8x16x32x32
    by 32 3x3 filters 2.7 -> 0.85 ms; LeNet's 5x5 on 32x1x32x32 0.95 -> 0.38 ms;
    a 32x32 weight-gradient kernel stays on tensordot (1.2 ms; 4.1 the other way).
    """
    f, c, kh, kw = w.shape
    cols = windows(x, (kh, kw), stride, dilation, out_hw)  # N, C, OH, OW, KH, KW
    if out_hw[0] * out_hw[1] < kh * kw:
        out = np.tensordot(cols, w, axes=([1, 4, 5], [1, 2, 3]))  # N, OH, OW, F
        return np.ascontiguousarray(out.transpose(0, 3, 1, 2), dtype=dtype)
    n = x.shape[0]
    matrix = cols.transpose(1, 4, 5, 0, 2, 3).reshape(c * kh * kw, n * out_hw[0] * out_hw[1])
    out = (w.reshape(f, c * kh * kw) @ matrix).reshape(f, n, *out_hw)
    return np.ascontiguousarray(out.transpose(1, 0, 2, 3), dtype=dtype)


def _check(op: Operation) -> tuple[np.dtype, tuple[int, ...]]:
    if len(op.results) != 1 or not is_tensor(op.results[0].type):
        raise unsupported(op, "only the tensor form with one result is supported")
    out = op.results[0].type
    return dtype_of(out, op), tuple(out.get_shape())  # type: ignore[attr-defined]


def _with_acc(c: FunctionCompiler, op: Operation, fn, combine, neutral: float) -> None:
    """Emit `fn(ins)` folded into the accumulator with `combine`, unless it is a
    fill of `neutral`."""
    *ins, acc = op.operands
    slots = [c.read(v) for v in ins]
    splat = c.splat(acc)
    if splat is not None and float(splat) == neutral:
        c.emit(call_step(fn, slots, c.define(op.results[0], fresh=True)))
        return

    def with_init(*args: Any) -> np.ndarray:
        *xs, init = args
        return combine(init, fn(*xs))

    c.emit(call_step(with_init, [*slots, c.read(acc)], c.define(op.results[0], fresh=True)))


@register(linalg.Conv2DNchwFchwOp)
def build_conv_2d_nchw_fchw(c: FunctionCompiler, op: Operation) -> None:
    dtype, (_, _, oh, ow) = _check(op)
    stride, dilation = _pairs(op)
    kh, kw = op.operands[1].type.get_shape()[2:]  # type: ignore[attr-defined]

    def conv(x: np.ndarray, w: np.ndarray) -> np.ndarray:
        return conv_nchw(x, w, stride, dilation, (oh, ow), dtype)

    _with_acc(c, op, conv, np.add, 0.0)


@register(linalg.Conv2DNgchwGfchwOp)
def build_conv_2d_ngchw_gfchw(c: FunctionCompiler, op: Operation) -> None:
    dtype, (_, _, _, oh, ow) = _check(op)
    stride, dilation = _pairs(op)
    kh, kw = op.operands[1].type.get_shape()[3:]  # type: ignore[attr-defined]

    def conv(x: np.ndarray, w: np.ndarray) -> np.ndarray:
        cols = windows(x, (kh, kw), stride, dilation, (oh, ow))  # N, G, C, OH, OW, KH, KW
        out = np.einsum("ngchwij,gfcij->ngfhw", cols, w, optimize=True)
        return np.ascontiguousarray(out, dtype=dtype)

    _with_acc(c, op, conv, np.add, 0.0)


def _pool(c: FunctionCompiler, op: Operation, combine, neutral: float) -> None:
    """Pooling folds the window's taps one at a time: `combine(out, tap, out=out)`
    over KH * KW strided views of the input (a loop over taps, not pixels).

    numpy reduces badly over a view's small trailing axes: a 2x2 max pool of
    32x6x28x28 took 2.2 ms as `np.max(windows, axis=(-2, -1))` and 0.07 ms as
    four `np.maximum`s; LeNet5's graph-mode train step (batch 32) went from 9.9 to 7.7 ms.
    """
    dtype, (_, _, oh, ow) = _check(op)
    stride, dilation = _pairs(op)
    kh, kw = op.operands[1].type.get_shape()  # type: ignore[attr-defined]

    def pool(x: np.ndarray, _window: np.ndarray) -> np.ndarray:
        taps = windows(x, (kh, kw), stride, dilation, (oh, ow))  # ..., OH, OW, KH, KW
        out = np.array(taps[..., 0, 0], dtype=dtype)
        for i in range(kh):
            for j in range(kw):
                if i or j:
                    combine(out, taps[..., i, j], out=out)
        return out

    _with_acc(c, op, pool, combine, neutral)


@register(linalg.PoolingNchwMaxOp)
def build_pooling_nchw_max(c: FunctionCompiler, op: Operation) -> None:
    _pool(c, op, np.maximum, float("-inf"))


@register(PoolingNchwSumOp)
def build_pooling_nchw_sum(c: FunctionCompiler, op: Operation) -> None:
    _pool(c, op, np.add, 0.0)
