"""Mirror: an upstream op's verifier gives the same verdict for the same signature.

A lowered graph repeats a few hundred op shapes thousands of times (a model of
N identical Blocks has N copies of each), and xDSL verifies each op anew: 20 us
for an `arith.addf`, 86 us for a `linalg.generic` (IRDL's constraint machinery,
the traits, then the op's own verifier). The verifiers of the arith, math,
linalg and tensor ops read only what `signature` collects: the op's class, the
types of its operands and results, its properties and attributes, the argument
types and the terminator class of each block of its regions (linalg reads its
body's arguments; SingleBlockImplicitTerminator the terminators), the class of
its parent op (HasParent) and whether it ends its block (IsTerminator). None
reads the ops defining its operands, its users, a symbol table or the ops inside
its regions (those are verified on their own). So an op whose signature has
passed once passes again, and `verify_located` then only makes the structure
checks xDSL makes before the op's own verifier.

Only classes of those dialects (and the classes mindjit's own dialects declare
with `register`) whose traits are all in `_SIGNATURE_TRAITS` (or verify
nothing) are remembered; `arith.constant` is not (its value is its signature,
unique and large). The reviewed verifiers are fingerprinted: when
one changes, tests/ir/test_compat.py says to re-check what it reads.

The key takes the attributes by identity (`signature`), the value key being the
fallback (`passed`): hashing a key by value hashed every nested attribute again
(a tensor type its shape's IntAttrs), half of verifying the GPT-32 train step
(verify-tensor 278 -> 231 ms with the identity key).
"""

from __future__ import annotations

from collections.abc import Hashable

from xdsl.dialects import arith
from xdsl.ir import Operation
from xdsl.traits import (
    HasParent,
    IsTerminator,
    OpTrait,
    SameOperandsAndResultType,
    SingleBlockImplicitTerminator,
)

from mindjit.ir.compat.linked_ops import raw_operands
from mindjit.ir.compat.touchpoint import Touchpoint

TOUCHPOINT = Touchpoint(
    name="verify-memo",
    kind="mirror",
    reason="the arith, math, linalg and tensor verifiers depend on the op's signature "
    "only; a lowered graph repeats a few hundred signatures thousands of times",
    cost="verify-tensor of the 128-Block GPT train step (docs/xdsl-compat.md)",
    upstream="xDSL has no verification cache",
    delete_when="verifying these ops costs about as much as a dictionary lookup",
    xdsl_sources={
        "xdsl.irdl.operations.OpDef.verify": "87c5152c1688",
        "xdsl.traits.IsTerminator.verify": "c3a94c59d260",
        "xdsl.traits.HasParent.verify": "199b18851a72",
        "xdsl.traits.SingleBlockImplicitTerminator.verify": "3809b5dc00b7",
        "xdsl.traits.SameOperandsAndResultType.verify": "c9fc198819cc",
        "xdsl.dialects.linalg.abstract_ops.LinalgStructuredOperation.verify_": "ec3f5ed5bf17",
    },
)

#: the dialects whose verifiers were reviewed (see the module doc)
_DIALECT_MODULES = (
    "xdsl.dialects.arith",
    "xdsl.dialects.math",
    "xdsl.dialects.linalg.ops",
    "xdsl.dialects.tensor",
)
#: traits whose checks read only what `signature` collects
_SIGNATURE_TRAITS = (
    IsTerminator,
    HasParent,
    SingleBlockImplicitTerminator,
    SameOperandsAndResultType,
)

_memoizable: dict[type, bool] = {}
#: classes a dialect of mindjit's declares signature-only (`register`)
_registered: set[type] = set()


def register(*classes: type) -> None:
    """Declare op classes (of mindjit's own dialects) whose verifiers, IRDL's checks
    and traits read only what `signature` collects."""
    _registered.update(classes)
    for cls in classes:
        _memoizable.pop(cls, None)


_passed: set[Hashable] = set()
#: identity key -> the value key it was found equal to (holding its attributes alive)
_by_identity: dict[tuple, Hashable] = {}
#: a bound on remembered signatures (each holds its attributes alive)
_MAX_SIGNATURES = 200_000


def _is_memoizable(cls: type) -> bool:
    known = _memoizable.get(cls)
    if known is None:
        reviewed = cls.__module__ in _DIALECT_MODULES and cls is not arith.ConstantOp
        known = reviewed or cls in _registered
        if known:
            for trait in getattr(cls, "traits", ()):
                verifies = type(trait).verify is not OpTrait.verify
                if verifies and not isinstance(trait, _SIGNATURE_TRAITS):
                    known = False
                    break
        _memoizable[cls] = known
    return known


def signature(op: Operation) -> tuple | None:
    """What the op's verifier reads (see the module doc), its attributes taken by
    identity, or None if the verifier may read more. Cheap to hash: a value key
    hashes every nested attribute again (a tensor type its shape's IntAttrs), which
    was half of verifying a lowered GPT-32 train step. The lowering and the parser
    share their types and most properties, so the op's attributes are usually
    objects seen before (`passed` falls back to the value key when not)."""
    if not _is_memoizable(type(op)):
        return None
    structure, attributes = _read(op)
    return (*structure, *map(id, attributes))


def _value_key(op: Operation) -> Hashable:
    """The signature with its attributes by value: an op whose attributes are equal
    to, but not the objects of, a verified op's has the same verdict."""
    structure, attributes = _read(op)
    return (*structure, *attributes)


def _read(op: Operation) -> tuple[list, list]:
    """What the verifier reads: the plain part (classes, counts, names: each count
    before what it counts, so the key is unambiguous) and the attributes, in order
    (operand, result and block argument types, property and attribute values)."""
    block = op.parent
    parent = block.parent_op() if block is not None else None
    operands, results, regions = raw_operands(op), op.results, op.regions
    structure: list = [type(op), type(parent), block is not None and block.last_op is op]
    structure += (len(operands), len(results))
    attributes: list = [v.type for v in operands]
    attributes += [r.type for r in results]
    for table in (op.properties, op.attributes):
        structure.append(len(table))
        for name, value in table.items():
            structure.append(name)
            attributes.append(value)
    structure.append(len(regions))
    for region in regions:
        blocks = list(region.blocks)
        structure.append(len(blocks))
        for inner in blocks:
            args = inner.args
            structure += (len(args), type(inner.last_op))
            attributes += [a.type for a in args]
    return structure, attributes


def passed(key: tuple, op: Operation) -> bool:
    """Whether an op of `op`'s signature (`key = signature(op)`) passed before."""
    if key in _by_identity:
        return True
    value = _value_key(op)
    try:
        if value not in _passed:
            return False
    except TypeError:  # an attribute that cannot be hashed: never remembered
        return False
    _hold(key, value)
    return True


def remember(key: tuple, op: Operation) -> None:
    """`op` (of signature `key`) passed its verifier."""
    value = _value_key(op)
    try:
        hash(value)
    except TypeError:
        return
    if len(_passed) >= _MAX_SIGNATURES:
        _passed.clear()
    _passed.add(value)
    _hold(key, value)


def forget() -> None:
    """Drop every remembered verdict (benchmarks time verification from none)."""
    _passed.clear()
    _by_identity.clear()


def _hold(key: tuple, value: Hashable) -> None:
    """Remember `key`, keeping the attributes it names by id alive (`value` holds
    them): while held, no other object can take one of their ids."""
    if len(_by_identity) >= _MAX_SIGNATURES:
        _by_identity.clear()
    _by_identity[key] = value
