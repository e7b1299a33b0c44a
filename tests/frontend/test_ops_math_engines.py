"""Issue 38: the linear-algebra, bitwise and special-function ops
(frontend/ops/linalg*.py, bitwise.py, bessel.py, special_gamma.py) compiled for IREE
and for the simulated Ascend-like device give the CPU executor's values: they are
compositions of mindir ops every engine runs (the bitwise ops lower to
arith.andi/ori/xori/shli/shrsi). IREE runs them itself: no fallback to the numpy
executor. (igamma/igammac compute in float64, which IREE's CPU code lacks libm
for: those graphs run on the numpy executor, as every float64 sin does.)"""

from __future__ import annotations

import numpy as np
import pytest

import mindjit as ms
from mindjit import Tensor, ops

A = np.array([[2.0, 1.0, 0.5], [1.0, 3.0, 1.0], [0.0, 2.0, 4.0]], np.float32)
X = np.array([0, 1, -3, 12, 255, -128], np.int32)
Y = np.array([1, 3, 5, 10, 7, 2], np.int32)


def program(a, i, j):
    q, r = ops.qr(a)
    return (
        ops.det(a),
        ops.inverse(a),
        ops.cholesky(ops.matmul(a, a.T)),
        q,
        r,
        ops.bitwise_xor(i, j),
        ops.bitwise_left_shift(i, j),
        ops.bitwise_right_shift(i, j),
        ops.population_count(i),
        ops.bessel_j1(a),
        ops.bessel_k0e(ops.abs(a) + 0.5),
        ops.digamma(a),
        ops.erfinv(a / 5.0),
        ops.svd(a, compute_uv=False),
        ops.polygamma(Tensor(1), ops.abs(a) + 0.5),
        ops.nextafter(a + 0.5, a * 2.0 - 1.0),  # normal floats: IREE flushes subnormals
        ops.gcd(i, j),
        ops.lcm(i, j),
        ops.matrix_diag_part(a, Tensor(np.array([-1, 1], np.int32)), Tensor(9.0)),
        ops.tensor_dot(a, a, ((1,), (1,))),
    )


def _run(**context):
    ms.set_context(mode=ms.GRAPH_MODE, **context)
    try:
        return [t.asnumpy() for t in ms.jit(program)(Tensor(A), Tensor(X), Tensor(Y))]
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU", jit_config={"backend": ""})


@pytest.mark.parametrize("engine", ["iree", "device"])
def test_engines_match_the_cpu_executor(engine, capfd):
    if engine == "iree":
        pytest.importorskip("iree.compiler")
        pytest.importorskip("iree.runtime")
        got = _run(jit_config={"backend": "iree"})
    else:
        got = _run(device_target="Ascend")
    assert "running this graph on the numpy executor" not in capfd.readouterr().err
    want = _run()
    for g, w in zip(got, want, strict=True):
        assert g.dtype == w.dtype
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(got[15], want[15])  # nextafter: bit for bit
