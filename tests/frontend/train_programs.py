"""Issue 7's training programs: the docs' whole-graph train step (value_and_grad +
optimizer in one @jit function), built per test (graph mode reads the source here)."""

from __future__ import annotations

import mindjit as ms
from mindjit import nn


class MLP(nn.Cell):
    def __init__(self, n_in: int, hidden: int, n_out: int):
        super().__init__()
        self.fc1 = nn.Dense(n_in, hidden)
        self.act = nn.ReLU()
        self.fc2 = nn.Dense(hidden, n_out)

    def construct(self, x):
        return self.fc2(self.act(self.fc1(x)))


class Logistic(nn.Cell):
    """Logistic regression: a Dense and a Sigmoid, trained with BCELoss."""

    def __init__(self, n_in: int):
        super().__init__()
        self.fc = nn.Dense(n_in, 1)
        self.sigmoid = nn.Sigmoid()

    def construct(self, x):
        return self.sigmoid(self.fc(x))


def make_train_step(network, loss_fn, optimizer):
    """(train_step compiled as one graph, the same step run op by op)."""

    def forward_fn(data, label):
        logits = network(data)
        loss = loss_fn(logits, label)
        return loss

    grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters)

    def train_step(data, label):
        loss, grads = grad_fn(data, label)
        optimizer(grads)
        return loss

    return ms.jit(train_step), train_step


def bce_on_raw_logits():
    """The docs' example as written: BCELoss on a Dense's raw outputs (an error)."""
    network = nn.Dense(10, 1)
    loss_fn = nn.BCELoss()
    optimizer = nn.Adam(network.trainable_params(), 0.01)
    return make_train_step(network, loss_fn, optimizer)
