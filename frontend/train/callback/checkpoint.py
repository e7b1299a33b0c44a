"""`ModelCheckpoint(prefix='CKP', directory=None, config=None)` and
`CheckpointConfig`: save the training network's Parameters (the optimizer's
state included, as in MindSpore) with `ms.save_checkpoint` every
`save_checkpoint_steps` steps (or `save_checkpoint_seconds`) and at the end,
as `<prefix>-<epoch>_<step in epoch>.ckpt`, keeping the newest
`keep_checkpoint_max` files. The rules are MindSpore's `_checkpoint.py`: a
prefix already used in the directory becomes `<prefix>_1`, `_2` ...;
`append_info` adds "epoch_num" / "step_num" / a dict to each file;
`exception_save` writes `<prefix>-<epoch>_<step>_breakpoint.ckpt` when
training raises (Model does that). MindSpore's `-graph.meta` file is not
written."""

from __future__ import annotations

import os
import time
from typing import Any

from mindjit.frontend.checkpoint import save_checkpoint
from mindjit.frontend.nn.cell import Cell
from mindjit.frontend.tensor import Tensor
from mindjit.frontend.train.callback.callback import Callback, RunContext

_INFO = ("epoch_num", "step_num")


def _non_negative_int(value: Any, name: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(
            f"For 'CheckpointConfig', the argument '{name}' must be int, but got "
            f"{type(value).__name__}."
        )
    if value < 0:
        raise ValueError(
            f"For 'CheckpointConfig', the argument '{name}' must be int and >= 0, but got {value}."
        )
    return value


def _bool(value: Any, name: str) -> bool:
    if not isinstance(value, bool):
        raise TypeError(
            f"For 'CheckpointConfig', the type of '{name}' should be bool, but got "
            f"{type(value).__name__}."
        )
    return value


def _append_dict(append_info: Any) -> dict[str, Any] | None:
    if append_info is None or append_info == []:
        return None
    if not isinstance(append_info, list):
        raise TypeError(
            "For 'CheckpointConfig', the type of 'append_info' must be list, but got "
            f"{type(append_info)}."
        )
    out: dict[str, Any] = {name: 0 for name in _INFO if name in append_info}
    dicts = [e for e in append_info if isinstance(e, dict)]
    if len(dicts) > 1:
        raise TypeError(
            "For 'CheckpointConfig', the element of 'append_info' must has only one dict, "
            f"but got {len(dicts)}"
        )
    for element in append_info:
        if isinstance(element, str) and element not in _INFO:
            raise ValueError(
                "For 'CheckpointConfig', the value of element in the argument 'append_info' "
                f"must be in {list(_INFO)}, but got {element}."
            )
        if not isinstance(element, str | dict):
            raise TypeError(
                "For 'CheckpointConfig', the type of 'append_info' element must be str or dict, "
                f"but got {type(element)}."
            )
    for key, value in (dicts[0] if dicts else {}).items():
        if not isinstance(key, str) or not isinstance(value, int | float | bool | str | Tensor):
            raise TypeError(
                "For 'CheckpointConfig', the key type of the dict 'append_info' must be string, "
                "the value type must be int or float or bool, but got key type "
                f"{type(key)}, value type {type(value)}"
            )
        out[key] = value
    return out


class CheckpointConfig:
    """When to save and how many files to keep (MindSpore's arguments and defaults)."""

    def __init__(
        self,
        save_checkpoint_steps: int | None = 1,
        save_checkpoint_seconds: int | None = 0,
        keep_checkpoint_max: int | None = 5,
        keep_checkpoint_per_n_minutes: int | None = 0,
        integrated_save: bool = True,
        async_save: bool = False,
        saved_network: Cell | None = None,
        append_info: list | None = None,
        enc_key: bytes | None = None,
        enc_mode: str = "AES-GCM",
        exception_save: bool = False,
        **kwargs: Any,
    ):
        steps = _non_negative_int(save_checkpoint_steps, "save_checkpoint_steps")
        seconds = _non_negative_int(save_checkpoint_seconds, "save_checkpoint_seconds")
        keep_max = _non_negative_int(keep_checkpoint_max, "keep_checkpoint_max")
        minutes = _non_negative_int(keep_checkpoint_per_n_minutes, "keep_checkpoint_per_n_minutes")
        if saved_network is not None and not isinstance(saved_network, Cell):
            raise TypeError(
                "For 'CheckpointConfig', the type of 'saved_network' must be None or Cell, "
                f"but got {type(saved_network)}."
            )
        if not steps and not seconds and not keep_max and not minutes:
            raise ValueError(
                "For 'CheckpointConfig', the input arguments 'save_checkpoint_steps', "
                "'save_checkpoint_seconds', 'keep_checkpoint_max' and "
                "'keep_checkpoint_per_n_minutes' can't be all None or 0."
            )
        self.exception_save = _bool(exception_save, "exception_save")
        self._save_checkpoint_steps = steps
        self._save_checkpoint_seconds = None if steps else seconds
        self._keep_checkpoint_max = keep_max
        self._keep_checkpoint_per_n_minutes = None if keep_max else minutes
        if not keep_max and not minutes:
            self._keep_checkpoint_max = 1
        self._integrated_save = _bool(integrated_save, "integrated_save")
        self._async_save = async_save
        self._saved_network = saved_network
        self._append_dict = _append_dict(append_info)
        if enc_key is not None and not isinstance(enc_key, bytes):
            raise TypeError(
                f"For 'CheckpointConfig', 'enc_key' must be None or bytes, but got {type(enc_key)}."
            )
        self._enc_key, self._enc_mode = enc_key, enc_mode

    save_checkpoint_steps = property(lambda self: self._save_checkpoint_steps)
    save_checkpoint_seconds = property(lambda self: self._save_checkpoint_seconds)
    keep_checkpoint_max = property(lambda self: self._keep_checkpoint_max)
    keep_checkpoint_per_n_minutes = property(lambda self: self._keep_checkpoint_per_n_minutes)
    integrated_save = property(lambda self: self._integrated_save)
    async_save = property(lambda self: self._async_save)
    saved_network = property(lambda self: self._saved_network)
    append_dict = property(lambda self: self._append_dict)
    enc_key = property(lambda self: self._enc_key)
    enc_mode = property(lambda self: self._enc_mode)

    def get_checkpoint_policy(self) -> dict[str, Any]:
        return {
            "save_checkpoint_steps": self.save_checkpoint_steps,
            "save_checkpoint_seconds": self.save_checkpoint_seconds,
            "keep_checkpoint_max": self.keep_checkpoint_max,
            "keep_checkpoint_per_n_minutes": self.keep_checkpoint_per_n_minutes,
            "saved_network": self.saved_network,
        }


def _is_ckpt_of(filename: str, prefix: str) -> bool:
    """`<prefix>-<digits, '-' and '_'>.ckpt`: one of this prefix's files."""
    if not (filename.endswith(".ckpt") and filename.startswith(prefix + "-")):
        return False
    return not any(c.isalpha() for c in filename[len(prefix) : -5])


def _free_prefix(directory: str, prefix: str) -> str:
    """`prefix`, or `prefix_<n>` when the directory already has checkpoints of it."""
    suffix = 0
    for filename in os.listdir(directory):
        if not filename.endswith(".ckpt") or filename.endswith("_breakpoint.ckpt"):
            continue
        rest = filename[len(prefix) :]
        if not filename.startswith(prefix) or not rest or rest[0].isalpha():
            continue
        dash = rest.find("-")
        if dash == 0:
            suffix = max(suffix, 1)
        elif dash > 1 and rest[1:dash].isdigit():
            suffix = max(suffix, int(rest[1:dash]) + 1)
    return f"{prefix}_{suffix}" if suffix else prefix


def _directory(directory: Any) -> str:
    if not isinstance(directory, str):
        raise ValueError(
            f"For 'ModelCheckpoint', the argument 'directory' must be str, but got {directory!r}."
        )
    path = os.path.realpath(directory)
    if os.path.exists(path) and not os.path.isdir(path):
        raise ValueError(f"For 'ModelCheckpoint', the directory {directory!r} is a file.")
    os.makedirs(path, exist_ok=True)
    return path


class ModelCheckpoint(Callback):
    def __init__(self, prefix: str = "CKP", directory: str | None = None, config: Any = None):
        super().__init__()
        if not isinstance(prefix, str) or "/" in prefix:
            raise ValueError(
                "For 'ModelCheckpoint', the argument 'prefix' for checkpoint file name is "
                f"invalid, it must be string and does not contain '/', but got {prefix!r}."
            )
        if config is None:
            config = CheckpointConfig()
        elif not isinstance(config, CheckpointConfig):
            raise TypeError(
                "For 'ModelCheckpoint', the type of argument 'config' should be "
                f"'CheckpointConfig', but got {type(config)}."
            )
        self._config = config
        self._directory = _directory(os.getcwd() if directory is None else directory)
        self._exception_prefix = prefix
        self._prefix = _free_prefix(self._directory, prefix)
        self._append_dict = dict(config.append_dict or {})
        self._latest_ckpt_file_name = ""
        self._last_triggered_step = 0
        self._last_time = self._last_time_for_keep = time.time()
        self._saved: list[str] = []

    def step_end(self, run_context: RunContext) -> None:
        self._save_ckpt(run_context.original_args())

    def end(self, run_context: RunContext) -> None:
        self._save_ckpt(run_context.original_args(), force=True)

    # eval runs no checkpointing: only the train hooks call the 1.x names above
    def on_eval_step_end(self, run_context: RunContext) -> None: ...

    def on_eval_end(self, run_context: RunContext) -> None: ...

    @property
    def latest_ckpt_file_name(self) -> str:
        return self._latest_ckpt_file_name

    def _due(self, step: int, force: bool) -> bool:
        steps, seconds = self._config.save_checkpoint_steps, self._config.save_checkpoint_seconds
        if steps:
            return force or step >= self._last_triggered_step + steps
        if seconds:
            now = time.time()
            if force or now - self._last_time > seconds:
                self._last_time = now
                return True
        return False

    def _save_ckpt(self, cb_params: Any, force: bool = False) -> None:
        step = cb_params.cur_step_num
        if step == self._last_triggered_step or not self._due(step, force):
            return
        step_in_epoch = (step - 1) % cb_params.batch_num + 1
        path = os.path.join(
            self._directory, f"{self._prefix}-{cb_params.cur_epoch_num}_{step_in_epoch}.ckpt"
        )
        self._make_room()
        if "epoch_num" in self._append_dict:
            self._append_dict["epoch_num"] = cb_params.cur_epoch_num
        if "step_num" in self._append_dict:
            self._append_dict["step_num"] = step
        self.save(cb_params, path)
        self._last_triggered_step = step
        self._last_time_for_keep = time.time()
        self._latest_ckpt_file_name = path
        if path in self._saved:
            self._saved.remove(path)
        self._saved.append(path)

    def save(self, cb_params: Any, path: str) -> None:
        network = self._config.saved_network or cb_params.train_network
        save_checkpoint(
            network,
            path,
            self._config.integrated_save,
            self._config.async_save,
            self._append_dict or None,
            self._config.enc_key,
            self._config.enc_mode,
        )

    def _make_room(self) -> None:
        """Remove the oldest files of this prefix beyond keep_checkpoint_max (or keep one
        per keep_checkpoint_per_n_minutes)."""
        files = [
            os.path.join(self._directory, f)
            for f in os.listdir(self._directory)
            if _is_ckpt_of(f, self._prefix)
        ]
        order = {p: i for i, p in enumerate(self._saved)}  # ties in mtime: the save order
        files.sort(key=lambda p: (os.path.getmtime(p), order.get(p, -1)))
        keep_max = self._config.keep_checkpoint_max
        minutes = self._config.keep_checkpoint_per_n_minutes
        if keep_max and 0 < keep_max <= len(files):
            for path in files[: len(files) - keep_max + 1]:
                os.remove(path)
        elif minutes:
            now = time.time()
            if now - self._last_time_for_keep < minutes * 60:
                recent = [p for p in files if now - os.path.getmtime(p) < 60 * minutes]
                for path in recent[1:]:
                    os.remove(path)

    def breakpoint_file(self, epoch: int, step_in_epoch: int) -> str:
        """Where `exception_save` writes (Model.train calls it when training raises)."""
        return os.path.join(
            self._directory, f"{self._exception_prefix}-{epoch}_{step_in_epoch}_breakpoint.ckpt"
        )
