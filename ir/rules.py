"""Per-op rules of one compiler stage, keyed by op class.

Every stage that treats ops one by one (lowering, gradients, batching, CPU
kernels, device kernels) keeps what it knows about each op in a `RuleTable`:
`@TABLE.register(AddOp, SubOp)` puts a rule there, `TABLE.get(type(op))`
finds it. A rule registered for a base class (`BinaryOp`) serves every
subclass that has none of its own, so a rule that is truly generic is written
once; the lookup follows the class's MRO and is cached. A stage can also name
op classes it deliberately has no rule for, with the reason (`exclude`): the
completeness test (tests/registry/test_op_registry.py) accepts a rule or a
stated exclusion for every op of a dialect, nothing else. An exclusion is either
"nothing to do" (a constant has no gradient) or `refused` (the stage cannot
handle the op yet and says why when it meets one).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

from xdsl.ir import Operation

R = TypeVar("R")


class RuleTable(Generic[R]):
    def __init__(self, stage: str):
        self.stage = stage
        self._rules: dict[type[Operation], R] = {}
        self._excluded: dict[type[Operation], tuple[str, bool]] = {}
        self._cache: dict[type, R | None] = {}

    def register(self, *classes: type[Operation]) -> Callable[[R], R]:
        """Decorator: `rule` is the rule of each of `classes`."""

        def add(rule: R) -> R:
            for cls in classes:
                self.add(cls, rule)
            return rule

        return add

    def add(self, cls: type[Operation], rule: R) -> None:
        if cls in self._rules:
            raise ValueError(f"{self.stage}: a rule for {cls.__name__} is registered twice")
        self._rules[cls] = rule
        self._cache.clear()

    def exclude(self, reason: str, *classes: type[Operation], refused: bool = False) -> None:
        """These classes deliberately have no rule in this stage, because `reason`;
        `refused`: the stage cannot handle them and says `reason` when it meets one
        (else it has nothing to do for them)."""
        for cls in classes:
            self._excluded[cls] = (reason, refused)

    def get(self, cls: type) -> R | None:
        """The rule for `cls`, its own or its nearest base class's."""
        try:
            return self._cache[cls]
        except KeyError:
            pass
        found = None
        for base in cls.__mro__:
            if base in self._rules:
                found = self._rules[base]
                break
        self._cache[cls] = found
        return found

    def excluded(self, cls: type) -> str | None:
        """Why `cls` has no rule, if the stage says so."""
        found = self._excluded.get(cls)
        return found[0] if found is not None else None

    def refused(self, cls: type) -> str | None:
        """Why the stage cannot handle `cls`, if it is excluded as refused."""
        found = self._excluded.get(cls)
        return found[0] if found is not None and found[1] else None

    def __iter__(self) -> Iterator[type[Operation]]:
        return iter(self._rules)

    def __contains__(self, item: object) -> bool:
        """A class with a rule (its own or a base's), or an op name one has."""
        if isinstance(item, str):
            return any(getattr(cls, "name", None) == item for cls in self._rules)
        return isinstance(item, type) and self.get(item) is not None
