"""Plan builder for `cf.assert`: the run-time checks of a program.

`cf.assert %ok, "message"` (what `mindir.check_range` lowers to) raises
`RuntimeCheckError("message")`, located at the op, when `%ok` is false at run
time. It is a side effect: the plan keeps it, in block order, even though
nothing uses a result of it. A condition known true at plan time costs nothing;
one known false still fails only when the step runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from xdsl.dialects import cf
from xdsl.ir import Operation

from mindjit.backend.cpu.errors import RuntimeCheckError
from mindjit.backend.cpu.registry import register
from mindjit.backend.cpu.steps import effect_step

if TYPE_CHECKING:
    from mindjit.backend.cpu.compiler import FunctionCompiler


@register(cf.AssertOp)
def build_assert(c: FunctionCompiler, op: Operation) -> None:
    cond = op.operands[0]
    message = op.msg.data  # type: ignore[attr-defined]
    if c.is_known(cond) and bool(c.known(cond)):
        return
    slot = c.read(cond)
    c.mark_side_effects()

    def check(ok: Any) -> None:
        if not ok:  # located by the step block, at this op
            raise RuntimeCheckError(message)

    c.emit(effect_step(check, [slot]))
