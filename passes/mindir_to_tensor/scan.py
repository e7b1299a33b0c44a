"""cumsum / cumprod -> one linalg.generic over an extra loop dim j (a reduction).

    out[..., i, ...] = sum over j of (j <= i ? x[..., j, ...] : 0)

(`j < i` when exclusive, `j >= i` / `j > i` when reversed; products with 1 for
the excluded elements). Plain linalg that IREE accepts; as written it is
quadratic along the axis, so the generic names its kernel with `library_call`
(`mindjit_cumsum[_exclusive][_reverse]`, `mindjit_cumprod...`): the CPU
executor runs `np.cumsum` / `np.cumprod` (backend/cpu/kernels_library.py), the
device its CumSum / CumProd kernel.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import AnyFloat, IntegerType
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from mindjit.dialects import mindir
from mindjit.dialects.mindir import shapes as S
from mindjit.passes.mindir_to_tensor.builders import Emitter
from mindjit.passes.mindir_to_tensor.rules import LOWERINGS
from mindjit.passes.mindir_to_tensor.sort import along, counting, loop_index


def scan_kernel_name(kind: str, exclusive: bool, reverse: bool) -> str:
    """The `library_call` of a scan's generic (backend/cpu/kernels_library.py reads it)."""
    return (
        f"mindjit_cum{kind}" + ("_exclusive" if exclusive else "") + ("_reverse" if reverse else "")
    )


@LOWERINGS.register(mindir.ScanOp)
def lower_scan(op: mindir.ScanOp, rewriter: PatternRewriter) -> None:
    e = Emitter(rewriter, op.location)
    t = S.tensor_of(op.input.type)
    shape, element = tuple(t.get_shape()), t.get_element_type()
    rank, axis = len(shape), op.scan_axis()
    exclusive, reverse = op.is_exclusive(), op.is_reverse()
    is_float = isinstance(element, AnyFloat)
    product = op.KIND == "prod"
    # j is included for i when: j <= i, j < i (exclusive), j >= i (reverse), j > i (both)
    predicate = {
        (False, False): "sle",
        (True, False): "slt",
        (False, True): "sge",
        (True, True): "sgt",
    }[(exclusive, reverse)]

    def body(b: Emitter, args: list[SSAValue]) -> SSAValue:
        xj, acc = args
        i, j = loop_index(b, axis), loop_index(b, rank)
        included = b.value(arith.CmpiOp(j, i, predicate))
        neutral = b.scalar(element, 1 if product else 0)
        term = b.value(arith.SelectOp(included, xj, neutral))
        if product:
            combine = arith.MulfOp if is_float else arith.MuliOp
        else:
            combine = arith.AddfOp if is_float else arith.AddiOp
        return b.value(combine(acc, term))

    assert is_float or isinstance(element, IntegerType)
    out = counting(
        e,
        [op.input],
        [along(rank, axis, rank)],
        element,
        shape,
        body,
        scan_kernel_name(op.KIND, exclusive, reverse),
        init=1 if product else 0,
    )
    rewriter.replace(op, [], [out])
