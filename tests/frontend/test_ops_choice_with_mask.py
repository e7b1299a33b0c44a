"""Issue 38: `ops.choice_with_mask` (frontend/ops/choice_with_mask.py). MindSpore
2.10's draws are its kernel's, so the test checks what MindSpore's results show:
shapes and dtypes ((count, rank) int32, (count,) bool), the valid rows first, each a
distinct True element, zero rows after them; in both modes, on a computed input too;
bad input raises MindSpore's exception types."""

from __future__ import annotations

import numpy as np
import pytest
from modes import run

import mindjit as ms
from mindjit import Tensor, ops

RNG = np.random.default_rng(3839)


def _valid(index, mask, x, count):
    index, mask = index.asnumpy(), mask.asnumpy()
    assert index.shape == (count, x.ndim) and index.dtype == np.int32
    assert mask.shape == (count,) and mask.dtype == np.bool_
    valid = min(count, int(x.sum()))
    assert mask[:valid].all() and not mask[valid:].any()
    rows = [tuple(r) for r in index[:valid]]
    assert len(set(rows)) == valid and all(x[r] for r in rows)
    assert (index[valid:] == 0).all()
    return set(rows)


@pytest.mark.parametrize(("shape", "count"), [((4,), 6), ((2, 2), 5), ((3, 5), 4), ((2, 3, 4), 9)])
def test_choice_with_mask(mode, shape, count):
    x = RNG.random(shape) > 0.5
    index, mask = run(lambda t: ops.choice_with_mask(t, count, 3), mode, Tensor(x))
    _valid(index, mask, x, count)


def test_computed_input_in_a_graph():
    x = np.array([[1.0, -1.0], [2.0, 3.0]], np.float32)
    index, mask = ms.jit(lambda t: ops.choice_with_mask(t > 0, 3))(Tensor(x))
    assert _valid(index, mask, x > 0, 3) == {(0, 0), (1, 0), (1, 1)}


def test_draws_are_random():
    x = np.ones((50,), np.bool_)
    firsts = {int(ops.choice_with_mask(Tensor(x), 1)[0].asnumpy()[0, 0]) for _ in range(8)}
    assert len(firsts) > 1


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda: ops.choice_with_mask(Tensor(np.array([1, 0])), 2), TypeError),
        (lambda: ops.choice_with_mask(Tensor(True), 2), ValueError),
        (lambda: ops.choice_with_mask(Tensor(np.array([True])), 0), ValueError),
        (lambda: ops.choice_with_mask(Tensor(np.array([True])), 2.0), TypeError),
        (lambda: ops.choice_with_mask(Tensor(np.array([True])), 2, 1.0), TypeError),
        (lambda: ops.choice_with_mask(Tensor(np.zeros((1,) * 6, np.bool_)), 2), ValueError),
    ],
)
def test_bad_input(call, error):
    with pytest.raises(error):
        call()
