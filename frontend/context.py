"""`set_context` / `get_context` and `JitConfig`: MindSpore's names for the switches.

The context itself, the environment variables and how they combine live in the
bottom layer (`mindjit.support.config`), where the compiler reads them; this is
the user's side of them.
"""

from __future__ import annotations

from typing import Any

from mindjit.driver.queries import check_device_available
from mindjit.support.config import (
    BACKENDS,
    GRAPH_MODE,
    JIT_LEVELS,
    PYNATIVE_MODE,
    ParallelMode,
    check_jit_level,
    get_auto_parallel_context,
    get_context,
    reset_auto_parallel_context,
    reset_context,
    reset_distributed,
    set_auto_parallel_context,
)
from mindjit.support.config import set_context as _set_context
from mindjit.support.config import set_distributed as _set_distributed

__all__ = [
    "GRAPH_MODE",
    "PYNATIVE_MODE",
    "JitConfig",
    "ParallelMode",
    "check_jit_level",
    "get_auto_parallel_context",
    "get_context",
    "reset_auto_parallel_context",
    "reset_context",
    "reset_distributed",
    "set_auto_parallel_context",
    "set_context",
    "set_distributed",
]


def set_context(**kwargs: Any) -> None:
    """MindSpore's `set_context`: every key is checked before any is applied, and
    device_target="GPU" needs a GPU IREE can open (else a RuntimeError saying so)."""
    if kwargs.get("device_target") == "GPU":
        check_device_available("GPU")
    _set_context(**kwargs)


def set_distributed(
    engine: str | None = None,
    address: str | None = None,
    cpus_per_actor: float | None = None,
    start_timeout: float | None = None,
) -> None:
    """What runs pipeline stages and data-parallel replicas: "local" (threads of this
    process, the default) or "ray" (Ray actors; `pip install 'mindjit[ray]'`). The
    environment's `MINDJIT_DISTRIBUTED=ray` does the same for an unchanged script.
    See `mindjit.support.config.set_distributed` for the other arguments; "ray"
    without Ray installed is an error naming the extra."""
    _set_distributed(engine, address, cpus_per_actor, start_timeout)


# --- JitConfig --------------------------------------------------------------------

_JIT_CHOICES: dict[str, tuple[str, ...]] = {
    "jit_level": JIT_LEVELS,
    "exec_mode": ("auto", "sink", "no_sink"),
    "jit_syntax_level": ("", "STRICT", "COMPATIBLE", "LAX"),
    "debug_level": ("RELEASE", "DEBUG"),
    "infer_boost": ("on", "off"),
    "backend": ("", *BACKENDS),
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
        backend: str = "",
        **kwargs: Any,
    ):
        given = {
            "jit_level": jit_level,
            "exec_mode": exec_mode,
            "jit_syntax_level": jit_syntax_level,
            "debug_level": debug_level,
            "infer_boost": infer_boost,
            "backend": backend,
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
