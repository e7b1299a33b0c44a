"""Convolutions on oneDNN through ctypes, where it is installed and faster for the shape.

oneDNN's convolution kernels are JIT-compiled for the CPU (here AVX-512) and
work on blocked layouts (nChw16c and the like) they choose per shape. A
`Conv` is one convolution shape's oneDNN primitive with every memory format
left to oneDNN (`format_tag_any`), plus the reorders between numpy's plain
NCHW arrays and the formats it chose (a reorder is skipped where the two
agree), in one of three formulations (`Conv`'s docstring): the forward
primitive; the backward-weights primitive for a weight gradient, which the
graph writes as a convolution with the batch and channel axes swapped and the
output gradient as a large kernel (the forward primitive runs such shapes
slowly: ResNet's stem weight gradient 0.47 ms, 0.13 this way); the
backward-data primitive for an input gradient, which the graph writes as a
convolution of the zero-spread and padded output gradient with the flipped
kernel (it multiplies no zeros: LeNet5's conv2 input gradient 0.86 ms on
numpy, 0.43 so). Measured per shape in benchmarks/conv_kernels.py.

The library is the PyPI wheel `onednn-cpu-gomp` (`pip install mindjit[fast]`;
oneDNN 3.2, CPU only, GNU OpenMP threads, no Python dependencies: it needs
the system's libgomp.so.1). The heavier `onednn` wheels are the SYCL build
(intel-opencl-rt and dpcpp-cpp-rt), `onednn-cpu-iomp` pins intel-openmp 2023
against mkl's 2026. Its threads: omp_set_num_threads(config.gemm_threads())
on the calling thread before each call (an OpenMP setting is per thread).
Calls are serialized by one lock: a primitive's intermediate buffers and the
stream are shared (the executor's pipeline stages run in threads).

Which shapes run here is kernels_conv's choice (a timed trial per shape, as
gemm.py's); this module only computes. The results differ from numpy's in
the last bits (another summation order); the same shape always takes the
same path in a process, so graph mode and PyNative agree bit for bit.
"""

from __future__ import annotations

import ctypes
import functools
import threading
from pathlib import Path
from typing import Any

import numpy as np

from mindjit.backend.cpu.optional_libs import wheel_library
from mindjit.support import config

# oneDNN 3.2's C API (include/oneapi/dnnl/dnnl_types.h): the values this module uses
_P = ctypes.c_void_p
_Dims = ctypes.c_int64 * 12  # dnnl_dims_t: DNNL_MAX_NDIMS
_F32 = 3
_CPU = 1
_IN_ORDER = 1
_ANY = 1  # dnnl_format_tag_any
_FORWARD_TRAINING, _FORWARD_INFERENCE = 64, 96  # dnnl_prop_kind_t
_CONV_DIRECT = 1
_USER_SCRATCHPAD = 1
_IMPL_INFO = 8  # dnnl_query_impl_info_str
_SRC_MD, _DIFF_SRC_MD, _WEIGHTS_MD, _DIFF_WEIGHTS_MD, _DST_MD, _DIFF_DST_MD = range(129, 135)
_SCRATCHPAD_MD = 136
_ARG_SRC, _ARG_DST, _ARG_WEIGHTS, _ARG_SCRATCHPAD = 1, 17, 33, 80
_ARG_DIFF_SRC, _ARG_DIFF_DST, _ARG_DIFF_WEIGHTS = 129, 145, 161


class DnnlError(RuntimeError):
    """A oneDNN call failed (its dnnl_status_t in the message)."""


class _Arg(ctypes.Structure):
    _fields_ = [("arg", ctypes.c_int), ("memory", _P)]


class _Version(ctypes.Structure):
    _fields_ = [
        ("major", ctypes.c_int),
        ("minor", ctypes.c_int),
        ("patch", ctypes.c_int),
        ("hash", ctypes.c_char_p),
        ("cpu_runtime", ctypes.c_uint),
        ("gpu_runtime", ctypes.c_uint),
    ]


class _Dnnl:
    """The loaded library, its CPU engine and one in-order stream."""

    def __init__(self, path: Path, threads: int) -> None:
        self.omp = ctypes.CDLL("libgomp.so.1")  # the system's (libdnnl needs it), or OSError
        lib = ctypes.CDLL(str(path))
        lib.dnnl_primitive_desc_query_md.restype = _P
        lib.dnnl_primitive_desc_query_md.argtypes = [_P, ctypes.c_int, ctypes.c_int]
        lib.dnnl_memory_desc_get_size.restype = ctypes.c_size_t
        lib.dnnl_memory_desc_get_size.argtypes = [_P]
        lib.dnnl_memory_desc_equal.argtypes = [_P, _P]
        lib.dnnl_memory_set_data_handle.argtypes = [_P, _P]
        lib.dnnl_primitive_execute.argtypes = [_P, _P, ctypes.c_int, _P]
        lib.dnnl_version.restype = ctypes.POINTER(_Version)
        self.lib = lib
        self.threads = threads
        self.engine = _P()
        _ok(lib.dnnl_engine_create(ctypes.byref(self.engine), _CPU, 0), "engine")
        self.stream = _P()
        _ok(lib.dnnl_stream_create(ctypes.byref(self.stream), self.engine, _IN_ORDER), "stream")
        v = lib.dnnl_version().contents
        self.version = f"oneDNN {v.major}.{v.minor}.{v.patch}"
        self.attr = _P()
        _ok(lib.dnnl_primitive_attr_create(ctypes.byref(self.attr)), "attributes")
        _ok(lib.dnnl_primitive_attr_set_scratchpad_mode(self.attr, _USER_SCRATCHPAD), "scratchpad")
        self.lock = threading.Lock()


def _ok(status: int, what: str) -> None:
    if status != 0:
        raise DnnlError(f"oneDNN: {what} failed (dnnl_status_t {status})")


@functools.cache
def _library_path() -> Path | None:
    """`libdnnl.so.3` of the installed `onednn-cpu-gomp` distribution, or None."""
    return wheel_library("onednn-cpu-gomp", "libdnnl.so.3")


_state: dict[str, Any] = {"dnnl": None, "loaded": False}
_loading = threading.Lock()


def library() -> _Dnnl | None:
    """The loaded oneDNN, or None (`why()` says why)."""
    with _loading:
        if not _state["loaded"]:
            path = _library_path()
            if path is None:
                _state["why"] = "oneDNN is not installed (pip install 'mindjit[fast]')"
            else:
                try:
                    _state["dnnl"] = _Dnnl(path, config.gemm_threads())
                except (OSError, AttributeError, DnnlError) as exc:
                    _state["why"] = f"oneDNN at {path} could not be loaded ({exc})"
            _state["loaded"] = True
    return _state["dnnl"]


def why() -> str:
    return _state.get("why", "")


def installed() -> bool:
    """Whether the oneDNN wheel is installed (does not load it)."""
    return _library_path() is not None


# --- memory descriptors and reorders -------------------------------------------------------


def _plain(d: _Dnnl, shape: tuple[int, ...], strides: tuple[int, ...]) -> _P:
    """A float32 memory descriptor of `shape` with element `strides`."""
    md = _P()
    _ok(
        d.lib.dnnl_memory_desc_create_with_strides(
            ctypes.byref(md), len(shape), _Dims(*shape), _F32, _Dims(*strides)
        ),
        "memory descriptor",
    )
    return md


def _contiguous(shape: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(int(s) // 4 for s in np.empty(shape, np.float32).strides)


def _swapped(strides: tuple[int, ...]) -> tuple[int, ...]:
    """The strides of a view with the first two axes swapped."""
    return (strides[1], strides[0], *strides[2:])


def _padding(pads) -> tuple[Any, Any]:
    """oneDNN's padding_l, padding_r from (top, bottom, left, right)."""
    return _Dims(pads[0], pads[2]), _Dims(pads[1], pads[3])


def _any(d: _Dnnl, shape: tuple[int, ...]) -> _P:
    md = _P()
    _ok(
        d.lib.dnnl_memory_desc_create_with_tag(
            ctypes.byref(md), len(shape), _Dims(*shape), _F32, _ANY
        ),
        "memory descriptor",
    )
    return md


class _Memory:
    """A oneDNN memory object over a numpy buffer (owned, or set per call)."""

    def __init__(self, d: _Dnnl, md: _P, own: bool) -> None:
        self.md = md
        size = d.lib.dnnl_memory_desc_get_size(md)
        self.buffer = np.empty(max(size // 4, 1), np.float32) if own else None
        self.handle = _P()
        data = _P(self.buffer.ctypes.data) if own else _P(None)
        _ok(d.lib.dnnl_memory_create(ctypes.byref(self.handle), md, d.engine, data), "memory")


def _primitive(d: _Dnnl, pd: _P) -> _P:
    prim = _P()
    _ok(d.lib.dnnl_primitive_create(ctypes.byref(prim), pd), "primitive")
    return prim


class _Step:
    """One primitive's execution: its arguments as an array of (arg, memory)."""

    def __init__(self, prim: _P, args: list[tuple[int, _Memory]]) -> None:
        self.prim = prim
        self.args = (_Arg * len(args))(*[_Arg(a, m.handle) for a, m in args])
        self.n = len(args)
        self.keep = args

    def run(self, d: _Dnnl) -> None:
        _ok(
            d.lib.dnnl_primitive_execute(self.prim, d.stream, self.n, ctypes.byref(self.args)),
            "execute",
        )


def _reorder(d: _Dnnl, src: _Memory, dst: _Memory) -> _Step:
    pd = _P()
    _ok(
        d.lib.dnnl_reorder_primitive_desc_create(
            ctypes.byref(pd), src.md, d.engine, dst.md, d.engine, None
        ),
        "reorder",
    )
    return _Step(_primitive(d, pd), [(_ARG_SRC, src), (_ARG_DST, dst)])


# --- the convolution ----------------------------------------------------------------------


#: the ways a convolution is computed on oneDNN (`Conv`)
FORWARD, WEIGHT_GRADIENT, INPUT_GRADIENT = "forward", "weight-gradient", "input-gradient"


class Conv:
    """out (N, F, OH, OW) = the stride-`stride` convolution of x (N, C, H, W),
    spread by `spread` (zeros between its elements) and padded with `pads`
    (top, bottom, left, right) zeros, with w (F, C, KH, KW), on oneDNN:

    - FORWARD: its forward primitive, the padding oneDNN's own (no spread);
    - WEIGHT_GRADIENT: its backward-weights primitive on views of the same
      arrays (see the module docstring; no spread);
    - INPUT_GRADIENT: a stride-1 convolution of a spread and padded x with a
      flipped kernel is the input gradient of a convolution with stride
      `spread` and kernel w with F and C swapped and flipped (w0, a small copy
      per call): oneDNN's backward-data primitive on x itself, so neither the
      zeros between the elements nor the padding are multiplied (see the
      module docstring).

    Raises DnnlError when oneDNN has no kernel for it (or the geometry does
    not fit the formulation)."""

    def __init__(
        self,
        d: _Dnnl,
        x_shape: tuple[int, ...],
        w_shape: tuple[int, ...],
        stride,
        dilation,
        out_hw,
        how: str = FORWARD,
        pads=(0, 0, 0, 0),
        spread=(1, 1),
    ) -> None:
        self.d = d
        self.how = how
        self.out_shape = (x_shape[0], w_shape[0], *out_hw)
        if tuple(spread) != (1, 1) and how != INPUT_GRADIENT:
            raise DnnlError("oneDNN: a spread input is an input gradient's")
        build = {
            FORWARD: self._forward,
            WEIGHT_GRADIENT: self._weight_gradient,
            INPUT_GRADIENT: self._input_gradient,
        }[how]
        pd, hint = _P(), _P()
        users, queries = build(pd, hint, x_shape, w_shape, stride, dilation, pads, spread)
        lib = d.lib
        # user memories: numpy's C-contiguous arrays (viewed), handles set per call
        self.users = tuple(_Memory(d, _plain(d, sh, st), own=False) for sh, st in users)
        self.before: list[_Step] = []
        self.after: list[_Step] = []
        args: list[tuple[int, _Memory]] = []
        for i, (query, arg) in enumerate(queries):
            args.append((arg, self._inner(pd, self.users[i], query, into=i < 2)))
        scratch = _P(lib.dnnl_primitive_desc_query_md(pd, _SCRATCHPAD_MD, 0))
        if lib.dnnl_memory_desc_get_size(scratch):
            args.append((_ARG_SCRATCHPAD, _Memory(d, scratch, own=True)))
        self.conv = _Step(_primitive(d, pd), args)
        info = ctypes.c_char_p()
        _ok(lib.dnnl_primitive_desc_query(pd, _IMPL_INFO, 0, ctypes.byref(info)), "query")
        self.impl = (info.value or b"").decode()
        self._keep = (pd, hint)
        self.released = False

    def release(self) -> None:
        """Destroy its oneDNN primitives, memory objects and primitive descriptors
        now (Python frees the buffers); a later call raises DnnlError. For a
        formulation that lost its trial, which nothing runs again. Not `__del__`:
        ctypes calls while the interpreter ends risk the known exit crash."""
        if self.released:
            return
        self.released = True
        lib = self.d.lib
        steps = (*self.before, self.conv, *self.after)
        memories = {id(m): m for m in self.users}
        with self.d.lock:
            for step in steps:
                _ok(lib.dnnl_primitive_destroy(step.prim), "destroy")
                memories.update((id(m), m) for _, m in step.keep)
            for memory in memories.values():
                _ok(lib.dnnl_memory_destroy(memory.handle), "destroy")
            for pd in self._keep:
                if pd:
                    _ok(lib.dnnl_primitive_desc_destroy(pd), "destroy")

    # each formulation fills `pd` (and `hint`, the forward it is the gradient of) and
    # says the user arrays it reads and writes (shape, element strides: views of the
    # C-contiguous x, w, out) and the (memory query, argument) of each, in that order

    def _forward(self, pd, hint, x_shape, w_shape, stride, dilation, pads, spread):
        d, out = self.d, self.out_shape
        _ok(
            d.lib.dnnl_convolution_forward_primitive_desc_create(
                ctypes.byref(pd), d.engine, _FORWARD_INFERENCE, _CONV_DIRECT,
                _any(d, x_shape), _any(d, w_shape), None, _any(d, out),
                _Dims(*stride), _Dims(*(v - 1 for v in dilation)), *_padding(pads), d.attr,
            ),
            "convolution",
        )  # fmt: skip
        users = ((x_shape, _contiguous(x_shape)), (w_shape, _contiguous(w_shape)))
        users += ((out, _contiguous(out)),)
        return users, ((_SRC_MD, _ARG_SRC), (_WEIGHTS_MD, _ARG_WEIGHTS), (_DST_MD, _ARG_DST))

    def _weight_gradient(self, pd, hint, x_shape, w_shape, stride, dilation, pads, spread):
        # out[n, f, y, x] = sum_{c,i,j} x[n, c, y*s + i*d, ...] w[f, c, i, j] is
        # dW[f, n, y, x] of src = x with N and C swapped, diff_dst = w with N and C
        # swapped, stride d and dilation s: three views, no copies
        d = self.d
        n, c, h, wd = x_shape
        f, _, kh, kw = w_shape
        shapes = ((c, n, h, wd), (w_shape[1], f, kh, kw), (f, n, *self.out_shape[2:]))
        users = tuple(
            (shape, _swapped(_contiguous(full)))
            for shape, full in zip(shapes, (x_shape, w_shape, self.out_shape))
        )
        src, ddst, dw = shapes
        fstride, fdil = _Dims(*dilation), _Dims(*(v - 1 for v in stride))
        mds = (_any(d, src), _any(d, dw), None, _any(d, ddst))
        _ok(
            d.lib.dnnl_convolution_forward_primitive_desc_create(
                ctypes.byref(hint), d.engine, _FORWARD_TRAINING, _CONV_DIRECT, *mds,
                fstride, fdil, *_padding(pads), None,
            ),
            "convolution hint",
        )  # fmt: skip
        _ok(
            d.lib.dnnl_convolution_backward_weights_primitive_desc_create(
                ctypes.byref(pd), d.engine, _CONV_DIRECT, *mds,
                fstride, fdil, *_padding(pads), hint, d.attr,
            ),
            "convolution weight gradient",
        )  # fmt: skip
        queries = ((_SRC_MD, _ARG_SRC), (_DIFF_DST_MD, _ARG_DIFF_DST))
        return users, (*queries, (_DIFF_WEIGHTS_MD, _ARG_DIFF_WEIGHTS))

    def _input_gradient(self, pd, hint, x_shape, w_shape, stride, dilation, pads, spread):
        if tuple(stride) != (1, 1):
            raise DnnlError("oneDNN: an input gradient is a stride-1 convolution")
        # out[y] = sum_i xp[y + i*D] w[i], xp[top + s*m] = x[m]: with i' = K-1-i that
        # is backward data of a stride-s convolution whose padding_l is (K-1)*D - top
        d, out = self.d, self.out_shape
        _, c, h, wd = x_shape
        f, _, kh, kw = w_shape
        w0_shape = (c, f, kh, kw)
        reach = ((kh - 1) * dilation[0], (kw - 1) * dilation[1])
        left = (reach[0] - pads[0], reach[1] - pads[2])
        right = tuple(
            (g - 1) * st + r + 1 - o - lo
            for g, st, r, o, lo in zip((h, wd), spread, reach, out[2:], left)
        )
        if min(*left, *right) < 0:
            raise DnnlError("oneDNN: no backward-data geometry for this padding")
        fwd = (_any(d, out), _any(d, w0_shape), None, _any(d, x_shape))
        geometry = (_Dims(*spread), _Dims(*(v - 1 for v in dilation)), _Dims(*left), _Dims(*right))
        _ok(
            d.lib.dnnl_convolution_forward_primitive_desc_create(
                ctypes.byref(hint), d.engine, _FORWARD_TRAINING, _CONV_DIRECT, *fwd, *geometry,
                None,
            ),
            "convolution hint",
        )  # fmt: skip
        _ok(
            d.lib.dnnl_convolution_backward_data_primitive_desc_create(
                ctypes.byref(pd), d.engine, _CONV_DIRECT, fwd[0], fwd[1], fwd[3],
                *geometry, hint, d.attr,
            ),
            "convolution input gradient",
        )  # fmt: skip
        users = ((x_shape, _contiguous(x_shape)), (w0_shape, _contiguous(w0_shape)))
        users += ((out, _contiguous(out)),)
        queries = ((_DIFF_DST_MD, _ARG_DIFF_DST), (_WEIGHTS_MD, _ARG_WEIGHTS))
        return users, (*queries, (_DIFF_SRC_MD, _ARG_DIFF_SRC))

    def _inner(self, pd: _P, user: _Memory, query: int, into: bool) -> _Memory:
        """The memory the primitive reads (writes) for `user`: `user` itself when
        its format is the chosen one, else an owned buffer and a reorder."""
        lib = self.d.lib
        md = _P(lib.dnnl_primitive_desc_query_md(pd, query, 0))
        if lib.dnnl_memory_desc_equal(md, user.md):
            return user
        inner = _Memory(self.d, md, own=True)
        if into:
            self.before.append(_reorder(self.d, user, inner))
        else:
            self.after.append(_reorder(self.d, inner, user))
        return inner

    def __call__(self, x: np.ndarray, w: np.ndarray) -> np.ndarray:
        if self.released:
            raise DnnlError("oneDNN: this convolution was released")
        x = np.ascontiguousarray(x, np.float32)
        if self.how == INPUT_GRADIENT:
            w = np.ascontiguousarray(w.transpose(1, 0, 2, 3)[:, :, ::-1, ::-1], np.float32)
        else:
            w = np.ascontiguousarray(w, np.float32)
        out = np.empty(self.out_shape, np.float32)
        d, lib = self.d, self.d.lib
        with d.lock:
            d.omp.omp_set_num_threads(d.threads)
            for user, arr in zip(self.users, (x, w, out), strict=True):
                _ok(lib.dnnl_memory_set_data_handle(user.handle, arr.ctypes.data), "data")
            for step in self.before:
                step.run(d)
            self.conv.run(d)
            for step in self.after:
                step.run(d)
            _ok(lib.dnnl_stream_wait(d.stream), "wait")
        return out
