"""Mirror: xDSL's structural checks of an op, its regions and blocks, one op at a time.

`Operation.verify(verify_nested_ops=True)` recurses through `Region.verify` and
`Block.verify` into every nested op: a verifier that wants each failure located
at its own op (mindjit's `verify_located`, which walks the ops itself) calls it
with `verify_nested_ops=False`, and then loses the region and block checks
(parent pointers; an empty block in a single-block region that expects a
terminator). `check_regions` makes exactly those checks for one op's regions
without verifying the ops in them; `check_op_structure` makes the checks
`Operation.verify` makes before the op's own verifier (erased operands,
successors, terminator position), for the few op classes whose own verifier
mindjit replaces with a faster one (dialects/fast_verify.py). Same verdicts and
messages as xDSL's code they mirror.
"""

from __future__ import annotations

from xdsl.ir import ErasedSSAValue, Operation
from xdsl.traits import IsTerminator, NoTerminator
from xdsl.utils.exceptions import VerifyException

from mindjit.ir.compat.linked_ops import block_ops, has_successors, raw_operands
from mindjit.ir.compat.touchpoint import Touchpoint

TOUCHPOINT = Touchpoint(
    name="structure-checks",
    kind="mirror",
    reason="verifying op by op (to locate each failure) skips Region.verify and "
    "Block.verify, which only run nested",
    cost="measured in docs/xdsl-compat.md (benchmarks/compat_costs.py)",
    upstream="Operation.verify has no 'this op only, with its regions' structure mode",
    delete_when="xDSL verifies a region's structure without verifying the ops in it",
    xdsl_sources={
        "xdsl.ir.core.Operation.verify": "887a182608bb",
        "xdsl.ir.core.Block.verify": "17accb702d82",
        "xdsl.ir.core.Region.verify": "816683ac9964",
    },
)


def check_op_structure(op: Operation) -> None:
    """What `Operation.verify` checks before calling the op's own `verify_`."""
    for operand in raw_operands(op):
        if type(operand) is ErasedSSAValue:  # exact class: asked of every operand
            raise ValueError("Erased SSA value is used by the operation")
    parent_block = op.parent
    parent_region = None if parent_block is None else parent_block.parent
    if has_successors(op):
        if parent_block is None or parent_region is None:
            raise VerifyException(
                f"Operation {op.name} with block successors does not belong to a block or a region"
            )
        if parent_block.last_op is not op:
            raise VerifyException(
                f"Operation {op.name} with block successors must terminate its parent block"
            )
        for succ in op.successors:
            if succ.parent != parent_block.parent:
                raise VerifyException(
                    f"Operation {op.name} is branching to a block of a different region"
                )
    if parent_block is not None and parent_region is not None and parent_block.last_op is op:
        if len(parent_region.blocks) == 1:
            parent_op = parent_region.parent
            if parent_op is not None and not parent_op.has_trait(NoTerminator):
                if not op.has_trait(IsTerminator):
                    raise VerifyException(
                        f"Operation {op.name} terminates block in single-block region but "
                        "is not a terminator"
                    )
        elif len(parent_region.blocks) > 1 and not op.has_trait(IsTerminator):
            raise VerifyException(
                f"Operation {op.name} terminates block in multi-block region but is not a "
                "terminator"
            )


def check_regions(op: Operation) -> None:
    """What `Region.verify` and `Block.verify` check of `op`'s regions, without
    verifying the ops in them."""
    for region in op.regions:
        for block in region.blocks:
            ops = block_ops(block)
            for child in ops:
                if child.parent is not block:
                    raise ValueError(
                        "Parent pointer of operation does not refer to containing region"
                    )
            if not ops and len(region.blocks) == 1 and not op.has_trait(NoTerminator):
                raise VerifyException(
                    f"Operation {op.name} contains empty block in single-block region that "
                    "expects at least a terminator"
                )
            if block.parent is not region:
                raise ValueError("Parent pointer of block does not refer to containing region")
