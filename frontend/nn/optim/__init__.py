"""Optimizers with MindSpore's names: `Optimizer` (the base), `SGD`, `Momentum`, `Adam`,
`AdamWeightDecay`, `RMSProp`, `Adagrad`, `Lamb`, `Adadelta`, `AdaMax`, `ASGD`,
`FTRL`, `ProximalAdagrad`, `Rprop`, `LazyAdam`, `AdamOffload`."""

from mindjit.frontend.nn.optim.adadelta_family import ASGD, Adadelta, AdaMax
from mindjit.frontend.nn.optim.adagrad import Adagrad
from mindjit.frontend.nn.optim.adam import Adam
from mindjit.frontend.nn.optim.adam_variants import AdamOffload, LazyAdam
from mindjit.frontend.nn.optim.adam_weight_decay import AdamWeightDecay
from mindjit.frontend.nn.optim.lamb import Lamb
from mindjit.frontend.nn.optim.momentum import Momentum
from mindjit.frontend.nn.optim.optimizer import Optimizer
from mindjit.frontend.nn.optim.proximal import FTRL, ProximalAdagrad
from mindjit.frontend.nn.optim.rmsprop import RMSProp
from mindjit.frontend.nn.optim.rprop import Rprop
from mindjit.frontend.nn.optim.sgd import SGD

__all__ = [
    "ASGD",
    "SGD",
    "FTRL",
    "AdamOffload",
    "LazyAdam",
    "ProximalAdagrad",
    "Rprop",
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
