"""Named pipelines and the pass-pipeline text both tools accept.

`parse_pipeline("builtin.module(a,b{x=1})")` and `parse_pipeline("a,b{x=1}")` give the
same passes; unknown passes or bad options are located `MindjitError`s that point
into the pipeline text.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.utils.arg_spec import parse_spec as _parse_arg_specs  # noqa: F401
from xdsl.utils.exceptions import ArgSpecParseError

from mindjit.dialects.diagnostics import MindjitError, SourceLoc

PIPELINE_ORIGIN = "<pass-pipeline>"

# The lowering the executors need: mindir -> upstream tensor-level dialects.
LOWER_TO_TENSOR = "convert-mindir-to-tensor,canonicalize,cse"

NAMED_PIPELINES: dict[str, str] = {
    "lower-to-tensor": LOWER_TO_TENSOR,
}


def available_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Every upstream xDSL pass plus mindjit's, by name."""
    from xdsl.transforms import get_all_passes

    from mindjit.passes.registry import mindjit_pass_factories

    passes = dict(get_all_passes())
    passes.update(mindjit_pass_factories())
    return passes


_ANCHOR = re.compile(r"^\s*(builtin\.module|func\.func|any)\s*\(")


def strip_anchors(spec: str) -> str:
    """Turn MLIR's `builtin.module(a,func.func(b))` into `a,b`.

    xDSL passes are module passes, so an op anchor only scopes them in MLIR;
    here every anchor is opened and the passes run on the whole module. Spaces
    keep the column of every pass name unchanged for error messages.
    """
    out = list(spec)
    i = 0
    while True:
        m = re.search(r"(builtin\.module|func\.func|any)\s*\(", "".join(out)[i:])
        if not m:
            break
        start, end = i + m.start(), i + m.end()
        depth, j = 1, end
        text = "".join(out)
        while j < len(text) and depth:
            depth += {"(": 1, ")": -1}.get(text[j], 0)
            if text[j] == "{":  # skip option dicts
                j = text.index("}", j) if "}" in text[j:] else len(text) - 1
            j += 1
        if depth:
            raise MindjitError("unbalanced parentheses in pass pipeline", SourceLoc(PIPELINE_ORIGIN, 1, start + 1))
        for k in range(start, end):
            out[k] = " "
        out[j - 1] = " "
        i = start
    return "".join(out)


def parse_pipeline(spec: str, ctx_passes: dict | None = None) -> list[ModulePass]:
    """Build the passes named in `spec` (xdsl-opt or MLIR `--pass-pipeline` syntax)."""
    from xdsl.utils.arg_spec import parse_pipeline as parse_specs

    passes_by_name = ctx_passes or available_passes()
    flat = strip_anchors(spec)
    if not flat.strip():
        return []
    leading = len(flat) - len(flat.lstrip())
    try:
        specs = list(parse_specs(flat.strip()))
    except ArgSpecParseError as exc:
        raise MindjitError(f"invalid pass pipeline: {str(exc).splitlines()[-1].strip()}", SourceLoc(PIPELINE_ORIGIN, 1, 1)) from None
    result: list[ModulePass] = []
    cursor = leading
    for item in specs:
        col = flat.find(item.name, cursor)
        cursor = max(col, cursor) + len(item.name)
        loc = SourceLoc(PIPELINE_ORIGIN, 1, col + 1)
        if item.name in NAMED_PIPELINES:
            result.extend(parse_pipeline(NAMED_PIPELINES[item.name], passes_by_name))
            continue
        if item.name not in passes_by_name:
            raise MindjitError(f"unknown pass '{item.name}'", loc)
        pass_cls = passes_by_name[item.name]()
        try:
            result.append(pass_cls.from_pass_spec(item))
        except Exception as exc:  # xDSL reports bad options as ValueError/TypeError
            raise MindjitError(f"bad options for pass '{item.name}': {exc}", loc) from None
    return result


def run_passes(passes: list[ModulePass], module: ModuleOp, ctx: Context | None = None) -> None:
    """Apply passes in order; a failure is reported as a located MindjitError."""
    from mindjit.dialects.diagnostics import from_xdsl_exception, verify_located
    from mindjit.dialects.parsing import make_context

    ctx = ctx or make_context()
    for p in passes:
        try:
            p.apply(ctx, module)
        except MindjitError:
            raise
        except Exception as exc:
            err = from_xdsl_exception(exc)
            raise MindjitError(f"pass '{p.name}' failed: {err.message}", err.loc) from None
        verify_located(module)


def contains_mindir(module: ModuleOp) -> bool:
    return any(op.name.startswith("mindir.") for op in module.walk())


def lower_to_tensor(module: ModuleOp, ctx: Context | None = None) -> ModuleOp:
    """Lower a mindir module in place to upstream tensor-level dialects (the executors' input)."""
    if contains_mindir(module):
        run_passes(parse_pipeline(LOWER_TO_TENSOR), module, ctx)
    return module
