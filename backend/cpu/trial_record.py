"""The choices of the CPU executor's timed trials, kept on disk for the next process.

gemm.py (numpy or oneMKL, per product shape) and kernels_conv.py (numpy's way or
one of oneDNN's formulations, per convolution shape) time their candidates at a
shape's first call. On ResNet-18's first train step that was ~0.2 s of a ~1.4 s
compile: 28 convolution shapes, each way warmed up and timed, numpy's kept only
when a second trial agrees, and oneDNN primitives created for the formulations
that lose. What wins depends on the machine, the libraries and the thread
settings, not on the program, so the choice is kept in a file per machine, as
MIOpen keeps its find results and Triton its autotuning: the next process
(another run of the script, another model with that shape) takes the kept choice
without a trial and creates only the chosen primitive, and the runs of a program
on one machine take the same ways, so they give the same bits.

- The file: `trials-<hash>.json` in MINDJIT_TRIAL_CACHE (config.trial_cache_path:
  `$XDG_CACHE_HOME/mindjit/trials`, else `~/.cache/mindjit/trials`; `0`: no file,
  each process times its shapes again). The hash is of `FORMAT`, the CPU (its
  model name and flags), the machine type and numpy's version; an entry's key
  adds the caller's context (the library's version, its threads, the thread
  variables: config.thread_settings) to the shape's key, so a change of any of
  them is a shape not yet timed.
- Read once per process (the first lookup), written whole (support/files.py's
  atomic replace) after each new choice, merged with what other processes wrote
  since; two processes that write at once may lose one's new entry, which is then
  timed again. A file that does not parse (cut, garbled, another `FORMAT`) counts
  as empty and is replaced; a directory that cannot be written is said once on
  stderr and the process goes on with its choices in memory.
- Deleting the directory times every shape again.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import platform
import sys
import threading
from typing import Any

import numpy as np

from mindjit.support import config
from mindjit.support.errors import MindjitError
from mindjit.support.files import write_atomic

#: bump when what a trial compares changes (margins, rounds, candidates): the
#: choices kept by the rules before are then not read
FORMAT = 1

_lock = threading.Lock()
_state: dict[str, Any] = {"path": None, "choices": {}, "failed": set()}


@functools.cache
def machine() -> str:
    """The machine type, the CPU's model name and its flags (/proc/cpuinfo; else
    what `platform` says)."""
    found: dict[str, str] = {}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                name, _, value = line.partition(":")
                name = name.strip()
                if name in ("model name", "flags"):
                    found.setdefault(name, value.strip())
                if len(found) == 2:
                    break
    except OSError:
        pass
    model = found.get("model name") or platform.processor()
    return " | ".join((platform.machine(), model, found.get("flags", "")))


def record_file() -> str | None:
    """The file of this machine's choices, or None when none is kept."""
    directory = config.trial_cache_path()
    if directory is None:
        return None
    fingerprint = json.dumps([FORMAT, machine(), np.__version__])
    digest = hashlib.sha256(fingerprint.encode()).hexdigest()[:16]
    return os.path.join(directory, f"trials-{digest}.json")


def recorded(kind: str, context: tuple, key: tuple) -> str | None:
    """The choice kept for `key` of `kind` ("gemm", "conv") under `context`, or None."""
    path = record_file()
    if path is None:
        return None
    with _lock:
        return _choices(path).get(_entry(kind, context, key))


def record(kind: str, context: tuple, key: tuple, choice: str) -> None:
    """Keep `choice` for `key` of `kind` under `context` (see the module doc)."""
    path = record_file()
    if path is None:
        return
    with _lock:
        choices = _choices(path)
        choices[_entry(kind, context, key)] = choice
        if path in _state["failed"]:
            return
        merged = {**_read(path), **choices}
        data = {"format": FORMAT, "machine": machine(), "choices": dict(sorted(merged.items()))}
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            write_atomic(path, json.dumps(data, indent=0) + "\n")
        except FileExistsError:
            _give_up(path, "a file is in the way of its directory")
        except OSError as exc:
            _give_up(path, exc.strerror or str(exc))
        except MindjitError as err:
            _give_up(path, err.message)


def _entry(kind: str, context: tuple, key: tuple) -> str:
    return json.dumps([kind, context, key], default=repr)


def _choices(path: str) -> dict[str, str]:
    """This process's choices for `path` (read at the first lookup); under `_lock`."""
    if _state["path"] != path:  # the first lookup, or MINDJIT_TRIAL_CACHE changed
        _state["path"], _state["choices"] = path, _read(path)
    return _state["choices"]


def _read(path: str) -> dict[str, str]:
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError):  # none yet, unreadable or garbled: nothing kept
        return {}
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        return {}
    choices = data.get("choices")
    if not isinstance(choices, dict):
        return {}
    return {k: v for k, v in choices.items() if isinstance(k, str) and isinstance(v, str)}


def _give_up(path: str, reason: str) -> None:
    _state["failed"].add(path)
    print(
        f"mindjit: cannot keep the trials' choices in {path}: {reason}; this process "
        f"keeps them in memory (MINDJIT_TRIAL_CACHE=0 stops trying)",
        file=sys.stderr,
    )
