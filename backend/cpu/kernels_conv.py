"""Convolution and pooling kernels: strided views, few copies, 2-D/3-D matmuls.

`sliding_window_view` gives every output position's receptive field as a view
(N, C, OH, OW, KH, KW) of the padded input, without copying; strides and
dilations are steps of that view. Every product goes through `_matmul`
(np.matmul, or backend/cpu/gemm.py's matmul: one line to switch). A
convolution picks its way by shape class (`conv_nchw`), each measured against
the kernel before it (benchmarks/conv_kernels.py, one thread, ms, a 2-core
machine shared with other jobs):

- a stride-1 convolution works on flattened rows (`_conv_rows`): every tap's
  inputs for a whole output plane are one contiguous run of the input. With 16
  or more input channels and runs of 64 or more, no im2col at all: one matmul
  per tap on views of the input, accumulated (LeNet5's conv2 input gradient
  32x16x18x18 by 6x16x5x5 2.6-6.7 -> 0.8 ms: the old im2col's (6 x 400) @
  (400 x 6272) product runs at ~25 GFLOP/s or worse in OpenBLAS; ResNet's 3x3
  16 channels at 32x32 1.23 -> 0.71, 64 channels at 8x8 0.69 -> 0.54). With
  few channels, the runs copied into one im2col buffer, one matmul batched
  over the samples (LeNet5's conv1 0.42 -> 0.24, conv2 0.52 -> 0.35, ResNet's
  stem 0.26 -> 0.15). A 1x1 convolution is one matmul, no copy (0.24 -> 0.10).
- a strided convolution, or many channels on a small plane (ResNet's 128
  channels at 4x4: the unused columns between rows would cost more than the
  copy saves), copies the windows as (C, KH, KW, N, OH, OW), rows along OW,
  then one 2-D matmul (`_im2col`, as before).
- a weight gradient (the output gradient as a large "kernel", a small output)
  of a layer with few input channels (its "samples"): one matmul per output
  position on overlapping views of the input, no im2col (`_positions`;
  LeNet5's two 0.53 -> 0.38 and 0.48 -> 0.43 ms). With more, the windows
  copied as (N, OH, OW, C, KH, KW), rows along KW, then one 2-D matmul (as the
  tensordot before did).

All of LeNet5's convolutions: 8.7 -> 2.2 ms; ResNet-18's benchmarked ones
8.5 -> 6.9. A grouped convolution is one 3-D matmul batched over the groups
(`grouped_conv`; MobileNet's train step 124 -> 62 ms with the rest); pooling
folds the view's taps (`_pool`). Never a Python loop over pixels. Results
change in the last bits (another summation order), not between graph mode and
PyNative: both run these kernels, the way fixed by the shapes.

Where oneDNN is installed (backend/cpu/dnnl.py), a float32 convolution of a
static shape may run there instead: at the shape's first call (`fast_conv`) a
trial runs numpy's way and each of oneDNN's formulations that fit (`candidates`)
on that call's own operands, each once after a warm-up, and keeps the fastest,
oneDNN only when it beats numpy by `MARGIN`; the choice holds for the process.
One timed round, not three: ResNet-18's 28 shapes cost 0.45 s of trials with
three (past the process budget, so half of them were never tried), 0.07 s with
one. The call returns the chosen oneDNN way's result from the trial (no run of
its own, no random operands); numpy's way is timed `gemm.without_trials` (its
products' own oneMKL trials would be wasted when oneDNN wins) and, when kept, runs
once more for real. Numpy is kept only when a second trial agrees (`CONFIRM`): on
the 2-core VM a oneDNN run at 2 threads now and then stalled 30-40 ms. ResNet-18's
first step less its compile stages, medians of 6 interleaved fresh processes:
0.48 -> 0.27 s at one thread, 0.66 -> 0.47 s at two. A choice is kept on disk for
the next process (backend/cpu/trial_record.py), which then neither times the shape
nor creates the losing primitives. The graph's zero padding of a
convolution's input (an insert_slice into a zero fill, `zero_padding`) is read
through at plan time: the kernel takes the unpadded input, oneDNN pads (or, for
an input gradient's spread, strides) itself, numpy's way pads it (`padded`). The
plan does not depend on MINDJIT_CONV, only the choice at the first call does
(PyNative keeps its ops' plans across a change). Measured per convolution in
benchmarks/conv_kernels.py; LeNet5's train step at one thread 4.0 -> 3.0 ms, with
both cores 3.8 -> 2.5 ms (its convolutions then use both, numpy's do not).

The accumulator (`outs`) is added (max-ed for max pooling) unless it is a fill
of the neutral value, which is what convert-mindir-to-tensor emits.
"""

from __future__ import annotations

import sys
import threading
from contextlib import nullcontext
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.lib.stride_tricks import as_strided, sliding_window_view
from xdsl.dialects import tensor
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Operation, SSAValue

from mindjit.backend.cpu import blas_threads, dnnl, gemm, trial_record
from mindjit.backend.cpu.errors import unsupported
from mindjit.backend.cpu.optional_libs import fastest
from mindjit.backend.cpu.registry import register
from mindjit.backend.cpu.steps import call_step
from mindjit.backend.cpu.types import dtype_of, is_tensor
from mindjit.dialects.linalg_ext import PoolingNchwSumOp
from mindjit.support import config

if TYPE_CHECKING:
    from mindjit.backend.cpu.compiler import FunctionCompiler

#: every product of this module: oneMKL where gemm.py's per-shape trial finds it faster
#: (LeNet5's weight gradients, a long K: 41 -> 68 GFLOP/s at one thread), else np.matmul
_matmul = gemm.matmul
#: the most samples for which a weight gradient is computed by positions (`_positions`)
_POSITION_ROWS = 8
#: the most im2col rows for which `_conv_rows` batches its matmul over N (measured)
_BATCHED_ROWS = 256
#: `_conv_rows` accumulates one matmul per tap from this many input channels and run length
_TAP_CHANNELS = 16
_TAP_LENGTH = 64


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


def conv_way(x_shape, w_shape, stride, out_hw) -> str:
    """Which way `conv_nchw` computes a convolution of these shapes (decided
    once per op at plan time; the module docstring has the measurements)."""
    _, c, h, wd = x_shape
    _, _, kh, kw = w_shape
    oh, ow = out_hw
    if oh * ow < kh * kw:
        return "positions" if x_shape[0] <= _POSITION_ROWS else "weight-gradient"
    if tuple(stride) != (1, 1):
        return "im2col"
    if kh * kw == 1 and (oh, ow) == (h, wd):
        return "1x1"
    length = (oh - 1) * wd + ow
    if c >= _TAP_CHANNELS and length >= _TAP_LENGTH:
        return "taps"
    if c * kh * kw <= _BATCHED_ROWS:
        return "rows"
    return "im2col"


def conv_nchw(x: np.ndarray, w: np.ndarray, stride, dilation, out_hw, dtype, way=None):
    """N, F, OH, OW: the convolution of x (N, C, H, W) with w (F, C, KH, KW),
    computed the way `conv_way` picks (or `way`)."""
    way = way or conv_way(x.shape, w.shape, stride, out_hw)
    if way == "weight-gradient":
        return _weight_gradient(x, w, stride, dilation, out_hw, dtype)
    if way == "positions":
        return _positions(x, w, stride, dilation, out_hw, dtype)
    if way == "im2col":
        return _im2col(x, w, stride, dilation, out_hw, dtype)
    return _conv_rows(x, w, dilation, out_hw, dtype, way)


# --- oneDNN or numpy, per shape ------------------------------------------------------------

#: timed rounds of a shape's trial (each way once per round, after one warm-up each)
TRIAL_ROUNDS = 1
#: seconds one shape's trial may take; a process's trials in all (past it, numpy)
TRIAL_BUDGET = 0.02
PROCESS_BUDGET = 0.4
#: oneDNN is chosen only when its best time is below numpy's best time times this
MARGIN = 0.9
#: trials before numpy is kept: a stall only ever slows a run down, and on the 2-core VM
#: a oneDNN run at 2 threads now and then took 30-40 ms instead of 0.5 (its second
#: thread not scheduled), which in a one-round trial kept numpy for the process
CONFIRM = 2

Key = tuple
_choices: dict[Key, Any] = {}
_state: dict[str, Any] = {"spent": 0.0, "said": False, "generation": 0}
_deciding = threading.Lock()  # pipeline stages run in threads: one decision per shape


def candidates(d: dnnl._Dnnl, key: Key, only: str | None = None) -> list[dnnl.Conv]:
    """oneDNN's formulations of the shape (`dnnl.Conv`): forward (not of a spread
    input); backward weights for a small output (a weight gradient); backward
    data for a stride-1 convolution of a padded or spread input (an input
    gradient). With `only`, that formulation alone (when it fits)."""
    x_shape, w_shape, stride, dilation, out_hw, way, pads, spread = key
    hows = []
    if spread == (1, 1):
        hows.append(dnnl.FORWARD)
        if way in ("positions", "weight-gradient"):
            hows.append(dnnl.WEIGHT_GRADIENT)
    if stride == (1, 1) and (any(pads) or spread != (1, 1)):
        hows.append(dnnl.INPUT_GRADIENT)
    found = []
    for how in hows if only is None else [h for h in hows if h == only]:
        try:
            found.append(
                dnnl.Conv(d, x_shape, w_shape, stride, dilation, out_hw, how, pads, spread)
            )
        except dnnl.DnnlError:
            continue  # oneDNN has no kernel for this formulation: another way
    return found


def _trial(x: np.ndarray, w: np.ndarray, ways: list) -> tuple[Any, np.ndarray | None]:
    """The fastest of `ways` (numpy's first) on the call's own operands
    (`optional_libs.fastest`), a oneDNN way only when it beats numpy by MARGIN;
    and a oneDNN way's result, which the call returns (no run of its own). Numpy's
    way runs `gemm.without_trials`, so a kept numpy way runs again for real."""
    calls = [lambda fn=fn: fn(x, w) for fn in ways]
    results: list = []
    chosen: tuple[Any, np.ndarray | None] = (None, None)
    for _ in range(CONFIRM):
        with gemm.without_trials():
            pick, spent = fastest(
                calls, TRIAL_ROUNDS, TRIAL_BUDGET, MARGIN, (dnnl.DnnlError,), results
            )
        _state["spent"] += spent
        if pick is not None:
            chosen = ways[pick], results[pick]
            break
    _release(ways, chosen[0])
    return chosen


def _context(d: dnnl._Dnnl) -> tuple:
    """What a shape's choice holds for besides the shape (trial_record)."""
    return (d.version, d.threads, config.thread_settings())


def _kept(d: dnnl._Dnnl, key: Key) -> tuple[bool, Any]:
    """(True, the way) when a trial of an earlier process chose for `key` (None:
    numpy's), else (False, None); a kept oneDNN way that no longer builds is timed again."""
    kept = trial_record.recorded("conv", _context(d), key)
    if kept is None:
        return False, None
    if kept == "numpy":
        return True, None
    ways = candidates(d, key, only=kept)
    return (True, ways[0]) if ways else (False, None)


def _release(ways: list, kept: Any) -> None:
    """Release the oneDNN objects of the formulations not `kept` (`dnnl.Conv.release`)."""
    for way in ways:
        if way is not kept and isinstance(way, dnnl.Conv):
            way.release()


def _decide(key: Key, x: np.ndarray, w: np.ndarray) -> tuple[Any, np.ndarray | None]:
    """The shape's choice, and the call's result when a trial computed it."""
    mode = config.conv_mode()
    if mode == "numpy":
        return None, None
    d = dnnl.library()
    if d is None:
        if not _state["said"]:
            _state["said"] = True
            print(f"mindjit: convolutions run on numpy: {dnnl.why()}", file=sys.stderr)
        return None, None
    if mode == "auto":
        found, way = _kept(d, key)
        if found:
            if d.threads > 1:  # as when it was timed (below)
                blas_threads.from_now()
            return way, None
        if _state["spent"] >= PROCESS_BUDGET:
            return None, None
    ways = candidates(d, key)
    if not ways:
        return None, None
    if d.threads > 1:  # two thread pools in turn oversubscribe the cores
        blas_threads.from_now()
    if mode == "dnnl":
        _release(ways, ways[-1])
        return ways[-1], None
    with blas_threads.single_threaded() if blas_threads.wanted() else nullcontext():
        chosen = _trial(x, w, [numpy_way(key, np.float32), *ways])  # as the runs will be
    how = "numpy" if chosen[0] is None else chosen[0].how
    trial_record.record("conv", _context(d), key, how)
    return chosen


def numpy_way(key: Key, dtype: Any) -> Any:
    """conv(x, w) on numpy for the shape `key`, x unpadded (`padded`)."""
    _, _, stride, dilation, out_hw, way, pads, spread = key

    def conv(x: np.ndarray, w: np.ndarray) -> np.ndarray:
        return conv_nchw(padded(x, pads, spread), w, stride, dilation, out_hw, dtype, way)

    return conv


def fast_conv(key: Key, x: np.ndarray, w: np.ndarray) -> tuple[Any, np.ndarray | None]:
    """The oneDNN convolution (`dnnl.Conv`) the float32 shape `key` runs on, or None
    for numpy's way: decided at the shape's first call, on that call's operands
    (x unpadded: the key's pads and spread say how, `padded`), and kept for the
    process (the same shape always takes the same path, so graph mode and
    PyNative agree bit for bit). Also the result of conv(x, w) when the trial
    computed it (the chosen way's own output), else None."""
    result = None
    if key not in _choices:
        with _deciding:
            if key not in _choices:
                _choices[key], result = _decide(key, x, w)
    return _choices[key], result


def forget_choices() -> None:
    """Decide every shape again (tests switch MINDJIT_CONV); planned kernels ask
    again at their next call."""
    with _deciding:
        _choices.clear()
        _state["spent"] = 0.0
        _state["generation"] += 1


def padded(x: np.ndarray, pads, spread) -> np.ndarray:
    """`x` spread by `spread` (zeros between its elements) and padded with `pads`
    (top, bottom, left, right) zeros on its last two axes."""
    if not any(pads) and tuple(spread) == (1, 1):
        return x
    h, w = x.shape[-2:]
    sh, sw = (h - 1) * spread[0] + 1, (w - 1) * spread[1] + 1
    shape = (*x.shape[:-2], sh + pads[0] + pads[1], sw + pads[2] + pads[3])
    out = np.zeros(shape, x.dtype)
    out[..., pads[0] : pads[0] + sh : spread[0], pads[2] : pads[2] + sw : spread[1]] = x
    return out


def zero_padding(c: FunctionCompiler, v: SSAValue) -> tuple[SSAValue, tuple, tuple] | None:
    """(source, pads, spread) when `v` is a 4-D source inserted into a zero fill
    at static places on its last two axes only (the lowering's pad of a
    convolution's input, `pad_tensor`), else None."""
    op = v.owner
    if not isinstance(op, tensor.InsertSliceOp) or op.offsets or op.sizes or op.strides:
        return None
    splat = c.splat(op.dest)
    if splat is None or float(splat) != 0.0:
        return None
    src = tuple(op.source.type.get_shape())  # type: ignore[attr-defined]
    full = tuple(op.dest.type.get_shape())  # type: ignore[attr-defined]
    offsets = tuple(op.static_offsets.get_values())
    sizes = tuple(op.static_sizes.get_values())
    strides = tuple(op.static_strides.get_values())
    if len(src) != 4 or sizes != src or min(src + full) < 0:
        return None
    if offsets[:2] != (0, 0) or strides[:2] != (1, 1) or full[:2] != src[:2]:
        return None
    spread = strides[2:]
    ends = [o + (n - 1) * st + 1 for o, n, st in zip(offsets[2:], src[2:], spread)]
    pads = (offsets[2], full[2] - ends[0], offsets[3], full[3] - ends[1])
    if min(pads) < 0 or min(spread) < 1:
        return None
    return op.source, pads, spread


def _weight_gradient(x: np.ndarray, w: np.ndarray, stride, dilation, out_hw, dtype):
    """A large "kernel", a small output: the windows copied as
    (N, OH, OW, C, KH, KW), rows along KW, and one 2-D matmul."""
    f, c, kh, kw = w.shape
    n = x.shape[0]
    oh, ow = out_hw
    cols = windows(x, (kh, kw), stride, dilation, out_hw)  # N, C, OH, OW, KH, KW
    matrix = cols.transpose(0, 2, 3, 1, 4, 5).reshape(n * oh * ow, c * kh * kw)
    out = _matmul(matrix, w.reshape(f, c * kh * kw).T)  # N*OH*OW, F
    return np.ascontiguousarray(out.reshape(n, oh, ow, f).transpose(0, 3, 1, 2), dtype=dtype)


def _positions(x: np.ndarray, w: np.ndarray, stride, dilation, out_hw, dtype) -> np.ndarray:
    """A large "kernel", a small output and few samples (a weight gradient of a
    layer with few input channels): no im2col. The kernel is spread onto the
    input's H x W grid (zeros between its taps) and flattened with the
    channels, so output (y, x) of sample n is the dot product of that (F, C*H*W)
    matrix with the C*H*W elements of n's input starting at y*sh*W + x*sw: one
    matmul per output position on overlapping views of one copy of the input
    (np.matmul loops over the positions, each a 2-D BLAS call). LeNet5's conv2
    weight gradient (6 samples) 0.52 -> 0.37 ms, conv1's (1 sample) 0.44 -> 0.40;
    ResNet's with 16 samples 0.86 -> 1.25, so not there (`_POSITION_ROWS`)."""
    n, c, h, wd = x.shape
    f, _, kh, kw = w.shape
    oh, ow = out_hw
    plane = c * h * wd
    reach = (oh - 1) * stride[0] * wd + (ow - 1) * stride[1] + 1
    flat = np.empty(n * plane + reach, x.dtype)  # the last sample's views run past its end
    flat[: n * plane] = x.reshape(-1)
    flat[n * plane :] = 0
    spread = np.zeros((f, c, h, wd), w.dtype)
    spread[:, :, : kh * dilation[0] : dilation[0], : kw * dilation[1] : dilation[1]] = w
    size = flat.itemsize
    views = as_strided(
        flat,
        (oh, ow, n, plane),
        (stride[0] * wd * size, stride[1] * size, plane * size, size),
        writeable=False,
    )
    out = _matmul(views, spread.reshape(f, plane).T)  # OH, OW, N, F
    return np.ascontiguousarray(out.transpose(2, 3, 0, 1), dtype=dtype)


def _im2col(x: np.ndarray, w: np.ndarray, stride, dilation, out_hw, dtype) -> np.ndarray:
    """The windows copied as (C, KH, KW, N, OH, OW), rows along OW, and one 2-D matmul."""
    f, c, kh, kw = w.shape
    n = x.shape[0]
    oh, ow = out_hw
    cols = windows(x, (kh, kw), stride, dilation, out_hw)
    matrix = cols.transpose(1, 4, 5, 0, 2, 3).reshape(c * kh * kw, n * oh * ow)
    out = _matmul(w.reshape(f, c * kh * kw), matrix).reshape(f, n, oh, ow)
    return np.ascontiguousarray(out.transpose(1, 0, 2, 3), dtype=dtype)


def _conv_rows(x: np.ndarray, w: np.ndarray, dilation, out_hw, dtype, way: str) -> np.ndarray:
    """A stride-1 convolution on flattened rows.

    With the input's H x W plane flattened, tap (i, j) of output (y, x) is
    element (y + i*dh) * W + x + j*dw: every tap's inputs for a whole output
    plane are ONE contiguous run of L = (OH - 1) * W + OW elements starting at
    i*dh*W + j*dw. The products are computed on those runs (also for the W - OW
    columns between output rows that no output uses); the final copy to
    N, F, OH, OW skips those columns. `way`:

    - "1x1": one matmul (F, C) @ (N, C, H*W), no copy;
    - "taps" (C >= `_TAP_CHANNELS` and L >= `_TAP_LENGTH`): no im2col at all,
      KH*KW matmuls (F, C) @ (N, C, L) on views of the input, accumulated;
    - "rows" (C*KH*KW <= `_BATCHED_ROWS`): the runs copied into one
      (N, C*KH*KW, L) buffer, a matmul batched over N whose result is already
      N-major. (Filling and multiplying a few samples at a time, to stay in
      cache, measured slower: LeNet5's conv1 0.24 ms at once, 0.33 in 512 KiB
      pieces, 0.73 in 128 KiB ones.)

    Otherwise (`conv_way`) the windows' im2col: with many channels and short
    runs the unused columns would cost more than the copy's short rows saves.
    The result is copied out of `out`: handing on the strided view instead made
    LeNet5's step 1.23x slower (its consumers read it slowly); reusing the
    im2col buffer across calls (no fresh pages) measured slower too.
    """
    f, c, kh, kw = w.shape
    n, _, h, wd = x.shape
    oh, ow = out_hw
    length = (oh - 1) * wd + ow
    flat = np.ascontiguousarray(x).reshape(n, c, h * wd)
    if way == "1x1":
        return np.ascontiguousarray(_matmul(w.reshape(f, c), flat).reshape(n, f, oh, ow), dtype)
    offsets = [i * dilation[0] * wd + j * dilation[1] for i in range(kh) for j in range(kw)]
    rows = c * kh * kw
    if way == "taps":
        taps = np.ascontiguousarray(w.transpose(2, 3, 0, 1)).reshape(kh * kw, f, c)
        out = _matmul(taps[0], flat[:, :, offsets[0] : offsets[0] + length])  # N, F, L
        part = np.empty_like(out)
        for t in range(1, kh * kw):
            off = offsets[t]
            _matmul(taps[t], flat[:, :, off : off + length], out=part)
            out += part
    else:
        cols = np.empty((n, c, kh * kw, length), x.dtype)
        for t, off in enumerate(offsets):
            cols[:, :, t] = flat[:, :, off : off + length]
        out = _matmul(w.reshape(f, rows), cols.reshape(n, rows, length))  # N, F, L
    size = out.itemsize  # out: N, F, L; its N, F, OH, OW view skips the unused columns
    strides = (f * length * size, length * size, wd * size, size)
    view = as_strided(out, (n, f, oh, ow), strides, writeable=False)
    return np.ascontiguousarray(view, dtype=dtype)


def grouped_conv(x: np.ndarray, w: np.ndarray, stride, dilation, out_hw, dtype) -> np.ndarray:
    """N, G, F, OH, OW from x (N, G, C, H, W) and w (G, F, C, KH, KW): the windows
    copied as (G, C, KH, KW, N, OH, OW) and one 3-D matmul batched over the
    groups (einsum before: a depthwise 3x3 stride 2 on 8x96x10x10 0.40 -> 0.16 ms).
    A depthwise stride-1 convolution multiplies and adds the taps on flattened
    rows instead (as `_conv_rows`; 8x32x18x18 3.7 ms with einsum, 1.7 with the
    matmul, 0.7 so)."""
    n, g, c, h, wd = x.shape
    _, f, _, kh, kw = w.shape
    oh, ow = out_hw
    if c == f == 1 and tuple(stride) == (1, 1):
        length = (oh - 1) * wd + ow
        flat = np.ascontiguousarray(x).reshape(n, g, h * wd)
        taps = np.ascontiguousarray(w.reshape(g, kh * kw).T)[:, :, None]  # KH*KW, G, 1
        out = np.empty((n, g, length), np.result_type(x, w))
        part = np.empty_like(out)
        for t in range(kh * kw):
            off = (t // kw) * dilation[0] * wd + (t % kw) * dilation[1]
            np.multiply(flat[:, :, off : off + length], taps[t], out=out if t == 0 else part)
            if t:
                out += part
        size = out.itemsize
        strides = (g * length * size, length * size, length * size, wd * size, size)
        view = as_strided(out, (n, g, 1, oh, ow), strides, writeable=False)
        return np.ascontiguousarray(view, dtype=dtype)
    cols = windows(x, (kh, kw), stride, dilation, out_hw)  # N, G, C, OH, OW, KH, KW
    matrix = cols.transpose(1, 2, 5, 6, 0, 3, 4).reshape(g, c * kh * kw, n * oh * ow)
    out = _matmul(w.reshape(g, f, c * kh * kw), matrix).reshape(g, f, n, oh, ow)
    return np.ascontiguousarray(out.transpose(2, 0, 1, 3, 4), dtype=dtype)


def _check(op: Operation) -> tuple[np.dtype, tuple[int, ...]]:
    if len(op.results) != 1 or not is_tensor(op.results[0].type):
        raise unsupported(op, "only the tensor form with one result is supported")
    out = op.results[0].type
    return dtype_of(out, op), tuple(out.get_shape())  # type: ignore[attr-defined]


def _with_acc(c: FunctionCompiler, op: Operation, fn, combine, neutral: float, ins=None) -> None:
    """Emit `fn(ins)` (the op's inputs unless given) folded into the accumulator
    with `combine`, unless it is a fill of `neutral`."""
    *own, acc = op.operands
    ins = own if ins is None else ins
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
    """A float32 static shape runs on oneDNN where that is faster (`fast_conv`),
    given the input before the lowering's padding (`zero_padding`: oneDNN pads
    and spreads itself; the padded copy is then dead unless something else
    reads it), else on numpy's way."""
    dtype, (_, _, oh, ow) = _check(op)
    stride, dilation = _pairs(op)
    x_shape = tuple(op.operands[0].type.get_shape())  # type: ignore[attr-defined]
    w_shape = tuple(op.operands[1].type.get_shape())  # type: ignore[attr-defined]
    static = min(x_shape + w_shape + (oh, ow)) >= 0
    way = conv_way(x_shape, w_shape, stride, (oh, ow)) if static else None
    x, pads, spread = op.operands[0], (0, 0, 0, 0), (1, 1)
    # not MINDJIT_CONV: a plan is the same whatever the mode when it is built (PyNative
    # keeps its ops' plans), only each shape's choice at its first call follows it
    fits = static and dtype == np.float32 and dnnl.installed()
    if fits and (found := zero_padding(c, x)) is not None:
        x, pads, spread = found
    source = tuple(x.type.get_shape())  # type: ignore[attr-defined]
    key = (source, w_shape, stride, dilation, (oh, ow), way, pads, spread)
    fast: list[Any] = [-1, None]  # the choices' generation it was taken in, the choice
    on_numpy = numpy_way(key, dtype)

    def conv(x: np.ndarray, w: np.ndarray) -> np.ndarray:
        if fits and x.dtype == w.dtype == np.float32:
            if fast[0] != _state["generation"]:
                choice, result = fast_conv(key, x, w)
                fast[:] = _state["generation"], choice
                if result is not None:
                    return result
            if fast[1] is not None:
                return fast[1](x, w)
        return on_numpy(x, w)

    _with_acc(c, op, conv, np.add, 0.0, [x, op.operands[1]])


@register(linalg.Conv2DNgchwGfchwOp)
def build_conv_2d_ngchw_gfchw(c: FunctionCompiler, op: Operation) -> None:
    dtype, (_, _, _, oh, ow) = _check(op)
    stride, dilation = _pairs(op)
    kh, kw = op.operands[1].type.get_shape()[3:]  # type: ignore[attr-defined]

    def conv(x: np.ndarray, w: np.ndarray) -> np.ndarray:
        return grouped_conv(x, w, stride, dilation, (oh, ow), dtype)

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
