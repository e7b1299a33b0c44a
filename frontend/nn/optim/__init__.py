"""Optimizers with MindSpore's names: `Optimizer` (the base), `SGD`, `Momentum`, `Adam`,
`AdamWeightDecay`, `RMSProp`, `Adagrad`, `Lamb`, `Adadelta`, `AdaMax`, `ASGD`."""

from mindjit.frontend.nn.optim.adadelta_family import ASGD, Adadelta, AdaMax
from mindjit.frontend.nn.optim.adagrad import Adagrad
from mindjit.frontend.nn.optim.adam import Adam
from mindjit.frontend.nn.optim.adam_weight_decay import AdamWeightDecay
from mindjit.frontend.nn.optim.lamb import Lamb
from mindjit.frontend.nn.optim.momentum import Momentum
from mindjit.frontend.nn.optim.optimizer import Optimizer
from mindjit.frontend.nn.optim.rmsprop import RMSProp
from mindjit.frontend.nn.optim.sgd import SGD

__all__ = [
    "ASGD",
    "SGD",
    "Adadelta",
    "AdaMax",
    "Adagrad",
    "Adam",
    "AdamWeightDecay",
    "Lamb",
    "Momentum",
    "Optimizer",
    "RMSProp",
]
