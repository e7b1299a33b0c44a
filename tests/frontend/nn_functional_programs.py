"""Cells for test_nn_functional (graph mode reads their source from this file)."""

from __future__ import annotations

from mindjit import nn, ops


class SoftmaxNet(nn.Cell):
    def __init__(self, axis=-1):
        super().__init__()
        self.axis = axis

    def construct(self, x):
        return ops.softmax(x, self.axis)


class GeluNet(nn.Cell):
    def construct(self, x):
        return ops.gelu(x, approximate="tanh")


class LayerNormFn(nn.Cell):
    """ops.layer_norm with explicit Parameters over the last two axes."""

    def __init__(self, gamma, beta):
        super().__init__()
        self.gamma = gamma
        self.beta = beta

    def construct(self, x):
        return ops.layer_norm(x, (-2, -1), self.gamma, self.beta, 1e-5)


class Block(nn.Cell):
    """Dense -> GELU -> LayerNorm (last axis) -> LayerNorm (last two axes) -> Softmax."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(8, 8, activation="gelu")
        self.act = nn.GELU()
        self.norm = nn.LayerNorm((8,), gamma_init="normal", beta_init="normal")
        self.norm2 = nn.LayerNorm((3, 8), begin_norm_axis=-2, begin_params_axis=-2)
        self.softmax = nn.Softmax(axis=1)
        self.last = nn.get_activation("softmax")

    def construct(self, x):
        h = self.act(self.fc(x))
        h = self.norm(h)
        h = self.norm2(h)
        return self.softmax(h), self.last(h)
