"""Loop values IREE finds dead, on the IREE backend (backend/iree/prepare.py
`_keep_dead_loop_values`): one passed only to a call that ignores it (fuzz seed 78,
where iree-compile crashed in `ScfWhileOpConversion` and took the process with it)
and one read only by dead ops (fuzz seed 74, where IREE rejected the loop and the
graph ran on numpy)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("iree.runtime")
pytest.importorskip("iree.compiler")

from iree_difference import cell_case, check_backends  # noqa: E402

import mindjit as ms  # noqa: E402
from mindjit import Parameter, Tensor, nn, ops  # noqa: E402


class Block(nn.Cell):
    """Assigns its Parameter without reading it: the lazy-inline graph takes the
    Parameter's old value and ignores it."""

    @ms.lazy_inline
    def __init__(self):
        super().__init__()
        self.bb = Parameter(Tensor(np.full((2, 3), 0.5, np.float32)), name="bb")

    def construct(self, h):
        ops.assign(self.bb, ops.tanh(h * 2.0))
        return ops.tanh(h)


class LoopCallsBlock(nn.Cell):
    """Fuzz seed 78, minimized: the block called in a `while` body, its Parameter
    read after the loop."""

    def __init__(self):
        super().__init__()
        self.p0 = Parameter(
            Tensor(np.array([[-0.07, -0.2, 0.28], [-0.64, 0.82, -0.87]], np.float32))
        )
        self.blocks = nn.CellList([Block()])

    def construct(self, x):
        w = x
        while ops.reduce_sum(w) < 6.2:
            self.blocks[0](ops.tanh(self.p0))
            w = ops.abs(w) * 1.5 + 0.5
        return w, self.blocks[0].bb * 1.0


@pytest.mark.parametrize("start", [0.1, 2.0], ids=["loops", "skips"])
def test_a_loop_passing_a_parameter_to_a_block_that_ignores_it(start):
    x = Tensor(np.full((2, 3), start, np.float32))
    check_backends("loop_calls_block", cell_case(LoopCallsBlock, x))


class LoopAssignsTwice(nn.Cell):
    """Fuzz seed 74, minimized: a Parameter assigned twice in a `while` body; the
    first value, which reads the old one, is dead."""

    def __init__(self):
        super().__init__()
        self.p0 = Parameter(Tensor(np.array([[0.3, -0.2, 0.1], [0.5, 0.4, -0.6]], np.float32)))
        self.w = Parameter(Tensor(np.eye(3, dtype=np.float32) * 0.5))

    def construct(self, x, y):
        w2 = x
        while ops.reduce_sum(w2) < 6.2:
            ops.assign(self.p0, ops.tanh((x - ops.reduce_mean(self.p0, 1, True)) * 2.0))
            ops.assign(self.p0, ops.tanh((y * 0.5) @ self.w))
            w2 = ops.abs(w2) * 1.5 + 0.5
        return w2, self.p0 + 0


@pytest.mark.parametrize("start", [0.1, 2.0], ids=["loops", "skips"])
def test_a_loop_assigning_a_parameter_twice(start):
    x = Tensor(np.full((2, 3), start, np.float32))
    y = Tensor(np.array([[0.2, -0.4, 0.9], [0.7, 0.1, -0.3]], np.float32))
    check_backends("loop_assigns_twice", cell_case(LoopAssignsTwice, x, y))
