"""Row sums compiled with llvmlite, bit for bit numpy's `np.add.reduce`.

A float sum over the trailing axes of a C-contiguous array is, in numpy, one
*pairwise* sum per row (loops_utils.h.src `pairwise_sum`): a row of n < 8
elements adds them in order from 0; up to 128 it keeps eight accumulators
(elements i, i+8, i+16, ... in accumulator i % 8), adds them as
((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7)) and then the n % 8 left over in
order; a longer row is split at half its length rounded down to a multiple of 8
and the halves summed so. The result is then added to the output's identity,
0 (so a sum of -0.0s is +0.0). Trailing reduced axes of a C-contiguous array are
one run of that (checked on numpy 2.4 for every n up to 300 and some to 9000,
f32, and two-axis reductions: tests/backend/test_cpu_codegen_reduce.py). The
generated code does exactly that, the eight accumulators one `<8 x float>`, so
a fused graph and PyNative, which run the numpy path's reducer, keep agreeing
bit for bit; it does it in one call with no temporary.

What is compiled here: a reduction whose one result is `addf(acc, x)` of its one
f32/f64 input laid out in loop order, folded over the trailing loop dims, with
the neutral init (the lowering's fill of 0). Anything else (a maximum, whose
signed zeros make numpy's vectorised order matter, a fused body, strided input)
stays on linalg_fold's numpy path, as does any call whose input is not a
C-contiguous array of the planned shape (`codegen_llvm.guarded`).

Measured (benchmarks/fused_codegen.py --only row_sums: one executable each way,
per call, one thread, the Zen 3 VM): 64 x 256 10.2 -> 7.5 us, 64 x 64 7.7 -> 6.5,
256 x 256 23.8 -> 12.8, 256 x 1024 61.8 -> 32.3, 8 x 4 x 32 x 32 34.3 -> 9.8 (numpy
is slow on many short rows); all bit-equal. In the workloads (interleaved, in one
process): the GPT-like train step 78.1 -> 77.5 ms, the 8-Block forward unchanged
(16.44 / 16.45 ms: its sums are small, the executor's entry dominates). The first
step towards compiling LayerNorm's and softmax's statistics with their
elementwise producers (a square, a subtraction) in one loop: the pairwise order
is what such a fused kernel must keep.
"""

from __future__ import annotations

from collections.abc import Callable
from math import prod

import numpy as np
from xdsl.dialects import arith

from mindjit.backend.cpu.codegen_llvm import _DATA_OFFSET, Codegen, FusedKernel, guarded
from mindjit.backend.cpu.linalg_body import Body
from mindjit.backend.cpu.linalg_fold import Fold, Planned
from mindjit.backend.cpu.linalg_spec import Operand, Shape, Spec
from mindjit.backend.cpu.types import dtype_of, static_shape

_TYPES = {np.dtype(np.float32): ("float", 4), np.dtype(np.float64): ("double", 8)}

#: rows x length below which numpy's reducer stays (its call is as fast there)
MIN_ELEMENTS = 2048


def row_sum_kernel(
    cg: Codegen,
    spec: Spec,
    operands: list[Operand],
    body: Body,
    loop: Shape,
    found: list[Fold],
    reference: Callable[[], Planned],
) -> Planned | None:
    """The compiled row sum of this reduction (`found`: its folds, linalg_fold.folds),
    or None when it is not one (above)."""
    if len(spec.ins) != 1 or len(spec.outs) != 1 or body.captured:
        return None
    n = len(loop)
    k = len(spec.reductions)
    if sorted(spec.reductions) != list(range(n - k, n)):
        return None
    source = operands[0]
    if not source.pure or source.dims != tuple(range(n)) or source.prep is not None:
        return None
    (fold,) = found
    if type(fold.combiner) is not arith.AddfOp or fold.init_needed:
        return None
    if body.arg_index(fold.value) != 0 or fold.out.dims != tuple(range(n - k)):
        return None
    llvm_type = _TYPES.get(fold.dtype)
    shape = static_shape(spec.ins[0].type, spec.op)
    if llvm_type is None or shape != tuple(loop) or dtype_of(spec.ins[0].type) != fold.dtype:
        return None
    length = prod(loop[n - k :])
    rows = prod(loop[: n - k])
    if length == 0 or rows * length < MIN_ELEMENTS:
        return None
    ref_kernel, ref_ins, _ = reference()
    if ref_ins != [spec.ins[0]]:
        return None
    ir = row_sum_ir(*llvm_type, rows, length)
    kernel = FusedKernel(ir, [(shape, fold.dtype)], [(fold.out_shape, fold.dtype)])
    cg.add(kernel)
    return guarded(kernel, ref_kernel, [fold.dtype], [shape]), [spec.ins[0]], [True]


def row_sum_ir(ty: str, size: int, rows: int, length: int) -> str:
    """@kernel(in, out): out[r] = 0 + pairwise(in[r * length : (r + 1) * length])."""
    d = _DATA_OFFSET
    vec = f"<8 x {ty}>"
    return f"""define void @kernel(ptr %a0, ptr %a1) nounwind {{
entry:
  %f0 = getelementptr i8, ptr %a0, i64 {d}
  %d0 = load ptr, ptr %f0
  %f1 = getelementptr i8, ptr %a1, i64 {d}
  %d1 = load ptr, ptr %f1
  br label %row
row:
  %r = phi i64 [0, %entry], [%rn, %row]
  %off = mul nuw nsw i64 %r, {length}
  %p = getelementptr {ty}, ptr %d0, i64 %off
  %s = call {ty} @kernel.pw(ptr %p, i64 {length})
  %s0 = fadd {ty} 0.0, %s
  %o = getelementptr {ty}, ptr %d1, i64 %r
  store {ty} %s0, ptr %o
  %rn = add nuw nsw i64 %r, 1
  %more = icmp ult i64 %rn, {rows}
  br i1 %more, label %row, label %exit
exit:
  ret void
}}

define internal {ty} @kernel.pw(ptr %p, i64 %n) nounwind {{
entry:
  %small = icmp ult i64 %n, 8
  br i1 %small, label %seq, label %big
{_in_order(ty, "seq", "0", "0.0", "entry")}big:
  %block = icmp ule i64 %n, 128
  br i1 %block, label %blk, label %split
blk:
  %r0 = load {vec}, ptr %p, align {size}
  %n8 = and i64 %n, -8
  br label %lanes
lanes:
  %j = phi i64 [8, %blk], [%jn, %lanesadd]
  %r = phi {vec} [%r0, %blk], [%rn, %lanesadd]
  %lanesmore = icmp ult i64 %j, %n8
  br i1 %lanesmore, label %lanesadd, label %combine
lanesadd:
  %qj = getelementptr {ty}, ptr %p, i64 %j
  %vj = load {vec}, ptr %qj, align {size}
  %rn = fadd {vec} %r, %vj
  %jn = add nuw nsw i64 %j, 8
  br label %lanes
combine:
  %e0 = extractelement {vec} %r, i32 0
  %e1 = extractelement {vec} %r, i32 1
  %e2 = extractelement {vec} %r, i32 2
  %e3 = extractelement {vec} %r, i32 3
  %e4 = extractelement {vec} %r, i32 4
  %e5 = extractelement {vec} %r, i32 5
  %e6 = extractelement {vec} %r, i32 6
  %e7 = extractelement {vec} %r, i32 7
  %s01 = fadd {ty} %e0, %e1
  %s23 = fadd {ty} %e2, %e3
  %s45 = fadd {ty} %e4, %e5
  %s67 = fadd {ty} %e6, %e7
  %s03 = fadd {ty} %s01, %s23
  %s47 = fadd {ty} %s45, %s67
  %s07 = fadd {ty} %s03, %s47
  br label %tail
{_in_order(ty, "tail", "%n8", "%s07", "combine")}split:
  %half = lshr i64 %n, 1
  %n2 = and i64 %half, -8
  %left = call {ty} @kernel.pw(ptr %p, i64 %n2)
  %p2 = getelementptr {ty}, ptr %p, i64 %n2
  %rest = sub nuw nsw i64 %n, %n2
  %right = call {ty} @kernel.pw(ptr %p2, i64 %rest)
  %both = fadd {ty} %left, %right
  ret {ty} %both
}}
"""


def _in_order(ty: str, name: str, start: str, init: str, pred: str) -> str:
    """Blocks `name`...: return init + p[start] + p[start + 1] + ... + p[n - 1], in order
    (a short row, and the elements a block of eight leaves)."""
    return f"""{name}:
  %{name}.i = phi i64 [{start}, %{pred}], [%{name}.in, %{name}.add]
  %{name}.acc = phi {ty} [{init}, %{pred}], [%{name}.accn, %{name}.add]
  %{name}.done = icmp uge i64 %{name}.i, %n
  br i1 %{name}.done, label %{name}.end, label %{name}.add
{name}.add:
  %{name}.q = getelementptr {ty}, ptr %p, i64 %{name}.i
  %{name}.v = load {ty}, ptr %{name}.q
  %{name}.accn = fadd {ty} %{name}.acc, %{name}.v
  %{name}.in = add nuw nsw i64 %{name}.i, 1
  br label %{name}
{name}.end:
  ret {ty} %{name}.acc
"""
