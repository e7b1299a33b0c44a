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

The handler is installed by the module's first statements, through the built-in
`_signal` (the `signal` module converts its constants to enums on import: a
CI run's Ctrl-C landed there, a 17-line traceback). What comes before them
(Python's start-up, the console script's `import re, sys`, finding this module)
is Python's own and ends as Python does: fuzz/fault_edges.in_python_start_up.
"""

from __future__ import annotations

import _signal  # built in: the handler goes in before anything else is imported
import os  # already imported by Python's start-up (site): no time

INTERRUPTED = 130  # 128 + SIGINT, as a shell reports a Ctrl-C'd command


class _State:
    in_body = False


def _on_sigint(signum: int, frame: object) -> None:
    if _State.in_body:
        raise KeyboardInterrupt
    os._exit(INTERRUPTED)


def _install() -> None:
    try:
        _signal.signal(_signal.SIGINT, _on_sigint)
    except ValueError:  # not the main thread (an embedding): leave Python's handler
        pass


_install()  # at import: the console script imports this module first

import importlib  # noqa: E402  (after the handler: a Ctrl-C here is handled)
import sys  # noqa: E402


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
