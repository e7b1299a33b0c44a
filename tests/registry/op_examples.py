"""One small program per mindir op, and what it computes, for the completeness test
(test_op_registry.py).

`example(cls)` is MLIR text with an entry graph `@f` that uses the op, in the
form the frontend emits (effects on the entry states `%u0` / `%io0`, which
mindir-auto-monad threads). `reference(cls)` is what `@f` computes, in numpy:
the test runs the example on the CPU executor and compares. Elementwise ops get
both from their class (the element kind they take, and their numpy function in
`ELEMENTWISE_REFERENCES`); every other op is written out here, its reference
beside its program (`Example(text, reference)`). A new op needs an entry in
`EXAMPLES` (or, if elementwise, one line in `ELEMENTWISE_REFERENCES`): the
completeness test says so.

The inputs are the test's: floats uniform in [0.5, 1.5), integers in 1..4, bools
at random (`random_input` in test_op_registry.py). A reference takes the inputs
(monad arguments left out, as the executor's signature has them) and returns
the outputs; it computes in float64 and the test compares at the output's
precision.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from mindjit.dialects import mindir as M

_F = "tensor<2x3xf32>"
_X = "tensor<2x3x2xf32>"  # a batch norm's input: 2 samples, 3 channels, 2 positions
_C = "tensor<3xf32>"  # its per-channel values

Outputs = tuple[np.ndarray, ...] | np.ndarray | float


@dataclass(frozen=True)
class Reference:
    """What an example computes.

    `outputs(*inputs)`: `@f`'s results. `printed(*inputs)`: the values its
    `mindir.print` writes, in order; `state(*inputs)`: each Parameter's value
    after the run. `check(outputs, run, *inputs)`, for what is not a function of
    the inputs alone (random draws): asserts the properties that are, `run`
    running `@f` again; `outputs` is then None and `partial` says why.
    """

    outputs: Callable[..., Outputs] | None
    printed: Callable[..., list[np.ndarray]] | None = None
    state: Callable[..., dict[str, np.ndarray]] | None = None
    check: Callable[..., None] | None = None
    partial: str = ""


@dataclass(frozen=True)
class Example:
    text: str
    reference: Reference | None = field(default=None)


def _f64(x: np.ndarray) -> np.ndarray:
    return np.asarray(x, np.float64)


# --- elementwise ops ---------------------------------------------------------------------

_erf = np.vectorize(math.erf, otypes=[np.float64])


def _hswish(x):
    x = _f64(x)
    return x * np.clip(x + 3, 0, 6) / 6


#: what each elementwise op computes, keyed by its class (no default: a new
#: elementwise op fails the completeness test until it has a line here)
ELEMENTWISE_REFERENCES: dict[type, Callable[..., np.ndarray]] = {
    M.AddOp: np.add,
    M.SubOp: np.subtract,
    M.MulOp: np.multiply,
    M.DivOp: lambda a, b: _f64(a) / _f64(b),
    M.PowOp: lambda a, b: np.power(_f64(a), _f64(b)),
    M.MaximumOp: np.maximum,
    M.MinimumOp: np.minimum,
    M.Atan2Op: lambda a, b: np.arctan2(_f64(a), _f64(b)),
    M.SigmoidGradOp: lambda y, dy: _f64(dy) * _f64(y) * (1 - _f64(y)),
    M.TanhGradOp: lambda y, dy: _f64(dy) * (1 - _f64(y) * _f64(y)),
    M.LessOp: np.less,
    M.LessEqualOp: np.less_equal,
    M.GreaterOp: np.greater,
    M.GreaterEqualOp: np.greater_equal,
    M.EqualOp: np.equal,
    M.NotEqualOp: np.not_equal,
    M.LogicalAndOp: np.logical_and,
    M.LogicalOrOp: np.logical_or,
    M.LogicalNotOp: np.logical_not,
    M.NegOp: np.negative,
    M.AbsOp: np.abs,
    M.ExpOp: lambda x: np.exp(_f64(x)),
    M.LogOp: lambda x: np.log(_f64(x)),
    M.Log1pOp: lambda x: np.log1p(_f64(x)),
    M.Expm1Op: lambda x: np.expm1(_f64(x)),
    M.TanhOp: lambda x: np.tanh(_f64(x)),
    M.SinOp: lambda x: np.sin(_f64(x)),
    M.CosOp: lambda x: np.cos(_f64(x)),
    M.ErfOp: _erf,
    M.SigmoidOp: lambda x: 1 / (1 + np.exp(-_f64(x))),
    M.SqrtOp: lambda x: np.sqrt(_f64(x)),
    M.ReluOp: lambda x: np.maximum(x, 0),
    M.HSwishOp: _hswish,
    M.FloorOp: np.floor,
    M.CeilOp: np.ceil,
    M.RoundOp: np.round,  # half to even, as MindSpore's Round
    M.StopGradientOp: lambda x: x,
    M.BitwiseAndOp: np.bitwise_and,
    M.BitwiseOrOp: np.bitwise_or,
    M.BitwiseXorOp: np.bitwise_xor,
    M.LeftShiftOp: np.left_shift,
    M.RightShiftOp: np.right_shift,
}


def _elementwise(cls: type) -> str:
    element = {
        "bool": "i1",
        "float": "f32",
        "numeric": "f32",
        "any": "f32",
        "int": "i32",
        "int_or_bool": "i32",
    }[cls.ALLOWED]
    t = f"tensor<2x3x{element}>"
    result = "tensor<2x3xi1>" if cls.RESULT_BOOL else t
    if issubclass(cls, M.BinaryOp):
        body = f"%r = {cls.name} %a, %b : ({t}, {t}) -> {result}"
        args = f"%a: {t}, %b: {t}"
    else:
        body = f"%r = {cls.name} %a : ({t}) -> {result}"
        args = f"%a: {t}"
    return f"""
func.func @f({args}) -> {result} {{
  {body}
  func.return %r : {result}
}}
"""


# --- programs shared by several ops ---------------------------------------------------------

_W = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])

_EFFECTS = Example(
    f"""
mindir.parameter @w = dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : {_F}
func.func @f(%x: {_F}, %u0: !mindir.u, %io0: !mindir.io) -> {_F} {{
  %p = mindir.get_parameter @w : !mindir.ref<{_F}>
  %l = mindir.load %p, %u0 : {_F}
  %n = mindir.add %l, %x : {_F}
  %a = mindir.assign %p, %n, %u0 : {_F}
  %d = mindir.depend %n, %a : {_F}, {_F}
  %m = mindir.tensor_move %d : {_F}
  %io1 = mindir.print %m, %io0 : {_F}
  func.return %m : {_F}
}}
""",
    Reference(
        lambda x: _W + x,
        printed=lambda x: [_W + x],
        state=lambda x: {"w": _W + x},
    ),
)

_APPLY_MOMENTUM = Example(
    f"""
mindir.parameter @w = dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : {_F}
mindir.parameter @m = dense<0.5> : {_F}
func.func @f(%g: {_F}, %u0: !mindir.u) -> {_F} {{
  %w = mindir.get_parameter @w : !mindir.ref<{_F}>
  %m = mindir.get_parameter @m : !mindir.ref<{_F}>
  %lr = mindir.constant dense<0.1> : tensor<f32>
  %mu = mindir.constant dense<0.9> : tensor<f32>
  %v = mindir.apply_momentum %w, %m, %lr, %g, %mu, %u0 : {_F}
  func.return %v : {_F}
}}
""",
    # accum = 0.5 * 0.9 + g; w = w - accum * 0.1 (MindSpore's ApplyMomentum)
    Reference(
        lambda g: _W - (0.45 + g) * 0.1,
        state=lambda g: {"w": _W - (0.45 + g) * 0.1, "m": 0.45 + g},
    ),
)


def _adam(g: np.ndarray) -> dict[str, np.ndarray]:
    """One Adam step from w = _W, m = 0.5, v = 0.25 at lr 0.1 (betas 0.9 / 0.999, eps 1e-8)."""
    m = 0.5 * 0.9 + g * 0.1
    v = 0.25 * 0.999 + g * g * 0.001
    return {"w": _W - m / (np.sqrt(v) + 1e-8) * 0.1, "m": m, "v": v}


_APPLY_ADAM = Example(
    f"""
mindir.parameter @w = dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : {_F}
mindir.parameter @m = dense<0.5> : {_F}
mindir.parameter @v = dense<0.25> : {_F}
func.func @f(%g: {_F}, %u0: !mindir.u) -> {_F} {{
  %w = mindir.get_parameter @w : !mindir.ref<{_F}>
  %m = mindir.get_parameter @m : !mindir.ref<{_F}>
  %v = mindir.get_parameter @v : !mindir.ref<{_F}>
  %lr = mindir.constant dense<0.1> : tensor<f32>
  %n = mindir.apply_adam %w, %m, %v, %lr, %g, %u0 {{beta1 = 0.9 : f64, beta2 = 0.999 : f64, epsilon = 1.0e-08 : f64}} : {_F}
  func.return %n : {_F}
}}
""",
    Reference(lambda g: _adam(g)["w"], state=_adam),
)

_UPDATE_MOVING_STATS = Example(
    f"""
mindir.parameter @rm = dense<[0.0, 1.0, 2.0]> : {_C}
mindir.parameter @rv = dense<1.0> : {_C}
func.func @f(%bm: {_C}, %bv: {_C}, %u0: !mindir.u) -> {_C} {{
  %pm = mindir.get_parameter @rm : !mindir.ref<{_C}>
  %pv = mindir.get_parameter @rv : !mindir.ref<{_C}>
  %n = mindir.update_moving_stats %pm, %pv, %bm, %bv, %u0 {{momentum = 0.1 : f64, count = 4 : i64}} : {_C}
  func.return %n : {_C}
}}
""",
    # running * 0.9 + batch * 0.1, the batch variance unbiased by 4 / 3 first
    Reference(
        lambda bm, bv: np.array([0.0, 1.0, 2.0]) * 0.9 + bm * 0.1,
        state=lambda bm, bv: {
            "rm": np.array([0.0, 1.0, 2.0]) * 0.9 + bm * 0.1,
            "rv": 0.9 + bv * (4 / 3) * 0.1,
        },
    ),
)

_SEND_RECEIVE = Example(
    f"""
func.func @f(%x: {_F}, %io0: !mindir.io) -> {_F} {{
  %io1 = mindir.send %x, %io0 {{sr_tag = 3 : i64, dest_rank = 1 : i64}} : {_F}
  %y, %io2 = mindir.receive %io1 {{sr_tag = 3 : i64, src_rank = 0 : i64}} : {_F}
  func.return %y : {_F}
}}
""",
    # one executor is both ranks: what rank 0 sends on tag 3 is what it receives
    Reference(lambda x: x),
)

_UPDATE_STATE = Example(
    f"""
mindir.parameter @w = dense<1.0> : {_F}
func.func @f(%x: {_F}, %u0: !mindir.u) -> ({_F}, !mindir.u) {{
  %p = mindir.get_parameter @w : !mindir.ref<{_F}>
  %a = mindir.assign %p, %x, %u0 : {_F}
  %u1 = mindir.update_state %u0, %a : {_F}
  %l = mindir.load %p, %u1 : {_F}
  %u2 = mindir.update_state %u1, %l : {_F}
  func.return %l, %u2 : {_F}, !mindir.u
}}
""",
    Reference(lambda x: x, state=lambda x: {"w": x}),  # the load after the assign sees x
)

_IF = Example(
    f"""
func.func @f(%c: tensor<i1>, %x: {_F}) -> {_F} {{
  %r = mindir.if %c -> ({_F}) {{
    %n = mindir.neg %x : {_F}
    mindir.yield %n : {_F}
  }} else {{
    mindir.yield %x : {_F}
  }}
  func.return %r : {_F}
}}
""",
    Reference(lambda c, x: -x if c else x),
)


def _count_to_8(x: np.ndarray) -> np.ndarray:
    i = np.float32(x)
    while i < 8:
        i = np.float32(i + 1)
    return np.asarray(i)


_WHILE = Example(
    """
func.func @f(%x: tensor<f32>) -> tensor<f32> {
  %limit = mindir.constant dense<8.0> : tensor<f32>
  %r = mindir.while (%i = %x) : (tensor<f32>) -> tensor<f32> {
    %c = mindir.less %i, %limit : (tensor<f32>, tensor<f32>) -> tensor<i1>
    mindir.condition(%c : tensor<i1>) %i : tensor<f32>
  } do {
  ^bb0(%j: tensor<f32>):
    %one = mindir.constant dense<1.0> : tensor<f32>
    %n = mindir.add %j, %one : tensor<f32>
    mindir.yield %n : tensor<f32>
  }
  func.return %r : tensor<f32>
}
""",
    Reference(_count_to_8),
)

_STACK = Example(
    """
func.func @f(%a: tensor<3xf32>, %b: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %k0 = mindir.constant dense<0> : tensor<i64>
  %k1 = mindir.constant dense<1> : tensor<i64>
  %s0 = mindir.stack_new : tensor<?x3xf32>
  %s1 = mindir.stack_push %s0, %k0, %a : (tensor<?x3xf32>, tensor<i64>, tensor<3xf32>) -> tensor<?x3xf32>
  %s2 = mindir.stack_push %s1, %k1, %b : (tensor<?x3xf32>, tensor<i64>, tensor<3xf32>) -> tensor<?x3xf32>
  %y = mindir.stack_read %s2, %k1 : (tensor<?x3xf32>, tensor<i64>) -> tensor<3xf32>
  %x = mindir.stack_read %s2, %k0 : (tensor<?x3xf32>, tensor<i64>) -> tensor<3xf32>
  func.return %y, %x : tensor<3xf32>, tensor<3xf32>
}
""",
    Reference(lambda a, b: (b, a)),  # pushed at slots 0 and 1, read back in reverse
)

_TUPLES = Example(
    f"""
func.func @f(%a: {_F}, %b: {_F}) -> {_F} {{
  %t = mindir.make_tuple %a, %b : ({_F}, {_F}) -> tuple<{_F}, {_F}>
  %s = mindir.addn %t : (tuple<{_F}, {_F}>) -> {_F}
  %e = mindir.tuple_get_item %t {{index = 1 : i64}} : (tuple<{_F}, {_F}>) -> {_F}
  %r = mindir.add %s, %e : {_F}
  func.return %r : {_F}
}}
""",
    Reference(lambda a, b: _f64(a) + 2 * _f64(b)),
)

_FLOAT_STATUS = Example(
    f"""
func.func @f(%x: {_F}) -> tensor<8xf32> {{
  %s = mindir.npu_alloc_float_status : tensor<8xf32>
  %c = mindir.npu_clear_float_status %s : tensor<8xf32>
  %g = mindir.npu_get_float_status %c : tensor<8xf32>
  func.return %g : tensor<8xf32>
}}
""",
    Reference(lambda x: np.zeros(8, np.float32)),  # nothing overflowed since the clear
)


def _one(
    op: str,
    reference: Callable[..., Outputs] | Reference,
    result: str = _F,
    extra: str = "",
    args: str = f"%a: {_F}",
) -> Example:
    text = f"""
func.func @f({args}) -> {result} {{
  %r = {op}
  func.return %r : {result}{extra}
}}
"""
    if not isinstance(reference, Reference):
        reference = Reference(reference)
    return Example(text, reference)


# --- references of the ops that are not one numpy call --------------------------------------


def _pad_lhs(x: np.ndarray, low, high, interior) -> np.ndarray:
    """mindir.pad: `interior` zeros between elements, then `low`/`high` (negative: cut)."""
    x = _f64(x)
    for axis, (lo, hi, mid) in enumerate(zip(low, high, interior)):
        n = x.shape[axis]
        spread_shape = list(x.shape)
        spread_shape[axis] = n + (n - 1) * mid if n else 0
        spread = np.zeros(spread_shape)
        index = [slice(None)] * x.ndim
        index[axis] = slice(None, None, mid + 1)
        spread[tuple(index)] = x
        before = [(0, 0)] * x.ndim
        before[axis] = (max(lo, 0), max(hi, 0))
        spread = np.pad(spread, before)
        cut = [slice(None)] * x.ndim
        cut[axis] = slice(-min(lo, 0), spread.shape[axis] - (-min(hi, 0)))
        x = spread[tuple(cut)]
    return x


def _conv2d(x, w, stride, pad, group):
    """NCHW x OIHW, `pad` (top, bottom, left, right), `group` groups of channels."""
    x = np.pad(_f64(x), [(0, 0), (0, 0), (pad[0], pad[1]), (pad[2], pad[3])])
    n, c, h, wd = x.shape
    o, ci, kh, kw = w.shape
    oh, ow = (h - kh) // stride[0] + 1, (wd - kw) // stride[1] + 1
    out = np.zeros((n, o, oh, ow))
    per_group = o // group
    for oc in range(o):
        g = oc // per_group
        xs = x[:, g * ci : (g + 1) * ci]
        for i in range(oh):
            for j in range(ow):
                patch = xs[
                    :, :, i * stride[0] : i * stride[0] + kh, j * stride[1] : j * stride[1] + kw
                ]
                out[:, oc, i, j] = (patch * w[oc]).sum(axis=(1, 2, 3))
    return out


def _pool(x, kernel, stride, pad, reduce, count_include_pad=True):
    x = _f64(x)
    n, c, h, w = x.shape
    fill = -np.inf if reduce is np.max else 0.0
    valid = np.pad(np.ones((h, w)), [(pad[0], pad[1]), (pad[2], pad[3])])
    x = np.pad(x, [(0, 0), (0, 0), (pad[0], pad[1]), (pad[2], pad[3])], constant_values=fill)
    oh, ow = (x.shape[2] - kernel[0]) // stride[0] + 1, (x.shape[3] - kernel[1]) // stride[1] + 1
    out = np.zeros((n, c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            rows = slice(i * stride[0], i * stride[0] + kernel[0])
            cols = slice(j * stride[1], j * stride[1] + kernel[1])
            window = x[:, :, rows, cols]
            if reduce is np.max:
                out[:, :, i, j] = window.max(axis=(2, 3))
            else:
                count = kernel[0] * kernel[1] if count_include_pad else valid[rows, cols].sum()
                out[:, :, i, j] = window.sum(axis=(2, 3)) / count
    return out


def _gather(a, indices, axis):
    """Out-of-range indices give zeros (mindir.gather's defined behaviour)."""
    n = a.shape[axis]
    ok = (indices >= 0) & (indices < n)
    out = np.take(a, np.where(ok, indices, 0), axis=axis)
    shape = [1] * axis + list(indices.shape) + [1] * (a.ndim - axis - 1)
    return np.where(ok.reshape(shape), out, 0)


def _segment_sum(a, ids, num_segments):
    """Rows whose id is out of range add nowhere."""
    out = np.zeros((num_segments, *a.shape[ids.ndim :]))
    for k in np.ndindex(*ids.shape):
        if 0 <= ids[k] < num_segments:
            out[ids[k]] += a[k]
    return out


def _sort_descending(a, axis):
    order = np.argsort(-_f64(a), axis=axis, kind="stable")
    return np.take_along_axis(a, order, axis=axis), order.astype(np.int32)


def _batch_norm(x, gamma, beta, eps=1e-5):
    x = _f64(x)
    axes = (0, *range(2, x.ndim))
    keep = [1] * x.ndim
    keep[1] = x.shape[1]
    mean, var = x.mean(axis=axes), x.var(axis=axes)
    r = 1.0 / np.sqrt(var + eps)
    y = (x - mean.reshape(keep)) * r.reshape(keep) * _f64(gamma).reshape(keep)
    return y + _f64(beta).reshape(keep), mean, var


def _batch_norm_grad(dy, x, mean, var, gamma, eps=1e-5):
    dy, x = _f64(dy), _f64(x)
    axes = (0, *range(2, x.ndim))
    keep = [1] * x.ndim
    keep[1] = x.shape[1]
    n = x.size // x.shape[1]
    r = (1.0 / np.sqrt(_f64(var) + eps)).reshape(keep)
    xhat = (x - _f64(mean).reshape(keep)) * r
    dbeta, dgamma = dy.sum(axis=axes), (dy * xhat).sum(axis=axes)
    g = _f64(gamma).reshape(keep) * r
    dx = g * (dy - dbeta.reshape(keep) / n - xhat * dgamma.reshape(keep) / n)
    return dx, dgamma, dbeta


def _cumsum_exclusive(a, axis):
    total = np.cumsum(_f64(a), axis=axis)
    return total - _f64(a)


def _check_uniform(outputs, run, k, o):
    """A counter-based generator: the draw is a function of (seed, seed2, key, offset),
    which this test does not restate; it checks the range, that the same key and
    offset draw the same numbers and another offset others."""
    (u,) = outputs
    assert u.shape == (2, 3) and u.dtype == np.float32
    assert ((u >= 0) & (u < 1)).all(), u
    assert len(np.unique(u)) == u.size, u
    np.testing.assert_array_equal(run(k, o)[0], u)
    assert not np.array_equal(run(k, np.asarray(o + 1, o.dtype))[0], u)


_IMG = "tensor<2x3x6x6xf32>"

EXAMPLES: dict[str, Example] = {
    # the collectives in a group of one (one process: MindSpore's stand-alone mode), where
    # each is the identity; N replicas are tested in tests/backend/test_replica_run.py
    "mindir.all_reduce": _one(f'mindir.all_reduce %a {{op = "max"}} : {_F}', lambda a: a),
    "mindir.all_gather": _one(
        f"mindir.all_gather %a {{rank_size = 1 : i64}} : ({_F}) -> {_F}", lambda a: a
    ),
    "mindir.reduce_scatter": _one(
        f'mindir.reduce_scatter %a {{op = "sum", rank_size = 1 : i64}} : ({_F}) -> {_F}',
        lambda a: a,
    ),
    "mindir.broadcast": _one(f"mindir.broadcast %a {{root_rank = 0 : i64}} : {_F}", lambda a: a),
    "mindir.conv2d": _one(
        f"mindir.conv2d %a, %w {{stride = array<i64: 2, 1>, pad = array<i64: 1, 0, 1, 1>, "
        f"group = 3}} : ({_IMG}, tensor<6x1x3x3xf32>) -> tensor<2x6x3x6xf32>",
        lambda a, w: _conv2d(a, w, (2, 1), (1, 0, 1, 1), 3),
        "tensor<2x6x3x6xf32>",
        args=f"%a: {_IMG}, %w: tensor<6x1x3x3xf32>",
    ),
    "mindir.max_pool2d": _one(
        f"mindir.max_pool2d %a {{kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>}} "
        f": ({_IMG}) -> tensor<2x3x3x3xf32>",
        lambda a: _pool(a, (2, 2), (2, 2), (0, 0, 0, 0), np.max),
        "tensor<2x3x3x3xf32>",
        args=f"%a: {_IMG}",
    ),
    "mindir.avg_pool2d": _one(
        f"mindir.avg_pool2d %a {{kernel = array<i64: 3, 3>, stride = array<i64: 2, 2>, "
        f"pad = array<i64: 1, 1, 1, 1>, count_include_pad = false}} : ({_IMG}) -> "
        "tensor<2x3x3x3xf32>",
        lambda a: _pool(a, (3, 3), (2, 2), (1, 1, 1, 1), np.mean, count_include_pad=False),
        "tensor<2x3x3x3xf32>",
        args=f"%a: {_IMG}",
    ),
    "mindir.pad": _one(
        f"mindir.pad %a {{low = array<i64: 1, -1>, high = array<i64: 0, 2>, "
        f"interior = array<i64: 1, 0>}} : ({_F}) -> tensor<4x4xf32>",
        lambda a: _pad_lhs(a, (1, -1), (0, 2), (1, 0)),
        "tensor<4x4xf32>",
    ),
    "mindir.reverse": _one(
        f"mindir.reverse %a {{axis = array<i64: 1>}} : {_F}", lambda a: a[:, ::-1]
    ),
    "mindir.constant": _one(
        "mindir.constant dense<2.0> : tensor<f32>", lambda: np.float32(2.0), "tensor<f32>", args=""
    ),
    "mindir.select": _one(
        f"mindir.select %c, %a, %b : (tensor<2x3xi1>, {_F}, {_F}) -> {_F}",
        np.where,
        args=f"%c: tensor<2x3xi1>, %a: {_F}, %b: {_F}",
    ),
    "mindir.cast": _one(
        f"mindir.cast %a {{to = f16}} : ({_F}) -> tensor<2x3xf16>",
        lambda a: a.astype(np.float16),
        "tensor<2x3xf16>",
    ),
    "mindir.matmul": _one(
        "mindir.matmul %a, %b : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>",
        lambda a, b: _f64(a) @ _f64(b),
        "tensor<2x4xf32>",
        args=f"%a: {_F}, %b: tensor<3x4xf32>",
    ),
    "mindir.reduce_sum": _one(
        f"mindir.reduce_sum %a {{axis = array<i64: 1>}} : ({_F}) -> tensor<2xf32>",
        lambda a: _f64(a).sum(axis=1),
        "tensor<2xf32>",
    ),
    "mindir.reduce_mean": _one(
        f"mindir.reduce_mean %a {{axis = array<i64: 0>, keep_dims = true}} : ({_F}) -> tensor<1x3xf32>",
        lambda a: _f64(a).mean(axis=0, keepdims=True),
        "tensor<1x3xf32>",
    ),
    "mindir.reduce_max": _one(
        f"mindir.reduce_max %a : ({_F}) -> tensor<f32>", lambda a: a.max(), "tensor<f32>"
    ),
    "mindir.reshape": _one(
        f"mindir.reshape %a : ({_F}) -> tensor<3x2xf32>",
        lambda a: a.reshape(3, 2),
        "tensor<3x2xf32>",
    ),
    "mindir.broadcast_to": _one(
        "mindir.broadcast_to %a : (tensor<3xf32>) -> tensor<2x3xf32>",
        lambda a: np.broadcast_to(a, (2, 3)),
        args="%a: tensor<3xf32>",
    ),
    "mindir.transpose": _one(
        f"mindir.transpose %a {{perm = array<i64: 1, 0>}} : ({_F}) -> tensor<3x2xf32>",
        lambda a: a.T,
        "tensor<3x2xf32>",
    ),
    "mindir.concat": _one(
        f"mindir.concat %a, %b {{axis = 1 : i64}} : ({_F}, {_F}) -> tensor<2x6xf32>",
        lambda a, b: np.concatenate([a, b], axis=1),
        "tensor<2x6xf32>",
        args=f"%a: {_F}, %b: {_F}",
    ),
    "mindir.stack": _one(
        f"mindir.stack %a, %b : ({_F}, {_F}) -> tensor<2x2x3xf32>",
        lambda a, b: np.stack([a, b]),
        "tensor<2x2x3xf32>",
        args=f"%a: {_F}, %b: {_F}",
    ),
    "mindir.unstack": Example(
        f"""
func.func @f(%a: {_F}) -> tensor<3xf32> {{
  %r:2 = mindir.unstack %a : {_F} -> tensor<3xf32>
  %s = mindir.sub %r#0, %r#1 : tensor<3xf32>
  func.return %s : tensor<3xf32>
}}
""",
        Reference(lambda a: _f64(a[0]) - _f64(a[1])),
    ),
    "mindir.get_item": _one(
        f"mindir.get_item %a {{starts = array<i64: 1, 0>, limits = array<i64: 2, 3>, "
        f"strides = array<i64: 1, 2>, squeeze = array<i64: 0>}} : ({_F}) -> tensor<2xf32>",
        lambda a: a[1, 0:3:2],
        "tensor<2xf32>",
    ),
    "mindir.make_tuple": _TUPLES,
    "mindir.tuple_get_item": _TUPLES,
    "mindir.addn": _TUPLES,
    "mindir.parameter": _EFFECTS,
    "mindir.get_parameter": _EFFECTS,
    "mindir.load": _EFFECTS,
    "mindir.assign": _EFFECTS,
    "mindir.apply_momentum": _APPLY_MOMENTUM,
    "mindir.apply_adam": _APPLY_ADAM,
    "mindir.update_moving_stats": _UPDATE_MOVING_STATS,
    "mindir.depend": _EFFECTS,
    "mindir.tensor_move": _EFFECTS,
    "mindir.print": _EFFECTS,
    "mindir.send": _SEND_RECEIVE,
    "mindir.receive": _SEND_RECEIVE,
    "mindir.update_state": _UPDATE_STATE,
    "mindir.if": _IF,
    "mindir.yield": _IF,
    "mindir.while": _WHILE,
    "mindir.condition": _WHILE,
    "mindir.stack_new": _STACK,
    "mindir.stack_push": _STACK,
    "mindir.stack_read": _STACK,
    "mindir.check_range": _one(
        f'mindir.check_range %a {{min = -10.0 : f64, max = 10.0 : f64, message = "out of range"}}'
        f" : {_F}",
        lambda a: a,  # in range: the value itself (out of range raises, tested elsewhere)
    ),
    "mindir.npu_alloc_float_status": _FLOAT_STATUS,
    "mindir.npu_clear_float_status": _FLOAT_STATUS,
    "mindir.npu_get_float_status": _FLOAT_STATUS,
    "mindir.vmap": _one(
        "mindir.vmap (%x = %a) in_axes [0] out_axes [0] : (tensor<2x3xf32>) -> tensor<2x3xf32> {\n"
        "    %n = mindir.neg %x : tensor<3xf32>\n"
        "    mindir.yield %n : tensor<3xf32>\n"
        "  }",
        np.negative,
    ),
    "mindir.uniform_real": _one(
        "mindir.uniform_real %k, %o {seed = 1 : i64, seed2 = 2 : i64, shape = array<i64: 2, 3>}"
        f" : (tensor<i32>, tensor<i32>) -> {_F}",
        Reference(
            None,
            check=_check_uniform,
            partial="random: range, repeatability and a new offset's new draw, not the values",
        ),
        args="%k: tensor<i32>, %o: tensor<i32>",
    ),
    "mindir.grad": _one(
        "mindir.grad (%x = %a) wrt [0] weights [] : (tensor<2x3xf32>) -> tensor<2x3xf32> {\n"
        "    %m = mindir.mul %x, %x : tensor<2x3xf32>\n"
        "    %s = mindir.reduce_sum %m : (tensor<2x3xf32>) -> tensor<f32>\n"
        "    mindir.yield %s : tensor<f32>\n"
        "  }",
        lambda a: 2 * _f64(a),  # d/dx sum(x * x)
    ),
    # gather and its adjoint (ids 1..4 from the random inputs; 4 is out of range for
    # num_segments 4 and for an axis of 3: the defined "zeros / adds nowhere" path)
    "mindir.gather": _one(
        f"mindir.gather %a, %i {{axis = 1 : i64}} : ({_F}, tensor<2x2xi32>) -> tensor<2x2x2xf32>",
        lambda a, i: _gather(a, i, 1),
        "tensor<2x2x2xf32>",
        args=f"%a: {_F}, %i: tensor<2x2xi32>",
    ),
    "mindir.unsorted_segment_sum": _one(
        f"mindir.unsorted_segment_sum %a, %i {{num_segments = 4 : i64}} : ({_F}, "
        "tensor<2xi64>) -> tensor<4x3xf32>",
        lambda a, i: _segment_sum(a, i, 4),
        "tensor<4x3xf32>",
        args=f"%a: {_F}, %i: tensor<2xi64>",
    ),
    # index reductions, sort and scans
    "mindir.argmax": _one(
        f"mindir.argmax %a {{axis = 1 : i64}} : ({_F}) -> tensor<2xi32>",
        lambda a: np.argmax(a, axis=1).astype(np.int32),
        "tensor<2xi32>",
    ),
    "mindir.argmin": _one(
        f"mindir.argmin %a {{axis = 0 : i64, keep_dims = true, index_type = i64}}"
        f" : ({_F}) -> tensor<1x3xi64>",
        lambda a: np.argmin(a, axis=0, keepdims=True).astype(np.int64),
        "tensor<1x3xi64>",
    ),
    "mindir.sort": Example(
        f"""
func.func @f(%a: {_F}) -> ({_F}, tensor<2x3xi32>) {{
  %v, %i = mindir.sort %a {{axis = 0 : i64, descending = true}} : {_F} -> ({_F}, tensor<2x3xi32>)
  func.return %v, %i : {_F}, tensor<2x3xi32>
}}
""",
        Reference(lambda a: _sort_descending(a, 0)),
    ),
    # batch normalization (training mode), channels on axis 1
    "mindir.batch_norm": Example(
        f"""
func.func @f(%x: {_X}, %g: {_C}, %b: {_C}) -> ({_X}, {_C}, {_C}) {{
  %y, %m, %v = mindir.batch_norm %x, %g, %b {{epsilon = 1.0e-05 : f64}} : ({_X}, {_C}, {_C}) -> ({_X}, {_C}, {_C})
  func.return %y, %m, %v : {_X}, {_C}, {_C}
}}
""",
        Reference(_batch_norm),
    ),
    "mindir.batch_norm_grad": Example(
        f"""
func.func @f(%dy: {_X}, %x: {_X}, %m: {_C}, %v: {_C}, %g: {_C}) -> ({_X}, {_C}, {_C}) {{
  %dx, %dg, %db = mindir.batch_norm_grad %dy, %x, %m, %v, %g {{epsilon = 1.0e-05 : f64}} : ({_X}, {_X}, {_C}, {_C}, {_C}) -> ({_X}, {_C}, {_C})
  func.return %dx, %dg, %db : {_X}, {_C}, {_C}
}}
""",
        Reference(_batch_norm_grad),
    ),
    "mindir.cumsum": _one(
        f"mindir.cumsum %a {{axis = 1 : i64, exclusive = true}} : {_F}",
        lambda a: _cumsum_exclusive(a, 1),
    ),
    "mindir.cumprod": _one(
        f"mindir.cumprod %a {{axis = 0 : i64, reverse = true}} : {_F}",
        lambda a: np.flip(np.cumprod(np.flip(_f64(a), 0), axis=0), 0),
    ),
}


def example(cls: type) -> str | None:
    """`cls`'s example program, or None if it has none."""
    if issubclass(cls, M.ElementwiseOp) and cls.name not in EXAMPLES:
        return _elementwise(cls)
    found = EXAMPLES.get(cls.name)
    return found.text if found is not None else None


def reference(cls: type) -> Reference | None:
    """What `cls`'s example computes, or None if nobody wrote it down."""
    if issubclass(cls, M.ElementwiseOp) and cls.name not in EXAMPLES:
        fn = ELEMENTWISE_REFERENCES.get(cls)
        return Reference(fn) if fn is not None else None
    found = EXAMPLES.get(cls.name)
    return found.reference if found is not None else None


# --- gradients ------------------------------------------------------------------------------


@dataclass(frozen=True)
class GradCheck:
    """How an op with an adjoint rule is checked against finite differences: its
    example in float64 (every `f32` of the text made `f64`), unless `text` gives
    another program (in the types written, for the reason `why`), with central
    differences of step `eps` compared at `rtol`."""

    text: str | None = None
    why: str = ""
    eps: float = 1e-6
    rtol: float = 1e-5


_D = "tensor<2x3xf64>"

#: the ops whose gradient is not checked on their own example, and why
GRAD_CHECKS: dict[str, GradCheck] = {
    "mindir.depend": GradCheck(
        f"""
func.func @f(%a: {_D}, %b: {_D}) -> {_D} {{
  %r = mindir.depend %a, %b : {_D}, {_D}
  func.return %r : {_D}
}}
""",
        "its example reads and writes a Parameter and prints: the gradient of the "
        "pure form (the value, attached to another value that gets none)",
    ),
    "mindir.tensor_move": GradCheck(
        f"""
func.func @f(%a: {_D}) -> {_D} {{
  %r = mindir.tensor_move %a : {_D}
  func.return %r : {_D}
}}
""",
        "its example reads and writes a Parameter and prints: the copy on its own",
    ),
    "mindir.cast": GradCheck(
        f"""
func.func @f(%a: {_D}) -> tensor<2x3xf32> {{
  %r = mindir.cast %a {{to = f32}} : ({_D}) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}}
""",
        "its example casts to f16, whose rounding swamps any difference quotient: f64 "
        "to f32 with a larger step (the cast is linear, only its rounding is not)",
        eps=1e-2,
        rtol=1e-4,
    ),
}


def grad_check(cls: type) -> GradCheck:
    """The program (and tolerances) `cls`'s gradient is checked on."""
    found = GRAD_CHECKS.get(cls.name)
    if found is not None:
        return found
    text = example(cls)
    assert text is not None, f"{cls.name}: no example program"
    return GradCheck(text.replace("f32", "f64"))
