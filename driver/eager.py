"""PyNative's compiler: one-op programs the frontend builds, compiled for the CPU.

Each op run eagerly is a one-op mindir function (frontend/dispatch.py) lowered
by the same lowering and planned by the same executor as graph mode, so both
modes agree bit for bit; a recorded op's adjoint (frontend/grad_tape.py) is a
`mindir.grad` of it, expanded by mindir-grad first.
"""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp

from mindjit.backend.cpu import CpuExecutable
from mindjit.passes.pipelines import CANONICALIZE, lower_to_tensor, parse_pipeline, run_passes

_GRAD = f"mindir-grad,func.func({CANONICALIZE},cse)"


def compile_op(module: ModuleOp, differentiate: bool = False) -> CpuExecutable:
    """The CPU executable of a one-op module (its `mindir.grad` expanded first when
    `differentiate`)."""
    if differentiate:
        run_passes(parse_pipeline(_GRAD), module, verify_each=False)
    return CpuExecutable(lower_to_tensor(module))
