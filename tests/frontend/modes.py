"""Running one test in PyNative and in graph mode: `run` calls `fn` eagerly or
compiles it through a plain Python function (the `mode` fixture is in conftest.py)."""

from __future__ import annotations

from typing import Any

import mindjit as ms


def run(fn: Any, mode: int, *args: Any) -> Any:
    """`fn(*args)`, compiled as a graph (through a plain Python function) in graph mode."""
    if mode != ms.GRAPH_MODE:
        return fn(*args)

    def graph(*a):
        return fn(*a)

    return ms.jit(graph)(*args)


def train_losses(net: Any, x: Any, y: Any, lr: float, mode: int, steps: int = 6) -> list[float]:
    """The losses of `steps` TrainOneStepCell steps (CrossEntropyLoss, Adam at `lr`)
    in `mode`; the context is back to PyNative afterwards."""
    train = ms.nn.TrainOneStepCell(
        ms.nn.WithLossCell(net, ms.nn.CrossEntropyLoss()), ms.nn.Adam(net.trainable_params(), lr)
    )
    train.set_train()
    ms.set_context(mode=mode)
    try:
        return [float(train(x, y).asnumpy()) for _ in range(steps)]
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
