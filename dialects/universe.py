"""Makes mindjit's dialects and passes known to xDSL tools (entry point `xdsl.universe`)."""

from __future__ import annotations

from collections.abc import Callable

from xdsl.ir import Dialect
from xdsl.passes import ModulePass
from xdsl.universe import Universe


def _mindir() -> Dialect:
    from mindjit.dialects.mindir import MindIR

    return MindIR


def _ascend() -> Dialect:
    from mindjit.dialects.ascend import Ascend

    return Ascend


def _ml_program() -> Dialect:
    from mindjit.dialects.ml_program_ext import MLProgram

    return MLProgram


def mindjit_dialects() -> dict[str, Callable[[], Dialect]]:
    return {"mindir": _mindir, "ascend": _ascend}


def mindjit_dialect_overrides() -> dict[str, Callable[[], Dialect]]:
    """Upstream dialects mindjit completes, registered in place of xDSL's own.

    Not part of `MINDJIT_UNIVERSE`: the multiverse rejects a second definition of
    a dialect name, so mindjit's contexts (parsing.make_context, ms-opt) swap them
    in themselves.
    """
    return {"ml_program": _ml_program}


def mindjit_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    from mindjit.passes.registry import mindjit_pass_factories

    return mindjit_pass_factories()


MINDJIT_UNIVERSE = Universe(all_dialects=mindjit_dialects(), all_passes=mindjit_passes())
