"""Symbol lookups for one verification or one analysis, each table built once.

xDSL's `SymbolTable.lookup_symbol` (the trait's) scans the symbol table's ops
linearly, and both `func.call` and `mindir.get_parameter` verifiers look their
symbol up: verifying a module with n Parameters and calls that way costs
O(n^2) (2.6 s for a 64-block model). xDSL 0.74's own answer is
`SymbolTableCollection`: a dict per symbol table, built on first use. `Symbols`
adds the one thing it lacks, the nearest symbol table of each block,
remembered (an entry graph has thousands of ops in one block).

A `Symbols` is made per verification or analysis and dropped after it: it is
right while nothing adds, removes or renames a symbol. `in_use(symbols)` makes
it the one `lookup_symbol` answers from, for the current thread (a context
variable): ops' verifiers call `lookup_symbol`, and get the fast answer inside a
verification and xDSL's own outside it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar

from xdsl.dialects.builtin import StringAttr, SymbolRefAttr
from xdsl.ir import Block, Operation
from xdsl.traits import SymbolTable as SymbolTableTrait
from xdsl.utils.symbol_table import SymbolTable, SymbolTableCollection


class Symbols:
    def __init__(self) -> None:
        self.tables = SymbolTableCollection()
        self._nearest: dict[Block, Operation | None] = {}
        self._is_table: dict[type, bool] = {}

    def is_table(self, op: Operation) -> bool:
        cls = type(op)
        known = self._is_table.get(cls)
        if known is None:
            known = self._is_table[cls] = op.has_trait(SymbolTableTrait)
        return known

    def nearest_table(self, op: Operation) -> Operation | None:
        """The symbol table `op` is in (`op` itself when it is one), as xDSL finds it."""
        if self.is_table(op):
            return op
        block = op.parent
        if block is None:
            return None
        if block not in self._nearest:
            self._nearest[block] = SymbolTable.get_nearest_symbol_table(op)
        return self._nearest[block]

    def lookup(self, op: Operation, symbol: str | StringAttr | SymbolRefAttr) -> Operation | None:
        """`SymbolTable.lookup_symbol(op, symbol)`'s answer (the symbol in the nearest
        symbol table of `op`, nested references followed)."""
        if isinstance(symbol, SymbolRefAttr):
            if symbol.nested_references.data:
                return SymbolTableTrait.lookup_symbol(op, symbol)  # rare: xDSL's own walk
            symbol = symbol.root_reference
        table = self.nearest_table(op)
        if table is None:  # the trait's answer
            raise ValueError(f"Operation {op} has no SymbolTable ancestor")
        return self.tables.get_symbol_table(table).lookup(symbol)


_IN_USE: ContextVar[Symbols | None] = ContextVar("mindjit_symbols", default=None)


@contextlib.contextmanager
def in_use(symbols: Symbols) -> Iterator[Symbols]:
    """Within the block (this thread or task only), `lookup_symbol` uses `symbols`."""
    token = _IN_USE.set(symbols)
    try:
        yield symbols
    finally:
        _IN_USE.reset(token)


def lookup_symbol(op: Operation, symbol: str | StringAttr | SymbolRefAttr) -> Operation | None:
    """`SymbolTable.lookup_symbol(op, symbol)`, from the `Symbols` in use if any."""
    symbols = _IN_USE.get()
    if symbols is None:
        return SymbolTableTrait.lookup_symbol(op, symbol)
    return symbols.lookup(op, symbol)
