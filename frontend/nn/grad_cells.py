"""MindSpore's small gradient and update Cells of nn.wrap / nn.grad:

- WithGradCell(network, loss_fn=None, sens=None)(*inputs): the gradients of the
  network's trainable Parameters (of WithLossCell(network, loss_fn) when a loss
  is given; scaled by `sens` when given).
- ParameterUpdate(param)(x): assigns x to the Parameter and returns x.
- Vjp(fn)(*inputs, v): (fn(*inputs), the vector-Jacobian product v^T J), one
  gradient per input (a single one for a single input).
- Jvp(fn)(*inputs, v): (fn(*inputs), the Jacobian-vector product J v), forward
  mode as MindSpore computes it: the gradient with respect to the cotangent u of
  <vjp(u), v> (a gradient of a gradient). mindjit takes gradients of gradients in
  graphs only, so Jvp's construct is marked `@jit` (MindSpore's is too).
"""

from __future__ import annotations

from typing import Any

from mindjit.frontend import ops
from mindjit.frontend.grad import GradOperation
from mindjit.frontend.nn.cell import Cell
from mindjit.frontend.nn.wrappers import WithLossCell
from mindjit.frontend.parameter_tuple import ParameterTuple
from mindjit.frontend.tensor import Parameter


class WithGradCell(Cell):
    def __init__(self, network: Cell, loss_fn: Cell | None = None, sens: Any = None):
        super().__init__(auto_prefix=False)
        self.network = network
        self.loss_fn = loss_fn
        self.weights = ParameterTuple(network.trainable_params())
        self.grad = GradOperation(get_by_list=True, sens_param=sens is not None)
        self.sens = sens
        self.network_with_loss = network if loss_fn is None else WithLossCell(network, loss_fn)
        self.network_with_loss.set_train()

    def construct(self, *inputs):
        if self.sens is None:
            return self.grad(self.network_with_loss, self.weights)(*inputs)
        return self.grad(self.network_with_loss, self.weights)(*inputs, self.sens)


class ParameterUpdate(Cell):
    def __init__(self, param: Parameter):
        super().__init__(auto_prefix=False)
        if not isinstance(param, Parameter):
            raise TypeError(
                f"For 'ParameterUpdate', 'param' must be 'Parameter', but got {type(param)}."
            )
        self._param = param

    def construct(self, x):
        ops.assign(self._param, x)
        return x


class Vjp(Cell):
    def __init__(self, fn: Any):
        super().__init__()
        self.fn = fn
        self.grad = GradOperation(get_all=True, sens_param=True)
        self.grad_single_value = GradOperation(sens_param=True)

    def construct(self, *args):
        inputs = args[0:-1]
        output = self.fn(*inputs)
        if len(inputs) == 1:
            return output, self.grad_single_value(self.fn)(*args)
        return output, self.grad(self.fn)(*args)


class _FirstGrad(Cell):
    """u -> vjp of fn at the inputs with cotangent u (all inputs, or the single one)."""

    def __init__(self, fn: Any, get_all: bool):
        super().__init__()
        self.fn = fn
        self.grad = GradOperation(get_all=get_all, sens_param=True)

    def construct(self, u, inputs):
        return self.grad(self.fn)(*inputs, u)


def _ones_like(output: Any) -> Any:
    if isinstance(output, tuple):
        return tuple(ops.ones_like(o) for o in output)
    return ops.ones_like(output)


class Jvp(Cell):
    def __init__(self, fn: Any):
        super().__init__()
        self.fn = fn
        self.first_grad = _FirstGrad(fn, True)
        self.first_grad_single_value = _FirstGrad(fn, False)
        self.second_grad = GradOperation(sens_param=True)

    def construct(self, *args):
        inputs = args[0:-1]
        v = args[-1]
        output = self.fn(*inputs)
        u = _ones_like(output)
        if len(inputs) == 1:
            return output, self.second_grad(self.first_grad_single_value)(u, inputs, v)
        return output, self.second_grad(self.first_grad)(u, inputs, v)


# `@jit` on construct (what `jit` marks; importing frontend.jit here would be an import
# cycle, jit imports nn): Cell.__call__ then runs Jvp as a graph in PyNative mode too
Jvp.construct.__ms_jit__ = True  # type: ignore[attr-defined]
