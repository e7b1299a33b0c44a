"""Unsigned element types as signless for IREE: a pure type rewrite.

The lowering keeps MindSpore's unsigned element types (`tensor<3xui8>`) and says
in each op how the bits are read (`arith.divui`, `cmpi ult`, `uitofp`, see
passes/mindir_to_tensor/scalar.py). MLIR's arith ops, and so iree-compile, take
signless integers only (`'arith.cmpi' 'lhs' must be signless-...-integer-like,
but got 'ui8'`), so IREE's input has every `uiN` replaced by `iN`: types,
function signatures, block arguments and dense constants (the same bytes).
No op changes meaning. At the call the executable passes a uint8 array's bytes
as int8 and reads i8 results as uint8 by the entry's original types
(backend/iree/executable.py), so callers never see the signless form.
"""

from __future__ import annotations

import functools

from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    FunctionType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    Signedness,
    TensorType,
)
from xdsl.ir import Attribute
from xdsl.pattern_rewriter import PatternRewriteWalker, TypeConversionPattern

from mindjit.ir.walk import walk_ops


def is_signed_form(t: Attribute) -> bool:
    """An integer type with a sign (`ui8`, `si8`): not arith's signless."""
    return isinstance(t, IntegerType) and t.signedness.data != Signedness.SIGNLESS


def _element(t: Attribute) -> Attribute:
    get = getattr(t, "get_element_type", None)
    return get() if get is not None else t


def has_signed_forms(module: ModuleOp) -> bool:
    """Whether any value in `module` has a (tensor of) signed-form integer type."""
    for op in walk_ops(module):
        for r in op.results:
            if is_signed_form(_element(r.type)):
                return True
        for region in op.regions:
            for block in region.blocks:
                if any(is_signed_form(_element(a.type)) for a in block.args):
                    return True
    return False


class _Signless(TypeConversionPattern):
    """The types and typed attributes that carry an element type, one level deep:
    xDSL's `recursive=True` rebuilds every attribute of every op (measured on a
    3,600-op lowered module: 1.0 s even with nothing to change; this way 0.1 s
    with every value ui8, and a module without unsigned types stops after the
    4 ms scan in `make_signless`)."""

    def convert_type(self, typ: Attribute, /) -> Attribute | None:
        return _signless(typ)


@functools.lru_cache(maxsize=1024)
def _signless(t: Attribute) -> Attribute | None:
    if isinstance(t, IntegerType):
        return IntegerType(t.width.data) if is_signed_form(t) else None
    if isinstance(t, TensorType):
        element = _signless(t.element_type)
        return None if element is None else TensorType(element, t.shape, t.encoding)
    if isinstance(t, FunctionType):
        ins = [_signless(x) or x for x in t.inputs.data]
        outs = [_signless(x) or x for x in t.outputs.data]
        if ins == list(t.inputs.data) and outs == list(t.outputs.data):
            return None
        return FunctionType.from_lists(ins, outs)
    if isinstance(t, DenseIntOrFPElementsAttr | IntegerAttr):  # the same bytes / value
        typed = _signless(t.type)
        if typed is None:
            return None
        params = list(t.parameters)
        params[params.index(t.type)] = typed
        return type(t).new(params)
    return None


def make_signless(module: ModuleOp) -> None:
    """Replace every `uiN`/`siN` in `module` by `iN`, in place."""
    if not has_signed_forms(module):
        return
    PatternRewriteWalker(_Signless(), apply_recursively=False).rewrite_module(module)
