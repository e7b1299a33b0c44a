"""Optimizers with MindSpore's names: `Optimizer` (the base), `SGD`, `Momentum`, `Adam`."""

from mindjit.frontend.nn.optim.adam import Adam
from mindjit.frontend.nn.optim.momentum import Momentum
from mindjit.frontend.nn.optim.optimizer import Optimizer
from mindjit.frontend.nn.optim.sgd import SGD

__all__ = ["SGD", "Adam", "Momentum", "Optimizer"]
