"""Fault scenarios at the tools' edges: odd output paths for `ms-opt -o`, a full
standard output, a closed pipe, Ctrl-C (SIGINT) at several moments."""

from __future__ import annotations

import os
import re
import signal
import stat
import subprocess
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from fault_kit import ROOT, Ctx, Row, device, one_line, run, start, temps, tool

MLP = ROOT / "examples" / "mlp.mlir"
MLP_INPUTS = [
    "--input=tensor<4x8xf32>=0.5",
    "--input=tensor<8x16xf32>=0.1",
    "--input=tensor<16xf32>=0",
    "--input=tensor<16x3xf32>=0.2",
    "--input=tensor<3xf32>=0",
]
TOOLS = ("ms-opt", "ms-run", "ms-translate", "ms-sim")


def big_input(where: Path, ops: int = 20000) -> Path:
    """A long chain of ops: seconds of parsing, and more output than a pipe holds."""
    path = where / f"chain_{ops}.mlir"
    if not path.exists():
        lines = "".join(f"  %v{i} = arith.addf %x, %x : tensor<f32>\n" for i in range(ops))
        path.write_text(
            f"func.func @f(%x: tensor<f32>) -> tensor<f32> {{\n{lines}"
            "  func.return %x : tensor<f32>\n}\n"
        )
    return path


def model_file(where: Path) -> Path:
    """The MLP compiled for the simulated device (ms-sim's input)."""
    model = where / "mlp.msmodel"
    if not model.exists():
        run([tool("ms-translate"), str(MLP), "--target=ascend-sim", "-o", str(model)])
    return model


# -- odd output paths ------------------------------------------------------------------------


def odd_paths(ctx: Ctx) -> list[Row]:
    """`ms-opt x.mlir -o PATH` for paths that are not a plain new file (two at a
    time: each is a process importing mindjit)."""
    where = ctx.fresh("odd_paths")
    (where / "real").mkdir()
    target, link = where / "real" / "out.mlir", where / "link.mlir"
    target.write_text("old")
    link.symlink_to(target)

    def through_link(err: str) -> str | None:
        if not link.is_symlink():
            return "the link was replaced by a file"
        return None if target.read_text().startswith("builtin.module") else "not written"

    null, full = device(where, "null", 3), device(where, "full", 7)

    def full_said(err: str) -> str | None:
        if "No space left on device" not in err or not err.startswith(full):
            return f"stderr: {err.strip()!r}"
        return still_device(full)(err)

    fifo = where / "pipe"
    os.mkfifo(fifo)
    got: list[str] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text()), daemon=True)
    reader.start()

    def read_back(_: str) -> str | None:
        reader.join(timeout=30)  # the reader ends when the tool closes the FIFO
        if reader.is_alive():  # the tool never opened it: let the reader go
            with open(fifo, "w"):
                pass
        return None if got and got[0].startswith("builtin.module") else "the reader got nothing"

    (where / "dir").mkdir()
    unwritable = where / "ro"
    unwritable.mkdir()
    unwritable.chmod(0o555)
    # root writes where mode bits forbid it; sysfs refuses new files even to root
    ro = "/sys" if os.geteuid() == 0 else str(unwritable)
    cases = [
        ("a symlink: written through, kept", str(link), 0, through_link),
        ("/dev/null: written into", null, 0, still_device(null)),
        ("/dev/full: one located line", full, 1, full_said),
        ("a FIFO: written into", str(fifo), 0, read_back),
        ("a directory: refused", str(where / "dir"), 1, said("Is a directory")),
        ("an unwritable directory", f"{ro}/out.mlir", 1, said("Permission denied")),
        ("a missing parent", str(where / "no" / "out.mlir"), 1, said("No such file")),
        ("/dev/stdout, a pipe: written into", "/dev/stdout", 0, None),
    ]
    try:
        with ThreadPoolExecutor(2) as pool:
            rows = list(pool.map(lambda c: _odd_path(*c), cases))
    finally:
        unwritable.chmod(0o755)
    left = temps(where) + temps(where / "real") + temps(where / "dir")
    rows.append(Row("odd -o paths", "no temp file left", not left, f"{left}" if left else ""))
    return rows


def _odd_path(name: str, path: str, code: int, check: Callable[[str], str | None] | None) -> Row:
    done = run([tool("ms-opt"), str(MLP), "-o", path])
    if done is None:
        return Row("odd -o paths", name, False, "hang")
    if done.returncode != code:
        problem = f"exit {done.returncode}, wanted {code}: {done.stderr.strip()[-200:]}"
    elif not one_line(done.stderr) or (code == 0) != (done.stderr == ""):
        problem = f"stderr: {done.stderr.strip()[-300:]!r}"
    elif check is None:  # the output is ms-opt's standard output
        problem = None if done.stdout.startswith("builtin.module") else "not on stdout"
    else:
        problem = check(done.stderr)
    return Row("odd -o paths", name, problem is None, problem or "")


def still_device(path: str) -> Callable[[str], str | None]:
    return lambda _: None if stat.S_ISCHR(os.stat(path).st_mode) else f"{path} was replaced"


def said(words: str) -> Callable[[str], str | None]:
    return lambda err: None if words in err and ": error: " in err else f"stderr: {err.strip()!r}"


# -- standard output ---------------------------------------------------------------------------


def tool_runs(where: Path, tools: tuple[str, ...]) -> dict[str, list[str]]:
    """Each tool with an input that writes more to standard output than a pipe holds."""
    big = str(big_input(where, 3000))
    runs = {
        "ms-opt": [big],
        "ms-run": [big, "--entry", "f", "--input=tensor<f32>=1", "--benchmark", "3"],
        "ms-translate": [str(MLP), "--target=iree-input", "-o", "-"],
        "ms-sim": [str(model_file(where)), *MLP_INPUTS] if "ms-sim" in tools else [],
    }
    return {t: [tool(t), *runs[t]] for t in tools}


def full_stdout(ctx: Ctx) -> list[Row]:
    """`tool ... > /dev/full`: exit 1, one line naming standard output."""
    where = ctx.fresh("full_stdout")
    rows = []
    tools = ("ms-opt",) if ctx.quick else TOOLS
    for name, argv in tool_runs(where, tools).items():
        with open("/dev/full", "w") as full:  # a redirection: the device is not ours to write
            done = run(argv, stdout=full)
        want = f"{name}: error: cannot write standard output: No space left on device\n"
        if done is None:
            rows.append(Row("full stdout", name, False, "hang"))
        else:
            ok = done.returncode == 1 and done.stderr == want
            rows.append(Row("full stdout", name, ok, "" if ok else _got(done)))
    return rows


def closed_pipe(ctx: Ctx) -> list[Row]:
    """`tool ... | head -c1`: exit 0 and nothing on stderr."""
    where = ctx.fresh("closed_pipe")
    rows = []
    tools = ("ms-opt",) if ctx.quick else TOOLS
    for name, argv in tool_runs(where, tools).items():
        proc = start(argv, stdout=subprocess.PIPE)
        assert proc.stdout is not None
        proc.stdout.read(1)
        proc.stdout.close()  # the reader is gone before the tool has written it all
        try:
            _, err = proc.communicate(timeout=300)
        except subprocess.TimeoutExpired:
            proc.kill()
            rows.append(Row("closed pipe", name, False, "hang"))
            continue
        ok = proc.returncode == 0 and err == ""
        rows.append(Row("closed pipe", name, ok, "" if ok else f"exit {proc.returncode}: {err!r}"))
    return rows


def _got(done: subprocess.CompletedProcess) -> str:
    return f"exit {done.returncode}: {done.stderr.strip()[-300:]!r}"


# -- Ctrl-C ------------------------------------------------------------------------------------


def in_python_start_up(code: int, err: str) -> bool:
    """The SIGINT arrived before mindjit_entry installed its handler (Python's
    start-up: site's .pth files, the console script's first imports, finding and
    reading mindjit_entry up to its `_install()` line): Python's own exit, which no
    tool can change. Under load 0.05 s can land there; the scenario then tries a
    little later (a real failure of the tool's handler is never before it)."""
    if code == -signal.SIGINT and not err.strip():
        return True
    lines = err.strip().splitlines()
    if code not in (1, -signal.SIGINT) or not lines or lines[-1] != "KeyboardInterrupt":
        return False
    if "<frozen site>" in err:
        return "mindjit_entry" not in err
    entry_lines = [int(n) for n in _ENTRY_FRAME.findall(err)]
    return (
        "Traceback (most recent call last):" in err
        and "mindjit/" not in err
        and all(n <= _INSTALL_LINE for n in entry_lines)
    )


#: a traceback frame in mindjit_entry.py, and the line where it installs its handler
_ENTRY_FRAME = re.compile(r'mindjit_entry\.py", line (\d+)')
_INSTALL_LINE = next(
    i
    for i, text in enumerate((ROOT / "mindjit_entry.py").read_text().splitlines(), 1)
    if text.startswith("_install()")
)


def sigint(ctx: Ctx) -> list[Row]:
    """SIGINT at several moments after the start (importing mindjit takes ~0.8 s):
    exit 130 and at most one line. ms-opt is busy parsing a long input; the other
    tools wait on a FIFO nobody writes (interrupted in their body at any delay)."""
    where = ctx.fresh("sigint")
    fifo = where / "never.fifo"
    os.mkfifo(fifo)
    args = {
        "ms-opt": [str(big_input(where))],
        "ms-run": [str(fifo), "--entry", "f"],
        "ms-translate": [str(fifo), "--target=iree-input", "-o", "-"],
        "ms-sim": [str(fifo)],
    }
    delays = (0.05, 0.4, 1.2) if ctx.quick else (0.05, 0.1, 0.2, 0.4, 0.8, 1.2, 1.5)
    tools = ("ms-opt",) if ctx.quick else TOOLS
    rows = []
    for name in tools:
        failed = []
        for delay in delays:
            for late in (0.0, 0.05, 0.1, 0.2, 0.4):  # later while Python itself starts up
                proc = start([tool(name), *args[name]], stdout=subprocess.DEVNULL)
                time.sleep(delay + late)
                proc.send_signal(signal.SIGINT)
                try:
                    _, err = proc.communicate(timeout=60)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    err = None
                if err is None or not in_python_start_up(proc.returncode, err):
                    break
            if err is None:
                failed.append(f"{delay} s: hang")
            elif proc.returncode != 130 or not one_line(err):
                lines = err.splitlines()
                failed.append(
                    f"{delay} s: exit {proc.returncode}, {len(lines)} lines:\n"
                    + "\n".join(lines[-12:])
                )
        case = f"{name} at {', '.join(f'{d:g}' for d in delays)} s"
        rows.append(Row("SIGINT", case, not failed, "; ".join(failed)))
    return rows
