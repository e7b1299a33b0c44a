"""`mindjit.dataset.Dataset`: the pipeline methods every dataset has.

Each method checks its arguments as MindSpore's validators do and returns a
new Dataset over one more node (nodes.py); nothing runs until a dataset is
iterated. The source datasets (sources.py) subclass it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mindjit.frontend.dataset import validate as V
from mindjit.frontend.dataset.iterators import DatasetIterator
from mindjit.frontend.dataset.nodes import (
    BatchNode,
    MapNode,
    Node,
    ProjectNode,
    RenameNode,
    RepeatNode,
    ShuffleNode,
    SkipNode,
    TakeNode,
)


class Dataset:
    """A pipeline of rows; `batch`, `map`, `shuffle` ... each give a new one."""

    def __init__(self, node: Node):
        self._node = node

    # --- operations -------------------------------------------------------------------------
    def batch(
        self,
        batch_size: int,
        drop_remainder: bool = False,
        num_parallel_workers: int | None = None,
        **kwargs: Any,
    ) -> Dataset:
        """`batch_size` consecutive rows stacked into one (the last may be smaller
        unless `drop_remainder`)."""
        if callable(batch_size):
            raise NotImplementedError("Dataset.batch: a callable batch_size is not supported")
        if kwargs.get("per_batch_map") is not None:
            raise NotImplementedError("Dataset.batch: per_batch_map is not supported")
        if kwargs.get("input_columns") is not None:
            raise ValueError("input_columns can be specified only when per_batch_map is set.")
        V.pos_int32(batch_size, "batch_size")
        V.type_check(drop_remainder, (bool,), "drop_remainder")
        V.workers(num_parallel_workers)
        return Dataset(BatchNode(self._node, batch_size, drop_remainder))

    def shuffle(self, buffer_size: int) -> Dataset:
        """Rows in a random order, drawn from a buffer of `buffer_size` rows."""
        V.type_check(buffer_size, (int,), "buffer_size")
        V.check_value(buffer_size, 2, V.INT32_MAX, "buffer_size")
        return Dataset(ShuffleNode(self._node, buffer_size))

    def map(
        self,
        operations: Callable[..., Any] | list[Callable[..., Any]],
        input_columns: str | list[str] | None = None,
        output_columns: str | list[str] | None = None,
        num_parallel_workers: int | None = None,
        **kwargs: Any,
    ) -> Dataset:
        """Each row's `input_columns` (all columns by default) through `operations`
        in turn; the last one's results are `output_columns` (the input names by
        default). The operations get and return numpy arrays."""
        if kwargs.get("column_order") is not None:
            raise ValueError(
                "The parameter 'column_order' had been deleted in map operation. "
                "Please use '.project' operation instead."
            )
        ops = list(operations) if isinstance(operations, list | tuple) else [operations]
        if not ops:
            raise ValueError("Input operations should not be empty.")
        for i, op in enumerate(ops):
            if not callable(op):
                raise TypeError(
                    f"Dataset.map: operations[{i}] must be callable, got {type(op).__name__}"
                )
        inputs = (
            list(self._node.columns)
            if input_columns is None
            else V.columns(input_columns, "input_columns")
        )
        outputs = inputs if output_columns is None else V.columns(output_columns, "output_columns")
        V.workers(num_parallel_workers)
        return Dataset(MapNode(self._node, ops, inputs, outputs))

    def repeat(self, count: int | None = None) -> Dataset:
        """The dataset `count` times over (None or -1: endlessly)."""
        count = -1 if count is None else V.count_or_all(count, "count")
        return Dataset(RepeatNode(self._node, count))

    def take(self, count: int = -1) -> Dataset:
        """The first `count` rows (-1: all)."""
        return Dataset(TakeNode(self._node, V.count_or_all(count, "count")))

    def skip(self, count: int) -> Dataset:
        """All rows but the first `count`."""
        return Dataset(SkipNode(self._node, V.non_negative_int32(count, "count")))

    def project(self, columns: str | list[str]) -> Dataset:
        """Only these columns, in this order."""
        return Dataset(ProjectNode(self._node, V.columns(columns, "columns")))

    def rename(self, input_columns: str | list[str], output_columns: str | list[str]) -> Dataset:
        old = V.columns(input_columns, "input_columns")
        new = V.columns(output_columns, "output_columns")
        return Dataset(RenameNode(self._node, old, new))

    # --- facts ----------------------------------------------------------------------------------
    def get_dataset_size(self) -> int:
        """Rows (batches after `batch`) per epoch."""
        n = self._node.size()
        if n == float("inf"):
            raise RuntimeError(
                "get_dataset_size: the dataset repeats endlessly (repeat() without a count); "
                "take(n) gives it a size"
            )
        return int(n)

    def get_col_names(self) -> list[str]:
        return list(self._node.columns)

    def get_batch_size(self) -> int:
        return self._node.batch_size

    def get_repeat_count(self) -> int:
        node = self._node
        while node is not None and not isinstance(node, RepeatNode):
            node = node.child
        return 1 if node is None else node.count

    def output_shapes(self) -> list[list[int]]:
        return [list(a.shape) for a in self._first_row()]

    def output_types(self) -> list[Any]:
        return [a.dtype for a in self._first_row()]

    def _first_row(self) -> list[Any]:
        for row in self.create_tuple_iterator(num_epochs=1, output_numpy=True):
            return row
        raise RuntimeError("the dataset has no rows")

    # --- iterating ------------------------------------------------------------------------------
    def create_tuple_iterator(
        self,
        columns: str | list[str] | None = None,
        num_epochs: int = -1,
        output_numpy: bool = False,
        do_copy: bool = True,
    ) -> DatasetIterator:
        """Rows as lists of Tensors (numpy arrays with `output_numpy`)."""
        names = None if columns is None else V.columns(columns, "columns")
        return DatasetIterator(self._node, names, _epochs(num_epochs), _flag(output_numpy), False)

    def create_dict_iterator(
        self, num_epochs: int = -1, output_numpy: bool = False, do_copy: bool = True
    ) -> DatasetIterator:
        """Rows as {column name: Tensor} (numpy arrays with `output_numpy`)."""
        return DatasetIterator(self._node, None, _epochs(num_epochs), _flag(output_numpy), True)

    def __iter__(self) -> DatasetIterator:
        return self.create_tuple_iterator(num_epochs=1)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(columns={self.get_col_names()})"


def _epochs(num_epochs: Any) -> int:
    V.type_check(num_epochs, (int,), "num_epochs")
    if num_epochs != -1 and num_epochs < 1:
        raise ValueError(f"Input num_epochs must be -1 or a positive int, but got {num_epochs}.")
    return num_epochs


def _flag(value: Any) -> bool:
    V.type_check(value, (bool,), "output_numpy")
    return value
