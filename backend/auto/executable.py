"""`AutoExecutable`: run on the numpy executor now, on IREE later if IREE is faster.

Why: the two CPU backends win on different programs and cost different compile
times. The numpy executor plans a graph in tens of milliseconds; IREE compiles
in 1-10 s but runs a transformer's train step about twice as fast (the GPT-like
step of issue 41: 97 ms against 173 ms, both measured with the other core busy),
while it runs the conv nets 1.25-2x slower (README, "Running graphs"). Which one
wins depends on the program and the machine, so `backend="auto"` measures:

1. The first call runs on the numpy executor, planned synchronously, so the
   compile a user waits for is the numpy executor's.
2. IREE compiles meanwhile in a background thread (`iree-compile` itself runs
   in its child process: backend/iree/compile_process.py). The thread only
   reads the module (IREE's preparation rewrites its own clone) and nothing
   writes a compiled module (the numpy executor and the compile cache read it),
   so the two threads share it; cloning it first cost 79 ms of the GPT-like
   train step's 0.42 s compile. A program IREE cannot compile stays on numpy, quietly
   (`iree_error` says why): numpy is one of the two choices, not a fallback.
3. Once IREE is ready and the numpy executor has TRIAL_CALLS timed calls, the
   next call runs on IREE untimed (its first call maps buffers), the following
   TRIAL_CALLS are timed, and the faster median keeps the program (`chosen`;
   `timings` keeps the seconds).

Switching engines moves the state: every global the module declares is read
from the engine that ran last and given to the next (the frontend passes the
Parameters on every call anyway; this also carries the ones it does not own).
If IREE itself fails running a call (`IreeRunError`: an IREE bug, such as
iree-org/iree#24753, never a check of the program's own), the program goes
back to numpy for good, with one line on stderr, and the call runs again there:
IREE writes its results only when a call returns, so the failed call changed
nothing.

The results of the two engines agree within 1e-5 relative, not bit for bit
(tests/frontend/test_iree_backend_*.py), so a program's values may change in
the last bits when it switches; the choice is per program and made once.
"""

from __future__ import annotations

import statistics
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.ml_program import GlobalOp

from mindjit.backend.cpu import CpuExecutable
from mindjit.backend.iree.executable import IreeRunError
from mindjit.passes.mindir_to_tensor.state import CHANNEL_PREFIX

#: timed calls per engine before choosing (medians of three: one slow call, from a
#: page fault or another process, does not decide)
TRIAL_CALLS = 3


class AutoExecutable:
    """The numpy executor, then IREE if it runs the entry faster (module doc)."""

    backend = "auto"

    def __init__(self, module: ModuleOp, entry: str, compile_iree: Callable[[ModuleOp], Any]):
        self.entry = entry
        self.numpy = CpuExecutable(module)
        self.iree: Any = None
        self.iree_error: str | None = None
        #: "numpy" or "iree" once chosen; None while measuring
        self.chosen: str | None = None
        self.timings: dict[str, list[float]] = {"numpy": [], "iree": []}
        self.trial_calls = TRIAL_CALLS  # the fuzzer makes it 1, to switch within 3 calls
        self._untimed = False  # the next call (IREE's first) is not timed
        self._current: Any = self.numpy
        self._globals = [
            op.sym_name.data
            for op in module.body.block.ops
            if isinstance(op, GlobalOp) and not op.sym_name.data.startswith(CHANNEL_PREFIX)
        ]
        self.ready = threading.Event()
        self._thread = threading.Thread(
            target=self._compile, args=(compile_iree, module), name="mindjit-iree", daemon=True
        )
        self._thread.start()

    def _compile(self, compile_iree: Callable[[ModuleOp], Any], module: ModuleOp) -> None:
        try:
            exe = compile_iree(module)
            exe.plan_for(self.entry)
        except Exception as exc:  # noqa: BLE001 - any failure leaves the program on numpy
            self.iree_error = getattr(exc, "message", None) or f"{type(exc).__name__}: {exc}"
            self.chosen = "numpy"
        else:
            self.iree = exe
        finally:
            self.ready.set()

    @property
    def current(self) -> str:
        """The engine the next call runs on."""
        return "iree" if self._current is self.iree and self.iree is not None else "numpy"

    # -- the executable interface -------------------------------------------------------

    def plan_for(self, name: str) -> Any:
        return self.numpy.plan_for(name)

    def signature(self, name: str) -> tuple[list[Any], list[Any]]:
        return self.numpy.signature(name)

    def entry_names(self) -> list[str]:
        return self.numpy.entry_names()

    def set_global(self, name: str, value: Any) -> None:
        self._current.set_global(name, value)

    def get_global(self, name: str) -> np.ndarray:
        return self._current.get_global(name)

    def run(self, name: str, *args: Any) -> tuple[np.ndarray, ...]:
        if name != self.entry:
            return self._current.run(name, *args)
        self._next_engine()
        engine, start = self.current, time.perf_counter()
        try:
            outputs = self._current.run(name, *args)
        except IreeRunError as exc:
            if engine != "iree":
                raise
            self._give_up_iree(f"IREE failed running this graph ({exc.message})")
            return self._current.run(name, *args)
        seconds = time.perf_counter() - start
        if self.chosen is None:
            if self._untimed:
                self._untimed = False  # IREE's first call maps its buffers
            else:
                self.timings[engine].append(seconds)
        return outputs

    # -- choosing -----------------------------------------------------------------------

    def _next_engine(self) -> None:
        """Move to IREE to measure it, or settle, before a call of the entry."""
        if self.chosen is not None or not self.ready.is_set():
            return
        if self.current == "numpy":
            if len(self.timings["numpy"]) >= self.trial_calls:
                self._switch(self.iree)
                self._untimed = True
            return
        if len(self.timings["iree"]) < self.trial_calls:
            return
        numpy_s = statistics.median(self.timings["numpy"][-self.trial_calls :])
        iree_s = statistics.median(self.timings["iree"])
        self.chosen = "iree" if iree_s < numpy_s else "numpy"
        if self.chosen == "numpy":
            self._switch(self.numpy)

    def _switch(self, to: Any) -> None:
        """Run the next calls on `to`, with the state the last engine left."""
        if to is self._current:
            return
        for name in self._globals:
            to.set_global(name, self._current.get_global(name))
        self._current = to

    def _give_up_iree(self, why: str) -> None:
        print(f"mindjit: {why}: running this graph on the numpy executor", file=sys.stderr)
        self.iree_error = why
        self.chosen = "numpy"
        self._switch(self.numpy)
