"""The model zoo's networks, trained: compile time, train-step time in graph mode
and in PyNative, and device memory against its lower bound.

For each model of examples/models/zoo.py (seeded weights, a synthetic batch,
the model file's own train step):

- compile s: the first graph-mode step less a steady one (a fresh program cache);
- graph ms / PyNative ms: the median steady train step in each mode, timed
  once the LLVM kernels the CPU executor compiles in the background are done
  (a long training run's step; the calls before ran numpy's code); graph and
  PyNative start from the same weights, and their losses after the warm-up
  steps are printed side by side (they must agree);
- device: the forward compiled for `device_target="Ascend"` and run once on the
  simulator, its peak memory against the planner's lower bound.

Then convolution forward: `ops.conv2d` in graph mode against the same
convolution written by hand as im2col (numpy strided windows) + one matmul, the
floor for a numpy executor (and torch's conv2d when torch is importable).

Targets (issue 23): every model compiles and trains (loss falling); graph-mode
train step at least 3x faster than PyNative; convolution forward within 1.5x
of the hand-written im2col.

    .venv/bin/python benchmarks/models.py [--models lenet5,resnet18] [--steps 5] [--rounds 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples" / "models"))

import zoo  # noqa: E402

import mindjit as ms  # noqa: E402
from mindjit import Tensor, ops  # noqa: E402
from mindjit.backend.cpu import codegen_llvm  # noqa: E402
from mindjit.frontend.graph import api  # noqa: E402


def _median_step(run: Callable[[], float], steps: int, rounds: int) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(steps):
            run()
        times.append((time.perf_counter() - start) / steps)
    return statistics.median(times)


def train_times(model: zoo.ZooModel, batch: int, steps: int, rounds: int) -> dict:
    """Compile s, graph and PyNative ms per step, and the losses of both modes."""
    inputs = model.batch(batch)
    row: dict = {}
    for mode, graph in (("graph", True), ("pynative", False)):
        ms.set_context(mode=ms.GRAPH_MODE if graph else ms.PYNATIVE_MODE)
        api.clear_cache()
        ms.set_seed(1)
        net = model.build()
        step = model.train_step(net, graph)
        start = time.perf_counter()
        first = float(step(*inputs).asnumpy())
        first_s = time.perf_counter() - start
        losses = [first] + [float(step(*inputs).asnumpy()) for _ in range(2)]
        codegen_llvm.wait_all()
        seconds = _median_step(lambda s=step: float(s(*inputs).asnumpy()), steps, rounds)
        row[f"{mode}_ms"] = seconds * 1e3
        row[f"{mode}_losses"] = losses
        if graph:
            row["compile_s"] = first_s - seconds
    ms.set_context(mode=ms.PYNATIVE_MODE)
    return row


def device_memory(model: zoo.ZooModel, batch: int) -> tuple[int, int]:
    """(peak bytes, lower bound bytes) of the forward on the simulated device."""
    ms.set_context(mode=ms.GRAPH_MODE, device_target="Ascend")
    try:
        api.clear_cache()
        ms.set_seed(1)
        net = model.build()
        net.set_train(False)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            net(*model.batch(batch)[:-1])
        (program,) = api.cached_programs()
        report = program.executable.report
        return report["peak_memory_bytes"], report["lower_bound_bytes"]
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")


def im2col_conv(x: np.ndarray, w: np.ndarray, pad: int) -> np.ndarray:
    """Stride-1 convolution by hand: the padded input's windows copied into the
    im2col matrix (rows along the output width, the fast order) and one matmul."""
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    f, c, kh, kw = w.shape
    windows = np.lib.stride_tricks.sliding_window_view(xp, (kh, kw), axis=(2, 3))
    n, _, oh, ow = windows.shape[:4]  # windows: N, C, OH, OW, KH, KW
    cols = windows.transpose(1, 4, 5, 0, 2, 3).reshape(c * kh * kw, n * oh * ow)
    out = (w.reshape(f, -1) @ cols).reshape(f, n, oh, ow)
    return np.ascontiguousarray(out.transpose(1, 0, 2, 3))


def conv_times(shape: tuple[int, int, int, int], filters: int, steps: int, rounds: int) -> dict:
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape).astype(np.float32)
    w = rng.standard_normal((filters, shape[1], 3, 3)).astype(np.float32)
    ms.set_context(mode=ms.GRAPH_MODE)

    @ms.jit
    def conv(a, b):
        return ops.conv2d(a, b, pad_mode="pad", padding=1)

    tx, tw = Tensor(x), Tensor(w)
    ours = conv(tx, tw).asnumpy()
    ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(ours, im2col_conv(x, w, 1), rtol=1e-4, atol=1e-4)
    row = {
        "mindjit graph": _median_step(lambda: conv(tx, tw).asnumpy(), steps, rounds),
        "im2col + numpy matmul by hand": _median_step(lambda: im2col_conv(x, w, 1), steps, rounds),
    }
    try:
        import torch
    except ImportError:
        return row
    torch.set_num_threads(1)
    txt, twt = torch.from_numpy(x), torch.from_numpy(w)
    row["torch conv2d (1 thread)"] = _median_step(
        lambda: torch.nn.functional.conv2d(txt, twt, padding=1), steps, rounds
    )
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=",".join(zoo.MODELS))
    parser.add_argument("--steps", type=int, default=5, help="timed steps per round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--batch", type=int, default=0, help="0: each model's own")
    parser.add_argument("--conv", default="8,16,32,32", help="N,C,H,W of the conv case")
    args = parser.parse_args()

    print("| model | batch | compile s | graph ms/step | PyNative ms/step | PyNative / graph "
          "| losses graph | losses PyNative | device peak / lower bound |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|")
    worst = float("inf")
    for name in args.models.split(","):
        model = zoo.get(name)
        batch = args.batch or model.default_batch
        row = train_times(model, batch, args.steps, args.rounds)
        peak, lower = device_memory(model, batch)
        ratio = row["pynative_ms"] / row["graph_ms"]
        worst = min(worst, ratio)
        fmt = lambda losses: " ".join(f"{v:.4f}" for v in losses)  # noqa: E731
        print(
            f"| {name} | {batch} | {row['compile_s']:.2f} | {row['graph_ms']:.1f} | "
            f"{row['pynative_ms']:.1f} | {ratio:.2f}x | {fmt(row['graph_losses'])} | "
            f"{fmt(row['pynative_losses'])} | {peak / 2**20:.2f} / {lower / 2**20:.2f} MiB "
            f"({peak / lower:.2f}) |"
        )
    n, c, h, w = (int(v) for v in args.conv.split(","))
    conv = conv_times((n, c, h, w), c * 2, args.steps * 4, args.rounds)
    floor = conv["im2col + numpy matmul by hand"]
    print()
    print(f"conv2d forward, input {n}x{c}x{h}x{w}, {c * 2} filters 3x3, padding 1")
    print()
    print("| implementation | ms | vs im2col by hand |")
    print("|---|---|---|")
    for label, seconds in conv.items():
        print(f"| {label} | {seconds * 1e3:.3f} | {seconds / floor:.2f}x |")
    conv_ratio = conv["mindjit graph"] / floor
    print()
    print("| ratio | value | target | met |")
    print("|---|---|---|---|")
    print(f"| PyNative / graph train step (worst model) | {worst:.2f} | >= 3 | "
          f"{'yes' if worst >= 3 else 'no'} |")  # fmt: skip
    print(f"| conv forward / im2col by hand | {conv_ratio:.2f} | <= 1.5 | "
          f"{'yes' if conv_ratio <= 1.5 else 'no'} |")  # fmt: skip


if __name__ == "__main__":
    main()
