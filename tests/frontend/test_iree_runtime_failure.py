"""An IREE run that fails in IREE's own runtime is a located mindjit error, not a raw
IndexError (IREE 3.13 fails some nested ifs that assign with OUT_OF_RANGE; found by
the differential fuzzer). Once IREE runs it, the values must be PyNative's."""

from __future__ import annotations

import numpy as np

import mindjit as ms
from mindjit import Parameter, nn, ops
from mindjit.support.errors import MindjitError


class NestedIfs(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p0 = Parameter(ms.Tensor(np.zeros((2, 3), np.float32)), name="p0")
        self.p1 = Parameter(ms.Tensor(np.zeros((2, 3), np.float32)), name="p1")
        self.p2 = Parameter(ms.Tensor(np.zeros((2, 3), np.float32)), name="p2")

    def construct(self, x, y):
        if y.sum() > 0.5:
            if x.sum() > 0.5:
                x = self.p2 * 2
            else:
                ops.assign(self.p0, y)
        else:
            ops.assign(self.p1, x * 2)
            y = self.p2 * 2
        ops.assign(self.p2, y * 2)
        return x


def run(net: nn.Cell) -> list:
    out = []
    for xs, ys in ((1.0, 1.0), (-1.0, 1.0), (1.0, -1.0)):
        x = ms.Tensor(np.full((2, 3), xs, np.float32))
        y = ms.Tensor(np.full((2, 3), ys, np.float32))
        out.append([net(x, y).asnumpy(), *(p.asnumpy() for p in (net.p0, net.p1, net.p2))])
    return out


def test_iree_runtime_failure_is_located_or_the_values_are_pynatives():
    want = run(NestedIfs())
    ms.set_context(mode=ms.GRAPH_MODE, jit_config={"backend": "iree"})
    try:
        got = run(NestedIfs())
    except MindjitError as err:
        first = str(err).splitlines()[0]
        assert "test_iree_runtime_failure.py:" in first and "IREE failed running" in first
        return
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE, jit_config={"backend": "numpy"})
    for g, w in zip(got, want):
        for a, b in zip(g, w):
            np.testing.assert_allclose(a, b, rtol=1e-6)
