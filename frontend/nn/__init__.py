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
    L1Loss,
    LossBase,
    MSELoss,
    NLLLoss,
    SmoothL1Loss,
    SoftmaxCrossEntropyWithLogits,
)
from mindjit.frontend.nn.multihead_attention import MultiheadAttention
from mindjit.frontend.nn.normalization import BatchNorm1d, BatchNorm2d, LayerNorm
from mindjit.frontend.nn.normalization_groups import (
    GroupNorm,
    InstanceNorm1d,
    InstanceNorm2d,
    InstanceNorm3d,
)
from mindjit.frontend.nn.optim import SGD, Adam, Momentum, Optimizer
from mindjit.frontend.nn.padding import (
    ConstantPad1d,
    ConstantPad2d,
    ConstantPad3d,
    Pad,
    ZeroPad1d,
    ZeroPad2d,
    ZeroPad3d,
)
from mindjit.frontend.nn.pixel_shuffle import PixelShuffle, PixelUnshuffle
from mindjit.frontend.nn.pooling import AvgPool2d, MaxPool2d
from mindjit.frontend.nn.pooling1d import AvgPool1d, MaxPool1d
from mindjit.frontend.nn.pooling_adaptive import AdaptiveAvgPool2d, AdaptiveMaxPool2d
from mindjit.frontend.nn.rnn import GRU, LSTM, RNN
from mindjit.frontend.nn.rnn_cells import GRUCell, LSTMCell, RNNCell
from mindjit.frontend.nn.transformer import (
    Transformer,
    TransformerDecoder,
    TransformerDecoderLayer,
    TransformerEncoder,
    TransformerEncoderLayer,
)
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
    "GRU",
    "GRUCell",
    "LSTM",
    "LSTMCell",
    "RNN",
    "RNNCell",
    "MultiheadAttention",
    "Transformer",
    "TransformerDecoder",
    "TransformerDecoderLayer",
    "TransformerEncoder",
    "TransformerEncoderLayer",
    "GroupNorm",
    "InstanceNorm1d",
    "InstanceNorm2d",
    "InstanceNorm3d",
    "AvgPool1d",
    "MaxPool1d",
    "ConstantPad1d",
    "ConstantPad2d",
    "ConstantPad3d",
    "Pad",
    "ZeroPad1d",
    "ZeroPad2d",
    "ZeroPad3d",
    "PixelShuffle",
    "PixelUnshuffle",
]
