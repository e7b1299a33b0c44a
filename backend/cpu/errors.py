"""The one error type the CPU executor raises, located at the op it is about."""

from __future__ import annotations

from xdsl.ir import Operation

from mindjit.ir.locations import loc_of_op
from mindjit.support.errors import MindjitError, SourceLoc


class ExecutionError(MindjitError):
    """A program the executor cannot plan, or inputs/state it cannot run with."""


def op_failure(op: Operation, message: str) -> ExecutionError:
    """An `ExecutionError` at `op`'s file:line:col (or its nearest located parent)."""
    return ExecutionError(message, loc_of_op(op))


def unsupported(op: Operation, why: str = "") -> ExecutionError:
    """The error for an op (or a form of it) the CPU executor has no kernel for."""
    detail = f": {why}" if why else ""
    return op_failure(op, f"'{op.name}' is not supported by the CPU executor{detail}")


def located(loc: SourceLoc | str | None, message: str) -> ExecutionError:
    return ExecutionError(message, loc)


class RuntimeCheckError(ExecutionError, RuntimeError):
    """A check of the program failed while it ran (a `cf.assert`, e.g. what
    `mindir.check_range` lowers to): the message is the program's own.

    A `RuntimeError`, as MindSpore's kernels raise when they reject their inputs."""
