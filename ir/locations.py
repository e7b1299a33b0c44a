"""Where an op comes from: the `file:line:col` inside its MLIR location, and errors
located at an op (`op_error`) or made from xDSL's parse and verify exceptions."""

from __future__ import annotations

from xdsl.dialects.builtin import CallSiteLoc, FileLineColLoc, FusedLoc, NameLoc
from xdsl.ir import Attribute, Operation
from xdsl.utils.exceptions import DiagnosticException, ParseError, VerifyException

from mindjit.support.errors import MindjitError, SourceLoc


def loc_of_attr(loc: Attribute | None) -> SourceLoc | None:
    """The first file:line:col inside an MLIR location attribute, if any."""
    if isinstance(loc, FileLineColLoc):
        return SourceLoc(loc.filename.data, loc.line.data, loc.column.data)
    if isinstance(loc, NameLoc):
        return loc_of_attr(loc.child_loc)
    if isinstance(loc, CallSiteLoc):
        return loc_of_attr(loc.callee)
    if isinstance(loc, FusedLoc):
        for inner in loc.locations:
            if (found := loc_of_attr(inner)) is not None:
                return found
    return None


def loc_of_op(op: Operation | None) -> SourceLoc | None:
    """The location of `op`, or of its nearest ancestor that has one."""
    while op is not None:
        if (found := loc_of_attr(op.location)) is not None:
            return found
        op = op.parent_op()
    return None


def op_error(op: Operation, message: str) -> MindjitError:
    """An error located at `op` (use: `raise op_error(op, "...")`)."""
    return MindjitError(message, loc_of_op(op))


def from_xdsl_exception(exc: Exception, fallback: str | None = None) -> MindjitError:
    """Turn xDSL's parse/verify exceptions into one located line."""
    if isinstance(exc, MindjitError):
        return exc
    if isinstance(exc, ParseError):
        span_loc = exc.span.get_location()
        loc = SourceLoc(span_loc.file, span_loc.line, span_loc.col)
        return MindjitError(exc.msg, loc)
    if isinstance(exc, VerifyException | DiagnosticException):
        message = str(exc.args[0]) if exc.args else str(exc)
        op = _verify_exception_op(exc)
        loc = loc_of_op(op) if op is not None else None
        if op is not None:
            message = f"'{op.name}' op {message}"
        return MindjitError(
            message.splitlines()[0] if message else "verification failed", loc or fallback
        )
    return MindjitError(str(exc), fallback)


def _verify_exception_op(exc: Exception) -> Operation | None:
    op = getattr(exc, "op", None)
    return op if isinstance(op, Operation) else None
