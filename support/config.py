"""Every switch a user can turn, resolved in one place with one precedence.

A switch is set, from the strongest to the weakest:

1. at the call: a pass option written in a pipeline (`mindir-load-elim{level=2}`),
   a tool's flag, a `JitConfig` given to `jit` or to a Cell;
2. by `set_context(...)` (MindSpore's context; only the keys it has);
3. by its environment variable (MindSpore's `MS_*` names, mindjit's `MINDJIT_*`);
4. by its default.

| switch | context key | environment | default | meaning |
| --- | --- | --- | --- | --- |
| mode | `mode` | | PYNATIVE_MODE | graph or PyNative mode |
| device_target | `device_target` | | CPU | CPU, GPU (IREE's CUDA target) or the simulated Ascend device |
| jit_level | `jit_config["jit_level"]` | | O1 | which mindir pipeline (O0, O1, O2) |
| backend | `jit_config["backend"]` | `MINDJIT_BACKEND` | numpy | what runs a CPU graph: the numpy executor, IREE, or auto (numpy at once, IREE once compiled if it measures faster: backend/auto) |
| iree_driver | | `MINDJIT_IREE_DRIVER` | local-sync | IREE's CPU runtime: the calling thread, or local-task (a thread pool) |
| gemm | | `MINDJIT_GEMM` | auto | the numpy executor's matmuls (backend/cpu/gemm.py): auto (per shape, the faster of oneMKL and numpy), numpy, mkl |
| gemm_threads | | `MKL_NUM_THREADS`, else `OMP_NUM_THREADS` | the machine's cores | oneMKL's and oneDNN's threads (1: oneMKL's sequential layer) |
| conv | | `MINDJIT_CONV` | auto | the numpy executor's convolutions (backend/cpu/kernels_conv.py): auto (per shape, the fastest of oneDNN's and numpy's ways), numpy, dnnl |
| gemm_threading | | `MKL_THREADING_LAYER` (oneMKL's) | SEQUENTIAL for 1 thread, else INTEL | oneMKL's threading layer: INTEL, SEQUENTIAL, GNU or TBB |
| trial_cache | | `MINDJIT_TRIAL_CACHE` | `$XDG_CACHE_HOME/mindjit/trials` (else `~/.cache/mindjit/trials`) | where the gemm and conv trials' choices are kept for the next process (backend/cpu/trial_record.py); 0: in this process only |
| keep_freed_memory | | `MINDJIT_KEEP_FREED_MEMORY` | 1 | the first CPU executable raises glibc's malloc mmap/trim thresholds, so fresh arrays reuse freed pages (backend/cpu/allocator.py) |
| cpu_codegen | `set_cpu_codegen(...)` | `MINDJIT_CPU_CODEGEN` | 1 | the numpy executor compiles fused elementwise linalg.generic bodies to machine code with llvmlite (backend/cpu/codegen_llvm.py); 0: numpy calls only |
| cell_reuse | | `MS_DEV_CELL_REUSE` | 1 | lazy inline: 0 off, 1 keep calls, 2 inline late |
| load_elim | | `MS_DEV_SIDE_EFFECT_LOAD_ELIM` | 1 | TensorMove policy 0-3 |
| cf_to_select | | `MINDJIT_CF_TO_SELECT` | 1 | run mindir-cf-to-select at O1/O2 |
| verify_each | | `MINDJIT_VERIFY_EACH` | 0 | verify after every pass of a compile |
| save_graphs | `save_graphs` | `MS_DEV_SAVE_GRAPHS` | 0 | dump the IR after every stage |
| save_graphs_path | `save_graphs_path` | `MS_DEV_SAVE_GRAPHS_PATH` | ./graphs | where |
| compile_cache | `enable_compile_cache` | `MS_COMPILER_CACHE_ENABLE` | 0 | the compile cache |
| compile_cache_path | `compile_cache_path` | `MS_COMPILER_CACHE_PATH` | ./mindjit_cache | where |
| compile_cache_max_bytes | `compile_cache_max_bytes` | `MINDJIT_COMPILE_CACHE_MAX_BYTES` | 1 GiB | its size bound |
| debug | | `MINDJIT_DEBUG` | 0 | tools show tracebacks of internal errors |
| parallel_mode | `set_auto_parallel_context(parallel_mode=)` | | stand_alone | `ParallelMode`: pipeline stages need semi_auto_parallel or auto_parallel |
| pipeline_stages | `set_auto_parallel_context(pipeline_stages=)` | | 1 | X, the stages `Cell.pipeline_stage` numbers 0..X-1 |
| pipeline_config | `set_auto_parallel_context(pipeline_config=)` | | 1f1b | `{"pipeline_scheduler": "1f1b" or "gpipe"}` the stage graphs' order (mindir-pipeline-schedule) and the simulated devices' schedule |
| device_num, global_rank | `set_auto_parallel_context(...)` | | 1, 0 | the simulated devices and this one's rank; with parallel_mode data_parallel on the CPU, N replicas (`data_parallel_replicas`) |
| gradients_mean | `set_auto_parallel_context(...)` | | False | data parallel: TrainOneStepCell's grad reducer divides the summed gradients by N |
| full_batch | `set_auto_parallel_context(...)` | | False | kept for MindSpore scripts; nothing reads it yet |
| distributed | `set_distributed(engine=)` | `MINDJIT_DISTRIBUTED` | local | what runs pipeline stages and replicas: threads of this process (local) or Ray actors (ray) |
| distributed_address | `set_distributed(address=)` | `RAY_ADDRESS` (Ray's) | | the Ray cluster to join; none: a running local one, else a new one on this machine |
| distributed_cpus, distributed_timeout | `set_distributed(cpus_per_actor=, start_timeout=)` | | 0.5, 60 | each actor's CPU request (fractions share cores); the bounded wait for the actors to start |

The auto-parallel keys are MindSpore's second context (`set_auto_parallel_context`,
`get_auto_parallel_context`, `reset_auto_parallel_context`): separate keys and
errors from `set_context`'s, as in MindSpore, but stored here too and part of
`context_snapshot` and of the compile cache key (the stage split will read them).

A bad value is a `ConfigError` naming the key or variable (a `MindjitError`, and
a `ValueError` as MindSpore raises for a bad context value). Nothing else in
mindjit reads `os.environ` for these: passes take pass options, and the
pipelines the compiler builds carry the resolved values as explicit options
(`CompileOptions.pass_options`), so a compile's dumps and cache keys say exactly
what ran.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mindjit.support.errors import MindjitError

GRAPH_MODE = 0
PYNATIVE_MODE = 1

JIT_LEVELS = ("O0", "O1", "O2")
DEVICE_TARGETS = ("CPU", "GPU", "Ascend")
BACKENDS = ("numpy", "iree", "auto")
DEFAULT_BACKEND = "numpy"
#: IREE's CPU runtime drivers, the default first: local-sync runs on the calling
#: thread; local-task's thread pool cost 0.4 ms per host sync on this 2-core
#: machine (the demo classifier, a tensor while: 536 us a call against 93 us)
IREE_DRIVERS = ("local-sync", "local-task")
CELL_REUSE_LEVELS = (0, 1, 2)
LOAD_ELIM_LEVELS = (0, 1, 2, 3)
DEFAULT_CACHE_PATH = "./mindjit_cache"
DEFAULT_CACHE_MAX_BYTES = 1 << 30
DEFAULT_SAVE_GRAPHS_PATH = "./graphs"

CELL_REUSE_ENV = "MS_DEV_CELL_REUSE"
LOAD_ELIM_ENV = "MS_DEV_SIDE_EFFECT_LOAD_ELIM"
CF_TO_SELECT_ENV = "MINDJIT_CF_TO_SELECT"
VERIFY_EACH_ENV = "MINDJIT_VERIFY_EACH"
BACKEND_ENV = "MINDJIT_BACKEND"
DISTRIBUTED_ENV = "MINDJIT_DISTRIBUTED"
#: what runs pipeline stages and data-parallel replicas, the default first
DISTRIBUTED_ENGINES = ("local", "ray")
RAY_MISSING = (
    "the distributed engine 'ray' needs Ray, which is not installed: pip install "
    "'mindjit[ray]' (or keep the default engine 'local': MINDJIT_DISTRIBUTED unset)"
)
IREE_DRIVER_ENV = "MINDJIT_IREE_DRIVER"
GEMM_ENV = "MINDJIT_GEMM"
#: how the numpy executor runs a matmul (backend/cpu/gemm.py), the default first
GEMM_MODES = ("auto", "numpy", "mkl")
#: the thread-count variables oneMKL itself honours, the stronger first
GEMM_THREAD_ENVS = ("MKL_NUM_THREADS", "OMP_NUM_THREADS")
GEMM_THREADING_ENV = "MKL_THREADING_LAYER"
#: oneMKL's threading layers, by the codes MKL_Set_Threading_Layer takes
GEMM_THREADING_LAYERS = {"INTEL": 0, "SEQUENTIAL": 1, "GNU": 3, "TBB": 4}
CONV_ENV = "MINDJIT_CONV"
#: how the numpy executor runs a convolution (backend/cpu/kernels_conv.py), the default first
CONV_MODES = ("auto", "numpy", "dnnl")
TRIAL_CACHE_ENV = "MINDJIT_TRIAL_CACHE"
#: the environment variables that set the BLAS, oneMKL and OpenMP thread counts (a
#: trial's choice holds for these settings only)
THREAD_ENVS = ("OPENBLAS_NUM_THREADS", *GEMM_THREAD_ENVS, GEMM_THREADING_ENV)
CPU_CODEGEN_ENV = "MINDJIT_CPU_CODEGEN"
KEEP_MEMORY_ENV = "MINDJIT_KEEP_FREED_MEMORY"


class ConfigError(MindjitError, ValueError):
    """A switch set to a value it cannot take."""


def choices(allowed: tuple[Any, ...]) -> str:
    """`0, 1 or 2`."""
    words = [str(a) for a in allowed]
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"


def parse_level(value: Any, allowed: tuple[int, ...], what: str) -> int:
    """`value` (an int or its text, surrounding spaces allowed) as one of `allowed`."""
    level = None
    if not isinstance(value, bool | float):
        try:
            level = int(value.strip() if isinstance(value, str) else value)
        except (TypeError, ValueError):
            level = None
    if level not in allowed:
        raise ConfigError(f"{what} must be {choices(allowed)}, got '{value}'")
    return level


# --- the context (set_context / get_context) -----------------------------------------

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

#: context keys that never change a compiled program (left out of cache keys)
NOT_COMPILE_OPTIONS = frozenset(
    {
        "enable_compile_cache",
        "compile_cache_path",
        "compile_cache_max_bytes",
        "save_graphs",
        "save_graphs_path",
    }
)

_context: dict[str, Any] = dict(_DEFAULTS)


def _check_mode(value: Any) -> int:
    if isinstance(value, bool) or value not in (GRAPH_MODE, PYNATIVE_MODE):
        raise ConfigError(
            "For 'set_context', the argument 'mode' should be context.GRAPH_MODE (0) "
            f"or context.PYNATIVE_MODE (1), but got {value!r}."
        )
    return int(value)


def _check_device(value: Any) -> str:
    if value not in DEVICE_TARGETS:
        raise ConfigError(
            f"For 'set_context', 'device_target' must be one of {list(DEVICE_TARGETS)}, "
            f"but got {value!r}."
        )
    return value


def check_jit_level(value: Any) -> str:
    if value not in JIT_LEVELS:
        raise ConfigError(f"'jit_level' must be one of {list(JIT_LEVELS)}, but got {value!r}.")
    return value


def check_backend(value: Any, what: str = "'backend'") -> str:
    """A backend name; MindSpore's empty string means the default."""
    if value not in BACKENDS:
        raise ConfigError(f"{what} must be one of {list(BACKENDS)}, but got {value!r}.")
    return value


def _check_jit_config(value: Any) -> dict[str, str]:
    if not isinstance(value, dict):
        raise TypeError(f"For 'set_context', 'jit_config' must be a dict, but got {value!r}.")
    if "jit_level" in value:
        check_jit_level(value["jit_level"])
    if value.get("backend"):
        check_backend(value["backend"])
    return dict(value)


def _check_type(key: str, kind: type, what: str) -> Callable[[Any], Any]:
    def check(value: Any) -> Any:
        bad = not isinstance(value, kind) or (kind is int and isinstance(value, bool))
        if bad or (kind is int and value < 0):
            raise TypeError(f"For 'set_context', '{key}' must be {what}, but got {value!r}.")
        return value

    return check


def _check_save_graphs(value: Any) -> int:
    """MindSpore accepts a bool or a level 0..3; any non-zero level dumps here."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int) and 0 <= value <= 3:
        return value
    raise ConfigError(f"For 'set_context', 'save_graphs' must be a bool or 0..3, got {value!r}.")


_CHECKS: dict[str, Callable[[Any], Any]] = {
    "mode": _check_mode,
    "device_target": _check_device,
    "device_id": _check_type("device_id", int, "a non-negative int"),
    "jit_config": _check_jit_config,
    "enable_compile_cache": _check_type("enable_compile_cache", bool, "a bool"),
    "compile_cache_path": _check_type("compile_cache_path", str, "a str"),
    "compile_cache_max_bytes": _check_type("compile_cache_max_bytes", int, "a non-negative int"),
    "save_graphs": _check_save_graphs,
    "save_graphs_path": _check_type("save_graphs_path", str, "a str"),
    "max_call_depth": _check_type("max_call_depth", int, "a non-negative int"),
    "pynative_synchronize": _check_type("pynative_synchronize", bool, "a bool"),
}


def _apply(api: str, checks: dict[str, Callable[[Any], Any]], store: dict, kwargs: dict) -> None:
    """MindSpore's setters: every key is checked before any is applied."""
    checked: dict[str, Any] = {}
    for key, value in kwargs.items():
        check = checks.get(key)
        if check is None:
            raise ConfigError(
                f"For '{api}', the keyword argument '{key}' is not recognized! "
                f"Supported keys: {', '.join(sorted(checks))}."
            )
        checked[key] = check(value)
    store.update(checked)


def _read(api: str, store: dict[str, Any], key: str) -> Any:
    """MindSpore's getters: a copy of a dict value, so the caller cannot change the store."""
    if key not in store:
        raise ConfigError(
            f"For '{api}', the argument '{key}' is not recognized! "
            f"Supported keys: {', '.join(sorted(store))}."
        )
    value = store[key]
    return dict(value) if isinstance(value, dict) else value


def set_context(**kwargs: Any) -> None:
    """Set context keys; every key is checked before any is applied."""
    _apply("set_context", _CHECKS, _context, kwargs)


def get_context(key: str) -> Any:
    return _read("get_context", _context, key)


def context_snapshot() -> dict[str, Any]:
    """Every context key's value and the auto-parallel context's, for
    `restore_context` (tests keep one test's `set_context` from reaching the next)."""
    snapshot = _copy(_context)
    snapshot[_AUTO_PARALLEL_KEY] = _copy(_auto_parallel)
    return snapshot


def restore_context(snapshot: dict[str, Any]) -> None:
    snapshot = dict(snapshot)
    auto = snapshot.pop(_AUTO_PARALLEL_KEY, None)
    _context.clear()
    _context.update(snapshot)
    if auto is not None:
        _auto_parallel.clear()
        _auto_parallel.update(_copy(auto))


def reset_context() -> None:
    """Back to the defaults, the auto-parallel context's too (tests use this;
    MindSpore has no public equivalent)."""
    _context.clear()
    _context.update(_DEFAULTS)
    reset_auto_parallel_context()


def context_fingerprint() -> tuple[tuple[str, str], ...]:
    """The context keys that can change a compiled program, as text (for cache keys);
    the auto-parallel keys are all in it (the stage split will read them)."""
    keys = [(k, repr(v)) for k, v in _context.items() if k not in NOT_COMPILE_OPTIONS]
    keys += [(f"auto_parallel.{k}", repr(v)) for k, v in _auto_parallel.items()]
    return tuple(sorted(keys))


# --- the auto-parallel context (set_auto_parallel_context) --------------------------------


class ParallelMode:
    """MindSpore's `ParallelMode`: the parallel modes' names (plain strings)."""

    STAND_ALONE = "stand_alone"
    DATA_PARALLEL = "data_parallel"
    HYBRID_PARALLEL = "hybrid_parallel"
    SEMI_AUTO_PARALLEL = "semi_auto_parallel"
    AUTO_PARALLEL = "auto_parallel"
    MODE_LIST = [
        STAND_ALONE,
        DATA_PARALLEL,
        HYBRID_PARALLEL,
        SEMI_AUTO_PARALLEL,
        AUTO_PARALLEL,
    ]


#: the modes in which MindSpore splits a network into pipeline stages
PIPELINE_MODES = (ParallelMode.SEMI_AUTO_PARALLEL, ParallelMode.AUTO_PARALLEL)
PIPELINE_SCHEDULERS = ("1f1b", "gpipe")
_AUTO_PARALLEL_KEY = "<auto_parallel>"

_AUTO_PARALLEL_DEFAULTS: dict[str, Any] = {
    "parallel_mode": ParallelMode.STAND_ALONE,
    "pipeline_stages": 1,
    "pipeline_config": {"pipeline_scheduler": "1f1b"},
    "device_num": 1,
    "global_rank": 0,
    "gradients_mean": False,
    "full_batch": False,
}


def _copy(values: dict[str, Any]) -> dict[str, Any]:
    return {k: dict(v) if isinstance(v, dict) else v for k, v in values.items()}


_auto_parallel: dict[str, Any] = _copy(_AUTO_PARALLEL_DEFAULTS)


def _check_parallel_mode(value: Any) -> str:
    """A `ParallelMode` string; MindSpore accepts any letter case."""
    mode = value.lower() if isinstance(value, str) else value
    if mode not in ParallelMode.MODE_LIST:
        raise ConfigError(
            "For 'set_auto_parallel_context', 'parallel_mode' must be one of "
            f"{ParallelMode.MODE_LIST}, but got {value!r}."
        )
    return mode


def _positive_int(key: str, lowest: int) -> Callable[[Any], int]:
    """MindSpore's check_positive_int: not an int is a TypeError, too small a ValueError."""

    def check(value: Any) -> int:
        if not isinstance(value, int) or isinstance(value, bool):
            raise TypeError(
                f"For 'set_auto_parallel_context', '{key}' must be an int, "
                f"but got {type(value).__name__}: {value!r}."
            )
        if value < lowest:
            raise ConfigError(
                f"For 'set_auto_parallel_context', '{key}' must be >= {lowest}, but got {value}."
            )
        return value

    return check


def _check_pipeline_config(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise TypeError(
            f"For 'set_auto_parallel_context', 'pipeline_config' must be a dict, got {value!r}."
        )
    unknown = set(value) - {"pipeline_scheduler", "pipeline_interleave"}
    if unknown:
        raise ConfigError(
            "For 'set_auto_parallel_context', 'pipeline_config' keys are 'pipeline_scheduler' "
            f"and 'pipeline_interleave', but got {sorted(unknown)}."
        )
    scheduler = value.get("pipeline_scheduler", "1f1b")
    if scheduler not in PIPELINE_SCHEDULERS:
        raise ConfigError(
            "For 'set_auto_parallel_context', 'pipeline_scheduler' must be one of "
            f"{list(PIPELINE_SCHEDULERS)}, but got {scheduler!r}."
        )
    return {**value, "pipeline_scheduler": scheduler}


def _check_bool(key: str) -> Callable[[Any], bool]:
    def check(value: Any) -> bool:
        if not isinstance(value, bool):
            raise TypeError(
                f"For 'set_auto_parallel_context', '{key}' must be a bool, but got {value!r}."
            )
        return value

    return check


_AUTO_PARALLEL_CHECKS: dict[str, Callable[[Any], Any]] = {
    "parallel_mode": _check_parallel_mode,
    "pipeline_stages": _positive_int("pipeline_stages", 1),
    "pipeline_config": _check_pipeline_config,
    "device_num": _positive_int("device_num", 1),
    "global_rank": _positive_int("global_rank", 0),
    "gradients_mean": _check_bool("gradients_mean"),
    "full_batch": _check_bool("full_batch"),
}


def set_auto_parallel_context(**kwargs: Any) -> None:
    """MindSpore's `set_auto_parallel_context`: every key checked before any is applied."""
    _apply("set_auto_parallel_context", _AUTO_PARALLEL_CHECKS, _auto_parallel, kwargs)


def get_auto_parallel_context(key: str) -> Any:
    return _read("get_auto_parallel_context", _auto_parallel, key)


def reset_auto_parallel_context() -> None:
    """MindSpore's: every auto-parallel key back to its default."""
    _auto_parallel.clear()
    _auto_parallel.update(_copy(_AUTO_PARALLEL_DEFAULTS))


def pipeline_stages() -> int:
    """X, the number of pipeline stages (1: no pipeline)."""
    return _auto_parallel["pipeline_stages"]


def parallel_mode() -> str:
    return _auto_parallel["parallel_mode"]


def device_num() -> int:
    """N, the devices (the data-parallel group's size: `communication.get_group_size()`)."""
    return _auto_parallel["device_num"]


def data_parallel_replicas() -> int:
    """How many replicas a graph-mode call runs: `device_num` in DATA_PARALLEL mode on
    the CPU target (backend/cpu/replica_run.py; each replica gets 1/N of the batch),
    else 1 (the simulated Ascend device and IREE's GPU run one replica)."""
    if parallel_mode() != ParallelMode.DATA_PARALLEL or _context["device_target"] != "CPU":
        return 1
    return _auto_parallel["device_num"]


def gradients_mean() -> bool:
    return _auto_parallel["gradients_mean"]


def pipeline_scheduler() -> str:
    """The pipeline schedule: "1f1b" (MindSpore's default) or "gpipe": the order of each
    stage graph (mindir-pipeline-schedule) and of the simulated devices."""
    return _auto_parallel["pipeline_config"]["pipeline_scheduler"]


# --- the environment -------------------------------------------------------------------


def env_int(name: str, default: int, allowed: range | tuple[int, ...] | None = None) -> int:
    """An integer environment switch; unset or empty gives `default`, junk is an error."""
    raw = os.environ.get(name, "")
    if not raw.strip():
        return default
    if allowed is not None:
        return parse_level(raw, tuple(allowed), name)
    try:
        return int(raw.strip())
    except ValueError:
        raise ConfigError(f"{name} must be an integer, got '{raw}'") from None


def child_environment(**overrides: str) -> dict[str, str]:
    """The environment of a child process mindjit starts for itself (the IREE
    compiler's, backend/iree/compile_process.py): this process's, with `overrides`."""
    return {**os.environ, **overrides}


def env_str(name: str, default: str) -> str:
    raw = os.environ.get(name, "")
    return raw if raw else default


def _context_or_env(key: str, name: str, default: Any, parse: Callable[[str], Any]) -> Any:
    value = _context[key]
    if value is not None:
        return value
    raw = os.environ.get(name, "")
    return parse(raw) if raw.strip() else default


# --- resolved switches -------------------------------------------------------------------


def cell_reuse_level() -> int:
    """MS_DEV_CELL_REUSE: 0 lazy inline off, 1/2 on; unset means 1 (mindjit keeps
    lazy-inline graphs by default, where MindSpore needs the variable set)."""
    return env_int(CELL_REUSE_ENV, 1, CELL_REUSE_LEVELS)


def load_elim_level() -> int:
    """MS_DEV_SIDE_EFFECT_LOAD_ELIM: 0..3, default 1 (conservative)."""
    return env_int(LOAD_ELIM_ENV, 1, LOAD_ELIM_LEVELS)


def cf_to_select_enabled() -> bool:
    """MINDJIT_CF_TO_SELECT=0 keeps every if at O1/O2 (to compare with the docs'
    hand-written selects); unset, empty or 1: mindir-cf-to-select runs."""
    return bool(env_int(CF_TO_SELECT_ENV, 1, (0, 1)))


def verify_each_enabled() -> bool:
    """MINDJIT_VERIFY_EACH=1 verifies after every pass of a compile (not only at
    stage boundaries), to find the pass at fault."""
    return os.environ.get(VERIFY_EACH_ENV, "") not in ("", "0")


def debug_enabled() -> bool:
    """MINDJIT_DEBUG=1: the tools re-raise internal errors with their traceback."""
    return bool(os.environ.get("MINDJIT_DEBUG"))


def save_graphs_enabled() -> bool:
    """set_context(save_graphs=...) wins over MS_DEV_SAVE_GRAPHS."""
    return bool(
        _context_or_env("save_graphs", "MS_DEV_SAVE_GRAPHS", 0, _int_of("MS_DEV_SAVE_GRAPHS"))
    )


def save_graphs_path() -> str:
    return _context_or_env(
        "save_graphs_path", "MS_DEV_SAVE_GRAPHS_PATH", DEFAULT_SAVE_GRAPHS_PATH, str
    )


def compile_cache_enabled() -> bool:
    return bool(
        _context_or_env(
            "enable_compile_cache",
            "MS_COMPILER_CACHE_ENABLE",
            0,
            lambda raw: parse_level(raw, (0, 1), "MS_COMPILER_CACHE_ENABLE"),
        )
    )


def compile_cache_path() -> str:
    return _context_or_env("compile_cache_path", "MS_COMPILER_CACHE_PATH", DEFAULT_CACHE_PATH, str)


def compile_cache_max_bytes() -> int:
    """The cache directory's size bound; the least recently used entries go first."""
    value = _context_or_env(
        "compile_cache_max_bytes",
        "MINDJIT_COMPILE_CACHE_MAX_BYTES",
        DEFAULT_CACHE_MAX_BYTES,
        _int_of("MINDJIT_COMPILE_CACHE_MAX_BYTES"),
    )
    if value < 0:
        raise ConfigError("MINDJIT_COMPILE_CACHE_MAX_BYTES must be >= 0")
    return value


def _int_of(name: str) -> Callable[[str], int]:
    def parse(raw: str) -> int:
        try:
            return int(raw.strip())
        except ValueError:
            raise ConfigError(f"{name} must be an integer, got '{raw}'") from None

    return parse


def jit_level() -> str:
    """The context's jit_level (a Cell's or jit's JitConfig overrides it)."""
    return _context["jit_config"].get("jit_level", "O1")


def device_target() -> str:
    return _context["device_target"]


def backend() -> str:
    """What runs a CPU graph: the context's jit_config["backend"], else MINDJIT_BACKEND."""
    given = _context["jit_config"].get("backend")
    if given:
        return given
    raw = os.environ.get(BACKEND_ENV, "").strip()
    return check_backend(raw, BACKEND_ENV) if raw else DEFAULT_BACKEND


def _env_choice(env: str, allowed: tuple[str, ...]) -> str:
    """The environment variable `env`, one of `allowed` (spaces around it ignored),
    the first of them when unset or empty."""
    raw = os.environ.get(env, "").strip()
    if raw and raw not in allowed:
        raise ConfigError(f"{env} must be {choices(allowed)}, got '{raw}'")
    return raw or allowed[0]


def iree_driver() -> str:
    """MINDJIT_IREE_DRIVER: IREE's CPU runtime driver (local-sync unless set)."""
    return _env_choice(IREE_DRIVER_ENV, IREE_DRIVERS)


def gemm_mode() -> str:
    """MINDJIT_GEMM: auto (each matmul shape on the faster of oneMKL and numpy),
    numpy (never oneMKL) or mkl (oneMKL for every shape it takes); default auto."""
    return _env_choice(GEMM_ENV, GEMM_MODES)


def conv_mode() -> str:
    """MINDJIT_CONV: auto (each convolution shape the fastest of oneDNN's and
    numpy's ways), numpy (never oneDNN) or dnnl (oneDNN for every float32 shape);
    default auto."""
    return _env_choice(CONV_ENV, CONV_MODES)


def trial_cache_path() -> str | None:
    """MINDJIT_TRIAL_CACHE: the directory of the trials' kept choices; unset or
    empty: $XDG_CACHE_HOME/mindjit/trials (else ~/.cache/mindjit/trials); 0: none
    (every process times its shapes again)."""
    raw = os.environ.get(TRIAL_CACHE_ENV, "").strip()
    if raw == "0":
        return None
    if raw:
        return os.path.abspath(os.path.expanduser(raw))
    base = os.environ.get("XDG_CACHE_HOME", "").strip() or os.path.expanduser("~/.cache")
    return os.path.join(os.path.abspath(base), "mindjit", "trials")


def thread_settings() -> tuple[tuple[str, str], ...]:
    """The thread-count variables that are set, with their values, and the
    machine's CPU count (what a threaded library's default depends on)."""
    found = tuple((n, os.environ[n].strip()) for n in THREAD_ENVS if os.environ.get(n, "").strip())
    return (*found, ("cpus", str(os.cpu_count() or 1)))


def gemm_threads() -> int:
    """oneMKL's thread count: MKL_NUM_THREADS, else OMP_NUM_THREADS (the first
    entry of an OpenMP list such as `2,1`), else the machine's cores."""
    for name in GEMM_THREAD_ENVS:
        raw = os.environ.get(name, "").strip()
        if raw:
            first = raw.split(",")[0].strip()
            if not first.isdigit() or int(first) < 1:
                raise ConfigError(f"{name} must be a positive integer, got '{raw}'")
            return int(first)
    return os.cpu_count() or 1


def gemm_threading(threads: int) -> str:
    """oneMKL's threading layer: MKL_THREADING_LAYER (any case) when set, else
    SEQUENTIAL for one thread (no OpenMP runtime at all) and INTEL otherwise."""
    raw = os.environ.get(GEMM_THREADING_ENV, "").strip().upper()
    if raw and raw not in GEMM_THREADING_LAYERS:
        names = choices(tuple(GEMM_THREADING_LAYERS))
        raise ConfigError(f"{GEMM_THREADING_ENV} must be {names}, got '{raw}'")
    return raw or ("SEQUENTIAL" if threads == 1 else "INTEL")


_cpu_codegen: list[bool | None] = [None]  # set_cpu_codegen's value; None: the environment


def set_cpu_codegen(enabled: bool | None) -> None:
    """Turn the CPU executor's code generator on or off for executables made from
    now on (None: MINDJIT_CPU_CODEGEN decides again); tests and benchmarks compare both."""
    if enabled is not None and not isinstance(enabled, bool):
        raise ConfigError(f"set_cpu_codegen takes True, False or None, got {enabled!r}")
    _cpu_codegen[0] = enabled


def cpu_keep_memory() -> bool:
    """MINDJIT_KEEP_FREED_MEMORY (0 or 1, default 1): whether the first CPU executable
    raises glibc's malloc thresholds (backend/cpu/allocator.py)."""
    raw = os.environ.get(KEEP_MEMORY_ENV, "").strip()
    if raw not in ("", "0", "1"):
        raise ConfigError(f"{KEEP_MEMORY_ENV} must be 0 or 1, got '{raw}'")
    return raw != "0"


def cpu_codegen() -> bool:
    """Whether the numpy executor compiles fused elementwise bodies with llvmlite:
    set_cpu_codegen(...), else MINDJIT_CPU_CODEGEN (0 or 1), else on."""
    if _cpu_codegen[0] is not None:
        return _cpu_codegen[0]
    raw = os.environ.get(CPU_CODEGEN_ENV, "").strip()
    if raw not in ("", "0", "1"):
        raise ConfigError(f"{CPU_CODEGEN_ENV} must be 0 or 1, got '{raw}'")
    return raw != "0"


# --- the distributed engine (set_distributed) ---------------------------------------------

_distributed: dict[str, Any] = {
    "engine": None,  # None: MINDJIT_DISTRIBUTED decides
    "address": None,  # None: RAY_ADDRESS, else a local cluster
    "cpus_per_actor": 0.5,
    "start_timeout": 60.0,
}


def set_distributed(
    engine: str | None = None,
    address: str | None = None,
    cpus_per_actor: float | None = None,
    start_timeout: float | None = None,
) -> None:
    """Choose what runs pipeline stages and data-parallel replicas: "local" (threads of
    this process, the default, needs nothing) or "ray" (one Ray actor each, on the
    cluster at `address` or `RAY_ADDRESS`, else a running local one, else a new one
    on this machine's cores). `cpus_per_actor` is each actor's CPU request (0.5 lets
    four stages share two cores); `start_timeout` bounds the wait for the actors to
    be placed and started (Ray would leave unplaceable ones pending forever).
    Arguments left None keep their current value."""
    if engine is not None:
        if engine not in DISTRIBUTED_ENGINES:
            raise ConfigError(
                f"For 'set_distributed', 'engine' must be {choices(DISTRIBUTED_ENGINES)}, "
                f"but got {engine!r}."
            )
        if engine == "ray" and importlib.util.find_spec("ray") is None:
            raise ConfigError(RAY_MISSING)
        _distributed["engine"] = engine
    if address is not None:
        if not isinstance(address, str) or not address.strip():
            raise ConfigError(
                f"For 'set_distributed', 'address' must be a non-empty str, but got {address!r}."
            )
        _distributed["address"] = address.strip()
    for key, value in (("cpus_per_actor", cpus_per_actor), ("start_timeout", start_timeout)):
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
            raise ConfigError(
                f"For 'set_distributed', {key!r} must be a positive number, but got {value!r}."
            )
        _distributed[key] = float(value)


def reset_distributed() -> None:
    """Back to the defaults (the environment decides the engine)."""
    _distributed.update(engine=None, address=None, cpus_per_actor=0.5, start_timeout=60.0)


def distributed_engine() -> str:
    """set_distributed(engine=) wins over MINDJIT_DISTRIBUTED; default "local"."""
    if _distributed["engine"] is not None:
        return _distributed["engine"]
    raw = os.environ.get(DISTRIBUTED_ENV, "").strip()
    if raw and raw not in DISTRIBUTED_ENGINES:
        raise ConfigError(f"{DISTRIBUTED_ENV} must be {choices(DISTRIBUTED_ENGINES)}, got '{raw}'")
    return raw or DISTRIBUTED_ENGINES[0]


@dataclass(frozen=True)
class DistributedSettings:
    """The Ray engine's settings in force when an executable is built."""

    address: str | None
    cpus_per_actor: float
    start_timeout: float


def distributed_settings() -> DistributedSettings:
    address = _distributed["address"] or os.environ.get("RAY_ADDRESS", "").strip() or None
    return DistributedSettings(
        address, _distributed["cpus_per_actor"], _distributed["start_timeout"]
    )


@dataclass(frozen=True)
class CompileOptions:
    """Everything outside the program that changes how it is compiled, resolved."""

    jit_level: str
    cell_reuse: int
    load_elim: int
    cf_to_select: bool
    device_target: str
    backend: str = DEFAULT_BACKEND
    #: X when the graph is split into pipeline stages (mindir-pipeline-split), else 1
    pipeline_stages: int = 1
    #: what runs the stages (and replicas): "local" threads or "ray" actors
    distributed: str = DISTRIBUTED_ENGINES[0]
    #: the order of each stage graph's micro-batches (mindir-pipeline-schedule)
    pipeline_schedule: str = "1f1b"
    #: N when a call runs N data-parallel replicas (backend/cpu/replica_run.py), else 1
    replicas: int = 1

    def pass_options(self) -> dict[str, dict[str, int]]:
        """The values the pipelines write as explicit pass options."""
        return {
            "mindir-inline": {"cell-reuse": self.cell_reuse},
            "mindir-load-elim": {"level": self.load_elim},
            "ascend-cell-reuse": {"level": self.cell_reuse},
        }


def compile_options(
    jit_level_override: str | None = None, backend_override: str | None = None
) -> CompileOptions:
    """The options in force for a compile; the overrides are the call's (a
    JitConfig, `jit(backend=...)`), else the context's."""
    level = check_jit_level(jit_level_override or jit_level())
    target = device_target()
    chosen = check_backend(backend_override) if backend_override else backend()
    return CompileOptions(
        jit_level=level,
        cell_reuse=cell_reuse_level(),
        load_elim=load_elim_level(),
        cf_to_select=cf_to_select_enabled(),
        device_target=target,
        # a GPU graph always runs on IREE (its CUDA target); the device has its own
        backend="iree" if target == "GPU" else ("numpy" if target == "Ascend" else chosen),
        pipeline_stages=pipeline_stages() if parallel_mode() in PIPELINE_MODES else 1,
        distributed=distributed_engine(),
        pipeline_schedule=pipeline_scheduler(),
        replicas=data_parallel_replicas(),
    )


def pass_option_defaults() -> dict[str, dict[str, int]]:
    """Option values for passes whose option a pipeline leaves out (`ms-opt -p
    mindir-load-elim` follows MS_DEV_SIDE_EFFECT_LOAD_ELIM, as the compiler does)."""
    return compile_options().pass_options()
