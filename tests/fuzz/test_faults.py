"""The fault suite (fuzz/faults.py) at its quick sizes and a fixed seed: each
scenario's cases all hold (issue 29). `python fuzz/faults.py` runs the full one."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

FUZZ = Path(__file__).resolve().parents[2] / "fuzz"
sys.path.insert(0, str(FUZZ))

import faults  # noqa: E402
from fault_edges import in_python_start_up  # noqa: E402
from fault_kit import Ctx  # noqa: E402


@pytest.mark.parametrize("name", sorted(faults.SCENARIOS))
def test_scenario_holds(name, tmp_path):
    rows = faults.run_scenario(name, Ctx(random.Random(f"0:{name}"), True, tmp_path))
    assert rows, name
    failed = [f"{r.case}: {r.reason}" for r in rows if not r.ok]
    assert failed == [], "\n".join(failed)


def test_the_table_names_each_failure(capsys, monkeypatch):
    from fault_kit import Row

    monkeypatch.setattr(
        faults,
        "SCENARIOS",
        {"a": lambda ctx: [Row("a", "fine", True)], "b": lambda ctx: [Row("b", "x", False, "why")]},
    )
    assert faults.main(["--quick"]) == 1
    out = capsys.readouterr().out
    assert "fine  ok" in out and "FAILED: why" in out and "2 cases, 1 failed" in out


def test_a_sigint_in_python_start_up_is_told_from_the_tools_own_handling() -> None:
    site = 'Traceback:\n  File "<frozen site>", line 186, in addpackage\nKeyboardInterrupt\n'
    assert in_python_start_up(-2, "") and in_python_start_up(1, site)
    ours = site.replace("<frozen site>", "mindjit_entry.py")
    assert not in_python_start_up(1, ours) and not in_python_start_up(130, "")
    assert not in_python_start_up(1, "error: something else\n")


def test_a_sigint_before_the_entrys_handler_is_python_start_up() -> None:
    """A CI run's Ctrl-C landed in the console script's `from mindjit_entry import`,
    before the handler's line: Python's exit. After that line it is the tool's."""
    from fault_edges import _INSTALL_LINE

    def traceback(*frames: str) -> str:
        body = "".join(f'  File "{f}", line {n}, in <module>\n' for f, n in frames)
        return f"Traceback (most recent call last):\n{body}KeyboardInterrupt\n"

    script = ("/venv/bin/ms-opt", 5)
    loading = ("<frozen importlib._bootstrap_external>", 1021)
    assert in_python_start_up(-2, traceback(script, loading))
    assert in_python_start_up(-2, traceback(script, ("/x/mindjit_entry.py", _INSTALL_LINE)))
    after = ("/x/mindjit_entry.py", _INSTALL_LINE + 3)
    assert not in_python_start_up(-2, traceback(script, after))
    assert not in_python_start_up(-2, traceback(script, ("/x/mindjit/tools/cli.py", 40)))
    assert not in_python_start_up(130, traceback(script, loading))
