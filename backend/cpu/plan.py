"""A compiled function: a slot-array template, a step list and a result getter.

Built once per function by `FunctionCompiler`, then `invoke`d many times.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from mindjit.backend.cpu.steps import Slots, StepBlock

ResultGetter = Callable[[Slots], tuple[Any, ...]]


class Plan:
    """The run-time form of one `func.func`.

    Slots 0..n-1 hold the arguments; the rest start from `template`, which
    already contains every plan-time constant, so constants cost nothing per call.
    """

    __slots__ = ("name", "template", "body", "results", "ready", "side_effects", "num_steps")

    def __init__(self, name: str):
        self.name = name
        self.template: list[Any] = []
        self.body: StepBlock = StepBlock((), {})
        self.results: ResultGetter = lambda s: ()
        self.ready = False
        self.side_effects = True  # until compiled, assume the worst
        self.num_steps = 0

    def finish(
        self, template: list[Any], body: StepBlock, results: ResultGetter, side_effects: bool
    ) -> None:
        self.template = template
        self.body = body
        self.results = results
        self.side_effects = side_effects
        self.num_steps = len(body)
        self.ready = True

    def invoke(self, args: Sequence[Any]) -> tuple[Any, ...]:
        """Run with already-checked arguments; returns the raw result values."""
        s = [*args, *self.template]
        self.body(s)
        return self.results(s)


def result_getter(slots: Sequence[int], copy: Sequence[bool]) -> ResultGetter:
    """Read the returned slots, copying the ones that could alias inputs/constants."""
    idx = tuple(slots)
    if not any(copy):
        if len(idx) == 1:
            (i,) = idx
            return lambda s: (s[i],)
        return lambda s: tuple([s[i] for i in idx])
    pairs = tuple((i, bool(c)) for i, c in zip(idx, copy))

    def get(s: Slots) -> tuple[Any, ...]:
        return tuple([np.array(s[i]) if c else s[i] for i, c in pairs])

    return get
