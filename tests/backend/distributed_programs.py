"""Small pipelined train steps for the distributed engines' tests: Blocks of
Dense + tanh on stages i * X // 4, a Momentum optimizer (state kept between
steps), the same weights and data every time."""

from __future__ import annotations

import numpy as np

import mindjit as ms
from mindjit import Tensor, nn

HIDDEN = 8
BATCH = 8


class Block(nn.Cell):
    def __init__(self, seed: int):
        super().__init__()
        rng = np.random.default_rng(seed)
        w = Tensor(rng.standard_normal((HIDDEN, HIDDEN)).astype(np.float32) * 0.5)
        self.dense = nn.Dense(HIDDEN, HIDDEN, weight_init=w)

    def construct(self, x):
        return ms.ops.tanh(self.dense(x)) + x


class Net(nn.Cell):
    def __init__(self, stages: int):
        super().__init__()
        self.blocks = nn.CellList([Block(i) for i in range(4)])
        rng = np.random.default_rng(9)
        w = Tensor(rng.standard_normal((2, HIDDEN)).astype(np.float32) * 0.3)
        self.head = nn.Dense(HIDDEN, 2, weight_init=w)
        if stages > 1:
            for i, block in enumerate(self.blocks):
                block.pipeline_stage = i * stages // 4
            self.head.pipeline_stage = stages - 1

    def construct(self, x):
        for block in self.blocks:
            x = block(x)
        return self.head(x)


def data(batch: int = BATCH) -> tuple[Tensor, Tensor]:
    rng = np.random.default_rng(3)
    x = Tensor(rng.standard_normal((batch, HIDDEN)).astype(np.float32))
    y = Tensor(rng.standard_normal((batch, 2)).astype(np.float32))
    return x, y


def train_step(stages: int, micro: int, scheduler: str = "1f1b"):
    """(net, step): TrainOneStepCell(PipelineCell(WithLossCell(net))), graph mode."""
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.reset_auto_parallel_context()
    if stages > 1:
        ms.set_auto_parallel_context(
            parallel_mode=ms.ParallelMode.SEMI_AUTO_PARALLEL,
            pipeline_stages=stages,
            pipeline_config={"pipeline_scheduler": scheduler},
        )
    net = Net(stages)
    loss = nn.PipelineCell(nn.WithLossCell(net, nn.MSELoss(reduction="sum")), micro_size=micro)
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.01, momentum=0.9)
    step = nn.TrainOneStepCell(loss, opt)
    step.set_train()
    return net, step


def train(stages: int, micro: int, steps: int = 3, scheduler: str = "1f1b"):
    """The losses of `steps` steps and every Parameter after them (optimizer's too)."""
    net, step = train_step(stages, micro, scheduler)
    x, y = data()
    losses = [float(step(x, y).asnumpy()) for _ in range(steps)]
    params = {name: p.asnumpy().copy() for name, p in step.parameters_and_names()}
    return losses, params, step


def assert_same_training(got, want, tol: float = 1e-5) -> None:
    np.testing.assert_allclose(got[0], want[0], rtol=tol, atol=tol)
    assert got[1].keys() == want[1].keys()
    for name in want[1]:
        np.testing.assert_allclose(got[1][name], want[1][name], rtol=tol, atol=tol, err_msg=name)
