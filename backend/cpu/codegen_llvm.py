"""Fused elementwise linalg.generic bodies compiled to machine code with llvmlite.

The numpy executor runs a fused body as one numpy call per body op, each writing
a fresh whole-array temporary (linalg_body.py). For an all-parallel generic with
static shapes this module writes a loop nest in LLVM IR instead: every operand is
read at its indexing map's element offset (a broadcast dim has stride 0, a
constant map result a fixed offset), the body is evaluated on scalars in
registers, and each result is stored once into an array allocated with np.empty.
The loop order is the first output's axis order (contiguous stores); adjacent
loop dims that every array walks as one are merged, so short rows still
vectorise. LLVM (MCJIT through llvmlite, -O2, the host CPU's features)
vectorises the innermost loop.

Semantics: the numpy path's, bit for bit, so graph mode (fused bodies) and
PyNative (one op per program) keep giving identical results (test_graph_vs_pynative
compares them exactly). The loop nest computes only IEEE-exact operations
(`_SUPPORTED`: arith float and integer ops, cmp, select, casts, sqrt, rsqrt as
1/sqrt, fma as mul then add, floor/ceil/trunc/roundeven), with no fast-math flag
(NaN/inf as IEEE and numpy say: maximumf/minimumf propagate NaN as np.maximum,
maxnumf/minnumf ignore it as np.fmax; integers wrap; sitofp of i1 as numpy's
astype), and float32 tanh, whose function is mindjit's own (tanh_f32.py: a
recipe of IEEE steps, emitted into the loop; every unfused float32 tanh of the
process runs the same recipe as one whole-array kernel, `tanh_f32_array`,
registered in scalar_fns.FLOAT32_UNARY). Every other body op (exp, log, float64
tanh, erf, pow, integer division and shifts, float -> int casts: transcendental
functions no generated code reproduces bit for bit, and ops whose edge cases
LLVM makes poison) is a numpy call of the numpy path's own function
(scalar_fns.py) between loop nests: the body is cut into stages there
(`_generate`). A first version evaluated f32 exp/log/tanh in the loop nest (f64
polynomials, 0.5 ulp) and broke bit-equality with PyNative wherever the two
modes fused differently (activation_fns of the graph corpus), and f64 made it
slower than np.tanh (218 vs 167 us for 64k elements); tanh_f32's float32 recipe
is faster (93 us alone; the 8-Block forward's GELU bodies 1.80 -> 1.05 ms) and
is the function PyNative runs too.

What stays on the numpy path entirely: bodies where (loop-nest ops - 1) x
elements < MIN_WORK (32768): the call of a generated kernel costs ~1.5 us more
than one numpy call, and each op it saves a numpy call and a temporary
(measured per call, same executor, 2-op body: numpy 4.6 / codegen 6.0 us at 2k
elements, 7.6 / 8.7 at 16k, 70.5 / 65.5 at 262k; 4-op body: 5.8 / 5.9 at 2k,
12.1 / 8.9 at 16k, 143 / 65 at 262k), tensor.extract / linalg.index /
captured values, reductions (linalg_fold.py; their producers are separate
generics after the lowering), and at run time any input that is not a
C-contiguous array of its planned dtype (`guarded`: the strides are built into
the code; copying a transposed view first cost more than numpy's strided reads).

Compile: kernels planned by an executable before any of them ran join one
batch, compiled as ONE LLVM module by a background thread that the first call of
any of them starts (under a process lock); until it is done those calls run the
numpy path's kernel, bit-equal, so the compile adds nothing to the first call
and a plan-time constant fold never waits for LLVM (such a fold does start the
compile early: kernels planned after it go to a second batch). The thread runs
at nice 10, below the steps (measured while the machine was shared: the steps
overlapping the compile took up to 2x their time before). A failing LLVM compile says
so in one line and leaves the numpy path in place. ctypes calls release the GIL
and kernels are pure, so threads may call at once; `wait_all` (tests,
benchmarks, and atexit: no compile still running while the interpreter ends)
waits for the compiles. Measured on the 25 distinct kernels of the GPT-like
step and LeNet5 (shared 2-core machine): one module 226 ms at -O2 / 266 ms at
-O3, one module per kernel 355 / 406 ms; -O2 code ran as fast as -O3's (the
loops are simple), so -O2. numba, the alternative, took 330-640 ms per kernel
(+ 344 ms to import), which alone would break "compile < 1 s". A process-wide
table keyed by the kernel's IR text means a structure compiled once (in any
executable: PyNative's programs, the compile cache's rebuilt plans) is never
compiled again. The compile cache (plan_codec) rebuilds plans with the same
builders, so a warm start regenerates the IR and compiles it again in the
background (0.05-0.3 s per model measured). Storing object code instead
(llvmlite's ExecutionEngine.set_object_cache) would also need keying by the
host CPU's features; not done.

Buffers: outputs are fresh np.empty arrays, except that a one-result loop nest
with an input laid out exactly as its result (same strides, offset, shape,
dtype; no other operand the same value) also gets an in-place variant storing
through that input's pointer (a separate function: the same buffer passed as a
`noalias` input and output would be undefined behaviour, and without `noalias`
LLVM's runtime overlap check sends an exact overlap to the scalar loop). The
step steals that input (steps.stealing, as tensor.insert_slice does): when the
plan releases its slot there and the array is its own writable buffer held by
nothing else (the reference count), the result is written into it. Measured
(interleaved, shared machine): GPT-like step 109 -> 104 ms, LeNet5 and the
8-Block forward ~1%; it doubles the kernels compiled (in the background).

Nothing here is required: without llvmlite `make_codegen` says so in one line
and the executor keeps its numpy calls.
"""

from __future__ import annotations

import atexit
import ctypes
import os
import struct
import sys
import threading
import time
from collections.abc import Callable, Sequence
from math import prod
from typing import TYPE_CHECKING, Any

import numpy as np
from xdsl.dialects import arith, math, tensor
from xdsl.dialects.builtin import Float32Type
from xdsl.ir import Operation, SSAValue

from mindjit.backend.cpu import scalar_fns, tanh_f32
from mindjit.backend.cpu.scalar_fns import scalar_fn
from mindjit.backend.cpu.steps import steal_release_step
from mindjit.backend.cpu.types import dtype_of, is_tensor, static_shape

if TYPE_CHECKING:
    from mindjit.backend.cpu.linalg_body import Body
    from mindjit.backend.cpu.linalg_spec import Operand, Spec

try:
    import llvmlite.binding as _llvm
except ImportError:  # the optional extra `fast` is not installed
    _llvm = None

Shape = tuple[int, ...]

_LLVM_TYPES = {
    np.dtype(np.float32): "float",
    np.dtype(np.float64): "double",
    np.dtype(np.bool_): "i1",
    np.dtype(np.int8): "i8",
    np.dtype(np.int16): "i16",
    np.dtype(np.int32): "i32",
    np.dtype(np.int64): "i64",
    np.dtype(np.uint8): "i8",
    np.dtype(np.uint16): "i16",
    np.dtype(np.uint32): "i32",
    np.dtype(np.uint64): "i64",
}

_FLOAT_BINARY = {
    arith.AddfOp: "fadd",
    arith.SubfOp: "fsub",
    arith.MulfOp: "fmul",
    arith.DivfOp: "fdiv",
}
_INT_BINARY = {
    arith.AddiOp: "add",
    arith.SubiOp: "sub",
    arith.MuliOp: "mul",
    arith.AndIOp: "and",
    arith.OrIOp: "or",
    arith.XOrIOp: "xor",
}
_INT_MINMAX = {
    arith.MaxSIOp: "sgt",
    arith.MinSIOp: "slt",
    arith.MaxUIOp: "ugt",
    arith.MinUIOp: "ult",
}
_FLOAT_INTRINSIC = {
    math.AbsFOp: "fabs",
    math.SqrtOp: "sqrt",
    math.FloorOp: "floor",
    math.CeilOp: "ceil",
    math.TruncOp: "trunc",
    math.RoundEvenOp: "roundeven",
}
#: float min/max: (the predicate that keeps operand 0, the operand whose NaN keeps it)
_FLOAT_MINMAX = {
    arith.MaximumfOp: ("oge", 0),
    arith.MinimumfOp: ("ole", 0),
    arith.MaxnumfOp: ("oge", 1),
    arith.MinnumfOp: ("ole", 1),
}
_CMPF = arith.CMPF_COMPARISON_OPERATIONS  # by predicate number, as LLVM names them
_CMPI = arith.CMPI_COMPARISON_OPERATIONS
_CASTS = {
    arith.ExtFOp,
    arith.TruncFOp,
    arith.SIToFPOp,
    arith.UIToFPOp,
    arith.ExtSIOp,
    arith.ExtUIOp,
    arith.TruncIOp,
    arith.IndexCastOp,
    arith.BitcastOp,
}
_SUPPORTED = frozenset(
    {
        *_FLOAT_BINARY,
        *_INT_BINARY,
        *_INT_MINMAX,
        *_FLOAT_INTRINSIC,
        *_CASTS,
        arith.NegfOp,
        arith.MaximumfOp,
        arith.MinimumfOp,
        arith.MaxnumfOp,
        arith.MinnumfOp,
        arith.CmpfOp,
        arith.CmpiOp,
        arith.SelectOp,
        math.RsqrtOp,
        math.FmaOp,
    }
)


#: One-result loop nests also get an in-place variant (see the module docstring);
#: benchmarks turn it off to measure it.
IN_PLACE = True

#: Bodies with less work, (loop-nest ops - 1) x elements, stay numpy calls (see the
#: module docstring).
MIN_WORK = 32768


class CodegenUnsupported(Exception):
    """This generic stays on the numpy path (never seen by users)."""


# -- the process-wide compiled kernels --------------------------------------------------------

_LOCK = threading.Lock()
_COMPILED: dict[str, Any] = {}  # a kernel's IR (named @kernel) -> its ctypes function
_ENGINES: list[Any] = []  # kept alive: the machine code of every compiled kernel
_TARGET: list[Any] = []  # the host target, CPU name and features, looked up once
_STATS = {"planned": 0, "modules": 0, "kernels": 0, "seconds": 0.0}
_SAID_MISSING: list[bool] = []
_THREADS: list[threading.Thread] = []  # background compiles (wait_all)
_THREADS_LOCK = threading.Lock()


#: Where a numpy array object keeps its data pointer (PyArrayObject's `data`, after
#: PyObject_HEAD); the generated kernels read it there.
_DATA_OFFSET = 16


def _layout_ok() -> bool:
    """This interpreter's numpy arrays keep their data pointer at `_DATA_OFFSET`
    (CPython's id() is the object's address)."""
    a = np.arange(4.0)
    return ctypes.c_void_p.from_address(id(a) + _DATA_OFFSET).value == a.ctypes.data


if _llvm is not None and not _layout_ok():  # an unusual build: not worth a slower path
    _llvm = None
    _WHY = "numpy's array layout is not the one the generated code reads"
else:
    _WHY = "llvmlite is not installed"


def available() -> bool:
    return _llvm is not None


def compile_stats() -> dict[str, float]:
    """Loop nests planned, LLVM modules and kernels compiled in this process and the
    seconds the compiles took."""
    return dict(_STATS)


def make_codegen() -> Codegen | None:
    """The code generator of one executable, or None (numpy calls) without llvmlite,
    said once per process on stderr."""
    if _llvm is None:
        if not _SAID_MISSING:
            _SAID_MISSING.append(True)
            print(
                f"mindjit: {_WHY}: fused elementwise code runs as numpy "
                "calls (pip install 'mindjit[fast]' to compile it)",
                file=sys.stderr,
            )
        return None
    return Codegen()


def _target_machine() -> Any:
    """A new target machine for the host CPU: each MCJIT engine takes ownership of the
    one it is given (llvmlite marks it owned), so engines never share one."""
    if not _TARGET:
        _llvm.initialize_native_target()
        _llvm.initialize_native_asmprinter()
        _TARGET.append(
            (
                _llvm.Target.from_default_triple(),
                _llvm.get_host_cpu_name(),
                _llvm.get_host_cpu_features().flatten(),
            )
        )
    target, cpu, features = _TARGET[0]
    return target.create_target_machine(cpu=cpu, features=features, opt=2, jit=True)


class _Batch:
    """Kernels of one executable planned before any of them ran, compiled together in
    one LLVM module by a background thread that the first call of any of them starts;
    until it is done they run the numpy path (bit-equal, so nothing can tell)."""

    def __init__(self) -> None:
        self.kernels: list[FusedKernel] = []
        self.started = False
        self.compiled = False
        self.failed = False
        self._start_lock = threading.Lock()

    def start(self) -> None:
        with self._start_lock:
            if self.started:
                return
            self.started = True
        thread = threading.Thread(target=self._compile_niced, name="mindjit-codegen", daemon=True)
        with _THREADS_LOCK:
            _THREADS.append(thread)
        thread.start()

    def _compile_niced(self) -> None:
        """The background compile at a lower priority than the threads running
        steps (Linux gives each thread its own nice value; elsewhere as is)."""
        try:
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)
        except (AttributeError, OSError):  # no per-thread priorities here
            pass
        self.compile()

    def compile(self) -> None:
        with _LOCK:
            if self.compiled or self.failed:
                return
            start = _now()
            todo: dict[str, str] = {}  # IR -> the function name in this module
            for k in self.kernels:
                for ir in k.irs():
                    if ir not in _COMPILED and ir not in todo:
                        todo[ir] = f"k{len(todo)}"
            try:
                if todo:
                    _compile_module(todo)
            except Exception as exc:  # LLVM refused the module: keep the numpy path, say so
                self.failed = True
                print(
                    f"mindjit: compiling fused elementwise code failed, numpy calls run it: {exc}",
                    file=sys.stderr,
                )
                return
            finally:
                _STATS["seconds"] += _now() - start
            for k in self.kernels:
                k.bind([_COMPILED[ir] for ir in k.irs()])
            self.compiled = True


def wait_all() -> None:
    """Wait for every background compile started so far (tests, benchmarks, exit)."""
    while True:
        with _THREADS_LOCK:
            threads = [t for t in _THREADS if t.is_alive()]
            _THREADS[:] = threads
        if not threads:
            return
        for t in threads:
            t.join()


atexit.register(wait_all)  # no LLVM compile still running while the interpreter ends


def _now() -> float:
    return time.perf_counter()


def _engine(text: str) -> Any:
    """An MCJIT engine holding `text`'s functions, optimised at -O2 and vectorised for
    the host CPU; kept alive for the process."""
    tm = _target_machine()
    mod = _llvm.parse_assembly(text)
    mod.verify()
    pto = _llvm.create_pipeline_tuning_options(speed_level=2)
    pto.loop_vectorization = True
    pto.slp_vectorization = True
    pb = _llvm.create_pass_builder(tm, pto)
    pb.getModulePassManager().run(mod, pb)
    engine = _llvm.create_mcjit_compiler(mod, tm)
    engine.finalize_object()
    _ENGINES.append(engine)
    _STATS["modules"] += 1
    return engine


def _compile_module(todo: dict[str, str]) -> None:
    parts: list[str] = []
    declares: set[str] = set()
    for ir, name in todo.items():
        for line in ir.splitlines():
            if line.startswith("declare "):
                declares.add(line)
            else:
                parts.append(line.replace("@kernel", f"@{name}"))
    parts.extend(sorted(declares))
    engine = _engine("\n".join(parts))
    for ir, name in todo.items():
        proto = ctypes.CFUNCTYPE(None, *_argtypes(ir))
        _COMPILED[ir] = proto(engine.get_function_address(name))
        _STATS["kernels"] += 1


def _argtypes(ir: str) -> list[Any]:
    """The ctypes arguments of @kernel: an array object per `ptr`, an `i64` as is."""
    head = ir.split("\n", 1)[0]
    params = head[head.index("(") + 1 : head.index(")")].split(",")
    return [
        ctypes.c_int64 if p.split()[0] == "i64" else ctypes.py_object for p in params if p.strip()
    ]


# -- float32 tanh: tanh_f32.py's recipe as one whole-array kernel ---------------------------


def _tanh_ir() -> str:
    """@kernel(x, y, n): y[i] = tanh(x[i]) for i < n, x and y float32 arrays (their data
    pointers read from the array objects, as the loop nests do)."""
    lines: list[str] = []
    declares: set[str] = set()
    count = [0]

    def tmp() -> str:
        count[0] += 1
        return f"%t{count[0]}"

    y = tanh_f32.emit(lambda line: lines.append("  " + line), tmp, declares.add, "%x")
    head = [
        "define void @kernel(ptr %a0, ptr %a1, i64 %n) nounwind {",
        f"  %f0 = getelementptr i8, ptr %a0, i64 {_DATA_OFFSET}",
        "  %d0 = load ptr, ptr %f0",
        f"  %f1 = getelementptr i8, ptr %a1, i64 {_DATA_OFFSET}",
        "  %d1 = load ptr, ptr %f1",
        "  call void @kernel.body(ptr %d0, ptr %d1, i64 %n)",
        "  ret void",
        "}",
        "define internal void @kernel.body(ptr noalias %p0, ptr noalias %p1, i64 %n) "
        "nounwind alwaysinline {",
        "entry:",
        "  %any = icmp sgt i64 %n, 0",
        "  br i1 %any, label %loop, label %exit",
        "loop:",
        "  %i = phi i64 [0, %entry], [%next, %loop]",
        "  %px = getelementptr inbounds float, ptr %p0, i64 %i",
        "  %x = load float, ptr %px",
    ]
    tail = [
        "  %py = getelementptr inbounds float, ptr %p1, i64 %i",
        f"  store float {y}, ptr %py",
        "  %next = add nuw nsw i64 %i, 1",
        "  %more = icmp slt i64 %next, %n",
        "  br i1 %more, label %loop, label %exit",
        "exit:",
        "  ret void",
        "}",
    ]
    return "\n".join([*head, *lines, *tail, *sorted(declares)]) + "\n"


def tanh_f32_array(x: Any) -> Any:
    """tanh_f32's recipe on a float32 array or numpy scalar: the whole-array kernel,
    or numpy running the recipe (the same bits) while it compiles or if LLVM refused
    it. Every float32 math.tanh of a process with LLVM runs this
    (scalar_fns.FLOAT32_UNARY), so a tanh alone (PyNative) and one fused into a loop
    nest give the same bits."""
    if not _TANH.ready():
        return tanh_f32.tanh(x)
    a = np.asarray(x, dtype=np.float32)
    if not a.flags.c_contiguous:
        a = a.copy()
    out = np.empty(a.shape, np.float32)
    _TANH.fn(a, out, a.size)
    return out if isinstance(x, np.ndarray) else np.float32(out[()])


def _planned_tanh() -> Callable[[Any], Any]:
    """An op planned to run float32 tanh: its kernel starts compiling now (in the
    background, as a batch of its own), so the steps before the first tanh (and the
    plan's rest) hide the ~45 ms."""
    _TANH.ready()
    return tanh_f32_array


class Codegen:
    """One executable's code generator: the batch its planners add kernels to."""

    def __init__(self) -> None:
        self._open: _Batch | None = None
        self._lock = threading.Lock()
        #: Loop nests planned for this executable (tests see the generator at work).
        self.planned = 0

    def add(self, kernel: FusedKernel) -> None:
        self.planned += 1
        _STATS["planned"] += 1
        with _LOCK:
            fns = [_COMPILED.get(ir) for ir in kernel.irs()]
        if all(fn is not None for fn in fns):
            kernel.bind(fns)
            return
        with self._lock:
            if self._open is None or self._open.started:
                self._open = _Batch()
            self._open.kernels.append(kernel)
            kernel.batch = self._open


class FusedKernel:
    """Calls the compiled loop nest on C-contiguous arrays of the planned dtypes
    (`guarded` checks the raw inputs), the outputs allocated with np.empty; or, with
    `into` (the input the in-place variant `inplace_ir` writes its one result into),
    `in_place` writes that input's buffer."""

    def __init__(
        self, ir: str, ins: list[tuple[Shape, np.dtype]], outs: list[tuple[Shape, np.dtype]]
    ):
        self.ir = ir
        self.ins = ins
        self.outs = outs
        self.into: int | None = None
        self.inplace_ir: str | None = None
        self.batch: _Batch | None = None
        self.fn: Any = None
        self.inplace_fn: Any = None

    def irs(self) -> list[str]:
        return [self.ir] if self.inplace_ir is None else [self.ir, self.inplace_ir]

    def bind(self, fns: list[Any]) -> None:
        if len(fns) > 1:
            self.inplace_fn = fns[1]
        self.fn = fns[0]

    def _compiled(self) -> None:
        assert self.batch is not None
        self.batch.compile()

    def ready(self) -> bool:
        """Compiled; else the batch's compile is started (once) and this says False
        until it is done (never True if LLVM failed: then the numpy path runs)."""
        if self.fn is not None:
            return True
        if self.batch is not None:
            self.batch.start()
        return False

    def __call__(self, *arrays: Any) -> Any:
        fn = self.fn
        if fn is None:
            self._compiled()
            fn = self.fn
        outs = [np.empty(shape, dtype) for shape, dtype in self.outs]
        fn(*arrays, *outs)
        return outs[0] if len(outs) == 1 else tuple(outs)

    def in_place(self, *arrays: Any) -> Any:
        if self.fn is None:
            self._compiled()
        self.inplace_fn(*arrays)
        return arrays[self.into]  # type: ignore[index]


#: the whole-array tanh kernel (`tanh_f32_array` calls its compiled `fn` directly)
_TANH = FusedKernel(_tanh_ir(), [], [])
_TANH.batch = _Batch()
_TANH.batch.kernels.append(_TANH)
if _llvm is not None:
    scalar_fns.FLOAT32_UNARY[math.TanhOp] = _planned_tanh


def _sole_count() -> int:
    """What `sys.getrefcount(arrays[k])` says inside `guarded`'s kernel, called by a
    stealing step, of an operand nothing else holds (measured: it differs between
    Python versions), as kernels_tensor._sole_count does for insert_slice."""
    s: list[Any] = [np.zeros(1), None]

    def probe(*arrays: Any, sole: bool = False) -> int:
        return sys.getrefcount(arrays[0])

    steal_release_step(probe, [0], 1, 0, [])(s)
    return int(s[1])


_SOLE = _sole_count()


def guarded(
    kernel: Any, reference: Any, dtypes: list[np.dtype], shapes: list[tuple[int, ...]]
) -> Any:
    """`kernel` when every input is a C-contiguous array of its planned dtype and shape,
    else the numpy path's `reference` (a transposed view, a scalar): the generated code
    has the C-contiguous strides built in, and copying a view first cost more than
    numpy's strided reads (the GPT step's transposed gradients). The shape is checked
    too: the code indexes (and an in-place variant writes) the planned extent, so an
    array of another shape would be read or written out of bounds; the static types
    say it cannot happen (the test suite's frontend, backend and fuzz runs checked for it,
    issue 41), and the check costs ~100 ns per input (a 3-input call 1.08 -> 1.37 us;
    estimated ~0.1 ms of the GPT-like step, below its noise). A kernel with an in-place
    variant runs it when the step gives it the last reference to that input
    (`sole`, steps.stealing) and the array is its own writable buffer."""
    into = getattr(kernel, "into", None)
    sole_count = _SOLE

    ready = kernel.ready

    def run(*arrays: Any, sole: bool = False) -> Any:
        if not ready():
            return reference(*arrays)
        for a, dt, sh in zip(arrays, dtypes, shapes):
            if (
                type(a) is not np.ndarray
                or a.dtype != dt
                or a.shape != sh
                or not a.flags.c_contiguous
            ):
                return reference(*arrays)
        if sole and into is not None:
            d = arrays[into]
            if d.base is None and d.flags.writeable and sys.getrefcount(d) <= sole_count + 1:
                return kernel.in_place(*arrays)
        return kernel(*arrays)

    run.steals = into  # type: ignore[attr-defined]
    return run


# -- planning ------------------------------------------------------------------------------
#
# A body op LLVM does not evaluate here (exp, log, tanh, erf, pow, integer division ...:
# `_numpy_op`) is a numpy step of the kernel, run by the numpy path's own function
# (scalar_fns.py) on whole arrays, so its results are bit for bit the numpy path's. The
# body is cut into stages at those ops: stage s is one loop nest computing the operands
# of the numpy ops whose operands are ready after s cuts (as arrays in loop order), then
# those numpy calls; the last loop nest computes the results. A body without such ops is
# one loop nest.


class _Stage:
    """One loop nest (`kernel` reading registers `ins`, writing `outs`), or one numpy
    call (`fn` on registers or constants `args`, writing register `outs[0]`)."""

    def __init__(
        self, kernel: Any, fn: Any, ins: list[Any], outs: list[int], dtype: np.dtype | None = None
    ):
        self.kernel, self.fn, self.ins, self.outs, self.dtype = kernel, fn, ins, outs, dtype


class FusedPlan:
    """A fused body's stages over a register list that starts with its inputs."""

    def __init__(self, stages: list[_Stage], results: list[int], kernels: list[FusedKernel]):
        self.stages, self.results, self.kernels = stages, results, kernels
        self._ready = False

    def ready(self) -> bool:
        if not self._ready:
            self._ready = all([k.ready() for k in self.kernels])
        return self._ready

    def __call__(self, *arrays: Any) -> Any:
        r = list(arrays)
        for st in self.stages:
            if st.kernel is not None:
                values = st.kernel(*[r[i] for i in st.ins])
                if len(st.outs) == 1:
                    values = (values,)
            else:
                args = [r[a] if isinstance(a, int) else a[0] for a in st.ins]
                values = (np.ascontiguousarray(st.fn(*args), st.dtype),)
            for k, v in zip(st.outs, values):
                while len(r) <= k:
                    r.append(None)
                r[k] = v
        res = self.results
        return r[res[0]] if len(res) == 1 else tuple([r[i] for i in res])


def fused_kernel(
    cg: Codegen,
    spec: Spec,
    operands: Sequence[Operand],
    body: Body,
    loop: Shape,
    reference: Callable[[], tuple[Any, list[SSAValue], list[bool]]],
) -> tuple[Any, list[SSAValue], list[bool]] | None:
    """The compiled kernel of an all-parallel generic, the values it reads and its
    fresh results, or None when something in it stays on the numpy path.
    `reference()` plans the numpy path's kernel, which runs inputs the generated code
    was not built for (see `guarded`)."""
    try:
        plan, used = _generate(spec, body, loop)
    except CodegenUnsupported:
        return None
    ref_kernel, ref_ins, _ = reference()
    ins = [operands[i].value for i in used]
    if ref_ins != ins:  # not the same inputs in the same order: no fallback to share
        return None
    for k in plan.kernels:
        cg.add(k)
    kernel = plan.stages[0].kernel if _is_single(plan, used) else plan
    dtypes = [dtype_of(v.type, spec.op) for v in ins]
    shapes = [static_shape(v.type) for v in ins]
    return guarded(kernel, ref_kernel, dtypes, shapes), ins, [True] * len(spec.outs)


def _is_single(plan: FusedPlan, used: list[int]) -> bool:
    """One loop nest reading the inputs in order and giving the results: call it directly."""
    if len(plan.stages) != 1 or plan.stages[0].kernel is None:
        return False
    st = plan.stages[0]
    return st.ins == list(range(len(used))) and st.outs == plan.results


def _dtype(v: SSAValue, op: Operation) -> np.dtype:
    try:
        dt = dtype_of(v.type, op)
    except Exception as exc:  # an element type the executor has no dtype for
        raise CodegenUnsupported from exc
    if dt not in _LLVM_TYPES:
        raise CodegenUnsupported
    return dt


def _numpy_op(o: Operation) -> bool:
    if type(o) is math.TanhOp:  # float32: tanh_f32's recipe, computed in the loop
        return not isinstance(o.results[0].type, Float32Type)
    return type(o) not in _SUPPORTED


def _generate(spec: Spec, body: Body, loop: Shape) -> tuple[FusedPlan, list[int]]:
    op = spec.op
    if body.captured:
        raise CodegenUnsupported
    if any(not is_tensor(v.type) for v in [*spec.ins, *spec.outs]):
        raise CodegenUnsupported
    needed = _needed(body, list(body.yields), set())
    ops = [o for o in body.ops if o.results[0] in needed]
    for o in ops:
        if len(o.results) != 1 or isinstance(o, tensor.ExtractOp):
            raise CodegenUnsupported
        if _numpy_op(o) and all(v in body.consts for v in o.operands):
            raise CodegenUnsupported
    if (sum(1 for o in ops if not _numpy_op(o)) - 1) * prod(loop) < MIN_WORK:
        raise CodegenUnsupported  # little to fuse: numpy's calls are as fast
    for value in body.consts.values():
        if isinstance(value, np.ndarray) and value.ndim:
            raise CodegenUnsupported  # linalg.index's arange, or a captured tensor
    values = [*spec.ins, *spec.outs]
    n_ins = len(spec.ins)
    n = len(loop)
    out_dims = [tuple(spec.maps[n_ins + k]) for k in range(len(spec.outs))]
    order = list(out_dims[0]) if n else []
    mat_shape = tuple(loop[d] for d in order)
    mat_strides, _ = _strides(mat_shape, order, loop)

    # the stage of every value: how many numpy ops lie on its longest path
    stage: dict[SSAValue, int] = {}
    for o in ops:
        s = max([stage.get(v, 0) for v in o.operands], default=0)
        stage[o.results[0]] = s + 1 if _numpy_op(o) else s
    last = max([stage.get(y, 0) for y in body.yields], default=0)

    used: list[int] = []  # block args read, in first-use order: the kernel's inputs
    for v in [*(x for o in ops for x in o.operands), *body.yields]:  # as Body.compile
        i = body.arg_index(v)
        if i is not None and i not in used:
            used.append(i)
    reg: dict[SSAValue, int] = {body.block.args[i]: k for k, i in enumerate(used)}
    arrays: dict[SSAValue, tuple[list[int], int, np.dtype]] = {}
    for i in used:
        shape = static_shape(values[i].type, op)
        strides, offset = _strides(shape, spec.maps[i], loop)
        arrays[body.block.args[i]] = (strides, offset, _dtype(values[i], op))
    specs: dict[SSAValue, tuple[Shape, np.dtype]] = {
        body.block.args[i]: (static_shape(values[i].type, op), _dtype(values[i], op)) for i in used
    }
    next_reg = len(used)
    stages: list[_Stage] = []
    kernels: list[FusedKernel] = []

    def new_reg() -> int:
        nonlocal next_reg
        next_reg += 1
        return next_reg - 1

    mat: dict[SSAValue, int] = {}  # registers holding a value as an array in loop order

    def _in_place_input(ins: list[SSAValue], targets: list[Any]) -> int | None:
        """The input a one-result loop nest may overwrite: laid out as the result
        (same strides, offset, shape and dtype), and no other input is its value."""
        if len(targets) != 1:
            return None
        y, strides, offset, dt, shape = targets[0]
        sources = [values[i] if (i := body.arg_index(v)) is not None else None for v in ins]
        for k, v in enumerate(ins):
            src = sources[k]
            if src is None or sources.count(src) != 1:
                continue
            if arrays[v] == (strides, offset, dt) and specs[v] == (shape, dt):
                return k
        return None

    def loop_nest(
        targets: list[tuple[SSAValue, list[int], int, np.dtype, Shape]], final: bool = False
    ) -> list[int]:
        needed = _needed(body, [t[0] for t in targets], set(reg))
        ins = [v for v in reg if v in needed]
        strides = [arrays[v][0] for v in ins] + [t[1] for t in targets]
        levels = _levels(order, loop, strides)
        inputs = [(v, *arrays[v]) for v in ins]
        nest_targets = [t[:4] for t in targets]
        kernel = FusedKernel(
            _Emitter(body, inputs, nest_targets, levels).emit(),
            [specs[v] for v in ins],
            [(t[4], t[3]) for t in targets],
        )
        into = _in_place_input(ins, targets) if IN_PLACE and final and not stages else None
        if into is not None:
            kernel.into = into
            kernel.inplace_ir = _Emitter(body, inputs, nest_targets, levels, into).emit()
        outs = [new_reg() for _ in targets]
        stages.append(_Stage(kernel, None, [reg[v] for v in ins], outs))
        kernels.append(kernel)
        return outs

    for s in range(last + 1):
        # the numpy ops whose operands are ready after `s` cuts
        cut = [o for o in ops if _numpy_op(o) and stage[o.results[0]] == s + 1]
        wanted: list[SSAValue] = []
        for o in cut:
            for v in o.operands:
                if v not in mat and v not in body.consts and v not in wanted:
                    wanted.append(v)
        if wanted:
            outs = loop_nest([(v, mat_strides, 0, _dtype(v, op), mat_shape) for v in wanted])
            for v, k in zip(wanted, outs):
                mat[v] = k
                if v not in reg:
                    reg[v] = k
                    arrays[v] = (mat_strides, 0, _dtype(v, op))
                    specs[v] = (mat_shape, _dtype(v, op))
        for o in cut:
            fn = scalar_fn(o, vectorized=True)
            args = [mat[v] if v in mat else (body.consts[v],) for v in o.operands]
            out = new_reg()
            stages.append(_Stage(None, fn, args, [out], _dtype(o.results[0], op)))
            result = o.results[0]
            reg[result] = mat[result] = out
            arrays[result] = (mat_strides, 0, _dtype(result, op))
            specs[result] = (mat_shape, _dtype(result, op))
    # the results: a numpy op's array in the output's layout is the result as it is
    results: list[int] = [-1] * len(spec.outs)
    targets = []
    positions = []
    for k, y in enumerate(body.yields):
        v = spec.outs[k]
        shape, dt = static_shape(v.type, op), _dtype(v, op)
        if _dtype(y, op) != dt:
            raise CodegenUnsupported
        producer = body.producer(y)
        if producer is not None and _numpy_op(producer) and out_dims[k] == tuple(order):
            results[k] = reg[y]
            continue
        strides, offset = _strides(shape, out_dims[k], loop)
        targets.append((y, strides, offset, dt, shape))
        positions.append(k)
    if targets:
        for k, out in zip(positions, loop_nest(targets, final=True)):
            results[k] = out
    return FusedPlan(stages, results, kernels), used


def _needed(body: Body, targets: list[SSAValue], available: set[SSAValue]) -> set[SSAValue]:
    """The values a loop nest computing `targets` reads or computes."""
    seen: set[SSAValue] = set()
    stack = list(targets)
    while stack:
        v = stack.pop()
        if v in seen:
            continue
        seen.add(v)
        if v in available:
            continue
        producer = body.producer(v)
        if producer is not None:
            stack.extend(producer.operands)
    return seen


def _strides(shape: Shape, amap: Sequence[Any], loop: Shape) -> tuple[list[int], int]:
    """Element strides of a C-contiguous array per loop dim, and its constant offset."""
    c_strides = [prod(shape[a + 1 :]) for a in range(len(shape))]
    strides = [0] * len(loop)
    offset = 0
    for axis, r in enumerate(amap):
        if isinstance(r, int):
            if shape[axis] != 1 or loop[r] == 1:
                strides[r] += c_strides[axis]
        else:
            offset += r[1] * c_strides[axis]
    return strides, offset


def _levels(order: list[int], loop: Shape, strides: list[list[int]]) -> list[tuple[int, list[int]]]:
    """The loop nest, outermost first: (extent, stride of each array), unit dims
    dropped, neighbours merged where every array walks them as one dim."""
    levels: list[tuple[int, list[int]]] = []
    for d in order:
        if loop[d] == 1:
            continue
        ext, st = loop[d], [s[d] for s in strides]
        if levels:
            pext, pst = levels[-1]
            if all(p == s * ext for p, s in zip(pst, st)):
                levels[-1] = (pext * ext, st)
                continue
        levels.append((ext, st))
    return levels


def _float_literal(value: float, ty: str) -> str:
    if ty == "float":
        value = float(np.float32(value))
    return f"0x{struct.unpack('<Q', struct.pack('<d', float(value)))[0]:016X}"


class _Emitter:
    """One loop nest: load `inputs` (value, strides, offset, dtype), compute `targets`
    from them and store each (same tuples) at every point of `levels`."""

    def __init__(
        self,
        body: Body,
        inputs: list[tuple[SSAValue, list[int], int, np.dtype]],
        targets: list[tuple[SSAValue, list[int], int, np.dtype]],
        levels: list[tuple[int, list[int]]],
        into: int | None = None,
    ):
        self.body, self.inputs, self.targets, self.levels = body, inputs, targets, levels
        self.arrays = [t[1:] for t in [*inputs, *targets]]
        self.n_in = len(inputs)
        #: the input whose pointer the (one) result is stored through: the in-place variant
        self.into = into
        self.lines: list[str] = []
        self.names: dict[SSAValue, str] = {}
        self.declares: set[str] = set()
        self.count = 0

    def tmp(self) -> str:
        self.count += 1
        return f"%t{self.count}"

    def put(self, line: str) -> None:
        self.lines.append("  " + line)

    def emit(self) -> str:
        """@kernel takes the numpy arrays themselves (PyObject pointers: ctypes passes
        them in ~50 ns, where `a.ctypes.data` cost 2 us each) and reads each one's data
        pointer at `_DATA_OFFSET` (PyArrayObject's `data`, checked at import); the loop
        nest is @kernel.body, whose `noalias` pointers let LLVM vectorise without
        run-time overlap checks (inlined, they become alias scopes)."""
        count = len(self.arrays) - (1 if self.into is not None else 0)
        params = ", ".join(f"ptr %a{k}" for k in range(count))
        wrapper = [f"define void @kernel({params}) nounwind {{"]
        for k in range(count):
            wrapper.append(f"  %f{k} = getelementptr i8, ptr %a{k}, i64 {_DATA_OFFSET}")
            wrapper.append(f"  %d{k} = load ptr, ptr %f{k}")
        args = ", ".join(f"ptr %d{k}" for k in range(count))
        wrapper += [f"  call void @kernel.body({args})", "  ret void", "}"]
        params = ", ".join(f"ptr noalias %p{k}" for k in range(count))
        out = [f"define internal void @kernel.body({params}) nounwind alwaysinline {{", "entry:"]
        depth = len(self.levels)
        pred = "entry"
        for lv in range(len(self.levels)):
            self.put(f"br label %h{lv}")
            self.lines.append(f"h{lv}:")
            self.put(f"%i{lv} = phi i64 [0, %{pred}], [%n{lv}, %l{lv}]")
            pred = f"h{lv}"
        self._body()
        for lv in range(depth - 1, -1, -1):
            ext = self.levels[lv][0]
            self.put(f"br label %l{lv}")
            self.lines.append(f"l{lv}:")
            self.put(f"%n{lv} = add nuw nsw i64 %i{lv}, 1")
            self.put(f"%c{lv} = icmp ult i64 %n{lv}, {ext}")
            nxt = f"l{lv - 1}" if lv else "exit"
            self.put(f"br i1 %c{lv}, label %h{lv}, label %{nxt}")
        if depth:
            self.lines.append("exit:")
        self.put("ret void")
        lines = [*wrapper, *out, *self.lines, "}", *sorted(self.declares)]
        return "\n".join(lines) + "\n"

    def _address(self, k: int) -> str:
        strides, offset, dt = self.arrays[k]
        terms = []
        for lv, (_, st) in enumerate(self.levels):
            s = st[k]
            if s == 0:
                continue
            if s == 1:
                terms.append(f"%i{lv}")
            else:
                t = self.tmp()
                self.put(f"{t} = mul nuw nsw i64 %i{lv}, {s}")
                terms.append(t)
        index = str(offset)
        for term in terms:
            t = self.tmp()
            self.put(f"{t} = add nuw nsw i64 {index}, {term}")
            index = t
        mem = "i8" if dt == np.bool_ else _LLVM_TYPES[dt]
        p = self.tmp()
        base = self.into if self.into is not None and k == self.n_in else k
        self.put(f"{p} = getelementptr inbounds {mem}, ptr %p{base}, i64 {index}")
        return p

    def _body(self) -> None:
        body = self.body
        for k, (value, _, _, dt) in enumerate(self.inputs):
            p = self._address(k)
            v = self.tmp()
            if dt == np.bool_:
                self.put(f"{v}.b = load i8, ptr {p}")
                self.put(f"{v} = icmp ne i8 {v}.b, 0")
            else:
                self.put(f"{v} = load {_LLVM_TYPES[dt]}, ptr {p}")
            self.names[value] = v
        needed = _needed(body, [t[0] for t in self.targets], set(self.names))
        for o in body.ops:
            result = o.results[0]
            if result in needed and result not in self.names:
                self.names[result] = self._op(o)
        for k, (y, _, _, _) in enumerate(self.targets):
            slot = self.n_in + k
            dt = self.arrays[slot][2]
            v = self._value(y)
            p = self._address(slot)
            if dt == np.bool_:
                z = self.tmp()
                self.put(f"{z} = zext i1 {v} to i8")
                self.put(f"store i8 {z}, ptr {p}")
            else:
                self.put(f"store {_LLVM_TYPES[dt]} {v}, ptr {p}")

    def _value(self, v: SSAValue) -> str:
        name = self.names.get(v)
        if name is not None:
            return name
        if v not in self.body.consts:
            raise CodegenUnsupported
        value = self.body.consts[v]
        ty = self._ty(v)
        if ty in ("float", "double"):
            return _float_literal(float(value), ty)
        if ty == "i1":
            return "true" if bool(value) else "false"
        return str(int(np.asarray(value).astype(np.int64)))

    def _ty(self, v: SSAValue) -> str:
        return _LLVM_TYPES[_dtype(v, self.body.owner)]

    def _op(self, o: Operation) -> str:
        kind = type(o)
        args = [self._value(v) for v in o.operands]
        if kind is math.TanhOp:  # float32 (`_numpy_op`): the recipe's IEEE steps
            return tanh_f32.emit(self.put, self.tmp, self._declare, args[0])
        ty = self._ty(o.results[0])
        src = self._ty(o.operands[0])
        r = self.tmp()
        if kind in _FLOAT_BINARY:
            self.put(f"{r} = {_FLOAT_BINARY[kind]} {ty} {args[0]}, {args[1]}")
        elif kind in _INT_BINARY:
            self.put(f"{r} = {_INT_BINARY[kind]} {ty} {args[0]}, {args[1]}")
        elif kind in _INT_MINMAX:
            c = self.tmp()
            self.put(f"{c} = icmp {_INT_MINMAX[kind]} {ty} {args[0]}, {args[1]}")
            self.put(f"{r} = select i1 {c}, {ty} {args[0]}, {ty} {args[1]}")
        elif kind is arith.NegfOp:
            self.put(f"{r} = fneg {ty} {args[0]}")
        elif kind in _FLOAT_MINMAX:
            # a if it compares (>= for max, <= for min) or the NaN-deciding operand is
            # NaN, else b: np.maximum/minimum (a NaN a or b wins: check a), np.fmax/
            # fmin (a NaN b loses: check b)
            pred, nan_side = _FLOAT_MINMAX[kind]
            c, u, w = self.tmp(), self.tmp(), self.tmp()
            self.put(f"{c} = fcmp {pred} {ty} {args[0]}, {args[1]}")
            self.put(f"{u} = fcmp uno {ty} {args[nan_side]}, 0.0")
            self.put(f"{w} = or i1 {c}, {u}")
            self.put(f"{r} = select i1 {w}, {ty} {args[0]}, {ty} {args[1]}")
        elif kind in _FLOAT_INTRINSIC:
            name = f"llvm.{_FLOAT_INTRINSIC[kind]}.{_suffix(ty)}"
            self.put(f"{r} = call {ty} @{name}({ty} {args[0]})")
            self._declare(f"declare {ty} @{name}({ty})")
        elif kind is math.RsqrtOp:
            s = self.tmp()
            name = f"llvm.sqrt.{_suffix(ty)}"
            self.put(f"{s} = call {ty} @{name}({ty} {args[0]})")
            self._declare(f"declare {ty} @{name}({ty})")
            self.put(f"{r} = fdiv {ty} {_float_literal(1.0, ty)}, {s}")
        elif kind is math.FmaOp:
            m = self.tmp()
            self.put(f"{m} = fmul {ty} {args[0]}, {args[1]}")
            self.put(f"{r} = fadd {ty} {m}, {args[2]}")
        elif kind is arith.CmpfOp:
            self.put(f"{r} = fcmp {_CMPF[o.predicate.value.data]} {src} {args[0]}, {args[1]}")
        elif kind is arith.CmpiOp:
            self.put(f"{r} = icmp {_CMPI[o.predicate.value.data]} {src} {args[0]}, {args[1]}")
        elif kind is arith.SelectOp:
            if self._ty(o.operands[0]) != "i1":
                raise CodegenUnsupported
            self.put(f"{r} = select i1 {args[0]}, {ty} {args[1]}, {ty} {args[2]}")
        elif kind in _CASTS:
            self.put(f"{r} = {self._cast(o, src, ty)} {src} {args[0]} to {ty}")
        else:  # pragma: no cover - _SUPPORTED and this chain list the same ops
            raise CodegenUnsupported
        return r

    def _cast(self, o: Operation, src: str, ty: str) -> str:
        kind = type(o)
        bits = {"i1": 1, "i8": 8, "i16": 16, "i32": 32, "i64": 64, "float": 32, "double": 64}
        if kind is arith.BitcastOp:
            if bits[src] != bits[ty] or "i1" in (src, ty):
                raise CodegenUnsupported
            return "bitcast"
        if kind is arith.ExtFOp and (src, ty) == ("float", "double"):
            return "fpext"
        if kind is arith.TruncFOp and (src, ty) == ("double", "float"):
            return "fptrunc"
        if kind is arith.SIToFPOp and src == "i1":
            return "uitofp"  # as the numpy path (astype: true -> 1.0; MLIR says -1.0)
        if kind is arith.SIToFPOp and src[0] == "i":
            return "sitofp"
        if kind is arith.UIToFPOp and src[0] == "i":
            return "uitofp"
        if src[0] == "i" and ty[0] == "i":
            if bits[src] == bits[ty]:
                raise CodegenUnsupported
            if bits[ty] < bits[src]:
                return "trunc"
            if kind is arith.ExtUIOp:
                return "zext"
            if kind in (arith.ExtSIOp, arith.IndexCastOp):
                return "sext"
        raise CodegenUnsupported

    def _declare(self, line: str) -> None:
        self.declares.add(line)


def _suffix(ty: str) -> str:
    return "f32" if ty == "float" else "f64"
