"""The one way every mindjit tool turns failures into exit codes.

A user error (`MindjitError`) is one `file:line:col: error: ...` line and exit 1;
a warning (e.g. Load elimination level 3) is one `tool: warning: ...` line;
a bug in mindjit is one `internal error` line and exit 2 (`MINDJIT_DEBUG=1`
re-raises it for the traceback); Ctrl-C is 130; a closed pipe on standard output
(`ms-sim ... | head -1`) ends quietly with 0, as Unix tools do, and a full
standard output is one line saying so, exit 1. Never a raw traceback.
"""

from __future__ import annotations

import errno
import os
import sys
import warnings
from collections.abc import Callable

from mindjit.ir import compat
from mindjit.support import config
from mindjit.support.deep_stack import deep_stack, frame_budget
from mindjit.support.errors import MindjitError


def guarded(prog: str, body: Callable[[], int | None]) -> int:
    def show(message, category, filename, lineno, file=None, line=None) -> None:  # noqa: ANN001
        print(f"{prog}: warning: {message}", file=sys.stderr)

    try:
        with warnings.catch_warnings(), deep_stack():  # deeply nested input (deep_stack.py)
            warnings.showwarning = show
            compat.install()
            code = body() or 0
            sys.stdout.flush()  # a closed pipe shows here, not at exit
            return code
    except BrokenPipeError:  # `tool ... | head -1`: the reader has what it wanted
        _quiet_stdout()
        return 0
    except OSError as exc:
        if exc.errno not in _FULL:
            return _internal(prog, exc)
        # files mindjit writes report their own errors (support/files.py): this is stdout
        _quiet_stdout()
        print(f"{prog}: error: cannot write standard output: {exc.strerror}", file=sys.stderr)
        return 1
    except MindjitError as err:
        print(err, file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except RecursionError:  # nested deeper than the stack safely allows, even raised
        print(
            f"{prog}: error: the input is nested too deeply: it needs more than "
            f"{frame_budget()} nested Python calls, as many as the stack safely allows",
            file=sys.stderr,
        )
        return 1
    except Exception as exc:  # a bug in mindjit, not in the input: say so in one line
        return _internal(prog, exc)


#: errno values of a device that is full (standard output on a full disk, /dev/full)
_FULL = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)


def _internal(prog: str, exc: Exception) -> int:
    if config.debug_enabled():
        raise exc
    print(
        f"{prog}: internal error: {type(exc).__name__}: {exc} "
        "(set MINDJIT_DEBUG=1 for a traceback)",
        file=sys.stderr,
    )
    return 2


def _quiet_stdout() -> None:
    """Point standard output at /dev/null, so the interpreter's last flush of the
    closed pipe raises nothing more."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
