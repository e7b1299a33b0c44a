"""canonicalize{region-simplify=normal|disabled}: xDSL's canonicalize with MLIR's option.

MLIR's canonicalizer takes `region-simplify` (its `GreedyRewriteConfig`'s region
simplification: dead code found by liveness over whole regions). xDSL's pass
always runs it (`region_dce` after the pattern walk) and has no option; this
is xDSL's pass with the option (`normal`, the default, is xDSL's behaviour;
`aggressive` is accepted as `normal`).

The compile pipelines run `canonicalize{region-simplify=disabled}`: the pattern
walk already erases every op that is trivially dead, and in the IR mindjit
builds (single-block regions, no CFG) region liveness finds nothing more. It
cost as much as the walk: 0.53 s of the sentiment model's 1.0 s of
canonicalize, removing nothing there, on the model zoo or on the fuzzer's
programs.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriteWalker
from xdsl.transforms import canonicalize as xdsl_canonicalize

from mindjit.support.errors import MindjitError

REGION_SIMPLIFY = ("normal", "aggressive", "disabled")


@dataclass(frozen=True)
class CanonicalizePass(xdsl_canonicalize.CanonicalizePass):
    """xDSL's canonicalize; `region-simplify=disabled` skips the region liveness
    sweep after the pattern walk (see the module doc)."""

    name = "canonicalize"

    region_simplify: str = "normal"

    def __post_init__(self) -> None:
        if self.region_simplify not in REGION_SIMPLIFY:
            raise MindjitError(
                f"canonicalize: region-simplify must be one of {', '.join(REGION_SIMPLIFY)}, "
                f"got '{self.region_simplify}'"
            )

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.region_simplify != "disabled":
            super().apply(ctx, op)
            return
        pattern = GreedyRewritePatternApplier(
            [xdsl_canonicalize.CanonicalizationRewritePattern()], ctx=ctx, folding_enabled=True
        )
        PatternRewriteWalker(pattern).rewrite_region(op.body)
