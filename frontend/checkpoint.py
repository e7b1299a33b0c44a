"""`ms.save_checkpoint` and `ms.load_checkpoint`: MindSpore's checkpoint files.

The files are MindSpore's own, so a checkpoint moves both ways between mindjit
and MindSpore: `.ckpt` (its protobuf message, checkpoint_proto.py) and
`format="safetensors"` (checkpoint_safetensors.py). Arguments, defaults,
exception types and messages follow MindSpore 2.x's `train/serialization.py`
(the checks: checkpoint_checks.py): the suffix is added on save when missing
and required on load, a missing or malformed file is a ValueError
(`CheckpointError`, located at the file), `choice_func` picks names both ways,
and the deprecated `specify_prefix` / `filter_prefix` override it on load (for
safetensors too, where MindSpore ignores them).

A file is written whole or not at all (`write_atomic`: a crash mid-save leaves
the previous checkpoint, never half of one). The values are read under the
Parameters' locks (frontend/graph/parameter_locks.py), so a save beside a
compiled call in another thread sees each Parameter before or after that call.

What MindSpore does but mindjit does not is an error naming it, not silence:
encryption (`enc_key`, `dec_key`), `async_save`, MapParameter entries, and a
str (an `append_dict` value) in a safetensors file. `integrated_save` and
`remove_redundancy` only mean something in parallel training, which mindjit
does not run: checked, recorded (safetensors metadata), otherwise no effect.
"""

from __future__ import annotations

import logging
import math
import os
from collections import OrderedDict
from typing import Any

import numpy as np

from mindjit.frontend import checkpoint_safetensors as safetensors
from mindjit.frontend import dtype as D
from mindjit.frontend.checkpoint_checks import (
    check_append_dict,
    check_async_save,
    check_bool,
    check_choice_func,
    check_prefix,
    check_type,
    defaults_only,
    prefix_allows,
)
from mindjit.frontend.checkpoint_net import load_param_into_net
from mindjit.frontend.checkpoint_proto import (
    CheckpointError,
    Entry,
    crc_matches,
    decode,
    encode,
    strip_crc,
)
from mindjit.frontend.graph.parameter_locks import holding, locks_of
from mindjit.frontend.nn.cell import Cell
from mindjit.frontend.tensor import Parameter, Tensor
from mindjit.support.files import write_atomic

_log = logging.getLogger(__name__)
_BY_TYPE = {d.ms_name: d for d in D.ALL}
#: MindSpore's tensor types mindjit has no dtype for
_FOREIGN_TYPES = ("BFloat16", "Int4")
_SAVE_KWARGS = ("incremental", "global_step_num", "remove_redundancy")


# -- save ------------------------------------------------------------------------------------


def save_checkpoint(
    save_obj: Any,
    ckpt_file_name: str,
    integrated_save: bool = True,
    async_save: bool | str = False,
    append_dict: dict[str, Any] | None = None,
    enc_key: bytes | None = None,
    enc_mode: str = "AES-GCM",
    choice_func: Any = None,
    crc_check: bool = False,
    format: str = "ckpt",  # noqa: A002 (MindSpore's keyword)
    **kwargs: Any,
) -> None:
    """Save a Cell's Parameters, a list of Parameters or of {"name", "data"} dicts,
    or a dict of name -> Parameter (what `load_checkpoint` returns) to a file."""
    path = _save_path(save_obj, ckpt_file_name, format)
    check_bool("save_checkpoint", "integrated_save", integrated_save)
    check_async_save(async_save)
    check_append_dict(append_dict)
    check_type("save_checkpoint", "enc_key", enc_key, (type(None), bytes), "None or bytes")
    check_type("save_checkpoint", "enc_mode", enc_mode, str, "str")
    check_bool("save_checkpoint", "crc_check", crc_check)
    check_choice_func("save_checkpoint", choice_func)
    unknown = sorted(set(kwargs) - set(_SAVE_KWARGS))
    if unknown:
        raise TypeError(f"save_checkpoint() got an unexpected keyword argument '{unknown[0]}'")
    if format == "safetensors":
        defaults_only(
            "save_checkpoint",
            enc_key=enc_key,
            enc_mode=enc_mode,
            incremental=kwargs.get("incremental", False),
            global_step_num=kwargs.get("global_step_num"),
        )
    elif enc_key is not None:
        raise NotImplementedError(
            "For 'save_checkpoint', encryption ('enc_key') is not supported by mindjit; "
            "save without 'enc_key'"
        )
    if async_save:
        raise NotImplementedError(
            f"For 'save_checkpoint', async_save={async_save!r} is not supported by mindjit; "
            "save with async_save=False (the file is complete when the call returns)"
        )
    redundancy = kwargs.get("remove_redundancy")
    check_type("save_checkpoint", "remove_redundancy", redundancy, (type(None), bool), "bool")
    data: OrderedDict[str, Any] = OrderedDict(_named_data(save_obj, choice_func))
    for key, value in (append_dict or {}).items():
        data[key] = value if isinstance(value, str | Tensor) else Tensor(value)
    _write(path, data, format, redundancy, crc_check)


def _write(path: str, data: dict[str, Any], kind: str, redundancy: Any, crc: bool) -> None:
    """Write `data` (name -> Tensor or str) as a `kind` ("ckpt" or "safetensors") file."""
    params = [v for v in data.values() if isinstance(v, Parameter)]
    if kind == "ckpt":
        with holding(locks_of(params)):  # each value as one compiled call leaves it
            entries = [_entry(name, value) for name, value in data.items()]
        write_atomic(path, encode(entries, crc_check=crc))
        return
    strs = [name for name, value in data.items() if isinstance(value, str)]
    if strs:
        raise ValueError(
            f"For 'save_checkpoint', a safetensors file holds tensors only, but '{strs[0]}' "
            "is a str; save it with format='ckpt'"
        )
    with holding(locks_of(params)):
        arrays = {name: np.array(value.asnumpy()) for name, value in data.items()}
    write_atomic(path, safetensors.encode(arrays, _metadata(arrays, redundancy, crc)))


def _metadata(arrays: dict[str, np.ndarray], redundancy: Any, crc_check: bool) -> dict | None:
    """MindSpore's safetensors metadata (none for an empty file, as it writes it)."""
    if not arrays:
        return None
    meta = {"format": "ms"}
    if redundancy is not None:
        meta["remove_redundancy"] = str(redundancy)
    if crc_check:
        meta["crc_num"] = str(safetensors.crc(arrays))
    return meta


def _save_path(save_obj: Any, name: Any, format: str) -> str:  # noqa: A002
    if format not in ("safetensors", "ckpt"):
        raise ValueError(
            f"For 'save_checkpoint', the format must be 'safetensors' or 'ckpt', but got {format}."
        )
    if not isinstance(save_obj, Cell | list | dict):
        raise TypeError(
            "For 'save_checkpoint', the parameter 'save_obj' must be nn.Cell, list or dict, "
            f"but got {type(save_obj)}."
        )
    if not isinstance(name, str):
        raise TypeError(
            f"For 'save_checkpoint', the parameter {name} for checkpoint file name is invalid, "
            f"'ckpt_file_name' must be string, but got {type(name)}."
        )
    if os.path.isdir(name):
        raise IsADirectoryError(
            f"For 'save_checkpoint', the parameter `ckpt_file_name`: {name} is a directory, "
            "it must be a file name."
        )
    return name if name.endswith(f".{format}") else f"{name}.{format}"


def _named_data(save_obj: Any, choice_func: Any) -> list[tuple[str, Any]]:
    """(name, Tensor or str) of what `save_obj` holds, as `choice_func` picks."""

    def chosen(name: str) -> bool:
        return choice_func is None or bool(choice_func(name))

    if isinstance(save_obj, Cell):
        found = (p for _, p in save_obj.parameters_and_names())
        return [(p.name, p) for p in found if chosen(p.name)]
    if isinstance(save_obj, dict):
        out = []
        for key, value in save_obj.items():
            if not isinstance(key, str) or not isinstance(value, Tensor | str | np.ndarray):
                raise TypeError(
                    "For save_checkpoint, when save_obj is made up by dict, the key should be str "
                    f"and value should be Parameter, but got the type of key is {type(key)} and "
                    f"the type of value is {type(value)}"
                )
            if chosen(key):
                out.append((key, Tensor(value) if isinstance(value, np.ndarray) else value))
        return out
    if save_obj and isinstance(save_obj[0], dict):
        out = []
        for item in save_obj:
            if not isinstance(item, dict) or "name" not in item or "data" not in item:
                raise TypeError(
                    "For save_checkpoint, save_obj should be a list of dict items, and the dict "
                    f"should have key values 'name' and 'data', but got {type(item)} and {item}."
                )
            if not isinstance(item["name"], str):
                raise TypeError(
                    "For save_checkpoint, when save_obj is a list of dict items, the name in dict "
                    f"should be string, but got {type(item['name'])}."
                )
            if not isinstance(item["data"], Tensor):
                raise TypeError(
                    "For save_checkpoint, when save_obj is a list of dict items, the data in dict "
                    f"should be parameter, but got {type(item['data'])}."
                )
            if chosen(item["name"]):
                out.append((item["name"], item["data"]))
        return out
    for param in save_obj:
        if not isinstance(param, Parameter):
            raise TypeError(
                "For save_checkpoint, when save_obj is made up by list of Parameter, "
                f"the param should be parameter, but got {type(param)}"
            )
    return [(p.name, p) for p in save_obj if chosen(p.name)]


def _entry(name: str, value: Any) -> tuple[str, list[int], str, bytes]:
    """(tag, dims, tensor_type, content) as MindSpore writes a Tensor or a str."""
    if isinstance(value, str):
        return name, [0], "str", np.array(value, dtype=f"<U{max(len(value), 1)}").tobytes()
    arr = value.asnumpy()
    dtype = D.from_numpy(arr.dtype)
    raw = np.ascontiguousarray(arr, dtype=arr.dtype.newbyteorder("<")).tobytes()
    return name, list(arr.shape), dtype.ms_name, raw


# -- load ------------------------------------------------------------------------------------


def load_checkpoint(
    ckpt_file_name: str,
    net: Any = None,
    strict_load: bool = False,
    filter_prefix: Any = None,
    dec_key: bytes | None = None,
    dec_mode: str = "AES-GCM",
    specify_prefix: Any = None,
    choice_func: Any = None,
    crc_check: bool = False,
    remove_redundancy: bool = False,
    format: str = "ckpt",  # noqa: A002 (MindSpore's keyword)
) -> dict[str, Any]:
    """The checkpoint's entries, name -> Parameter (or str, for a str saved with
    `append_dict`); loaded into `net` too when one is given."""
    specify = check_prefix(specify_prefix)
    filtered = check_prefix(filter_prefix)
    check_type("load_checkpoint", "dec_key", dec_key, (type(None), bytes), "None or bytes")
    check_type("load_checkpoint", "dec_mode", dec_mode, str, "str")
    check_bool("load_checkpoint", "crc_check", crc_check)
    check_bool("load_checkpoint", "remove_redundancy", remove_redundancy)
    check_choice_func("load_checkpoint", choice_func)
    if format == "safetensors":
        defaults_only("load_checkpoint", dec_key=dec_key, dec_mode=dec_mode)
    elif dec_key is not None:
        raise NotImplementedError(
            "For 'load_checkpoint', decryption ('dec_key') is not supported by mindjit"
        )
    path = _load_path(ckpt_file_name, format)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as exc:
        raise CheckpointError(f"cannot read the checkpoint file: {exc.strerror}", path) from None
    read = _read_safetensors if format == "safetensors" else _read_ckpt
    loaded: dict[str, Any] = {}
    for name, value in read(data, path, crc_check):
        if specify is not None or filtered is not None:
            if not prefix_allows(specify, filtered, name):
                continue
        elif choice_func is not None and not choice_func(name):
            continue
        loaded[name] = value()
    if not loaded:
        raise CheckpointError(
            "The loaded parameter dict is empty after filter or specify, please check whether "
            "'filter_prefix' or 'specify_prefix' are set correctly.",
            path,
        )
    if net is not None:
        load_param_into_net(net, loaded, strict_load, remove_redundancy)
    return loaded


def _read_ckpt(data: bytes, path: str, crc_check: bool) -> list[tuple[str, Any]]:
    """(name, a function making its value) of a .ckpt file's entries: a value is
    made only if chosen (an entry mindjit cannot load may be filtered out)."""
    body, crc = strip_crc(data)
    if crc_check and crc is None:
        _log.warning(
            "For 'load_checkpoint', the ckpt file %s does not contain the crc code, "
            "please check the file.",
            path,
        )
    if crc_check and crc is not None and not crc_matches(body, crc):
        raise CheckpointError(
            "For 'load_checkpoint', the crc check is failed, please check whether the ckpt "
            "file is damaged.",
            path,
        )
    return [(e.tag, lambda e=e: _value(e, path)) for e in decode(body, path)]


def _read_safetensors(data: bytes, path: str, crc_check: bool) -> list[tuple[str, Any]]:
    metadata, arrays = safetensors.decode(data, path)
    if crc_check:
        recorded = metadata.get("crc_num")
        if recorded is None:
            _log.warning(
                "For 'load_checkpoint', the safetensors file %s does not contain the crc code, "
                "please check the file.",
                path,
            )
        elif str(safetensors.crc(arrays)) != recorded:
            raise CheckpointError(
                "For 'load_checkpoint', the crc check has failed. Please check whether the ckpt "
                "file is damaged.",
                path,
            )
    return [
        (name, lambda name=name: Parameter(Tensor(arrays[name]), name=name))
        for name in sorted(arrays)
    ]


def _load_path(name: Any, format: str) -> str:  # noqa: A002
    if not isinstance(name, str):
        raise TypeError(
            f"For 'load_checkpoint', the argument 'ckpt_file_name' must be string, but got "
            f"{type(name)}."
        )
    if format not in ("ckpt", "safetensors"):
        raise ValueError(
            "For 'load_checkpoint', the checkpoint file should end with '.ckpt' or "
            f"'.safetensors', please input the correct 'ckpt_file_name' (got format {format!r})."
        )
    if not name.endswith(f".{format}"):
        raise ValueError(
            "For 'load_checkpoint', the checkpoint file format must same with 'format', but got "
            f"file_name:'{name}', format:'{format}'"
        )
    if not os.path.exists(name):
        raise CheckpointError(
            f"For 'load_checkpoint', the checkpoint file: {name} does not exist, please check "
            "whether the 'ckpt_file_name' is correct.",
            name,
        )
    return name


def _value(entry: Entry, path: str) -> Any:
    """The Parameter (or str) an entry holds."""
    if entry.map_tensor:
        raise CheckpointError(
            f"'{entry.tag}' is a MapParameter (maptensor), which mindjit cannot load", path
        )
    content = entry.content
    if entry.tensor_type == "str":
        try:
            if len(content) % 4:
                raise UnicodeDecodeError("utf-32-le", content, 0, len(content), "length")
            return content.decode("utf-32-le").rstrip("\0")  # numpy's str: no trailing NULs
        except UnicodeDecodeError:
            raise CheckpointError(
                f"the str '{entry.tag}' is not UTF-32 text ({len(content)} bytes)", path
            ) from None
    dtype = _BY_TYPE.get(entry.tensor_type)
    if dtype is None:
        known = ", ".join(_BY_TYPE)
        kind = "a MindSpore type" if entry.tensor_type in _FOREIGN_TYPES else "an unknown type"
        raise CheckpointError(
            f"'{entry.tag}' has tensor type '{entry.tensor_type}', {kind} mindjit has no dtype "
            f"for (mindjit loads {known} and str)",
            path,
        )
    little = dtype.numpy.newbyteorder("<")
    dims = entry.dims
    if dims == [0] and len(content) == little.itemsize:
        dims = []  # a 0-d tensor as MindSpore 1.x wrote it
    need = math.prod(dims) * little.itemsize
    if len(content) != need:
        raise CheckpointError(
            f"'{entry.tag}' holds {len(content)} bytes of {entry.tensor_type} data, but its shape "
            f"{tuple(dims)} needs {need}",
            path,
        )
    if dtype is D.bool_:
        arr = np.frombuffer(content, np.uint8) != 0
    else:
        arr = np.frombuffer(content, little).astype(dtype.numpy)
    return Parameter(Tensor(arr.reshape(dims)), name=entry.tag)
