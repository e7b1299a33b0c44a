"""`mindjit.nn`: Cell, containers, layers, losses and optimizers with MindSpore's names."""

from mindjit.frontend.nn.cell import Cell
from mindjit.frontend.nn.containers import CellList, SequentialCell
from mindjit.frontend.nn.layers import (
    GELU,
    Dense,
    HSwish,
    ReLU,
    Sigmoid,
    Softmax,
    Tanh,
    get_activation,
)
from mindjit.frontend.nn.loss import (
    BCELoss,
    BCEWithLogitsLoss,
    LossBase,
    MSELoss,
    SoftmaxCrossEntropyWithLogits,
)
from mindjit.frontend.nn.normalization import LayerNorm
from mindjit.frontend.nn.optim import SGD, Adam, Momentum, Optimizer

__all__ = [
    "Adam",
    "BCELoss",
    "BCEWithLogitsLoss",
    "LossBase",
    "MSELoss",
    "Momentum",
    "Optimizer",
    "SGD",
    "SoftmaxCrossEntropyWithLogits",
    "Cell",
    "CellList",
    "Dense",
    "GELU",
    "HSwish",
    "LayerNorm",
    "ReLU",
    "SequentialCell",
    "Softmax",
    "Sigmoid",
    "Tanh",
    "get_activation",
]
