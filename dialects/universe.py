"""Makes mindjit's dialects and passes known to xDSL tools (entry point `xdsl.universe`)."""

from __future__ import annotations

from collections.abc import Callable

from xdsl.ir import Dialect
from xdsl.passes import ModulePass
from xdsl.universe import Universe


def _mindir() -> Dialect:
    from mindjit.dialects.mindir import MindIR

    return MindIR


def mindjit_dialects() -> dict[str, Callable[[], Dialect]]:
    return {"mindir": _mindir}


def mindjit_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    from mindjit.passes.registry import mindjit_pass_factories

    return mindjit_pass_factories()


MINDJIT_UNIVERSE = Universe(all_dialects=mindjit_dialects(), all_passes=mindjit_passes())
