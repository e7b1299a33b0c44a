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
from xdsl.ir import Operation, SSAValue
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


#: how each scan combines its elements, by concrete class with no default: a new
#: scan has no lowering until it has a line here. Per kind: the neutral element and
#: the (float, integer) combiner.
SCAN_KINDS: dict[type[Operation], str] = {mindir.CumSumOp: "sum", mindir.CumProdOp: "prod"}
_COMBINE: dict[str, tuple[int, type[Operation], type[Operation]]] = {
    "sum": (0, arith.AddfOp, arith.AddiOp),
    "prod": (1, arith.MulfOp, arith.MuliOp),
}


@LOWERINGS.register(*SCAN_KINDS)
def lower_scan(op: mindir.ScanOp, rewriter: PatternRewriter) -> None:
    e = Emitter(rewriter, op.location)
    t = S.tensor_of(op.input.type)
    shape, element = tuple(t.get_shape()), t.get_element_type()
    rank, axis = len(shape), op.scan_axis()
    exclusive, reverse = op.is_exclusive(), op.is_reverse()
    is_float = isinstance(element, AnyFloat)
    kind = SCAN_KINDS[type(op)]
    neutral_value, float_combine, int_combine = _COMBINE[kind]
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
        neutral = b.scalar(element, neutral_value)
        term = b.value(arith.SelectOp(included, xj, neutral))
        combine = float_combine if is_float else int_combine
        return b.value(combine(acc, term))

    assert is_float or isinstance(element, IntegerType)
    out = counting(
        e,
        [op.input],
        [along(rank, axis, rank)],
        element,
        shape,
        body,
        scan_kernel_name(kind, exclusive, reverse),
        init=neutral_value,
    )
    rewriter.replace(op, [], [out])
