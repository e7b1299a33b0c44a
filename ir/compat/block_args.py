"""Changing a block's arguments many at a time.

xDSL's `Block.insert_arg` and `erase_arg` rebuild the argument tuple and renumber
the arguments after the change, so each costs O(arguments). An entry graph takes
every Parameter of a model as an argument (thousands: see
`mindjit.dialects.mindir.parameter_args`); adding or retyping them one by one would be
quadratic. Here an argument is made detached (usable as an operand at once) and
the block's whole argument list is installed in one step, or an argument changes
type in place (xDSL values have no type setter).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import Attribute, Block, BlockArgument
from xdsl.ir.core import _unknown_loc  # pyright: ignore[reportPrivateUsage]

from mindjit.ir.compat.touchpoint import Touchpoint

TOUCHPOINT = Touchpoint(
    name="block-args",
    kind="private",
    reason="`Block.insert_arg` / `erase_arg` renumber every argument after the change: "
    "adding an entry graph's thousands of Parameter arguments one by one is quadratic",
    cost="measured in docs/xdsl-compat.md (benchmarks/compat_costs.py)",
    upstream="no bulk argument setter nor a type setter in xDSL",
    delete_when="xDSL can set a block's arguments in one step and retype a value",
    xdsl_sources={
        "xdsl.ir.core.Block.insert_arg": "836d59f3563e",
        "xdsl.ir.core.Block.args": "5e85bfa027a4",
        "xdsl.ir.core.BlockArgument": "b586e8ce1631",
    },
)


def detached_arg(block: Block, arg_type: Attribute) -> BlockArgument:
    """A new argument of `block`, not yet in its argument list (see `set_args`)."""
    return BlockArgument(arg_type, block, -1, _unknown_loc())


def set_args(block: Block, args: Sequence[BlockArgument]) -> None:
    """Make `args` the arguments of `block`, in order. Arguments of `block` left out
    must have no uses left."""
    kept = {id(a) for a in args}
    for old in block.args:
        if id(old) not in kept:
            assert not old.uses, "a dropped block argument is still used"
    for i, a in enumerate(args):
        assert a.block is block
        a.index = i
    block._args = tuple(args)  # pyright: ignore[reportPrivateUsage]


def retype_arg(arg: BlockArgument, arg_type: Attribute) -> None:
    """Give `arg` another type, keeping its uses: for a lowering that rewrites every
    use that depends on the old type (the function type is the caller's to update)."""
    arg._type = arg_type  # pyright: ignore[reportPrivateUsage]
