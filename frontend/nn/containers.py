"""`CellList` and `SequentialCell`: ordered groups of Cells.

Children are registered under their index ("0", "1", ...), so Parameters are
named `0.weight`, and `layers.0.weight` once the container is an attribute.
The graph compiler unrolls `for cell in cell_list` over a CellList, and
`SequentialCell.construct` loops over the tuple `self.cell_list`.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Iterator
from typing import Any

from mindjit.frontend.nn.cell import Cell


def _check_cell(cell: Any, owner: str) -> Cell:
    if not isinstance(cell, Cell):
        raise TypeError(f"For '{owner}', each element must be a Cell, got {type(cell).__name__}")
    return cell


def _index(index: Any, length: int, owner: str) -> int:
    if isinstance(index, bool) or not isinstance(index, int):
        raise TypeError(f"For '{owner}', the index must be an int, got {type(index).__name__}")
    if not -length <= index < length:
        raise IndexError(f"For '{owner}', index {index} is out of range for length {length}")
    return index % length


class _CellSequence(Cell):
    """Index-keyed children, renumbered (and renamed) after every change."""

    def __init__(self, cells: Iterable[Cell] = (), auto_prefix: bool = True):
        super().__init__(auto_prefix)
        self._set_cells(list(cells))

    def _set_cells(self, cells: list[Cell]) -> None:
        for cell in cells:
            _check_cell(cell, self.cls_name)
        self._cells.clear()
        for i, cell in enumerate(cells):
            self.insert_child_to_cell(str(i), cell)

    def _list(self) -> list[Cell]:
        return list(self._cells.values())

    def __len__(self) -> int:
        return len(self._cells)

    def __iter__(self) -> Iterator[Cell]:
        return iter(self._list())

    def __getitem__(self, index: Any) -> Any:
        cells = self._list()
        if isinstance(index, slice):
            return type(self)(cells[index], auto_prefix=False)  # a view: no renaming
        return cells[_index(index, len(cells), self.cls_name)]

    def __setitem__(self, index: int, cell: Cell) -> None:
        cells = self._list()
        cells[_index(index, len(cells), self.cls_name)] = _check_cell(cell, self.cls_name)
        self._set_cells(cells)

    def __delitem__(self, index: int | slice) -> None:
        cells = self._list()
        if isinstance(index, slice):
            del cells[index]
        else:
            del cells[_index(index, len(cells), self.cls_name)]
        self._set_cells(cells)

    def append(self, cell: Cell) -> None:
        self.insert_child_to_cell(str(len(self)), _check_cell(cell, self.cls_name))

    def extend(self, cells: Iterable[Cell]) -> _CellSequence:
        for cell in cells:
            self.append(cell)
        return self

    def insert(self, index: int, cell: Cell) -> None:
        cells = self._list()
        at = index if index >= len(cells) else _index(index, max(len(cells), 1), self.cls_name)
        cells.insert(at, _check_cell(cell, self.cls_name))
        self._set_cells(cells)


class CellList(_CellSequence):
    """A list of Cells: `CellList([Dense(2, 2), ReLU()])`, `append`, `extend`, `insert`."""

    def __init__(self, *args: Any, **kwargs: Any):
        auto_prefix = kwargs.pop("auto_prefix", True)
        if kwargs:
            raise TypeError(f"CellList got unexpected arguments {sorted(kwargs)}")
        if len(args) > 1:
            raise TypeError("CellList takes one list of Cells")
        super().__init__(args[0] if args else (), auto_prefix)


class SequentialCell(_CellSequence):
    """Cells applied in order: `SequentialCell([Dense(4, 2), ReLU()])` or an OrderedDict."""

    def __init__(self, *args: Any, auto_prefix: bool = True):
        if len(args) == 1 and isinstance(args[0], OrderedDict | dict):
            Cell.__init__(self, auto_prefix)
            for name, cell in args[0].items():
                self.insert_child_to_cell(name, _check_cell(cell, "SequentialCell"))
            return
        if len(args) == 1 and isinstance(args[0], list | tuple):
            cells = list(args[0])
        else:
            cells = list(args)
        super().__init__(cells, auto_prefix)

    @property
    def cell_list(self) -> tuple[Cell, ...]:
        return tuple(self._cells.values())

    def construct(self, input_data):
        for cell in self.cell_list:
            input_data = cell(input_data)
        return input_data
