"""`mindjit.nn`: Cell, containers, layers, losses and optimizers with MindSpore's names."""

from mindjit.frontend.nn.cell import Cell
from mindjit.frontend.nn.containers import CellList, SequentialCell
from mindjit.frontend.nn.conv import Conv2d
from mindjit.frontend.nn.conv_variants import Conv1d, Conv2dTranspose
from mindjit.frontend.nn.dropout import Dropout
from mindjit.frontend.nn.embedding import Embedding
from mindjit.frontend.nn.layers import (
    GELU,
    Dense,
    Flatten,
    HSwish,
    Identity,
    LeakyReLU,
    LogSoftmax,
    ReLU,
    Sigmoid,
    SiLU,
    Softmax,
    Tanh,
    get_activation,
)
from mindjit.frontend.nn.loss import (
    BCELoss,
    BCEWithLogitsLoss,
    CrossEntropyLoss,
    HuberLoss,
    KLDivLoss,
    L1Loss,
    LossBase,
    MSELoss,
    NLLLoss,
    SmoothL1Loss,
    SoftmaxCrossEntropyWithLogits,
)
from mindjit.frontend.nn.normalization import BatchNorm1d, BatchNorm2d, LayerNorm
from mindjit.frontend.nn.optim import SGD, Adam, Momentum, Optimizer
from mindjit.frontend.nn.pooling import AvgPool2d, MaxPool2d
from mindjit.frontend.nn.pooling_adaptive import AdaptiveAvgPool2d, AdaptiveMaxPool2d
from mindjit.frontend.nn.upsample import Upsample
from mindjit.frontend.nn.wrappers import TrainOneStepCell, WithEvalCell, WithLossCell

__all__ = [
    "AdaptiveAvgPool2d",
    "AdaptiveMaxPool2d",
    "Conv1d",
    "Conv2dTranspose",
    "Adam",
    "AvgPool2d",
    "BatchNorm1d",
    "BatchNorm2d",
    "Conv2d",
    "Embedding",
    "Flatten",
    "MaxPool2d",
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
    "Identity",
    "LeakyReLU",
    "LogSoftmax",
    "SiLU",
    "LayerNorm",
    "ReLU",
    "SequentialCell",
    "Softmax",
    "Sigmoid",
    "Tanh",
    "get_activation",
    "TrainOneStepCell",
    "WithEvalCell",
    "WithLossCell",
    "Upsample",
    "Dropout",
    "CrossEntropyLoss",
    "L1Loss",
    "NLLLoss",
    "SmoothL1Loss",
    "HuberLoss",
    "KLDivLoss",
    # optimizers, learning-rate schedules, loss scaling (issue 23, optim slice)
    "AdamWeightDecay",
    "RMSProp",
    "Adagrad",
    "Lamb",
    "LearningRateSchedule",
    "ExponentialDecayLR",
    "NaturalExpDecayLR",
    "InverseDecayLR",
    "CosineDecayLR",
    "PolynomialDecayLR",
    "WarmUpLR",
    "piecewise_constant_lr",
    "exponential_decay_lr",
    "natural_exp_decay_lr",
    "inverse_decay_lr",
    "cosine_decay_lr",
    "polynomial_decay_lr",
    "warmup_lr",
    "FixedLossScaleUpdateCell",
    "DynamicLossScaleUpdateCell",
    "TrainOneStepWithLossScaleCell",
]

from mindjit.frontend.nn.dynamic_lr import (  # noqa: E402
    cosine_decay_lr,
    exponential_decay_lr,
    inverse_decay_lr,
    natural_exp_decay_lr,
    piecewise_constant_lr,
    polynomial_decay_lr,
    warmup_lr,
)
from mindjit.frontend.nn.learning_rate_schedule import (  # noqa: E402
    CosineDecayLR,
    ExponentialDecayLR,
    InverseDecayLR,
    LearningRateSchedule,
    NaturalExpDecayLR,
    PolynomialDecayLR,
    WarmUpLR,
)
from mindjit.frontend.nn.loss_scale import (  # noqa: E402
    DynamicLossScaleUpdateCell,
    FixedLossScaleUpdateCell,
    TrainOneStepWithLossScaleCell,
)
from mindjit.frontend.nn.optim import Adagrad, AdamWeightDecay, Lamb, RMSProp  # noqa: E402
