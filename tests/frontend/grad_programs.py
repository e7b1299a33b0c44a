"""Programs of issue 7's gradient checks (graph mode reads their source here)."""

from __future__ import annotations

import numpy as np
from side_effect_programs import ForwardNet  # noqa: F401 - the notebook's forward (doc 002)

import mindjit as ms
from mindjit import Parameter, nn, ops


class BackwardNet(nn.Cell):
    """The notebook's backward: GradOperation(get_all=True) inside a @jit construct."""

    def __init__(self, net):
        super().__init__(auto_prefix=False)
        self.forward_net = net
        self.grad = ops.GradOperation(get_all=True)

    @ms.jit
    def construct(self, *inputs):
        grads = self.grad(self.forward_net)(*inputs)
        return grads


class Linear(nn.Cell):
    """y = x @ w + b with two Parameters."""

    def __init__(self):
        super().__init__()
        self.w = Parameter(ms.Tensor(np.arange(6, dtype=np.float32).reshape(3, 2) / 10), name="w")
        self.b = Parameter(ms.Tensor(np.array([0.5, -0.5], np.float32)), name="b")

    def construct(self, x):
        return ops.matmul(x, self.w) + self.b


def loss_of(net, x, t):
    y = net(x)
    return ops.reduce_sum((y - t) * (y - t))


def loss_and_out(net, x, t):
    y = net(x)
    return ops.reduce_sum((y - t) * (y - t)), y


def two_inputs(x, y):
    return ops.reduce_sum(ops.tanh(x) * y)


def two_outputs(x, y):
    return x * y, ops.exp(x)


# --- the same calls in graph mode -------------------------------------------------------


@ms.jit
def grad_first(x, y):
    return ms.grad(two_inputs)(x, y)


@ms.jit
def grad_both(x, y):
    return ms.grad(two_inputs, (0, 1))(x, y)


@ms.jit
def grad_outputs_summed(x, y):
    return ms.grad(two_outputs, (0, 1))(x, y)


class Trainer(nn.Cell):
    """value_and_grad w.r.t. the input and the weights, with has_aux, inside a Cell."""

    def __init__(self, net):
        super().__init__()
        self.net = net
        self.weights = net.trainable_params()

    def construct(self, x, t):
        fn = ms.value_and_grad(self.forward, 0, self.weights, has_aux=True)
        return fn(x, t)

    def forward(self, x, t):
        return loss_and_out(self.net, x, t)


@ms.jit
def weights_only(net, x, t):
    return ms.grad(loss_of, None, net.trainable_params())(net, x, t)


class SensNet(nn.Cell):
    """GradOperation(get_all=True, sens_param=True): the caller gives the output's sensitivity."""

    def __init__(self):
        super().__init__()
        self.grad = ops.GradOperation(get_all=True, sens_param=True)

    def construct(self, x, y, sens):
        return self.grad(two_inputs_vector)(x, y, sens)


def two_inputs_vector(x, y):
    return ops.tanh(x) * y


class ByList(nn.Cell):
    """GradOperation(get_by_list=True) over a Cell's weights."""

    def __init__(self, net):
        super().__init__()
        self.net = net
        self.params = net.trainable_params()
        self.grad = ops.GradOperation(get_all=True, get_by_list=True)

    def construct(self, x):
        return self.grad(self.net, self.params)(x)


@ms.jit
def second_order(x):
    return ms.grad(ms.grad(cube))(x)


def cube(x):
    return x * x * x


@ms.jit
def through_runtime_loop(x, n):
    return ms.grad(runtime_loop)(x, n)


def runtime_loop(x, n):
    while ops.reduce_sum(x) < n:
        x = x * 2
    return ops.reduce_sum(x)


def returns_a_number(x):
    return 3


@ms.jit
def grad_of_a_number(x):
    return ms.grad(returns_a_number)(x)
