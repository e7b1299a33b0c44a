"""What one path did with one program: match, mismatch, crash, hang, refused (a
located error graph mode documents), or documented (a difference the README
says the switch may give).

A refusal must be documented: each pattern below names the README section
that says graph mode does not compile that construct. Any other exception is a
crash, whatever its type, so an undocumented refusal is reported, not hidden.
"""

from __future__ import annotations

import re
import traceback
from dataclasses import asdict, dataclass
from typing import Any

from paths import Run, differences

OUTCOMES = ("match", "mismatch", "crash", "hang", "refused", "documented")
FAILURES = ("mismatch", "crash", "hang")

#: (pattern on "Type: message", the reason counted: it names where the README documents it)
REFUSALS: list[tuple[re.Pattern[str], str]] = [
    (
        re.compile(
            r"inside a branch or inner loop of a while that is differentiated"
            r"|a while carrying a .* cannot be differentiated yet"
        ),
        "a gradient through a while whose branch assigns, or that carries a tuple (README, "
        "Gradients: what the record of a while cannot hold yet)",
    ),
    (
        re.compile(r"loop variable '[^']+' is a \w+ at the end of the body; a while on a tensor"),
        "a while's loop variable whose kind the body changes, e.g. a number made a tuple "
        "(README, Graph mode: a while's loop variables keep their structure, MindSpore's "
        "TypeError)",
    ),
]
#: a refusal names the user's line: `file.py:12` or `file.py:12:5: error:`
LOCATED = re.compile(r"\.py:\d+")


@dataclass
class Outcome:
    seed: int
    path: str
    outcome: str
    detail: str = ""
    trace: str = ""

    def json(self) -> dict[str, Any]:
        return asdict(self)


def first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"


def refusal(exc: BaseException) -> str | None:
    """The documented reason graph mode gave for not compiling, if it is one."""
    text = f"{type(exc).__name__}: {exc}"
    if not LOCATED.search(text):
        return None
    for pattern, reason in REFUSALS:
        if pattern.search(text):
            return reason
    return None


def failed(seed: int, path: str, exc: BaseException) -> Outcome:
    trace = "".join(traceback.format_exception(exc))
    reason = refusal(exc)
    if reason is not None:
        return Outcome(seed, path, "refused", reason, trace)
    return Outcome(seed, path, "crash", first_line(exc), trace)


def compared(seed: int, path: str, got: Run, want: Run) -> Outcome:
    """The outcome of a run that finished, against PyNative's."""
    diffs = differences(got, want)
    cache = cache_check(path, got)
    if cache is not None and cache.startswith("refused: "):
        return Outcome(seed, path, "refused", cache.removeprefix("refused: "))
    if cache is not None:
        diffs.insert(0, cache)
    if not diffs:
        return Outcome(seed, path, "match")
    detail = "; ".join(diffs[:3]) + (f"; and {len(diffs) - 3} more" if len(diffs) > 3 else "")
    if path == "load_elim_3" and any(w.startswith("LoadElimWarning") for w in got.warnings):
        # README "Side effects": level 3 inserts no TensorMove and warns that results
        # may be wrong; a difference it warned about is the documented one
        return Outcome(seed, path, "documented", "LoadElimWarning: " + detail)
    return Outcome(seed, path, "mismatch", detail)


def cache_check(path: str, got: Run) -> str | None:
    """A cold run must compile and store, a warm one must hit (README "The compile
    cache": a value the key cannot describe turns the cache off with a warning
    saying why, which is a refusal; a silent miss is a mismatch)."""
    if not path.startswith("cache_"):
        return None
    lines = got.stderr.splitlines()
    off = [ln for ln in lines if "not using the compilation cache" in ln or "is not saved" in ln]
    hit = any("Use the compilation cache" in ln for ln in lines)
    miss = any("Execute all the compilation actions" in ln for ln in lines)
    if off:
        return "refused: compile cache off: " + off[0].split(": ", 2)[-1]
    if path == "cache_cold" and (hit or not miss):
        return f"the cold run did not compile into the fresh cache: {got.stderr[-300:]!r}"
    if path != "cache_cold" and (miss or not hit):
        return f"the warm run did not hit the cache: {got.stderr[-300:]!r}"
    return None
