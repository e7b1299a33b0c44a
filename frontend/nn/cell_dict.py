"""`nn.CellDict`: Cells kept by name, with MindSpore 2.x's rules.

Keys are non-empty str without '.', not an attribute of the Cell (KeyError);
values are Cells but not containers (CellDict, CellList, SequentialCell: TypeError).
Children are registered under their key, so Parameters are named `key.weight`
(`attr.key.weight` once the CellDict is an attribute of a Cell). The dict is a
Python object to the graph compiler: in `construct`, `self.cells['a'](x)`,
`for name in self.cells`, `self.cells.keys()/values()/items()`, `len` and `in` are
evaluated while the graph is built, as MindSpore's graph mode does.
"""

from __future__ import annotations

from collections import OrderedDict, abc
from collections.abc import Iterator
from typing import Any

from mindjit.frontend.nn.cell import Cell
from mindjit.frontend.nn.containers import CellList, SequentialCell


class CellDict(Cell):
    def __init__(self, *args: Any, **kwargs: Any):
        auto_prefix = kwargs.pop("auto_prefix", True)
        if kwargs:
            raise TypeError(f"CellDict got unexpected arguments {sorted(kwargs)}")
        if len(args) > 1:
            raise TypeError(f"CellDict expected at most 1 argument, got {len(args)}")
        super().__init__(auto_prefix)
        if args:
            self.update(args[0])

    def _validate_key(self, key: Any) -> None:
        name = type(self).__name__
        if not isinstance(key, str):
            raise TypeError(
                f"For '{name}', the type of key should be string but got {type(key).__name__}."
            )
        if key not in self._cells and hasattr(self, key):
            raise KeyError(
                f"For '{name}', the key can not be same with the attributes of Cell, but got "
                f"key {key}."
            )
        if "." in key:
            raise KeyError(f"For '{name}', key can not contain \".\", but got key {key}")
        if key == "":
            raise KeyError(f"For '{name}', key can not be empty string \"\", but got key {key}")

    def _validate_cell(self, cell: Any) -> None:
        name = type(self).__name__
        if cell is None:
            raise TypeError(f"For '{name}', cell can not be None.")
        if not isinstance(cell, Cell):
            raise TypeError(
                f"For '{name}', the type of cell should be Cell, but got {type(cell).__name__}."
            )
        if isinstance(cell, CellDict | CellList | SequentialCell):
            raise TypeError(
                f"For '{name}', the type of cell can not be CellDict, CellList or "
                f"SequentialCell, but got {type(cell).__name__}."
            )

    def __getitem__(self, key: str) -> Cell:
        return self._cells[key]

    def __setitem__(self, key: str, cell: Cell) -> None:
        self._validate_key(key)
        self._validate_cell(cell)
        self.insert_child_to_cell(key, cell)

    def __delitem__(self, key: str) -> None:
        del self._cells[key]

    def __len__(self) -> int:
        return len(self._cells)

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._cells))

    def __contains__(self, key: object) -> bool:
        return key in self._cells

    def clear(self) -> None:
        self._cells.clear()

    def pop(self, key: str) -> Cell:
        value = self[key]
        del self[key]
        return value

    def keys(self) -> Any:
        return self._cells.keys()

    def values(self) -> Any:
        return self._cells.values()

    def items(self) -> Any:
        return self._cells.items()

    def update(self, cells: Any) -> None:
        if not isinstance(cells, abc.Iterable):
            raise TypeError(
                "CellDict.update() should be called with an iterable of key-value pairs, but "
                f"got {type(cells).__name__}"
            )
        if isinstance(cells, OrderedDict | CellDict | abc.Mapping):
            for key, cell in cells.items():
                self[key] = cell
            return
        for i, pair in enumerate(cells):
            if not isinstance(pair, abc.Iterable):
                raise TypeError(
                    f"CellDict update sequence element #{i} should be Iterable; but got "
                    f"{type(pair).__name__}"
                )
            pair = tuple(pair)
            if len(pair) != 2:
                raise ValueError(
                    f"CellDict update sequence element #{i}, length should be 2; but has "
                    f"length {len(pair)}"
                )
            self[pair[0]] = pair[1]

    def construct(self, *inputs):
        raise NotImplementedError


__all__ = ["CellDict"]
