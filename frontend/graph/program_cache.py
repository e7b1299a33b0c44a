"""The compile cache (`set_context(enable_compile_cache=True)` or
`MS_COMPILER_CACHE_ENABLE=1`), the frontend's side: the key, and what an entry
keeps of the Python program.

The key digests everything that can change the compiled program: the versions
of mindjit (and a stamp of its compiler's source files), xDSL, numpy and
Python; the resolved compile options and the context; the input signature;
and every value and function the graph may reach (`dependencies.py`). The
entry (driver/cache.py) holds the compiled module and plans; this module adds
the entry function's name, how results are rebuilt, which Parameter each
global is, and the graphs the frontend made.
"""

from __future__ import annotations

import time
from typing import Any

from xdsl.dialects.builtin import DenseResourceAttr, ModuleOp

from mindjit.driver.cache import (
    HIT,
    MISS,
    ModuleFormatError,
    ProgramCache,
    recording_warnings,
    replay_warnings,
    restore_compiled,
    say,
    versions,
)
from mindjit.frontend.graph.compiler import _is_runtime_tensor
from mindjit.frontend.graph.dependencies import Dependencies, Uncacheable
from mindjit.frontend.graph.module_builder import parameter_value_attr
from mindjit.frontend.graph.program import CompiledProgram
from mindjit.frontend.graph.source import unwrap
from mindjit.frontend.ops.random import generator_parameters
from mindjit.frontend.structure import Leaf, Piece, flatten
from mindjit.support import config


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
        say(f"Warning: not using the compilation cache for '{name}': {why}")
        return compile_now()
    cache = ProgramCache()
    found = cache.load(key)
    if found is not None:
        try:
            program = restore(
                found[0], found[1], deps, options, time.perf_counter() - start, cache.where(key)
            )
        except Exception as exc:  # noqa: BLE001 - a damaged entry may fail anywhere
            cache.unusable(key, getattr(exc, "message", None) or f"{type(exc).__name__}: {exc}")
        else:
            say(HIT)
            replay_warnings(found[0].get("warnings"))
            return program
    say(MISS)
    with recording_warnings() as said:
        program = compile_now()
    try:
        manifest = describe(program, deps)
    except Uncacheable as why:
        say(f"Warning: '{name}' is not saved in the compilation cache: {why}")
    else:
        cache.save(key, manifest, program.compiled, said)
    return program


# -- the key ---------------------------------------------------------------------------


def cache_key(
    fn: Any, self_obj: Any, args: tuple, kwargs: dict, options: config.CompileOptions
) -> tuple[str, Dependencies]:

    deps = Dependencies()
    deps.add("versions", versions())
    resolved = tuple(sorted(vars(options).items()))  # the options the pipelines are built from
    deps.add("options", (resolved, config.context_fingerprint()))
    template, leaves = flatten((args, tuple(sorted(kwargs.items()))), _is_runtime_tensor)
    deps.add("inputs", [(tuple(x.shape), str(x.dtype)) for x in leaves])
    deps.add("arguments", template)
    deps.add("function", unwrap(fn))
    deps.add("self", self_obj)
    # reachable from every graph through library code (ops.dropout): listed so that a
    # cache hit binds this process's generator state
    deps.add("random_state", generator_parameters())
    return deps.hexdigest(), deps


# -- entries ----------------------------------------------------------------------------


def describe(program: CompiledProgram, deps: Dependencies) -> dict[str, Any]:
    """What the entry of `program` keeps of the Python side."""
    index = {id(p): i for i, p in enumerate(deps.parameters)}
    parameters = []
    for symbol, param in program.parameters:
        i = index.get(id(param))
        if i is None:
            raise Uncacheable(f"Parameter '{param.name}' is not reachable from the graph's values")
        parameters.append([symbol, i])
    return {
        "entry": program.entry_name,
        "result": _template_to_json(program.result_template),
        "parameters": parameters,
        "frontend_graphs": [list(g) for g in program.frontend_graphs],
    }


def restore(
    manifest: dict[str, Any],
    blob: bytes,
    deps: Dependencies,
    options: config.CompileOptions,
    key_seconds: float,
    where: str,
) -> CompiledProgram:
    """The program of a cache entry (raises on anything inconsistent)."""
    parameters = []
    for symbol, i in manifest["parameters"]:
        if type(i) is not int or not 0 <= i < len(deps.parameters) or type(symbol) is not str:
            raise ModuleFormatError("a Parameter the entry names is not in this network")
        parameters.append((symbol, deps.parameters[i]))
    graphs = [(str(n), k if k is None else str(k)) for n, k in manifest["frontend_graphs"]]
    template = _template_from_json(manifest["result"])
    compiled = restore_compiled(
        manifest,
        blob,
        lambda module: _rebind_parameter_values(module, parameters),
        options,
        key_seconds,
        where,
    )
    return CompiledProgram.restored(compiled, template, parameters, graphs, options)


def _rebind_parameter_values(module: ModuleOp, parameters: list[tuple[str, Any]]) -> None:
    """Large Parameters' initial values are handles on the live Parameter objects
    (`ir/resources.py`): point the restored globals at this process's."""

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
    if type(t) is dict:
        return {"dict": [[_template_to_json(k), _template_to_json(x)] for k, x in t.items()]}
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
    if kind == "dict":
        return {_template_from_json(k): _template_from_json(x) for k, x in v}
    if kind == "const":
        return v
    if kind == "float":
        return float.fromhex(v)
    raise ValueError(f"bad result template kind {kind!r}")
