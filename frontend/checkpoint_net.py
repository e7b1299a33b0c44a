"""`ms.load_param_into_net`: a checkpoint's values into a network's Parameters.

MindSpore's rules (train/serialization.py): a Parameter takes the entry of its
name; with `strict_load=False` a net whose names lack a prefix the checkpoint's
have (`backbone.` ...) still loads (the prefix is found from the first name that
ends a checkpoint name), and a float (or int) entry of another width is
converted, with a warning. A shape that differs is a RuntimeError, except extra
trailing 1-dims in the checkpoint (GE's 4-d tensors), which are dropped. str
entries (`append_dict`) are left alone. It returns `(param_not_load,
ckpt_not_load)`: the net's names not loaded and the checkpoint's not used.

Two differences, both deliberate: every entry is checked before any Parameter
changes, so a mismatch leaves the net as it was (MindSpore had loaded the
Parameters before it); and a name loaded through a prefix leaves
`ckpt_not_load`, as its documentation says (MindSpore's list kept it).

Values go in through `Parameter.set_data`, under the Parameters' locks, so a
compiled graph reads them on its next call and no call runs half before.
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np

from mindjit.frontend.graph.parameter_locks import holding, locks_of
from mindjit.frontend.nn.cell import Cell
from mindjit.frontend.tensor import Parameter

_log = logging.getLogger(__name__)


def load_param_into_net(
    net: Any, parameter_dict: Any, strict_load: bool = False, remove_redundancy: bool = False
) -> tuple[list[str], list[str]]:
    """Load `parameter_dict` (name -> Parameter, as `load_checkpoint` returns) into
    `net`; returns `(param_not_load, ckpt_not_load)`."""
    _check(net, parameter_dict)
    if not isinstance(strict_load, bool):
        raise TypeError(
            f"For 'load_param_into_net', the 'strict_load' must be bool, but got "
            f"{type(strict_load).__name__}."
        )
    if not isinstance(remove_redundancy, bool):
        raise TypeError(
            f"For 'load_param_into_net', the 'remove_redundancy' must be bool, but got "
            f"{type(remove_redundancy).__name__}."
        )
    if remove_redundancy:
        raise TypeError(
            "The deduplication feature for loading checkpoint can only be used in parallel "
            "scenarios, but got stand_alone."
        )
    plan: list[tuple[Parameter, np.ndarray]] = []
    used: set[str] = set()
    not_loaded: list[str] = []
    for _, param in net.parameters_and_names():
        if param.name in parameter_dict:
            new = parameter_dict[param.name]
            if isinstance(new, Parameter):  # a str or a MapParameter's list: left alone
                plan.append((param, _converted(param, new, strict_load)))
                used.add(param.name)
        elif not param.name.startswith("accu_grads"):  # MindSpore's gradient accumulators
            not_loaded.append(param.name)
    if not_loaded and not strict_load:
        _load_by_prefix(net, parameter_dict, not_loaded, strict_load, plan, used)
    with holding(locks_of(param for param, _ in plan)):
        for param, value in plan:
            param.set_data(value)
    if not_loaded:
        _log.warning(
            "For 'load_param_into_net', %d parameters in the 'net' are not loaded, because they "
            "are not in the 'parameter_dict', please check whether the network structure is "
            "consistent when training and loading checkpoint.",
            len(not_loaded),
        )
        _log.warning("%s are not loaded.", not_loaded)
    return not_loaded, [name for name in parameter_dict if name not in used]


def _check(net: Any, parameter_dict: Any) -> None:
    if not isinstance(net, Cell):
        raise TypeError(
            f"For 'load_param_into_net', the argument 'net' should be a Cell, but got {type(net)}."
        )
    if not isinstance(parameter_dict, dict):
        raise TypeError(
            "For 'load_param_into_net', the argument 'parameter_dict' should be a dict, "
            f"but got {type(parameter_dict)}."
        )
    for key, value in parameter_dict.items():
        if not isinstance(key, str) or not isinstance(value, Parameter | str | list):
            raise TypeError(
                "For 'parameter_dict', the element in the argument 'parameter_dict' should be a "
                f"'str' and 'Parameter' , but got {type(key)} and {type(value)}."
            )


def _load_by_prefix(
    net: Cell,
    parameter_dict: dict[str, Any],
    not_loaded: list[str],
    strict_load: bool,
    plan: list[tuple[Parameter, np.ndarray]],
    used: set[str],
) -> None:
    """MindSpore's second pass: the first checkpoint name ending a name not loaded
    gives a prefix; every name not loaded that the prefix completes loads; repeat."""
    while not_loaded:
        prefix = next(
            (
                key[: -len(name)]
                for name in not_loaded
                for key, value in parameter_dict.items()
                if key != name and key.endswith(name) and isinstance(value, Parameter)
            ),
            None,
        )
        if prefix is None:
            return
        _log.warning(
            "For 'load_param_into_net', remove parameter prefix name: %s, continue to load.",
            prefix,
        )
        for _, param in net.parameters_and_names():
            key = prefix + param.name
            new = parameter_dict.get(key)
            if param.name in not_loaded and isinstance(new, Parameter):
                plan.append((param, _converted(param, new, strict_load)))
                not_loaded.remove(param.name)
                used.add(key)


def _converted(param: Parameter, new: Parameter, strict_load: bool) -> np.ndarray:
    """The value `param` takes from `new`, or MindSpore's RuntimeError."""
    value = new.asnumpy()
    if value.shape != param.shape:
        extra = value.shape[len(param.shape) :]
        if value.ndim > param.ndim and all(d == 1 for d in extra):
            return value.reshape(param.shape).astype(param.asnumpy().dtype)
        raise RuntimeError(
            f"For 'load_param_into_net', {param.name} in the argument 'net' should have the same "
            f"shape as {param.name} in the argument 'parameter_dict'. But got its shape "
            f"{param.shape} in the argument 'net' and shape {new.shape} in the argument "
            "'parameter_dict'. May you need to check whether the checkpoint you loaded is correct "
            "or the batch size and so on in the 'net' and 'parameter_dict' are same."
        )
    if new.dtype != param.dtype:
        kinds = {new.dtype.numpy.kind, param.dtype.numpy.kind}
        if not strict_load and kinds in ({"f"}, {"i"}):
            _log.warning(
                "The type of %s:%s in 'parameter_dict' is different from the type of it in "
                "'net':%s, then the type convert from %s to %s in the network.",
                new.name,
                new.dtype,
                param.dtype,
                new.dtype,
                param.dtype,
            )
            return value.astype(param.asnumpy().dtype)
        raise RuntimeError(
            f"For 'load_param_into_net', {param.name} in the argument 'net' should have the same "
            f"type as {param.name} in the argument 'parameter_dict'. but got its type "
            f"{param.dtype} in the argument 'net' and type {new.dtype} in the argument "
            "'parameter_dict'. May you need to check whether the checkpoint you loaded is correct."
        )
    return value
