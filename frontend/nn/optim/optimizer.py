"""`nn.Optimizer`: the base Cell of the optimizers, with MindSpore's arguments.

    Optimizer(learning_rate, parameters, weight_decay=0.0, loss_scale=1.0)

- `parameters`: the Parameters to update, a list (`net.trainable_params()`), a
  tuple or any iterable of them; kept as the ParameterTuple `self.parameters`,
  which, as in MindSpore, registers them in the optimizer Cell too (under their
  names: two different Parameters of one name are a ValueError). Or parameter
  groups, a list of dicts with their own 'lr' and 'weight_decay' and an
  'order_params' (groups.py).
- `learning_rate` (see lr.py): a number >= 0 or a 0-d Tensor is fixed, a
  constant of the compiled graph; a list/tuple of per-step values, a 1-D
  Tensor, or a `LearningRateSchedule` Cell is dynamic: `get_lr()` evaluates it
  on `global_step` (the list is indexed by it, the last value kept once the
  steps run past its end).
- `weight_decay`: added to each gradient as `weight_decay * param`, for the
  Parameters whose name has neither 'beta' nor 'gamma' in it (MindSpore's filter
  when parameters are not grouped; grouped, every Parameter of a group whose
  weight_decay is > 0). Per Parameter: `weight_decays`, `decay_flags`.
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
MindSpore's optimizers do. A step is: `prepare_gradients` (loss scale, weight
decay), the schedules called on `global_step` (Cell calls in construct, so graph
mode traces them), `begin_step()` once (Adam's beta powers), `step_lr(lr, state)`
once per distinct learning rate, `update(i, grad, lr)` per Parameter, and
`finish_step()` (global_step += 1). Subclasses define `update` and, if needed,
the other hooks.

Differences from MindSpore: a fixed learning rate is a float folded into the
graph, not a `learning_rate` Parameter one could assign; `get_lr()` does not
advance `global_step`; a dynamic weight decay (a Cell) and gradient
centralization are not supported.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import Any

import numpy as np

from mindjit.frontend import ops
from mindjit.frontend.dispatch import current_graph
from mindjit.frontend.nn.cell import Cell
from mindjit.frontend.nn.containers import CellList
from mindjit.frontend.nn.optim.groups import UNSET, Grouped, parse_groups
from mindjit.frontend.nn.optim.lr import IteratorLearningRate, preprocess_lr
from mindjit.frontend.parameter_tuple import ParameterTuple
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
        grouped = None
        if isinstance(parameters, list | tuple) and any(isinstance(p, dict) for p in parameters):
            grouped = parse_groups(list(parameters), owner)
            params = grouped.params
        else:
            params = _parameter_tuple(parameters, owner)
        self.parameters = ParameterTuple(params)
        self.is_group = grouped is not None
        self.learning_rate, self._default_dynamic = preprocess_lr(learning_rate, owner)
        self.weight_decay = non_negative(weight_decay, "weight_decay", owner)
        self.loss_scale = _number(loss_scale, "loss_scale", owner)
        if not self.loss_scale > 0.0:
            raise ValueError(
                f"For '{owner}', 'loss_scale' must be greater than 0.0, got {loss_scale}"
            )
        if grouped is None:
            self.weight_decays = (self.weight_decay,) * len(params)
            self.decay_flags = tuple(default_decay_filter(p) for p in params)
        else:
            self.weight_decays = tuple(
                self.weight_decay if d is UNSET else non_negative(d, "weight_decay", owner)
                for d in grouped.weight_decays
            )
            self.decay_flags = tuple(w > 0.0 for w in self.weight_decays)
        self._init_group_lrs(grouped, owner)
        self.dynamic_lr = self._default_dynamic or self._group_dynamic
        self.global_step = self._state_parameter(np.zeros((1,), np.int32), "global_step")

    def _init_group_lrs(self, grouped: Grouped | None, owner: str) -> None:
        """Per-parameter learning rates of groups with an 'lr': `_lr_specs[i]` is
        ("default",), ("fixed", value) or ("schedule", k) for
        `group_learning_rates[k]` (named `learning_rate_group_<n>` as MindSpore)."""
        self.is_group_lr = grouped is not None and grouped.has_lr
        self._group_dynamic = False
        self._lr_specs: tuple[tuple[Any, ...], ...] = ()
        if grouped is None or not self.is_group_lr:
            return
        by_group: dict[int, tuple[Any, ...]] = {}
        schedules: list[Cell] = []
        specs = []
        for value, number in zip(grouped.lrs, grouped.group_of):
            if value is UNSET:
                specs.append(("default",))
                continue
            if number not in by_group:
                lr, dynamic = preprocess_lr(value, owner, f"learning_rate_group_{number}")
                if dynamic:
                    by_group[number] = ("schedule", len(schedules))
                    schedules.append(lr)
                else:
                    by_group[number] = ("fixed", lr)
            specs.append(by_group[number])
        self._lr_specs = tuple(specs)
        self._group_dynamic = bool(schedules)
        self.group_learning_rates = CellList(schedules, auto_prefix=False)

    # --- state ----------------------------------------------------------------------
    def _state_parameter(self, value: np.ndarray, name: str) -> Parameter:
        """A Parameter of the optimizer's state: registered under `name`, not trained."""
        param = Parameter(Tensor(value), name=name, requires_grad=False)
        self.insert_param_to_cell(name, param, check_name_contain_dot=False)
        return param

    def clone_state(self, prefix: str, init: str | float = "zeros") -> ParameterTuple:
        """One state Parameter per parameter, `prefix.<name>`, of its shape and
        dtype, filled with zeros, ones or a number (MindSpore's `ParameterTuple.clone`)."""
        if isinstance(init, str):
            fill: Callable[..., np.ndarray] = {"zeros": np.zeros_like, "ones": np.ones_like}[init]
        else:
            value = float(init)

            def fill(a: np.ndarray) -> np.ndarray:
                return np.full_like(a, value)

        return ParameterTuple(
            self._state_parameter(fill(p.asnumpy()), f"{prefix}.{p.name}") for p in self.parameters
        )

    # --- what every step does --------------------------------------------------------
    def get_lr(self) -> Any:
        """The learning rate of the current step: the float, or the schedule's value
        at `global_step` (a 0-d Tensor); with per-group learning rates, a tuple of
        one per Parameter. Unlike MindSpore's, calling it does not advance
        `global_step` (each step does, in `finish_step`). While a graph is traced
        (a user's `construct` calling it), a schedule's construct runs inline as
        Python on the traced step (a Cell call from here would compile and run a
        graph of its own at trace time)."""
        tracing = current_graph() is not None

        def value(schedule: Any) -> Any:
            if tracing:
                return ops.reshape(type(schedule).construct(schedule, self.global_step), ())
            return ops.reshape(schedule(self.global_step), ())

        default = value(self.learning_rate) if self._default_dynamic else self.learning_rate
        if not self.is_group_lr:
            return default
        group = tuple(value(s) for s in self.group_learning_rates) if self._group_dynamic else ()
        return self.parameter_lrs(default, group)

    def parameter_lrs(self, default: Any, group: tuple[Any, ...]) -> tuple[Any, ...]:
        """One learning rate per Parameter, from the default's and the groups' values."""
        if not self.is_group_lr:
            return (default,) * len(self.parameters)
        out = []
        for spec in self._lr_specs:
            if spec[0] == "default":
                out.append(default)
            elif spec[0] == "fixed":
                out.append(spec[1])
            else:
                out.append(group[spec[1]])
        return tuple(out)

    def get_lr_parameter(self, param: Any) -> Any:
        """The learning rate of a Parameter (or a list of them): a 0-d float32 Tensor
        when fixed, the Parameter of a list's values, or the schedule Cell."""
        params = param if isinstance(param, list) else [param]
        if not isinstance(param, Parameter | list):
            raise TypeError(
                "For 'get_lr_parameter', the 'param' must be 'Parameter' or 'list' type, but "
                f"got {type(param).__name__}."
            )
        out = []
        for p in params:
            at = next((i for i, q in enumerate(self.parameters) if q is p), None)
            if at is None:
                raise ValueError(
                    f"For 'get_lr_parameter', the parameter {getattr(p, 'name', p)} is not in "
                    "optimizer, please check whether the argument 'param' is correct."
                )
            spec = self._lr_specs[at] if self.is_group_lr else ("default",)
            if spec[0] == "fixed":
                lr = spec[1]
            elif spec[0] == "schedule":
                lr = self.group_learning_rates[spec[1]]
            else:
                lr = self.learning_rate
            if isinstance(lr, IteratorLearningRate):
                lr = lr.learning_rate
            elif isinstance(lr, float):
                lr = Tensor(np.array(lr, np.float32))
            out.append(lr)
        return out if isinstance(param, list) else out[0]

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
        """g + weight_decay * param, for the Parameters the decay filter (or their
        group's weight_decay > 0) selects."""
        return tuple(
            ops.add(g, ops.mul(p, wd)) if flag and wd != 0.0 else g
            for g, p, wd, flag in zip(
                gradients, self.parameters, self.weight_decays, self.decay_flags
            )
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
        if self._default_dynamic:  # the schedule's Cell call, traced in graph mode
            lr = self.learning_rate(self.global_step)
        group_lrs = ()
        if self._group_dynamic:
            for schedule in self.group_learning_rates:
                group_lrs = group_lrs + (schedule(self.global_step),)
        lrs = self.step_lrs(self.parameter_lrs(lr, group_lrs))
        for i in range(len(self.parameters)):
            self.update(i, gradients[i], lrs[i])
        return self.finish_step()

    def step_lrs(self, lrs: tuple[Any, ...]) -> tuple[Any, ...]:
        """`begin_step()` once, then `step_lr` once per distinct learning rate."""
        state = self.begin_step()
        done: dict[int, Any] = {}
        out = []
        for lr in lrs:
            if id(lr) not in done:
                done[id(lr)] = self.step_lr(lr, state)
            out.append(done[id(lr)])
        return tuple(out)

    def begin_step(self) -> Any:
        """What a step does before its updates (Adam advances its beta powers)."""
        return None

    def step_lr(self, lr: Any, state: Any) -> Any:
        """The learning rate the updates take, from the float or the schedule's value
        (Adam's is bias-corrected with the state `begin_step` returned)."""
        if isinstance(lr, int | float):
            return lr
        return ops.reshape(lr, ())

    def update(self, i: int, grad: Any, lr: Any) -> None:
        """Update Parameter `i` (and its state) with its gradient."""
        raise NotImplementedError(
            f"'{self.cls_name}' is the base class of optimizers; use nn.SGD, nn.Momentum or nn.Adam"
        )

    def extend_repr(self) -> str:
        lr = type(self.learning_rate).__name__ if self.dynamic_lr else self.learning_rate
        return f"learning_rate={lr}, weight_decay={self.weight_decay}"
