"""A worker process of the differential fuzzer: imports mindjit once (about a
second) and runs programs as the parent sends them.

Protocol (JSON lines): the parent writes `{"seed", "paths", "dir"}` on stdin;
the worker answers `{"start": path}` before each path, then the path's
`Outcome`, and `{"done": seed}` after the last. The answers go to a duplicate
of the original standard output; file descriptor 1 itself points at /dev/null
except while a call is captured, so a program's prints never reach the protocol.
The parent times each path from its `start` (hang detection) and kills the
worker if it overruns.
"""

from __future__ import annotations

import importlib.util
import json
import os
import pickle
import subprocess
import sys
from pathlib import Path
from typing import Any

from generator import generate
from outcomes import Outcome, compared, failed
from paths import pynative, run_path

from mindjit.driver.cache import versions

HERE = Path(__file__).resolve().parent
#: the compile cache's key holds a stamp of mindjit's source files: edited between the
#: worker's start and the warm process, the key rightly differs
STALE = "mindjit's source files changed between the cold and the warm process"


def program_file(seed: int, directory: str) -> Path:
    """The program's source, written once into its own directory (which also holds
    its compile cache)."""
    where = Path(directory) / f"prog_{seed}"
    where.mkdir(parents=True, exist_ok=True)
    path = where / f"fuzz_prog_{seed}.py"
    if not path.exists():
        path.write_text(generate(seed), encoding="utf-8")
    return path


def load(path: Path) -> Any:
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module  # graph mode looks functions' modules up
    spec.loader.exec_module(module)
    return module


def warm_in_new_process(seed: int, path: Path) -> Any:
    """The cache_warm run in a fresh interpreter (`differential.py --warm-child`)."""
    out = path.parent / "warm.pickle"
    done = subprocess.run(
        [sys.executable, str(HERE / "differential.py"), "--warm-child", str(seed), str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0 or not out.exists():
        tail = (done.stderr or "").strip().splitlines()[-1:] or ["no output"]
        raise RuntimeError(f"the warm process exited {done.returncode}: {tail[0]}")
    with out.open("rb") as f:  # written by our own child process just now
        result = pickle.load(f)
    out.unlink()
    if isinstance(result, BaseException):
        raise result
    return result


def run_program(seed: int, paths: list[str], directory: str, say=lambda msg: None) -> list[Outcome]:
    """PyNative, then every path in `paths`, each compared with PyNative."""
    path = program_file(seed, directory)
    cache = str(path.parent / "cache")
    keep: list = []  # every Net lives until the program is done: no address is reused
    outcomes = []

    def report(outcome: Outcome) -> None:
        outcomes.append(outcome)
        say(outcome.json())

    versions.cache_clear()  # this program's entries carry today's stamp (see STALE)
    say({"start": "pynative"})
    try:
        module = load(path)
        want = pynative(module, seed, keep)
    except Exception as exc:  # noqa: BLE001 - a program PyNative cannot run is reported
        report(failed(seed, "pynative", exc))
        return outcomes
    report(Outcome(seed, "pynative", "match"))
    cold_done = False
    for name in paths:
        say({"start": name})
        try:
            if name in ("cache_warm", "cache_process") and not cold_done:
                run_path(module, seed, "cache_cold", cache, keep)  # the entry to read back
                cold_done = True
            if name == "cache_process":
                got = warm_in_new_process(seed, path)
                if got.versions != versions():
                    report(Outcome(seed, name, "refused", STALE))
                    continue
            else:
                got = run_path(module, seed, name, cache, keep)
            cold_done = cold_done or name == "cache_cold"
        except Exception as exc:  # noqa: BLE001 - every failure is an outcome
            report(failed(seed, name, exc))
        else:
            report(compared(seed, name, got, want))
    sys.modules.pop(path.stem, None)
    return outcomes


def warm_child(seed: int, path: Path) -> None:
    """`--warm-child`: the cache_warm run, its Run (or exception) pickled beside
    the program."""
    try:
        result: Any = run_path(load(path), seed, "cache_warm", str(path.parent / "cache"), [])
        result.versions = versions()
    except Exception as exc:  # noqa: BLE001 - handed to the worker, which reports it
        result = RuntimeError(f"{type(exc).__name__}: {exc}")
    with (path.parent / "warm.pickle").open("wb") as f:
        pickle.dump(result, f)


def serve() -> None:
    """`--worker`: run jobs from stdin until it closes."""
    proto = os.fdopen(os.dup(1), "w", buffering=1)
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)

    def say(message: dict) -> None:
        proto.write(json.dumps(message) + "\n")

    for line in sys.stdin:
        job = json.loads(line)
        run_program(job["seed"], job["paths"], job["dir"], say)
        say({"done": job["seed"]})
