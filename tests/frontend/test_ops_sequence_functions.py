"""Issue 38: MindSpore 2.10's helpers over tuples, lists, dicts, ranges and slices
(frontend/ops/sequence_functions.py). Expected values are what MindSpore 2.10
printed on CPU (graph mode for tail, zip_operation, make_dict and dict_setitem,
which have no PyNative form there), pasted as literals; every case runs in PyNative
and graph mode, also with Tensors as elements; bad input raises MindSpore's
exception type."""

from __future__ import annotations

import numpy as np
import pytest
from modes import run

import mindjit as ms
from mindjit import Tensor, ops


def test_tuples_and_lists(mode):
    got = run(
        lambda: (
            ops.tuple_getitem((1, 2, 3), 1),
            ops.tuple_getitem((1, 2, 3), -1),
            ops.tuple_getitem([1, 2, 3], 1),
            ops.tuple_len((1, 2, 3)),
            ops.tuple_len([1, 2]),
            ops.tuple_equal((1, 2), (1, 2)),
            ops.tuple_equal((1, 2), (1, 3)),
            ops.tuple_equal((1, 2), [1, 2]),
            ops.tuple_equal((1, 2), (1, 2, 3)),
            ops.tuple_reversed((1, 2, 3)),
            ops.tuple_reversed(()),
            ops.tuple_setitem((1, 2, 3), 1, 5),
            ops.tuple_setitem((1, 2, 3), -1, 5),
            ops.tuple_div((4, 6), (2, 3)),
            ops.list_getitem([1, 2, 3], 1),
            ops.list_len([1, 2, 3]),
            ops.list_equal([1, 2], [1, 2]),
            ops.list_setitem([1, 2, 3], 0, 9),
            ops.make_tuple(1, 2, 3),
            ops.make_tuple(),
            ops.make_list(1, 2),
            ops.make_list(),
        ),
        mode,
    )
    want = (2, 3, 2, 3, 2, True, False, True, False, (3, 2, 1), (), (1, 5, 3), (1, 2, 5),
            (2, 2), 2, 3, True, [9, 2, 3], (1, 2, 3), (), [1, 2], [])  # fmt: skip
    assert got == want
    assert [type(g) for g in got] == [type(w) for w in want]


def test_ranges_slices_dicts(mode):
    got = run(
        lambda: (
            ops.make_range(5),
            ops.make_range(1, 5),
            ops.make_range(1, 10, 3),
            ops.make_range(5, 1, -1),
            ops.make_range(0),
            ops.make_slice(1, 5, 2),
            ops.make_slice(None, 5, None),
            ops.make_dict(("a", "b"), (1, 2)),
            ops.make_dict(["a", "b"], [1, 2]),
            ops.dict_getitem({"a": 1}, "a"),
            ops.dict_setitem({"a": 1}, "b", 2),
            ops.in_dict("a", {"a": 1}),
            ops.in_dict("b", {"a": 1}),
            ops.not_in_dict("a", {"a": 1}),
            ops.not_in_dict("b", {"a": 1}),
        ),
        mode,
    )
    assert got == (
        (0, 1, 2, 3, 4),
        (1, 2, 3, 4),
        (1, 4, 7),
        (5, 4, 3, 2),
        (),
        slice(1, 5, 2),
        slice(None, 5, None),
        {"a": 1, "b": 2},
        {"a": 1, "b": 2},
        1,
        {"a": 1, "b": 2},
        True,
        False,
        False,
        True,
    )


def test_setters_copy():
    t, lst, d = (1, 2), [1, 2], {"a": 1}
    assert ops.tuple_setitem(t, 0, 5) == (5, 2) and t == (1, 2)
    assert ops.list_setitem(lst, 0, 5) == [5, 2] and lst == [1, 2]
    assert ops.dict_setitem(d, "a", 5) == {"a": 5} and d == {"a": 1}


def test_identity_types_shapes(mode):
    got = run(
        lambda: (
            ops.is_(1, 1),
            ops.is_(None, None),
            ops.is_not(1, None),
            ops.is_not(None, None),
            ops.hastype(1, ms.int64),
            ops.hastype((1, 2), ms.int64),
            ops.hastype(1.0, ms.float32),
            ops.hastype(1.0, ms.float64),
            ops.hastype(True, ms.bool_),
            ops.shape_mul((2, 3, 4)),
            ops.shape_mul(()),
            ops.reduced_shape((2, 3, 4), (1,)),
            ops.reduced_shape((2, 3, 4), ()),
            ops.reduced_shape((2, 3, 4), (-1, 0)),
            ops.reduced_shape((2, 3, 4), 1),
            ops.reduced_shape((), ()),
            ops.tail((1, 2, 3)),
            ops.tail([1, 2, 3]),
            ops.tail(()),
            ops.zip_operation((1, 2), (3, 4)),
            ops.zip_operation((1, 2), (3, 4, 5)),
            ops.zip_operation([1, 2], [3, 4]),
        ),
        mode,
    )
    assert got == (True, True, True, False, True, False, True, False, True, 24, 1, (2, 1, 4),
                   (1, 1, 1), (1, 3, 1), (2, 1, 4), (), (2, 3), [2, 3], (), ((1, 3), (2, 4)),
                   ((1, 3), (2, 4)), ((1, 3), (2, 4)))  # fmt: skip
    assert ops.hastype(Tensor(1), ms.int64) is False


def test_tensor_elements(mode):
    """Tensors inside the sequences (graph values in a graph) are carried through."""
    got = run(
        lambda x, y: (
            ops.tuple_getitem((x, y), 1) * 2,
            ops.tail((x, y, x))[0] + 1,
            ops.dict_getitem(ops.make_dict(("x", "y"), (x, y)), "x"),
            ops.zip_operation((x,), (y,))[0][1],
        ),
        mode,
        Tensor(np.array([1.0, 2.0], np.float32)),
        Tensor(np.array([3.0, 4.0], np.float32)),
    )
    for g, w in zip(got, ([6, 8], [4, 5], [1, 2], [3, 4]), strict=True):
        np.testing.assert_array_equal(g.asnumpy(), np.array(w, np.float32))


def test_make_slice_indexes(mode):
    got = run(lambda x: x[ops.make_slice(1, 5, 2)], mode, Tensor(np.arange(8)))
    np.testing.assert_array_equal(got.asnumpy(), [1, 3])  # MindSpore 2.10: [1, 3]


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda: ops.tuple_getitem((1, 2, 3), 5), IndexError),
        (lambda: ops.tuple_getitem((1, 2, 3), 1.0), IndexError),
        (lambda: ops.list_getitem([1, 2, 3], -4), IndexError),
        (lambda: ops.list_setitem([1, 2, 3], 5, 0), IndexError),
        (lambda: ops.tuple_setitem((1, 2, 3), 5, 0), IndexError),
        (lambda: ops.tuple_reversed([1, 2]), TypeError),
        (lambda: ops.tuple_div((4, 6), (3, 3)), RuntimeError),
        (lambda: ops.tuple_div((4, 6), (2,)), RuntimeError),
        (lambda: ops.tuple_div((4, 6), (0, 3)), RuntimeError),
        (lambda: ops.tuple_div((4.0, 6), (2, 3)), RuntimeError),
        (lambda: ops.tuple_div([4, 6], [2, 3]), TypeError),
        (lambda: ops.make_range(1, 5, 0), RuntimeError),
        (lambda: ops.make_range(1.5), TypeError),
        (lambda: ops.make_range(1, 2, 3, 4), RuntimeError),
        (lambda: ops.make_range(), RuntimeError),
        (lambda: ops.make_slice(1, 2), RuntimeError),
        (lambda: ops.dict_getitem({"a": 1}, "b"), ValueError),
        (lambda: ops.is_([1], [1]), RuntimeError),
        (lambda: ops.shape_mul([2, 3]), ValueError),
        (lambda: ops.reduced_shape((2, 3, 4), (3,)), RuntimeError),
    ],
)
def test_bad_input(mode, call, error):
    with pytest.raises(error):
        run(call, mode)
