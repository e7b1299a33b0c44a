"""`LambdaCallback(on_train_epoch_end=fn, ...)`: a callback made of functions, one
per hook (each gets the RunContext); a hook not given does nothing. As in
MindSpore, the functions replace the 2.x hooks, so the 1.x names are not called."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mindjit.frontend.train.callback.callback import Callback

HOOKS = (
    "on_train_epoch_begin",
    "on_train_epoch_end",
    "on_train_step_begin",
    "on_train_step_end",
    "on_train_begin",
    "on_train_end",
    "on_eval_epoch_begin",
    "on_eval_epoch_end",
    "on_eval_step_begin",
    "on_eval_step_end",
    "on_eval_begin",
    "on_eval_end",
)


def _nothing(run_context: Any) -> None:
    return None


class LambdaCallback(Callback):
    def __init__(
        self,
        on_train_epoch_begin: Callable[[Any], Any] | None = None,
        on_train_epoch_end: Callable[[Any], Any] | None = None,
        on_train_step_begin: Callable[[Any], Any] | None = None,
        on_train_step_end: Callable[[Any], Any] | None = None,
        on_train_begin: Callable[[Any], Any] | None = None,
        on_train_end: Callable[[Any], Any] | None = None,
        on_eval_epoch_begin: Callable[[Any], Any] | None = None,
        on_eval_epoch_end: Callable[[Any], Any] | None = None,
        on_eval_step_begin: Callable[[Any], Any] | None = None,
        on_eval_step_end: Callable[[Any], Any] | None = None,
        on_eval_begin: Callable[[Any], Any] | None = None,
        on_eval_end: Callable[[Any], Any] | None = None,
    ):
        super().__init__()
        given = locals()
        for hook in HOOKS:
            fn = given[hook]
            if fn is not None and not callable(fn):
                raise TypeError(
                    f"For 'LambdaCallback', the argument '{hook}' must be callable, but got "
                    f"{type(fn).__name__}."
                )
            setattr(self, hook, fn or _nothing)
