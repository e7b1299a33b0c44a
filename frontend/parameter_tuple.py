"""`ParameterTuple`: a tuple of Parameters, as MindSpore's training code passes them.

    self.weights = ParameterTuple(network.trainable_params())
    grads = C.GradOperation(get_by_list=True)(self.network, self.weights)(x, y)
    self.moments = self.weights.clone(prefix="moments", init="zeros")

It is a `tuple` subclass and nothing more at run time, so everything that takes
a tuple of Parameters takes it unchanged: GradOperation's and ms.grad's
`weights`, an optimizer's parameters, and graph mode, where a Cell attribute
holding it is a tuple of the graph's Parameters like any other (its signature
names the type, frontend/structure.py). What it adds is MindSpore's
checks when it is made (Parameters only; one Parameter listed twice is kept
twice, two different Parameters of one name are refused) and `clone`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from mindjit.frontend.tensor import Parameter


class ParameterTuple(tuple):
    """`ParameterTuple(iterable)`: a tuple of Parameters with unique names."""

    def __new__(cls, iterable: Iterable[Any]) -> ParameterTuple:
        data = tuple(iterable)
        seen: set[int] = set()
        names: set[str] = set()
        for x in data:
            if not isinstance(x, Parameter):
                raise TypeError(
                    "For ParameterTuple initialization, ParameterTuple input should be "
                    f"'Parameter' collection, but got a {type(x).__name__} in a "
                    f"{type(iterable).__name__}."
                )
            if id(x) in seen:
                continue
            if x.name in names:
                raise ValueError(
                    f"The value {x} , its name '{x.name}' already exists. "
                    "Please set a unique name for the parameter."
                )
            names.add(x.name)
            seen.add(id(x))
        return super().__new__(cls, data)

    def clone(self, prefix: str, init: Any = "same") -> ParameterTuple:
        """New Parameters named `<prefix>.<name>`, of the same shapes and dtypes: the
        same values, or filled as `init` says (a Tensor, a number, an initializer name)."""
        if not isinstance(prefix, str) or not prefix:
            raise TypeError(
                f"For 'ParameterTuple.clone', 'prefix' must be a non-empty str, got {prefix!r}"
            )
        clones = []
        for p in self:
            c = p.clone(init)
            c.name = f"{prefix}.{p.name}"
            clones.append(c)
        return ParameterTuple(clones)


__all__ = ["ParameterTuple"]
