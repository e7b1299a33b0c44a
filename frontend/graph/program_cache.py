"""The compile cache (`set_context(enable_compile_cache=True)` or
`MS_COMPILER_CACHE_ENABLE=1`): reuse a previous process's compilation.

The key digests everything that can change the compiled program: the versions
of mindjit (and a stamp of its source files), xDSL, numpy and Python; the
context and pass options; the input signature; and every value and function the
graph may reach (`dependencies.py`). An entry holds the lowered module in binary
form (`backend/cache/module_codec.py`), for the CPU the executor's plans as data
(`backend/cache/plan_codec.py`), and what the Python side needs to run it: the
entry function's name, how results are rebuilt, and which Parameter each global
is. A hit rebuilds the captured plans and plans the other functions from the
module ("the backend actions"); frontend, passes and lowering are skipped, and
the module is decoded only when something needs it.

As MindSpore does, a miss prints "Warning: Check the consistency of dependency
files hash failed. Execute all the compilation actions." and a hit "Use the
compilation cache and execute the backend actions only." on stderr. An unusable
entry (damaged, foreign, from another format) is reported and compiled again.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import io
import os
import sys
import time
import warnings
from collections.abc import Callable
from typing import Any

from mindjit.backend.cache.store import CacheEntryError, CompileCache
from mindjit.frontend.graph.dependencies import Dependencies, Uncacheable
from mindjit.frontend.graph.program import CompiledProgram
from mindjit.frontend.graph.source import unwrap
from mindjit.frontend.graph.structure import Leaf, Piece, flatten
from mindjit.support import config
from mindjit.support.errors import MindjitError

MISS = (
    "Warning: Check the consistency of dependency files hash failed. "
    "Execute all the compilation actions."
)
HIT = "Use the compilation cache and execute the backend actions only."
ENTRY_FORMAT = "mindjit-compiled-program-2"


def compile_with_cache(
    fn: Any, self_obj: Any, args: tuple, kwargs: dict, name: str, options: config.CompileOptions
) -> CompiledProgram:
    """The program for this call: from the cache when an entry matches, else
    compiled (and stored)."""

    def compile_now() -> CompiledProgram:
        return CompiledProgram(fn, self_obj, args, kwargs, name, options)

    if config.save_graphs_enabled():  # the user wants every stage's IR: only a compile makes it
        return compile_now()
    start = time.perf_counter()
    try:
        key, deps = cache_key(fn, self_obj, args, kwargs, options)
    except Uncacheable as why:
        _say(f"Warning: not using the compilation cache for '{name}': {why}")
        return compile_now()
    cache = CompileCache(config.compile_cache_path(), config.compile_cache_max_bytes())
    try:
        found = cache.load(key)
    except CacheEntryError as err:
        _say(
            f"Warning: the compilation cache entry {cache.path_of(key)} is unusable "
            f"({err.message}); compiling again."
        )
        found = None
    if found is not None:
        try:
            program = restore(
                found[0], found[1], deps, time.perf_counter() - start, cache.path_of(key)
            )
        except Exception as exc:  # noqa: BLE001 - a damaged entry may fail anywhere
            message = getattr(exc, "message", None) or f"{type(exc).__name__}: {exc}"
            _say(
                f"Warning: the compilation cache entry {cache.path_of(key)} is unusable "
                f"({message}); compiling again."
            )
            cache.discard(key)
        else:
            _say(HIT)
            _replay_warnings(found[0].get("warnings"))
            return program
    _say(MISS)
    caught: list[warnings.WarningMessage] = []
    try:
        with warnings.catch_warnings(record=True) as caught:
            program = compile_now()
    finally:  # shown even when the compile fails
        said = _reissue(caught)
    try:
        manifest, blob = describe(program, deps)
        manifest["warnings"] = said
        cache.store(key, manifest, blob)
    except Uncacheable as why:
        _say(f"Warning: '{name}' is not saved in the compilation cache: {why}")
    except OSError as exc:  # the directory cannot be made
        _say(f"Warning: cannot write the compilation cache in {cache.directory}: {exc.strerror}")
    except MindjitError as err:  # the entry cannot be written
        _say(f"Warning: cannot write the compilation cache: {err}")
    return program


def _say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _warning_kinds() -> dict[str, type[Warning]]:
    """The warning classes a compile may give, by name (an entry names them)."""
    from mindjit.passes.mindir_load_elim import LoadElimWarning

    return {c.__name__: c for c in (LoadElimWarning, RuntimeWarning, UserWarning)}


def _reissue(caught: list[warnings.WarningMessage]) -> list[list[str]]:
    """Show the warnings a compile gave (they were recorded, not shown), and what
    an entry keeps of them: [class name, message]."""
    kinds = _warning_kinds()
    kept = []
    for w in caught:
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno, source=w.source)
        name = w.category.__name__ if w.category.__name__ in kinds else "UserWarning"
        kept.append([name, str(w.message)])
    return kept


def _replay_warnings(said: Any) -> None:
    """A hit gives the warnings its compile gave (e.g. LoadElimWarning)."""
    kinds = _warning_kinds()
    for item in said if isinstance(said, list) else []:
        if isinstance(item, list) and len(item) == 2 and all(isinstance(x, str) for x in item):
            warnings.warn(item[1], kinds.get(item[0], UserWarning), stacklevel=4)


# -- the key ---------------------------------------------------------------------------


def cache_key(
    fn: Any, self_obj: Any, args: tuple, kwargs: dict, options: config.CompileOptions
) -> tuple[str, Dependencies]:
    from mindjit.frontend.graph.compiler import _is_runtime_tensor

    deps = Dependencies()
    deps.add("versions", versions())
    resolved = tuple(sorted(vars(options).items()))  # the options the pipelines are built from
    deps.add("options", (resolved, config.context_fingerprint()))
    template, leaves = flatten((args, tuple(sorted(kwargs.items()))), _is_runtime_tensor)
    deps.add("inputs", [(tuple(x.shape), str(x.dtype)) for x in leaves])
    deps.add("arguments", template)
    deps.add("function", unwrap(fn))
    deps.add("self", self_obj)
    return deps.hexdigest(), deps


@functools.cache
def versions() -> tuple[str, ...]:
    """mindjit, a stamp of its source files (a checkout's edits change it), xDSL,
    numpy and Python."""
    import numpy
    import xdsl

    import mindjit

    stamp = []
    for package in ("support", "ir", "dialects", "passes", "backend", "driver", "frontend"):
        for root in importlib.import_module(f"mindjit.{package}").__path__:
            for dirpath, dirnames, filenames in os.walk(root):
                dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
                for f in sorted(filenames):
                    if f.endswith(".py"):
                        st = os.stat(os.path.join(dirpath, f))
                        stamp.append(f"{dirpath}/{f}:{st.st_size}:{st.st_mtime_ns}")
    return (
        f"mindjit {mindjit.__version__}",
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


# -- entries ----------------------------------------------------------------------------


def describe(program: CompiledProgram, deps: Dependencies) -> tuple[dict[str, Any], bytes]:
    """The manifest and blob of `program`'s cache entry."""
    from mindjit.backend.cache.module_codec import encode

    index = {id(p): i for i, p in enumerate(deps.parameters)}
    parameters = []
    for symbol, param in program.parameters:
        i = index.get(id(param))
        if i is None:
            raise Uncacheable(f"Parameter '{param.name}' is not reachable from the graph's values")
        parameters.append([symbol, i])
    blob = io.BytesIO()
    manifest = {
        "format": ENTRY_FORMAT,
        "entry": program.entry_name,
        "result": _template_to_json(program.result_template),
        "parameters": parameters,
        "frontend_graphs": [list(g) for g in program.frontend_graphs],
        "module": _put_module(encode(program.module), blob),
        "plan": _describe_plan(program, blob),
    }
    return manifest, blob.getvalue()


def _describe_plan(program: CompiledProgram, blob: io.BytesIO) -> dict[str, Any] | None:
    """The CPU plans as data (`plan_codec`), with their kernel templates and the
    module without the captured functions' bodies; None when no plan can be
    captured (a hit then plans the decoded module)."""
    from mindjit.backend.cache.module_codec import append_chunk, encode
    from mindjit.backend.cache.plan_codec import capture, declaring
    from mindjit.backend.cpu import CpuExecutable

    if not isinstance(program.executable, CpuExecutable):
        return None
    captured = capture(program.executable)
    if captured is None:
        return None
    return {
        "data": captured.data,
        "bytes": append_chunk(blob, captured.blob),
        "kernels": _put_module(encode(captured.kernels), blob),
        "declared": _put_module(encode(declaring(program.module, captured.names)), blob),
    }


def _put_module(encoded: Any, blob: io.BytesIO) -> dict[str, Any]:
    from mindjit.backend.cache.module_codec import append_chunk

    return {
        "attributes": encoded.attrs,
        "forward": encoded.forward,
        "names": encoded.names,
        "ops": append_chunk(blob, encoded.ops),
        "dense": append_chunk(blob, encoded.blob),
    }


def _get_module(d: Any, blob: bytes) -> Any:
    from mindjit.backend.cache.module_codec import Encoded, decode, read_chunk
    from mindjit.dialects.context import make_context

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


def restore(
    manifest: dict[str, Any], blob: bytes, deps: Dependencies, key_seconds: float, where: str
) -> CompiledProgram:
    """The program of a cache entry (raises on anything inconsistent). With a
    captured plan, the module is decoded only if something asks for it."""
    from mindjit.backend.cache.module_codec import ModuleFormatError

    start = time.perf_counter()
    if manifest.get("format") != ENTRY_FORMAT:
        raise ModuleFormatError(f"not a compiled program entry ({manifest.get('format')!r})")
    parameters = []
    for symbol, i in manifest["parameters"]:
        if type(i) is not int or not 0 <= i < len(deps.parameters) or type(symbol) is not str:
            raise ModuleFormatError("a Parameter the entry names is not in this network")
        parameters.append((symbol, deps.parameters[i]))
    entry = manifest["entry"]
    if not isinstance(entry, str):
        raise ModuleFormatError("bad entry name")
    graphs = [(str(n), k if k is None else str(k)) for n, k in manifest["frontend_graphs"]]

    def load_module() -> Any:
        module = _get_module(manifest["module"], blob)
        _rebind_parameter_values(module, parameters)
        return module

    plan = manifest["plan"]
    fast = plan is not None and config.device_target() != "Ascend"
    program = CompiledProgram.restored(
        load_module if fast else _loaded(load_module()),
        entry,
        _template_from_json(manifest["result"]),
        parameters,
        graphs,
        key_seconds + time.perf_counter() - start,
        (lambda load: _planned_executable(plan, blob, parameters, load)) if fast else None,
        where,
    )
    return program


def _loaded(module: Any) -> Any:
    return lambda: module


def _planned_executable(
    plan: dict[str, Any],
    blob: bytes,
    parameters: list[tuple[str, Any]],
    load_module: Callable[[], Any],
) -> Any:
    """The CPU executable of captured plans: the module's top level with the
    captured functions declared, their plans rebuilt from data."""
    from mindjit.backend.cache.module_codec import read_chunk
    from mindjit.backend.cache.plan_codec import rebuild
    from mindjit.backend.cpu import CpuExecutable

    declared = _get_module(plan["declared"], blob)
    _rebind_parameter_values(declared, parameters)
    exe = CpuExecutable(declared)
    kernels = _get_module(plan["kernels"], blob)
    rebuild(plan["data"], bytes(read_chunk(blob, plan["bytes"])), kernels, exe, load_module)
    return exe


def _rebind_parameter_values(module: Any, parameters: list[tuple[str, Any]]) -> None:
    """Large Parameters' initial values are handles on the live Parameter objects
    (`ir/resources.py`): point the restored globals at this process's."""
    from xdsl.dialects.builtin import DenseResourceAttr

    from mindjit.frontend.graph.module_builder import parameter_value_attr

    by_symbol = dict(parameters)
    for op in module.body.block.ops:
        if op.name != "ml_program.global":
            continue
        symbol = op.properties["sym_name"].data
        if isinstance(op.properties.get("value"), DenseResourceAttr) and symbol in by_symbol:
            op.properties["value"] = parameter_value_attr(symbol, by_symbol[symbol])


# -- result templates as JSON -----------------------------------------------------------


def _template_to_json(t: Any) -> Any:
    if isinstance(t, Leaf):
        return {"leaf": t.index}
    if isinstance(t, Piece):
        return {"piece": [t.index, t.axis, t.position]}
    if isinstance(t, tuple):
        return {"tuple": [_template_to_json(x) for x in t]}
    if isinstance(t, list):
        return {"list": [_template_to_json(x) for x in t]}
    if t is None or type(t) in (bool, int, str):
        return {"const": t}
    if type(t) is float:
        return {"float": t.hex()}
    raise Uncacheable(f"the graph returns a {type(t).__name__} constant")


def _template_from_json(j: Any) -> Any:
    if not isinstance(j, dict) or len(j) != 1:
        raise ValueError("bad result template")
    ((kind, v),) = j.items()
    if kind == "leaf":
        return Leaf(int(v))
    if kind == "piece":
        return Piece(*(int(x) for x in v))
    if kind == "tuple":
        return tuple(_template_from_json(x) for x in v)
    if kind == "list":
        return [_template_from_json(x) for x in v]
    if kind == "const":
        return v
    if kind == "float":
        return float.fromhex(v)
    raise ValueError(f"bad result template kind {kind!r}")
