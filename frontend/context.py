"""`set_context` / `get_context` and the environment switches, with MindSpore's names.

One module owns every knob the user can turn (context keys and `MS_*` environment
variables), so the compiler reads them through the helpers at the bottom instead
of parsing `os.environ` in many places. Values are validated when they are set
(context) or read (environment), with errors that name the key.
"""

from __future__ import annotations

import os
from typing import Any

GRAPH_MODE = 0
PYNATIVE_MODE = 1

JIT_LEVELS = ("O0", "O1", "O2")
DEVICE_TARGETS = ("CPU", "Ascend")
DEFAULT_CACHE_PATH = "./mindjit_cache"
DEFAULT_CACHE_MAX_BYTES = 1 << 30

_DEFAULTS: dict[str, Any] = {
    "mode": PYNATIVE_MODE,  # MindSpore 2.x default
    "device_target": "CPU",
    "device_id": 0,
    "jit_config": {},
    "enable_compile_cache": None,  # None: MS_COMPILER_CACHE_ENABLE decides
    "compile_cache_path": None,  # None: MS_COMPILER_CACHE_PATH decides
    "compile_cache_max_bytes": None,  # None: MINDJIT_COMPILE_CACHE_MAX_BYTES decides
    "save_graphs": None,  # None: MS_DEV_SAVE_GRAPHS decides
    "save_graphs_path": None,  # None: MS_DEV_SAVE_GRAPHS_PATH decides
    "max_call_depth": 1000,
    "pynative_synchronize": False,
}

_context: dict[str, Any] = dict(_DEFAULTS)


def _check_mode(value: Any) -> int:
    if isinstance(value, bool) or value not in (GRAPH_MODE, PYNATIVE_MODE):
        raise ValueError(
            "For 'set_context', the argument 'mode' should be context.GRAPH_MODE (0) "
            f"or context.PYNATIVE_MODE (1), but got {value!r}."
        )
    return int(value)


def _check_device(value: Any) -> str:
    if value not in DEVICE_TARGETS:
        raise ValueError(
            f"For 'set_context', 'device_target' must be one of {list(DEVICE_TARGETS)}, "
            f"but got {value!r}."
        )
    return value


def check_jit_level(value: Any) -> str:
    if value not in JIT_LEVELS:
        raise ValueError(f"'jit_level' must be one of {list(JIT_LEVELS)}, but got {value!r}.")
    return value


def _check_jit_config(value: Any) -> dict[str, str]:
    if not isinstance(value, dict):
        raise TypeError(f"For 'set_context', 'jit_config' must be a dict, but got {value!r}.")
    if "jit_level" in value:
        check_jit_level(value["jit_level"])
    return dict(value)


def _check_bool(key: str) -> Any:
    def check(value: Any) -> bool:
        if not isinstance(value, bool):
            raise TypeError(f"For 'set_context', '{key}' must be a bool, but got {value!r}.")
        return value

    return check


def _check_str(key: str) -> Any:
    def check(value: Any) -> str:
        if not isinstance(value, str):
            raise TypeError(f"For 'set_context', '{key}' must be a str, but got {value!r}.")
        return value

    return check


def _check_int(key: str) -> Any:
    def check(value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise TypeError(
                f"For 'set_context', '{key}' must be a non-negative int, but got {value!r}."
            )
        return value

    return check


def _check_save_graphs(value: Any) -> int:
    """MindSpore accepts a bool or a level 0..3; any non-zero level dumps here."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int) and 0 <= value <= 3:
        return value
    raise ValueError(f"For 'set_context', 'save_graphs' must be a bool or 0..3, got {value!r}.")


_CHECKS = {
    "mode": _check_mode,
    "device_target": _check_device,
    "device_id": _check_int("device_id"),
    "jit_config": _check_jit_config,
    "enable_compile_cache": _check_bool("enable_compile_cache"),
    "compile_cache_path": _check_str("compile_cache_path"),
    "compile_cache_max_bytes": _check_int("compile_cache_max_bytes"),
    "save_graphs": _check_save_graphs,
    "save_graphs_path": _check_str("save_graphs_path"),
    "max_call_depth": _check_int("max_call_depth"),
    "pynative_synchronize": _check_bool("pynative_synchronize"),
}


def set_context(**kwargs: Any) -> None:
    """Set global options; every key is checked before any is applied."""
    checked: dict[str, Any] = {}
    for key, value in kwargs.items():
        check = _CHECKS.get(key)
        if check is None:
            raise ValueError(
                f"For 'set_context', the keyword argument '{key}' is not recognized! "
                f"Supported keys: {', '.join(sorted(_CHECKS))}."
            )
        checked[key] = check(value)
    _context.update(checked)


def get_context(attr_key: str) -> Any:
    if attr_key not in _context:
        raise ValueError(
            f"For 'get_context', the argument '{attr_key}' is not recognized! "
            f"Supported keys: {', '.join(sorted(_context))}."
        )
    value = _context[attr_key]
    return dict(value) if isinstance(value, dict) else value


def reset_context() -> None:
    """Back to the defaults (tests use this; MindSpore has no public equivalent)."""
    _context.clear()
    _context.update(_DEFAULTS)


# --- environment ------------------------------------------------------------------


def env_int(name: str, default: int, allowed: range | tuple[int, ...] | None = None) -> int:
    """An integer environment switch; unset or empty gives `default`, junk is an error."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ValueError(f"environment variable {name} must be an integer, got {raw!r}") from None
    if allowed is not None and value not in allowed:
        raise ValueError(f"environment variable {name} must be one of {list(allowed)}, got {value}")
    return value


def env_str(name: str, default: str) -> str:
    raw = os.environ.get(name, "")
    return raw if raw else default


def cell_reuse_level() -> int:
    """MS_DEV_CELL_REUSE: 0 lazy inline off, 1/2 on; unset means 1 (mindjit keeps
    lazy-inline graphs by default, where MindSpore needs the variable set)."""
    return env_int("MS_DEV_CELL_REUSE", 1, (0, 1, 2))


def load_elim_level() -> int:
    """MS_DEV_SIDE_EFFECT_LOAD_ELIM: 0..3, default 1 (conservative)."""
    return env_int("MS_DEV_SIDE_EFFECT_LOAD_ELIM", 1, (0, 1, 2, 3))


def save_graphs_enabled() -> bool:
    """set_context(save_graphs=...) wins over MS_DEV_SAVE_GRAPHS."""
    value = _context["save_graphs"]
    if value is None:
        value = env_int("MS_DEV_SAVE_GRAPHS", 0)
    return bool(value)


def save_graphs_path() -> str:
    value = _context["save_graphs_path"]
    return value if value is not None else env_str("MS_DEV_SAVE_GRAPHS_PATH", "./graphs")


def compile_cache_enabled() -> bool:
    value = _context["enable_compile_cache"]
    if value is None:
        value = env_int("MS_COMPILER_CACHE_ENABLE", 0, (0, 1))
    return bool(value)


def compile_cache_path() -> str:
    value = _context["compile_cache_path"]
    return value if value is not None else env_str("MS_COMPILER_CACHE_PATH", DEFAULT_CACHE_PATH)


def compile_cache_max_bytes() -> int:
    """The cache directory's size bound; the least recently used entries go first."""
    value = _context["compile_cache_max_bytes"]
    if value is None:
        value = env_int("MINDJIT_COMPILE_CACHE_MAX_BYTES", DEFAULT_CACHE_MAX_BYTES)
        if value < 0:
            raise ValueError("environment variable MINDJIT_COMPILE_CACHE_MAX_BYTES must be >= 0")
    return value


def jit_level() -> str:
    """The context's jit_level (a Cell's or jit's JitConfig overrides it)."""
    return _context["jit_config"].get("jit_level", "O1")


# --- JitConfig --------------------------------------------------------------------

_JIT_CHOICES: dict[str, tuple[str, ...]] = {
    "jit_level": JIT_LEVELS,
    "exec_mode": ("auto", "sink", "no_sink"),
    "jit_syntax_level": ("", "STRICT", "COMPATIBLE", "LAX"),
    "debug_level": ("RELEASE", "DEBUG"),
    "infer_boost": ("on", "off"),
}


class JitConfig:
    """Per-graph compile options: `ms.jit(fn, jit_config=JitConfig(jit_level="O0"))`.

    Like MindSpore, the options live in `jit_config_dict` (all str); extra keyword
    arguments are kept there unchecked.
    """

    def __init__(
        self,
        jit_level: str = "O1",
        exec_mode: str = "auto",
        jit_syntax_level: str = "",
        debug_level: str = "RELEASE",
        infer_boost: str = "off",
        **kwargs: Any,
    ):
        given = {
            "jit_level": jit_level,
            "exec_mode": exec_mode,
            "jit_syntax_level": jit_syntax_level,
            "debug_level": debug_level,
            "infer_boost": infer_boost,
        }
        for key, value in given.items():
            choices = _JIT_CHOICES[key]
            if value not in choices:
                raise ValueError(
                    f"For 'JitConfig', '{key}' must be one of {list(choices)}, but got {value!r}."
                )
        self.jit_config_dict: dict[str, Any] = {**given, **kwargs}

    @property
    def jit_level(self) -> str:
        return self.jit_config_dict["jit_level"]

    def __repr__(self) -> str:
        return f"JitConfig({self.jit_config_dict})"
