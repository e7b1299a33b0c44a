"""Differential test: every corpus program gives identical results in both modes."""

from __future__ import annotations

import numpy as np
import pytest
from graph_corpus import CELLS, FUNCTIONS

import mindjit as ms


def leaves(value):
    if isinstance(value, tuple | list):
        out = []
        for v in value:
            out.extend(leaves(v))
        return out
    return [value]


def assert_same(pynative, graph):
    a, b = leaves(pynative), leaves(graph)
    assert len(a) == len(b)
    for x, y in zip(a, b):
        if isinstance(x, ms.Tensor):
            assert isinstance(y, ms.Tensor), (x, y)
            assert x.dtype == y.dtype and x.shape == y.shape
            np.testing.assert_array_equal(x.asnumpy(), y.asnumpy())
        elif isinstance(y, ms.Tensor):
            # a Python number carried through a while on a tensor becomes a 0-d tensor
            assert y.shape == () and x == y.asnumpy().item()
        else:
            assert x == y


@pytest.fixture
def modes():
    saved = ms.get_context("mode")
    yield
    ms.set_context(mode=saved)


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_function(name, modes):
    fn, make_inputs = FUNCTIONS[name]
    inputs = make_inputs()
    ms.set_context(mode=ms.PYNATIVE_MODE)
    ms.set_seed(0)  # random ops (dropout) draw the same masks in both runs
    eager = fn(*inputs)
    ms.set_seed(0)
    graph = ms.jit(fn)(*inputs)
    assert_same(eager, graph)


@pytest.mark.parametrize("name", sorted(CELLS))
def test_cell(name, modes):
    cls, make_inputs = CELLS[name]
    net = cls()
    inputs = make_inputs()
    ms.set_context(mode=ms.PYNATIVE_MODE)
    ms.set_seed(0)  # random ops (dropout) draw the same masks in both runs
    eager = net(*inputs)
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.set_seed(0)
    graph = net(*inputs)
    assert_same(eager, graph)


def test_corpus_is_large_enough():
    assert len(FUNCTIONS) + len(CELLS) >= 30
