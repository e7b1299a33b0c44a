"""A name a tensor `if`'s branches bind to different kinds of value has no value
after the if: fine while nothing reads it (as in PyNative), a located error at the
if when something does. A while body that leaves a loop variable a tuple is a
located TypeError (found by the differential fuzzer)."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import mindjit as ms
from mindjit import nn


class DeadInBranch(nn.Cell):
    def construct(self, x):
        if x.sum() > 0:
            a, _ = x, (x, x)  # '_' is a tuple here, an int in the other branch
        else:
            a = x * 2
            _ = 0
        return a


class ReadAfter(nn.Cell):
    def construct(self, x):
        if x.sum() > 0:
            a = (x, x)
        else:
            a = x
        return a


class WhileLeavesATuple(nn.Cell):
    def construct(self, x):
        k = ms.Tensor(0, ms.int32)
        t = 0
        while k < 2:
            x = x + t  # read before the body binds it: it must go round the loop
            t = (x, x)
            k = k + 1
        return x


class WhileBindsATupleAfresh(nn.Cell):
    def construct(self, x):
        for _ in range(2):
            x = x + 1
        k = ms.Tensor(0, ms.int32)
        while k < 2:
            a, (b, _) = x * 2, (x, (x, x))  # '_' was an int; the body binds it first
            x = a - b
            k = k + 1
        return x


def line_of(cls: type, text: str) -> str:
    """`file:line` of the first line of `cls.construct` holding `text`."""
    lines, start = inspect.getsourcelines(cls.construct)
    offset = next(i for i, line in enumerate(lines) if text in line)
    return f"test_graph_unmerged_names.py:{start + offset}"


@pytest.fixture(autouse=True)
def graph_mode():
    ms.set_context(mode=ms.GRAPH_MODE)
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_an_unmerged_name_never_read_is_no_error(sign):
    x = ms.Tensor(np.full(3, sign, np.float32))
    want = x.asnumpy() if sign > 0 else x.asnumpy() * 2
    np.testing.assert_array_equal(DeadInBranch()(x).asnumpy(), want)


def test_reading_an_unmerged_name_is_located_at_the_if():
    with pytest.raises(RuntimeError) as info:
        ReadAfter()(ms.Tensor(np.ones(3, np.float32)))
    text = str(info.value)
    assert "'a' is tuple in one branch" in text, text
    assert line_of(ReadAfter, "if x.sum()") in text.splitlines()[0]


def test_a_while_body_leaving_a_tuple_it_reads_is_a_located_type_error():
    with pytest.raises(TypeError) as info:
        WhileLeavesATuple()(ms.Tensor(np.ones(3, np.float32)))
    first = str(info.value).splitlines()[0]
    assert (
        line_of(WhileLeavesATuple, "while k") in first and "loop variable 't' is a tuple" in first
    )


def test_a_number_the_while_body_rebinds_to_a_tuple_is_a_located_type_error():
    """Known only after tracing the body, and a body is not traced twice: refused."""
    with pytest.raises(TypeError) as info:
        WhileBindsATupleAfresh()(ms.Tensor(np.ones(3, np.float32)))
    first = str(info.value).splitlines()[0]
    assert (
        line_of(WhileBindsATupleAfresh, "while k") in first
        and "loop variable '_' is a tuple" in first
    )


class LoopVarInWhile(nn.Cell):
    def __init__(self, read_after: bool = False):
        super().__init__()
        self.blocks = nn.CellList([nn.Dense(3, 3), nn.Dense(3, 3)])
        self.read_after = read_after

    def construct(self, x):
        for blk in self.blocks:
            x = blk(x)
        k = ms.Tensor(0, ms.int32)
        while k < 2:
            for blk in self.blocks:  # the body binds 'blk' before reading it
                x = blk(x)
            k = k + 1
        if self.read_after:
            x = blk(x)
        return x


def test_a_cell_the_while_body_binds_afresh_is_not_carried():
    ms.set_seed(1)
    net = LoopVarInWhile()
    x = ms.Tensor(np.ones((2, 3), np.float32))
    got = net(x).asnumpy()
    ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(got, net(x).asnumpy(), rtol=1e-6)


def test_reading_it_after_the_while_is_located_at_the_while():
    with pytest.raises(RuntimeError) as info:
        LoopVarInWhile(read_after=True)(ms.Tensor(np.ones((2, 3), np.float32)))
    first = str(info.value).splitlines()[0]
    assert (
        line_of(LoopVarInWhile, "while k") in first
        and "'blk' becomes a value that is not a tensor" in first
    ), first
