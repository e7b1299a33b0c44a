"""mindir-grad's rules for index ops: argmax/argmin (no gradient: integer results)."""

from __future__ import annotations

from mindjit.dialects import mindir as M
from mindjit.passes.mindir_grad.rules import RULES

RULES.exclude(
    "an integer result (an index) carries no gradient; ops.max/min take their values' "
    "gradient through the one-hot selection of the chosen element",
    *M.INDEX_REDUCE_OPS,
)
