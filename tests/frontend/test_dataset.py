"""mindjit.dataset: the in-memory sources, the pipeline operations, iterators and
seeded shuffling, with MindSpore's column rules and argument errors."""

from __future__ import annotations

import numpy as np
import pytest

import mindjit as ms
import mindjit.dataset as ds
from mindjit import Tensor


def _rows(dataset, **kw):
    return [
        tuple(c.tolist() for c in row)
        for row in dataset.create_tuple_iterator(output_numpy=True, **kw)
    ]


def _values(dataset):
    return [row[0] for row in _rows(dataset)]


# -- sources ------------------------------------------------------------------------------------


def test_numpy_slices_names_and_slices_each_kind_of_data():
    x = np.arange(6, dtype=np.float32).reshape(3, 2)
    y = np.array([0, 1, 2])
    d = ds.NumpySlicesDataset({"image": x, "label": y}, shuffle=False)
    assert d.get_col_names() == ["image", "label"]
    assert _rows(d) == [([0.0, 1.0], 0), ([2.0, 3.0], 1), ([4.0, 5.0], 2)]
    assert ds.NumpySlicesDataset((x, y), shuffle=False).get_col_names() == ["column_0", "column_1"]
    listed = ds.NumpySlicesDataset([[1, 2], [3, 4]], column_names=["a"], shuffle=False)
    assert listed.get_col_names() == ["a"] and _rows(listed) == [([1, 2],), ([3, 4],)]
    assert _values(ds.NumpySlicesDataset(np.arange(4), shuffle=False)) == [0, 1, 2, 3]
    renamed = ds.NumpySlicesDataset({"a": y, "b": y}, column_names=["p", "q"], shuffle=False)
    assert renamed.get_col_names() == ["p", "q"]
    # MindSpore's dtypes: Python floats are float64, ints int64
    first = next(ds.NumpySlicesDataset([1.5, 2.5], shuffle=False).create_tuple_iterator())
    assert first[0].dtype == ms.float64


def test_numpy_slices_bad_data_is_a_clear_error():
    with pytest.raises(ValueError, match="same number of rows"):
        ds.NumpySlicesDataset({"a": np.zeros(3), "b": np.zeros(4)})
    with pytest.raises(ValueError, match="column_names names 1 column"):
        ds.NumpySlicesDataset((np.zeros(3), np.zeros(3)), column_names=["a"])
    with pytest.raises(TypeError, match="must be a list, tuple, dict or numpy array"):
        ds.NumpySlicesDataset(5)
    with pytest.raises(ValueError, match="scalar"):
        ds.NumpySlicesDataset(np.array(1.0))
    with pytest.raises(TypeError, match="Argument shuffle"):
        ds.NumpySlicesDataset([1, 2], shuffle="yes")
    with pytest.raises(NotImplementedError, match="'sampler'"):
        ds.NumpySlicesDataset([1, 2], sampler=[0, 1])


class _Accessible:
    def __init__(self):
        self.data = np.arange(5)

    def __getitem__(self, i):
        return self.data[i], np.array([self.data[i] * 10])

    def __len__(self):
        return 5


class _Iterable:
    def __init__(self):
        self.data = [np.array(i) for i in range(4)]

    def __iter__(self):
        return iter(self.data)


def _gen():
    for i in range(4):
        yield np.array([i, i]), i * 2


def test_generator_dataset_takes_each_kind_of_source():
    fn = ds.GeneratorDataset(_gen, column_names=["x", "y"])
    assert _rows(fn) == [([i, i], 2 * i) for i in range(4)]
    assert fn.get_dataset_size() == 4  # counted by one pass: a generator has no len
    assert _values(ds.GeneratorDataset(_Iterable(), "n")) == [0, 1, 2, 3]
    accessible = ds.GeneratorDataset(_Accessible(), ["a", "b"], shuffle=False)
    assert _rows(accessible)[2] == (2, [20])
    listed = ds.GeneratorDataset([(np.array(i),) for i in range(3)], ["c"], shuffle=False)
    assert _values(listed) == [0, 1, 2]
    once = ds.GeneratorDataset((np.array(i) for i in range(3)), ["g"])  # a generator object
    assert _values(once) == _values(once) == [0, 1, 2]  # replayed in the next epoch
    assert _values(ds.GeneratorDataset(_gen, ["x", "y"], num_samples=2)) == [[0, 0], [1, 1]]
    ds.GeneratorDataset(_gen, ["x", "y"], num_parallel_workers=4, python_multiprocessing=False)


def test_a_random_access_source_is_shuffled_unless_asked_not_to():
    """MindSpore's table: shuffle=None on a random-accessible source is random order."""
    default = _values(ds.GeneratorDataset(list(range(20)), ["v"]))
    assert sorted(default) == list(range(20)) and default != list(range(20))
    assert _values(ds.NumpySlicesDataset(np.arange(20))) != list(range(20))
    assert _values(ds.NumpySlicesDataset(np.arange(20), shuffle=False)) == list(range(20))


def test_generator_dataset_bad_input_is_a_clear_error():
    with pytest.raises(ValueError, match="Neither columns_names nor schema"):
        ds.GeneratorDataset(_gen)
    with pytest.raises(TypeError, match="callable, iterable or random accessible"):
        ds.GeneratorDataset(3, ["a"])
    with pytest.raises(ValueError, match="shuffle is not supported if source does not have"):
        ds.GeneratorDataset(_gen, ["x", "y"], shuffle=True)
    with pytest.raises(NotImplementedError, match="'schema'"):
        ds.GeneratorDataset(_gen, ["x"], schema="schema.json")
    with pytest.raises(ValueError, match="Every column name should not be same"):
        ds.GeneratorDataset(_gen, ["x", "x"])
    with pytest.raises(ValueError, match="Input num_parallel_workers is not within"):
        ds.GeneratorDataset(_gen, ["x", "y"], num_parallel_workers=0)
    one_column = ds.GeneratorDataset(_gen, ["x"])
    with pytest.raises(RuntimeError, match="row of 2 column.*column_names names 1"):
        _rows(one_column)
    objects = ds.GeneratorDataset(lambda: iter([({"a": 1},)]), ["x"])
    with pytest.raises(TypeError, match="must be a number, a string or an array"):
        _rows(objects)


def test_file_readers_are_named_not_implemented():
    with pytest.raises(NotImplementedError, match="mindjit.dataset.MnistDataset is not impl"):
        ds.MnistDataset("./MNIST_Data/train")
    with pytest.raises(NotImplementedError, match="Cifar10Dataset"):
        ds.Cifar10Dataset("./cifar")


# -- operations ---------------------------------------------------------------------------------


def _numbers(n=10):
    return ds.NumpySlicesDataset({"x": np.arange(n), "y": np.arange(n) * 10}, shuffle=False)


def test_batch_stacks_rows_and_counts_batches():
    d = _numbers().batch(4)
    assert d.get_dataset_size() == 3 and d.get_batch_size() == 4
    shapes = [row[0].shape for row in d.create_tuple_iterator()]
    assert shapes == [(4,), (4,), (2,)]
    dropped = _numbers().batch(4, drop_remainder=True)
    assert dropped.get_dataset_size() == 2
    assert [r[0] for r in _rows(dropped)] == [[0, 1, 2, 3], [4, 5, 6, 7]]
    images = ds.NumpySlicesDataset(np.zeros((5, 2, 3), np.float32), shuffle=False).batch(2)
    assert images.output_shapes() == [[2, 2, 3]] and images.output_types() == [np.float32]


def test_batch_of_rows_of_different_shapes_is_a_clear_error():
    ragged = ds.GeneratorDataset(lambda: iter([np.zeros(2), np.zeros(3)]), ["v"]).batch(2)
    with pytest.raises(
        RuntimeError, match="Inconsistent batch shapes.*column 0 .*\\(2,\\).*\\(3,\\)"
    ):
        _rows(ragged)


@pytest.mark.parametrize(
    "kwargs,error,message",
    [
        ({"batch_size": 0}, ValueError, r"Input batch_size is not within the required interval"),
        ({"batch_size": -2}, ValueError, r"\[1, 2147483647\]"),
        ({"batch_size": 1.5}, TypeError, r"Argument batch_size with value 1.5 is not of type"),
        ({"batch_size": True}, TypeError, r"Argument batch_size"),
        ({"batch_size": 2, "drop_remainder": 1}, TypeError, r"Argument drop_remainder"),
        ({"batch_size": 2, "per_batch_map": print}, NotImplementedError, "per_batch_map"),
        ({"batch_size": 2, "input_columns": ["x"]}, ValueError, "only when per_batch_map"),
    ],
)
def test_batch_arguments_are_checked(kwargs, error, message):
    with pytest.raises(error, match=message):
        _numbers().batch(**kwargs)


def test_map_replaces_its_columns_in_place_or_puts_new_ones_first():
    scaled = _numbers(3).map(lambda x: x * 2, input_columns="x")
    assert scaled.get_col_names() == ["x", "y"] and _rows(scaled) == [(0, 0), (2, 10), (4, 20)]
    chained = _numbers(3).map([lambda x: x + 1, lambda x: x * 3], input_columns=["x"])
    assert _values(chained) == [3, 6, 9]
    split = _numbers(2).map(
        lambda y: (y, -y), input_columns="y", output_columns=["pos", "neg"]
    )  # 1 -> 2 columns: the outputs first, the untouched columns after (MapOp)
    assert split.get_col_names() == ["pos", "neg", "x"]
    assert _rows(split) == [(0, 0, 0), (10, -10, 1)]
    both = _numbers(2).map(lambda x, y: x + y, input_columns=["x", "y"], output_columns="s")
    assert both.get_col_names() == ["s"] and _values(both) == [0, 11]
    every = _numbers(2).map(lambda x, y: (y, x))  # input_columns=None: all of them
    assert _rows(every) == [(0, 0), (10, 1)]
    cast = ds.NumpySlicesDataset(np.arange(3), shuffle=False).map(
        lambda v: (v / 255.0).astype(np.float32)
    )
    assert next(cast.create_tuple_iterator())[0].dtype == ms.float32


def test_map_errors_are_clear():
    with pytest.raises(RuntimeError, match="column name: 'z' does not exist"):
        _numbers().map(lambda z: z, input_columns="z")
    with pytest.raises(TypeError, match=r"operations\[0\] must be callable"):
        _numbers().map(3, input_columns="x")
    with pytest.raises(ValueError, match="column_order' had been deleted"):
        _numbers().map(lambda x: x, input_columns="x", column_order=["x"])
    with pytest.raises(ValueError, match="two columns of one name"):
        _numbers().map(lambda x: x, input_columns="x", output_columns="y")
    wrong = _numbers().map(lambda x: (x, x), input_columns="x")
    with pytest.raises(
        RuntimeError, match="returned in 'map' operations: 2, the number of 'output"
    ):
        _rows(wrong)


def test_repeat_take_skip_project_rename():
    d = _numbers(4)
    assert _values(d.repeat(2)) == [0, 1, 2, 3] * 2 and d.repeat(2).get_dataset_size() == 8
    assert _values(d.take(2)) == [0, 1] and d.take(2).get_dataset_size() == 2
    assert _values(d.take(-1)) == [0, 1, 2, 3]
    assert _values(d.skip(3)) == [3] and d.skip(9).get_dataset_size() == 0
    assert _rows(d.project("y").take(2)) == [(0,), (10,)]
    assert _rows(d.project(["y", "x"]).take(1)) == [(0, 0)]
    assert d.rename("x", "z").get_col_names() == ["z", "y"]
    endless = d.repeat()
    assert _values(endless.take(10)) == [0, 1, 2, 3] * 2 + [0, 1]
    assert endless.take(10).get_dataset_size() == 10
    with pytest.raises(RuntimeError, match="repeats endlessly"):
        endless.get_dataset_size()
    assert d.repeat(3).get_repeat_count() == 3 and d.get_repeat_count() == 1
    with pytest.raises(RuntimeError, match="column name: 'q' does not exist"):
        d.project(["q"])
    with pytest.raises(ValueError, match="same length"):
        d.rename(["x", "y"], ["a"])
    with pytest.raises(ValueError, match="Input count is not within"):
        d.take(0)
    with pytest.raises(ValueError, match="Input count is not within"):
        d.skip(-1)
    with pytest.raises(
        ValueError, match="Input buffer_size is not within the required interval of \\[2"
    ):
        d.shuffle(1)


def test_shuffle_buffer_permutes_rows_and_reshuffles_each_epoch():
    d = _numbers(30).shuffle(8)
    it = d.create_tuple_iterator(num_epochs=2, output_numpy=True)
    first, second = [int(r[0]) for r in it], [int(r[0]) for r in it]
    assert sorted(first) == sorted(second) == list(range(30))
    assert first != list(range(30)) and first != second
    assert [r[0] for r in it] == []  # two epochs, then done


# -- iterators and seeds ------------------------------------------------------------------------


def test_iterators_give_tensors_or_arrays_lists_or_dicts():
    d = _numbers(3)
    row = next(d.create_tuple_iterator())
    assert isinstance(row, list) and all(isinstance(t, Tensor) for t in row)
    assert row[1].asnumpy().tolist() == 0
    assert [r[0].tolist() for r in d.create_tuple_iterator(columns=["y"], output_numpy=True)] == [
        0,
        10,
        20,
    ]
    item = next(d.create_dict_iterator())
    assert list(item) == ["x", "y"] and isinstance(item["y"], Tensor)
    assert isinstance(next(d.create_dict_iterator(output_numpy=True))["x"], np.ndarray)
    assert [int(a.asnumpy()) for a, _ in d] == [0, 1, 2]  # __iter__
    with pytest.raises(ValueError, match="num_epochs must be -1 or a positive"):
        d.create_tuple_iterator(num_epochs=0)


def _order(seed_fn=None):
    if seed_fn is not None:
        seed_fn()
    return _values(ds.NumpySlicesDataset(np.arange(16), shuffle=True).shuffle(4))


def test_seeded_shuffles_repeat_and_ms_set_seed_seeds_the_dataset():
    before = ds.config.get_seed()
    try:
        a = _order(lambda: ds.config.set_seed(7))
        assert _order(lambda: ds.config.set_seed(7)) == a
        assert _order(lambda: ms.set_seed(7)) == a and ds.config.get_seed() == 7
        assert _order(lambda: ds.config.set_seed(8)) != a
    finally:
        ds.config.set_seed(before)
    with pytest.raises(ValueError, match="Input seed is not within"):
        ds.config.set_seed(-1)
    with pytest.raises(TypeError, match="Argument seed"):
        ds.config.set_seed(1.0)
