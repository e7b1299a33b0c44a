"""The dialects mindjit's tools and compiler know, and the xDSL context holding them.

`make_context()` registers every upstream xDSL dialect (with `ml_program` and
`linalg` completed, see ml_program_ext and linalg_ext) and mindjit's own (`mindir`, `ascend`), after
installing the compat patches xDSL 0.74 needs (`mindjit.ir.compat`). The
`xdsl.universe` entry point (`mindjit.tools.universe`) publishes the same
dialects to other xDSL tools.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.context import Context
from xdsl.dialects import get_all_dialects
from xdsl.ir import Dialect

from mindjit.dialects.ascend import Ascend
from mindjit.dialects.linalg_ext import Linalg
from mindjit.dialects.mindir import MindIR
from mindjit.dialects.ml_program_ext import MLProgram
from mindjit.ir import compat


def _mindir() -> Dialect:

    return MindIR


def _ascend() -> Dialect:

    return Ascend


def _ml_program() -> Dialect:

    return MLProgram


def _linalg() -> Dialect:

    return Linalg


def mindjit_dialects() -> dict[str, Callable[[], Dialect]]:
    return {"mindir": _mindir, "ascend": _ascend}


def mindjit_dialect_overrides() -> dict[str, Callable[[], Dialect]]:
    """Upstream dialects mindjit completes, registered in place of xDSL's own.

    Not part of the `xdsl.universe` entry point: the multiverse rejects a second
    definition of a dialect name, so mindjit's contexts (`make_context`, ms-opt)
    swap them in themselves.
    """
    return {"ml_program": _ml_program, "linalg": _linalg}


def register_dialects(ctx: Context, upstream: dict[str, Callable[[], Dialect]]) -> None:
    """Register `upstream` (completed where mindjit completes it) and mindjit's own."""
    overrides = mindjit_dialect_overrides()
    for name, factory in upstream.items():
        ctx.register_dialect(name, overrides.get(name, factory))
    for name, factory in mindjit_dialects().items():
        if name not in ctx.registered_dialect_names:
            ctx.register_dialect(name, factory)


def make_context() -> Context:
    """A context with every upstream xDSL dialect and mindjit's dialects registered
    (and xDSL's compat patches installed: `mindjit.ir.compat.install`)."""

    compat.install()
    ctx = Context()
    register_dialects(ctx, get_all_dialects())
    return ctx
