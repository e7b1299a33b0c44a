"""The compile cache's compiler side: what an entry holds of a `Compiled`, and how
it is found, written and restored.

An entry (a checked `backend/cache/store.py` file, one per key) holds the
lowered module in binary form (`backend/cache/module_codec.py`) and, for the
CPU, the executor's plans as data (`backend/cache/plan_codec.py`); the frontend
adds what the Python side needs (its entry name, how results are rebuilt, which
Parameter each global is) and computes the key (frontend/graph/program_cache.py).
A hit rebuilds the captured plans and plans the other functions from the module
("the backend actions"); the passes and lowering are skipped, and the module is
decoded only when something needs it.

As MindSpore does, a miss prints "Warning: Check the consistency of dependency
files hash failed. Execute all the compilation actions." and a hit "Use the
compilation cache and execute the backend actions only." on stderr. An
unusable entry (damaged, foreign, from another format) is reported and
compiled again; the warnings a compile gave are kept and given again by a hit.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib
import io
import os
import sys
import time
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy
import xdsl
from xdsl.dialects.builtin import ModuleOp

from mindjit.backend.cache.module_codec import (
    Encoded,
    ModuleFormatError,
    append_chunk,
    decode,
    encode,
    read_chunk,
)
from mindjit.backend.cache.plan_codec import capture, declaring, rebuild
from mindjit.backend.cache.store import CacheEntryError, CompileCache
from mindjit.backend.cpu import CpuExecutable
from mindjit.backend.iree.executable import IreeExecutable
from mindjit.backend.iree.pipeline_executable import IreePipelineExecutable
from mindjit.backend.iree.toolchain import TARGETS, target_fingerprint
from mindjit.dialects.context import make_context
from mindjit.driver.compile import Compiled
from mindjit.driver.report import StageReport
from mindjit.passes.mindir_load_elim import LoadElimWarning
from mindjit.support import config
from mindjit.support.errors import MindjitError
from mindjit.support.version import __version__

MISS = (
    "Warning: Check the consistency of dependency files hash failed. "
    "Execute all the compilation actions."
)
HIT = "Use the compilation cache and execute the backend actions only."
ENTRY_FORMAT = "mindjit-compiled-program-2"
#: the compiler's packages: an edit to any of them changes every key
COMPILER_PACKAGES = ("support", "ir", "dialects", "passes", "backend", "driver", "frontend")


def say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


class ProgramCache:
    """The cache directory in force (`config.compile_cache_path`)."""

    def __init__(self) -> None:
        self.store = CompileCache(config.compile_cache_path(), config.compile_cache_max_bytes())

    def where(self, key: str) -> str:
        return self.store.path_of(key)

    def load(self, key: str) -> tuple[dict[str, Any], bytes] | None:
        """The entry of `key`, None when there is none or it is unusable (said)."""
        try:
            found = self.store.load(key)
        except CacheEntryError as err:
            self.unusable(key, err.message)
            return None
        if found is not None and found[0].get("format") != ENTRY_FORMAT:
            self.unusable(key, f"not a compiled program entry ({found[0].get('format')!r})")
            return None
        return found

    def unusable(self, key: str, why: str) -> None:
        say(
            f"Warning: the compilation cache entry {self.where(key)} is unusable ({why}); compiling again."
        )
        self.store.discard(key)

    def save(self, key: str, manifest: dict[str, Any], compiled: Compiled, said: list) -> None:
        """Store `compiled` with the frontend's `manifest`; a failure is said, never raised."""
        blob = io.BytesIO()
        entry = {
            **manifest,
            "format": ENTRY_FORMAT,
            "module": _put_module(encode(compiled.module), blob),
            "plan": _describe_plan(compiled, blob),
            "vmfb": _describe_vmfb(compiled, blob),
            "warnings": said,
        }
        try:
            self.store.store(key, entry, blob.getvalue())
        except OSError as exc:  # the directory cannot be made
            say(
                f"Warning: cannot write the compilation cache in {self.store.directory}: {exc.strerror}"
            )
        except MindjitError as err:  # the entry cannot be written
            say(f"Warning: cannot write the compilation cache: {err}")


# -- warnings a compile gives ---------------------------------------------------------------


def _warning_kinds() -> dict[str, type[Warning]]:
    """The warning classes a compile may give, by name (an entry names them)."""
    return {c.__name__: c for c in (LoadElimWarning, RuntimeWarning, UserWarning)}


@contextlib.contextmanager
def recording_warnings() -> Iterator[list[list[str]]]:
    """Within the block, warnings are recorded; on leaving (even by an exception)
    they are shown, and the list holds what an entry keeps of them: [class, message]."""
    kept: list[list[str]] = []
    caught: list[warnings.WarningMessage] = []
    try:
        with warnings.catch_warnings(record=True) as caught:
            yield kept
    finally:
        kinds = _warning_kinds()
        for w in caught:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno, source=w.source)
            name = w.category.__name__ if w.category.__name__ in kinds else "UserWarning"
            kept.append([name, str(w.message)])


def replay_warnings(said: Any) -> None:
    """A hit gives the warnings its compile gave (e.g. LoadElimWarning)."""
    kinds = _warning_kinds()
    for item in said if isinstance(said, list) else []:
        if isinstance(item, list) and len(item) == 2 and all(isinstance(x, str) for x in item):
            warnings.warn(item[1], kinds.get(item[0], UserWarning), stacklevel=4)


# -- the key's compiler part ----------------------------------------------------------------


@functools.cache
def versions() -> tuple[str, ...]:
    """mindjit, a stamp of its compiler's source files (a checkout's edits change
    it), xDSL, numpy and Python."""

    stamp = []
    for package in COMPILER_PACKAGES:
        for root in importlib.import_module(f"mindjit.{package}").__path__:
            for dirpath, dirnames, filenames in os.walk(root):
                dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
                for f in sorted(filenames):
                    if f.endswith(".py"):
                        st = os.stat(os.path.join(dirpath, f))
                        stamp.append(f"{dirpath}/{f}:{st.st_size}:{st.st_mtime_ns}")
    return (
        f"mindjit {__version__}",
        hashlib.sha256("\n".join(stamp).encode()).hexdigest(),
        _distribution(xdsl),
        f"numpy {numpy.__version__}",
        f"python {sys.version}",
    )


def _distribution(package: Any) -> str:
    """The installed distribution's name and version, from its dist-info folder's
    name (importlib.metadata costs tens of ms to import and scan)."""
    site = os.path.dirname(os.path.dirname(package.__file__))
    name = package.__name__
    found = sorted(
        d for d in os.listdir(site) if d.startswith(f"{name}-") and d.endswith(".dist-info")
    )
    return found[-1] if found else f"{name} {package.__version__}"


# -- a Compiled in an entry ---------------------------------------------------------------


def _describe_plan(compiled: Compiled, blob: io.BytesIO) -> dict[str, Any] | None:
    """The CPU plans as data (`plan_codec`), with their kernel templates and the
    module without the captured functions' bodies; None when no plan can be
    captured (a hit then plans the decoded module)."""
    if not isinstance(compiled.executable, CpuExecutable):
        return None
    captured = capture(compiled.executable)
    if captured is None:
        return None
    return {
        "data": captured.data,
        "bytes": append_chunk(blob, captured.blob),
        "kernels": _put_module(encode(captured.kernels), blob),
        "declared": _put_module(encode(declaring(compiled.module, captured.names)), blob),
    }


def _describe_vmfb(compiled: Compiled, blob: io.BytesIO) -> dict[str, Any] | None:
    """IREE's compiled program and what it was built for (a hit on another CPU or
    IREE version compiles again)."""
    exe = compiled.executable
    if isinstance(exe, IreePipelineExecutable):  # a split graph: each stage's modules
        return {
            "target": target_fingerprint(exe.target),
            "stages": [[append_chunk(blob, v) for v in vmfbs] for vmfbs in exe.vmfbs],
        }
    if not isinstance(exe, IreeExecutable):
        return None
    return {
        "target": target_fingerprint(exe.target),
        "modules": [append_chunk(blob, v) for v in exe.vmfbs],
    }


def _stored_vmfbs(
    entry: dict[str, Any], blob: bytes, options: config.CompileOptions
) -> list[Any] | None:
    """The entry's IREE modules when they fit this machine and the options' target
    (for a split graph, a list of modules per stage)."""
    vmfb = entry.get("vmfb")
    if not isinstance(vmfb, dict) or options.backend != "iree":
        return None
    if vmfb.get("target") != target_fingerprint(TARGETS[options.device_target]):
        return None
    stages = vmfb.get("stages")
    if stages is not None:
        if not isinstance(stages, list) or not all(isinstance(s, list) for s in stages):
            raise ModuleFormatError("bad IREE stage module lists")
        return [[bytes(read_chunk(blob, chunk)) for chunk in s] for s in stages]
    modules = vmfb.get("modules")
    if not isinstance(modules, list):
        raise ModuleFormatError("bad IREE module list")
    return [bytes(read_chunk(blob, chunk)) for chunk in modules]


def _put_module(encoded: Any, blob: io.BytesIO) -> dict[str, Any]:
    return {
        "attributes": encoded.attrs,
        "forward": encoded.forward,
        "names": encoded.names,
        "ops": append_chunk(blob, encoded.ops),
        "dense": append_chunk(blob, encoded.blob),
    }


def _get_module(d: Any, blob: bytes) -> ModuleOp:
    if not isinstance(d, dict):
        raise ValueError("bad module record")
    encoded = Encoded(
        d["attributes"],
        bytes(read_chunk(blob, d["ops"])),
        d["forward"],
        bytes(read_chunk(blob, d["dense"])),
        d["names"],
    )
    return decode(encoded, make_context())


def restore_compiled(
    entry: dict[str, Any],
    blob: bytes,
    rebind: Callable[[ModuleOp], None],
    options: config.CompileOptions,
    load_seconds: float,
    where: str,
) -> Compiled:
    """The `Compiled` of an entry (raises on anything inconsistent). `rebind` points
    a decoded module's Parameter values at this process's Parameters. With a
    captured plan the module is decoded only if something asks for it."""
    start = time.perf_counter()
    name = entry.get("entry")
    if not isinstance(name, str):
        raise ModuleFormatError("bad entry name")

    def load_module() -> ModuleOp:
        module = _get_module(entry["module"], blob)
        rebind(module)
        return module

    report = StageReport()
    plan = entry["plan"]
    if plan is None or options.device_target == "Ascend" or options.backend == "iree":
        compiled = Compiled(report, name, load_module())
        report.add("cache-load", None, load_seconds + time.perf_counter() - start)
        compiled.build_backend(options, None, vmfbs=_stored_vmfbs(entry, blob, options))
        return compiled
    compiled = Compiled(report, name, load_module=load_module, where=where)
    report.add("cache-load", None, load_seconds + time.perf_counter() - start)

    def planned(load: Callable[[], ModuleOp]) -> CpuExecutable:
        declared = _get_module(plan["declared"], blob)
        rebind(declared)
        exe = CpuExecutable(declared)
        kernels = _get_module(plan["kernels"], blob)
        rebuild(plan["data"], bytes(read_chunk(blob, plan["bytes"])), kernels, exe, load)
        return exe

    compiled.adopt_executable(planned)
    return compiled


__all__ = [
    "HIT",
    "MISS",
    "ModuleFormatError",
    "ProgramCache",
    "recording_warnings",
    "replay_warnings",
    "restore_compiled",
    "say",
    "versions",
]
