"""TypeDispatchApplier: the greedy applier's result, trying only the patterns
written for each op's class."""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr, i32
from xdsl.ir import Operation
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from mindjit.dialects.parsing import parse_module
from mindjit.ir.dispatch import TypeDispatchApplier, matched_op_types
from mindjit.passes.mindir_to_tensor.convert_mindir_to_tensor import PATTERNS


class AddToSub(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.AddiOp, rewriter: PatternRewriter) -> None:
        rewriter.replace(op, arith.SubiOp(op.lhs, op.rhs))


class MulOrSubToAnd(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.MuliOp | arith.SubiOp, rewriter: PatternRewriter) -> None:
        rewriter.replace(op, arith.AndIOp(op.lhs, op.rhs))


class Counting(RewritePattern):
    """Not an op_type pattern: must be tried on every op."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        self.seen.append(op.name)


TEXT = """
func.func @f(%a: i32, %b: i32) -> (i32, i32, i32) {
  %dead = arith.muli %a, %b : i32
  %0 = arith.addi %a, %b : i32
  %1 = arith.muli %0, %b : i32
  %2 = arith.xori %1, %a : i32
  func.return %0, %1, %2 : i32, i32, i32
}
"""


def test_matched_op_types():
    assert matched_op_types(AddToSub()) == (arith.AddiOp,)
    assert matched_op_types(MulOrSubToAnd()) == (arith.MuliOp, arith.SubiOp)
    assert matched_op_types(Counting()) is None


def _run(applier: RewritePattern) -> str:
    module = parse_module(TEXT)
    PatternRewriteWalker(applier, apply_recursively=False).rewrite_module(module)
    return str(module)


def test_same_result_as_the_greedy_applier():
    patterns = [AddToSub(), MulOrSubToAnd()]
    expected = _run(GreedyRewritePatternApplier(patterns, dce_enabled=True))
    assert _run(TypeDispatchApplier(patterns, dce_enabled=True)) == expected
    assert "arith.muli" not in expected and "%dead" not in expected
    assert "arith.xori" in expected  # no pattern for it


def test_untyped_patterns_see_every_op_and_order_is_kept():
    counting = Counting()
    _run(TypeDispatchApplier([counting, AddToSub()], dce_enabled=False))
    assert "arith.xori" in counting.seen and "func.return" in counting.seen
    # AddToSub after a pattern that does nothing still applies
    module = parse_module(TEXT)
    PatternRewriteWalker(
        TypeDispatchApplier([Counting(), AddToSub()]), apply_recursively=False
    ).rewrite_module(module)
    assert "arith.addi" not in str(module)


def test_dce_can_be_turned_off():
    assert "%dead" in _run(TypeDispatchApplier([], dce_enabled=False))
    assert "%dead" not in _run(TypeDispatchApplier([], dce_enabled=True))


def test_lowering_patterns_all_name_their_op_class():
    """Every convert-mindir-to-tensor pattern but the float-status one is dispatched
    by class (a new untyped pattern would be tried on every op: slower, not wrong)."""
    untyped = [type(p).__name__ for p in PATTERNS if matched_op_types(p) is None]
    assert untyped == ["LowerFloatStatus"]


def test_an_op_class_without_patterns_gets_none():
    const = arith.ConstantOp(IntegerAttr(1, i32))
    assert TypeDispatchApplier([AddToSub()])._for_class(type(const)) == []
