"""The console scripts' entry (ms-opt, ms-run, ms-translate, ms-sim): Ctrl-C at
any moment is exit 130 and no traceback.

The scripts cannot start at `mindjit.tools.ms_opt:main`: importing it (xDSL and
mindjit's layers below the frontend) takes 0.4-0.7 s, and a
Ctrl-C in that time was a raw `KeyboardInterrupt` traceback of 10-76 lines
before any of mindjit's code could catch it. This module is top-level (not in
the `mindjit` package) and imports nothing heavy: it installs its SIGINT
handler, then imports the tool and calls its `main`, which runs the tool's body
in tools/cli.py `guarded`.

While the tool's body runs, Ctrl-C is Python's `KeyboardInterrupt`, so the
body unwinds (a half-written temp file is removed) and `guarded` returns 130.
Before it (while importing) and after it (the code is decided, standard output
flushed) the handler ends the process at once with 130 (`os._exit`: nothing is
half-done there, and an exception raised inside the import machinery or the
interpreter's shutdown would print a traceback).
"""

from __future__ import annotations

import importlib
import os
import signal
import sys

INTERRUPTED = 130  # 128 + SIGINT, as a shell reports a Ctrl-C'd command


class _State:
    in_body = False


def _on_sigint(signum: int, frame: object) -> None:
    if _State.in_body:
        raise KeyboardInterrupt
    os._exit(INTERRUPTED)


def _install() -> None:
    try:
        signal.signal(signal.SIGINT, _on_sigint)
    except ValueError:  # not the main thread (an embedding): leave Python's handler
        pass


_install()  # at import: the console script imports this module first


def _run(module: str) -> int:
    main = importlib.import_module(module).main
    try:
        try:
            _State.in_body = True
            code = main()
        finally:
            _State.in_body = False
    except KeyboardInterrupt:  # between guarded's return and the flag's reset
        code = INTERRUPTED
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        pass  # guarded reported standard output's state already
    return code


def ms_opt() -> int:
    return _run("mindjit.tools.ms_opt")


def ms_run() -> int:
    return _run("mindjit.tools.ms_run")


def ms_translate() -> int:
    return _run("mindjit.tools.ms_translate")


def ms_sim() -> int:
    return _run("mindjit.tools.ms_sim")
