"""The Ascend float-status runtime, emulated on the CPU.

convert-mindir-to-tensor lowers `mindir.npu_alloc/clear/get_float_status` to
calls of private declarations marked `mindjit.runtime = "float_status_alloc"`,
`"float_status_clear"`, `"float_status_get"` (each `(tensor<8xf32>...) ->
tensor<8xf32>`). The device's sticky overflow flag is `exe.float_status`:

- alloc and clear reset the flag and give a zero status `tensor<8xf32>`;
- every executed arithmetic op (arith, math, linalg; not data movement) with an
  f16 or f32 result sets the flag when the result holds an inf or a nan (checked
  by the plan only when the module calls this runtime: `exe.checks_float_status`);
- get gives the status: all zeros, or `status[0] = 1.0` once the flag is set.

The flag persists across runs, like the device's, until an alloc or a clear.
The calls are side effects: kept and run in block order, which is the order
mindir-depend-order fixed from the Depends around them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from xdsl.ir import Operation

from mindjit.backend.cpu.errors import op_failure
from mindjit.backend.cpu.registry import register_runtime
from mindjit.backend.cpu.steps import call_step

if TYPE_CHECKING:
    from mindjit.backend.cpu.compiler import FunctionCompiler

STATUS_SIZE = 8


def _check(op: Operation, operands: int) -> None:
    if len(op.operands) != operands or len(op.results) != 1:
        raise op_failure(
            op,
            f"a float-status call takes {operands} status operand(s) and gives one status",
        )


@register_runtime("float_status_alloc", "float_status_clear")
def build_reset(c: FunctionCompiler, op: Operation) -> None:
    """alloc() / clear(status): reset the flag, give a zero status."""
    alloc = not op.operands
    _check(op, 0 if alloc else 1)
    ins = [c.read(v) for v in op.operands]
    c.mark_side_effects()
    status = c.exe.float_status

    def reset(*_: object) -> np.ndarray:
        status.overflow = False
        return np.zeros(STATUS_SIZE, np.float32)

    c.emit(call_step(reset, ins, c.define(op.results[0], fresh=True)))


@register_runtime("float_status_get")
def build_get(c: FunctionCompiler, op: Operation) -> None:
    """get(status): the flag as a status (status[0] = 1 after an overflow)."""
    _check(op, 1)
    ins = [c.read(v) for v in op.operands]
    c.mark_side_effects()
    status = c.exe.float_status

    def get(_: object) -> np.ndarray:
        out = np.zeros(STATUS_SIZE, np.float32)
        if status.overflow:
            out[0] = 1.0
        return out

    c.emit(call_step(get, ins, c.define(op.results[0], fresh=True)))
