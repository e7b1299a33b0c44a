"""The model zoo's networks in one table, for tests/frontend/test_models.py and
benchmarks/models.py: how to build each (seeded), a synthetic batch, and its
train step as the model's own file writes it.

A train step is either a function (MindSpore 2.x's `value_and_grad` +
optimizer style, compiled with `ms.jit` in graph mode) or a Cell
(`nn.TrainOneStepCell`, compiled by GRAPH_MODE itself); `train_step(net, graph)`
hides the difference, so both modes run the very same step.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import mindjit as ms  # noqa: E402
from mindjit import nn  # noqa: E402


@dataclass(frozen=True)
class ZooModel:
    """One network: `build()` (call after `ms.set_seed`), `batch(n)` -> the
    network's inputs then the label, `step(net)` -> the train step (a function or
    a Cell) taking that whole batch."""

    name: str
    build: Callable[[], nn.Cell]
    batch: Callable[[int], tuple[Any, ...]]
    step: Callable[[nn.Cell], Any]
    default_batch: int

    def train_step(self, net: nn.Cell, graph: bool) -> Callable[..., Any]:
        step = self.step(net)
        if isinstance(step, nn.Cell):
            step.set_train()
            return step
        return ms.jit(step) if graph else step


def _lenet5() -> ZooModel:
    import lenet5

    return ZooModel("lenet5", lenet5.LeNet5, lenet5.synthetic_batch, lenet5.train_step_fn, 32)


def _resnet18() -> ZooModel:
    import resnet

    return ZooModel("resnet18", resnet.resnet18, resnet.synthetic_batch, resnet.train_net, 8)


def _quickstart() -> ZooModel:
    import quickstart

    return ZooModel(
        "quickstart", quickstart.Network, quickstart.synthetic_batch, quickstart.train_step_fn, 64
    )


def _bert() -> ZooModel:
    import bert

    return ZooModel("bert", bert.bert, bert.synthetic_batch, bert.train_net, 8)


def _lstm() -> ZooModel:
    import lstm

    return ZooModel("lstm", lstm.LSTMClassifier, lstm.synthetic_batch, lstm.train_net, 16)


def _sentiment() -> ZooModel:
    import sentiment

    return ZooModel(
        "sentiment", sentiment.build, sentiment.synthetic_batch, sentiment.train_step_fn, 16
    )


MODELS: dict[str, Callable[[], ZooModel]] = {
    "quickstart": _quickstart,
    "lenet5": _lenet5,
    "resnet18": _resnet18,
    "bert": _bert,
    "lstm": _lstm,
    "sentiment": _sentiment,
}


def _mobilenet() -> ZooModel:
    import mobilenet

    return ZooModel(
        "mobilenet", mobilenet.MobileNetV2, mobilenet.synthetic_batch, mobilenet.train_net, 8
    )


MODELS["mobilenet"] = _mobilenet


def get(name: str) -> ZooModel:
    return MODELS[name]()
