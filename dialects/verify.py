"""Verifying a module with every failure located at its op.

xDSL's own `verify()` reports the failing op by printing the whole module; here
each op is verified on its own, before the ops nested in it, as MLIR runs an
op's own verifier on entering it (`Operation.verify(verify_nested_ops=False)`
plus the structure checks of its regions that xDSL only makes when it recurses:
`mindjit.ir.compat.structure_checks`), so the first failure is reported with its
op's location and the verifier's one-line message.
On top of xDSL's checks come mindir's rules for bound Parameter arguments, and,
for the op classes a large model has thousands of, faster checks in place of
IRDL's generic ones (`fast_verify`), and for upstream ops a verdict remembered
per signature (`mindjit.ir.compat.verify_memo`). Symbol lookups go through one `Symbols`
per verification. Each block's ops are visited last to first.
"""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.ir import Operation
from xdsl.utils.exceptions import DiagnosticException, VerifyException

from mindjit.dialects.fast_verify import FAST_VERIFIERS
from mindjit.dialects.mindir.parameter_args import check_not_called, verify_parameter_args
from mindjit.ir.compat import verify_memo
from mindjit.ir.compat.structure_checks import check_op_structure, check_regions
from mindjit.ir.locations import loc_of_op
from mindjit.ir.symbols import Symbols, in_use
from mindjit.ir.walk import walk_ops
from mindjit.support.errors import MindjitError


def verify_located(root: Operation) -> None:
    """Verify `root` and everything inside it; the first failure is a `MindjitError`
    located at its op."""
    symbols = Symbols()
    with in_use(symbols):
        for op in walk_ops(root, reverse=True):
            try:
                _verify_one(op, symbols)
            except (VerifyException, DiagnosticException, ValueError) as exc:
                raise _located(op, exc) from None


def _verify_one(op: Operation, symbols: Symbols) -> None:
    fast = FAST_VERIFIERS.get(type(op))
    if fast is None:
        key = verify_memo.signature(op)
        if key is not None and verify_memo.passed(key, op):
            check_op_structure(op)  # the rest is the verdict this signature had
        else:
            op.verify(verify_nested_ops=False)
            if key is not None:
                verify_memo.remember(key, op)
    else:
        check_op_structure(op)
        if not fast(op):
            op.verify_()
    if op.regions:
        check_regions(op)
    if type(op) is func.FuncOp:
        verify_parameter_args(op)
    elif type(op) is func.CallOp:
        check_not_called(op, symbols.lookup(op, op.callee))


def _located(op: Operation, exc: Exception) -> MindjitError:
    inner = exc.__cause__ if isinstance(exc.__cause__, Exception) else exc
    message = str(inner.args[0]) if inner.args else str(inner)
    message = message.removeprefix("Operation does not verify: ")
    message = message.strip().splitlines()[0] if message.strip() else "failed to verify"
    return MindjitError(f"'{op.name}' op {message}", loc_of_op(op))
