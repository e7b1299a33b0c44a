"""mindir.matmul -> linalg.matmul (rank 2) or a linalg.generic contraction (batched).

Rank 2 x rank 2: `linalg.transpose` for transpose_a / transpose_b, then
`linalg.matmul` into a zero-filled `tensor.empty`.

Anything with batch dimensions (numpy matmul rules, batch dims broadcast between
the operands) is one generic over loops (batch..., m, n, k) with iterators
parallel x (batch + 2), reduction, e.g. for rank 3:

    (b, m, n, k) -> (b, m, k), (b, m, n, k) -> (b, k, n), (b, m, n, k) -> (b, m, n)

transposes folded into the maps and broadcast size-1 batch dims collapsed away.
The body is `out + a * b` (addf/mulf, or addi/muli for integers).
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import AnyFloat
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap
from xdsl.pattern_rewriter import PatternRewriter

from mindjit.dialects import mindir
from mindjit.dialects.mindir import shapes as S
from mindjit.passes.mindir_to_tensor.builders import Emitter
from mindjit.passes.mindir_to_tensor.rules import LOWERINGS


def _transposed(e: Emitter, x: SSAValue) -> SSAValue:
    """x^T, made once per value where the ops after it can read it
    (`Emitter.derived`): an unrolled RNN's recurrent weight is transposed once, not
    once per step."""

    def make(here: Emitter) -> SSAValue:
        t = S.tensor_of(x.type)
        rows, cols = t.get_shape()
        init = here.empty((cols, rows), t.get_element_type())
        return here.transpose(x, (1, 0), init)

    return e.derived("transpose", x, make)


def _matmul_2d(e: Emitter, op: mindir.MatMulOp) -> SSAValue:
    a = _transposed(e, op.lhs) if op.transpose_a.value.data else op.lhs
    b = _transposed(e, op.rhs) if op.transpose_b.value.data else op.rhs
    result = S.tensor_of(op.result.type)
    acc = e.filled(result.get_shape(), result.get_element_type(), 0)
    return e.matmul(a, b, acc)


def _matmul_batched(e: Emitter, op: mindir.MatMulOp) -> SSAValue:
    result = S.tensor_of(op.result.type)
    out_shape = result.get_shape()
    nb = len(out_shape) - 2
    batch = out_shape[:nb]
    m, n, k = nb, nb + 1, nb + 2
    loops = nb + 3

    def operand(value: SSAValue, inner: tuple[int, int]) -> tuple[SSAValue, AffineMap]:
        shape = S.tensor_of(value.type).get_shape()
        own = len(shape) - 2
        offset = nb - own
        keep = [not (d == 1 and batch[offset + j] != 1) for j, d in enumerate(shape[:own])] + [
            True,
            True,
        ]
        dims = [offset + j for j in range(own) if keep[j]] + list(inner)
        return e.drop_unit_dims(value, keep), AffineMap(
            loops, 0, tuple(AffineDimExpr(d) for d in dims)
        )

    a, a_map = operand(op.lhs, (k, m) if op.transpose_a.value.data else (m, k))
    b, b_map = operand(op.rhs, (n, k) if op.transpose_b.value.data else (k, n))
    out_map = AffineMap(loops, 0, tuple(AffineDimExpr(d) for d in range(nb + 2)))
    element = result.get_element_type()
    acc = e.filled(out_shape, element, 0)
    add, mul = (
        (arith.AddfOp, arith.MulfOp)
        if isinstance(element, AnyFloat)
        else (arith.AddiOp, arith.MuliOp)
    )

    def body(b_: Emitter, args):
        return b_.value(add(args[2], b_.value(mul(args[0], args[1]))))

    return e.generic(
        [a, b], acc, [a_map, b_map, out_map], ["parallel"] * (nb + 2) + ["reduction"], body
    )


@LOWERINGS.register(mindir.MatMulOp)
def lower_mat_mul(op: mindir.MatMulOp, rewriter: PatternRewriter) -> None:
    e = Emitter(rewriter, op.location)
    ranks = (
        len(S.tensor_of(op.lhs.type).get_shape()),
        len(S.tensor_of(op.rhs.type).get_shape()),
    )
    out = _matmul_2d(e, op) if ranks == (2, 2) else _matmul_batched(e, op)
    rewriter.replace(op, [], [out])
