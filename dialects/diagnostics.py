"""User-facing errors with a source location, printed as `file:line:col: error: msg`.

Every error a user can cause (bad .mlir, bad options, bad inputs) is raised as a
`MindjitError`; the tools print `str(error)` and exit 1 instead of a traceback.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import CallSiteLoc, FileLineColLoc, FusedLoc, NameLoc
from xdsl.ir import Attribute, Operation
from xdsl.utils.exceptions import DiagnosticException, ParseError, VerifyException


@dataclass(frozen=True)
class SourceLoc:
    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


class MindjitError(Exception):
    """An error the user caused, with the place it comes from when known."""

    def __init__(self, message: str, loc: SourceLoc | str | None = None):
        super().__init__(message)
        self.message = message
        self.loc = loc

    def __str__(self) -> str:
        where = str(self.loc) if self.loc is not None else "mindjit"
        return f"{where}: error: {self.message}"


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


def verify_located(root: Operation) -> None:
    """Verify `root` and everything inside it (each block's ops last to first).

    xDSL's own `verify()` reports the failing op by printing the whole module; here
    the failing op's location and the verifier's one-line message are kept instead.
    """
    from mindjit.dialects.xdsl_fixes import memoized_symbol_lookups

    with memoized_symbol_lookups():
        _verify_each(root)


def _verify_each(root: Operation) -> None:
    from xdsl.dialects import func
    from xdsl.traits import SymbolTable

    from mindjit.dialects.fast_verify import FAST_VERIFIERS
    from mindjit.dialects.op_walk import walk_ops
    from mindjit.dialects.parameter_args import check_not_called, verify_parameter_args

    for op in walk_ops(root, reverse=True):
        try:
            fast = FAST_VERIFIERS.get(type(op))
            if fast is None or not fast(op):
                op.verify(verify_nested_ops=False)
            if type(op) is func.FuncOp:
                verify_parameter_args(op)
            elif type(op) is func.CallOp:
                check_not_called(op, SymbolTable.lookup_symbol(op, op.callee))
        except (VerifyException, DiagnosticException, ValueError) as exc:
            inner = exc.__cause__ if isinstance(exc.__cause__, Exception) else exc
            message = str(inner.args[0]) if inner.args else str(inner)
            message = message.removeprefix("Operation does not verify: ")
            message = message.strip().splitlines()[0] if message.strip() else "failed to verify"
            raise MindjitError(f"'{op.name}' op {message}", loc_of_op(op)) from None
