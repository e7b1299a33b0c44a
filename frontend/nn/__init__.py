"""`mindjit.nn`: Cell, containers and layers with MindSpore's names."""

from mindjit.frontend.nn.cell import Cell
from mindjit.frontend.nn.containers import CellList, SequentialCell
from mindjit.frontend.nn.layers import Dense, HSwish, ReLU, Sigmoid, Tanh, get_activation

__all__ = [
    "Cell",
    "CellList",
    "Dense",
    "HSwish",
    "ReLU",
    "SequentialCell",
    "Sigmoid",
    "Tanh",
    "get_activation",
]
