"""`ms.jit` and `ms.jit_class`, as MindSpore 2.x spells them.

    @ms.jit                      # on a function or on construct
    @ms.jit(jit_config=JitConfig(jit_level="O0"))
    train_step = ms.jit(train_step)

A @jit function is compiled to a graph on first call (per input signature) and
run by the CPU executor, in GRAPH_MODE and in PYNATIVE_MODE alike.
"""

from __future__ import annotations

import functools
import types
import warnings
from typing import Any

from mindjit.frontend.context import JitConfig
from mindjit.frontend.grad_tape import recording
from mindjit.frontend.graph import api
from mindjit.frontend.nn import Cell


def jit(
    function: Any = None,
    *,
    jit_config: Any = None,
    jit_level: str = "",
    backend: str = "",
    **options: Any,
) -> Any:
    """Compile `function` to a graph when called. `jit_level` and `backend` (MindSpore
    2.6's keywords) override the JitConfig's; `backend` is "numpy" (the CPU
    executor) or "iree". Other `options` (mode, input_signature, hash_args,
    compile_once ...) are MindSpore's and are accepted but not needed here."""
    if function is None:
        return lambda fn: jit(
            fn, jit_config=jit_config, jit_level=jit_level, backend=backend, **options
        )
    if not callable(function):
        raise TypeError(f"jit expects a function, got {type(function).__name__}")
    if jit_level or backend:
        jit_config = _with_overrides(jit_config, jit_level, backend)

    @functools.wraps(function)
    def compiled(*args: Any, **kwargs: Any) -> Any:

        if recording():  # a PyNative gradient's forward: op by op, on its tape
            return function(*args, **kwargs)

        if args and isinstance(args[0], Cell) and function.__name__ == "construct":
            return api.run_cell(args[0], args[1:], kwargs)
        if not isinstance(function, types.FunctionType | types.MethodType):
            # a callable object (`ms.grad(f)`, `ms.vmap(f)`, a Cell): the graph calls it
            return api.run_function(
                call_object, (function, *args), kwargs, jit_config, owner=compiled
            )
        return api.run_function(function, args, kwargs, jit_config, owner=compiled)

    compiled.__ms_jit__ = True  # type: ignore[attr-defined]
    compiled.__ms_jit_config__ = jit_config  # type: ignore[attr-defined]
    return compiled


def call_object(function: Any, *args: Any, **kwargs: Any) -> Any:
    """The graph `jit` compiles for a callable that is not a Python function."""
    return function(*args, **kwargs)


def _with_overrides(jit_config: Any, jit_level: str, backend: str) -> JitConfig:
    """`jit_config` (a JitConfig, a dict or None) with jit's own keywords on top."""
    given = getattr(jit_config, "jit_config_dict", None) or dict(jit_config or {})
    merged = {**given}
    if jit_level:
        merged["jit_level"] = jit_level
    if backend:
        merged["backend"] = backend
    return JitConfig(**merged)


def jit_class(cls: type) -> type:
    """Mark a user class whose methods graph mode compiles (not for nn.Cell)."""

    if not isinstance(cls, type):
        raise TypeError(f"Decorator jit_class can only be used for class type, but got {cls}.")
    if issubclass(cls, Cell):
        raise TypeError(
            f"Decorator jit_class is used for user-defined classes and cannot be used for "
            f"nn.Cell: {cls.__name__}<>."
        )
    cls.__ms_class__ = True  # type: ignore[attr-defined]
    return cls


def _deprecated(old: str, new: str) -> None:
    warnings.warn(
        f"'mindspore.{old}' will be deprecated and removed in a future version. "
        f"Please use 'mindspore.{new}' instead.",
        DeprecationWarning,
        stacklevel=3,
    )


def ms_function(
    fn: Any = None, input_signature: Any = None, hash_args: Any = None, jit_config: Any = None
) -> Any:
    """`ms.ms_function`, MindSpore's deprecated name of `jit` (still in 2.5): a
    DeprecationWarning, then `jit`."""
    _deprecated("ms_function", "jit")
    return jit(fn, jit_config=jit_config, input_signature=input_signature, hash_args=hash_args)


def ms_class(cls: type) -> type:
    """`ms.ms_class`, MindSpore's deprecated name of `jit_class`."""
    _deprecated("ms_class", "jit_class")
    return jit_class(cls)
