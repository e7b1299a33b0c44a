"""Issue 38: MindSpore 2.10's value-shaped ops (frontend/ops/value_shapes_more.py:
argwhere, bincount, unique_consecutive; PyNative, or constants in a graph, as
ops.nonzero) and other names (other_names.py: sgn, softsign, soft_shrink, msort, numel,
is_floating_point, eq, floordiv, floor_mod, truncate_div, truncate_mod, reverse,
repeat_elements, adjoint, ldexp, matrix_power, combinations, hann_window,
hamming_window), with the Tensor methods bincount, unique_consecutive, soft_shrink,
hardshrink, matrix_power, reverse, sum_to_size.
Values are what MindSpore 2.10 printed on CPU (pasted as constants); every case runs in
PyNative and graph mode; gradients against finite differences; bad input raises
MindSpore's exception type."""

from __future__ import annotations

import numpy as np
import pytest
from grad_check import assert_grads_match_finite_differences
from modes import run

import mindjit as ms
from mindjit import Tensor, ops

RNG = np.random.default_rng(3817)
Y = np.array([[3.0, 1.0, 2.0, 2.0], [0.0, 5.0, 5.0, 4.0], [1.0, 1.0, 7.0, 1.0]], np.float32)


def _check(got, want, dtype=None):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            _check(g, w)
        return
    np.testing.assert_allclose(got.asnumpy(), np.asarray(want), rtol=1e-6)
    assert got.shape == np.asarray(want).shape
    if dtype is not None:
        assert str(got.dtype) == dtype


def _constants():
    """Value-shaped ops on constants (folded while a graph is traced)."""
    runs = Tensor([1, 1, 2, 2, 3, 1, 1, 2])
    return (
        ops.argwhere(Tensor([[1, 0], [0, 3]])),
        ops.bincount(Tensor([1, 1, 3, 0])),
        ops.bincount(Tensor([1, 1, 3]), Tensor([0.5, 1.0, 2.0]), 6),
        Tensor([-1, 1]).bincount(),
        ops.bincount(Tensor([1.0])),
        ops.unique_consecutive(runs),
        runs.unique_consecutive(True, True),
        ops.unique_consecutive(Tensor([1.0, 1.0, 2.0]), return_counts=True),
        ops.unique_consecutive(Tensor([[1, 2], [1, 2], [3, 4]]), True, True, 0),
    )


def test_value_shaped(mode):
    got = run(_constants, mode)
    # MindSpore 2.10's printed values
    _check(got[0], [[0, 0], [1, 1]], "Int64")
    _check(got[1], [1.0, 2.0, 0.0, 1.0], "Float32")  # float32 even without weights
    _check(got[2], [0.0, 1.5, 0.0, 2.0, 0.0, 0.0])
    _check(got[3], [0.0, 1.0])  # a negative value is skipped
    _check(got[4], [0.0, 1.0])
    _check(got[5], [1, 2, 3, 1, 2], "Int64")
    _check(got[6], ([1, 2, 3, 1, 2], [0, 0, 1, 1, 2, 3, 3, 4], [2, 2, 1, 2, 1]))
    _check(got[7], ([1.0, 2.0], [2, 1]))
    _check(got[8], ([[1, 2], [3, 4]], [0, 0, 1], [2, 1]))
    assert str(got[6][1].dtype) == "Int64" and str(got[6][2].dtype) == "Int64"


def test_value_shaped_of_a_computed_tensor_is_refused_in_a_graph():
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        for fn, name in (
            (ops.argwhere, "argwhere"),
            (ops.bincount, "bincount"),
            (ops.unique_consecutive, "unique_consecutive"),
        ):
            with pytest.raises(ValueError, match=rf"'{name}'.*static shapes"):
                run(lambda t, f=fn: f(t + 1), ms.GRAPH_MODE, Tensor([1, 1, 2]))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_other_names(mode):
    got = run(
        lambda y: (
            ops.sgn(Tensor([-2.0, 0.0, 3.0])),
            ops.sgn(Tensor([-2, 0, 3])),
            ops.softsign(Tensor([-2.0, 0.0, 3.0])),
            ops.soft_shrink(Tensor([-2.0, 0.3, -0.4, 3.0])),
            Tensor([-2.0, 0.3, 3.0]).soft_shrink(1.0),
            ops.msort(y),
        ),
        mode,
        Tensor(Y),
    )
    # MindSpore 2.10's printed values
    _check(got[0], [-1.0, 0.0, 1.0], "Float32")
    _check(got[1], [-1, 0, 1], "Int64")
    _check(got[2], [-0.6666666865348816, 0.0, 0.75])
    _check(got[3], [-1.5, 0.0, 0.0, 2.5])
    _check(got[4], [-1.0, 0.0, 2.0])
    _check(got[5], [[0, 1, 2, 1], [1, 1, 5, 2], [3, 5, 7, 4]])
    assert ops.numel(Tensor(Y)) == 12 and isinstance(ops.numel(Tensor(Y)), int)
    assert ops.is_floating_point(Tensor(Y)) is True
    assert ops.is_floating_point(Tensor([1])) is False


def test_value_shaped_gradients():
    w = Tensor([0.5, 1.0, 2.0])
    g = ms.grad(
        lambda t: (
            ops.bincount(Tensor([1, 1, 3]), t) * Tensor(np.arange(4.0, dtype=np.float32))
        ).sum()
    )(w)
    np.testing.assert_allclose(g.asnumpy(), [1.0, 1.0, 3.0])
    a = RNG.standard_normal((3, 4))
    for fn in (ops.softsign, lambda t: ops.soft_shrink(t, 0.2), ops.msort):
        assert_grads_match_finite_differences(fn, [a.copy()], RNG)


def test_value_shaped_errors():
    with pytest.raises(ValueError):
        ops.argwhere(Tensor(1.0))
    with pytest.raises(TypeError):
        ops.softsign(Tensor([1, 2]))  # MindSpore: float only
    with pytest.raises(RuntimeError):
        ops.soft_shrink(Tensor([1.0]), -1.0)  # lambd should be greater or equal to 0
    with pytest.raises(TypeError):
        ops.soft_shrink(Tensor([1, 2]))
    with pytest.raises(TypeError):
        ops.bincount([1, 2])


# --- other names and windows (other_names.py) -------------------------------------------


def test_more_other_names(mode):
    got = run(
        lambda m, a: (
            ops.eq(Tensor([1, 2]), Tensor([1, 3])),
            ops.floordiv(Tensor([5, -5]), Tensor([3, 3])),
            ops.floor_mod(Tensor([5.0, -5.0, 5.0]), Tensor([3.0, 3.0, -3.0])),
            ops.truncate_div(Tensor([5, -5]), Tensor([3, 3])),
            ops.truncate_mod(Tensor([5.0, -5.0]), Tensor([3.0, 3.0])),
            ops.reverse(Tensor([[1, 2], [3, 4]]), [1]),
            ops.repeat_elements(Tensor([[1, 2], [3, 4]]), 2, 1),
            ops.adjoint(a),
            ops.ldexp(Tensor([1.0, -2.0, 0.5]), Tensor([2, 3, -1])),
            ops.ldexp(Tensor([1, 2]), Tensor([2, 3])),
            ops.matrix_power(m, 3),
            ops.matrix_power(m, 0),
            ops.combinations(Tensor([1, 2, 3])),
            ops.combinations(Tensor([1, 2, 3, 4]), 3),
            ops.combinations(Tensor([1, 2, 3]), 2, True),
            ops.hann_window(5),
            ops.hann_window(5, False),
            ops.hamming_window(4),
            ops.hamming_window(4, True, alpha=0.5, beta=0.5),
        ),
        mode,
        Tensor([[1.0, 1.0], [0.0, 2.0]]),
        Tensor(np.arange(6, dtype=np.float32).reshape(2, 3)),
    )
    # MindSpore 2.10's printed values
    _check(got[0], [True, False], "Bool")
    _check(got[1], [1, -2], "Int64")
    _check(got[2], [2.0, 1.0, -1.0])
    _check(got[3], [1, -1], "Int64")
    _check(got[4], [2.0, -2.0])
    _check(got[5], [[2, 1], [4, 3]])
    _check(got[6], [[1, 1, 2, 2], [3, 3, 4, 4]])
    _check(got[7], [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]])
    _check(got[8], [4.0, -16.0, 0.25], "Float32")
    _check(got[9], [4.0, 16.0], "Float32")
    _check(got[10], [[1.0, 7.0], [0.0, 8.0]])
    _check(got[11], [[1.0, 0.0], [0.0, 1.0]])
    _check(got[12], [[1, 2], [1, 3], [2, 3]], "Int64")
    _check(got[13], [[1, 2, 3], [1, 2, 4], [1, 3, 4], [2, 3, 4]])
    _check(got[14], [[1, 1], [1, 2], [1, 3], [2, 2], [2, 3], [3, 3]])
    _check(
        got[15],
        [0.0, 0.3454915028125263, 0.9045084971874737, 0.9045084971874737, 0.3454915028125264],
        "Float64",
    )
    _check(got[16], [0.0, 0.5, 1.0, 0.5, 0.0], "Float64")
    _check(got[17], [0.08000001311302185, 0.5400000214576721, 1.0, 0.5400000214576721], "Float32")
    _check(got[18], [0.0, 0.5, 1.0, 0.5])
    assert ops.hann_window(0).shape == (0,)


def test_more_other_names_gradients():
    m, v = RNG.standard_normal((2, 3, 3)) * 0.5, RNG.standard_normal(4)
    for fn in (
        lambda t: ops.matrix_power(t, 3),
        lambda t: ops.matrix_power(t, 2),
        ops.adjoint,
        lambda t: ops.ldexp(t, Tensor([1, -1, 2])),
    ):
        assert_grads_match_finite_differences(fn, [m.copy()], RNG)
    assert_grads_match_finite_differences(lambda t: ops.combinations(t, 2), [v], RNG)


def test_more_other_names_errors():
    with pytest.raises(ValueError):
        ops.matrix_power(Tensor(np.array([[2, 1], [1, 3]], np.int32)), -1)  # ints: n >= 0 only
    with pytest.raises(ValueError):
        ops.matrix_power(Tensor([[1.0, 1.0, 1.0]]), 2)
    with pytest.raises(ValueError):
        ops.combinations(Tensor([[1, 2]]))
    with pytest.raises(TypeError):
        ops.hann_window(3, dtype=ms.int32)


def test_more_tensor_methods(mode):
    got = run(
        lambda x, m: (
            x.sum_to_size(1, 3),
            x.sum_to_size((2, 1)),
            x.sum_to_size(3),
            Tensor([1.0, -2.5, 3.0]).hardshrink(2.0),
            m.matrix_power(2),
            Tensor([[1, 2], [3, 4]]).reverse([0]),
        ),
        mode,
        Tensor(np.arange(6, dtype=np.float32).reshape(2, 3)),
        Tensor([[1.0, 1.0], [0.0, 2.0]]),
    )
    # MindSpore 2.10's printed values
    _check(got[0], [[3.0, 5.0, 7.0]], "Float32")
    _check(got[1], [[3.0], [12.0]])
    _check(got[2], [3.0, 5.0, 7.0])
    _check(got[3], [0.0, -2.5, 3.0])
    _check(got[4], [[1.0, 3.0], [0.0, 4.0]])
    _check(got[5], [[3, 4], [1, 2]], "Int64")
    assert_grads_match_finite_differences(
        lambda t: t.sum_to_size(1, 3), [RNG.standard_normal((2, 3))], RNG
    )
    with pytest.raises(ValueError):
        Tensor(np.ones((2, 3), np.float32)).sum_to_size(2, 2)
