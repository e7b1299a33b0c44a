"""IREE's compiler (in a child process) and runtime, through their Python APIs.

Compiling goes through `iree.compiler.api` (the compiler library, no
`iree-compile` subprocess per compile: that costs about 0.15 s of start-up each)
in one child process kept for the process's compiles (compile_process.py): a
crash of IREE's compiler (IREE 3.13 segfaults on some valid modules) is an
`IreeCompileError`, never a dead user process. The library's diagnostics go to a
temporary file, so a failure becomes one `IreeCompileError` with IREE's first
error and nothing else reaches the user's terminal.

Targets: `llvm-cpu` for the host CPU (`--iree-llvmcpu-target-cpu=host`: on this
2-core machine the GPT-like forward of the issue ran in 1.6 ms for the host and
3.5 ms for a generic x86-64) and `cuda` for `device_target="GPU"`. The host
CPU's name and features are part of what the compile cache keys on
(`target_fingerprint`): a vmfb built for one CPU may not run on another.

Runtime drivers: `local-sync` runs dispatches on the calling thread (the
default), `local-task` on a thread pool (`MINDJIT_IREE_DRIVER`): on this 2-core
machine each host sync (a tensor `if`/`while` condition, a print) cost about
0.4 ms more on the pool. One device per driver per process, shared by every
executable (a device owns thread pools).
"""

from __future__ import annotations

import atexit
import functools
import hashlib
import platform
import threading
from typing import Any

from mindjit.backend.iree.compile_process import CompileCrashed, CompileProcess
from mindjit.support.errors import MindjitError

TARGETS = {"CPU": "llvm-cpu", "GPU": "cuda"}
RUNTIME_DRIVERS = {"llvm-cpu": ("local-sync", "local-task"), "cuda": ("cuda",)}


class IreeMissing(MindjitError):
    """IREE's packages are not importable (the iree backend needs them)."""


class IreeCompileError(MindjitError):
    """iree-compile rejected the module (the message is IREE's first error)."""


class GpuUnavailable(MindjitError, RuntimeError):
    """device_target="GPU" without a CUDA GPU and driver IREE can open."""


def _import_compiler() -> Any:
    try:
        import iree.compiler.api as api  # lazy: loads the compiler library (and may be missing)
    except ImportError as exc:
        raise IreeMissing(
            f"the iree backend needs the packages iree-base-compiler and iree-base-runtime "
            f"({exc}); install them with `pip install iree-base-compiler==3.13.0 "
            "iree-base-runtime==3.13.0` or choose backend='numpy'"
        ) from None
    return api


def runtime() -> Any:
    """The `iree.runtime` module, or a clear error."""
    try:
        import iree.runtime as rt  # lazy: a numpy-only process never loads IREE
    except ImportError as exc:
        raise IreeMissing(
            f"the iree backend needs the package iree-base-runtime ({exc}); "
            "install it or choose backend='numpy'"
        ) from None
    return rt


def compile_flags(target: str) -> list[str]:
    # IREE demotes f64 to f32 by default (changing the entry's signature): mindjit
    # keeps the program's types, as the numpy executor does
    common = ["--iree-input-demote-f64-to-f32=false"]
    if target == "llvm-cpu":
        return [*common, "--iree-hal-target-backends=llvm-cpu", "--iree-llvmcpu-target-cpu=host"]
    return [*common, "--iree-hal-target-backends=cuda"]


_compile_lock = threading.Lock()


#: the last compiles of this process: a reused graph's module (split_graphs.py) is
#: compiled once for every model that contains it
_recent: dict[tuple[str, str], bytes] = {}
RECENT_COMPILES = 32


def compile_vmfb(text: str, target: str) -> bytes:
    """The vmfb of `text` (MLIR) for `target`; `IreeCompileError` with IREE's message."""
    key = (hashlib.sha256(text.encode()).hexdigest(), target)
    found = _recent.get(key)
    if found is None:
        found = _compile(text, target)
        if len(_recent) >= RECENT_COMPILES:
            _recent.pop(next(iter(_recent)))
        _recent[key] = found
    return found


def _compile(text: str, target: str) -> bytes:
    _import_compiler()  # a clear error when IREE is missing
    # one compile at a time: one child process answers them in order
    with _compile_lock:
        try:
            vmfb, diagnostics = _compiler.compile(text, compile_flags(target))
        except CompileCrashed as crash:
            raise IreeCompileError(
                f"IREE cannot compile this program: iree-compile crashed ({crash.how}"
                f"{_crash_site(crash.diagnostics)}; an IREE bug)"
            ) from None
    if vmfb is not None:
        return vmfb
    raise IreeCompileError(f"IREE cannot compile this program: {first_error(diagnostics)}")


_compiler = CompileProcess()
atexit.register(_compiler.close)


def _crash_site(diagnostics: str) -> str:
    """': <last line>' of what the crashed compiler wrote (an abort's message), if any:
    the library installs no crash handler, so a segfault writes nothing."""
    lines = [line.strip() for line in diagnostics.splitlines() if line.strip()]
    return f": {lines[-1]}" if lines else ""


def first_error(diagnostics: str) -> str:
    """The first `error:` line of IREE's diagnostics, without the `<stdin>:l:c:` prefix."""
    for line in diagnostics.splitlines():
        if "error:" in line:
            return line.split("error:", 1)[1].strip()
    lines = [x for x in diagnostics.splitlines() if x.strip()]
    return lines[0] if lines else "unknown error"


@functools.cache
def target_fingerprint(target: str) -> str:
    """What a compiled vmfb depends on besides the module: IREE's version and the CPU."""
    runtime()  # a clear error when IREE is missing
    from iree.runtime.version import VERSION  # lazy: as runtime(); e.g. 3.13.0rc20261016

    cpu = ""
    if target == "llvm-cpu":
        try:
            with open("/proc/cpuinfo") as f:
                info = [line for line in f if line.startswith(("model name", "flags"))]
            cpu = hashlib.sha256("".join(sorted(set(info))).encode()).hexdigest()[:16]
        except OSError:
            cpu = platform.processor()
    return f"iree-{VERSION}-{target}-{platform.machine()}-{cpu}"


_devices: dict[str, Any] = {}
_device_lock = threading.Lock()


def device(driver: str) -> Any:
    """The process's `iree.runtime.Config` for `driver` (created on first use)."""
    with _device_lock:
        config = _devices.get(driver)
        if config is None:
            rt = runtime()
            try:
                config = rt.Config(driver)
            except (RuntimeError, ValueError) as exc:
                if driver == "cuda":
                    raise GpuUnavailable(
                        f"device_target='GPU' needs a CUDA GPU and its driver; IREE could not "
                        f"open one ({str(exc).splitlines()[0] if str(exc) else exc})"
                    ) from None
                raise MindjitError(
                    f"IREE cannot open the runtime driver '{driver}': {exc}"
                ) from None
            _devices[driver] = config
        return config
