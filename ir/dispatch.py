"""A pattern applier that only tries the patterns written for the op's class.

xDSL's `GreedyRewritePatternApplier` calls every pattern on every op, and each
`@op_type_rewrite_pattern` pattern starts with an `isinstance` check against its
op class: a lowering with a dozen pattern families pays a dozen checks per op,
most of the walk's time on a large model. `TypeDispatchApplier` reads the op
class each pattern is written for (the annotation `op_type_rewrite_pattern`
already reads) and keeps, per op class met, the patterns that can match it, in
their given order. A pattern whose op class it cannot read is tried on every
op, so the result is always the greedy applier's.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import UnionType
from typing import Union, get_args, get_origin

from xdsl.ir import Operation
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.transforms.dead_code_elimination import is_trivially_dead


def matched_op_types(pattern: RewritePattern) -> tuple[type, ...] | None:
    """The op classes an `@op_type_rewrite_pattern` pattern is written for, or None
    (any op) for other patterns."""
    impl = type(pattern).match_and_rewrite
    code, closure = getattr(impl, "__code__", None), getattr(impl, "__closure__", None)
    if code is None or closure is None or "expected_type" not in code.co_freevars:
        return None
    expected = closure[code.co_freevars.index("expected_type")].cell_contents
    types = get_args(expected) if get_origin(expected) in (Union, UnionType) else (expected,)
    if not all(isinstance(t, type) and issubclass(t, Operation) for t in types):
        return None
    return types


class TypeDispatchApplier(RewritePattern):
    """Apply the first of `patterns` that rewrites the op (erasing a trivially dead
    op first, as the greedy applier does), trying only those written for its class."""

    def __init__(self, patterns: Sequence[RewritePattern], dce_enabled: bool = True):
        self.patterns = list(patterns)
        self.dce_enabled = dce_enabled
        self._types = [matched_op_types(p) for p in self.patterns]
        self._by_class: dict[type, list[RewritePattern]] = {}

    def _for_class(self, cls: type) -> list[RewritePattern]:
        found = self._by_class.get(cls)
        if found is None:
            found = [
                p
                for p, types in zip(self.patterns, self._types)
                if types is None or issubclass(cls, types)
            ]
            self._by_class[cls] = found
        return found

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if self.dce_enabled and is_trivially_dead(op):
            rewriter.erase(op)
            return
        for pattern in self._for_class(type(op)):
            pattern.match_and_rewrite(op, rewriter)
            if rewriter.has_done_action:
                return
