"""What the fault scenarios share: a result row, the run's context (seeded
randomness, quick or full sizes, a scratch directory), and how a tool or a
child program is started with a time limit (overrunning it is a hang)."""

from __future__ import annotations

import os
import random
import select
import shutil
import signal
import stat
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
BIN = Path(sys.executable).parent
TIMEOUT = 300.0  # seconds: a child longer than this hangs


@dataclass
class Row:
    scenario: str
    case: str
    ok: bool
    reason: str = ""


@dataclass
class Ctx:
    rng: random.Random
    quick: bool
    work: Path

    def size(self, quick: int, full: int) -> int:
        return quick if self.quick else full

    def fresh(self, name: str) -> Path:
        """A new empty directory of the scratch area."""
        where = self.work / name
        shutil.rmtree(where, ignore_errors=True)
        where.mkdir(parents=True)
        return where


def tool(name: str) -> str:
    """A console script of this environment (beside its python), else on PATH."""
    local = BIN / name
    if local.exists():
        return str(local)
    found = shutil.which(name)
    if found is None:
        raise FileNotFoundError(f"{name} is not installed (pip install -e .)")
    return found


def child(*args: str | Path) -> list[str]:
    return [sys.executable, str(HERE / "fault_child.py"), *map(str, args)]


def clean_env() -> dict[str, str]:
    """The environment without switches that change what a child does."""
    drop = ("MINDJIT_DEBUG", "MS_COMPILER_CACHE", "MS_DEV_SAVE_GRAPHS")
    return {k: v for k, v in os.environ.items() if not k.startswith(drop)}


def run(argv: list[str], **kw) -> subprocess.CompletedProcess | None:
    """Run to the end (stdout and stderr as text unless redirected); None on a hang."""
    kw.setdefault("stdout", subprocess.PIPE)
    kw.setdefault("stderr", subprocess.PIPE)
    try:
        return subprocess.run(argv, text=True, env=clean_env(), timeout=TIMEOUT, **kw)
    except subprocess.TimeoutExpired:
        return None


def start(argv: list[str], **kw) -> subprocess.Popen:
    kw.setdefault("stdout", subprocess.PIPE)
    kw.setdefault("stderr", subprocess.PIPE)
    return subprocess.Popen(argv, text=True, env=clean_env(), **kw)


def wait_for_line(proc: subprocess.Popen, expected: str) -> str:
    """The child's first stdout line; "" when it ended first or said nothing in time."""
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], TIMEOUT)
    line = proc.stdout.readline().strip() if ready else ""
    return line if line == expected else f"{line!r} (wanted {expected!r})" if line else ""


def kill9(proc: subprocess.Popen) -> None:
    proc.send_signal(signal.SIGKILL)
    proc.communicate()


def device(where: Path, name: str, minor: int) -> str:
    """A character device like /dev/<name>: a private node where one can be made
    (as root a wrong write would otherwise replace the system's), else the real one."""
    node = where / name
    try:
        os.mknod(node, 0o666 | stat.S_IFCHR, os.makedev(1, minor))
        return str(node)
    except (PermissionError, AttributeError):
        return f"/dev/{name}"


def temps(directory: Path) -> list[str]:
    """write_atomic's temp files in `directory` (`.<name>.tmp-...`)."""
    return sorted(p.name for p in directory.iterdir() if ".tmp-" in p.name)


def one_line(err: str) -> bool:
    return len(err.splitlines()) <= 1 and "Traceback" not in err
