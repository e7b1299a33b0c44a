"""Transforms made of transforms: `Compose`, `RandomApply`, `RandomChoice`,
`RandomOrder` (`mindspore.dataset.transforms`).

Each holds a list of transforms or Python callables (checked as MindSpore's
`check_random_transform_ops` does) and passes its generator down, so a random
transform inside one draws from the pipeline's generator too. A step's tuple
result is the next step's arguments (a transform may turn one column into
several, as `Duplicate` does).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindjit.frontend.dataset.transforms.base import TensorOperation, apply, as_values
from mindjit.frontend.dataset.transforms.checks import check_ops, check_prob


def run_all(ops: list[Any], rng: np.random.Generator, arrays: tuple[Any, ...]) -> Any:
    values = list(arrays)
    for op in ops:
        values = as_values(apply(op, rng, values))
    return values[0] if len(values) == 1 else tuple(values)


class Compose(TensorOperation):
    """`Compose(transforms)`: the transforms in order, as one (a nested Compose is
    flattened into its parent, as MindSpore's `decompose` does)."""

    def __init__(self, transforms: list[Any]):
        ops = check_ops(transforms)
        self.transforms = [
            t for op in ops for t in (op.transforms if type(op) is Compose else [op])
        ]
        self.random = any(getattr(t, "random", True) for t in self.transforms)

    def __call__(self, *inputs: Any) -> Any:
        if not inputs:
            raise TypeError(
                "Compose was called without an image. Fix invocation (avoid it being invoked as "
                "Compose([...])())."
            )
        return super().__call__(*inputs)

    def compute(self, rng, *arrays):
        return run_all(self.transforms, rng, arrays)


class RandomApply(TensorOperation):
    """`RandomApply(transforms, prob=0.5)`: all the transforms, with probability `prob`."""

    random = True

    def __init__(self, transforms: list[Any], prob: float = 0.5):
        self.transforms = check_ops(transforms)
        check_prob(prob)
        self.prob = prob

    def compute(self, rng, *arrays):
        if rng.random() < self.prob:
            return run_all(self.transforms, rng, arrays)
        return arrays[0] if len(arrays) == 1 else arrays


class RandomChoice(TensorOperation):
    """`RandomChoice(transforms)`: one of the transforms, picked uniformly."""

    random = True

    def __init__(self, transforms: list[Any]):
        self.transforms = check_ops(transforms)

    def compute(self, rng, *arrays):
        return run_all([self.transforms[int(rng.integers(len(self.transforms)))]], rng, arrays)


class RandomOrder(TensorOperation):
    """`RandomOrder(transforms)`: all the transforms, in a random order."""

    random = True

    def __init__(self, transforms: list[Any]):
        self.transforms = check_ops(transforms)

    def compute(self, rng, *arrays):
        order = rng.permutation(len(self.transforms))
        return run_all([self.transforms[int(i)] for i in order], rng, arrays)
