"""Gradients through a `while` on a tensor (issue 40): 40+ programs, each checked three ways.

Every program has a `while` whose condition is a tensor, the loop the frontend
cannot unroll (frontend/graph/control_flow.py `tensor_while`: a `mindir.while`,
which `mindir-grad` must differentiate), written the way MindSpore users write
them: `nn.Cell` + `construct`, `@ms.jit` functions, `ms.grad`,
`ms.value_and_grad`, `ops.GradOperation(get_all / get_by_list / sens_param)`,
`nn.TrainOneStepCell` with an optimizer.

`check` runs a program in PyNative (the tape differentiates the loop iteration
by iteration: the oracle), checks those gradients against central finite
differences of the forward in float64, then runs the same program in graph
mode (`set_context(mode=GRAPH_MODE)`; an `@ms.jit` function is always a graph,
its PyNative twin is the undecorated function) and compares it with PyNative.
The order matters while `mindir-grad` refuses `mindir.while`: a graph-mode
failure is then the refusal, after the oracle itself has been checked.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest

import mindjit as ms
from mindjit import Parameter, Tensor, nn, ops
from mindjit.frontend import context as C
from mindjit.frontend.graph import api
from mindjit.support.errors import MindjitError

F64 = ms.float64
EPS = 1e-6


@pytest.fixture(autouse=True)
def _context():
    C.reset_context()
    yield
    C.reset_context()


def leaves(value: Any) -> list[Any]:
    if isinstance(value, tuple | list):
        return [x for v in value for x in leaves(v)]
    return [value]


def as_array(value: Any) -> np.ndarray:
    return value.asnumpy() if isinstance(value, Tensor) else np.asarray(value)


def check(
    program: Callable[..., Any],
    *inputs: Tensor,
    wrt: Sequence[Any],
    loss: Callable[..., Any] | None = None,
    weights: Sequence[Parameter] = (),
    eager: Callable[..., Any] | None = None,
    rtol: float = 1e-5,
    atol: float = 1e-7,
    fd_rtol: float = 1e-4,
    fd_atol: float = 1e-6,
    eps: float = EPS,
    loops: int = 2,
    engine: dict[str, Any] | None = None,
) -> list[np.ndarray]:
    """Run `program(*inputs)` in PyNative and graph mode and check each leaf of its
    result (nested tuples flattened) against what `wrt` says it is:

    - an int k: d loss / d inputs[k], checked against central differences;
    - a Parameter: d loss / d that Parameter, the same way;
    - "loss": the value of `loss(*inputs)`;
    - None: compared between the two modes only.

    `loss(*inputs)` is the objective (a scalar Tensor or number), run in PyNative.
    Every Parameter in `weights` and `wrt` is set back to its initial value before
    each run, so a program that assigns one starts from the same state each time
    (finite differences perturb that initial value). `eager` is the PyNative
    twin of the program (default: the function under an `@ms.jit`). Graph mode must
    compile at least `loops` `scf.while`s (the forward loop and its backward loop: the
    frontend did not unroll it). `engine`: more `set_context` keys for graph mode (the
    simulated device, IREE). Returns the PyNative leaves."""
    params: list[Parameter] = []
    for w in [*weights, *wrt]:
        if isinstance(w, Parameter) and all(w is not p for p in params):
            params.append(w)
    initial = [p.asnumpy().copy() for p in params]
    arrays = [as_array(t).copy() for t in inputs]

    def reset() -> None:
        for p, value in zip(params, initial):
            p.set_data(Tensor(value.copy()))

    def run(fn: Callable[..., Any], args: Sequence[np.ndarray]) -> list[np.ndarray]:
        reset()
        tensors = [Tensor(a.copy()) if isinstance(t, Tensor) else t for a, t in zip(args, inputs)]
        return [as_array(v) for v in leaves(fn(*tensors))]

    def objective(args: Sequence[np.ndarray]) -> float:
        assert loss is not None
        return float(run(loss, args)[0])

    ms.set_context(mode=ms.PYNATIVE_MODE)
    eager_fn = eager if eager is not None else getattr(program, "__wrapped__", program)
    want = run(eager_fn, arrays)
    assert len(want) == len(wrt), f"{len(want)} results, {len(wrt)} wrt entries"

    for got, what in zip(want, wrt):
        if what is None:
            continue
        if isinstance(what, str):
            assert what == "loss"
            np.testing.assert_allclose(got, objective(arrays), rtol=rtol, atol=atol)
            continue
        fd = np.zeros(got.shape)
        if isinstance(what, Parameter):
            k_param = next(k for k, p in enumerate(params) if p is what)
            base = initial[k_param]
            assert got.shape == base.shape
            for k in np.ndindex(*base.shape):
                values = []
                for step in (eps, -eps):
                    initial[k_param] = base.copy()
                    initial[k_param][k] += step
                    values.append(objective(arrays))
                fd[k] = (values[0] - values[1]) / (2 * eps)
            initial[k_param] = base
        else:
            assert got.shape == arrays[what].shape
            for k in np.ndindex(*arrays[what].shape):
                values = []
                for step in (eps, -eps):
                    moved = [a.copy() for a in arrays]
                    moved[what][k] += step
                    values.append(objective(moved))
                fd[k] = (values[0] - values[1]) / (2 * eps)
        np.testing.assert_allclose(got, fd, rtol=fd_rtol, atol=fd_atol, err_msg=f"wrt {what!r}")

    ms.set_context(mode=ms.GRAPH_MODE, **(engine or {}))
    known = {id(p) for p in api.cached_programs()}
    try:
        graph = run(program, arrays)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
        if engine:
            C.reset_context()
        reset()
    compiled = [p for p in api.cached_programs() if id(p) not in known]
    # the loop stayed a loop in graph mode, and its backward is a loop too
    assert any(p.op_counts()["scf.while"] >= loops for p in compiled), "no run-time loop"
    if engine:  # ran there, not on the numpy executor it may fall back to
        want_kind = "Ascend" if "device_target" in engine else "Iree"
        kinds = [type(p.executable).__name__ for p in compiled]
        assert any(k.startswith(want_kind) for k in kinds), kinds
    assert len(graph) == len(want)
    for g, e in zip(graph, want):
        assert g.shape == e.shape and g.dtype == e.dtype, (g, e)
        np.testing.assert_allclose(g, e, rtol=rtol, atol=atol)
    return want


def t64(*values: Any) -> Tensor:
    return Tensor(np.array(values if len(values) != 1 else values[0], np.float64))


def rand64(*shape: int, seed: int = 0, scale: float = 1.0, shift: float = 0.0) -> Tensor:
    rng = np.random.default_rng(seed)
    return Tensor(rng.standard_normal(shape) * scale + shift)


def i64(value: int) -> Tensor:
    return Tensor(np.array(value, np.int64))


# -- Newton's method -------------------------------------------------------------------------


def newton_sqrt(a):
    x = a
    while ops.reduce_max(ops.abs(x * x - a)) > 1e-10:
        x = 0.5 * (x + a / x)
    return x


def test_newton_sqrt_grad_wrt_input():
    def loss(a):
        return newton_sqrt(a).sum()

    a = t64([2.0, 5.0, 0.7])
    (g,) = check(ms.grad(loss), a, wrt=[0], loss=loss)
    np.testing.assert_allclose(g, 0.5 / np.sqrt([2.0, 5.0, 0.7]), rtol=1e-6)


class NewtonSqrtScaled(nn.Cell):
    """sqrt(w * a) by Newton, at most 30 steps; the weight is a Parameter."""

    def __init__(self):
        super().__init__()
        self.w = Parameter(t64([1.5, 0.5]), name="w")

    def construct(self, a):
        target = self.w * a
        x = ops.ones_like(a)
        i = Tensor(0)
        while (ops.reduce_max(ops.abs(x * x - target)) > 1e-10) & (i < 30):
            x = x - (x * x - target) / (2 * x)
            i = i + 1
        return (x * x * x).sum()


class GradByList(nn.Cell):
    def __init__(self, net):
        super().__init__()
        self.net = net
        self.weights = ms.ParameterTuple(net.trainable_params())
        self.grad = ops.GradOperation(get_by_list=True)

    def construct(self, *inputs):
        return self.grad(self.net, self.weights)(*inputs)


def test_newton_sqrt_grad_wrt_parameter():
    net = NewtonSqrtScaled()
    check(GradByList(net), t64([2.0, 3.0]), wrt=[net.w], loss=net)


def newton_cbrt(a):
    x = a / 3 + 1
    i = Tensor(0)
    while i < 25:
        x = x - (x * x * x - a) / (3 * x * x)
        i = i + 1
    return x


def test_newton_cube_root_grad_wrt_input():
    def loss(a):
        return (newton_cbrt(a) * t64([1.0, -2.0])).sum()

    a = t64([8.0, 3.0])
    (g,) = check(ms.grad(loss), a, wrt=[0], loss=loss)
    np.testing.assert_allclose(g, np.array([1, -2]) / (3 * np.cbrt([8.0, 3.0]) ** 2), rtol=1e-6)


class CubeRoot(nn.Cell):
    def __init__(self):
        super().__init__()
        self.k = Parameter(t64(2.0), name="k")

    def construct(self, a):
        x = ops.ones_like(a)
        step = ops.abs(a) + 1
        while ops.reduce_max(ops.abs(step)) > 1e-9:
            step = (x * x * x - self.k * a) / (3 * x * x)
            x = x - step
        return x.sum()


def test_newton_cube_root_value_and_grad_wrt_parameter():
    net = CubeRoot()
    a = t64([4.0, 1.5])
    fn = ms.value_and_grad(net, 0, net.trainable_params())
    check(fn, a, wrt=["loss", 0, net.k], loss=net)


# -- power iteration, bisection, fixed points --------------------------------------------------


def power_iteration(a, tol):
    v = ops.ones((a.shape[0],), F64) / np.sqrt(a.shape[0])
    delta = Tensor(1.0, F64)
    i = Tensor(0)
    while (delta > tol) & (i < 200):
        w = ops.matmul(a, v)
        w = w / ops.sqrt((w * w).sum())
        delta = ops.abs(w - v).sum()
        v = w
        i = i + 1
    return (v * ops.matmul(a, v)).sum()


def test_power_iteration_until_a_tolerance():
    a = Tensor(np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 1.0]]))
    tol = t64(1e-12)
    (g,) = check(ms.grad(power_iteration), a, tol, wrt=[0], loss=power_iteration)
    # the dominant eigenvalue's gradient is v v^T, v its unit eigenvector
    v = np.linalg.eigh(a.asnumpy())[1][:, -1]
    np.testing.assert_allclose(g, np.outer(v, v), rtol=1e-5, atol=1e-7)


@ms.jit
def power_iteration_steps(a, n):
    def rayleigh(a):
        v = ops.ones((a.shape[0],), F64)
        i = Tensor(0)
        while i < n:
            v = ops.matmul(a, v)
            v = v / ops.norm(v)
            i += 1
        return ops.matmul(v, ops.matmul(a, v))

    return ms.grad(rayleigh)(a)


def test_power_iteration_a_max_count_under_jit():
    a = rand64(3, 3, seed=1) + Tensor(np.eye(3) * 3)

    def loss(a, n):
        v = ops.ones((3,), F64)
        for _ in range(int(n.asnumpy())):
            v = ops.matmul(a, v)
            v = v / ops.norm(v)
        return ops.matmul(v, ops.matmul(a, v))

    check(power_iteration_steps, a, i64(6), wrt=[0], loss=loss)


def bisection_sqrt(a):
    lo = ops.zeros_like(a)
    hi = ops.ones_like(a) * 4  # a < 16
    while ops.reduce_max(hi - lo) > 1e-9:
        mid = (lo + hi) / 2
        low = mid * mid < a
        lo = ops.select(low, mid, lo)
        hi = ops.select(low, hi, mid)
    return (lo + hi) / 2


def test_bisection_gradient_is_zero_and_value_is_the_root():
    def loss(a):
        return bisection_sqrt(a).sum()

    # the result is piecewise constant in `a` (pieces ~1e-9 wide): finite differences
    # would measure sqrt's slope, the gradient is 0 almost everywhere
    a = t64([2.0, 0.3])
    # nothing differentiable crosses the loop: the gradient graph keeps no loop at all
    (g,) = check(ms.grad(loss), a, wrt=[None], loss=loss, loops=0)
    np.testing.assert_array_equal(g, np.zeros(2))
    ms.set_context(mode=ms.GRAPH_MODE)
    value = ms.jit(bisection_sqrt)(a).asnumpy()
    np.testing.assert_allclose(value, np.sqrt([2.0, 0.3]), rtol=1e-8)


def fixed_point_cos(a):
    x = ops.zeros_like(a)
    dx = ops.ones_like(a)
    while ops.reduce_max(ops.abs(dx)) > 1e-12:
        new = ops.cos(a * x)
        dx = new - x
        x = new
    return x


def test_fixed_point_with_a_tolerance():
    def loss(a):
        return (fixed_point_cos(a) * t64([1.0, 3.0])).sum()

    check(ms.grad(loss), t64([0.5, 0.8]), wrt=[0], loss=loss)


class Contraction(nn.Cell):
    """x = tanh(W x + b) until it stops moving (W small: a contraction)."""

    def __init__(self):
        super().__init__()
        self.w = Parameter(rand64(3, 3, seed=2, scale=0.3), name="w")
        self.b = Parameter(rand64(3, seed=3), name="b")

    def construct(self, x0):
        x = x0
        err = Tensor(1.0, F64)
        while err > 1e-12:
            new = ops.tanh(ops.matmul(self.w, x) + self.b)
            err = ops.reduce_max(ops.abs(new - x))
            x = new
        return (x * x).sum()


def test_fixed_point_grad_wrt_parameters():
    net = Contraction()
    check(GradByList(net), rand64(3, seed=4), wrt=[net.w, net.b], loss=net)


# -- Euler physics ----------------------------------------------------------------------------


class Projectile(nn.Cell):
    """Euler steps of a projectile with linear drag until t reaches T."""

    def __init__(self):
        super().__init__()
        self.drag = Parameter(t64(0.3), name="drag")

    def construct(self, v0, big_t):
        p = ops.zeros_like(v0)
        v = v0
        t = Tensor(0.0, F64)
        dt = 0.05
        gravity = t64([0.0, -9.8])
        while t < big_t:
            a = gravity - self.drag * v
            p = p + v * dt
            v = v + a * dt
            t = t + dt
        return p[0] * p[1]


def test_euler_simulation_grad_wrt_velocity_and_drag():
    net = Projectile()
    grad = ops.GradOperation(get_all=True, get_by_list=True)
    fn = grad(net, net.trainable_params())
    check(fn, t64([3.0, 4.0]), t64(0.52), wrt=[0, None, net.drag], loss=net)


def spring(x0, v0, k):
    x, v = x0, v0
    t = Tensor(0.0, F64)
    energy = 0.5 * (v * v + k * x * x)
    while t < 1.0:
        v = v - k * x * 0.01
        x = x + v * 0.01
        energy = energy + x * x * 0.01
        t += 0.01
    return energy


def test_euler_spring_value_and_grad_of_three_inputs():
    fn = ms.value_and_grad(spring, (0, 1, 2))
    check(fn, t64(1.0), t64(0.2), t64(4.0), wrt=["loss", 0, 1, 2], loss=spring)


# -- while over time: RNN and LSTM cells ------------------------------------------------------


class WhileRNN(nn.Cell):
    """h = tanh(x[t] W + h U) over t < seq_len, t a tensor."""

    def __init__(self, features=2, hidden=3):
        super().__init__()
        self.w = Parameter(rand64(features, hidden, seed=5, scale=0.5), name="w")
        self.u = Parameter(rand64(hidden, hidden, seed=6, scale=0.5), name="u")

    def construct(self, x, seq_len):
        h = ops.zeros((self.u.shape[0],), F64)
        t = Tensor(0)
        while t < seq_len:
            h = ops.tanh(ops.matmul(x[t], self.w) + ops.matmul(h, self.u))
            t = t + 1
        return (h * t64([1.0, -0.5, 2.0])).sum()


def test_rnn_over_time_grad_wrt_sequence_and_weights():
    net = WhileRNN()
    grad = ops.GradOperation(get_all=True, get_by_list=True)
    check(
        grad(net, net.trainable_params()),
        rand64(4, 2, seed=7),
        i64(4),
        wrt=[0, None, net.w, net.u],
        loss=net,
    )


class GatesLSTM(nn.Cell):
    """An LSTM cell with one Dense for its four gates, over time in a while."""

    def __init__(self, features=2, hidden=2):
        super().__init__()
        self.hidden = hidden
        self.gates = nn.Dense(features + hidden, 4 * hidden, weight_init="normal", dtype=F64)

    def construct(self, x, seq_len):
        h = ops.zeros((1, self.hidden), F64)
        c = ops.zeros((1, self.hidden), F64)
        t = Tensor(0)
        while t < seq_len:
            z = self.gates(ops.concat((x[t], h), 1))
            i, f, g, o = ops.split(z, self.hidden, 1)
            c = ops.sigmoid(f) * c + ops.sigmoid(i) * ops.tanh(g)
            h = ops.sigmoid(o) * ops.tanh(c)
            t = t + 1
        return (h * h).sum() + c.sum()


def test_lstm_over_time_value_and_grad():
    ms.set_seed(1)
    net = GatesLSTM()
    fn = ms.value_and_grad(net, 0, net.trainable_params())
    w, b = net.trainable_params()
    check(fn, rand64(3, 1, 2, seed=8), i64(3), wrt=["loss", 0, w, b], loss=net)


class CellLSTM(nn.Cell):
    def __init__(self):
        super().__init__()
        self.cell = nn.LSTMCell(2, 3)

    def construct(self, x):
        h = ops.zeros((1, 3), ms.float32)
        c = ops.zeros((1, 3), ms.float32)
        t = Tensor(0)
        while t < x.shape[0]:
            h, c = self.cell(x[t], (h, c))
            t += 1
        return h.sum()


def test_nn_lstm_cell_over_time_float32():
    ms.set_seed(2)
    net = CellLSTM()
    x = Tensor(np.random.default_rng(9).standard_normal((3, 1, 2)).astype(np.float32))
    check(
        GradByList(net),
        x,
        wrt=list(net.trainable_params()),
        loss=net,
        eps=1e-2,
        fd_rtol=2e-2,
        fd_atol=2e-3,
    )


class TupleStateLSTM(nn.Cell):
    """`nn.LSTMCell` in float64 whose state is one loop variable, the tuple (h, c)."""

    def __init__(self):
        super().__init__()
        self.cell = nn.LSTMCell(2, 3, dtype=F64)

    def construct(self, x, h0):
        state = (h0, ops.zeros_like(h0))
        t = Tensor(0)
        while t < x.shape[0]:
            state = self.cell(x[t], state)
            t += 1
        h, c = state
        return (h * h).sum() - c.sum()


def test_lstm_whose_state_tuple_is_the_loop_variable():
    ms.set_seed(4)
    net = TupleStateLSTM()
    grad = ops.GradOperation(get_all=True, get_by_list=True)
    params = list(net.trainable_params())
    check(
        grad(net, params),
        rand64(3, 1, 2, seed=24),
        rand64(1, 3, seed=25, scale=0.5),
        wrt=[0, 1, *params],
        loss=net,
    )


# -- nested loops, if inside, while inside if -------------------------------------------------


def nested(x, n, m):
    i = Tensor(0)
    y = x
    while i < n:
        j = Tensor(0)
        while j < m:
            y = ops.sin(y) * x + 0.1 * j
            j = j + 1
        y = y * 0.9
        i = i + 1
    return y.sum()


def test_nested_whiles():
    check(ms.grad(nested), rand64(3, seed=10), i64(3), i64(2), wrt=[0], loss=nested)


def triangular(x, n):
    i = Tensor(0)
    total = ops.zeros_like(x)
    while i < n:
        j = Tensor(0)
        p = ops.ones_like(x)
        while j <= i:
            p = p * x
            j += 1
        total = total + p / (i + 1).astype(F64)
        i += 1
    return total.sum()


def test_nested_while_whose_inner_bound_is_the_outer_counter():
    check(ms.grad(triangular), t64([0.5, -0.7]), i64(4), wrt=[0], loss=triangular)


def branching_growth(x, a):
    y = x
    while ops.reduce_sum(ops.abs(y)) < 20:
        if y.sum() > 0:
            y = y * a + 1
        else:
            y = y * a + ops.sin(y)
    return (y * y).sum()


def test_if_on_a_tensor_inside_a_while():
    check(
        ms.grad(branching_growth, (0, 1)),
        t64([0.3, -1.1]),
        t64(1.7),
        wrt=[0, 1],
        loss=branching_growth,
    )


class IfInLoopWeights(nn.Cell):
    def __init__(self):
        super().__init__()
        self.a = Parameter(t64([0.9, 1.1]), name="a")
        self.b = Parameter(t64([0.2, -0.3]), name="b")

    def construct(self, x, n):
        i = Tensor(0)
        while i < n:
            if (x * self.a).sum() > 1.0:
                x = x * self.a
            else:
                x = ops.exp(x) * self.b + x
            i += 1
        return x.sum()


def test_if_inside_a_while_grad_wrt_weights_in_one_branch():
    net = IfInLoopWeights()
    check(GradByList(net), t64([0.4, 0.3]), i64(5), wrt=[net.a, net.b], loss=net)


def while_in_if(x, k):
    if x.sum() > 0:
        while x.sum() < 10:
            x = x * k
        y = x
    else:
        y = x * k
    return (y * y).sum()


@pytest.mark.parametrize("sign", [1.0, -1.0], ids=["then", "else"])
def test_a_while_inside_an_if(sign):
    x = t64([0.5, 0.25]) * sign
    check(ms.grad(while_in_if, (0, 1)), x, t64(1.5), wrt=[0, 1], loss=while_in_if)


# -- break and continue on tensor conditions --------------------------------------------------


def with_break(x, n):
    i = Tensor(0)
    y = x
    while i < n:
        y = y * x + 0.5
        if y.sum() > 6:
            break
        i += 1
    return y.sum()


def test_break_on_a_tensor_condition():
    check(ms.grad(with_break), t64([0.9, 1.2]), i64(10), wrt=[0], loss=with_break)


def with_continue(x, n):
    i = Tensor(0)
    y = ops.zeros_like(x)
    while i < n:
        i += 1
        if i % 2 == 0:
            continue
        y = y + ops.sin(x * i.astype(F64))
    return y.sum()


def test_continue_on_a_tensor_condition():
    check(ms.grad(with_continue), t64([0.4, -0.2]), i64(5), wrt=[0], loss=with_continue)


def break_and_continue(x, limit):
    y = x
    total = ops.zeros_like(x)
    while total.sum() < 100:
        y = y * 1.3
        if y.sum() < 1:
            continue
        total = total + y * y
        if total.sum() > limit:
            break
    return total.sum() + y.sum()


def test_break_and_continue_in_one_loop():
    check(
        ms.grad(break_and_continue),
        t64([0.2, 0.25]),
        t64(30.0),
        wrt=[0],
        loss=break_and_continue,
    )


# -- counters, integer carried values, zero iterations ----------------------------------------


def counted(x, n):
    i = 0
    y = x
    while i < n:
        y = ops.tanh(y * 1.5 + x)
        i = i + 1
    return y.sum()


def test_counter_loop_with_a_python_int_counter_and_a_tensor_bound():
    check(ms.grad(counted), rand64(2, seed=11), i64(7), wrt=[0], loss=counted)


def int_carried(x, n):
    i = Tensor(0)
    parity = Tensor(np.array(1, np.int32))
    y = x
    while i < n:
        parity = parity * -1
        y = y + parity.astype(F64) * y * x
        i += 1
    return y.sum() * parity.astype(F64)


def test_integer_values_carried_beside_float_ones():
    check(ms.grad(int_carried), t64([0.3, 0.6]), i64(4), wrt=[0], loss=int_carried)


def squarings(x, n):
    i = Tensor(0)
    y = x
    while i < n:
        y = y * y
        i += 1
    return (y * t64([2.0, 3.0])).sum()


@pytest.mark.parametrize("n", [0, 1, 3])
def test_loop_that_runs_zero_one_or_three_times(n):
    (g,) = check(ms.grad(squarings), t64([0.9, 1.1]), i64(n), wrt=[0], loss=squarings)
    if n == 0:
        np.testing.assert_allclose(g, [2.0, 3.0])  # the identity path


class UnusedWhenEmpty(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(t64([0.5, 2.0]), name="w")

    def construct(self, x, n):
        i = Tensor(0)
        while i < n:
            x = x * self.w
            i += 1
        return x.sum()


def test_zero_iterations_give_a_zero_weight_gradient():
    net = UnusedWhenEmpty()
    (gw,) = check(GradByList(net), t64([1.0, 2.0]), i64(0), wrt=[net.w], loss=net)
    np.testing.assert_array_equal(gw, [0.0, 0.0])


def data_bound_zero(x):
    y = x
    while y.sum() > 100:
        y = y / 2
    return (y * y).sum()


def test_a_data_condition_false_at_once():
    (g,) = check(ms.grad(data_bound_zero), t64([1.0, 2.0]), wrt=[0], loss=data_bound_zero)
    np.testing.assert_allclose(g, [2.0, 4.0])


# -- Parameters read and assigned inside the loop ---------------------------------------------


class DenseLoop(nn.Cell):
    """A Dense layer applied until the activations' norm passes a bound."""

    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(3, 3, weight_init="normal", dtype=F64)

    def construct(self, x):
        i = Tensor(0)
        while (ops.reduce_sum(x * x) < 50) & (i < 6):
            x = ops.tanh(self.dense(x)) * 2.5 + x
            i += 1
        return x.sum()


def test_dense_weights_read_inside_the_loop():
    ms.set_seed(3)
    net = DenseLoop()
    check(GradByList(net), rand64(2, 3, seed=12), wrt=list(net.trainable_params()), loss=net)


class AssignInLoop(nn.Cell):
    """The loop assigns a Parameter every iteration; later reads see the new value."""

    def __init__(self):
        super().__init__()
        self.w = Parameter(t64([0.8, 1.2]), name="w")

    def construct(self, x, n):
        i = Tensor(0)
        out = ops.zeros_like(x)
        while i < n:
            out = out + x * self.w
            ops.assign(self.w, self.w * 0.5 + x)
            i += 1
        return (out * self.w).sum()


def test_a_parameter_assigned_inside_the_loop():
    """Each Load of `w` is a leaf whose adjoint adds to w's gradient, and no gradient
    flows through the assign: finite differences of the initial value measure something
    else, so the oracle is PyNative, and MindSpore 2.10's graph mode gave the same
    numbers on this program (its PyNative gives dx = [1.171875, 0.9075])."""
    net = AssignInLoop()
    grad = ops.GradOperation(get_all=True, get_by_list=True)
    (dx, _, dw) = check(
        grad(net, net.trainable_params()),
        t64([0.3, -0.4]),
        i64(3),
        wrt=[None, None, None],
        weights=[net.w],
    )
    np.testing.assert_allclose(dx, [1.34375, -0.605], rtol=1e-6)
    np.testing.assert_allclose(dw, [1.2075, 0.22], rtol=1e-6)
    assert net.w.asnumpy().tolist() == [0.8, 1.2]  # check put the initial value back


class AssignAddCounter(nn.Cell):
    """`ops.assign_add` on a step counter inside the loop; the weight is read each time."""

    def __init__(self):
        super().__init__()
        self.w = Parameter(t64([1.5, -0.5]), name="w")
        self.steps = Parameter(Tensor(np.zeros((), np.float64)), name="steps", requires_grad=False)

    def construct(self, x):
        while self.steps < 4:
            x = ops.sin(x * self.w) + x
            ops.assign_add(self.steps, Tensor(1.0, F64))
        return x.sum() * self.steps


def test_assign_add_in_the_loop_condition_state():
    net = AssignAddCounter()
    fn = ms.value_and_grad(net, 0, [net.w])
    check(fn, t64([0.2, 0.7]), wrt=["loss", 0, net.w], loss=net, weights=[net.steps])


# -- the gradient APIs -------------------------------------------------------------------------


def with_aux(x, n):
    i = Tensor(0)
    y = x
    trace = ops.zeros_like(x)
    while i < n:
        y = ops.cos(y) + x
        trace = trace + y
        i += 1
    return (y * y).sum(), trace, i


def test_value_and_grad_with_aux():
    fn = ms.value_and_grad(with_aux, 0, None, has_aux=True)

    def loss(x, n):
        return with_aux(x, n)[0]

    check(fn, t64([0.1, 0.9]), i64(4), wrt=["loss", None, None, 0], loss=loss)


class SensNet(nn.Cell):
    def construct(self, x):
        y = x
        while ops.reduce_max(y) < 5:
            y = y * 1.5 + ops.exp(x) * 0.1
        return y


class SensGrad(nn.Cell):
    def __init__(self, net):
        super().__init__()
        self.net = net
        self.grad = ops.GradOperation(sens_param=True)

    def construct(self, x, sens):
        return self.grad(self.net)(x, sens)


def test_sens_param():
    net = SensNet()
    sens = t64([1.0, -2.0, 0.5])

    def loss(x, s):
        return (net(x) * s).sum()

    check(SensGrad(net), t64([0.3, 0.5, 0.1]), sens, wrt=[0], loss=loss)


def two_outputs(x, y):
    a, b = x, y
    while (a * b).sum() < 10:
        a, b = a + b * 0.5, b * 1.2 + ops.sin(a)
    return a, b


def test_two_outputs_sum_their_gradients():
    def loss(x, y):
        a, b = two_outputs(x, y)
        return a.sum() + b.sum()

    check(ms.grad(two_outputs, (0, 1)), t64([0.5, 1.0]), t64([0.7, 0.2]), wrt=[0, 1], loss=loss)


class GradAll(nn.Cell):
    def __init__(self, net):
        super().__init__()
        self.net = net
        self.grad = ops.GradOperation(get_all=True)

    def construct(self, *inputs):
        return self.grad(self.net)(*inputs)


class MatrixPower(nn.Cell):
    def construct(self, a, v, n):
        i = Tensor(0)
        while i < n:
            v = ops.matmul(a, v)
            i += 1
        return (v * v).sum()


def test_grad_operation_get_all_matrix_power():
    net = MatrixPower()
    a = rand64(3, 3, seed=13, scale=0.5)
    check(GradAll(net), a, rand64(3, seed=14), i64(4), wrt=[0, 1, None], loss=net)


class Stepper(nn.Cell):
    """A Cell whose construct runs a while; a plain function calls it."""

    def __init__(self):
        super().__init__()
        self.gain = Parameter(t64(0.7), name="gain")

    def construct(self, x):
        k = Tensor(0)
        while k < 3:
            x = x - self.gain * ops.tanh(x)
            k += 1
        return x


STEPPER = Stepper()


def calls_a_cell(x, y):
    return (STEPPER(x) * y).sum() + (STEPPER(y) ** 2).sum()


def test_grad_of_a_function_calling_a_cell_with_a_while():
    fn = ms.grad(calls_a_cell, (0, 1), STEPPER.trainable_params())
    check(
        fn,
        t64([0.5, -1.0]),
        t64([2.0, 0.3]),
        wrt=[0, 1, STEPPER.gain],
        loss=calls_a_cell,
    )


def fib_like(x):
    a, b = x, x * 0.5
    while b.sum() < 30:
        a, b = b, a + b
    return b.sum()


@ms.jit
def jit_grad_fib(x):
    return ms.grad(fib_like)(x)


def test_jit_function_taking_a_gradient():
    check(jit_grad_fib, t64([1.0, 0.4]), wrt=[0], loss=fib_like)


def decay(x, rate):
    t = Tensor(0.0, F64)
    while t < 1.0:
        x = x - rate * x * 0.1
        t = t + 0.1
    return (x * x).sum()


def test_grad_position_tuple_and_a_float_clock():
    check(ms.grad(decay, (0, 1)), t64([1.0, 2.0]), t64(0.8), wrt=[0, 1], loss=decay)


# -- more loops users write --------------------------------------------------------------------


def lambert_w(a):
    """w with w * exp(w) = a, by Newton from w = log(1 + a)."""
    w = ops.log(1 + a)
    step = ops.ones_like(a)
    while ops.reduce_max(ops.abs(step)) > 1e-12:
        e = ops.exp(w)
        step = (w * e - a) / (e * (w + 1))
        w = w - step
    return w


def test_newton_for_lambert_w():
    def loss(a):
        return lambert_w(a).sum()

    a = t64([1.0, 3.0])
    (g,) = check(ms.grad(loss), a, wrt=[0], loss=loss)
    w = lambert_w(a).asnumpy()
    np.testing.assert_allclose(g, w / (a.asnumpy() * (1 + w)), rtol=1e-8)


class GreedyDecoder(nn.Cell):
    """A decoding loop: the argmax token's embedding feeds the next step; the score
    sums the chosen tokens' log-probabilities, until an end token or a max length."""

    def __init__(self, vocab=4, hidden=3):
        super().__init__()
        self.out = Parameter(rand64(hidden, vocab, seed=20), name="out")
        self.emb = Parameter(rand64(vocab, hidden, seed=21, scale=0.8), name="emb")

    def construct(self, h, max_len):
        score = Tensor(0.0, F64)
        t = Tensor(0)
        token = Tensor(1)
        while (t < max_len) & (token != 0):
            logits = ops.matmul(h, self.out)
            logp = logits - ops.log(ops.exp(logits).sum())
            token = ops.argmax(logp)
            score = score + ops.reduce_max(logp)
            h = ops.tanh(h + self.emb[token])
            t += 1
        return score


def test_greedy_decoding_loop():
    net = GreedyDecoder()
    check(GradByList(net), rand64(3, seed=22), i64(5), wrt=[net.out, net.emb], loss=net)


def both_conditions(x, n):
    i = Tensor(0)
    while i < n and x.sum() < 10:
        x = x * 1.4 + 0.1
        i += 1
    return (x * x).sum()


def test_a_python_and_of_two_tensor_conditions():
    check(ms.grad(both_conditions), t64([0.5, 1.5]), i64(20), wrt=[0], loss=both_conditions)


class Smoother(nn.Cell):
    """An exponential moving average until it settles; the rate is a Parameter."""

    def __init__(self):
        super().__init__()
        self.rate = Parameter(t64(0.3), name="rate")

    def construct(self, target):
        avg = ops.zeros_like(target)
        gap = ops.ones_like(target)
        while ops.reduce_max(ops.abs(gap)) > 1e-3:
            gap = target - avg
            avg = avg + self.rate * gap
        return (avg * avg).sum()


def test_moving_average_until_it_settles():
    net = Smoother()
    fn = ms.value_and_grad(net, 0, net.trainable_params())
    check(fn, t64([1.0, -2.0]), wrt=["loss", 0, net.rate], loss=net)


def inner_descent(a, lr, n):
    """n gradient-descent steps on (x - a)^2 from x = 0 (an optimisation unrolled at run
    time): x_n = a (1 - (1 - 2 lr)^n)."""
    x = ops.zeros_like(a)
    i = Tensor(0)
    while i < n:
        x = x - lr * 2 * (x - a)
        i += 1
    return (x * x * x).sum()


def test_inner_gradient_descent_loop():
    a, lr = t64([1.0, -0.5]), t64(0.2)
    (da, dlr) = check(ms.grad(inner_descent, (0, 1)), a, lr, i64(5), wrt=[0, 1], loss=inner_descent)
    x = a.asnumpy() * (1 - 0.6**5)
    np.testing.assert_allclose(da, 3 * x * x * (1 - 0.6**5), rtol=1e-10)


class ParameterCondition(nn.Cell):
    """The condition reads a Parameter; the loop scales the input until it passes it."""

    def __init__(self):
        super().__init__()
        self.limit = Parameter(t64([2.0, 3.0]), name="limit")

    def construct(self, x):
        while (x * x).sum() < (self.limit * self.limit).sum():
            x = x * 1.3 + self.limit * 0.01
        return (x * self.limit).sum()


def test_a_condition_that_reads_a_parameter():
    net = ParameterCondition()
    check(GradByList(net), t64([0.3, 0.2]), wrt=[net.limit], loss=net)


def softplus_rows(x):
    i = Tensor(0)
    total = Tensor(0.0, F64)
    while i < x.shape[0]:
        row = x[i]
        total = total + ops.log(1 + ops.exp(row)).sum() * (i + 1).astype(F64)
        i += 1
    return total


def test_rows_indexed_by_the_loop_counter():
    check(ms.grad(softplus_rows), rand64(3, 2, seed=23), wrt=[0], loss=softplus_rows)


# -- training ----------------------------------------------------------------------------------


class LoopRegressor(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(rand64(2, 2, seed=15, scale=0.4), name="w")
        self.b = Parameter(t64([0.1, -0.1]), name="b")

    def construct(self, x, y):
        h = x
        i = Tensor(0)
        while i < 3:
            h = ops.tanh(ops.matmul(h, self.w) + self.b)
            i += 1
        return ((h - y) ** 2).mean()


@pytest.mark.parametrize("optimizer", ["sgd", "momentum"])
def test_train_one_step_cell(optimizer):
    """One TrainOneStepCell step at lr 0.1: (w_before - w_after) / lr is the gradient
    (SGD; Momentum's first step too)."""
    net = LoopRegressor()
    params = list(net.trainable_params())
    lr = 0.1
    opt = nn.SGD(params, lr) if optimizer == "sgd" else nn.Momentum(params, lr, 0.9)
    train = nn.TrainOneStepCell(net, opt)

    def step(x, y):
        before = [p.asnumpy().copy() for p in params]
        loss = train(x, y)
        return [loss] + [Tensor((b - p.asnumpy()) / lr) for b, p in zip(before, params)]

    state = list(opt.parameters) if optimizer == "sgd" else [*opt.parameters, *opt.moments]
    check(
        step,
        rand64(4, 2, seed=16),
        rand64(4, 2, seed=17, scale=0.3),
        wrt=["loss", *params],
        loss=net,
        weights=state,
    )


# -- second order --------------------------------------------------------------------------------


def cube_loop(x, n):
    i = Tensor(0)
    y = ops.ones_like(x)
    while i < n:
        y = y * x
        i += 1
    return y.sum()


def test_second_order_of_a_loop_is_a_located_refusal():
    """PyNative refuses a gradient of a gradient (README: compile the outer function);
    graph mode refuses a second order through a recorded loop with a located error
    (the record's reads have no adjoint yet). When it lands, this becomes
    `check(ms.grad(first), x, n, wrt=[0], loss=lambda x, n: first(x, n).sum(),
    eager=lambda x, n: Tensor(6 * x.asnumpy()))`: the closed form 6x."""
    first = ms.grad(cube_loop)
    x = t64([0.5, -1.5])
    np.testing.assert_allclose(first(x, i64(3)).asnumpy(), 3 * x.asnumpy() ** 2)
    ms.set_context(mode=ms.GRAPH_MODE)
    with pytest.raises(MindjitError) as info:
        ms.grad(first)(x, i64(3))
    text = str(info.value)
    assert "test_grad_while.py:" in text and ": error: " in text, text
    assert "second order through a recorded loop" in text, text


# -- the simulated device and IREE -------------------------------------------------------------

ENGINES = {"device": {"device_target": "Ascend"}, "iree": {"jit_config": {"backend": "iree"}}}


def _on_engine_nested(engine):
    check(ms.grad(nested), rand64(3, seed=10), i64(3), i64(2), wrt=[0], loss=nested, engine=engine)


def _on_engine_break(engine):
    x = t64([0.9, 1.2])
    check(ms.grad(with_break), x, i64(10), wrt=[0], loss=with_break, engine=engine)


def _on_engine_if_inside(engine):
    net = IfInLoopWeights()
    check(GradByList(net), t64([0.4, 0.3]), i64(5), wrt=[net.a, net.b], loss=net, engine=engine)


def _on_engine_lstm_tuple(engine):
    ms.set_seed(4)
    net = TupleStateLSTM()
    params = list(net.trainable_params())
    grad = ops.GradOperation(get_all=True, get_by_list=True)
    x, h0 = rand64(3, 1, 2, seed=24), rand64(1, 3, seed=25, scale=0.5)
    check(grad(net, params), x, h0, wrt=[0, 1, *params], loss=net, engine=engine)


def _on_engine_train(engine):
    net = LoopRegressor()
    params = list(net.trainable_params())
    train = nn.TrainOneStepCell(net, nn.SGD(params, 0.1))

    def step(x, y):
        before = [p.asnumpy().copy() for p in params]
        loss = train(x, y)
        return [loss] + [Tensor((b - p.asnumpy()) / 0.1) for b, p in zip(before, params)]

    x, y = rand64(4, 2, seed=16), rand64(4, 2, seed=17, scale=0.3)
    check(step, x, y, wrt=["loss", *params], loss=net, engine=engine)


def _on_engine_triangular(engine):
    x = t64([0.5, -0.7])
    check(ms.grad(triangular), x, i64(4), wrt=[0], loss=triangular, engine=engine)


def _on_engine_matrix_power(engine):
    net = MatrixPower()
    a, v = rand64(3, 3, seed=13, scale=0.5), rand64(3, seed=14)
    check(GradAll(net), a, v, i64(4), wrt=[0, 1, None], loss=net, engine=engine)


def _on_engine_lstm_f32(engine):
    """float32 (IREE's CPU code has no float64 tanh/sigmoid: it would run on numpy):
    the two modes only, no finite differences."""
    ms.set_seed(2)
    net = CellLSTM()
    x = Tensor(np.random.default_rng(9).standard_normal((3, 1, 2)).astype(np.float32))
    check(GradByList(net), x, wrt=[None] * 4, rtol=1e-4, atol=1e-6, engine=engine)


def two_records(w):
    """Two loop values of one type the backward reads (h and c): two records whose
    `mindir.stack_new` CSE makes one value."""
    h, c = ops.ones((3,), F64), ops.ones((3,), F64)
    t = Tensor(0)
    while t < 2:
        c = h * c * w
        h = c + 1
        t = t + 1
    return h.sum()


def _on_engine_two_records(engine):
    check(ms.grad(two_records), t64([0.3, -0.2, 0.5]), wrt=[0], loss=two_records, engine=engine)


ON_ENGINES = {
    "device": {
        "nested": _on_engine_nested,
        "break": _on_engine_break,
        "if_inside": _on_engine_if_inside,
        "lstm_tuple_state": _on_engine_lstm_tuple,
        "train_one_step": _on_engine_train,
        "two_records_of_one_type": _on_engine_two_records,
    },
    "iree": {
        "triangular": _on_engine_triangular,
        "break": _on_engine_break,
        "if_inside": _on_engine_if_inside,
        "matrix_power": _on_engine_matrix_power,
        "lstm_float32": _on_engine_lstm_f32,
        "two_records_of_one_type": _on_engine_two_records,
    },
}


@pytest.mark.parametrize(
    ("engine", "program"), [(e, p) for e, programs in ON_ENGINES.items() for p in programs]
)
def test_on_the_simulated_device_and_iree(engine, program):
    """Some of the programs above on the other engines: the record is a run-time
    allocation on the device and a growing tensor in IREE's module."""
    ON_ENGINES[engine][program](ENGINES[engine])


# -- the helper itself -------------------------------------------------------------------------


def test_check_fails_on_a_wrong_gradient():
    """The oracle is checked before graph mode runs: a gradient off by 2x fails there."""

    def wrong(x):
        return ms.grad(squarings)(x, i64(2)) * 2

    with pytest.raises(AssertionError, match="wrt 0"):
        check(wrong, t64([0.9, 1.1]), wrt=[0], loss=lambda x: squarings(x, i64(2)))


def test_suite_size():
    programs = [
        name for name in globals() if name.startswith("test_") and name not in _NOT_PROGRAMS
    ]
    assert len(programs) >= 40, len(programs)


_NOT_PROGRAMS = {
    "test_check_fails_on_a_wrong_gradient",
    "test_suite_size",
    "test_on_the_simulated_device_and_iree",
}
