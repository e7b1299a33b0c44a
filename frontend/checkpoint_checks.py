"""The argument checks of save_checkpoint and load_checkpoint: MindSpore's
exception types and messages (train/serialization.py), one function per rule."""

from __future__ import annotations

from typing import Any

from mindjit.frontend.tensor import Tensor


def check_type(api: str, name: str, value: Any, types: Any, what: str) -> None:
    if not isinstance(value, types):
        raise TypeError(
            f"For '{api}', the '{name}' must be {what}, but got {type(value).__name__}."
        )


def check_bool(api: str, name: str, value: Any) -> None:
    if not isinstance(value, bool):
        raise TypeError(f"For '{api}', the '{name}' must be bool, but got {type(value).__name__}.")


def check_choice_func(api: str, choice_func: Any) -> None:
    if choice_func is not None and not callable(choice_func):
        raise TypeError(
            f"For '{api}', 'choice_func' must be a function of a parameter name, but got "
            f"{type(choice_func).__name__}."
        )


def check_async_save(async_save: Any) -> None:
    if not isinstance(async_save, bool | str):
        raise TypeError(
            "For 'save_checkpoint', the parameter 'async_save' must be bool or str, "
            f"but got {type(async_save)}."
        )
    if isinstance(async_save, str) and async_save not in ("process", "thread"):
        raise ValueError(
            "For 'save_checkpoint', the argument 'async_save' can only be 'process' or "
            f"'thread', but got {async_save}."
        )


def check_append_dict(append_dict: Any) -> None:
    if append_dict is None:
        return
    if not isinstance(append_dict, dict):
        raise TypeError(
            f"For 'save_checkpoint', the argument 'append_dict' must be dict, but got "
            f"{type(append_dict)}."
        )
    for key, value in append_dict.items():
        if not isinstance(key, str) or not isinstance(value, int | float | bool | str | Tensor):
            raise TypeError(
                "For 'save_checkpoint', the type of dict 'append_info' must be key: string, "
                "value: int, float, bool, str, Parameter or Tensor, but got key: "
                f"{type(key)}, value: {type(value)}"
            )


def check_prefix(prefix: Any) -> tuple[str, ...] | None:
    if prefix is None:
        return None
    if not isinstance(prefix, str | list | tuple):
        raise TypeError(
            "For 'load_checkpoint', the type of 'specify_prefix' or 'filter_prefix' must be "
            f"string, list[string] or tuple[string], but got {type(prefix)}."
        )
    prefixes = (prefix,) if isinstance(prefix, str) else tuple(prefix)
    if not prefixes:
        raise ValueError(
            "For 'load_checkpoint', the argument 'specify_prefix' or 'filter_prefix' can't be "
            "empty when 'specify_prefix' or 'filter_prefix' is list or tuple."
        )
    for index, pre in enumerate(prefixes):
        if not isinstance(pre, str):
            raise TypeError(
                "For 'load_checkpoint', when 'specify_prefix' or 'filter_prefix' is list or "
                f"tuple, the element in it must be string, but got {type(pre)} at index {index}."
            )
        if pre == "":
            raise ValueError(
                "For 'load_checkpoint', the value of 'specify_prefix' or 'filter_prefix' "
                "can't include ''."
            )
    return prefixes


def prefix_allows(
    specify: tuple[str, ...] | None, filtered: tuple[str, ...] | None, name: str
) -> bool:
    if specify and not name.startswith(specify):
        return False
    return not (filtered and name.startswith(filtered))


def defaults_only(api: str, **given: Any) -> None:
    """MindSpore's rule for format='safetensors': these options keep their defaults."""
    defaults = {"enc_key": None, "dec_key": None, "enc_mode": "AES-GCM", "dec_mode": "AES-GCM"}
    defaults |= {"incremental": False, "global_step_num": None}
    for name, value in given.items():
        if value != defaults[name]:
            raise ValueError(
                f"For '{api}', when format is 'safetensors', the parameter '{name}' must be set "
                f"to default value '{defaults[name]}', but got '{value}'."
            )
