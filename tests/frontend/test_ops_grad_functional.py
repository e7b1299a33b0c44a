"""ops.vjp, ops.jvp, ops.linearize, ops.jacrev and ops.jacfwd in PyNative mode, in
GRAPH_MODE and inside an `@ms.jit` function, against the values MindSpore 2.10
printed on CPU for the same calls (a /tmp probe, rounded to 5 decimals there)."""

from __future__ import annotations

import numpy as np
import pytest

import mindjit as ms
from mindjit import Tensor, ops

X = Tensor(np.array([[1.0, 2.0], [3.0, 4.0]], np.float32))
Y = Tensor(np.array([[0.5, -1.0], [2.0, 0.1]], np.float32))
V = Tensor(np.array([[1.0, 0.5], [-1.0, 2.0]], np.float32))
A = Tensor(np.array([1.0, 2.0, 3.0], np.float32))
B = Tensor(np.array([0.5, -1.0, 2.0], np.float32))


def f(x, y):
    return x * x * y + ops.sin(x)


def cube(x):
    return x**3


def pair(x, y):
    return x * y, x + ops.exp(y)


def with_aux(x, y):
    return x * y, x - y


def g(a, b):
    return a * a * b + ops.sin(a).sum()


def g2(a, b):
    return a * b, (a * a).sum()


F_OUT = [[1.34147, -3.0907], [18.14112, 0.8432]]
F_JV = [[2.5403, -0.20807], [-20.01001, 32.29271]]
CUBE_OUT, CUBE_D = [[1.0, 8.0], [27.0, 64.0]], [[3.0, 6.0], [-27.0, 96.0]]
PAIR_OUT = [[[0.5, -2.0], [6.0, 0.4]], [[2.64872, 2.36788], [10.38906, 5.10517]]]
AUX_OUT, AUX = [[0.5, -2.0], [6.0, 0.4]], [[0.5, 3.0], [1.0, 3.9]]
G_JAC = [[1.5403, -0.41615, -0.98999], [0.5403, -4.41615, -0.98999], [0.5403, -0.41615, 11.01001]]
DIAG_B, DIAG_A = np.diag([0.5, -1.0, 2.0]), np.diag([1.0, 2.0, 3.0])


def _close(got, want):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for a, b in zip(got, want):
            _close(a, b)
        return
    np.testing.assert_allclose(np.asarray(got.asnumpy()), np.asarray(want), atol=2e-5)


def _transforms(x, y, v, a, b):
    out, vjp_fn = ops.vjp(f, x, y)
    out1, vjp1 = ops.vjp(cube, x)
    out_aux, vjp_aux, aux = ops.vjp(with_aux, x, y, has_aux=True)
    out_lin, lin_fn = ops.linearize(f, (x, y))
    return (
        (out, vjp_fn(v), out1, vjp1(v), out_aux, vjp_aux(v), aux),
        (ops.jvp(f, (x, y), (v, v)), ops.jvp(cube, x, v), ops.jvp(pair, (x, y), (v, v))),
        ops.jvp(with_aux, (x, y), (v, v), has_aux=True),
        (out_lin, lin_fn((v, v))),
        (ops.jacrev(g)(a, b), ops.jacfwd(g, grad_position=(0, 1))(a, b)),
        (ops.jacrev(g2, grad_position=(0, 1))(a, b), ops.jacfwd(g2, has_aux=True)(a, b)),
    )


def _check(results):
    vjps, jvps, jvp_aux, lin, jacs, jacs2 = results
    _close(vjps[0], F_OUT)
    _close(vjps[1], ([[1.5403, -2.20807], [-11.01001, 0.29271]], [[1.0, 2.0], [-9.0, 32.0]]))
    _close(vjps[2], CUBE_OUT)
    _close(vjps[3], (CUBE_D,))  # get_all packs one input's gradient in a tuple too
    _close(vjps[4], AUX_OUT)
    _close(vjps[5], ([[0.5, -0.5], [-2.0, 0.2]], [[1.0, 1.0], [-3.0, 8.0]]))
    _close(vjps[6], AUX)
    _close(jvps[0], (F_OUT, F_JV))
    _close(jvps[1], (CUBE_OUT, CUBE_D))
    pair_jv = ([[1.5, 0.5], [-5.0, 8.2]], [[2.64872, 0.68394], [-8.38906, 4.21034]])
    _close(jvps[2], ((PAIR_OUT[0], PAIR_OUT[1]), pair_jv))
    _close(jvp_aux, (AUX_OUT, [[1.5, 0.5], [-5.0, 8.2]], AUX))
    _close(lin, (F_OUT, F_JV))
    _close(jacs[0], G_JAC)
    _close(jacs[1], (G_JAC, [[1.0, 0, 0], [0, 4.0, 0], [0, 0, 9.0]]))
    _close(jacs2[0], ((DIAG_B, DIAG_A), ([2.0, 4.0, 6.0], [0.0, 0.0, 0.0])))
    _close(jacs2[1], (DIAG_B, 14.0))


@pytest.mark.parametrize("where", ["pynative", "graph_mode", "jit"])
def test_transforms_match_mindspore(where):
    args = (X, Y, V, A, B)
    if where == "pynative":
        _check(_transforms(*args))
    elif where == "graph_mode":
        ms.set_context(mode=ms.GRAPH_MODE)
        _check(_transforms(*args))
    else:
        _check(ms.jit(_transforms)(*args))


def test_errors():
    with pytest.raises(TypeError):
        ops.jvp(f, (X, Y), (V, V), has_aux=1)
    with pytest.raises(ValueError):
        ops.jvp(f, (X, Y), (V,))
    with pytest.raises(TypeError):
        ops.jvp(f, [1.0], V)
    with pytest.raises(ValueError):
        ops.vjp(cube, X, has_aux=True)
    with pytest.raises(TypeError):
        ops.vjp(cube, 1.0)
    with pytest.raises(TypeError):
        ops.jacrev(g, grad_position=1.0)(A, B)
    with pytest.raises(ValueError):
        ops.jacfwd(g, grad_position=2)(A, B)


def test_two_closures_of_one_code_in_one_graph():
    # the graph compiler keyed a called function's graph by its code alone: the second
    # closure of a factory reused the first one's graph (jacrev/jacfwd closures hit it)
    def scaled(k):
        def fn(x):
            return x * k

        return fn

    double, triple = scaled(2.0), scaled(3.0)
    out = ms.jit(lambda x: (double(x), triple(x)))(A)
    np.testing.assert_allclose(out[0].asnumpy(), [2.0, 4.0, 6.0])
    np.testing.assert_allclose(out[1].asnumpy(), [3.0, 6.0, 9.0])
