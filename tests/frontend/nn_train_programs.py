"""Graph-mode programs of the loss and optimizer tests (graph mode reads their source).

Each wrapper Cell has a `@ms.jit` construct, so it compiles in PyNative mode too
and each instance gets its own program (programs are cached per bound object).
"""

from __future__ import annotations

import mindjit as ms
from mindjit import nn


class LossOf(nn.Cell):
    """`loss_fn(logits, labels)` compiled as one graph."""

    def __init__(self, loss_fn):
        super().__init__()
        self.loss_fn = loss_fn

    @ms.jit
    def construct(self, logits, labels):
        return self.loss_fn(logits, labels)


class NetWithLoss(nn.Cell):
    """`loss_fn(network(data), label)` compiled as one graph."""

    def __init__(self, network, loss_fn):
        super().__init__()
        self.network = network
        self.loss_fn = loss_fn

    @ms.jit
    def construct(self, data, label):
        return self.loss_fn(self.network(data), label)


class OptimizerStep(nn.Cell):
    """`optimizer(grads)` compiled as one graph (auto_prefix=False, as MindSpore's own
    wrappers: the optimizer holds the network's Parameters, which keep their names)."""

    def __init__(self, optimizer):
        super().__init__(auto_prefix=False)
        self.optimizer = optimizer

    @ms.jit
    def construct(self, grads):
        return self.optimizer(grads)


# The docs' programs, as written there: module-level objects and @jit functions.
docs_network = ms.nn.Dense(10, 1)
docs_optimizer = nn.Adam(docs_network.trainable_params(), 0.01)
bce_network = nn.Dense(5, 1)
bce_loss_fn = nn.BCELoss()


@ms.jit
def docs_step(grads):
    optimizer_result = docs_optimizer(grads)
    return optimizer_result


@ms.jit
def bce_forward(data, label):
    loss = bce_loss_fn(bce_network(data), label)
    return loss


class TrainStep(nn.Cell):
    """One training step in one graph: the loss, its gradients, the optimizer."""

    def __init__(self, network, loss_fn, optimizer):
        super().__init__()
        self.network = network
        self.loss_fn = loss_fn
        self.optimizer = optimizer
        self.grad_fn = ms.value_and_grad(self.forward, None, optimizer.parameters)

    def forward(self, data, label):
        return self.loss_fn(self.network(data), label)

    @ms.jit
    def construct(self, data, label):
        loss, grads = self.grad_fn(data, label)
        self.optimizer(grads)
        return loss
