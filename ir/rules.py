"""Per-op rules of one compiler stage, keyed by the concrete op class.

Every stage that treats ops one by one (lowering, gradients, batching, CPU
kernels, device kernels) keeps what it knows about each op in a `RuleTable`:
`@TABLE.register(AddOp, SubOp)` puts a rule there, `TABLE.get(type(op))`
finds it. The lookup is by the op's own class only: a rule registered for one
class never serves another, not even a subclass, so a new op derived from an
existing one (`ReduceProdOp(ReduceOp)`) has no rule until it is given one and
is reported missing by name (`missing`), never lowered, differentiated or run
as its base class's op. A rule that is truly generic is registered once for
every class it serves (`register(*ELEMENTWISE_OPS)`), and registering an
abstract base class (one without an op name of its own) is an error. A stage
can also name op classes it deliberately has no rule for, with the reason
(`exclude`): the completeness test (tests/registry/test_op_registry.py)
accepts a rule or a stated exclusion for every op of a dialect, nothing else.
An exclusion is either "nothing to do" (a constant has no gradient) or
`refused` (the stage cannot handle the op yet and says why when it meets one).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

from xdsl.ir import Operation

R = TypeVar("R")


class RuleTable(Generic[R]):
    """`stage`: the stage's name (a pass name); `where`: the file(s) its rules live
    in and `noun` what a rule is ("adjoint rule"), both named when an op has none."""

    def __init__(self, stage: str, where: str, noun: str = "rule"):
        self.stage = stage
        self.where = where
        self.noun = noun
        self._rules: dict[type[Operation], R] = {}
        self._excluded: dict[type[Operation], tuple[str, bool]] = {}

    def register(self, *classes: type[Operation]) -> Callable[[R], R]:
        """Decorator: `rule` is the rule of each of `classes`."""

        def add(rule: R) -> R:
            for cls in classes:
                self.add(cls, rule)
            return rule

        return add

    def add(self, cls: type[Operation], rule: R) -> None:
        if "name" not in vars(cls):
            raise ValueError(
                f"{self.stage}: {cls.__name__} is not a concrete op (no name of its own); "
                "register the rule for each op class it serves"
            )
        if cls in self._rules:
            raise ValueError(f"{self.stage}: a rule for {cls.__name__} is registered twice")
        self._rules[cls] = rule

    def exclude(self, reason: str, *classes: type[Operation], refused: bool = False) -> None:
        """These classes deliberately have no rule in this stage, because `reason`;
        `refused`: the stage cannot handle them and says `reason` when it meets one
        (else it has nothing to do for them)."""
        for cls in classes:
            self._excluded[cls] = (reason, refused)

    def get(self, cls: type) -> R | None:
        """The rule registered for exactly `cls` (a subclass does not inherit it)."""
        return self._rules.get(cls)

    def excluded(self, cls: type) -> str | None:
        """Why `cls` has no rule, if the stage says so."""
        found = self._excluded.get(cls)
        return found[0] if found is not None else None

    def refused(self, cls: type) -> str | None:
        """Why the stage cannot handle `cls`, if it is excluded as refused."""
        found = self._excluded.get(cls)
        return found[0] if found is not None and found[1] else None

    def missing(self, cls: type) -> str:
        """The error for an op class with neither a rule nor a stated exclusion."""
        name = getattr(cls, "name", cls.__name__)
        inherited = [
            getattr(base, "name", base.__name__)
            for base in cls.__mro__[1:]
            if base in self._rules and getattr(base, "name", None) != name
        ]
        hint = f"; its base class's rule ({inherited[0]}) is not used for it" if inherited else ""
        return f"{self.stage}: no {self.noun} for '{name}' ({self.where}){hint}"

    def __iter__(self) -> Iterator[type[Operation]]:
        return iter(self._rules)

    def __contains__(self, item: object) -> bool:
        """A class with a rule of its own, or an op name one has."""
        if isinstance(item, str):
            return any(getattr(cls, "name", None) == item for cls in self._rules)
        return isinstance(item, type) and item in self._rules
