"""The iterators `create_tuple_iterator` and `create_dict_iterator` return.

An iterator runs `num_epochs` epochs (-1: as many as asked for); each `for`
over it is one epoch, so `for epoch in range(n): for row in it:` walks the
dataset n times, as with MindSpore. Its random generator is seeded once, from
`mindjit.dataset.config.get_seed()` when it is made: the epochs of one
iterator are shuffled differently, two iterators made under one seed alike.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from mindjit.frontend.dataset import config
from mindjit.frontend.dataset.nodes import Node, Row, column_indices
from mindjit.frontend.tensor import Tensor


class DatasetIterator:
    """One pass per `for` loop, `num_epochs` passes in all."""

    def __init__(
        self,
        node: Node,
        columns: list[str] | None,
        num_epochs: int,
        output_numpy: bool,
        as_dict: bool,
    ):
        self._node = node
        names = node.columns if columns is None else columns
        self._picks = column_indices(names, node.columns, "create_tuple_iterator's columns")
        self._names = list(names)
        self._epochs_left = num_epochs
        self._output_numpy, self._as_dict = output_numpy, as_dict
        self._rng = np.random.default_rng(config.get_seed())
        self._rows: Iterator[Row] | None = None

    def __iter__(self) -> DatasetIterator:
        return self

    def __next__(self) -> Any:
        if self._rows is None:
            if self._epochs_left == 0:
                raise StopIteration
            self._rows = self._node.rows(self._rng)
        try:
            row = next(self._rows)
        except StopIteration:
            self._rows = None
            if self._epochs_left > 0:
                self._epochs_left -= 1
            raise
        values = [row[i] if self._output_numpy else Tensor(row[i]) for i in self._picks]
        return dict(zip(self._names, values)) if self._as_dict else values

    def get_next(self) -> Any:
        """The next row, or an empty one at the end of an epoch (MindSpore's get_next)."""
        try:
            return next(self)
        except StopIteration:
            return {} if self._as_dict else []
