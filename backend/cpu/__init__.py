"""CPU executor for upstream tensor-level MLIR (func, arith, math, tensor, linalg, scf).

    exe = CpuExecutable(module)
    exe.entry_names(); exe.signature("f")
    outs = exe.run("f", *arrays)   # tuple of numpy arrays
    exe.get_global("w"); exe.set_global("w", array); exe.print_hook = my_hook

Each function is planned once, on first use: ops become numpy kernels bound to
slot indices of one list, constants are preloaded, unneeded inits
(`tensor.empty`, neutral `linalg.fill`) and dead ops are dropped, temporaries
are released at their last use.  Every later call reuses the plan.

Supported: func.func/call/return; arith (constants, float/int arithmetic with
MLIR semantics, cmpf/cmpi, select, casts); math (exp, log, tanh, sqrt, rsqrt,
erf, pow, trig, rounding, ...); tensor (empty, extract, insert, from_elements,
splat, extract_slice/insert_slice with static offsets, collapse/expand_shape,
reshape, concat, cast, dim); linalg (generic with projected-permutation maps,
fill, matmul, transpose, broadcast, reduce, add/sub/mul/max/min/exp/log/sqrt/
select/copy); scf (if, while, for); ml_program (global, global_load,
global_store, global_load_const) with the state held by the executable
(`exe.globals`, `exe.get_global`, `exe.set_global`); calls to mindjit's print
runtime (`exe.print_hook`) and the emulated float-status runtime
(`exe.float_status`); cf.assert (a failed check raises `RuntimeCheckError`
with its message).  Parameters alias: a global_load is the global's buffer,
a global_store writes into it in place, linalg.copy copies (counted in
`exe.stats`); `exe.trace_enabled` records executed ops in `exe.trace`.
Shapes must be static.  Anything else raises
`ExecutionError` at plan time, located at the op.  New ops plug in through
`registry.register`.
"""

from mindjit.backend.cpu import (  # noqa: F401
    kernels_arith,
    kernels_check,
    kernels_collective,
    kernels_control,
    kernels_conv,
    kernels_float_status,
    kernels_linalg,
    kernels_state,
    kernels_tensor,
)
from mindjit.backend.cpu.errors import ExecutionError, RuntimeCheckError
from mindjit.backend.cpu.executable import CpuExecutable
from mindjit.backend.cpu.plan import Plan
from mindjit.backend.cpu.registry import BUILDERS, register

__all__ = ["BUILDERS", "CpuExecutable", "ExecutionError", "Plan", "RuntimeCheckError", "register"]
