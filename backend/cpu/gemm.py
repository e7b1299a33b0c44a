"""Matrix products for the numpy executor: oneMKL's `cblas_?gemm` through ctypes
where it is installed and faster for the shape, `np.matmul` otherwise.

`matmul(a, b, out=None)` has np.matmul's semantics. float32/float64 operands
with 2 or 3 dims (3-D: a batch, one side may be 2-D and is broadcast) whose
last two dims are a row-major or a transposed row-major matrix (a `.T` view,
a slice of one) go to oneMKL without a copy: a transposed operand is passed
as CblasTrans with its leading dimension, a batch as one
`cblas_?gemm_batch_strided` call (a loop of `cblas_?gemm` if the library
lacks it). Anything else (ints, mixed dtypes, other layouts, empty or
>3-D operands) is `np.matmul`.

The library is the PyPI wheel `mkl` (`pip install mindjit[fast]`): its
`libmkl_rt.so.*` is found through the installed distribution's file list and
loaded with ctypes; before the first call it is set to the LP64 interface, to
the sequential threading layer for one thread (`MKL_NUM_THREADS` /
`OMP_NUM_THREADS` = 1, support/config.py `gemm_threads`) or to Intel OpenMP
with that many threads (`MKL_THREADING_LAYER` chooses another; with TBB oneMKL
does not promise reproducible bits), and to Conditional Numerical Reproducibility
`MKL_CBWR_AUTO`: the same inputs give the same bits whatever their alignment
(tests/backend/test_gemm.py and benchmarks/gemm_kernels.py check it at other
offsets). Its cost is not measurable (best of 15, one thread, us, off / AUTO:
256x256x256 338 / 333, 256x1024x256 1369 / 1348, 16x150x3200 221 / 220). The
AVX2 and AVX-512 branches, which strict CNR needs, are refused on this AMD CPU
(MKL_CBWR_ERR_UNSUPPORTED_BRANCH); COMPATIBLE costs 2.5x. Without the wheel
every product is np.matmul, and the first product that would have asked
oneMKL says so in one line on stderr.

Which library runs a shape. `MINDJIT_GEMM` (support/config.py) is auto,
numpy or mkl. In auto, each (dtype, batch, M, N, K, transposes, broadcast)
key is decided at its first product and kept for the process (`choice`), so
the same shape always takes the same path: graph mode and PyNative run the
same kernels and agree bit for bit. A trial's choice is kept on disk for the
next process (backend/cpu/trial_record.py), so the processes of one machine
take the same paths too (with MINDJIT_TRIAL_CACHE=0 two processes may decide a
close call differently and differ in the last bits; MINDJIT_GEMM=numpy or mkl
fixes the path). A product under `SMALL_FLOPS` is numpy's without a trial: the
ctypes call costs ~5 us (three data pointers at ~1 us each, fourteen
converted arguments) against np.matmul's ~1.7 us, which loses below about a
million flops (64^3: numpy 5.8 us, oneMKL 22 us). Above it, a timed trial on
random operands of that layout runs both alternately (`TRIAL_ROUNDS` rounds,
at most `TRIAL_BUDGET` seconds per key, `PROCESS_BUDGET` in all; past it,
numpy) and takes oneMKL only when its best time beats numpy's by `MARGIN`, so
noise keeps the reference path. Measured on this 2-core AMD EPYC (Zen 4,
AVX-512; shared with other jobs while measuring), one thread, numpy 2.4.6's
OpenBLAS 0.3.31 against mkl 2026.2.0 (benchmarks/gemm_kernels.py), GFLOP/s,
with torch 2.13's own MKL (torch.mm, one thread) for comparison:

    shape (M x N x K, T: transposed)   numpy  oneMKL  torch
    256 x 256 x 256 (x W^T)              95      95    100   GPT's projections, q k^T
    256 x 1024 x 256 (x W^T)             89      92     95   GPT's MLP
    256 x 256 x 1024 (x W^T)             89      95     98
    256 x 256 x 256                     102      98    103   attention p v
    1024 x 256 x 256 (dy^T x)            96      90          the backward's dW
    16 x 150 x 3200 (T)                  41      67     70   LeNet conv2's dW  -> oneMKL
    32 x 120 x 400 (T)                   56      76     84   LeNet fc1         -> oneMKL
    64 x 8192 x 576                      74      64          a ResNet 3x3 conv as a gemm
    64 x 64 x 64                         94      48     73   (call overhead)

So on this machine both libraries (and torch's) run GPT's shapes at the
core's peak, ~100 GFLOP/s; oneMKL wins only on skinny products with a long K
(LeNet's weight gradients), which the trial finds. In the GPT-like train step
(examples/gpt.py, 4 Blocks, hidden 256, seq 32, batch 8, one thread, run back
to back) numpy's 96 matmuls took 67 ms a step and torch's 96 (aten::mm and
addmm in torch.profiler) 69 ms, so the step's gap to torch lies outside the
matmuls; oneMKL for every matmul changed the step by 1.5% (20-25 alternating
pairs in one process, median ratio 1.012-1.015), inside the noise.
With more than one thread, auto keeps numpy for every shape (oneMKL is not
even loaded, and its absence goes unsaid) and only MINDJIT_GEMM=mkl asks
oneMKL (for every shape): after a call each library's
threads wait spinning (OpenBLAS's pthreads; Intel OpenMP's for KMP_BLOCKTIME,
set to 0 here), so running the two in turn oversubscribes the cores. Measured
with 2 threads on 256 x 256 x 1024 (GFLOP/s, one process, the machine's load
average 3.5 from other jobs): numpy alone 50, oneMKL alone 78, in turn numpy 21
and oneMKL 78-85. Which one library is better with both cores: an earlier run at a lower load
had numpy alone at 116-136 and oneMKL alone at 85-126 on GPT's and ResNet's
shapes; on a quiet machine (load 0.5) the GPT-like train step at two threads
took 46-56 ms in auto (numpy) and 89-100 ms with MINDJIT_GEMM=mkl (three fresh
processes each), so auto keeps numpy there.

Tried and dropped (issue 41): running two independent products at once, each
on one OpenBLAS thread (a Linear's backward dx and dW). Alone, such a pair ran
1.5-1.8x faster than one after the other on two threads; inside the train step
(32 pairs of its 96 products) the step went from 44-54 to 58-72 ms: the products
beside the pairs ran on two threads, and with OpenBLAS's spinning workers the
pairs lost what they gained (all products on one thread: 76 ms).
"""

from __future__ import annotations

import ctypes
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from mindjit.backend.cpu import trial_record
from mindjit.backend.cpu.optional_libs import fastest, wheel_library
from mindjit.support import config

#: below this many flops (2*M*N*K*batch) a product is numpy's without a trial
SMALL_FLOPS = 1 << 20
#: timed rounds (numpy, oneMKL alternately) of a trial, after one warm-up each
TRIAL_ROUNDS = 5
#: seconds one key's trial may take; a process's trials in all
TRIAL_BUDGET = 0.01
PROCESS_BUDGET = 0.15
#: oneMKL is chosen only when its best time is below numpy's best times this
MARGIN = 0.8

_ROW_MAJOR, _NO_TRANS, _TRANS = 101, 111, 112
_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))  # native byte order only
_LP64 = 0
_CBWR_AUTO = 2

Key = tuple[str, int, int, int, int, int, int, int, int]


class _Mkl:
    """oneMKL's runtime library, configured once: `single` and `batched` hold
    its cblas_?gemm and cblas_?gemm_batch_strided by dtype char."""

    def __init__(self, path: Path, threads: int, layer: str) -> None:
        if layer == "TBB":
            # oneMKL's TBB layer finds libtbb only on the loader's path, else it
            # ends the process; the tbb wheel puts it beside libmkl_rt
            found = sorted(path.parent.glob("libtbb.so.*"))
            if not found:
                raise OSError("MKL_THREADING_LAYER=TBB needs libtbb (the tbb wheel)")
            ctypes.CDLL(str(found[0]), mode=ctypes.RTLD_GLOBAL)
        if layer == "GNU":
            ctypes.CDLL("libgomp.so.1", mode=ctypes.RTLD_GLOBAL)  # the system's, or OSError
        lib = ctypes.CDLL(str(path))
        # both must precede any other call into the library
        lib.MKL_Set_Interface_Layer(_LP64)
        lib.MKL_Set_Threading_Layer(config.GEMM_THREADING_LAYERS[layer])
        if lib.MKL_CBWR_Set(_CBWR_AUTO) != 0:
            raise OSError("oneMKL refused MKL_CBWR_AUTO (reproducible results)")
        lib.MKL_Set_Dynamic(0)
        lib.MKL_Set_Num_Threads(threads)
        omp = path.parent / "libiomp5.so"  # the intel-openmp wheel's, beside it
        if threads > 1 and layer == "INTEL" and omp.is_file():
            ctypes.CDLL(str(omp)).kmp_set_blocktime(0)
        self.threads = 1 if layer == "SEQUENTIAL" else threads
        self.layer = layer
        self.version = _version_string(lib)
        i, p = ctypes.c_int, ctypes.c_void_p
        self.single: dict[str, Any] = {}
        self.batched: dict[str, Any] = {}
        for char, name, scalar in (("f", "s", ctypes.c_float), ("d", "d", ctypes.c_double)):
            fn = getattr(lib, f"cblas_{name}gemm")
            fn.argtypes = [i, i, i, i, i, i, scalar, p, i, p, i, scalar, p, i]
            fn.restype = None
            self.single[char] = fn
            batch = getattr(lib, f"cblas_{name}gemm_batch_strided", None)
            if batch is not None:
                batch.argtypes = [i, i, i, i, i, i, scalar, p, i, i, p, i, i, scalar, p, i, i, i]
                batch.restype = None
                self.batched[char] = batch


def _version_string(lib: ctypes.CDLL) -> str:
    buf = ctypes.create_string_buffer(256)
    lib.MKL_Get_Version_String(buf, len(buf))
    return buf.value.decode(errors="replace").strip()


def _library_path() -> Path | None:
    """`libmkl_rt.so.*` of the installed `mkl` distribution, or None."""
    return wheel_library("mkl", "libmkl_rt.so")


_state: dict[str, Any] = {"mkl": None, "loaded": False, "said": False, "spent": 0.0}
_choices: dict[Key, bool] = {}
_undecided = threading.local()  # `without_trials` in this thread
_loading = threading.Lock()  # pipeline stages run in threads: one load


def _load() -> _Mkl | None:
    with _loading:
        if not _state["loaded"]:
            path = _library_path()
            if path is not None:
                threads = config.gemm_threads()  # a bad setting raises; asked again next time
                layer = config.gemm_threading(threads)
                try:
                    _state["mkl"] = _Mkl(path, threads, layer)
                except (OSError, AttributeError) as exc:
                    _state["why"] = f"oneMKL at {path} could not be loaded ({exc})"
            else:
                _state["why"] = "oneMKL is not installed (pip install 'mindjit[fast]')"
            _state["loaded"] = True
    return _state["mkl"]


def library() -> _Mkl | None:
    """The configured oneMKL, or None when it is not installed or switched off."""
    return _load() if _state.get("enabled", True) else None


def set_enabled(enabled: bool) -> None:
    """Switch oneMKL off (every product np.matmul, as if it were not installed)
    or back on; forgets the per-shape choices, which depend on it."""
    _state["enabled"] = enabled
    _choices.clear()


def _say_missing() -> None:
    if not _state["said"]:
        _state["said"] = True
        why = _state.get("why") or "oneMKL is switched off"
        print(f"mindjit: matmuls run on numpy: {why}", file=sys.stderr)


# --- operand layouts ---------------------------------------------------------------------


def _layout(x: np.ndarray, rows: int, cols: int) -> tuple[int, int] | None:
    """(CblasNoTrans or CblasTrans, leading dimension) of the last two dims of
    `x` as a (rows, cols) matrix, or None when BLAS cannot read it as it is."""
    if not x.flags.aligned:
        return None
    item = x.itemsize
    s0, s1 = x.strides[-2:]
    if (cols == 1 or s1 == item) and (rows == 1 or (s0 % item == 0 and s0 // item >= cols)):
        return _NO_TRANS, max(cols, s0 // item if rows > 1 else cols, 1)
    if (rows == 1 or s0 == item) and (cols == 1 or (s1 % item == 0 and s1 // item >= rows)):
        return _TRANS, max(rows, s1 // item if cols > 1 else rows, 1)
    return None


def _batch_stride(x: np.ndarray, batch: int) -> int | None:
    """Elements between consecutive matrices of a 3-D operand (0: broadcast)."""
    if x.ndim == 2 or x.shape[0] == 1:
        return 0
    s = x.strides[0]
    if s <= 0 or s % x.itemsize:
        return None
    return s // x.itemsize


def _plan(a: np.ndarray, b: np.ndarray) -> tuple | None:
    """Everything one oneMKL call needs that does not depend on the data, or None."""
    if a.dtype != b.dtype or a.dtype not in _DTYPES or not (2 <= a.ndim <= 3 >= b.ndim >= 2):
        return None
    m, k = a.shape[-2:]
    k2, n = b.shape[-2:]
    if k != k2 or 0 in (m, n, k):
        return None
    ba = a.shape[0] if a.ndim == 3 else 1
    bb = b.shape[0] if b.ndim == 3 else 1
    if ba != bb and 1 not in (ba, bb):
        return None
    batch = max(ba, bb)
    la, lb = _layout(a, m, k), _layout(b, k, n)
    sa, sb = _batch_stride(a, batch), _batch_stride(b, batch)
    if la is None or lb is None or sa is None or sb is None:
        return None
    if max(m, n, k, batch, la[1], lb[1], sa, sb, batch * m * n) >= 1 << 31:
        return None  # LP64: every count is a C int
    shape = (*((batch,) if max(a.ndim, b.ndim) == 3 else ()), m, n)
    return a.dtype.char, batch, m, n, k, la, lb, sa, sb, shape


def _key(plan: tuple) -> Key:
    char, batch, m, n, k, la, lb, sa, sb, _ = plan
    return char, batch, m, n, k, la[0], lb[0], int(sa == 0), int(sb == 0)


def _run(mkl: _Mkl, plan: tuple, a: np.ndarray, b: np.ndarray, out: np.ndarray) -> np.ndarray:
    char, batch, m, n, k, (ta, lda), (tb, ldb), sa, sb, _ = plan
    pa, pb, pc = a.ctypes.data, b.ctypes.data, out.ctypes.data
    if batch == 1:
        mkl.single[char](_ROW_MAJOR, ta, tb, m, n, k, 1.0, pa, lda, pb, ldb, 0.0, pc, n)
        return out
    fn = mkl.batched.get(char)
    if fn is not None:
        fn(_ROW_MAJOR, ta, tb, m, n, k, 1.0, pa, lda, sa, pb, ldb, sb, 0.0, pc, n, m * n, batch)
        return out
    one, item = mkl.single[char], out.itemsize
    for i in range(batch):
        one(
            _ROW_MAJOR, ta, tb, m, n, k, 1.0, pa + i * sa * item, lda,
            pb + i * sb * item, ldb, 0.0, pc + i * m * n * item, n,
        )  # fmt: skip
    return out


# --- the choice ----------------------------------------------------------------------------


def _operand(rng: np.random.Generator, char: str, batch: int, rows: int, cols: int, trans: int):
    shape = (rows, cols) if trans == _NO_TRANS else (cols, rows)
    x = rng.standard_normal(((batch,) if batch > 1 else ()) + shape).astype(char)
    return x if trans == _NO_TRANS else np.swapaxes(x, -1, -2)


def _trial(mkl: _Mkl, key: Key) -> bool:
    """Whether oneMKL's best time beats numpy's by MARGIN on operands of `key`."""
    char, batch, m, n, k, ta, tb, a_shared, b_shared = key
    rng = np.random.default_rng(0)
    a = _operand(rng, char, 1 if a_shared else batch, m, k, ta)
    b = _operand(rng, char, 1 if b_shared else batch, k, n, tb)
    plan = _plan(a, b)
    if plan is None or _key(plan) != key:
        return False
    out = np.empty(plan[-1], a.dtype)
    ways = (lambda: np.matmul(a, b, out=out), lambda: _run(mkl, plan, a, b, out))
    pick, spent = fastest(ways, TRIAL_ROUNDS, TRIAL_BUDGET, MARGIN)
    _state["spent"] += spent
    return pick == 1


def _numpy_only() -> bool:
    """True when no shape goes to oneMKL: MINDJIT_GEMM=numpy, or auto with a
    threaded oneMKL (two threaded libraries in turn oversubscribe the cores);
    oneMKL is then not even loaded."""
    mode = config.gemm_mode()
    if mode == "auto":
        return config.gemm_threading(config.gemm_threads()) != "SEQUENTIAL"
    return mode == "numpy"


def _timed_choice(mkl: _Mkl, key: Key) -> bool:
    """A product above SMALL_FLOPS: the choice an earlier process kept
    (trial_record), else a trial's while the process budget lasts, else numpy."""
    _, batch, m, n, k = key[:5]
    if 2 * batch * m * n * k < SMALL_FLOPS:
        return False
    context = (mkl.version, mkl.threads, mkl.layer, config.thread_settings())
    kept = trial_record.recorded("gemm", context, key)
    if kept is not None:
        return kept == "mkl"
    if _state["spent"] >= PROCESS_BUDGET:
        return False
    chosen = _trial(mkl, key)
    trial_record.record("gemm", context, key, "mkl" if chosen else "numpy")
    return chosen


def choice(plan: tuple) -> bool:
    """Whether the product `plan` describes runs on oneMKL; fixed per key for the
    process once decided."""
    key = _key(plan)
    chosen = _choices.get(key)
    if chosen is None and getattr(_undecided, "on", False):
        return False  # numpy, and the key left undecided (`without_trials`)
    if chosen is None:
        mkl = None if _numpy_only() else library()
        if mkl is None:
            if not _numpy_only():
                _say_missing()
            chosen = False
        elif config.gemm_mode() == "mkl":
            chosen = True
        else:
            chosen = _timed_choice(mkl, key)
        _choices[key] = chosen
    return chosen


@contextmanager
def without_trials() -> Iterator[None]:
    """In this thread, for the block: a product whose key is not decided yet runs on
    numpy and stays undecided. A convolution's trial times numpy's way so: its
    products' trials would be wasted when oneDNN wins (ResNet-18's first step at one
    thread: 271 of the 329 ms of convolution trials were numpy's first runs, most of
    it these trials), and they are held until numpy's way runs for real."""
    saved = getattr(_undecided, "on", False)
    _undecided.on = True
    try:
        yield
    finally:
        _undecided.on = saved


# --- the entry points ----------------------------------------------------------------------


def matmul(a: Any, b: Any, out: np.ndarray | None = None) -> Any:
    """np.matmul(a, b, out=out), on oneMKL when the shape's choice says so."""
    if type(a) is np.ndarray and type(b) is np.ndarray:  # not subclasses (np.matrix)
        plan = _plan(a, b)
        if plan is not None and choice(plan):
            mkl = library()
            if mkl is not None and _fits(out, plan, a, b):
                target = np.empty(plan[-1], a.dtype) if out is None else out
                return _run(mkl, plan, a, b, target)
    return np.matmul(a, b) if out is None else np.matmul(a, b, out=out)


def _fits(out: np.ndarray | None, plan: tuple, a: np.ndarray, b: np.ndarray) -> bool:
    """A given `out` must be exactly the C-contiguous result, apart from the inputs."""
    if out is None:
        return True
    return (
        isinstance(out, np.ndarray)
        and out.shape == plan[-1]
        and out.dtype == a.dtype
        and out.flags.c_contiguous
        and out.flags.writeable
        and not np.may_share_memory(out, a)
        and not np.may_share_memory(out, b)
    )


def planned(dtype: np.dtype | None, flops: int | None = None) -> Callable[[Any, Any], Any]:
    """The product the contraction planner calls for operands of `dtype` (`flops`:
    2*M*N*K*batch when the shapes are static): np.matmul itself for dtypes oneMKL
    does not take, when no shape goes to oneMKL, and for a product under
    SMALL_FLOPS in auto (nothing added per call: `matmul`'s own look-ups cost
    ~2 us, which made the unrolled LSTMs' train steps, hundreds of small products,
    1.1 -> 1.4 ms)."""
    if dtype is None or np.dtype(dtype).char not in "fd" or _numpy_only():
        return np.matmul
    if flops is not None and flops < SMALL_FLOPS and config.gemm_mode() == "auto":
        return np.matmul
    return matmul
