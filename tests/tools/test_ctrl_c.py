"""Ctrl-C at any moment of a tool (issue 29 §5): exit 130 and at most one line on
stderr, also while the tool is still importing mindjit (the console scripts start
in mindjit_entry.py, which handles SIGINT before anything heavy is imported)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: seconds after the start: importing mindjit takes ~0.8 s, the tool's work follows.
#: Not earlier than 0.15 s: the interpreter's own start (~30-50 ms idle, several
#: times that on a loaded CI machine) runs before any of mindjit's code can handle
#: the signal, so an earlier one tests CPython, not mindjit.
DELAYS = (0.15, 0.3, 0.6, 0.9, 1.5)


def interrupted(argv: list[str], delay: float, cwd: str) -> tuple[int, str]:
    env = {k: v for k, v in os.environ.items() if k != "MINDJIT_DEBUG"}
    proc = subprocess.Popen(
        argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    time.sleep(delay)
    proc.send_signal(signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise
    return proc.returncode, err


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    where = tmp_path_factory.mktemp("ctrl_c")
    lines = "".join(f"  %v{i} = arith.addf %x, %x : tensor<f32>\n" for i in range(20000))
    (where / "big.mlir").write_text(  # several seconds of parsing: busy when interrupted
        f"func.func @f(%x: tensor<f32>) -> tensor<f32> {{\n{lines}  func.return %x : tensor<f32>\n}}\n"
    )
    os.mkfifo(where / "never.fifo")  # nobody writes it: the tool waits in its body
    return where


@pytest.mark.parametrize("delay", DELAYS)
def test_ms_opt_interrupted_at_any_moment_exits_130_quietly(inputs, delay, tool_exe):
    code, err = interrupted([tool_exe("ms-opt"), "big.mlir"], delay, str(inputs))
    assert code == 130, (delay, code, err)
    assert len(err.splitlines()) <= 1, err


@pytest.mark.parametrize(
    "tool,args",
    [
        ("ms-run", ["never.fifo", "--entry", "f"]),
        ("ms-translate", ["never.fifo", "--target=iree-input", "-o", "-"]),
        ("ms-sim", ["never.fifo"]),
    ],
)
@pytest.mark.parametrize("delay", (DELAYS[0], DELAYS[-1]))
def test_every_tool_interrupted_exits_130_quietly(inputs, tool, args, delay, tool_exe):
    code, err = interrupted([tool_exe(tool), *args], delay, str(inputs))
    assert code == 130, (tool, delay, code, err)
    assert len(err.splitlines()) <= 1, err


def test_an_interrupt_inside_the_body_goes_through_guarded(monkeypatch):
    import mindjit_entry

    def body():
        raise KeyboardInterrupt

    from mindjit.tools.cli import guarded

    fake = type(sys)("fake_tool")
    fake.main = lambda: guarded("ms-x", body)
    monkeypatch.setitem(sys.modules, "fake_tool", fake)
    assert mindjit_entry._run("fake_tool") == 130
    assert not mindjit_entry._State.in_body


def test_python_dash_m_still_runs_a_tool():
    proc = subprocess.run(
        [sys.executable, "-m", "mindjit.tools.ms_opt", str(ROOT / "examples" / "mlp.mlir")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("builtin.module")
