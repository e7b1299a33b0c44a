"""The pipeline's operations as nodes: each knows its columns, yields one epoch
of rows (tuples of numpy arrays) from its child's, and knows its size without
running the user's code (`math.inf` after an endless `repeat()`).

Rows are pulled one at a time through Python generators in the calling thread:
no worker threads, no prefetch queue. The one random generator of an iterator
(iterators.py) is passed down, so the draws happen in pull order and a seeded
pipeline gives the same rows every run. The rules are MindSpore's: `map` puts
its outputs in place of its inputs when they are as many, else first with the
untouched columns after them (MapOp::ComputeColMap); `batch` stacks rows of one
shape; `shuffle` keeps a buffer of `buffer_size` rows and emits a random one as
each new row arrives (ShuffleOp).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from mindjit.frontend.dataset.transforms.base import apply, as_values
from mindjit.frontend.tensor import Tensor

Row = tuple[np.ndarray, ...]
_SCALARS = (int, float, str, bytes, np.ndarray, Tensor, np.number, np.bool_)


def as_array(value: Any, what: str) -> np.ndarray:
    """A column value as numpy (a Tensor's array; Python numbers as np.array makes them)."""
    if isinstance(value, Tensor):
        return value.asnumpy()
    arr = np.asarray(value)
    if arr.dtype == object:
        raise TypeError(
            f"{what} must be a number, a string or an array of them (numpy.ndarray, "
            f"Tensor, int, float, bool), but got {type(value).__name__} {value!r:.80}"
        )
    return arr


def as_row(value: Any, what: str) -> Row:
    """A source's item as a row: one value is one column, a tuple or list one per column."""
    if isinstance(value, _SCALARS):
        return (as_array(value, what),)
    if isinstance(value, dict):
        raise TypeError(f"{what} must be a tuple of arrays, one per column, not a dict")
    try:
        items = tuple(value)
    except TypeError:
        raise TypeError(
            f"{what} must be an array or a tuple of arrays, but got {type(value).__name__}"
        ) from None
    return tuple(as_array(v, f"{what}[{i}]") for i, v in enumerate(items))


def column_indices(names: Sequence[str], available: Sequence[str], where: str) -> list[int]:
    missing = [n for n in names if n not in available]
    if missing:
        raise RuntimeError(
            f"Invalid column, column name: {missing[0]!r} does not exist in the dataset "
            f"columns {list(available)} ({where})"
        )
    return [list(available).index(n) for n in names]


def _distinct(names: list[str], where: str) -> list[str]:
    if len(set(names)) != len(names):
        raise ValueError(f"{where} would give the dataset two columns of one name: {names}")
    return names


class Node:
    """One operation of the pipeline (a source when it has no child)."""

    columns: list[str]
    child: Node | None = None

    def rows(self, rng: np.random.Generator) -> Iterator[Row]:
        raise NotImplementedError

    def size(self) -> float:
        """Rows per epoch (an int, or `math.inf`)."""
        raise NotImplementedError

    @property
    def batch_size(self) -> int:
        return self.child.batch_size if self.child is not None else 1


class BatchNode(Node):
    def __init__(self, child: Node, batch_size: int, drop_remainder: bool):
        self.child, self.columns = child, list(child.columns)
        self._size, self.drop_remainder = batch_size, drop_remainder

    @property
    def batch_size(self) -> int:
        return self._size

    def rows(self, rng):
        group: list[Row] = []
        for row in self.child.rows(rng):
            group.append(row)
            if len(group) == self._size:
                yield self._stack(group)
                group = []
        if group and not self.drop_remainder:
            yield self._stack(group)

    def _stack(self, group: list[Row]) -> Row:
        out = []
        for c, name in enumerate(self.columns):
            first = group[0][c].shape
            for row in group[1:]:
                if row[c].shape != first:
                    raise RuntimeError(
                        "Inconsistent batch shapes, batch operation expects same shape for each "
                        f"data row, but got inconsistent shape in column {c} ({name!r}), expected "
                        f"shape for this column is: {first}, got shape: {row[c].shape}"
                    )
            out.append(np.stack([row[c] for row in group]))
        return tuple(out)

    def size(self):
        n = self.child.size()
        if n == math.inf:
            return n
        return n // self._size if self.drop_remainder else -(-n // self._size)


class ShuffleNode(Node):
    def __init__(self, child: Node, buffer_size: int):
        self.child, self.columns, self.buffer_size = child, list(child.columns), buffer_size

    def rows(self, rng):
        buffer: list[Row] = []
        for row in self.child.rows(rng):
            if len(buffer) < self.buffer_size:
                buffer.append(row)
                continue
            k = int(rng.integers(len(buffer)))
            out, buffer[k] = buffer[k], row
            yield out
        while buffer:
            k = int(rng.integers(len(buffer)))
            buffer[k], buffer[-1] = buffer[-1], buffer[k]
            yield buffer.pop()

    def size(self):
        return self.child.size()


class MapNode(Node):
    def __init__(
        self,
        child: Node,
        operations: list[Callable[..., Any]],
        input_columns: list[str],
        output_columns: list[str],
    ):
        self.child, self.operations = child, operations
        self.inputs = column_indices(input_columns, child.columns, "map's input_columns")
        self.n_out = len(output_columns)
        if len(input_columns) == len(output_columns):
            names = list(child.columns)
            for i, name in zip(self.inputs, output_columns):
                names[i] = name
        else:
            names = output_columns + [
                c for i, c in enumerate(child.columns) if i not in self.inputs
            ]
        self.columns = _distinct(names, "map's output_columns")

    def rows(self, rng):
        in_place = len(self.inputs) == self.n_out
        kept = [i for i in range(len(self.child.columns)) if i not in self.inputs]
        for row in self.child.rows(rng):
            values: list[Any] = [row[i] for i in self.inputs]
            for op in self.operations:  # a transform draws from the pipeline's generator
                values = as_values(apply(op, rng, values))
            if len(values) != self.n_out:
                raise RuntimeError(
                    "the number of columns returned in 'map' operations should match the number "
                    f"of 'output_columns', but got the number of columns returned in 'map' "
                    f"operations: {len(values)}, the number of 'output_columns': {self.n_out}."
                )
            out = [as_array(v, "a map operation's result") for v in values]
            if in_place:
                new = list(row)
                for i, v in zip(self.inputs, out):
                    new[i] = v
                yield tuple(new)
            else:
                yield tuple(out) + tuple(row[i] for i in kept)

    def size(self):
        return self.child.size()


class RepeatNode(Node):
    def __init__(self, child: Node, count: int):
        self.child, self.columns, self.count = child, list(child.columns), count

    def rows(self, rng):
        passes = itertools.count() if self.count == -1 else range(self.count)
        for _ in passes:
            seen = False
            for row in self.child.rows(rng):
                seen = True
                yield row
            if not seen:  # an empty child: repeating it forever yields nothing, once
                return

    def size(self):
        n = self.child.size()
        if self.count == -1:
            return math.inf if n > 0 else 0
        return n * self.count


class TakeNode(Node):
    def __init__(self, child: Node, count: int):
        self.child, self.columns, self.count = child, list(child.columns), count

    def rows(self, rng):
        rows = self.child.rows(rng)
        return rows if self.count == -1 else itertools.islice(rows, self.count)

    def size(self):
        n = self.child.size()
        return n if self.count == -1 else min(n, self.count)


class SkipNode(Node):
    def __init__(self, child: Node, count: int):
        self.child, self.columns, self.count = child, list(child.columns), count

    def rows(self, rng):
        return itertools.islice(self.child.rows(rng), self.count, None)

    def size(self):
        return max(0, self.child.size() - self.count)


class ProjectNode(Node):
    def __init__(self, child: Node, columns: list[str]):
        self.child, self.columns = child, columns
        self.picks = column_indices(columns, child.columns, "project")

    def rows(self, rng):
        for row in self.child.rows(rng):
            yield tuple(row[i] for i in self.picks)

    def size(self):
        return self.child.size()


class RenameNode(Node):
    def __init__(self, child: Node, input_columns: list[str], output_columns: list[str]):
        if len(input_columns) != len(output_columns):
            raise ValueError(
                "rename's input_columns and output_columns must have the same length, but got "
                f"{len(input_columns)} and {len(output_columns)}"
            )
        self.child = child
        names = list(child.columns)
        for i, new in zip(column_indices(input_columns, names, "rename"), output_columns):
            names[i] = new
        self.columns = _distinct(names, "rename")

    def rows(self, rng):
        return self.child.rows(rng)

    def size(self):
        return self.child.size()
