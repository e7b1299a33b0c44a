"""`mindir.uniform_real` -> one `linalg.generic` of 32-bit integer arithmetic.

The body numbers its element with `linalg.index` (row-major, in `index`, cast to
i32), hashes it with the two scalar operands (key, offset; rank-0 inputs with
the map `(d...) -> ()`) and the op's folded seeds, and turns the top 24 bits into
a float32: `sitofp(h >> 8) * 2**-24`. Signless i32 `muli` wraps modulo 2**32 and
`shrui` is a logical shift, which is what the hash needs, on every engine (the
formula is in mindjit.dialects.mindir.random).
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import FloatAttr, IndexType, IntegerAttr, f32, i32
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.pattern_rewriter import PatternRewriter

from mindjit.dialects import mindir
from mindjit.dialects.mindir import random as R
from mindjit.passes.mindir_to_tensor.builders import Emitter
from mindjit.passes.mindir_to_tensor.rules import LOWERINGS


class _Body:
    """Emits the hash into a generic's body, one `arith.constant` per distinct value."""

    def __init__(self, e: Emitter):
        self.e = e
        self.consts: dict[int, SSAValue] = {}

    def u32(self, value: int) -> SSAValue:
        """An i32 constant holding the unsigned 32-bit `value` (MLIR prints it signed)."""
        value &= R.MASK32
        if value not in self.consts:
            signed = value - (1 << 32) if value >> 31 else value
            self.consts[value] = self.e.value(arith.ConstantOp(IntegerAttr(signed, i32)))
        return self.consts[value]

    def xor(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.e.value(arith.XOrIOp(a, b))

    def fmix32(self, h: SSAValue) -> SSAValue:
        e = self.e
        for shift, mul in ((16, R.FMIX_MUL1), (13, R.FMIX_MUL2), (16, None)):
            h = self.xor(h, e.value(arith.ShRUIOp(h, self.u32(shift))))
            if mul is not None:
                h = e.value(arith.MuliOp(h, self.u32(mul)))
        return h

    def linear_index(self, shape: tuple[int, ...]) -> SSAValue:
        """The row-major number of the current element, as i32 (wrapping past 2**32)."""
        e = self.e
        if not shape:
            return self.u32(0)
        lin = e.value(linalg.IndexOp(0))
        for d in range(1, len(shape)):
            size = e.value(arith.ConstantOp(IntegerAttr(shape[d], IndexType())))
            lin = e.value(
                arith.AddiOp(e.value(arith.MuliOp(lin, size)), e.value(linalg.IndexOp(d)))
            )
        return e.value(arith.IndexCastOp(lin, i32))


@LOWERINGS.register(mindir.UniformRealOp)
def lower_uniform_real(op: mindir.UniformRealOp, rewriter: PatternRewriter) -> None:
    shape = op.static_shape
    s1, s2 = R.seed_keys(*op.seeds)
    rank = len(shape)
    e = Emitter(rewriter, op.location)

    def body(b: Emitter, args) -> SSAValue:
        key, offset = args[0], args[1]
        h32 = _Body(b)
        kk = h32.fmix32(h32.xor(key, h32.u32(s1)))
        oo = h32.fmix32(h32.xor(offset, h32.u32(s2)))
        i = b.value(arith.MuliOp(h32.linear_index(shape), h32.u32(R.GOLDEN)))
        h = h32.fmix32(h32.xor(i, kk))
        h = h32.fmix32(h32.xor(h, oo))
        bits = b.value(arith.ShRUIOp(h, h32.u32(8)))
        as_float = b.value(arith.SIToFPOp(bits, f32))
        unit = b.value(arith.ConstantOp(FloatAttr(R.UNIT, f32)))
        return b.value(arith.MulfOp(as_float, unit))

    scalar = AffineMap(rank, 0, ())
    init = e.empty(shape, f32)
    out = e.generic(
        [op.key, op.offset],
        init,
        [scalar, scalar, AffineMap.identity(rank)],
        ["parallel"] * rank,
        body,
    )
    rewriter.replace(op, [], [out])
