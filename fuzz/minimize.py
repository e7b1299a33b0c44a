"""Shrink a failing program: delete lines and indented blocks while PyNative still
runs it and the path still fails the same way.

    python fuzz/differential.py --seed S --paths ascend --minimize

"The same way" is the outcome (crash, mismatch, hang is not minimized) and, for a
crash, the exception's first line with paths and numbers blanked out, so the
search does not drift to another failure. Greedy: each pass tries every block
from the last line up (a line with the more-indented lines under it), keeps a
deletion when it still fails, and stops when a pass deletes nothing. Each trial
writes a new file (a new module: no program cache entry is reused) and has
`TRIAL_SECONDS` (deleting the line that grows a `while`'s value makes a program
that never ends: it is no longer valid).
"""

from __future__ import annotations

import ast
import contextlib
import functools
import re
import signal
import tempfile
from collections.abc import Iterator
from pathlib import Path

from outcomes import compared, failed
from paths import pynative, run_path
from worker import load

BLANK = re.compile(r"(/[^\s:]+)|(\d+)")
TRIAL_SECONDS = 60


class TrialTimeout(BaseException):  # not caught as a program's failure
    pass


@contextlib.contextmanager
def deadline(seconds: int) -> Iterator[None]:
    def expire(signum, frame):
        raise TrialTimeout

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def signature(outcome) -> str:
    if outcome.outcome == "crash":
        return "crash " + BLANK.sub("#", outcome.detail)
    return outcome.outcome


def block_end(lines: list[str], i: int) -> int:
    """One past the last line of the block starting at line i."""
    depth = len(lines[i]) - len(lines[i].lstrip())
    j = i + 1
    while j < len(lines) and (
        not lines[j].strip() or len(lines[j]) - len(lines[j].lstrip()) > depth
    ):
        j += 1
    return j


def minimize(seed: int, path: str, source: str, log=print) -> str:
    log = functools.partial(log, flush=True) if log is print else log
    counter = [0]

    with tempfile.TemporaryDirectory(prefix="mindjit-min-") as directory:

        def outcome_of(text: str):
            try:
                ast.parse(text)
            except SyntaxError:
                return None
            try:
                with deadline(TRIAL_SECONDS):
                    return attempt(text)
            except TrialTimeout:
                return None

        def attempt(text: str):
            counter[0] += 1
            file = Path(directory) / f"min_{seed}_{counter[0]}" / f"fuzz_min_{counter[0]}.py"
            file.parent.mkdir()
            file.write_text(text, encoding="utf-8")
            keep: list = []
            try:
                module = load(file)
                want = pynative(module, seed, keep)
            except Exception:  # noqa: BLE001 - no longer a valid program
                return None
            try:
                got = run_path(module, seed, path, str(file.parent / "cache"), keep)
            except Exception as exc:  # noqa: BLE001 - the failure searched for
                return failed(seed, path, exc)
            return compared(seed, path, got, want)

        first = outcome_of(source)
        if first is None or first.outcome not in ("crash", "mismatch"):
            raise SystemExit(f"seed {seed} on {path} does not fail: {first and first.outcome}")
        goal = signature(first)
        log(f"minimizing seed {seed} on {path}: {first.outcome}: {first.detail[:200]}")
        lines = source.splitlines()
        changed = True
        while changed:
            changed = False
            i = len(lines) - 1
            while i >= 0:
                if lines[i].strip():
                    end = block_end(lines, i)
                    trial = lines[:i] + lines[end:]
                    got = outcome_of("\n".join(trial) + "\n")
                    if got is not None and signature(got) == goal:
                        lines, changed = trial, True
                        log(f"  {len(lines)} lines")
                i = min(i, len(lines)) - 1
        final = outcome_of("\n".join(lines) + "\n")
        log(f"minimal ({counter[0]} trials): {final.outcome}: {final.detail[:300]}")
    return "\n".join(lines) + "\n"
