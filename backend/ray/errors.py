"""The errors of the distributed engine: one type, naming the stage or rank at fault."""

from __future__ import annotations

from mindjit.support.config import RAY_MISSING
from mindjit.support.errors import MindjitError


class DistributedError(MindjitError, RuntimeError):
    """The cluster cannot run the program: Ray missing, a cluster that does not
    answer, actors it cannot place, a stage or replica that died mid-step."""


def ray_missing() -> DistributedError:
    return DistributedError(RAY_MISSING)
