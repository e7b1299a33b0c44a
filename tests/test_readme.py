"""The README's MLIR is real (issue 27): every mlir block that is a whole program
(it starts at the top level: `func.func`, `mindir.parameter`, `builtin.module`,
and elides nothing with `...`) parses with ms-opt, and the `ms-run` / `ms-opt`
lines of the plain block right after it run on it, printing what the README shows
(`# ...` lines). Blocks that start inside a graph (`%r = ...`) are excerpts."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from mindjit.tools import ms_opt, ms_run

ROOT = Path(__file__).resolve().parents[1]
BLOCK = re.compile(r"^```(\w*)\n(.*?)^```$", re.S | re.M)
TOP_LEVEL = ("func.func", "mindir.parameter", "builtin.module", "ml_program.global")


def blocks() -> list[tuple[str, str, str]]:
    """(language, text, the next block's text if it is a plain one right after)."""
    found = [
        (m.group(1), m.group(2), m.end()) for m in BLOCK.finditer((ROOT / "README.md").read_text())
    ]
    readme = (ROOT / "README.md").read_text()
    out = []
    for i, (lang, text, end) in enumerate(found):
        after = ""
        if i + 1 < len(found) and found[i + 1][0] == "":
            between = readme[end : readme.index("```" + "\n" + found[i + 1][1], end)]
            after = found[i + 1][1] if between.strip() == "" else ""
        out.append((lang, text, after))
    return out


PROGRAMS = [
    (text, after)
    for lang, text, after in blocks()
    if lang == "mlir" and text.lstrip().startswith(TOP_LEVEL) and "..." not in text
]


def test_the_readme_has_a_whole_program() -> None:
    assert PROGRAMS, "no whole mlir program in the README"
    assert any(after for _, after in PROGRAMS), "no command runs a README program"


@pytest.mark.parametrize("text,after", PROGRAMS, ids=[f"block{i}" for i in range(len(PROGRAMS))])
def test_readme_program_parses_and_its_commands_run(text, after, tmp_path, capsys) -> None:
    prog = tmp_path / "prog.mlir"
    prog.write_text(text)
    assert ms_opt.main([str(prog)]) == 0, capsys.readouterr().err
    capsys.readouterr()
    lines = after.splitlines()
    for i, line in enumerate(lines):
        if not line.startswith(("ms-run ", "ms-opt ")):
            continue
        argv = [str(prog) if a == "prog.mlir" else a for a in shlex.split(line)[1:]]
        tool = ms_run if line.startswith("ms-run") else ms_opt
        code = tool.main(argv)
        out = capsys.readouterr()
        assert code == 0, (line, out.err)
        shown = []
        for follow in lines[i + 1 :]:
            if not follow.startswith("# "):
                break
            shown.append(follow[2:])
        if shown:
            assert out.out.strip() == "\n".join(shown), line


# -- the Python blocks ------------------------------------------------------------------------


def test_readme_python_blocks_run_in_order(tmp_path) -> None:
    """The README's Python blocks, run one after another as one file, as a reader
    pastes them into a script (a later block may use an earlier one's imports;
    graph mode reads its functions' source, so they must live in a file)."""
    import os
    import subprocess
    import sys

    python = [text for lang, text, _ in blocks() if lang == "python"]
    assert python
    parts = [
        f"print('--- README python block {i}', flush=True)\n{text}" for i, text in enumerate(python)
    ]
    script = tmp_path / "readme_blocks.py"
    script.write_text("\n".join(parts) + "\nprint('--- all blocks ran')\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "examples")}

    def run() -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, str(script)],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            env=env,
            timeout=900,
        )

    out = run()
    if out.returncode == -11 and "--- all blocks ran" in out.stdout:
        # KNOWN BUG (open, session note of stop 47): about 1 run in 13 segfaults in a
        # native thread at interpreter exit, after every block ran (Ray and IREE are
        # both loaded; no Python stack). One more run must pass; two crashes fail.
        out = run()
    assert out.returncode == 0, out.stdout[-1500:] + out.stderr[-3000:]
    assert "--- all blocks ran" in out.stdout
