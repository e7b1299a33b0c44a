"""Entry points the public API calls to compile and run in graph mode.

Compiled programs are cached in-process per callable, bound object and input
signature (tensor shapes/dtypes, constant values) and compile options (jit_level and
the switches of `mindjit.support.config`), as MindSpore
caches its compiled graphs per phase.

Compiles are single-flight: one process-wide lock is held while a program is
looked up and, on a miss, compiled, so threads making the first calls of one
Cell at once compile it once and all run that one program (two programs of one
Cell would each lock only themselves, and their Parameter updates could be
lost). Compiling holds the GIL almost throughout, so serialising compiles of
different keys costs nothing measurable; it also keeps the frontend's and the
driver's caches (lazy-inline graphs, the compile cache's entries) free of
interleaved writers. The lock is re-entrant: tracing may compile a nested
program. Calls of compiled programs do not take it.
"""

from __future__ import annotations

import threading
import weakref
from typing import Any, NamedTuple

from mindjit.driver.compile import load_compiler as driver_load_compiler
from mindjit.frontend import mixed_precision
from mindjit.frontend.cell_base import training_token
from mindjit.frontend.graph import too_deep
from mindjit.frontend.graph.program import CompiledProgram
from mindjit.frontend.graph.program_cache import compile_with_cache
from mindjit.frontend.graph.slice_bounds import DynamicSliceBound
from mindjit.frontend.graph.source import unwrap
from mindjit.frontend.mutable import graph_inputs
from mindjit.frontend.structure import as_constants, signature_of
from mindjit.support import config
from mindjit.support.gc_pause import no_full_collections


class _Cached(NamedTuple):
    """A program and references to the objects its key names by id."""

    owner: Any  # () -> the Cell (or None)
    closure: Any  # () -> the closure or jit wrapper (or None)
    program: CompiledProgram
    held: list[Any]  # () -> each argument keyed by id


_PROGRAMS: dict[Any, _Cached] = {}
_COMPILING = threading.RLock()  #: held while a program is looked up and compiled


def load_compiler() -> None:
    """Load the driver's compiler, so a process's first compile reports compile work
    in its stages, not module loading (the frontend's graph compiler is imported
    by this module). `import mindjit` calls this."""
    driver_load_compiler()


def should_compile_cell(cell: Any) -> bool:
    """A Cell runs as a graph in GRAPH_MODE, or when its construct is @jit."""
    return config.get_context("mode") == config.GRAPH_MODE or bool(
        getattr(type(cell).construct, "__ms_jit__", False)
    )


def jit_options_of(jit_config: Any = None, cell: Any = None) -> tuple[str | None, str | None]:
    """The jit_level and backend given at the call: its JitConfig's, else the Cell's
    (None: the context's decides, `config.compile_options`)."""
    found: dict[str, str | None] = {"jit_level": None, "backend": None}
    for given in (jit_config, getattr(cell, "_jit_config", None)):
        for key in found:
            found[key] = found[key] or _option(given, key)
    return found["jit_level"], found["backend"]


def _option(given: Any, key: str) -> str | None:
    if given is None:
        return None
    if isinstance(given, dict):
        return given.get(key) or None
    found = getattr(given, "jit_config_dict", None)
    if isinstance(found, dict):
        return found.get(key) or None
    return getattr(given, key, None) or None


def program_for(
    fn: Any,
    self_obj: Any,
    args: tuple,
    kwargs: dict,
    name: str,
    jit_options: tuple[str | None, str | None],
    owner: Any = None,
) -> CompiledProgram:

    user_fn = unwrap(fn)
    # A graph depends on the values its function reads when it is compiled: one
    # program per `ms.jit` wrapper (`owner`), as MindSpore compiles once per jit
    # object (a new `ms.jit(f)` reads f's globals again, the same wrapper does not);
    # a closure's program is its function object's (a train step made per network).
    closure = owner or (user_fn if getattr(user_fn, "__closure__", None) else None)
    options = config.compile_options(*jit_options)  # what outside the call changes the program
    held: list[Any] = []  # the arguments the key names by id: each must still be that object
    key = (
        *_code_key(user_fn),
        id(self_obj),
        id(closure),
        signature_of((args, tuple(sorted(kwargs.items()))), held),
        options,
        training_token(),  # `self.training` is folded: set_train picks another program
        mixed_precision.key(),  # to_float casts are traced in: a new precision, a new program
    )
    program = _cached(key, self_obj, closure, held)
    if program is not None:
        return program
    with _COMPILING:
        program = _cached(key, self_obj, closure, held)  # another thread may have compiled it
        if program is not None:
            return program
        with no_full_collections(), too_deep.guarded(user_fn, "compile"):
            if config.compile_cache_enabled():
                program = compile_with_cache(user_fn, self_obj, args, kwargs, name, options)
            else:
                program = CompiledProgram(user_fn, self_obj, args, kwargs, name, options)
        _PROGRAMS[key] = _Cached(_ref(self_obj), _ref(closure), program, [_ref(x) for x in held])
        return program


def _code_key(user_fn: Any) -> tuple:
    """What identifies the function's program: its code, and where that code runs.
    Code objects compare by value but not by file, so two equal functions on the
    same line of two modules (`def hf(x): return f(x)`, each module with its own
    `f`) were one key and shared the first one's program; their globals differ."""
    code = getattr(user_fn, "__code__", None)
    if code is None:
        return (user_fn,)
    return (code, code.co_filename, id(getattr(user_fn, "__globals__", None)))


def _cached(key: Any, self_obj: Any, closure: Any, held: list[Any]) -> CompiledProgram | None:
    entry = _PROGRAMS.get(key)
    # ids are reused once an object dies: the program must belong to these very objects
    if entry is None or entry.owner() is not self_obj or entry.closure() is not closure:
        return None
    if any(ref() is not x for ref, x in zip(entry.held, held)):
        return None
    return entry.program


def _ref(obj: Any) -> Any:
    if obj is None:
        return lambda: None
    try:
        return weakref.ref(obj)
    except TypeError:  # objects without weakref support stay alive while cached
        return lambda: obj


def run_function(
    fn: Any, args: tuple, kwargs: dict, jit_config: Any = None, owner: Any = None
) -> Any:
    """Run `fn` as a graph; `owner` (the `ms.jit` wrapper) owns its programs."""
    name = getattr(unwrap(fn), "__name__", "graph")
    args, kwargs = graph_inputs((args, kwargs))  # ms.mutable values: run-time inputs
    options = jit_options_of(jit_config)
    program, args, kwargs = _bounded(
        fn, args, kwargs, lambda a, k: program_for(fn, None, a, k, name, options, owner)
    )
    return program(args, kwargs)


#: The functions (by `_code_key`) whose 0-d integer Tensor inputs are constants of
#: their programs, because one of them bounds a slice (graph/slice_bounds.py).
_SPECIALIZED: set[Any] = set()


def _bounded(fn: Any, args: tuple, kwargs: dict, make: Any) -> tuple[CompiledProgram, tuple, dict]:
    """`make(args, kwargs)` and the inputs to call it with. A slice bound that is an
    input (`x[start:start + 2]`) is only known at run time: the function's 0-d
    integer Tensor inputs become constants (structure.ConstantTensor), from then on,
    and the program is made again: one per value of those inputs."""
    key = _code_key(unwrap(fn))
    if key in _SPECIALIZED:
        args, kwargs = as_constants((args, kwargs))
        return make(args, kwargs), args, kwargs
    try:
        return make(args, kwargs), args, kwargs
    except DynamicSliceBound:
        constant_args, constant_kwargs = as_constants((args, kwargs))
        if constant_args is args and constant_kwargs is kwargs:
            raise  # no input to specialize on: the bound comes from the data
        _SPECIALIZED.add(key)
        return make(constant_args, constant_kwargs), constant_args, constant_kwargs


def _cell_program(cell: Any, args: tuple, kwargs: dict) -> CompiledProgram:
    construct = type(cell).construct
    jit_config = getattr(unwrap(construct), "__ms_jit_config__", None) or getattr(
        construct, "__ms_jit_config__", None
    )
    name = f"{type(cell).__name__}_construct"
    return program_for(construct, cell, args, kwargs, name, jit_options_of(jit_config, cell))


def run_cell(cell: Any, args: tuple, kwargs: dict) -> Any:
    args, kwargs = graph_inputs((args, kwargs))  # ms.mutable values: run-time inputs
    program, args, kwargs = _bounded(
        type(cell).construct, args, kwargs, lambda a, k: _cell_program(cell, a, k)
    )
    return program(args, kwargs)


def compile_cell(cell: Any, args: tuple) -> CompiledProgram:
    return _cell_program(cell, graph_inputs(tuple(args)), {})


def cached_programs() -> list[CompiledProgram]:
    """The programs compiled so far in this process (for reports and tests)."""
    return [entry.program for entry in _PROGRAMS.values()]


def clear_cache() -> None:
    """Forget every compiled program (tests use it to measure compilation)."""
    _PROGRAMS.clear()
