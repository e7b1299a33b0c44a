"""Shared pytest helpers: run the project's command-line tools as a user would."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent
ROOT = Path(__file__).resolve().parent.parent

# Every test (and every process a test starts) times its convolution and product
# shapes itself: choices kept by an earlier run or by the user's own
# (backend/cpu/trial_record.py) must not decide for it, and tests write nothing
# into the home directory. tests/backend/test_trial_record.py gives its tests a
# directory of their own.
os.environ["MINDJIT_TRIAL_CACHE"] = "0"


def tool_path(name: str) -> str:
    """A console script of this environment (ms-opt, ms-run, iree-opt ...)."""
    local = BIN / name
    if local.exists():
        return str(local)
    found = shutil.which(name)
    if found is None:
        pytest.skip(f"{name} is not installed in this environment")
    return found


def run_tool(
    name: str, *args: str, stdin: str | None = None, cwd: str | None = None
) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.pop("MINDJIT_DEBUG", None)
    return subprocess.run(
        [tool_path(name), *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=300,
    )


@pytest.fixture
def tool():
    return run_tool


@pytest.fixture
def tool_exe():
    """`tool_path` (tests import no conftest: with several conftest.py files in the
    tree, `from conftest import ...` finds whichever was loaded first)."""
    return tool_path


@pytest.fixture(autouse=True)
def _restore_context():
    """A test that calls `set_context` (GRAPH_MODE, the device, save_graphs=False ...)
    and fails or forgets to switch back must not change how the next test runs."""
    from mindjit.support.config import context_snapshot, restore_context

    before = context_snapshot()
    yield
    if context_snapshot() != before:
        restore_context(before)
