"""The `make run` demo, as a user runs it: it succeeds and writes its timeline where
the user works (the working directory, or --timeline), never in a fixed temp path."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_demo_writes_its_timeline_in_the_working_directory(tmp_path):
    out = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "demo.py")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    picture = tmp_path / "mindjit_demo_timeline.svg"
    assert picture.is_file() and picture.read_text().startswith("<?xml")
    assert f"timeline picture: {picture}" in out.stdout
