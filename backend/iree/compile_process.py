"""iree-compile in a child process that stays: a crash of IREE's compiler is an error.

IREE's compiler library crashes on some valid modules (SIGSEGV or abort: IREE 3.13
in `ScfWhileOpConversion`, fuzz seed 78). Run inside the user's process, such a crash
kills it, with no location and no chance to fall back. So the library runs in one
child process per user process, started at the first compile and kept for the next
ones (a compile costs what it cost in-process; starting the child and loading the
library is paid once, as the in-process import was): the parent sends the module
text and flags, the child answers with the vmfb or IREE's diagnostics. When the
child dies, the compile raises `CompileCrashed` (the driver falls back to the numpy
executor and says so, as for any `IreeCompileError`) and the next compile starts a
new child. A forked process starts its own child (the pipes are its parent's).

The child's file descriptor 2 is a temporary file of the parent: IREE's diagnostics
(and a crash's stack dump) land there, never on the user's terminal; the parent
reads what one compile wrote from its offset. Its standard output is fd 2 too; the
answers go through a duplicate of the original pipe, so nothing the library prints
can corrupt them.

Protocol: each message is an 8-byte little-endian length and a pickle; a request
`(text, flags)`, an answer `("ok", vmfb)` or `("error", "")` (the diagnostics are in
the file). This file runs as the child's script (`python compile_process.py`), so it
imports nothing of mindjit.
"""

from __future__ import annotations

import os
import pickle
import signal
import struct
import subprocess
import sys
import tempfile
from typing import IO, Any

_LENGTH = struct.Struct("<Q")


def _send(stream: IO[bytes], message: Any) -> None:
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_LENGTH.pack(len(data)) + data)
    stream.flush()


def _receive(stream: IO[bytes]) -> Any:
    """The next message, or None at end of stream (the other side is gone)."""
    head = stream.read(_LENGTH.size)
    if len(head) < _LENGTH.size:
        return None
    (size,) = _LENGTH.unpack(head)
    data = stream.read(size)
    if len(data) < size:
        return None
    return pickle.loads(data)  # noqa: S301 - our own pipe, from our own parent/child


class CompileCrashed(Exception):
    """The compiler's process died while compiling (IREE crashed on this module)."""

    def __init__(self, how: str, diagnostics: str) -> None:
        super().__init__(how)
        self.how = how
        self.diagnostics = diagnostics


class CompileProcess:
    """The child compiler process of this process; not thread-safe (the caller locks)."""

    def __init__(self) -> None:
        self._child: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None
        self._owner = os.getpid()

    def _start(self) -> subprocess.Popen[bytes]:
        from mindjit.support.config import child_environment  # parent only: child has none

        self._log = tempfile.TemporaryFile()
        env = child_environment(PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
        self._child = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._log,
            env=env,
        )
        return self._child

    def compile(self, text: str, flags: list[str]) -> tuple[bytes | None, str]:
        """(vmfb, diagnostics); vmfb None when IREE rejected the module.
        `CompileCrashed` when the child died."""
        if self._owner != os.getpid():  # a forked copy of this process: its own child
            self._child, self._log, self._owner = None, None, os.getpid()
        child = self._child if self._child is not None and self._child.poll() is None else None
        if child is None:
            self.close()
            child = self._start()
        assert self._log is not None and child.stdin is not None and child.stdout is not None
        start = self._log.seek(0, os.SEEK_END)
        try:
            _send(child.stdin, (text, flags))
            answer = _receive(child.stdout)
        except (BrokenPipeError, OSError):
            answer = None
        diagnostics = self._written_since(start)
        if answer is None:
            code = child.wait()
            self._child = None
            raise CompileCrashed(_how_it_ended(code), diagnostics)
        kind, vmfb = answer
        return (vmfb if kind == "ok" else None), diagnostics

    def _written_since(self, start: int) -> str:
        assert self._log is not None
        self._log.seek(start)
        return self._log.read().decode(errors="replace")

    def close(self) -> None:
        if self._child is not None:
            if self._child.stdin is not None:
                self._child.stdin.close()
            try:
                self._child.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._child.kill()
                self._child.wait()
            if self._child.stdout is not None:
                self._child.stdout.close()
            self._child = None
        if self._log is not None:
            self._log.close()
            self._log = None


def _how_it_ended(code: int) -> str:
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exited with status {code}"


def serve() -> None:
    """The child: compile each request until the parent closes the pipe."""
    answers = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # whatever the library prints goes with its diagnostics
    requests = os.fdopen(0, "rb")
    import iree.compiler.api as api  # the child exists to load it

    while (request := _receive(requests)) is not None:
        text, flags = request
        session = api.Session()
        try:
            session.set_flags(*flags)
            inv = session.invocation()
            inv.enable_console_diagnostics()
            source = api.Source.wrap_buffer(session, text.encode())
            answer: tuple[str, bytes] = ("error", b"")
            if inv.parse_source(source) and inv.execute():
                output = api.Output.open_membuffer()
                inv.output_vm_bytecode(output)
                answer = ("ok", bytes(output.map_memory()))
        finally:
            session.close()
        sys.stderr.flush()
        _send(answers, answer)


if __name__ == "__main__":
    serve()
