"""`mindjit.nn`: Cell, containers, layers, losses and optimizers with MindSpore's names."""

from mindjit.frontend.nn.cell import Cell
from mindjit.frontend.nn.cell_dict import CellDict
from mindjit.frontend.nn.clip import ClipByNorm
from mindjit.frontend.nn.combined import Conv2dBnAct, DenseBnAct, TimeDistributed
from mindjit.frontend.nn.containers import CellList, SequentialCell
from mindjit.frontend.nn.conv import Conv2d
from mindjit.frontend.nn.conv_variants import Conv1d, Conv2dTranspose
from mindjit.frontend.nn.dropout import Dropout, Dropout1d, Dropout2d, Dropout3d
from mindjit.frontend.nn.embedding import Embedding
from mindjit.frontend.nn.forward_value_and_grad import ForwardValueAndGrad
from mindjit.frontend.nn.grad_reducer import DistributedGradReducer
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
from mindjit.frontend.nn.layers_extra import (
    AdaptiveAvgPool1d,
    AdaptiveMaxPool1d,
    BatchNorm3d,
    Conv1dTranspose,
)
from mindjit.frontend.nn.layers_misc import BiDense, CentralCrop, ImageGradients
from mindjit.frontend.nn.layers_more import (
    GLU,
    Linear,
    Norm,
    OneHot,
    Roll,
    RReLU,
    Softmax2d,
    Softsign,
    Tril,
    Triu,
    Unflatten,
)
from mindjit.frontend.nn.loss import (
    BCELoss,
    BCEWithLogitsLoss,
    CosineEmbeddingLoss,
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
from mindjit.frontend.nn.loss_extra import (
    DiceLoss,
    FocalLoss,
    GaussianNLLLoss,
    MAELoss,
    MultiClassDiceLoss,
    PoissonNLLLoss,
    RMSELoss,
)
from mindjit.frontend.nn.loss_margin import (
    HingeEmbeddingLoss,
    MarginRankingLoss,
    MultilabelMarginLoss,
    MultiLabelSoftMarginLoss,
    MultiMarginLoss,
    SoftMarginLoss,
    TripletMarginLoss,
    TripletMarginWithDistanceLoss,
)
from mindjit.frontend.nn.math_cells import IGamma, MatMul, Moments, Range, ReduceLogSumExp
from mindjit.frontend.nn.matrix_cells import (
    ChannelShuffle,
    L1Regularizer,
    MatrixDiag,
    MatrixDiagPart,
    MatrixSetDiag,
)
from mindjit.frontend.nn.multihead_attention import MultiheadAttention
from mindjit.frontend.nn.nonlinear import (
    CELU,
    ELU,
    FastGelu,
    Hardtanh,
    HShrink,
    HSigmoid,
    LogSigmoid,
    Mish,
    PReLU,
    ReLU6,
    SeLU,
    Softmin,
    Softplus,
    SoftShrink,
    Tanhshrink,
    Threshold,
)
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
from mindjit.frontend.nn.padding_more import (
    ReflectionPad1d,
    ReflectionPad2d,
    ReflectionPad3d,
    ReplicationPad1d,
    ReplicationPad2d,
    ReplicationPad3d,
)
from mindjit.frontend.nn.pipeline import PipelineCell
from mindjit.frontend.nn.pixel_shuffle import PixelShuffle, PixelUnshuffle
from mindjit.frontend.nn.pooling import AvgPool2d, MaxPool2d
from mindjit.frontend.nn.pooling1d import AvgPool1d, MaxPool1d
from mindjit.frontend.nn.pooling_adaptive import AdaptiveAvgPool2d, AdaptiveMaxPool2d
from mindjit.frontend.nn.pooling_lp import LPPool1d, LPPool2d
from mindjit.frontend.nn.rnn import GRU, LSTM, RNN
from mindjit.frontend.nn.rnn_cells import GRUCell, LSTMCell, RNNCell
from mindjit.frontend.nn.transformer import (
    Transformer,
    TransformerDecoder,
    TransformerDecoderLayer,
    TransformerEncoder,
    TransformerEncoderLayer,
)
from mindjit.frontend.nn.unfold import Unfold
from mindjit.frontend.nn.upsample import ResizeBilinear, Upsample
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
    "DistributedGradReducer",
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
    "ELU",
    "FastGelu",
    "Hardtanh",
    "HSigmoid",
    "Mish",
    "PReLU",
    "ReLU6",
    "Softmin",
    "Softplus",
    "CELU",
    "HShrink",
    "LogSigmoid",
    "SeLU",
    "SoftShrink",
    "Tanhshrink",
    "Threshold",
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
    # pipeline parallelism, its API (issue 26)
    "PipelineCell",
    # model-zoo coverage, round 2
    "ClipByNorm",
    "CosineEmbeddingLoss",
    "Dropout2d",
    "ForwardValueAndGrad",
    "ResizeBilinear",
    "Unfold",
    # every loss, container, missing layers and optimizers (issue 38)
    "DiceLoss",
    "FocalLoss",
    "GaussianNLLLoss",
    "HingeEmbeddingLoss",
    "MAELoss",
    "MarginRankingLoss",
    "MultiClassDiceLoss",
    "MultilabelMarginLoss",
    "MultiLabelSoftMarginLoss",
    "MultiMarginLoss",
    "PoissonNLLLoss",
    "RMSELoss",
    "SoftMarginLoss",
    "TripletMarginLoss",
    "TripletMarginWithDistanceLoss",
    "Adadelta",
    "AdaMax",
    "ASGD",
    "CellDict",
    "AdaptiveAvgPool1d",
    "AdaptiveMaxPool1d",
    "BatchNorm3d",
    "Conv1dTranspose",
    # more layers and math Cells (issue 38, round 2)
    "Softsign",
    "GLU",
    "Softmax2d",
    "Unflatten",
    "Dropout1d",
    "Dropout3d",
    "Linear",
    "Tril",
    "Triu",
    "Roll",
    "OneHot",
    "Range",
    "Norm",
    "MatMul",
    "Moments",
    "ReduceLogSumExp",
    "IGamma",
    "MatrixDiag",
    "MatrixDiagPart",
    "MatrixSetDiag",
    "ChannelShuffle",
    "ReflectionPad1d",
    "ReflectionPad2d",
    "ReflectionPad3d",
    "ReplicationPad1d",
    "ReplicationPad2d",
    "ReplicationPad3d",
    "L1Regularizer",
    "DenseBnAct",
    "Conv2dBnAct",
    "TimeDistributed",
    "LPPool1d",
    "LPPool2d",
    "RReLU",
    "BiDense",
    "CentralCrop",
    "ImageGradients",
]

from mindjit.frontend.nn.conv3d import Conv3d, Conv3dTranspose  # noqa: E402
from mindjit.frontend.nn.ctc_loss import CTCLoss  # noqa: E402
from mindjit.frontend.nn.dynamic_lr import (  # noqa: E402
    cosine_decay_lr,
    exponential_decay_lr,
    inverse_decay_lr,
    natural_exp_decay_lr,
    piecewise_constant_lr,
    polynomial_decay_lr,
    warmup_lr,
)
from mindjit.frontend.nn.fractional_pool import (  # noqa: E402
    FractionalMaxPool2d,
    FractionalMaxPool3d,
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
from mindjit.frontend.nn.lrn import LRN  # noqa: E402
from mindjit.frontend.nn.optim import (  # noqa: E402
    ASGD,
    FTRL,
    Adadelta,
    Adagrad,
    AdaMax,
    AdamOffload,
    AdamWeightDecay,
    Lamb,
    LazyAdam,
    ProximalAdagrad,
    RMSProp,
    Rprop,
)
from mindjit.frontend.nn.pooling3d import (  # noqa: E402
    AdaptiveAvgPool3d,
    AdaptiveMaxPool3d,
    AvgPool3d,
    MaxPool3d,
)
from mindjit.frontend.nn.unpool import MaxUnpool1d, MaxUnpool2d, MaxUnpool3d  # noqa: E402

__all__ += [
    "AdaptiveAvgPool3d",
    "AdaptiveMaxPool3d",
    "AvgPool3d",
    "CTCLoss",
    "Conv3d",
    "Conv3dTranspose",
    "FractionalMaxPool2d",
    "FractionalMaxPool3d",
    "LRN",
    "MaxPool3d",
    "MaxUnpool1d",
    "MaxUnpool2d",
    "MaxUnpool3d",
]

__all__ += ["FTRL", "AdamOffload", "LazyAdam", "ProximalAdagrad", "Rprop"]
from mindjit.frontend.nn.image_quality import PSNR, SSIM  # noqa: E402

__all__ += ["PSNR", "SSIM"]
from mindjit.frontend.nn.grad_cells import Jvp, ParameterUpdate, Vjp, WithGradCell  # noqa: E402

__all__ += ["Jvp", "ParameterUpdate", "Vjp", "WithGradCell"]
from mindjit.frontend.nn.embedding_lookup import EmbeddingLookup  # noqa: E402

__all__ += ["EmbeddingLookup"]
from mindjit.frontend.nn.no_init import no_init_parameters  # noqa: E402

__all__ += ["no_init_parameters"]
from mindjit.frontend.nn.sparse_cells import SparseTensorDenseMatmul, SparseToDense  # noqa: E402

__all__ += ["SparseTensorDenseMatmul", "SparseToDense"]  # sparse Cells (api-sparse)

# MindSpore 1.x's nn.metrics names (`nn.Accuracy`): the metrics of mindjit.train. Imported
# last: importing the train package reaches back into nn.wrappers, loaded by now.
from mindjit.frontend.train.metrics import (  # noqa: E402
    F1,
    MAE,
    MSE,
    ROC,
    Accuracy,
    BleuScore,
    ConfusionMatrix,
    ConfusionMatrixMetric,
    CosineSimilarity,
    Dice,
    Fbeta,
    HausdorffDistance,
    Loss,
    MeanSurfaceDistance,
    Metric,
    OcclusionSensitivity,
    Perplexity,
    Precision,
    Recall,
    RootMeanSquareDistance,
    Top1CategoricalAccuracy,
    Top5CategoricalAccuracy,
    TopKCategoricalAccuracy,
    auc,
    get_metric_fn,
    get_metrics,
    names,
    rearrange_inputs,
)

__all__ += [
    "MAE",
    "MSE",
    "Accuracy",
    "CosineSimilarity",
    "Loss",
    "Metric",
    "Precision",
    "Recall",
    "Top1CategoricalAccuracy",
    "Top5CategoricalAccuracy",
    "TopKCategoricalAccuracy",
    "get_metric_fn",
    "rearrange_inputs",
]
__all__ += [
    "F1",
    "ROC",
    "BleuScore",
    "ConfusionMatrix",
    "ConfusionMatrixMetric",
    "Dice",
    "Fbeta",
    "HausdorffDistance",
    "MeanSurfaceDistance",
    "OcclusionSensitivity",
    "Perplexity",
    "RootMeanSquareDistance",
    "auc",
    "get_metrics",
    "names",
]
