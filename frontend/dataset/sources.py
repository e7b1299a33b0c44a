"""The in-memory source datasets: `GeneratorDataset` and `NumpySlicesDataset`.

A source is random-accessible (`__getitem__` and `__len__`: a list, an array,
a user class) or iterable (a generator function, called once per epoch; an
object with `__iter__`). Only a random-accessible source can be shuffled; as in
MindSpore, it is shuffled unless `shuffle=False` (one permutation per epoch).
Items become rows as MindSpore's `_convert_row` makes them: one value is one
column, a tuple or list one per column, each through `np.array` (a Python float
is float64, an int int64).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from types import GeneratorType
from typing import Any

import numpy as np

from mindjit.frontend.dataset import validate as V
from mindjit.frontend.dataset.dataset import Dataset
from mindjit.frontend.dataset.nodes import Node, Row, as_array, as_row
from mindjit.frontend.tensor import Tensor


class _SourceNode(Node):
    def __init__(self, owner: str, columns: list[str], num_samples: int | None):
        self.owner, self.columns, self.num_samples = owner, columns, num_samples or None

    def _row(self, item: Any) -> Row:
        row = as_row(item, f"{self.owner}: an item of the source")
        if len(row) != len(self.columns):
            raise RuntimeError(
                f"{self.owner}: the source gave a row of {len(row)} column(s), but column_names "
                f"names {len(self.columns)}: {self.columns}"
            )
        return row

    def _cap(self, n: int) -> int:
        return n if self.num_samples is None else min(n, self.num_samples)


class RandomAccessNode(_SourceNode):
    def __init__(self, owner, columns, num_samples, source: Any, shuffle: bool):
        super().__init__(owner, columns, num_samples)
        self.source, self.shuffle = source, shuffle

    def rows(self, rng):
        n = len(self.source)
        order = rng.permutation(n) if self.shuffle else range(n)
        for i in order[: self._cap(n)]:
            yield self._row(self.source[int(i)])

    def size(self):
        return self._cap(len(self.source))


class IterableNode(_SourceNode):
    def __init__(self, owner, columns, num_samples, start: Callable[[], Iterator[Any]], length):
        super().__init__(owner, columns, num_samples)
        self.start, self.length = start, length
        self._counted: int | None = None

    def rows(self, rng):
        for k, item in enumerate(self.start()):
            if self.num_samples is not None and k >= self.num_samples:
                return
            yield self._row(item)

    def size(self):
        if self.length is not None:
            return self._cap(self.length())
        if self._counted is None:  # no __len__: one pass over the source, as MindSpore does
            self._counted = sum(1 for _ in self.start())
        return self._cap(self._counted)


class _Replay:
    """A generator object read once, replayed from memory in later epochs."""

    def __init__(self, generator: GeneratorType):
        self._generator, self._seen = generator, []

    def __iter__(self):
        yield from self._seen
        for item in self._generator:
            self._seen.append(item)
            yield item


def _unsupported(owner: str, **given: Any) -> None:
    for name, value in given.items():
        if value is not None:
            raise NotImplementedError(f"{owner}: the argument '{name}' is not supported")


def _num_samples(value: Any) -> int | None:
    if value is not None:
        V.non_negative_int32(value, "num_samples")
    return value


class GeneratorDataset(Dataset):
    """`ds.GeneratorDataset(source, column_names, ..., num_samples=None,
    num_parallel_workers=1, shuffle=None)`: rows from Python."""

    def __init__(
        self,
        source: Any,
        column_names: str | list[str] | None = None,
        column_types: Any = None,
        schema: Any = None,
        num_samples: int | None = None,
        num_parallel_workers: int = 1,
        shuffle: bool | None = None,
        sampler: Any = None,
        num_shards: int | None = None,
        shard_id: int | None = None,
        python_multiprocessing: bool = True,
        max_rowsize: int | None = None,
        batch_sampler: Any = None,
        collate_fn: Any = None,
    ):
        owner = "GeneratorDataset"
        random_access = hasattr(source, "__getitem__") and not isinstance(source, GeneratorType)
        if not (callable(source) or random_access or hasattr(source, "__iter__")):
            raise TypeError(
                "Input `source` function of GeneratorDataset should be callable, iterable or "
                "random accessible, commonly it should implement one of the method like yield, "
                f"__getitem__ or __next__(__iter__); got {type(source).__name__}"
            )
        if column_names is None and schema is None:
            raise ValueError("Neither columns_names nor schema are provided.")
        _unsupported(
            owner,
            schema=schema,
            column_types=column_types,
            sampler=sampler,
            num_shards=num_shards,
            shard_id=shard_id,
            batch_sampler=batch_sampler,
            collate_fn=collate_fn,
        )
        columns = V.columns(column_names, "column_names")
        num_samples = _num_samples(num_samples)
        V.workers(num_parallel_workers)
        V.optional_bool(shuffle, "shuffle")
        V.type_check(python_multiprocessing, (bool,), "python_multiprocessing")
        if random_access:
            if not hasattr(source, "__len__"):
                raise RuntimeError(
                    "GeneratorDataset: a random accessible source (one with __getitem__) needs "
                    "a __len__ method too"
                )
            node: Node = RandomAccessNode(owner, columns, num_samples, source, shuffle is not False)
        else:
            if shuffle:
                raise ValueError(
                    "shuffle is not supported if source does not have attribute '__getitem__'."
                )
            if isinstance(source, GeneratorType):
                source = _Replay(source)
            start = source if callable(source) else lambda: iter(source)
            length = (lambda: len(source)) if hasattr(source, "__len__") else None
            node = IterableNode(owner, columns, num_samples, start, length)
        super().__init__(node)
        self.source = source


class _Slices:
    """Columns of equal length, read a row at a time."""

    def __init__(self, columns: list[np.ndarray]):
        self.columns = columns

    def __len__(self) -> int:
        return len(self.columns[0])

    def __getitem__(self, i: int) -> tuple[np.ndarray, ...]:
        return tuple(c[i] for c in self.columns)


def _slices(data: Any) -> tuple[list[np.ndarray], list[str]]:
    owner = "NumpySlicesDataset"
    if isinstance(data, dict):
        names, values = [str(k) for k in data], list(data.values())
    elif isinstance(data, tuple):
        names, values = [], list(data)
    elif isinstance(data, list | np.ndarray | Tensor):
        names, values = [], [data]
    else:
        raise TypeError(
            f"{owner}: data must be a list, tuple, dict or numpy array, "
            f"but got {type(data).__name__}"
        )
    if not values:
        raise ValueError(f"{owner}: data has no columns")
    arrays = [as_array(v, f"{owner}: column {i} of data") for i, v in enumerate(values)]
    for i, a in enumerate(arrays):
        if a.ndim == 0:
            raise ValueError(f"{owner}: column {i} of data is a scalar; it has no rows to slice")
        if len(a) != len(arrays[0]):
            raise ValueError(
                f"{owner}: the columns of data must have the same number of rows (the first "
                f"dimension), but column 0 has {len(arrays[0])} and column {i} has {len(a)}"
            )
    return arrays, names or [f"column_{i}" for i in range(len(arrays))]


class NumpySlicesDataset(Dataset):
    """`ds.NumpySlicesDataset(data, column_names=None, num_samples=None,
    num_parallel_workers=1, shuffle=None)`: `data` sliced along its first
    dimension (a dict's keys name the columns; a tuple is one column per item;
    a list or an array is one column)."""

    def __init__(
        self,
        data: Any,
        column_names: str | list[str] | None = None,
        num_samples: int | None = None,
        num_parallel_workers: int = 1,
        shuffle: bool | None = None,
        sampler: Any = None,
        num_shards: int | None = None,
        shard_id: int | None = None,
    ):
        owner = "NumpySlicesDataset"
        _unsupported(owner, sampler=sampler, num_shards=num_shards, shard_id=shard_id)
        arrays, names = _slices(data)
        if column_names is not None:
            names = V.columns(column_names, "column_names")
            if len(names) != len(arrays):
                raise ValueError(
                    f"{owner}: column_names names {len(names)} column(s), but data has "
                    f"{len(arrays)}"
                )
        num_samples = _num_samples(num_samples)
        V.workers(num_parallel_workers)
        V.optional_bool(shuffle, "shuffle")
        node = RandomAccessNode(owner, names, num_samples, _Slices(arrays), shuffle is not False)
        super().__init__(node)
