"""`nn.Optimizer`: the base Cell of the optimizers, with MindSpore's arguments.

    Optimizer(learning_rate, parameters, weight_decay=0.0, loss_scale=1.0)

- `parameters`: the Parameters to update, a list (`net.trainable_params()`), a
  tuple or any iterable of them; kept as the tuple `self.parameters` (they belong
  to the network, not to the optimizer). Parameter groups (lists of dicts) are
  not supported.
- `learning_rate` (see lr.py): a number >= 0 or a 0-d Tensor is fixed, a
  constant of the compiled graph; a list/tuple of per-step values, a 1-D
  Tensor, or a `LearningRateSchedule` Cell is dynamic: `get_lr()` evaluates it
  on `global_step` (the list is indexed by it, the last value kept once the
  steps run past its end).
- `weight_decay`: added to each gradient as `weight_decay * param`, for the
  Parameters whose name has neither 'beta' nor 'gamma' in it (MindSpore's filter
  when parameters are not grouped).
- `loss_scale`: each gradient is divided by it first.

State the optimizer keeps between steps (momenta, Adam's moments and beta powers,
`global_step`, incremented by every step) are Parameters owned by the optimizer
Cell, with `requires_grad=False`, named like MindSpore's (`moments.<name>`,
`moment1.<name>`, `beta1_power` ...), and updated with `ops.assign`. So
`optimizer(grads)` runs in PyNative mode (each assign writes in place) and
compiles into one graph inside `@ms.jit` (one `mindir.assign` per update, ordered
by auto-monad), with the same results.

`construct(gradients)` takes one gradient per Parameter, in order (a wrong count
or shape is a ValueError), and returns a tuple of True, one per Parameter, as
MindSpore's optimizers do.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import Any

import numpy as np

from mindjit.frontend import ops
from mindjit.frontend.dispatch import current_graph
from mindjit.frontend.nn.cell import Cell
from mindjit.frontend.nn.optim.lr import preprocess_lr
from mindjit.frontend.tensor import Parameter, Tensor


def default_decay_filter(param: Parameter) -> bool:
    """MindSpore's rule: decay every Parameter but those named with 'beta' or 'gamma'."""
    return "beta" not in param.name and "gamma" not in param.name


def _number(value: Any, name: str, owner: str) -> float:
    if isinstance(value, Tensor) and value.size == 1:
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"For '{owner}', '{name}' must be a float, got {type(value).__name__}")
    return float(value)


def non_negative(value: Any, name: str, owner: str) -> float:
    v = _number(value, name, owner)
    if not v >= 0.0:
        raise ValueError(f"For '{owner}', '{name}' must be at least 0.0, but got {value}.")
    return v


def _parameter_tuple(parameters: Any, owner: str) -> tuple[Parameter, ...]:
    if isinstance(parameters, Parameter):
        raise TypeError(
            f"For '{owner}', 'params' must be a list of Parameters, got a single Parameter"
        )
    try:
        params = tuple(parameters)
    except TypeError:
        raise TypeError(
            f"For '{owner}', 'params' must be a list of Parameters, got {type(parameters).__name__}"
        ) from None
    if not params:
        raise ValueError(f"For '{owner}', the argument 'params' must not be empty.")
    for p in params:
        if isinstance(p, dict):
            raise TypeError(f"For '{owner}', parameter groups (dicts) are not supported by mindjit")
        if not isinstance(p, Parameter):
            raise TypeError(
                f"For '{owner}', every element of 'params' must be a Parameter, got "
                f"{type(p).__name__}"
            )
    if len({id(p) for p in params}) != len(params):
        names = [p.name for p in params]
        twice = sorted({n for n in names if names.count(n) > 1})
        raise ValueError(f"For '{owner}', 'params' lists a Parameter twice: {', '.join(twice)}")
    return params


class Optimizer(Cell):
    """Base class of the optimizers (see the module doc)."""

    def __init__(
        self,
        learning_rate: Any,
        parameters: Any,
        weight_decay: float = 0.0,
        loss_scale: float = 1.0,
    ):
        super().__init__(auto_prefix=False)
        owner = self.cls_name
        params = _parameter_tuple(parameters, owner)
        self.parameters = params
        self.learning_rate, self.dynamic_lr = preprocess_lr(learning_rate, owner)
        self.weight_decay = non_negative(weight_decay, "weight_decay", owner)
        self.loss_scale = _number(loss_scale, "loss_scale", owner)
        if not self.loss_scale > 0.0:
            raise ValueError(
                f"For '{owner}', 'loss_scale' must be greater than 0.0, got {loss_scale}"
            )
        self.decay_flags = tuple(default_decay_filter(p) for p in params)
        self.global_step = self._state_parameter(np.zeros((1,), np.int32), "global_step")

    # --- state ----------------------------------------------------------------------
    def _state_parameter(self, value: np.ndarray, name: str) -> Parameter:
        """A Parameter of the optimizer's state: registered under `name`, not trained."""
        param = Parameter(Tensor(value), name=name, requires_grad=False)
        self.insert_param_to_cell(name, param, check_name_contain_dot=False)
        return param

    def clone_state(self, prefix: str, init: str | float = "zeros") -> tuple[Parameter, ...]:
        """One state Parameter per parameter, `prefix.<name>`, of its shape and
        dtype, filled with zeros, ones or a number (MindSpore's `ParameterTuple.clone`)."""
        if isinstance(init, str):
            fill: Callable[..., np.ndarray] = {"zeros": np.zeros_like, "ones": np.ones_like}[init]
        else:
            value = float(init)

            def fill(a: np.ndarray) -> np.ndarray:
                return np.full_like(a, value)

        return tuple(
            self._state_parameter(fill(p.asnumpy()), f"{prefix}.{p.name}") for p in self.parameters
        )

    # --- what every step does --------------------------------------------------------
    def get_lr(self) -> Any:
        """The learning rate of the current step: the float, or the schedule's value
        at `global_step` (a 0-d Tensor). Unlike MindSpore's, calling it does not
        advance `global_step` (each step does, in `finish_step`). While a graph is
        traced (a user's `construct` calling it), the schedule's construct runs
        inline as Python on the traced step (a Cell call from here would compile
        and run a graph of its own at trace time)."""
        if not self.dynamic_lr:
            return self.learning_rate
        if current_graph() is not None:
            return ops.reshape(
                type(self.learning_rate).construct(self.learning_rate, self.global_step), ()
            )
        return ops.reshape(self.learning_rate(self.global_step), ())

    def check_gradients(self, gradients: Any) -> tuple[Any, ...]:
        """One gradient per Parameter, each of its shape, as a tuple."""
        owner = self.cls_name
        if not isinstance(gradients, tuple | list):
            raise TypeError(
                f"For '{owner}', the gradients must be a tuple of tensors, one per parameter, "
                f"got {type(gradients).__name__}"
            )
        if len(gradients) != len(self.parameters):
            raise ValueError(
                f"For '{owner}', the number of gradients ({len(gradients)}) must equal the "
                f"number of parameters ({len(self.parameters)})."
            )
        for g, p in zip(gradients, self.parameters):
            shape = tuple(getattr(g, "shape", ()))
            if shape != tuple(p.shape):
                raise ValueError(
                    f"For '{owner}', the gradient of Parameter '{p.name}' must have its shape "
                    f"{tuple(p.shape)}, but got {shape}."
                )
        return tuple(gradients)

    def decay_weight(self, gradients: tuple[Any, ...]) -> tuple[Any, ...]:
        """g + weight_decay * param, for the Parameters the decay filter selects."""
        if self.weight_decay == 0.0:
            return gradients
        wd = self.weight_decay
        return tuple(
            ops.add(g, ops.mul(p, wd)) if flag else g
            for g, p, flag in zip(gradients, self.parameters, self.decay_flags)
        )

    def scale_grad(self, gradients: tuple[Any, ...]) -> tuple[Any, ...]:
        """g / loss_scale."""
        if self.loss_scale == 1.0:
            return gradients
        scale = 1.0 / self.loss_scale
        return tuple(ops.mul(g, scale) for g in gradients)

    def prepare_gradients(self, gradients: Any) -> tuple[Any, ...]:
        """Checked, unscaled by loss_scale, then weight decay added."""
        return self.decay_weight(self.scale_grad(self.check_gradients(gradients)))

    def finish_step(self) -> tuple[bool, ...]:
        """Count the step; MindSpore's result: True per parameter."""
        ops.assign(self.global_step, ops.add(self.global_step, 1))
        return (True,) * len(self.parameters)

    def construct(self, gradients):
        gradients = self.prepare_gradients(gradients)
        lr = self.learning_rate
        if self.dynamic_lr:  # the schedule's Cell call, traced in graph mode
            lr = self.learning_rate(self.global_step)
        lr = self.step_lr(lr)
        for i in range(len(self.parameters)):
            self.update(i, gradients[i], lr)
        return self.finish_step()

    def step_lr(self, lr: Any) -> Any:
        """The learning rate of this step from the float or the schedule's value
        (Adam also advances its beta powers here)."""
        if self.dynamic_lr:
            return ops.reshape(lr, ())
        return lr

    def update(self, i: int, grad: Any, lr: Any) -> None:
        """Update Parameter `i` (and its state) with its gradient."""
        raise NotImplementedError(
            f"'{self.cls_name}' is the base class of optimizers; use nn.SGD, nn.Momentum or nn.Adam"
        )

    def extend_repr(self) -> str:
        lr = type(self.learning_rate).__name__ if self.dynamic_lr else self.learning_rate
        return f"learning_rate={lr}, weight_decay={self.weight_decay}"
