"""Small graph-mode programs: control flow, tuples, sub-cells, broadcasting.

Each entry runs in PYNATIVE_MODE (eagerly) and in GRAPH_MODE (compiled); the
differential test requires identical results. Kept in a module of its own so
graph mode can read the source, as it reads a user's file.
"""

from __future__ import annotations

import math
import zlib

import numpy as np

import mindjit as ms
from mindjit import nn, ops

RNG = np.random.default_rng(7)


def seeded(name: str) -> None:
    """Draw the inputs of program `name` from a generator seeded by its name: the
    same inputs whichever tests ran before in the process (xdist spreads them in
    another order on every run, and an IREE comparison of a program whose float32
    sums cancel passed or failed with the order)."""
    global RNG
    RNG = np.random.default_rng(zlib.crc32(name.encode()))


def f32(*shape):
    return ms.Tensor(RNG.standard_normal(shape).astype(np.float32))


def i32(*shape):
    return ms.Tensor(RNG.integers(-5, 6, size=shape).astype(np.int32))


def helper_scale(x, k):
    return x * k + 1


def helper_pair(x, y):
    return x + y, x - y


def broadcast_add(x, b):
    return x + b


def scalars(x):
    return x * 2 + 1 - 0.5 / 2


def mlp(x, w, b):
    return ops.relu(ops.matmul(x, w) + b)


def tuple_out(x, y):
    return x * y, (x + y, x - y)


def tuple_unpack(pair):
    a, b = pair
    return a * b


def call_helper(x):
    return helper_scale(x, 3)


def call_twice(x, y):
    s, d = helper_pair(x, y)
    s2, d2 = helper_pair(s, d)
    return s2 * d2


def const_arg_if(x, flag):
    if flag:
        return x + 1
    return x - 1


def tensor_if_merge(x, y):
    z = x
    if x.sum() > y.sum():
        z = x * 2
    else:
        z = y * 3
    return z + 1


def tensor_if_return(x):
    if x.mean() > 0:
        return x * 2
    else:
        return x - 2


def early_return(x):
    if x.sum() > 0:
        return x
    y = x * x
    return y + 1


def elif_chain(x):
    s = x.sum()
    if s > 1:
        r = x + 1
    elif s > -1:
        r = x * 0
    else:
        r = x - 1
    return r


def for_range(x):
    acc = x
    for i in range(4):
        acc = acc + x * i
    return acc


def for_tuple(xs):
    total = 0
    for t in xs:
        total = total + t
    return total


def while_counter(x, n):
    i = ms.Tensor(0, ms.int32)
    while i < n:
        x = x * 2
        i = i + 1
    return x, i


def while_two_vars(a, b):
    while a.sum() < 100:
        a = a + b
        b = b + 1
    return a, b


def if_in_for(x, y):
    out = x
    for _ in range(5):
        if out.sum() > 0:
            out = out - y
        else:
            out = out + y
    return out


def list_stack(x):
    items = []
    for i in range(3):
        items.append(x * i)
    return ops.stack(items)


def indexing(x):
    return x[0], x[:, 1:3], x[-1, ::2], x[1]


def reductions(x):
    return ops.sum(x, 1, True), ops.mean(x, 0, False), ops.amax(x, -1, False), x.sum()


def shapes(x):
    return ops.reshape(x, (3, 4)), ops.transpose(x, (1, 0)), x.reshape(-1)


def joins(x, y):
    return ops.concat((x, y), 0), ops.stack((x, y), 1)


def unstack_addn(x):
    a, b, c = ops.unstack(x, 1)
    return ops.addn((a, b * 2, c)), ops.unstack(x)[1]


def casts(x):
    return ops.cast(x, ms.int32), (x > 0), ops.cast(x > 0, ms.float32) * x


def selects(x, y):
    return ops.select(x > y, x, y)


def ifexp(x):
    y = x * 2 if x.sum() > 0 else x / 2
    return y


def bool_ops(x, y):
    both = (x > 0) & (y > 0)
    return ops.select(both, x, y)


def unary_chain(x):
    return ops.sigmoid(ops.tanh(ops.exp(x) - 1)) + ops.log(ops.abs(x) + 1) + x.sin() * ops.cos(x)


def rounding_and_erf(x):
    y = x * 3
    return ops.floor(y) + y.ceil() + ops.round(y) + ops.erf(x) + ops.gelu(x)


def shape_constants(x):
    n = x.shape[0]
    return x * n + len(x.shape)


def while_float_and_int(x):
    i = 0
    acc = x
    while acc.sum() < 50:
        acc = acc * 1.5 + 1
        i = i + 1
    return acc, i


def if_one_branch_changes(x):
    y = x + 1
    if x.max() > 0.5:
        y = y * 10
    return y


def chained_constants(x):
    if 0 < 1 < 2:
        return x + 1
    return x


def maximum_minimum(x, y):
    return ops.maximum(x, y) - ops.minimum(x, y) + ops.sqrt(ops.abs(x))


def int_arith(a, b):
    return a + b * 2, a - b, a * b


class Block(nn.Cell):
    def __init__(self, n):
        super().__init__()
        self.dense = nn.Dense(n, n)
        self.act = nn.ReLU()

    def construct(self, x):
        return self.act(self.dense(x))


class Stack(nn.Cell):
    def __init__(self):
        super().__init__()
        self.blocks = nn.CellList([Block(4) for _ in range(3)])

    def construct(self, x):
        for block in self.blocks:
            x = block(x)
        return x


class Sequential(nn.Cell):
    def __init__(self):
        super().__init__()
        self.body = nn.SequentialCell([nn.Dense(4, 8), nn.Tanh(), nn.Dense(8, 2)])

    def construct(self, x):
        return self.body(x)


class Reuse(nn.Cell):
    def __init__(self):
        super().__init__()
        self.block = Block(4)

    def construct(self, x):
        return self.block(self.block(x)) + self.block(x)


@ms.jit_class
class Scaler:
    def __init__(self, k):
        self.k = k

    def apply(self, x):
        return x * self.k


class UsesJitClass(nn.Cell):
    def __init__(self):
        super().__init__()
        self.scaler = Scaler(3.0)

    def construct(self, x):
        return self.scaler.apply(x) + 1


class ConvVariants(nn.Cell):
    """Conv1d, Conv2dTranspose and adaptive pooling (compositions of mindir ops)."""

    def __init__(self):
        super().__init__()
        self.conv1d = nn.Conv1d(2, 4, 3, stride=2, has_bias=True)
        self.up = nn.Conv2dTranspose(4, 2, 3, stride=2, pad_mode="pad", padding=1, output_padding=1)
        self.avg = nn.AdaptiveAvgPool2d((3, None))
        self.max = nn.AdaptiveMaxPool2d(2)

    def construct(self, x):
        y = self.conv1d(x)
        up = self.up(ops.reshape(y, (y.shape[0], 4, 1, y.shape[2])))
        return self.avg(up), self.max(up)


def dropouts(x):
    a = ops.dropout(x, 0.5)
    b = ops.dropout(x * 2, p=0.2, seed=4)
    c = ops.dropout(x, 0.9, training=False)
    out, mask = ops.Dropout(keep_prob=0.7, Seed0=1, Seed1=2)(x)
    return a + b + c, out, mask


class DropoutCell(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 6)
        self.drop = nn.Dropout(p=0.3)
        self.drop.set_train()

    def construct(self, x):
        return self.drop(self.fc(x)) + self.drop(x).sum()


def losses(x, t, y):
    t = ops.minimum(ops.abs(t), 3)  # class indices in [0, 4) for any int input
    ce = ops.cross_entropy(x, t, label_smoothing=0.1)
    ce_w = ops.cross_entropy(x, t, ms.Tensor(np.arange(1, 5, dtype=np.float32)), 2, "none")
    nll = ops.nll_loss(ops.log_softmax(x, 1), t, reduction="sum")
    soft = ops.cross_entropy(x, ops.softmax(y, 1), reduction="none")
    return ce, ce_w, nll, soft, ops.l1_loss(x, y), ops.smooth_l1_loss(x, y, 0.5, "mean")


FUNCTIONS = {
    "broadcast_add": (broadcast_add, lambda: (f32(2, 3), f32(3))),
    "scalars": (scalars, lambda: (f32(4),)),
    "mlp": (mlp, lambda: (f32(2, 3), f32(3, 4), f32(4))),
    "tuple_out": (tuple_out, lambda: (f32(3), f32(3))),
    "tuple_unpack": (tuple_unpack, lambda: ((f32(2), f32(2)),)),
    "call_helper": (call_helper, lambda: (f32(3),)),
    "call_twice": (call_twice, lambda: (f32(3), f32(3))),
    "const_arg_if_true": (const_arg_if, lambda: (f32(3), True)),
    "const_arg_if_false": (const_arg_if, lambda: (f32(3), False)),
    "tensor_if_merge": (tensor_if_merge, lambda: (f32(4), f32(4))),
    "tensor_if_return": (tensor_if_return, lambda: (f32(5),)),
    "early_return": (early_return, lambda: (f32(5),)),
    "elif_chain": (elif_chain, lambda: (f32(3),)),
    "for_range": (for_range, lambda: (f32(2, 2),)),
    "for_tuple": (for_tuple, lambda: ((f32(3), f32(3), f32(3)),)),
    "while_counter": (while_counter, lambda: (f32(2), ms.Tensor(5, ms.int32))),
    "while_two_vars": (while_two_vars, lambda: (ms.Tensor([1.0, 2.0]), ms.Tensor([3.0, 1.0]))),
    "if_in_for": (if_in_for, lambda: (f32(3), f32(3))),
    "list_stack": (list_stack, lambda: (f32(2),)),
    "indexing": (indexing, lambda: (f32(3, 4),)),
    "reductions": (reductions, lambda: (f32(3, 4),)),
    "shapes": (shapes, lambda: (f32(4, 3),)),
    "joins": (joins, lambda: (f32(2, 3), f32(2, 3))),
    "unstack_addn": (unstack_addn, lambda: (f32(2, 3),)),
    "casts": (casts, lambda: (f32(5) * 3,)),
    "selects": (selects, lambda: (f32(4), f32(4))),
    "ifexp": (ifexp, lambda: (f32(3),)),
    "bool_ops": (bool_ops, lambda: (f32(5), f32(5))),
    "unary_chain": (unary_chain, lambda: (f32(6),)),
    "rounding_and_erf": (rounding_and_erf, lambda: (f32(6),)),
    "shape_constants": (shape_constants, lambda: (f32(3, 2),)),
    "while_float_and_int": (while_float_and_int, lambda: (ms.Tensor([1.0, 2.0]),)),
    "if_one_branch_changes": (if_one_branch_changes, lambda: (f32(4),)),
    "chained_constants": (chained_constants, lambda: (f32(2),)),
    "maximum_minimum": (maximum_minimum, lambda: (f32(4), f32(4))),
    "int_arith": (int_arith, lambda: (i32(3), i32(3))),
    "dropouts": (dropouts, lambda: (f32(5, 6),)),
    "losses": (
        losses,
        lambda: (f32(5, 4), ms.Tensor(np.array([0, 3, 2, 2, 1], np.int32)), f32(5, 4)),
    ),
}


# index reductions, sort and scans (i23-indexreduce)
def index_reductions(x, n):
    v, i = ops.max(x, 1)
    w, j = ops.min(x, 0, keepdims=True)
    return (
        ops.argmax(x, 1),
        ops.argmin(x),
        x.argmax(0, True),
        ops.Argmax(output_type=ms.int64)(n),
        ops.ArgMinWithValue(axis=1)(n),
        v,
        i,
        w,
        j,
    )


FUNCTIONS["index_reductions"] = (index_reductions, lambda: (f32(3, 4), i32(4, 5)))


def sorts(x, n):
    v, i = ops.sort(x, 0, True)
    w, j = ops.topk(n, 2, largest=False)
    u, k = ops.TopK()(x, 3)
    return v, i, w, j, n.sort()[0], u, k


FUNCTIONS["sorts"] = (sorts, lambda: (f32(4, 3), i32(3, 5)))


def scans(x, n):
    return (
        ops.cumsum(x, 1),
        ops.cumprod(x, 0),
        ops.CumSum(exclusive=True, reverse=True)(n, 0),
        ops.CumProd(exclusive=True)(n, 1),
        x.cumsum(),
        ops.cumsum(n, 1, dtype=ms.float32),
    )


FUNCTIONS["scans"] = (scans, lambda: (f32(3, 4), i32(4, 3)))

CELLS = {
    "cell_list": (Stack, lambda: (f32(2, 4),)),
    "sequential": (Sequential, lambda: (f32(3, 4),)),
    "reuse_sub_cell": (Reuse, lambda: (f32(2, 4),)),
    "jit_class_method": (UsesJitClass, lambda: (f32(3),)),
    "conv_variants": (ConvVariants, lambda: (f32(2, 2, 9),)),
    "dropout_cell": (DropoutCell, lambda: (f32(3, 4),)),
}


# --- array/shape/math ops of issue 23 (split, tile, clamp, var, norm, interpolate) ---


def split_unpack_iterate(x):
    i, f, g, o = ops.split(x, 2, 1)
    acc = ops.sigmoid(i) * ops.tanh(g) + f * o
    for piece in ops.chunk(x, 3, 0):
        acc = acc + piece.sum(0, keepdims=True)[:, :2]
    a, b = ops.Split(1, 2)(x)
    return acc, a - b, x.split([1, 2], 0)[1]


def tile_repeat_clamp(x):
    t = ops.tile(x, (2, 1)) + x.repeat(2, axis=0)
    u = ops.repeat_interleave(x, 2, 1) * ops.expand(x[:, :1], (3, 8))
    return ops.clamp(t, -0.5, 0.5), ops.masked_fill(u, u > 0.2, 0.0), x.clip(max=0.1)


def stats_norms(x):
    v, m = ops.var_mean(x, 1, 1, True)
    return v, m, ops.std(x), x.var(0), ops.norm(x), ops.norm(x, 1, 1), x.norm(float("inf"))


def interpolate_bmm(x):
    y = ops.interpolate(x, size=(5, 3), mode="bilinear", align_corners=False)
    z = ops.interpolate(x, scale_factor=2.0) + ops.interpolate(
        x, scale_factor=2.0, mode="bilinear", align_corners=True
    )
    return y, z, ops.bmm(x[0], x[1].transpose(0, 2, 1))


FUNCTIONS.update(
    {
        "split_unpack_iterate": (split_unpack_iterate, lambda: (f32(3, 8),)),
        "tile_repeat_clamp": (tile_repeat_clamp, lambda: (f32(3, 4),)),
        "stats_norms": (stats_norms, lambda: (f32(3, 4),)),
        "interpolate_bmm": (interpolate_bmm, lambda: (f32(2, 2, 3, 4),)),
    }
)
# --- gather / one_hot / embedding lookups ----------------------------------------------------


def ids(*shape, high=5):
    return ms.Tensor(RNG.integers(0, high, size=shape).astype(np.int32))


def gather_lookups(table, idx):
    rows = ops.gather(table, idx, 0)
    cols = table.gather(idx, 1)
    hot = ops.one_hot(idx, 5, ms.Tensor(1.0, ms.float32), ms.Tensor(0.0, ms.float32))
    picked = ops.gather_elements(table, 1, idx)
    return ops.reduce_sum(rows, 1) + ops.reduce_sum(cols) + ops.matmul(hot, table) - picked


class EmbeddingBag(nn.Cell):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(7, 3, embedding_table="ones", padding_idx=0)

    def construct(self, x):
        return ops.reduce_mean(self.embed(x), 1) + ops.reduce_sum(self.embed(x)[:, 0], 0)


FUNCTIONS["gather_lookups"] = (gather_lookups, lambda: (f32(5, 5), ids(5, 5)))
CELLS["embedding_bag"] = (EmbeddingBag, lambda: (ids(2, 4, high=7),))
# --- recurrent layers (nn.LSTM/GRU/RNN and their cells) --------------------------------------


class RecurrentStack(nn.Cell):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(3, 4, 2, batch_first=True, bidirectional=True)
        self.gru = nn.GRU(8, 3)
        self.cell = nn.RNNCell(3, 3, nonlinearity="relu")

    def construct(self, x, lengths):
        y, (h, c) = self.lstm(x, seq_length=lengths)
        z, g = self.gru(ops.transpose(y, (1, 0, 2)))
        return self.cell(z[-1], g[0]), ops.reduce_sum(h * c, 0)


CELLS["recurrent_stack"] = (
    RecurrentStack,
    lambda: (f32(2, 4, 3), ms.Tensor(np.array([4, 2], np.int32))),
)
# --- attention (nn.MultiheadAttention, nn.TransformerEncoder) --------------------------------


class AttentionBlock(nn.Cell):
    def __init__(self):
        super().__init__()
        self.attn = nn.MultiheadAttention(8, 2, batch_first=True, add_zero_attn=True)
        layer = nn.TransformerEncoderLayer(8, 2, 16, 0.0, "gelu", batch_first=True)
        self.enc = nn.TransformerEncoder(layer, 2, nn.LayerNorm((8,)))

    def construct(self, x, pad):
        y, w = self.attn(x, x, x, key_padding_mask=pad, average_attn_weights=False)
        causal = ms.Tensor(np.triu(np.ones((4, 4), np.bool_), 1))
        return self.enc(y, causal, pad), w


CELLS["attention_block"] = (
    AttentionBlock,
    lambda: (f32(2, 4, 8), ms.Tensor(np.array([[False] * 4, [False, False, True, True]]))),
)
# --- GroupNorm / InstanceNorm / 1-D pooling / padding / pixel shuffle -------------------------


class NormPoolPad(nn.Cell):
    def __init__(self):
        super().__init__()
        self.gn = nn.GroupNorm(2, 4)
        self.inorm = nn.InstanceNorm2d(1)
        self.shuffle = nn.PixelShuffle(2)
        self.pad = nn.ZeroPad2d((1, 0, 0, 1))
        self.maxp = nn.MaxPool1d(3, 2, "same")
        self.avgp = nn.AvgPool1d(2, 1, "pad", 1)

    def construct(self, x):
        y = self.pad(self.inorm(self.shuffle(self.gn(x))))
        seq = ops.reshape(y, (y.shape[0], 1, -1))
        return self.maxp(seq), self.avgp(seq), ops.pixel_unshuffle(y[:, :, :4, :4], 2)


CELLS["norm_pool_pad"] = (NormPoolPad, lambda: (f32(2, 4, 3, 3),))
# --- creation: arange / linspace / eye / tril / triu -----------------------------------------


def creation_triangles(x):
    n, m = x.shape
    base = ops.arange(m) * 0.5 + ops.eye(n, m) + ops.linspace(-1.0, 1.0, m)
    return ops.tril(x + base, -1), x.triu(1), ops.Tril(1)(x) - ops.Triu()(x)


FUNCTIONS["creation_triangles"] = (creation_triangles, lambda: (f32(4, 5),))
# --- nn primitives, slicing, sampling (frontend/ops/primitives_nn.py, slicing.py, random_sampling.py)


def nn_primitives(x, w):
    y = ops.BiasAdd()(ops.Conv2D(4, 3, pad_mode="same")(x, w), ops.ones((4,)))
    pooled = ops.MaxPool(2, 2, "same")(y) + ops.AvgPool(2, 2, "same")(y)
    flat = ops.reshape(pooled, (2, -1))
    loss, dlogits = ops.SoftmaxCrossEntropyWithLogits()(flat, ops.softmax(flat * 0.5))
    out, mean, var = ops.LayerNorm(1, 1)(flat, ops.ones(flat.shape[1:]), ops.zeros(flat.shape[1:]))
    sliced = ops.StridedSlice(shrink_axis_mask=1)(x, (1, 0, 0), (2, 2, 5), (1, 1, -2))
    return loss, dlogits, out, mean, var, sliced, ops.slice(x, (0, 1, 0, 0), (1, 1, -1, 3))


def samplings(x):
    return x + ops.randn(*x.shape), ops.randint(0, 5, x.shape), ops.normal(x.shape, x, 2.0)


FUNCTIONS["nn_primitives"] = (nn_primitives, lambda: (f32(2, 3, 5, 5), f32(4, 3, 3, 3)))
FUNCTIONS["samplings"] = (samplings, lambda: (f32(3, 4),))
# --- products, views, pointwise losses (frontend/ops/linear.py, array_views.py, pointwise_losses.py)


def products_views_losses(x, w):
    y = ops.dense(x, w, ops.ones((3,))) + ops.addmm(ops.zeros((2, 3)), x, w.T, beta=0.5)
    v = ops.roll(ops.narrow(x, 1, 1, 3), (1, -1), (0, 1)) + ops.index_select(
        x, 1, ms.Tensor(np.array([3, 0, 1], np.int32))
    )
    gx, gy = ops.meshgrid(x[0], x[1, :2])
    p = ops.sigmoid(x)
    losses = (
        ops.mse_loss(x, p),
        ops.binary_cross_entropy(p, ops.ones_like(p) * 0.3),
        ops.binary_cross_entropy_with_logits(x, p, reduction="sum"),
        ops.kl_div(ops.log_softmax(x, 1), ops.softmax(x * 2, 1), "batchmean"),
        nn.HuberLoss(delta=0.5)(x, p),
    )
    return y, v, gx * gy, ops.cosine_similarity(x, p), losses


FUNCTIONS["products_views_losses"] = (products_views_losses, lambda: (f32(2, 4), f32(3, 4)))

# --- activations, elementwise math, products (frontend/ops/activations.py ...) ------------


def activation_fns(x):
    a = ops.relu6(x * 4) + ops.hardsigmoid(x) + ops.elu(x) + ops.elu(x, 0.5)
    b = ops.softplus(x) + ops.softplus(x * 30, 2, 10) + ops.mish(x) + ops.hardtanh(x, -0.5, 0.5)
    c = ops.softmin(x, -1) + ops.fast_gelu(x) + ops.prelu(x, ms.Tensor([0.1, 0.2, 0.3], ms.float32))
    return a + b + c, ops.Softmax(axis=(0, 1))(x), ops.LogSoftmax(0)(x), ops.GeLU()(x)


def math_fns(x, y):
    s = x / 4  # in (-1, 1) for asin/acos
    a = ops.log1p(ops.abs(x)) + ops.expm1(x) + ops.log2(ops.abs(x) + 1) + ops.exp2(x)
    b = ops.tan(s) + ops.atan(x) + ops.atan2(x, y) + ops.asin(s) + ops.acos(s)
    c = ops.sinh(x) + x.cosh() + ops.sign(x) + x.atan2(y)
    bad = ops.log(x)  # NaN for negatives
    flags = ops.isnan(bad), ops.isinf(bad / 0), ops.isfinite(bad), ops.nan_to_num(bad, 2.0)
    return a + b + c, flags


def products(x, y):
    return (
        ops.prod(x),
        ops.prod(x, 1, True),
        x.prod((0,)),
        ops.outer(x[0], y[:, 0]),
        ops.einsum("ij,kj->ik", x, y),
        ops.einsum("ij->j", x),
        ops.all(x > -3, 1),
        ops.any(x > 1),
    )


class ActivationNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(3, 4, weight_init="ones", activation="relu6")
        self.prelu = nn.PReLU(4, 0.1)
        self.acts = nn.SequentialCell([nn.ELU(), nn.Softplus(), nn.Hardtanh(-2, 2), nn.Mish()])
        self.hsig = nn.get_activation("hsigmoid")
        self.softmax = ops.Softmax()
        self.relu6 = ops.ReLU6()

    def construct(self, x):
        h = self.prelu(self.dense(x) - 1)
        return self.softmax(self.acts(h)) + self.hsig(h) + self.relu6(h * 3)


FUNCTIONS["activation_fns"] = (activation_fns, lambda: (f32(4, 3),))
FUNCTIONS["math_fns"] = (math_fns, lambda: (f32(3, 4), f32(4)))
FUNCTIONS["products"] = (products, lambda: (f32(3, 4), f32(5, 4)))
CELLS["activation_net"] = (ActivationNet, lambda: (f32(5, 3),))


def more_activations(x):
    y = ops.logsigmoid(x) + ops.selu(x) + ops.celu(x, 0.5) + ops.softshrink(x) + x.sign()
    return y + ops.hardshrink(x) + ops.tanhshrink(x) + ops.threshold(x, 0.2, -1) + x.log1p()


FUNCTIONS["more_activations"] = (more_activations, lambda: (f32(3, 5),))


# --- issue 24, APIs: stop_gradient, type checks, shape arithmetic, builtins and str
# methods on constants, list/dict methods, JIT Fallback of numpy and math on constants


def _sg_loss(x, y):
    return (ops.stop_gradient(x * y) * x + y * y).sum()


def stop_gradient_fns(x, y):
    sg = ops.stop_gradient((x, 3, [y]))
    gx, gy = ms.grad(_sg_loss, grad_position=(0, 1))(x, y)
    return sg[0] + sg[2][0] * sg[1], gx, gy, ops.StopGradient()(x) * 2


def type_and_shape_checks(x):
    k = isinstance(x, ms.Tensor) + isinstance(3, (int, float)) + isinstance((1,), tuple)
    k += ops.isinstance_(3, ms.int64) + ops.isinstance_(3, ms.int32) + ops.is_tensor(x)
    n = x.shape[0] * len(x) + x.ndim - x.size // 2 + ops.rank(x) + ops.size(x)
    same = x.shape == (3, 4) and x.dtype == ms.float32 and ops.shape(x)[-1] >= 4
    return x * k + n, same, x.shape[::-1], ops.shape(x)


def builtins_on_constants(x):
    s = 0
    for i, v in enumerate((1, 2, 3)):
        s += i * v
    for a, b in zip((1, 2), [3, 4]):
        s += a * b
    for v in reversed((1, 2, 3)):
        s = s * 2 + v
    for i in range(10, 0, -3):
        s -= i
    t = sorted((3, 1, 2), reverse=True)
    m = min(1, 2) + max((4, 5)) + abs(-3) + round(2.6) + round(3.14159, 2) + int(3.7)
    return x + s + t[0] + m + float(2) + bool(1), str(12), t, divmod(7, 2), sum((1, 2, 3))


def strings_on_constants(x):
    s = "abc"
    name = s.upper() + "_" + s.replace("b", "x").title() + f"{len(s)}"
    print(f"value {name} {3.14159:.2f} {x.shape} {7:>4d}")
    print("x is", x, "and", name.lower())
    parts = "a,b,c".split(",")
    return x * len(parts), name, f"{2:03d}|{0.5:.1%}", "-".join(parts), s.startswith("a"), s[::-1]


def list_dict_methods(x):
    a = [1, 2]
    a.append(3)
    a.extend([4, 5])
    a.insert(0, 0)
    p = a.pop()
    q = a.pop(0)
    d = {"a": 1, "b": 2}
    d.update({"c": 3})
    keys, values = list(d.keys()), list(d.values())
    total = a.index(3) + a.count(2) + p + q + d.get("c") + d.get("z", 7) + len(d.items())
    ts = [x]
    ts.append(x * 2)
    ts.insert(0, x - 1)
    return ts[2] + ts[0] + total, a, keys, values, tuple(d.items()), "b" in d, 9 in a


def fallback_numpy_math(x):
    a = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
    b = np.sqrt(np.arange(4).astype(np.float32)) + np.ones(4, np.float32) * 2
    c = math.sqrt(16) + math.pi + math.log(math.e) + math.floor(2.5)
    t = ms.Tensor(a * b + np.float32(c))
    return x + t, x * np.full((4,), 0.5, np.float32), int(np.prod([2, 3])), math.gcd(12, 18)


FUNCTIONS["stop_gradient_fns"] = (stop_gradient_fns, lambda: (f32(3, 4), f32(3, 4)))
FUNCTIONS["type_and_shape_checks"] = (type_and_shape_checks, lambda: (f32(3, 4),))
FUNCTIONS["builtins_on_constants"] = (builtins_on_constants, lambda: (f32(3, 4),))
FUNCTIONS["strings_on_constants"] = (strings_on_constants, lambda: (f32(3, 4),))
FUNCTIONS["list_dict_methods"] = (list_dict_methods, lambda: (f32(3, 4),))
FUNCTIONS["fallback_numpy_math"] = (fallback_numpy_math, lambda: (f32(3, 4),))
# --- comprehensions, lambdas and closures, unpacking (frontend/graph/functional.py) ------------


def comprehension_blocks(x, w):
    layers = [ops.matmul(x, w) * i for i in range(1, 4) if i != 2]
    rows = tuple(r.sum() for r in x)
    gates = {name: ops.sigmoid(x * k) for name, k in zip(("in", "out"), (1.0, -1.0))}
    return ops.stack(layers), rows, sum(x * i for i in range(3)), gates["in"] * gates["out"]


def closures_and_defaults(x, y):
    scale = 2.0
    act = lambda v, k=3: ops.relu(v) * k + scale  # noqa: E731
    scale = 0.5

    def residual(fn, v, *extra, alpha=1.0):
        return v + alpha * fn(v) + sum(extra)

    return act(x), residual(act, y, 1, 2, alpha=0.1), residual(lambda v: v * y, x)


def star_unpacking(x, seq):
    head, *tail = seq
    first, *others = x
    options = {"alpha": 2, **{"beta": 3}}
    total = sum(v for v in options.values())
    return head, tail, first, others, [*tail, x], total * x


class BlockListNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.blocks = nn.CellList([nn.Dense(4, 4, weight_init="ones") for _ in range(3)])

    def construct(self, x):
        outs = [blk(x) for blk in self.blocks]
        y, *rest = outs
        return y + sum(rest), tuple(o.mean() for o in outs)


FUNCTIONS["comprehension_blocks"] = (comprehension_blocks, lambda: (f32(3, 4), f32(4, 2)))
FUNCTIONS["closures_and_defaults"] = (closures_and_defaults, lambda: (f32(2, 3), f32(2, 3)))
FUNCTIONS["star_unpacking"] = (star_unpacking, lambda: (f32(3, 2), (f32(2), f32(2), f32(2))))
CELLS["block_list_net"] = (BlockListNet, lambda: (f32(2, 4),))
# --- issue 24: tensor item assignment and tensor/list indices (test_tensor_items.py) ---


def item_assignments(x, idx):
    y = x * 1  # the eager run must not write into the shared input
    y[0] = 1.0
    y[1, 2] = -2.0
    y[:, 1:-1:2] = 3.0
    y[..., 0] = y[..., 1] * 2
    y[y > 1.5] = 0
    y[[0, 2]] += 1
    y[idx] = (4.0, 5.0, 6.0, 7.0)
    y[y < 0] *= 2
    return y


def index_reads(x, idx):
    return x[idx], x[:, idx], x[[2, 0]], x[idx, 1:], x[::-1, ::2], x[ops.argmax(x[:, 0])]


FUNCTIONS["item_assignments"] = (item_assignments, lambda: (f32(4, 4), ids(2, high=4)))
FUNCTIONS["index_reads"] = (index_reads, lambda: (f32(4, 4), ids(3, high=4)))


# -- issue 24, controlflow: raise / assert (run-time checks that pass on these inputs) --
def checked_raise(x):
    if ops.abs(x).max() > 100:
        raise ValueError("x is out of range")
    assert x.shape[0] == 3, "x needs 3 rows"
    assert (x * x).sum() >= 0, "a sum of squares is never negative"
    y = x
    for i in range(2):
        if y[i].sum() > 1000:
            raise RuntimeError("row too large")
        y = y + 1
    return y


class CheckedCell(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(4, 2, weight_init="ones")

    def construct(self, x):
        h = self.dense(x)
        if h.min() < -1000:
            raise ValueError("activation underflow")
        else:
            h = h * 2
        return h


FUNCTIONS["checked_raise"] = (checked_raise, lambda: (f32(3, 4),))
CELLS["checked_cell"] = (CheckedCell, lambda: (f32(2, 4),))


def tensor_break_continue(x):
    s = x[0] * 0
    for r in x:
        if r.sum() > 3:
            break
        if r.max() < 0:
            continue
        s = s + r
    i = 0
    t = x[0] * 0
    while i < x.shape[0]:
        if t.sum() > 2:
            break
        t = t + x[0] * 0.5 + 1
        i += 1
    return s, t


FUNCTIONS["tensor_break_continue"] = (tensor_break_continue, lambda: (f32(5, 3),))
