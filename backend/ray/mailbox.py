"""An actor's incoming channels: tag -> the tensor a peer delivered, until taken.

A stage graph's receive blocks until its tag's tensor has arrived (another
actor's send calls `deliver` on this actor: Ray runs that call on another
thread of the actor while the stage graph runs). A receive must never wait
forever: when a peer fails, the driver calls `abort` on every survivor, and a
waiting receive raises `ChannelAborted` (with the driver's reason) at once.
A failed step's actors are killed, never reused, so nothing of it leaks into
the next step; a step must not clear the mailbox when it starts, since a peer
that started first may already have delivered to it (a lost activation would
hang the pipeline).
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from mindjit.backend.cpu.pipeline_run import ChannelAborted


class Mailbox:
    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._values: dict[str, Any] = {}
        self._aborted: str | None = None

    def deliver(self, tag: str, value: Any) -> None:
        with self._cond:
            self._values[tag] = value
            self._cond.notify_all()

    def abort(self, reason: str) -> None:
        with self._cond:
            self._aborted = reason
            self._cond.notify_all()

    def take(self, tag: str) -> np.ndarray:
        """The tensor sent under `tag` (waits until it arrives or the step aborts).
        Ray hands large arrays over read-only (zero-copy from its object store):
        the executor may write into what it receives, so it gets a copy then."""
        with self._cond:
            while tag not in self._values:
                if self._aborted is not None:
                    raise ChannelAborted(self._aborted)
                self._cond.wait()
            value = self._values.pop(tag)
        if isinstance(value, np.ndarray) and not value.flags.writeable:
            value = value.copy()
        return value
