"""Device memory of the simulated Ascend-like target: plan vs lower bound, cell
reuse levels, and Load elimination levels.

Each network is compiled in graph mode with `device_target="Ascend"` and run
once on the simulator; the numbers come from its report:

1. Memory plan quality: for the GPT-like model of examples/gpt.py (with
   @lazy_inline, N Blocks, hidden 128, sequence 32) at MS_DEV_CELL_REUSE=1 and 2,
   and two other networks (the README demo's classifier, the docs' MLP train
   step with Adam): activation memory (the heap and the reused graphs' regions)
   against its lower bound (largest sum of simultaneously live tensor sizes).
   Target: ratio at most 1.10.
2. Cell reuse: level 2 (inlined before order and memory planning) peak against
   level 1 (one sub-sequence per reused graph, region of its own). Target:
   level 2 at most level 1.
3. Load elimination: MS_DEV_SIDE_EFFECT_LOAD_ELIM 0..3 on the MLP train step
   (Adam: each Parameter read and assigned) and the docs' BackwardNet:
   TensorMove kernels and bytes, and peak memory.

    .venv/bin/python benchmarks/ascend_memory.py [--sizes 16,64]
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples"))
sys.path.insert(0, str(ROOT / "benchmarks"))

import mindjit as ms  # noqa: E402
from mindjit import Tensor, nn  # noqa: E402
from mindjit.frontend.graph import api  # noqa: E402
from mindjit.frontend.nn.init import set_seed  # noqa: E402


def _report(run) -> dict:
    """Run once on the device (fresh program cache), return the simulator report."""
    api.clear_cache()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run()
    (program,) = api.cached_programs()
    report = dict(program.executable.report)
    report["graphs"] = len(program.executable.simulator.model.graphs)
    report["tensor_moves"] = sum(
        1
        for g in program.executable.simulator.model.graphs
        for s in g.sequence
        if s.op == "kernel" and s.name == "TensorMove"
    )
    return report


def gpt(layers: int):
    from gpt import GPT, GPTConfig

    def run():
        set_seed(0)
        net = GPT(GPTConfig(layers, hidden=128, seq=32), True)
        x = Tensor(np.random.default_rng(0).standard_normal((1, 32, 128)).astype(np.float32))
        net(x)

    return run


def classifier():
    from demo import Classifier

    def run():
        Classifier()(Tensor(np.random.default_rng(0).standard_normal((4, 16)).astype(np.float32)))

    return run


class MLP(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(64, 256)
        self.act = nn.ReLU()
        self.fc2 = nn.Dense(256, 10)

    def construct(self, x):
        return self.fc2(self.act(self.fc1(x)))


def train_step():
    def run():
        set_seed(0)
        network, loss_fn = MLP(), nn.MSELoss()
        optimizer = nn.Adam(network.trainable_params(), 0.01)

        def forward_fn(data, label):
            return loss_fn(network(data), label)

        grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters)

        @ms.jit
        def step(data, label):
            loss, grads = grad_fn(data, label)
            optimizer(grads)
            return loss

        rng = np.random.default_rng(0)
        step(
            Tensor(rng.standard_normal((32, 64)).astype(np.float32)),
            Tensor(rng.standard_normal((32, 10)).astype(np.float32)),
        )

    return run


def backward_net():
    sys.path.insert(0, str(ROOT / "tests" / "frontend"))
    import grad_programs as G

    def run():
        G.BackwardNet(G.ForwardNet())(ms.tensor(np.array(1), ms.int32))

    return run


def _with_env(name: str, value: str, fn):
    old = os.environ.get(name)
    os.environ[name] = value
    try:
        return fn()
    finally:
        if old is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = old


def _kib(n: int) -> str:
    return f"{n / 1024:.1f}"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", default="16,64", help="GPT Block counts")
    args = p.parse_args()
    ms.set_context(mode=ms.GRAPH_MODE, device_target="Ascend")
    sizes = [int(s) for s in args.sizes.split(",")]

    print("## Memory plan against the lower bound (activations: heap + reused graphs' regions)\n")
    print(
        "| network | cell reuse | graphs | activations KiB | lower bound KiB | ratio | total KiB |"
    )
    print("|---|---|---|---|---|---|---|")
    reuse_rows = []
    nets = [(f"GPT N={n}", gpt(n)) for n in sizes]
    nets += [("demo classifier", classifier()), ("MLP train step (Adam)", train_step())]
    for name, run in nets:
        peaks = {}
        for level in ("1", "2"):
            r = _with_env("MS_DEV_CELL_REUSE", level, lambda run=run: _report(run))
            heap, lower = r["heap_bytes"], r["heap_lower_bound_bytes"]
            peaks[level] = r["peak_memory_bytes"]
            print(
                f"| {name} | {level} | {r['graphs']} | {_kib(heap)} | {_kib(lower)} | "
                f"{heap / lower if lower else 1.0:.3f} | {_kib(r['peak_memory_bytes'])} |"
            )
        reuse_rows.append((name, peaks["1"], peaks["2"]))

    print("\n## Cell reuse: peak device memory, level 2 against level 1\n")
    print("| network | level 1 KiB | level 2 KiB | level 2 / level 1 |")
    print("|---|---|---|---|")
    for name, one, two in reuse_rows:
        print(f"| {name} | {_kib(one)} | {_kib(two)} | {two / one:.3f} |")

    print("\n## Load elimination levels: TensorMove kernels, bytes copied, peak memory\n")
    print("| network | level | TensorMoves | TensorMove bytes | peak KiB | time us |")
    print("|---|---|---|---|---|---|")
    for name, run in (("MLP train step (Adam)", train_step()), ("BackwardNet", backward_net())):
        for level in ("0", "1", "2", "3"):
            r = _with_env("MS_DEV_SIDE_EFFECT_LOAD_ELIM", level, lambda run=run: _report(run))
            print(
                f"| {name} | {level} | {r['tensor_moves']} | {r['tensor_move_bytes']} | "
                f"{_kib(r['peak_memory_bytes'])} | {r['total_time_us']:.1f} |"
            )


if __name__ == "__main__":
    main()
