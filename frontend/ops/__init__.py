"""`mindjit.ops`: MindSpore's functional ops and primitive classes.

Every op runs through `mindjit.frontend.dispatch.apply_op`, so the same call
computes eagerly in PyNative mode and emits mindir while a graph is traced.
"""

# ruff: noqa: F401 - this module re-exports the ops (see __all__ at the end)

import sys as _sys
from types import ModuleType as _ModuleType
from typing import Any as _Any

from mindjit.frontend.ops.activation_primitives import (
    ACos,
    Asin,
    Atan,
    Atan2,
    Cosh,
    Einsum,
    Elu,
    Exp2,
    Expm1,
    FastGeLU,
    GeLU,
    HSigmoid,
    IsFinite,
    IsInf,
    IsNan,
    Log1p,
    Log2,
    LogSoftmax,
    Mish,
    PReLU,
    ReduceAll,
    ReduceAny,
    ReduceProd,
    ReLU6,
    Sign,
    Sinh,
    Softmax,
    Softplus,
    Tan,
)
from mindjit.frontend.ops.activations import (
    celu,
    elu,
    fast_gelu,
    hardshrink,
    hardsigmoid,
    hardtanh,
    logsigmoid,
    mish,
    prelu,
    relu6,
    selu,
    softmin,
    softplus,
    softshrink,
    tanhshrink,
    threshold,
)
from mindjit.frontend.ops.adaptive_pool import adaptive_avg_pool2d, adaptive_max_pool2d
from mindjit.frontend.ops.adaptive_pool3d import (
    adaptive_avg_pool1d,
    adaptive_avg_pool3d,
    adaptive_max_pool1d,
    adaptive_max_pool3d,
)
from mindjit.frontend.ops.array import (
    broadcast_to,
    cast,
    cat,
    concat,
    dtype,
    expand_dims,
    fill,
    flatten,
    full,
    full_like,
    ones,
    ones_like,
    permute,
    rank,
    reshape,
    shape,
    size,
    squeeze,
    stack,
    transpose,
    unsqueeze,
    unstack,
    zeros,
    zeros_like,
)
from mindjit.frontend.ops.array_views import index_select, meshgrid, narrow, roll
from mindjit.frontend.ops.axes import (
    diag,
    diagonal,
    moveaxis,
    movedim,
    swapaxes,
    swapdims,
    t,
    trace,
)
from mindjit.frontend.ops.bessel import (
    bessel_i0,
    bessel_i0e,
    bessel_i1,
    bessel_i1e,
    bessel_j0,
    bessel_j1,
    bessel_k0,
    bessel_k0e,
    bessel_k1,
    bessel_k1e,
    bessel_y0,
    bessel_y1,
    i0,
)
from mindjit.frontend.ops.binning import (
    bucketize,
    histc,
    searchsorted,
)
from mindjit.frontend.ops.bitwise import (
    bitwise_and,
    bitwise_left_shift,
    bitwise_or,
    bitwise_right_shift,
    bitwise_xor,
    gcd,
    invert,
    lcm,
    population_count,
)
from mindjit.frontend.ops.boxes import (
    bounding_box_decode,
    bounding_box_encode,
    check_valid,
    iou,
)
from mindjit.frontend.ops.categorical import multinomial
from mindjit.frontend.ops.choice_with_mask import choice_with_mask
from mindjit.frontend.ops.clip import clamp, clip, clip_by_value, masked_fill
from mindjit.frontend.ops.clip_global import clip_by_global_norm
from mindjit.frontend.ops.collective import (
    AllGather,
    AllReduce,
    Broadcast,
    ReduceOp,
    ReduceScatter,
)
from mindjit.frontend.ops.constexpr import constexpr
from mindjit.frontend.ops.contract import all, any, einsum, outer, prod
from mindjit.frontend.ops.conv import avg_pool2d, conv2d, flip, pad
from mindjit.frontend.ops.conv1d import conv1d
from mindjit.frontend.ops.conv3d import conv3d, conv3d_transpose
from mindjit.frontend.ops.conversions import scalar_to_tensor, tuple_to_array
from mindjit.frontend.ops.creation import arange, eye, linspace, tril, triu
from mindjit.frontend.ops.crop_and_resize import crop_and_resize
from mindjit.frontend.ops.ctc import ctc_loss
from mindjit.frontend.ops.ctc_decoder import ctc_greedy_decoder
from mindjit.frontend.ops.cumulative import (
    aminmax,
    cummax,
    cummin,
    logcumsumexp,
    median,
    nanmedian,
)
from mindjit.frontend.ops.custom_primitives import (
    PrimitiveWithCheck,
    PrimitiveWithInfer,
    prim_attr_register,
)
from mindjit.frontend.ops.diagonals import (
    block_diag,
    diag_embed,
    diagflat,
    diagonal_scatter,
    matrix_band_part,
    tril_indices,
    triu_indices,
)
from mindjit.frontend.ops.distances import (
    cdist,
    cov,
    pdist,
    renorm,
)
from mindjit.frontend.ops.effects import (
    assign,
    depend,
    npu_alloc_float_status,
    npu_clear_float_status,
    npu_get_float_status,
    print_,
)
from mindjit.frontend.ops.elementwise_nan import (
    copysign,
    erfc,
    fmax,
    fmin,
    heaviside,
    isneginf,
    isposinf,
    isreal,
    nanmean,
    nansum,
    signbit,
    xdivy,
)
from mindjit.frontend.ops.fold import col2im, fold, unfold
from mindjit.frontend.ops.fractional_pool import fractional_max_pool2d, fractional_max_pool3d
from mindjit.frontend.ops.gather_ops import (
    gather,
    gather_elements,
    gather_nd,
    one_hot,
    scatter,
    tensor_scatter_elements,
    unsorted_segment_sum,
)
from mindjit.frontend.ops.gradient_ops import stop_gradient
from mindjit.frontend.ops.graph_flags import add_flags
from mindjit.frontend.ops.grid_sample import affine_grid, grid_sample
from mindjit.frontend.ops.group_norm import group_norm
from mindjit.frontend.ops.hyper_map import HyperMap, Map, MultitypeFuncGraph
from mindjit.frontend.ops.index_primitives import (
    Argmax,
    ArgMaxWithValue,
    Argmin,
    ArgMinWithValue,
    CumProd,
    CumSum,
    Sort,
    TopK,
)
from mindjit.frontend.ops.index_reduce import argmax, argmin, max, min
from mindjit.frontend.ops.indexing import getitem
from mindjit.frontend.ops.inplace_functions import (
    bernoulli_,
    exponential_,
    inplace_sigmoid,
    put_,
    tanh_,
    uniform_,
    zero_,
)
from mindjit.frontend.ops.interpolate import interpolate
from mindjit.frontend.ops.layer_functions import (
    bias_add,
    bidense,
    channel_shuffle,
    dropout1d,
    dropout3d,
    glu,
    gumbel_softmax,
    hardswish,
    rrelu,
)
from mindjit.frontend.ops.legacy_names import (
    accumulate_n,
    batch_dot,
    fills,
    gather_d,
    identity,
    intopk,
    range,
    take,
    tensor_dot,
    top_k,
    unbind,
    unique_with_pad,
)
from mindjit.frontend.ops.linalg import (
    cholesky,
    cholesky_inverse,
    cholesky_solve,
    det,
    inverse,
    log_matrix_determinant,
    logdet,
    lu_solve,
    lu_unpack,
    matrix_determinant,
    matrix_solve,
    slogdet,
)
from mindjit.frontend.ops.linalg_qr import geqrf, lstsq, orgqr, qr
from mindjit.frontend.ops.linalg_svd import matrix_norm, pinv, svd, vector_norm
from mindjit.frontend.ops.linear import addmm, baddbmm, cosine_similarity, dense
from mindjit.frontend.ops.losses import cross_entropy, l1_loss, nll_loss, smooth_l1_loss
from mindjit.frontend.ops.lp_pool import lp_pool1d, lp_pool2d
from mindjit.frontend.ops.lrn import lrn
from mindjit.frontend.ops.margin_losses import (
    cosine_embedding_loss,
    gaussian_nll_loss,
    hinge_embedding_loss,
    margin_ranking_loss,
    multi_margin_loss,
    multilabel_soft_margin_loss,
)
from mindjit.frontend.ops.math import (
    abs,
    add,
    addn,
    bmm,
    ceil,
    cos,
    div,
    equal,
    erf,
    exp,
    floor,
    floor_divide,
    ge,
    greater,
    greater_equal,
    gt,
    hswish,
    le,
    less,
    less_equal,
    log,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    lt,
    matmul,
    maximum,
    minimum,
    mul,
    ne,
    neg,
    not_equal,
    pow,
    reciprocal,
    relu,
    remainder,
    round,
    rsqrt,
    select,
    sigmoid,
    sin,
    sqrt,
    square,
    sub,
    tanh,
    where,
)
from mindjit.frontend.ops.math_aliases import (
    approximate_equal,
    bartlett_window,
    blackman_window,
    floormod,
    inv,
    kaiser_window,
    pows,
    tensor_div,
    tensor_exp,
    tensor_expm1,
    tensor_floordiv,
    tensor_ge,
    tensor_gt,
    tensor_le,
    tensor_lt,
    tensor_mod,
    tensor_mul,
    tensor_muls,
    tensor_pow,
    tensor_sub,
)
from mindjit.frontend.ops.math_extras import (
    acosh,
    addcdiv,
    addcmul,
    arccosh,
    arcsinh,
    arctanh,
    asinh,
    atanh,
    count_nonzero,
    deg2rad,
    float_power,
    floor_div,
    fmod,
    frac,
    hypot,
    isclose,
    lerp,
    log10,
    logaddexp,
    logaddexp2,
    logit,
    positive,
    rad2deg,
    sinc,
    true_divide,
    trunc,
    xlogy,
)
from mindjit.frontend.ops.math_functions import (
    acos,
    asin,
    atan,
    atan2,
    cosh,
    exp2,
    expm1,
    isfinite,
    isinf,
    isnan,
    log1p,
    log2,
    nan_to_num,
    sign,
    sinh,
    tan,
)
from mindjit.frontend.ops.matrix_diag import matrix_diag, matrix_diag_part, matrix_set_diag
from mindjit.frontend.ops.matrix_products import addbmm, addmv, addr, dist, dot, ger, mm, mv, vecdot
from mindjit.frontend.ops.mirror_pad import mirror_pad
from mindjit.frontend.ops.nextafter import nextafter
from mindjit.frontend.ops.nn_functional import (
    batch_norm,
    gelu,
    layer_norm,
    leaky_relu,
    log_softmax,
    logsumexp,
    silu,
    softmax,
)
from mindjit.frontend.ops.other_names import (
    adjoint,
    combinations,
    eq,
    floor_mod,
    floordiv,
    hamming_window,
    hann_window,
    is_floating_point,
    ldexp,
    matrix_power,
    msort,
    numel,
    repeat_elements,
    reverse,
    sgn,
    soft_shrink,
    softsign,
    truncate_div,
    truncate_mod,
)
from mindjit.frontend.ops.partial import Partial, partial
from mindjit.frontend.ops.pixel_shuffle import pixel_shuffle, pixel_unshuffle
from mindjit.frontend.ops.pointwise_losses import (
    binary_cross_entropy,
    binary_cross_entropy_with_logits,
    huber_loss,
    kl_div,
    mse_loss,
)
from mindjit.frontend.ops.pool3d import avg_pool1d, avg_pool3d, max_pool3d
from mindjit.frontend.ops.pool_argmax import max_pool2d
from mindjit.frontend.ops.primitives import (
    Abs,
    Add,
    AddN,
    Assign,
    BatchMatMul,
    Cast,
    Ceil,
    Concat,
    Cos,
    Depend,
    Div,
    Dropout,
    Equal,
    Erf,
    Exp,
    ExpandDims,
    Fill,
    Floor,
    FloorDiv,
    Gather,
    GatherD,
    GatherNd,
    GatherV2,
    Greater,
    GreaterEqual,
    HSwish,
    Less,
    LessEqual,
    Log,
    LogicalAnd,
    LogicalNot,
    LogicalOr,
    MatMul,
    Maximum,
    Minimum,
    Mul,
    Neg,
    NotEqual,
    NPUAllocFloatStatus,
    NPUClearFloatStatus,
    NPUGetFloatStatus,
    OneHot,
    Ones,
    OnesLike,
    Pow,
    Primitive,
    Print,
    Rank,
    RealDiv,
    Reciprocal,
    ReduceMax,
    ReduceMean,
    ReduceMin,
    ReduceSum,
    ReLU,
    Reshape,
    Round,
    Rsqrt,
    Select,
    Shape,
    Sigmoid,
    Sin,
    SmoothL1Loss,
    Split,
    Sqrt,
    Square,
    Squeeze,
    Stack,
    Sub,
    Tanh,
    Tile,
    Transpose,
    UnsortedSegmentSum,
    Unstack,
    Zeros,
    ZerosLike,
)
from mindjit.frontend.ops.primitives_creation import Eye, Range, Tril, Triu
from mindjit.frontend.ops.primitives_nn import (
    ApplyMomentum,
    AssignAdd,
    AvgPool,
    BatchNorm,
    BiasAdd,
    Conv2D,
    Identity,
    L2Normalize,
    LayerNorm,
    MaxPool,
    SoftmaxCrossEntropyWithLogits,
    SparseSoftmaxCrossEntropyWithLogits,
    assign_add,
)
from mindjit.frontend.ops.primitives_zoo import (
    BroadcastTo,
    DType,
    Flatten,
    FloorMod,
    Lgamma,
    LogicalXor,
    ResizeBilinear,
    ResizeNearestNeighbor,
    ScalarToTensor,
    ScatterNd,
    Size,
    SquaredDifference,
    TensorScatterAdd,
    TensorScatterUpdate,
    TupleToArray,
    Unique,
)
from mindjit.frontend.ops.products import cross, inner, logspace, trapz, vander
from mindjit.frontend.ops.quantiles import nanquantile, quantile
from mindjit.frontend.ops.random import dropout, dropout2d
from mindjit.frontend.ops.random_gamma_poisson import gamma, poisson, random_gamma, random_poisson
from mindjit.frontend.ops.random_more import (
    bernoulli,
    laplace,
    multinomial_with_replacement,
    rand_like,
    randint_like,
    randn_like,
    random_categorical,
    randperm,
    shuffle,
    standard_laplace,
)
from mindjit.frontend.ops.random_sampling import (
    StandardNormal,
    UniformReal,
    normal,
    rand,
    randint,
    randn,
    standard_normal,
    uniform,
)
from mindjit.frontend.ops.reduce import (
    amax,
    amin,
    mean,
    reduce_all,
    reduce_any,
    reduce_max,
    reduce_mean,
    reduce_min,
    reduce_sum,
    sum,
)
from mindjit.frontend.ops.repeat import expand, repeat_interleave, tile
from mindjit.frontend.ops.scalar_functions import (
    bool_and,
    bool_eq,
    bool_not,
    bool_or,
    scalar_add,
    scalar_cast,
    scalar_div,
    scalar_eq,
    scalar_floordiv,
    scalar_ge,
    scalar_gt,
    scalar_le,
    scalar_log,
    scalar_lt,
    scalar_max,
    scalar_min,
    scalar_mod,
    scalar_mul,
    scalar_ne,
    scalar_pow,
    scalar_sub,
    scalar_to_array,
    scalar_uadd,
    scalar_usub,
    string_concat,
    string_eq,
)
from mindjit.frontend.ops.scan import cumprod, cumsum
from mindjit.frontend.ops.scatter_ops import (
    scatter_nd,
    tensor_scatter_add,
    tensor_scatter_div,
    tensor_scatter_max,
    tensor_scatter_min,
    tensor_scatter_mul,
    tensor_scatter_sub,
    tensor_scatter_update,
)
from mindjit.frontend.ops.scatter_params import (
    inplace_add,
    inplace_index_add,
    inplace_sub,
    inplace_update,
    scatter_add,
    scatter_div,
    scatter_max,
    scatter_min,
    scatter_mul,
    scatter_nd_add,
    scatter_nd_div,
    scatter_nd_max,
    scatter_nd_min,
    scatter_nd_mul,
    scatter_nd_sub,
    scatter_nd_update,
    scatter_update,
)
from mindjit.frontend.ops.scatter_slices import (
    index_add,
    index_fill,
    masked_select,
    select_scatter,
    slice_scatter,
)
from mindjit.frontend.ops.segment_reduce import (
    unsorted_segment_max,
    unsorted_segment_min,
    unsorted_segment_prod,
)
from mindjit.frontend.ops.sequence_blocks import (
    batch_to_space_nd,
    reverse_sequence,
    sequence_mask,
    space_to_batch_nd,
)
from mindjit.frontend.ops.sequence_functions import (
    dict_getitem,
    dict_setitem,
    hastype,
    in_dict,
    is_,
    is_not,
    list_equal,
    list_getitem,
    list_len,
    list_setitem,
    make_dict,
    make_list,
    make_range,
    make_slice,
    make_tuple,
    not_in_dict,
    reduced_shape,
    shape_mul,
    tail,
    tuple_div,
    tuple_equal,
    tuple_getitem,
    tuple_len,
    tuple_reversed,
    tuple_setitem,
    zip_operation,
)
from mindjit.frontend.ops.slicing import Slice, StridedSlice, slice_, strided_slice
from mindjit.frontend.ops.sort import argsort, sort, topk
from mindjit.frontend.ops.sparse_ops import (  # sparse tensors' ops (api-sparse)
    coo2csr,
    coo_concat,
    coo_tensor_get_dense_shape,
    coo_tensor_get_indices,
    coo_tensor_get_values,
    csr2coo,
    csr_div,
    csr_gather,
    csr_mul,
    csr_mv,
    csr_reduce_sum,
    csr_softmax,
    csr_tensor_get_dense_shape,
    csr_tensor_get_indices,
    csr_tensor_get_indptr,
    csr_tensor_get_values,
    csr_to_coo,
    make_coo_tensor,
    make_csr_tensor,
    make_row_tensor,
    make_row_tensor_inner,
    make_sparse_tensor,
    row_tensor_get_dense_shape,
    row_tensor_get_indices,
    row_tensor_get_values,
)
from mindjit.frontend.ops.sparse_patterns import coalesce, coo_add, csr_add, sparse_segment_mean
from mindjit.frontend.ops.sparse_unary import FUNCTIONS as _SPARSE_UNARY
from mindjit.frontend.ops.special import lgamma
from mindjit.frontend.ops.special_gamma import digamma, erfinv, mvlgamma, polygamma, zeta
from mindjit.frontend.ops.special_igamma import igamma, igammac
from mindjit.frontend.ops.split import chunk, split
from mindjit.frontend.ops.stacking import (
    atleast_1d,
    atleast_2d,
    atleast_3d,
    cartesian_prod,
    column_stack,
    diff,
    dsplit,
    dstack,
    fliplr,
    flipud,
    hsplit,
    hstack,
    kron,
    ravel,
    rot90,
    row_stack,
    tensor_split,
    vsplit,
    vstack,
)
from mindjit.frontend.ops.statistics import norm, std, std_mean, var, var_mean
from mindjit.frontend.ops.tensor_helpers import (
    clip_by_norm,
    deepcopy,
    dyn_shape,
    eps,
    float_power_ext,
    is_nonzero,
    padding,
    reshape_,
    shape_,
    tensor_range,
    tensor_slice,
)
from mindjit.frontend.ops.type_checks import (
    IsInstance,
    StopGradient,
    is_tensor,
    isconstant,
    isinstance_,
    typeof,
)
from mindjit.frontend.ops.unpool import max_unpool1d, max_unpool2d, max_unpool3d
from mindjit.frontend.ops.value_shapes import nonzero, unique
from mindjit.frontend.ops.value_shapes_more import argwhere, bincount, unique_consecutive

# MindSpore's spellings
print = print_  # noqa: A001 - `ops.print` is MindSpore's name
tensor_add = add
divide = div
multiply = mul
subtract = sub
negative = neg
absolute = abs
globals().update(_SPARSE_UNARY)  # coo_abs ... csr_tanh, generated (sparse_unary.py)
concatenate = concat
slice = slice_  # noqa: A001 - `ops.slice` is MindSpore's name
arcsin, arccos, arctan, arctan2 = asin, acos, atan, atan2
hard_sigmoid = hardsigmoid
upsample = interpolate  # MindSpore's ops.upsample: an alias of ops.interpolate

# MindSpore's submodules: `from mindjit.ops import operations as P` (composite as C,
# functional as F, primitive); views of the names above (frontend/ms_modules.py)
from mindjit.frontend.ops import composite, functional, operations, primitive  # noqa: E402

#: the gradient API (`ops.GradOperation`, `ops.grad`, `ops.value_and_grad`) sits above
#: the graph compiler, which sits above these ops: named here, loaded on first use
_GRAD_API = ("GradOperation", "grad", "value_and_grad")


#: MindSpore's functional transforms over those gradients (frontend/grad_functional.py)
_GRAD_FUNCTIONAL = ("jacfwd", "jacrev", "jvp", "linearize", "vjp")

#: MindSpore's Taylor-mode derivatives (frontend/taylor.py, over grad_functional's jvp)
_TAYLOR = ("derivative", "jet")


def __getattr__(name: str) -> _Any:
    if name in _GRAD_API:
        from mindjit.frontend import grad as _grad  # function-level: it runs graphs, above ops

        return getattr(_grad, name)
    if name in _GRAD_FUNCTIONAL:
        from mindjit.frontend import grad_functional as _functional  # above ops, as grad

        return getattr(_functional, name)
    if name in _TAYLOR:
        from mindjit.frontend import taylor as _taylor  # above ops, as grad_functional

        return getattr(_taylor, name)
    if name == "vmap":
        from mindjit.frontend.vmap import vmap as _vmap  # graph sub-layer, above ops

        return _vmap
    raise AttributeError(f"module 'mindjit.ops' has no attribute {name!r}", name=name)


__all__ = [
    name
    for name, value in dict(globals()).items()
    if not name.startswith("_") and not isinstance(value, _ModuleType)
] + list(_GRAD_API + _GRAD_FUNCTIONAL + _TAYLOR + ("vmap",))

for _view in (composite, functional, operations):
    _view.attach(_sys.modules[__name__])
