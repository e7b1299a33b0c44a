"""`mindjit.nn`: Cell, containers and layers with MindSpore's names."""

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
from mindjit.frontend.nn.normalization import LayerNorm

__all__ = [
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
