"""`Callback` and `RunContext`: how `Model.train` / `Model.eval` tell user code
where they are.

Model calls the MindSpore 2.x hooks (`on_train_begin`, `on_train_epoch_begin`,
`on_train_step_begin`, `on_train_step_end`, `on_train_epoch_end`,
`on_train_end`, and the `on_eval_*` ones); by default each calls its 1.x name
(`begin`, `epoch_begin`, `step_begin`, `step_end`, `epoch_end`, `end`), so a
callback may override either spelling. Callbacks are context managers, entered
for the whole of a train or eval call. `RunContext.original_args()` is the
dict of what the model knows (`cur_epoch_num`, `cur_step_num`, `batch_num`,
`net_outputs`, `train_network` ...), readable as attributes.
"""

from __future__ import annotations

from contextlib import ExitStack
from typing import Any


class Callback:
    """Base class of the callbacks; override the hooks of the stages you need."""

    def __enter__(self) -> Callback:
        return self

    def __exit__(self, *err: Any) -> None:
        """Release resources here if there are any."""

    # the 1.x names, which the 2.x hooks call by default
    def begin(self, run_context: RunContext) -> None: ...

    def epoch_begin(self, run_context: RunContext) -> None: ...

    def epoch_end(self, run_context: RunContext) -> None: ...

    def step_begin(self, run_context: RunContext) -> None: ...

    def step_end(self, run_context: RunContext) -> None: ...

    def end(self, run_context: RunContext) -> None: ...

    def on_train_begin(self, run_context: RunContext) -> None:
        self.begin(run_context)

    def on_train_epoch_begin(self, run_context: RunContext) -> None:
        self.epoch_begin(run_context)

    def on_train_epoch_end(self, run_context: RunContext) -> None:
        self.epoch_end(run_context)

    def on_train_step_begin(self, run_context: RunContext) -> None:
        self.step_begin(run_context)

    def on_train_step_end(self, run_context: RunContext) -> None:
        self.step_end(run_context)

    def on_train_end(self, run_context: RunContext) -> None:
        self.end(run_context)

    def on_eval_begin(self, run_context: RunContext) -> None:
        self.begin(run_context)

    def on_eval_epoch_begin(self, run_context: RunContext) -> None:
        self.epoch_begin(run_context)

    def on_eval_epoch_end(self, run_context: RunContext) -> None:
        self.epoch_end(run_context)

    def on_eval_step_begin(self, run_context: RunContext) -> None:
        self.step_begin(run_context)

    def on_eval_step_end(self, run_context: RunContext) -> None:
        self.step_end(run_context)

    def on_eval_end(self, run_context: RunContext) -> None:
        self.end(run_context)


def as_callback_list(callbacks: Any) -> list[Callback]:
    """None, a Callback, or a list/tuple of them, as a list (each checked)."""
    if callbacks is None:
        return []
    if isinstance(callbacks, Callback):
        return [callbacks]
    if isinstance(callbacks, list | tuple):
        for cb in callbacks:
            if not isinstance(cb, Callback):
                raise TypeError(
                    "When the 'callbacks' is a list, the elements in 'callbacks' must be Callback "
                    f"functions, but got {type(cb).__name__}."
                )
        return list(callbacks)
    raise TypeError(
        f"The 'callbacks' is not a Callback or a list of Callback, but got {type(callbacks).__name__}."
    )


class CallbackManager:
    """The callbacks of one call, in order: entered together, each hook called on all."""

    def __init__(self, callbacks: list[Callback]):
        self._callbacks = callbacks
        self._stack: ExitStack | None = None

    def __enter__(self) -> CallbackManager:
        self._stack = ExitStack().__enter__()
        entered = []
        for cb in self._callbacks:
            target = self._stack.enter_context(cb)  # a Callback's __enter__ may return another
            entered.append(target if isinstance(target, Callback) else cb)
        self._callbacks = entered
        return self

    def __exit__(self, *err: Any) -> Any:
        assert self._stack is not None
        return self._stack.__exit__(*err)

    @property
    def callbacks(self) -> list[Callback]:
        return list(self._callbacks)

    def __getattr__(self, hook: str) -> Any:
        if not hook.startswith("on_"):
            raise AttributeError(hook)

        def call_all(run_context: RunContext) -> None:
            for cb in self._callbacks:
                getattr(cb, hook)(run_context)

        return call_all


class InternalCallbackParam(dict):
    """The model's facts, as a dict whose keys read as attributes."""

    def __getattr__(self, key: str) -> Any:
        try:
            return self[key]
        except KeyError:
            raise AttributeError(
                f"RunContext.original_args() has no {key!r}; it has {sorted(self)}"
            ) from None

    def __setattr__(self, key: str, value: Any) -> None:
        self[key] = value


class RunContext:
    """What a callback gets: `original_args()` and `request_stop()`."""

    def __init__(self, original_args: dict):
        if not isinstance(original_args, dict):
            raise TypeError(
                "The argument 'original_args' of RunContext should be dict type, but got "
                f"{type(original_args)}."
            )
        self._original_args = original_args
        self._stop_requested = False

    def original_args(self) -> dict:
        return self._original_args

    def request_stop(self) -> None:
        """Stop the training (or evaluation) after the current step."""
        self._stop_requested = True

    def get_stop_requested(self) -> bool:
        return self._stop_requested
