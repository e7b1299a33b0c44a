"""The execution paths the differential fuzzer compares with PyNative, and what one
run of a program on one path records.

A path is a graph-mode run with one switch changed from the defaults (README:
"Python", "Side effects", "Control flow to select", "Lazy inline", "The
simulated Ascend-like device", "The compile cache", "Running graphs"): each
starts from the default context, an empty in-memory program cache and the
environment without the switches, builds a fresh `Net` and calls it `CALLS`
times on the program's inputs. A run records, after every call, the outputs,
every Parameter's value and what was printed (at the file-descriptor level, so
IREE's prints are seen too), and once the warnings and compile-cache messages.

The compile cache is two paths: `cache_cold` compiles into a fresh directory of
the program's own, `cache_warm` then reads it back with nothing compiled in
memory (`api.clear_cache()`, as a new process would; the cold run's Net is kept
alive so no object address is reused and hits by address cannot pass).
`cache_process` does the warm run in a new Python process.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import sys
import tempfile
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import mindjit as ms
from mindjit.backend.auto import AutoExecutable
from mindjit.frontend import context as C
from mindjit.frontend.graph import api

CALLS = 3
SWITCHES = (
    "MS_DEV_SIDE_EFFECT_LOAD_ELIM",
    "MS_DEV_CELL_REUSE",
    "MINDJIT_CF_TO_SELECT",
    "MINDJIT_BACKEND",
    "MS_DEV_SAVE_GRAPHS",
    "MS_COMPILER_CACHE_ENABLE",
    "MS_COMPILER_CACHE_PATH",
)


@dataclass(frozen=True)
class Path:
    name: str
    context: dict[str, Any] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    what: str = ""


PATHS = {
    p.name: p
    for p in [
        Path("O0", {"jit_config": {"jit_level": "O0"}}, what="jit level O0"),
        Path("O1", {"jit_config": {"jit_level": "O1"}}, what="jit level O1 (the default)"),
        Path("O2", {"jit_config": {"jit_level": "O2"}}, what="jit level O2"),
        Path("load_elim_0", env={"MS_DEV_SIDE_EFFECT_LOAD_ELIM": "0"}),
        Path("load_elim_2", env={"MS_DEV_SIDE_EFFECT_LOAD_ELIM": "2"}),
        Path("load_elim_3", env={"MS_DEV_SIDE_EFFECT_LOAD_ELIM": "3"}, what="documented unsafe"),
        Path("cell_reuse_0", env={"MS_DEV_CELL_REUSE": "0"}),
        Path("cell_reuse_2", env={"MS_DEV_CELL_REUSE": "2"}),
        Path("cf_to_select_off", env={"MINDJIT_CF_TO_SELECT": "0"}),
        Path("cache_cold", what="compile cache, fresh directory"),
        Path("cache_warm", what="compile cache, read back in this process"),
        Path("cache_process", what="compile cache, read back in a new process"),
        Path("ascend", {"device_target": "Ascend"}, what="the simulated device"),
        Path("iree", {"jit_config": {"backend": "iree"}}, what="the IREE backend"),
        Path("auto", {"jit_config": {"backend": "auto"}}, what="numpy, then IREE (switched)"),
    ]
}
#: the paths a fixed-seed test can afford: no IREE, no extra process
SLOW = ("iree", "auto", "cache_process")
FAST = [name for name in PATHS if name not in SLOW]


@dataclass
class Call:
    outputs: list[np.ndarray]
    params: dict[str, np.ndarray]
    printed: str


@dataclass
class Run:
    calls: list[Call] = field(default_factory=list)
    stderr: str = ""
    warnings: list[str] = field(default_factory=list)
    versions: tuple[str, ...] | None = None  # a run in another process: its mindjit stamp


def inputs(seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """The program's inputs for each call: x and y, float32 (2, 3)."""
    rng = np.random.default_rng(seed)
    return [
        tuple(rng.standard_normal((2, 3)).astype(np.float32) for _ in range(2))
        for _ in range(CALLS)
    ]


def flatten(value: Any) -> list[np.ndarray]:
    if isinstance(value, tuple | list):
        return [a for v in value for a in flatten(v)]
    if isinstance(value, ms.Tensor):
        return [value.asnumpy().copy()]
    return [np.asarray(value)]


@contextlib.contextmanager
def captured_fd1() -> Iterator[io.StringIO]:
    """What is written to file descriptor 1 (Python's print and native code's)."""
    out = io.StringIO()
    sys.stdout.flush()
    saved = os.dup(1)
    with tempfile.TemporaryFile(mode="w+b") as tmp:
        os.dup2(tmp.fileno(), 1)
        try:
            yield out
        finally:
            sys.stdout.flush()
            os.dup2(saved, 1)
            os.close(saved)
            tmp.seek(0)
            out.write(tmp.read().decode("utf-8", "replace"))


@contextlib.contextmanager
def environment(env: dict[str, str]) -> Iterator[None]:
    saved = {k: os.environ.get(k) for k in (*SWITCHES, *env)}
    for k in SWITCHES:
        os.environ.pop(k, None)
    os.environ.update(env)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _switch_auto_soon() -> None:
    """On the auto path: wait for IREE and measure one call each, so that the
    second call already runs on IREE with the state the numpy executor left."""
    for program in api.cached_programs():
        exe = program.executable
        if isinstance(exe, AutoExecutable):
            exe.trial_calls = 1
            exe.ready.wait(600)


def run(module: Any, seed: int, mode: int, context: dict, env: dict, keep: list) -> Run:
    """CALLS calls of a fresh `module.Net()` in `mode`, under `context` and `env`;
    the net is appended to `keep` (its caller decides how long it lives)."""
    C.reset_context()
    api.clear_cache()
    result = Run()
    err = io.StringIO()
    with (
        environment(env),
        warnings.catch_warnings(record=True) as said,
        contextlib.redirect_stderr(err),
    ):
        warnings.simplefilter("always")
        try:
            ms.set_context(mode=mode, **context)
            net = module.Net()
            keep.append(net)
            for x, y in inputs(seed):
                with captured_fd1() as out:
                    got = net(ms.Tensor(x), ms.Tensor(y))
                params = {n: p.asnumpy().copy() for n, p in net.parameters_and_names()}
                result.calls.append(Call(flatten(got), params, out.getvalue()))
                _switch_auto_soon()
        finally:
            result.stderr = err.getvalue()
            result.warnings = [f"{w.category.__name__}: {w.message}" for w in said]
            C.reset_context()
    return result


def run_path(module: Any, seed: int, name: str, cache_dir: str, keep: list) -> Run:
    """`module`'s program on the path `name` (cache_process is the worker's: it needs
    the program's file)."""
    path = PATHS[name]
    context = dict(path.context)
    if name in ("cache_cold", "cache_warm"):
        context.update(enable_compile_cache=True, compile_cache_path=cache_dir)
    return run(module, seed, ms.GRAPH_MODE, context, path.env, keep)


def pynative(module: Any, seed: int, keep: list) -> Run:
    return run(module, seed, ms.PYNATIVE_MODE, {}, {}, keep)


# -- comparing ---------------------------------------------------------------------------

RTOL, ATOL = 1e-5, 1e-6
NUMBER = re.compile(r"-?\d+\.?\d*(?:e[-+]?\d+)?")
SPACES = re.compile(r"\s+")


def same_array(a: np.ndarray, b: np.ndarray) -> str | None:
    """None when equal (floats to RTOL/ATOL, ints and bools exactly), else why not."""
    if a.dtype != b.dtype or a.shape != b.shape:
        return f"{a.dtype}{list(a.shape)} vs {b.dtype}{list(b.shape)}"
    if a.dtype.kind == "f":
        if np.allclose(a, b, rtol=RTOL, atol=ATOL, equal_nan=True):
            return None
        diff = np.abs(a.astype(np.float64) - b.astype(np.float64))
        return f"max |diff| {np.nanmax(diff):.3g}: {a.ravel()[:6]} vs {b.ravel()[:6]}"
    if np.array_equal(a, b):
        return None
    return f"{a.ravel()[:6]} vs {b.ravel()[:6]}"


def same_print(a: str, b: str) -> bool:
    """Printed text: the same words, numbers to 1e-4 (numpy aligns a tensor's
    columns and picks fixed or scientific notation from its values, so spacing and
    notation may differ where the values barely do)."""
    skeleton = lambda text: SPACES.sub("", NUMBER.sub("#", text))  # noqa: E731
    if skeleton(a) != skeleton(b):
        return False
    x = np.array([float(n) for n in NUMBER.findall(a)])
    y = np.array([float(n) for n in NUMBER.findall(b)])
    return bool(np.allclose(x, y, rtol=1e-4, atol=1e-4))


def differences(got: Run, want: Run) -> list[str]:
    """What differs between two runs, call by call (empty: they agree)."""
    found: list[str] = []
    if len(got.calls) != len(want.calls):
        return [f"{len(got.calls)} calls vs {len(want.calls)}"]
    for i, (g, w) in enumerate(zip(got.calls, want.calls), 1):
        if len(g.outputs) != len(w.outputs):
            found.append(f"call {i}: {len(g.outputs)} outputs vs {len(w.outputs)}")
        for j, (a, b) in enumerate(zip(g.outputs, w.outputs)):
            if (why := same_array(a, b)) is not None:
                found.append(f"call {i}: output {j}: {why}")
        if g.params.keys() != w.params.keys():
            found.append(f"call {i}: Parameters {sorted(g.params)} vs {sorted(w.params)}")
        for key in g.params.keys() & w.params.keys():
            if (why := same_array(g.params[key], w.params[key])) is not None:
                found.append(f"call {i}: Parameter {key}: {why}")
        if not same_print(g.printed, w.printed):
            found.append(f"call {i}: printed {g.printed[:200]!r} vs {w.printed[:200]!r}")
    return found
