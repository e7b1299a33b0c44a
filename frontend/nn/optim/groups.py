"""Parameter groups: `params` given as a list of dicts, as MindSpore reads them.

    [{'params': conv_params, 'weight_decay': 0.01},
     {'params': other_params, 'lr': 0.01},
     {'order_params': net.trainable_params()}]

- 'params' (required): the group's Parameters;
- 'lr' (optional): the group's learning rate, any form the optimizer takes
  (fixed or dynamic); else the optimizer's `learning_rate`;
- 'weight_decay' (optional): the group's decay, applied to every Parameter of the
  group when > 0 (no 'beta'/'gamma' name filter once parameters are grouped);
  else the optimizer's `weight_decay`;
- 'grad_centralization': accepted when False (mindjit does not centralize);
- 'order_params' (a dict of its own): the order of the Parameters in the
  optimizer (and of the gradients it takes); it must list each grouped
  Parameter exactly once.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from mindjit.frontend.tensor import Parameter

GROUP_KEYS = ["params", "lr", "weight_decay", "order_params", "grad_centralization"]
UNSET = object()


@dataclass(frozen=True)
class Grouped:
    """The Parameters in the optimizer's order, with their group's settings
    (UNSET: the optimizer's own), and the group number of each."""

    params: tuple[Parameter, ...]
    lrs: tuple[Any, ...]
    weight_decays: tuple[Any, ...]
    group_of: tuple[int, ...]
    has_lr: bool


def _group_params(value: Any, owner: str) -> list[Parameter]:
    if isinstance(value, Parameter) or not isinstance(value, Iterable):
        raise TypeError(
            f"For '{owner}', the 'params' of a parameter group must be a list of Parameters, "
            f"but got {type(value).__name__}."
        )
    params = list(value)
    for index, p in enumerate(params):
        if not isinstance(p, Parameter):
            raise TypeError(
                f"For '{owner}', the element in group parameters must be Parameter type, but "
                f"got {type(p).__name__} at index {index}."
            )
    return params


def parse_groups(groups: list[dict], owner: str) -> Grouped:
    params: list[Parameter] = []
    lrs: list[Any] = []
    decays: list[Any] = []
    group_of: list[int] = []
    order: list[Parameter] | None = None
    has_lr = False
    for number, group in enumerate(groups):
        if not isinstance(group, dict):
            raise TypeError(
                f"For '{owner}', 'params' must be all Parameters or all dicts (parameter "
                f"groups), got a {type(group).__name__} among dicts"
            )
        invalid = [k for k in group if k not in GROUP_KEYS]
        if invalid:
            raise KeyError(
                f"For '{owner}', the key in group params must be one of in {GROUP_KEYS}, but "
                f"got {invalid}."
            )
        if "order_params" in group:
            if len(group) > 1:
                raise ValueError(
                    f"For '{owner}', the order params dict in group parameters should only "
                    f"include the 'order_params' key, but got {list(group)}."
                )
            if not isinstance(group["order_params"], Iterable):
                raise TypeError(
                    f"For '{owner}', the value of 'order_params' in group parameters should be "
                    f"Iterable type, but got {type(group['order_params']).__name__}."
                )
            order = list(group["order_params"])
            continue
        if "params" not in group:
            raise KeyError(f"For '{owner}', a parameter group must have the key 'params'.")
        if group.get("grad_centralization", False) is not False:
            raise ValueError(
                f"For '{owner}', 'grad_centralization' is not supported by mindjit (False only)."
            )
        has_lr = has_lr or "lr" in group
        for p in _group_params(group["params"], owner):
            if any(p is q for q in params):
                raise RuntimeError(
                    f"For '{owner}', the {p.name} parameter already exists, it does not support "
                    "repeated setting. Please check whether the optimizer parameter has been "
                    "set multiple times."
                )
            params.append(p)
            lrs.append(group.get("lr", UNSET))
            decays.append(group.get("weight_decay", UNSET))
            group_of.append(number)
    if not params:
        raise ValueError(f"For '{owner}', the argument 'params' must not be empty.")
    if order is not None:
        if len(order) != len(params):
            raise ValueError(
                f"For '{owner}', the length of order parameters must be the same as the length "
                f"of group parameters, but got order parameters' length {len(order)}, group "
                f"parameters' length {len(params)}."
            )
        index = []
        for p in order:
            at = next((i for i, q in enumerate(params) if q is p), None)
            if at is None or at in index:
                raise ValueError(
                    f"For '{owner}', the order parameter '{getattr(p, 'name', p)}' must be a "
                    "Parameter of one group, listed once."
                )
            index.append(at)
        params, lrs, decays, group_of = (
            [xs[i] for i in index] for xs in (params, lrs, decays, group_of)
        )
    return Grouped(tuple(params), tuple(lrs), tuple(decays), tuple(group_of), has_lr)
