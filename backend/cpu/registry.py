"""Op class -> plan builder: the executor's one extension point.

A builder is `build(compiler, op) -> None`; it reads operand slots with
`compiler.read`, defines result slots with `compiler.define` / `compiler.constant`
and emits run-time steps with `compiler.emit`. Builders are keyed by the xDSL op
class they plan (`@register(arith.AddfOp)` in a `kernels_*.py` module imported
from `mindjit.backend.cpu.__init__`), like every per-op rule of the compiler
(`mindjit.ir.rules`); tests/registry/test_op_registry.py checks that each class
is the one its dialect registers under its name. Calls to a runtime declaration
(`func.func private @f(...) attributes {mindjit.runtime = "print"}`) go to the
builder registered with `@register_runtime("print")`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from xdsl.ir import Operation

from mindjit.ir.rules import RuleTable

if TYPE_CHECKING:
    from mindjit.backend.cpu.compiler import FunctionCompiler

Builder = Callable[["FunctionCompiler", Operation], None]

BUILDERS: RuleTable[Builder] = RuleTable(
    "cpu executor", "backend/cpu/registry.py, kernels in backend/cpu/kernels_*.py", "kernel builder"
)

#: Runtime kind (a declaration's `mindjit.runtime` attribute) -> builder of the
#: `func.call`s to it, e.g. "print".
RUNTIME_BUILDERS: dict[str, Builder] = {}


def register(*classes: type[Operation]) -> Callable[[Builder], Builder]:
    """Decorator registering one builder for the given op classes."""
    return BUILDERS.register(*classes)


def register_runtime(*kinds: str) -> Callable[[Builder], Builder]:
    """Decorator registering the builder of calls to declarations of these kinds."""

    def add(fn: Builder) -> Builder:
        for kind in kinds:
            RUNTIME_BUILDERS[kind] = fn
        return fn

    return add
