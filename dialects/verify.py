"""Verifying a module with every failure located at its op.

xDSL's own `verify()` reports the failing op by printing the whole module; here
the failing op's location and the verifier's one-line message are kept instead.
"""

from __future__ import annotations

from xdsl.ir import Operation
from xdsl.utils.exceptions import DiagnosticException, VerifyException

from mindjit.dialects.xdsl_fixes import memoized_symbol_lookups
from mindjit.ir.locations import loc_of_op
from mindjit.support.errors import MindjitError


def verify_located(root: Operation) -> None:
    """Verify `root` and everything inside it (each block's ops last to first).

    xDSL's own `verify()` reports the failing op by printing the whole module; here
    the failing op's location and the verifier's one-line message are kept instead.
    """
    with memoized_symbol_lookups():
        _verify_each(root)


def _verify_each(root: Operation) -> None:
    from xdsl.dialects import func
    from xdsl.traits import SymbolTable

    from mindjit.dialects.fast_verify import FAST_VERIFIERS
    from mindjit.dialects.mindir.parameter_args import check_not_called, verify_parameter_args
    from mindjit.ir.walk import walk_ops

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
