"""Named pipelines and the pass-pipeline text both tools accept.

`parse_pipeline("builtin.module(a,b{x=1})")` and `parse_pipeline("a,b{x=1}")` give the
same passes; unknown passes or bad options are located `MindjitError`s that point
into the pipeline text. `func.func(p)` runs a function-local pass (canonicalize,
cse, dce) on each function alone, as in MLIR.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.transforms import get_all_passes
from xdsl.utils.arg_spec import parse_pipeline as parse_specs
from xdsl.utils.arg_spec import parse_spec as _parse_arg_specs  # noqa: F401
from xdsl.utils.exceptions import ArgSpecParseError

from mindjit.dialects.context import make_context
from mindjit.dialects.verify import verify_located
from mindjit.ir.locations import from_xdsl_exception
from mindjit.ir.walk import walk_ops
from mindjit.passes.analysis.graph_walk import top_level_graphs
from mindjit.passes.registry import extended_pass_factories, mindir_pass_factories
from mindjit.support.config import (
    VERIFY_EACH_ENV,
    CompileOptions,
    compile_options,
    pass_option_defaults,
)
from mindjit.support.errors import MindjitError, SourceLoc

PIPELINE_ORIGIN = "<pass-pipeline>"

# canonicalize without MLIR's region simplification (the region liveness sweep): the
# pattern walk erases every trivially dead op, and in the single-block regions mindjit
# builds the sweep finds nothing more, at the walk's cost again (passes/canonicalize.py).
CANONICALIZE = "canonicalize{region-simplify=disabled}"

# The lowering the executors need: mindir -> upstream tensor-level dialects, and
# nothing after it. The mindir pipeline has already run canonicalize and cse, and
# the lowering makes each value it derives once (shared inits and constants per
# block, one transpose, reshape or padding per value: builders.Emitter.shared and
# .derived) and erases what it leaves unused itself (ir/dead_ops.py). canonicalize
# and cse after it cost 0.39 s of the sentiment train step's 3.5 s compile (10 and
# 7 us per op) to remove 4 of its 22,431 ops (constants repeated in one linalg
# body); on the model zoo and the test programs they found nothing else.
LOWER_TO_TENSOR = "convert-mindir-to-tensor"
# The CPU and IREE executors' lowering: pointwise trees fused into one generic each
# (mindir_to_tensor/elementwise.py). The device keeps one kernel per node, as
# MindSpore does on Ascend unless graph kernel fusion is enabled.
FUSED_LOWER_TO_TENSOR = "convert-mindir-to-tensor{fuse-elementwise=true}"


def lower_to_tensor_pipeline(device_target: str) -> str:
    """The lowering for `device_target`'s executor."""
    return LOWER_TO_TENSOR if device_target == "Ascend" else FUSED_LOWER_TO_TENSOR


# The mindir pipeline the frontend runs before lowering, per JitConfig jit_level:
# O0 runs no optional optimization, O1 (the default) the standard cleanups, O2 all.
# The side-effect passes run at every level: they make the program's order explicit
# (auto-monad), keep reads before the next write (depend-order) and decide which
# Loads need a real copy (load-elim, its level from MS_DEV_SIDE_EFFECT_LOAD_ELIM).
# mindir-inline (after auto-monad, as in MindSpore) inlines every sub-graph call
# except graphs lazy inline keeps (MS_DEV_CELL_REUSE); mindir-grad expands each
# `mindir.grad` into its forward and adjoints (with vmap=true, batching the vmaps
# inside grads in between: grad of vmap, in any nesting); mindir-vmap then batches
# the other inlined per-example bodies of `ms.vmap` (nothing lowers a mindir.vmap).
# The optional part: mindir-cf-to-select (small side-effect-free ifs become selects,
# which MindSpore's docs leave to the user) then the cleanups.
SIDE_EFFECTS_FIRST = "mindir-auto-monad,mindir-inline{{cell-reuse={cell_reuse}}},mindir-grad{{vmap=true}},mindir-vmap"
SIDE_EFFECTS_LAST = "mindir-depend-order,mindir-load-elim{{level={load_elim}}}"
JIT_LEVEL_PIPELINES: dict[str, str] = {
    "O0": "",
    "O1": f"func.func({CANONICALIZE},cse)",
    "O2": f"func.func({CANONICALIZE},cse,dce)",
}
#: The levels whose optional part starts with mindir-cf-to-select.
CF_TO_SELECT_LEVELS = ("O1", "O2")

NAMED_PIPELINES: dict[str, str] = {
    "lower-to-tensor": LOWER_TO_TENSOR,
}


CF_TO_SELECT = "mindir-cf-to-select"


def jit_level_pipeline(jit_level: str, options: CompileOptions | None = None) -> str:
    """The pass pipeline text for a JitConfig jit_level (O0, O1, O2), with the
    resolved switches written as explicit pass options (default: those in force,
    `mindjit.support.config.compile_options`)."""
    if jit_level not in JIT_LEVEL_PIPELINES:
        raise MindjitError(f"jit_level must be one of O0, O1, O2, got '{jit_level}'")
    if options is None:
        options = compile_options(jit_level)
    select = CF_TO_SELECT if jit_level in CF_TO_SELECT_LEVELS and options.cf_to_select else ""
    parts = [
        SIDE_EFFECTS_FIRST.format(cell_reuse=options.cell_reuse),
        select,
        JIT_LEVEL_PIPELINES[jit_level],
        pipeline_split(options),
        SIDE_EFFECTS_LAST.format(load_elim=options.load_elim),
    ]
    if options.cell_reuse == 2:
        # MS_DEV_CELL_REUSE=2: reused graphs stay through every mindir pass and are
        # inlined just before the backend's execution order and memory planning.
        # At 1 they stay calls through lowering (refs become tensor arguments plus
        # written-back results, see mindir_to_tensor/refs.py).
        # mindir-depend-order runs again on the inlined graphs: a call's state
        # result stood for its whole body, an inlined body's returned state only
        # for the ops on its chain, so the readers of a Load in one inlined Block
        # would not be ordered before the next call's Assign of that Parameter
        # (a Load aliases the Parameter's memory: they would read the new value).
        parts.append("mindir-inline{cell-reuse=0},mindir-depend-order")
    return ",".join(p for p in parts if p)


def pipeline_split(options: CompileOptions) -> str:
    """`mindir-pipeline-split{stages=X},mindir-pipeline-schedule{schedule=S}` when the
    graph runs as X pipeline stages.

    After the cleanups, so a forward computed twice (a loss, then a gradient that
    does not reuse it) is merged by cse and crosses each stage boundary once.
    On the simulated device each stage graph is a device of its own. The schedule
    (`pipeline_config`'s pipeline_scheduler) orders each stage graph's work, before
    depend-order, whose stable sort keeps that order."""
    if options.pipeline_stages <= 1:
        return ""
    return (
        f"mindir-pipeline-split{{stages={options.pipeline_stages}}},"
        f"mindir-pipeline-schedule{{schedule={options.pipeline_schedule}}}"
    )


@functools.cache
def available_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Every upstream xDSL pass plus the mindir passes, by name: the default
    vocabulary of `parse_pipeline` (the device's passes join it in the driver)."""

    return {**get_all_passes(), **extended_pass_factories(), **mindir_pass_factories()}


#: Passes that work on any op's regions, so `func.func(p)` runs them on each
#: function alone, as MLIR's op-anchored nesting does. Other passes see the whole
#: module wherever they are written (mindjit's passes are module passes).
FUNCTION_LOCAL_PASSES = frozenset({"canonicalize", "cse", "dce"})


@dataclass(frozen=True)
class OnEachFunction(ModulePass):
    """`func.func(p)`: `p` applied to each function with a body, one at a time.

    Besides MLIR's meaning, it keeps a function-local pass off the module's
    declarations: a model's thousands of Parameters (globals after lowering) are
    not walked by every canonicalize and cse.
    """

    inner: ModulePass

    @property
    def name(self) -> str:  # type: ignore[override]
        return self.inner.name

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for fn in [f for f in top_level_graphs(op) if isinstance(f, func.FuncOp) and f.body.blocks]:
            self.inner.apply(ctx, fn)  # type: ignore[arg-type]  # works on any op's regions


def flatten_spec(spec: str) -> tuple[str, list[int], list[bool]]:
    """Turn MLIR's `builtin.module(a, func.func(b))` into xdsl-opt's `a,b`.

    Whitespace outside option braces is dropped. Returns the flat text and, for
    each of its characters, the 1-based column it had in `spec` (for error
    messages) and whether it was inside a `func.func(...)` anchor.
    """
    anchor = re.compile(r"(builtin\.module|func\.func|any)\s*\(")
    chars: list[tuple[str, int, bool]] = []
    closers: list[str | None] = []  # per open paren: its anchor's name, or None
    i, in_braces = 0, 0
    while i < len(spec):
        ch = spec[i]
        if not in_braces and (m := anchor.match(spec, i)) and (i == 0 or spec[i - 1] in " ,("):
            closers.append(m.group(1))
            i = m.end()
            continue
        if ch == "{":
            in_braces += 1
        elif ch == "}":
            in_braces = max(0, in_braces - 1)
        elif ch == "(" and not in_braces:
            closers.append(None)
        elif ch == ")" and not in_braces:
            if not closers:
                raise MindjitError(
                    "unbalanced ')' in pass pipeline", SourceLoc(PIPELINE_ORIGIN, 1, i + 1)
                )
            if closers.pop() is not None:
                i += 1
                continue
        if ch.isspace() and not in_braces:
            i += 1
            continue
        chars.append((ch, i + 1, "func.func" in closers))
        i += 1
    if closers:
        raise MindjitError(
            "unbalanced '(' in pass pipeline", SourceLoc(PIPELINE_ORIGIN, 1, len(spec))
        )
    return (
        "".join(c for c, _, _ in chars),
        [col for _, col, _ in chars],
        [nested for _, _, nested in chars],
    )


#: parse_pipeline's results per (spec, pass table): passes are frozen dataclasses,
#: so every compile can share them (xDSL's option parsing costs ~0.2 ms per pass,
#: paid by each compile otherwise). The entry keeps its table alive, so the table's
#: id cannot be reused by another while the entry exists.
_PARSED: dict[tuple[str, int, str], tuple[dict, tuple[ModulePass, ...]]] = {}


def parse_pipeline(
    spec: str,
    passes_by_name: dict | None = None,
    option_defaults: dict[str, dict[str, int]] | None = None,
) -> list[ModulePass]:
    """Build the passes named in `spec` (xdsl-opt or MLIR `--pass-pipeline` syntax)
    from `passes_by_name` (default: `available_passes()`). An option `spec` leaves
    out takes its value from `option_defaults` (default: the switches in force,
    `mindjit.support.config.pass_option_defaults`), else the pass's own default."""
    table = available_passes() if passes_by_name is None else passes_by_name
    defaults = pass_option_defaults() if option_defaults is None else option_defaults
    key = (spec, id(table), repr(sorted(defaults.items())))
    entry = _PARSED.get(key)
    if entry is None or entry[0] is not table:
        entry = _PARSED[key] = (table, tuple(_parse_pipeline(spec, table, defaults)))
    return list(entry[1])


def _parse_pipeline(
    spec: str, passes_by_name: dict, defaults: dict[str, dict[str, int]]
) -> list[ModulePass]:

    flat, cols, in_func = flatten_spec(spec)
    if not flat:
        return []

    def loc_at(index: int) -> SourceLoc:
        return SourceLoc(PIPELINE_ORIGIN, 1, cols[min(max(index, 0), len(cols) - 1)])

    try:
        specs = list(parse_specs(flat))
    except ArgSpecParseError as exc:
        text = str(exc)
        m = re.search(r":\d+:(\d+)", text)
        where = loc_at(int(m.group(1)) - 1) if m else loc_at(0)
        raise MindjitError(
            f"invalid pass pipeline: {text.splitlines()[-1].strip()}", where
        ) from None
    result: list[ModulePass] = []
    cursor = 0
    for item in specs:
        index = flat.find(item.name, cursor)
        cursor = max(index, cursor) + len(item.name)
        loc = loc_at(index)
        if item.name in NAMED_PIPELINES:
            result.extend(_parse_pipeline(NAMED_PIPELINES[item.name], passes_by_name, defaults))
            continue
        if item.name not in passes_by_name:
            raise MindjitError(f"unknown pass '{item.name}'", loc)
        pass_cls = passes_by_name[item.name]()
        _fill_defaults(item, defaults.get(item.name, {}))
        try:
            built = pass_cls.from_pass_spec(item)
        except Exception as exc:  # xDSL reports bad options as ValueError/TypeError
            why = exc.message if isinstance(exc, MindjitError) else exc
            raise MindjitError(f"bad options for pass '{item.name}': {why}", loc) from None
        if in_func[index] and item.name in FUNCTION_LOCAL_PASSES:
            built = OnEachFunction(built)
        result.append(built)
    return result


def _fill_defaults(item: Any, defaults: dict[str, int]) -> None:
    """Add to a parsed pass spec the options it leaves out (either spelling)."""
    for option, value in defaults.items():
        spellings = {option, option.replace("-", "_"), option.replace("_", "-")}
        if not spellings & set(item.parameters):
            item.parameters[option] = [value]


def run_passes(
    passes: list[ModulePass],
    module: ModuleOp,
    ctx: Context | None = None,
    verify_each: bool = True,
) -> None:
    """Apply passes in order; a failure is reported as a located MindjitError.

    `verify_each` verifies the module after every pass (mlir-opt's default,
    and ms-opt's); the frontend turns it off and verifies at stage boundaries
    instead (MLIR's `PassManager::enableVerifier(false)`), because on a large
    model verifying every op after every pass costs more than the passes.
    """

    ctx = ctx or make_context()
    for p in passes:
        try:
            p.apply(ctx, module)
        except (MindjitError, RecursionError):  # too deep: the caller locates it (deep_stack)
            raise
        except Exception as exc:
            err = from_xdsl_exception(exc)
            raise MindjitError(f"pass '{p.name}' failed: {err.message}", err.loc) from None
        if verify_each:
            try:
                verify_located(module)
            except MindjitError as err:
                raise MindjitError(f"after pass '{p.name}': {err.message}", err.loc) from None


def verify_stage(module: ModuleOp, pipeline: str) -> None:
    """Verify once after a stage's passes (run without `verify_each`); the error says
    how to find the pass at fault."""
    try:
        verify_located(module)
    except MindjitError as err:
        raise MindjitError(
            f"{err.message} (after the pipeline '{pipeline}'; set {VERIFY_EACH_ENV}=1 "
            "to verify after every pass)",
            err.loc,
        ) from None


def contains_mindir(module: ModuleOp) -> bool:
    return any(op.name.startswith("mindir.") for op in walk_ops(module))


def compile_to_tensor(
    module: ModuleOp, ctx: Context | None = None, jit_level: str = "O1"
) -> ModuleOp:
    """The frontend's whole pipeline for a mindir module: the jit_level passes (the
    side-effect passes included) then the lowering. What ms-run runs on mindir."""
    if contains_mindir(module):
        run_passes(parse_pipeline(jit_level_pipeline(jit_level)), module, ctx)
        run_passes(parse_pipeline(LOWER_TO_TENSOR), module, ctx)
    return module


def lower_to_tensor(module: ModuleOp, ctx: Context | None = None) -> ModuleOp:
    """Lower a mindir module in place to upstream tensor-level dialects (the executors' input)."""
    if contains_mindir(module):
        run_passes(parse_pipeline(LOWER_TO_TENSOR), module, ctx)
    return module
