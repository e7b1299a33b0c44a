"""Training steps per second: whole-graph (@ms.jit) vs PyNative vs hand-written numpy.

A 3-layer MLP (Dense(features, hidden) - ReLU - Dense(hidden, hidden) - ReLU -
Dense(hidden, outputs), hidden 256, batch 64, f32) is trained with MSELoss and
SGD by the docs' train step:

    grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters)
    def train_step(data, label):
        loss, grads = grad_fn(data, label); optimizer(grads); return loss

- graph: `ms.jit(train_step)`, forward + backward + update in one compiled graph;
- pynative: the same function run op by op (tape + per-op bprop graphs);
- numpy: the same step written by hand in numpy (the floor: no framework);
- jax: `jax.jit` of the same step, when jax is installed.

Every mode starts from the same weights and data; the table gives steps per
second (median over rounds, compile excluded: warm-up steps first), the ratio
to numpy, and the loss after the last step (equal across modes up to float
rounding, which shows they compute the same training). Ratio that matters:
graph / pynative steps per second.

    .venv/bin/python benchmarks/train_step.py [--steps 50] [--rounds 5] [--hidden 256] [--batch 64]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np

import mindjit as ms
from mindjit import Tensor, nn

LR = 0.01


class MLP(nn.Cell):
    def __init__(self, features: int, hidden: int, outputs: int):
        super().__init__()
        self.fc1 = nn.Dense(features, hidden)
        self.fc2 = nn.Dense(hidden, hidden)
        self.fc3 = nn.Dense(hidden, outputs)
        self.relu = nn.ReLU()

    def construct(self, x):
        return self.fc3(self.relu(self.fc2(self.relu(self.fc1(x)))))


def make_steps(network: MLP) -> tuple[Callable, Callable]:
    """(graph step, PyNative step) of the docs' train step for `network`."""
    loss_fn = nn.MSELoss()
    optimizer = nn.SGD(network.trainable_params(), learning_rate=LR)

    def forward_fn(data, label):
        return loss_fn(network(data), label)

    grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters)

    def train_step(data, label):
        loss, grads = grad_fn(data, label)
        optimizer(grads)
        return loss

    return ms.jit(train_step), train_step


def numpy_step(params: list[np.ndarray], x: np.ndarray, y: np.ndarray) -> float:
    """One SGD step of the same MLP by hand (weights (out, in) as nn.Dense)."""
    w1, b1, w2, b2, w3, b3 = params
    h1 = x @ w1.T + b1
    a1 = np.maximum(h1, 0)
    h2 = a1 @ w2.T + b2
    a2 = np.maximum(h2, 0)
    out = a2 @ w3.T + b3
    diff = out - y
    loss = float(np.mean(diff * diff))
    d_out = (2.0 / diff.size) * diff
    d_w3, d_b3 = d_out.T @ a2, d_out.sum(0)
    d_h2 = (d_out @ w3) * (h2 > 0)
    d_w2, d_b2 = d_h2.T @ a1, d_h2.sum(0)
    d_h1 = (d_h2 @ w2) * (h1 > 0)
    d_w1, d_b1 = d_h1.T @ x, d_h1.sum(0)
    for p, g in zip(params, (d_w1, d_b1, d_w2, d_b2, d_w3, d_b3)):
        p -= np.float32(LR) * g.astype(np.float32)
    return loss


def jax_step_fn() -> Callable | None:
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        return None

    def loss_of(params, x, y):
        w1, b1, w2, b2, w3, b3 = params
        a1 = jnp.maximum(x @ w1.T + b1, 0)
        a2 = jnp.maximum(a1 @ w2.T + b2, 0)
        out = a2 @ w3.T + b3
        return jnp.mean((out - y) ** 2)

    @jax.jit
    def step(params, x, y):
        loss, grads = jax.value_and_grad(loss_of)(params, x, y)
        return [p - LR * g for p, g in zip(params, grads)], loss

    return step


def seconds_per_step(run: Callable[[], float], steps: int) -> tuple[float, float]:
    """(seconds per step, loss after the last) over `steps` calls of `run`."""
    start = time.perf_counter()
    loss = 0.0
    for _ in range(steps):
        loss = run()
    return (time.perf_counter() - start) / steps, loss


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=50, help="timed steps per round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--features", type=int, default=128)
    parser.add_argument("--outputs", type=int, default=10)
    args = parser.parse_args()

    rng = np.random.default_rng(0)
    x = rng.standard_normal((args.batch, args.features)).astype(np.float32)
    y = rng.standard_normal((args.batch, args.outputs)).astype(np.float32)
    ms.set_seed(0)
    template = MLP(args.features, args.hidden, args.outputs)
    init = [p.asnumpy().copy() for p in template.trainable_params()]

    def fresh_network() -> MLP:
        net = MLP(args.features, args.hidden, args.outputs)
        for p, value in zip(net.trainable_params(), init):
            p.set_data(Tensor(value.copy()))
        return net

    modes: dict[str, Callable[[], Callable[[], float]]] = {}

    def graph_mode() -> Callable[[], float]:
        step, _ = make_steps(fresh_network())
        data, label = Tensor(x), Tensor(y)
        return lambda: float(step(data, label).asnumpy())

    def pynative_mode() -> Callable[[], float]:
        _, step = make_steps(fresh_network())
        data, label = Tensor(x), Tensor(y)
        return lambda: float(step(data, label).asnumpy())

    def numpy_mode() -> Callable[[], float]:
        params = [p.copy() for p in init]
        return lambda: numpy_step(params, x, y)

    modes = {"graph (@ms.jit)": graph_mode, "pynative": pynative_mode, "numpy by hand": numpy_mode}
    jax_step = jax_step_fn()
    if jax_step is not None:

        def jax_mode() -> Callable[[], float]:
            state = {"params": [p.copy() for p in init]}

            def run() -> float:
                state["params"], loss = jax_step(state["params"], x, y)
                return float(loss)

            return run

        modes["jax.jit"] = jax_mode

    results: dict[str, tuple[float, float]] = {}
    for name, make in modes.items():
        run = make()
        for _ in range(args.warmup):
            run()  # compiles, caches the bprops
        times, loss = [], 0.0
        for _ in range(args.rounds):
            seconds, loss = seconds_per_step(run, args.steps)
            times.append(seconds)
        results[name] = (statistics.median(times), loss)

    floor = results["numpy by hand"][0]
    steps_done = args.warmup + args.rounds * args.steps
    print(
        f"3-layer MLP {args.features}-{args.hidden}-{args.hidden}-{args.outputs}, "
        f"batch {args.batch}, f32, MSELoss + SGD(lr={LR}); median of {args.rounds} rounds "
        f"x {args.steps} steps; loss after {steps_done} steps"
    )
    print()
    print("| mode | steps/s | ms/step | time vs numpy | final loss |")
    print("|---|---|---|---|---|")
    for name, (seconds, loss) in results.items():
        print(
            f"| {name} | {1 / seconds:.1f} | {seconds * 1e3:.3f} | {seconds / floor:.2f}x "
            f"| {loss:.6f} |"
        )
    if jax_step is None:
        print("| jax.jit | not installed | | | |")
    graph, pynative = results["graph (@ms.jit)"][0], results["pynative"][0]
    print()
    print("| ratio | value |")
    print("|---|---|")
    print(f"| graph / pynative steps per second | {pynative / graph:.2f} |")
    print(f"| graph / numpy time per step | {graph / floor:.2f} |")


if __name__ == "__main__":
    main()
