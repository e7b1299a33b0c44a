"""Fixes for xDSL 0.74: behaviour that breaks MLIR round trips (hex floats, below)
and verifier costs that grow too fast for a large model (symbol lookups, the
IsolatedFromAbove check; further down). Imported by parsing.py and diagnostics.py.

MLIR reads a hexadecimal element of a float `dense<...>` literal as the float's
bit pattern (`dense<0xFF800000> : tensor<2xf32>` is -inf), and xDSL prints
non-finite floats that way, but xDSL 0.74's parser converts the integer
numerically (to 4.28e9). Lowered IR holding -inf (e.g. a max-reduction's
init) would then change value when re-read by ms-run. This restores MLIR's
reading; drop it once the pinned xDSL parses hex float elements as bits.
"""

from __future__ import annotations

import struct

from xdsl.dialects.builtin import Float16Type, Float32Type, Float64Type
from xdsl.parser.attribute_parser import AttrParser

_BIT_FORMATS = {Float16Type: ("<H", "<e"), Float32Type: ("<I", "<f"), Float64Type: ("<Q", "<d")}

_Element = AttrParser._TensorLiteralElement  # noqa: SLF001 - the element class is private
_original_to_type = _Element.to_type


def _to_type_reading_hex_floats_as_bits(self, parser, type):  # type: ignore[no-untyped-def]
    formats = _BIT_FORMATS.get(type.__class__)
    text = self.span.text.lstrip("-")
    if formats is not None and text[:2].lower() == "0x" and isinstance(self.value, int):
        int_format, float_format = formats
        bits = int(text, 16)
        try:
            return struct.unpack(float_format, struct.pack(int_format, bits))[0]
        except struct.error:
            parser.raise_error(
                f"hexadecimal float {text} does not fit {type}", at_position=self.span
            )
    return _original_to_type(self, parser, type)


if getattr(_Element.to_type, "__name__", "") != _to_type_reading_hex_floats_as_bits.__name__:
    _Element.to_type = _to_type_reading_hex_floats_as_bits


# --- symbol lookups during verification ----------------------------------------------
#
# xDSL's `SymbolTable.lookup_symbol` scans the symbol table's ops linearly, and both
# `func.call` and `mindir.get_parameter` verifiers look their symbol up: verifying a
# module with n Parameters and calls costs O(n^2) (2.6 s for a 64-block model). While
# a module is being verified nothing changes it, so lookups can be memoized per
# symbol-table op for the duration of one verification (or of a pass's analysis
# that adds and removes no symbols, as in mindir-load-elim).

import contextlib  # noqa: E402
from collections.abc import Iterator  # noqa: E402

from xdsl.traits import SymbolOpInterface, SymbolTable  # noqa: E402

from mindjit.ir.walk import block_ops  # noqa: E402

_original_lookup = SymbolTable.lookup_symbol
_UNKNOWN = object()


@contextlib.contextmanager
def memoized_symbol_lookups() -> Iterator[None]:
    """Within the block, symbol lookups hit a dict built once per symbol table."""
    from xdsl.dialects.builtin import StringAttr, SymbolRefAttr

    tables: dict[int, dict[str, object]] = {}
    by_block: dict[int, dict[str, object]] = {}  # a block's nearest symbol table
    is_table: dict[type, bool] = {}
    traits: dict[type, object] = {}  # op class -> its SymbolOpInterface or None

    def lookup(op, name):  # type: ignore[no-untyped-def]
        if isinstance(name, SymbolRefAttr) and name.nested_references.data:
            return _original_lookup(op, name)
        cls = type(op)
        own = is_table.get(cls)
        if own is None:
            own = is_table[cls] = op.has_trait(SymbolTable)
        block = op.parent
        table = None if own or block is None else by_block.get(id(block))
        if table is not None:
            return table.get(_key(name))
        anchor = op
        while anchor is not None and not anchor.has_trait(SymbolTable):
            anchor = anchor.parent_op()
        if anchor is None:
            return _original_lookup(op, name)
        table = tables.get(id(anchor))
        if table is None:
            table = {}
            for o in block_ops(anchor.regions[0].block):
                cls = type(o)
                trait = traits.get(cls, _UNKNOWN)
                if trait is _UNKNOWN:
                    trait = traits[cls] = o.get_trait(SymbolOpInterface)
                if trait is None:
                    continue
                # the interface's own rule is "the sym_name property": read it directly
                sym = o.properties.get("sym_name") if type(trait) is SymbolOpInterface else None
                if type(sym) is not StringAttr and not isinstance(sym, StringAttr):
                    sym = trait.get_sym_attr_name(o)  # type: ignore[union-attr]
                if sym is not None:
                    table.setdefault(sym.data, o)
            tables[id(anchor)] = table
        if not own and block is not None:
            by_block[id(block)] = table
        return table.get(_key(name))

    def _key(name):  # type: ignore[no-untyped-def]
        if isinstance(name, SymbolRefAttr):
            return name.root_reference.data
        return name.data if isinstance(name, StringAttr) else name

    SymbolTable.lookup_symbol = staticmethod(lookup)  # type: ignore[method-assign]
    try:
        yield
    finally:
        SymbolTable.lookup_symbol = staticmethod(_original_lookup)  # type: ignore[method-assign]


# --- IsolatedFromAbove in one pass ----------------------------------------------------
#
# xDSL's check walks up the parents of every operand's owner and asks every nested op
# for its traits: an entry graph of thousands of call operands spends more there than
# in any pass. Same verdict: an operand must be defined in a block inside the op
# (any depth), never by the op itself; nested isolated ops' regions are left to them.

from xdsl.ir import Operation, OpResult, Region  # noqa: E402
from xdsl.traits import IsolatedFromAbove  # noqa: E402
from xdsl.utils.exceptions import VerifyException  # noqa: E402

_original_isolated_verify = IsolatedFromAbove.verify


def _isolated_from_above_verify(self, op: Operation) -> None:  # type: ignore[no-untyped-def]
    inside: set[int] = set()  # the blocks met so far: an operand's usual definition place
    regions: list[Region] = list(op.regions)
    isolated: dict[type, bool] = {}
    while regions:
        region = regions.pop()
        inside.update(id(b) for b in region.blocks)
        for block in region.blocks:
            for child in block_ops(block):
                for operand in child._operands:  # noqa: SLF001 - no wrapper object per op
                    where = operand.op.parent if isinstance(operand, OpResult) else operand.block  # type: ignore[attr-defined]
                    if id(where) in inside:
                        continue
                    owner = operand.owner
                    if not op.is_ancestor(owner) or owner is op:  # xDSL's own test
                        raise VerifyException(
                            "Operation using value defined out of its "
                            f"IsolatedFromAbove parent: {child}"
                        )
                if child.regions:
                    cls = type(child)
                    own = isolated.get(cls)
                    if own is None:
                        own = isolated[cls] = child.has_trait(IsolatedFromAbove)
                    if not own:
                        regions += child.regions


IsolatedFromAbove.verify = _isolated_from_above_verify  # type: ignore[method-assign]


# --- SymbolTable's unique-names check on strings ----------------------------------------
#
# xDSL's check hashes each symbol's StringAttr (a dataclass: a tuple per hash) after a
# method call per op; a module of thousands of declarations is checked after the
# mindir passes and again after lowering. Same rules, same message: the names'
# strings go in the set (two StringAttrs are equal exactly when their strings are).

from xdsl.dialects.builtin import StringAttr  # noqa: E402
from xdsl.traits import SymbolTable as _SymbolTable  # noqa: E402

_original_symbol_table_verify = _SymbolTable.verify


def _symbol_table_verify(self, op: Operation) -> None:  # type: ignore[no-untyped-def]
    if len(op.regions) != 1:
        raise VerifyException("Operations with a 'SymbolTable' must have exactly one region")
    if len(op.regions[0].blocks) != 1:
        raise VerifyException("Operations with a 'SymbolTable' must have exactly one block")
    met: set[str] = set()
    for o in block_ops(op.regions[0].blocks[0]):
        sym = o.properties.get("sym_name")  # get_attr_or_prop: properties first
        if sym is None:
            sym = o.attributes.get("sym_name")
        if not isinstance(sym, StringAttr):
            continue
        if sym.data in met:
            raise VerifyException(f'Redefinition of symbol "{sym.data}"')
        met.add(sym.data)


_SymbolTable.verify = _symbol_table_verify  # type: ignore[method-assign]


# --- string literals without exponential backtracking -----------------------------------
#
# xDSL's string-literal regex `"(?:[^"\\...]+|\\...)*"` backtracks over every way of
# splitting a run of characters when no closing quote follows: an unterminated string
# of 60 characters (a typo in a .mlir file, a damaged kernel code in a model file)
# hangs the lexer. The two alternatives start with disjoint characters, so making the
# repetitions possessive matches exactly the same literals and fails in linear time.

import re  # noqa: E402

from xdsl.utils.mlir_lexer import MLIRLexer  # noqa: E402

MLIRLexer._unescaped_characters_regex = re.compile(  # noqa: SLF001 - the regex is private
    r'"(?:[^"\\\n\v\f]++|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*+"'
)
