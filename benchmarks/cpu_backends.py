"""CPU backends side by side (issue 25): the numpy executor, IREE, and what else runs the
same workload on this machine, one table per workload.

Workloads (graph mode, seeded weights, the same inputs in every row):

- gpt4 / gpt16: the GPT-like forward of examples/gpt.py (LazyBlocks as MindSpore's docs
  decorate them; `--no-lazy` for plain Blocks), hidden 256, sequence 32, batch 1;
- mlp16: the 16-block MLP of benchmarks/executor_overhead.py (`tanh(x @ W_i + b_i)`,
  batch 32, hidden 256), as an `ms.jit` function of x and the weights;
- train: the train step of benchmarks/train_step.py (3-layer MLP 128-256-256-10,
  batch 64, MSELoss, SGD), forward + backward + update in one graph;
- lenet5 / resnet18: the zoo's train steps (examples/models/zoo.py, as
  benchmarks/models.py runs them; the model's own batch).

Rows: numpy executor (MINDJIT_BACKEND=numpy), IREE (MINDJIT_BACKEND=iree; the row
says "n/a (error: ...)" when the backend cannot run it, or when the program still
ran on the numpy executor), numpy by hand (mlp16 and train: the existing
benchmarks' functions), torch eager / torch.compile / jax.jit when importable
(mlp16, gpt, train; never a dependency).

Columns: compile s = the first call (trace, passes, lowering, backend compile and
one run); run ms = median of the steady calls after one more warm-up call;
GFLOP/s = the workload's FLOPs / run time, counted analytically: 2*M*N*K per
matmul, 2*B*OH*OW*Cout*Cin*KH*KW per convolution (elementwise ops, norms and
softmax not counted), a train step counted as 3x its forward (backward ~ 2x).
Per call: GPT 2*S*(4*H*H + 2*H*F) + 4*S*S*H per Block (F = 4H); MLP N*2*B*H*H.
peak = the single-core limit, measured here: a 1024x1024 float32 numpy matmul
with one BLAS thread (median of 10 calls, the best of 3 processes, measured
again before each workload: on the 2-core development machine it reads 175-192
GFLOP/s when the other core is idle and about 96 when another process computes
on it, so compare a workload only with the peak printed with it). The ratios: speed-up over the numpy
executor, and GFLOP/s / peak.

Two thread settings, each measurement in fresh processes (this script with
--worker, printing one JSON line; medians over --processes 3 of them, in rounds
over the rows): 1 thread (OMP/OPENBLAS/MKL_NUM_THREADS=1,
MINDJIT_IREE_DRIVER=local-sync) and default threads (MINDJIT_IREE_DRIVER=local-task).
Results: the workers save the first call's outputs (and a train step's
parameters after it); IREE's must equal the numpy executor's within 1e-5
relative (max |a - b| / max |b| per array).

Targets (1 thread): GPT N=16 forward IREE >= 3x the numpy executor and >= the
peak GFLOP/s; MLP train step IREE >= 1.5x numpy by hand; results equal on
every workload.

A full run takes about 2 min there with the IREE row n/a (the numpy executor at 1
thread: GPT N=16 18 ms = 45 GFLOP/s, a quarter of the peak); each IREE compile adds to it.

    .venv/bin/python benchmarks/cpu_backends.py [--quick] [--only gpt16,train] [--no-lazy]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mindjit import ops

ROOT = Path(__file__).resolve().parents[1]
for _path in (ROOT / "benchmarks", ROOT / "examples", ROOT / "examples" / "models"):
    sys.path.insert(0, str(_path))

from fresh_workers import load_npz, rel_err, save_npz, thread_env, worker_main  # noqa: E402
from fresh_workers import run_worker as _run_worker  # noqa: E402

GPT_HIDDEN, GPT_SEQ = 256, 32
MLP_BLOCKS = 16
TRAIN_FEATURES, TRAIN_HIDDEN, TRAIN_OUTPUTS, TRAIN_BATCH = 128, 256, 10, 64  # train_step.py's
TOLERANCE = 1e-5
SLOW_PROCESS_S = 60  # a cell slower than this (a long compile) is not repeated

# --- FLOPs, analytically -------------------------------------------------------------


def gpt_flops(layers: int, hidden: int = GPT_HIDDEN, seq: int = GPT_SEQ) -> float:
    ffn = 4 * hidden
    per_block = 2 * seq * (4 * hidden * hidden + 2 * hidden * ffn) + 2 * 2 * seq * seq * hidden
    return float(layers * per_block)


def mlp_flops() -> float:
    from executor_overhead import BATCH, HIDDEN

    return float(MLP_BLOCKS * 2 * BATCH * HIDDEN * HIDDEN)


def train_flops() -> float:
    forward = (
        2
        * TRAIN_BATCH
        * (
            TRAIN_FEATURES * TRAIN_HIDDEN
            + TRAIN_HIDDEN * TRAIN_HIDDEN
            + TRAIN_HIDDEN * TRAIN_OUTPUTS
        )
    )
    return 3.0 * forward


def _conv(batch: int, cin: int, cout: int, out_hw: int, k: int) -> int:
    return 2 * batch * cout * out_hw * out_hw * cin * k * k


def lenet5_flops(batch: int) -> float:
    forward = (
        _conv(batch, 1, 6, 28, 5)
        + _conv(batch, 6, 16, 10, 5)
        + 2 * batch * (400 * 120 + 120 * 84 + 84 * 10)
    )
    return 3.0 * forward


def resnet18_flops(batch: int, width: int = 16, hw: int = 32) -> float:
    """examples/models/resnet.py's resnet18(width): a 3x3 stem, four stages of two basic
    blocks (the first of stages 2-4 strided, with a 1x1 downsample), a Dense end point."""
    forward = _conv(batch, 3, width, hw, 3)
    cin = width
    for stage, stride in enumerate((1, 2, 2, 2)):
        cout = width * 2**stage
        hw //= stride
        for block in range(2):
            forward += _conv(batch, cin, cout, hw, 3) + _conv(batch, cout, cout, hw, 3)
            if block == 0 and (stride != 1 or cin != cout):
                forward += _conv(batch, cin, cout, hw, 1)
            cin = cout
    forward += 2 * batch * cin * 10
    return 3.0 * forward


# --- the rows of each workload (run inside a worker) ---------------------------------

Outputs = list[np.ndarray]


@dataclass
class Runner:
    """`call()` runs the workload once and returns its outputs as numpy arrays;
    `state()`, if any, the arrays a train step updated (read after the first call)."""

    call: Callable[[], Outputs]
    state: Callable[[], Outputs] | None = None


def _graph_mode() -> None:
    import mindjit as ms

    ms.set_context(mode=ms.GRAPH_MODE)


def _gpt_model(layers: int, lazy: bool):  # type: ignore[no-untyped-def]
    from lazy_inline import _model

    return _model(layers, lazy, GPT_HIDDEN, GPT_SEQ)


def _gpt_weights(net) -> dict[str, np.ndarray]:  # type: ignore[no-untyped-def]
    return {name: p.asnumpy() for name, p in net.parameters_and_names()}


def gpt_by_hand(lib, x, w: dict, layers: int):  # type: ignore[no-untyped-def]
    """examples/gpt.py's forward on torch or jax.numpy arrays (`lib` gives the few
    functions whose names differ); `w` maps the Parameters' names to arrays."""
    x = x.reshape(GPT_SEQ, GPT_HIDDEN)

    def norm(v, gamma, beta):  # type: ignore[no-untyped-def]
        mean = lib.mean(v)
        var = lib.mean((v - mean) * (v - mean))
        return (v - mean) / lib.sqrt(var + 1e-5) * gamma + beta

    for i in range(layers):
        p = lambda name: w[f"blocks.{i}.{name}"]  # noqa: B023, E731
        h = norm(x, p("ln1.gamma"), p("ln1.beta"))
        q, k, v = h @ p("q.weight").T, h @ p("k.weight").T, h @ p("v.weight").T
        scores = (q @ k.T) * (1.0 / GPT_HIDDEN**0.5)
        e = lib.exp(scores - lib.max(scores))
        x = x + ((e / lib.sum(e)) @ v) @ p("o.weight").T
        f = norm(x, p("ln2.gamma"), p("ln2.beta")) @ p("fc1.weight").T + p("fc1.bias")
        f = 0.5 * f * (1.0 + lib.tanh(0.7978845608028654 * (f + 0.044715 * f * f * f)))
        x = x + f @ p("fc2.weight").T + p("fc2.bias")
    return x.reshape(1, GPT_SEQ, GPT_HIDDEN)


class _TorchLib:
    def __init__(self):  # type: ignore[no-untyped-def]
        import torch

        self.torch = torch
        self.exp, self.sqrt, self.tanh = torch.exp, torch.sqrt, torch.tanh

    def mean(self, v):  # type: ignore[no-untyped-def]
        return v.mean(-1, keepdim=True)

    def max(self, v):  # type: ignore[no-untyped-def]
        return v.amax(-1, keepdim=True)

    def sum(self, v):  # type: ignore[no-untyped-def]
        return v.sum(-1, keepdim=True)


class _JaxLib:
    def __init__(self):  # type: ignore[no-untyped-def]
        import jax.numpy as jnp

        self.exp, self.sqrt, self.tanh = jnp.exp, jnp.sqrt, jnp.tanh
        self.jnp = jnp

    def mean(self, v):  # type: ignore[no-untyped-def]
        return self.jnp.mean(v, -1, keepdims=True)

    def max(self, v):  # type: ignore[no-untyped-def]
        return self.jnp.max(v, -1, keepdims=True)

    def sum(self, v):  # type: ignore[no-untyped-def]
        return self.jnp.sum(v, -1, keepdims=True)


def _torch(compiled: bool, threads: str, fn, *arrays):  # type: ignore[no-untyped-def]
    """A Runner calling torch `fn(*tensors)` (eagerly or torch.compile'd)."""
    import torch

    if threads == "1":
        torch.set_num_threads(1)
    tensors = [torch.from_numpy(np.ascontiguousarray(a)) for a in arrays]
    run = torch.compile(fn) if compiled else fn

    def call() -> Outputs:
        with torch.no_grad():
            return [run(*tensors).numpy()]

    return Runner(call)


def _jax(fn, *arrays):  # type: ignore[no-untyped-def]
    import jax

    run = jax.jit(fn)
    return Runner(lambda: [np.asarray(run(*arrays))])


def gpt_rows(layers: int, lazy: bool) -> dict[str, Callable[[str], Runner]]:
    def graph(_threads: str) -> Runner:
        _graph_mode()
        net, x = _gpt_model(layers, lazy)
        return Runner(lambda: [net(x).asnumpy()])

    def torch_row(compiled: bool) -> Callable[[str], Runner]:
        def make(threads: str) -> Runner:
            import torch

            net, x = _gpt_model(layers, lazy)
            w = {k: torch.from_numpy(v) for k, v in _gpt_weights(net).items()}
            lib = _TorchLib()
            return _torch(compiled, threads, lambda t: gpt_by_hand(lib, t, w, layers), x.asnumpy())

        return make

    def jax_row(_threads: str) -> Runner:
        import jax.numpy as jnp

        net, x = _gpt_model(layers, lazy)
        w = {k: jnp.asarray(v) for k, v in _gpt_weights(net).items()}
        lib = _JaxLib()
        return _jax(lambda t: gpt_by_hand(lib, t, w, layers), x.asnumpy())

    return {
        "numpy executor": graph,
        "IREE": graph,
        "torch eager": torch_row(False),
        "torch.compile": torch_row(True),
        "jax.jit": jax_row,
    }


def _mlp_inputs() -> list[np.ndarray]:
    """executor_overhead.py's inputs at N = 16: x, then W_i, b_i per block."""
    from executor_overhead import BATCH, HIDDEN

    rng = np.random.default_rng(MLP_BLOCKS)
    inputs = [rng.standard_normal((BATCH, HIDDEN)).astype(np.float32)]
    for _ in range(MLP_BLOCKS):
        inputs.append((rng.standard_normal((HIDDEN, HIDDEN)) / np.sqrt(HIDDEN)).astype(np.float32))
        inputs.append(rng.standard_normal(HIDDEN).astype(np.float32))
    return inputs


def _mlp_graph(x, params):  # type: ignore[no-untyped-def]
    for i in range(0, len(params), 2):
        x = ops.tanh(ops.matmul(x, params[i]) + params[i + 1])
    return x


def mlp_rows() -> dict[str, Callable[[str], Runner]]:
    def graph(_threads: str) -> Runner:
        import mindjit as ms

        inputs = _mlp_inputs()
        fn = ms.jit(_mlp_graph)
        x, params = ms.Tensor(inputs[0]), tuple(ms.Tensor(a) for a in inputs[1:])
        return Runner(lambda: [fn(x, params).asnumpy()])

    def by_hand(_threads: str) -> Runner:
        from executor_overhead import numpy_mlp

        inputs = _mlp_inputs()
        return Runner(lambda: [numpy_mlp(*inputs)])

    def torch_row(compiled: bool) -> Callable[[str], Runner]:
        def make(threads: str) -> Runner:
            import torch

            def fn(x, *params):  # type: ignore[no-untyped-def]
                for i in range(0, len(params), 2):
                    x = torch.tanh(x @ params[i] + params[i + 1])
                return x

            return _torch(compiled, threads, fn, *_mlp_inputs())

        return make

    def jax_row(_threads: str) -> Runner:
        import jax.numpy as jnp

        def fn(x, *params):  # type: ignore[no-untyped-def]
            for i in range(0, len(params), 2):
                x = jnp.tanh(x @ params[i] + params[i + 1])
            return x

        return _jax(fn, *_mlp_inputs())

    return {
        "numpy executor": graph,
        "IREE": graph,
        "numpy by hand": by_hand,
        "torch eager": torch_row(False),
        "torch.compile": torch_row(True),
        "jax.jit": jax_row,
    }


def _train_setup():  # type: ignore[no-untyped-def]
    """train_step.py's network (seed 0) and data."""
    from train_step import MLP

    import mindjit as ms

    rng = np.random.default_rng(0)
    x = rng.standard_normal((TRAIN_BATCH, TRAIN_FEATURES)).astype(np.float32)
    y = rng.standard_normal((TRAIN_BATCH, TRAIN_OUTPUTS)).astype(np.float32)
    ms.set_seed(0)
    net = MLP(TRAIN_FEATURES, TRAIN_HIDDEN, TRAIN_OUTPUTS)
    return net, x, y


def train_rows() -> dict[str, Callable[[str], Runner]]:
    def graph(_threads: str) -> Runner:
        from train_step import make_steps

        from mindjit import Tensor

        net, x, y = _train_setup()
        step, _ = make_steps(net)
        data, label = Tensor(x), Tensor(y)
        return Runner(
            lambda: [step(data, label).asnumpy()],
            lambda: [p.asnumpy() for p in net.trainable_params()],
        )

    def by_hand(_threads: str) -> Runner:
        from train_step import numpy_step

        net, x, y = _train_setup()
        params = [p.asnumpy().copy() for p in net.trainable_params()]
        return Runner(
            lambda: [np.asarray(numpy_step(params, x, y), np.float32)], lambda: list(params)
        )

    def torch_row(compiled: bool) -> Callable[[str], Runner]:
        def make(threads: str) -> Runner:
            import torch
            from train_step import LR

            net, x, y = _train_setup()
            if threads == "1":
                torch.set_num_threads(1)
            params = [torch.tensor(p.asnumpy(), requires_grad=True) for p in net.trainable_params()]
            tx, ty = torch.from_numpy(x), torch.from_numpy(y)

            def step():  # type: ignore[no-untyped-def]
                w1, b1, w2, b2, w3, b3 = params
                a1 = torch.relu(tx @ w1.T + b1)
                a2 = torch.relu(a1 @ w2.T + b2)
                loss = torch.mean((a2 @ w3.T + b3 - ty) ** 2)
                grads = torch.autograd.grad(loss, params)
                with torch.no_grad():
                    for p, g in zip(params, grads, strict=True):
                        p -= LR * g
                return loss.detach()

            run = torch.compile(step) if compiled else step
            return Runner(
                lambda: [run().numpy()], lambda: [p.detach().numpy().copy() for p in params]
            )

        return make

    def jax_row(_threads: str) -> Runner:
        from train_step import jax_step_fn

        net, x, y = _train_setup()
        step = jax_step_fn()
        state = {"params": [p.asnumpy().copy() for p in net.trainable_params()]}

        def call() -> Outputs:
            state["params"], loss = step(state["params"], x, y)
            return [np.asarray(loss)]

        return Runner(call, lambda: [np.asarray(p) for p in state["params"]])

    return {
        "numpy executor": graph,
        "IREE": graph,
        "numpy by hand": by_hand,
        "torch eager": torch_row(False),
        "torch.compile": torch_row(True),
        "jax.jit": jax_row,
    }


def zoo_rows(name: str) -> dict[str, Callable[[str], Runner]]:
    def graph(_threads: str) -> Runner:
        import zoo

        import mindjit as ms

        _graph_mode()
        model = zoo.get(name)
        inputs = model.batch(model.default_batch)
        ms.set_seed(1)
        net = model.build()
        step = model.train_step(net, True)
        return Runner(
            lambda: [step(*inputs).asnumpy()],
            lambda: [p.asnumpy() for p in net.trainable_params()],
        )

    return {"numpy executor": graph, "IREE": graph}


@dataclass(frozen=True)
class Workload:
    title: str
    flops: Callable[[], float]
    rows: Callable[[bool], dict[str, Callable[[str], Runner]]]  # (lazy) -> rows
    calls: int  # steady calls timed (--quick: a quarter)


def _zoo_batch(name: str) -> int:
    import zoo

    return zoo.get(name).default_batch


WORKLOADS: dict[str, Workload] = {
    "gpt4": Workload(
        "GPT-like N=4 forward (hidden 256, seq 32)", lambda: gpt_flops(4),
        lambda lazy: gpt_rows(4, lazy), 40,
    ),
    "gpt16": Workload(
        "GPT-like N=16 forward (hidden 256, seq 32)", lambda: gpt_flops(16),
        lambda lazy: gpt_rows(16, lazy), 20,
    ),
    "mlp16": Workload(
        "16-block MLP tanh(x @ W + b) forward (batch 32, hidden 256)", mlp_flops,
        lambda _lazy: mlp_rows(), 60,
    ),
    "train": Workload(
        "MLP train step (128-256-256-10, batch 64, MSELoss + SGD)", train_flops,
        lambda _lazy: train_rows(), 40,
    ),
    "lenet5": Workload(
        "LeNet5 train step (batch 32, Momentum)", lambda: lenet5_flops(_zoo_batch("lenet5")),
        lambda _lazy: zoo_rows("lenet5"), 10,
    ),
    "resnet18": Workload(
        "ResNet-18-shaped train step (width 16, batch 8, 32x32, TrainOneStepCell)",
        lambda: resnet18_flops(_zoo_batch("resnet18")), lambda _lazy: zoo_rows("resnet18"), 4,
    ),
}  # fmt: skip
QUICK = ("gpt4", "mlp16", "train")
GRAPH_ROWS = ("numpy executor", "IREE")
OPTIONAL = {"torch eager": "torch", "torch.compile": "torch", "jax.jit": "jax"}


# --- the worker: one row of one workload in this (fresh) process ---------------------


def check_backend(row: str) -> None:
    """The graph-mode rows must have run on the backend they are named after."""
    if row not in GRAPH_ROWS:
        return
    from mindjit.frontend.graph import api

    for program in api.cached_programs():
        on_numpy = type(program.executable).__module__.startswith("mindjit.backend.cpu")
        if on_numpy != (row == "numpy executor"):
            ran = "the numpy executor" if on_numpy else "another backend"
            raise RuntimeError(
                f"MINDJIT_BACKEND={os.environ.get('MINDJIT_BACKEND', '')} ran {ran} "
                f"({type(program.executable).__name__})"
            )


def worker(name: str, row: str, threads: str, calls: int, lazy: bool, out: str) -> dict:
    runner = WORKLOADS[name].rows(lazy)[row](threads)
    start = time.perf_counter()
    outputs = runner.call()
    compile_s = time.perf_counter() - start
    check_backend(row)
    outputs = outputs + (runner.state() if runner.state else [])
    save_npz(out, outputs)
    runner.call()  # warm-up
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        runner.call()
        times.append(time.perf_counter() - start)
    return {"compile_s": compile_s, "run_ms": statistics.median(times) * 1e3}


def peak_worker() -> dict:
    """GFLOP/s of a 1024x1024 float32 matmul (run with one BLAS thread)."""
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal((1024, 1024)).astype(np.float32) for _ in range(2))
    a @ b
    times = []
    for _ in range(10):
        start = time.perf_counter()
        a @ b
        times.append(time.perf_counter() - start)
    return {"gflops": 2 * 1024**3 / statistics.median(times) / 1e9}


# --- the parent: fresh processes, tables, targets ------------------------------------

THREADS = {"1": "1 thread", "default": "default threads"}


def worker_env(row: str, threads: str) -> dict[str, str]:
    env = thread_env(threads)
    env["MS_COMPILER_CACHE_ENABLE"] = "0"  # every compile is a cold one
    env["MINDJIT_BACKEND"] = "iree" if row == "IREE" else "numpy"
    env["MINDJIT_IREE_DRIVER"] = "local-sync" if threads == "1" else "local-task"
    return env


def run_worker(argv: list[str], env: dict[str, str]) -> dict:
    """This script's worker's JSON line, or {"error": one line} if it failed."""
    return _run_worker(__file__, argv, env)


def measure_peak() -> float:
    """The best of 3 fresh processes' single-core matmul GFLOP/s."""
    peaks = [run_worker(["--worker", "peak"], worker_env("numpy", "1")) for _ in range(3)]
    failed = [r["error"] for r in peaks if "error" in r]
    if failed:
        raise SystemExit(f"the peak measurement failed: {failed[0]}")
    return max(r["gflops"] for r in peaks)


def measure_workload(name: str, args: argparse.Namespace, tmp: str) -> dict:
    """Every row of `name` at both thread settings: {(threads, row): result}, the
    medians over --processes fresh processes (in rounds over the rows, so drift hits
    every row alike; a cell whose process took over SLOW_PROCESS_S runs once)."""
    work = WORKLOADS[name]
    calls = max(3, work.calls // 4) if args.quick else work.calls
    runs: dict[tuple[str, str], list[dict]] = {}
    for _ in range(args.processes):
        for threads in THREADS:
            for row in work.rows(not args.no_lazy):
                done = runs.setdefault((threads, row), [])
                module = OPTIONAL.get(row)
                if module and importlib.util.find_spec(module) is None:
                    done[:] = [{"missing": module}]
                    continue
                if done and ("error" in done[0] or done[0]["seconds"] > SLOW_PROCESS_S):
                    continue
                out = os.path.join(tmp, f"{name}-{threads}-{row.replace(' ', '_')}.npz")
                argv = ["--worker", name, "--row", row, "--threads", threads]
                argv += ["--calls", str(calls), "--out", out]
                argv += ["--no-lazy"] if args.no_lazy else []
                start = time.perf_counter()
                result = run_worker(argv, worker_env(row, threads))
                result["seconds"] = time.perf_counter() - start
                if "error" not in result and not done:
                    result["outputs"] = load_npz(out)  # the first process's
                done.append(result)
    results = {}
    for key, done in runs.items():
        results[key] = dict(done[0])
        if "run_ms" in done[0]:
            for field in ("compile_s", "run_ms"):
                results[key][field] = statistics.median(r[field] for r in done)
    return results


def print_workload(name: str, results: dict, peak: float) -> dict:
    """The table of one workload; returns the numbers the targets use."""
    work = WORKLOADS[name]
    flops = work.flops()
    print(f"\n### {work.title}: {flops / 1e6:.1f} MFLOP per call, single-core peak {peak:.1f} GFLOP/s\n")  # fmt: skip
    print("| threads | row | compile s | run ms | GFLOP/s | peak GFLOP/s | GFLOP/s / peak "
          "| speed-up vs numpy executor | max rel err vs numpy executor |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|")
    missing: set[str] = set()
    summary: dict = {"errs": [], "speedup": {}, "ratio_peak": {}, "vs_hand": {}}
    for threads, label in THREADS.items():
        base = results.get((threads, "numpy executor"), {})
        for (t, row), r in results.items():
            if t != threads:
                continue
            if "missing" in r:
                missing.add(f"{row}: {r['missing']} not installed")
                continue
            if "error" in r:
                print(f"| {label} | {row} | n/a (error: {r['error']}) | | | | | | |")
                if row == "IREE":
                    summary["errs"].append(float("inf"))
                continue
            gflops = flops / (r["run_ms"] * 1e-3) / 1e9
            speedup = err = ""
            if "run_ms" in base and row != "numpy executor":
                speedup = f"{base['run_ms'] / r['run_ms']:.2f}x"
                e = rel_err(r["outputs"], base["outputs"])
                err = f"{e:.1e}"
                if row == "IREE":
                    summary["errs"].append(e)
            if row == "IREE":
                summary["speedup"][threads] = (
                    base["run_ms"] / r["run_ms"] if "run_ms" in base else None
                )
                summary["ratio_peak"][threads] = gflops / peak
                hand = results.get((threads, "numpy by hand"), {})
                if "run_ms" in hand:
                    summary["vs_hand"][threads] = hand["run_ms"] / r["run_ms"]
            print(
                f"| {label} | {row} | {r['compile_s']:.2f} | {r['run_ms']:.3f} | {gflops:.1f} "
                f"| {peak:.1f} | {gflops / peak:.2f} | {speedup} | {err} |"
            )
    errs = summary["errs"]
    if not errs:
        print("\nresults equal: no (IREE not measured)")
    else:
        worst = max(errs)
        same = worst <= TOLERANCE
        shown = "IREE n/a" if worst == float("inf") else f"max rel err {worst:.1e}"
        print(f"\nresults equal: {'yes' if same else 'no'} ({shown})")
    summary["equal"] = bool(errs) and max(errs) <= TOLERANCE
    for note in sorted(missing):
        print(f"({note})")
    return summary


def _verdict(ok: bool | None) -> str:
    return "PASS" if ok else "FAIL"


def print_targets(summaries: dict[str, dict]) -> None:
    print("\n### Targets (1 thread)\n")
    gpt = summaries.get("gpt16")
    if gpt is None:
        print("- GPT N=16 forward: not measured (--quick / --only)")
    else:
        s, p = gpt["speedup"].get("1"), gpt["ratio_peak"].get("1")
        shown = f"{s:.2f}x" if s else "n/a"
        print(f"{_verdict(s is not None and s >= 3)}: GPT N=16 forward IREE >= 3x the numpy "
              f"executor ({shown})")  # fmt: skip
        shown = f"{p:.2f}" if p else "n/a"
        print(f"{_verdict(p is not None and p >= 1)}: GPT N=16 forward IREE GFLOP/s >= the "
              f"single-core peak (ratio {shown})")  # fmt: skip
    train = summaries.get("train")
    if train is None:
        print("- MLP train step: not measured (--only)")
    else:
        h = train["vs_hand"].get("1")
        shown = f"{h:.2f}x" if h else "n/a"
        print(f"{_verdict(h is not None and h >= 1.5)}: MLP train step IREE >= 1.5x numpy by "
              f"hand ({shown})")  # fmt: skip
    unequal = [name for name, s in summaries.items() if not s["equal"]]
    print(f"{_verdict(not unequal)}: results equal to the numpy executor within {TOLERANCE:g} "
          f"relative on every workload measured" + (f" (not: {', '.join(unequal)})" if unequal else ""))  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="gpt4, mlp16, train; fewer calls")
    parser.add_argument("--only", help=f"comma-separated, of {','.join(WORKLOADS)}")
    parser.add_argument("--no-lazy", action="store_true", help="GPT of plain Blocks")
    parser.add_argument("--processes", type=int, help="fresh processes per cell (3; --quick 1)")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--row", help=argparse.SUPPRESS)
    parser.add_argument("--threads", help=argparse.SUPPRESS)
    parser.add_argument("--calls", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        if args.worker == "peak":
            return worker_main(peak_worker)
        return worker_main(
            lambda: worker(
                args.worker, args.row, args.threads, args.calls, not args.no_lazy, args.out
            )
        )
    if args.processes is None:
        args.processes = 1 if args.quick else 3
    names = args.only.split(",") if args.only else list(QUICK if args.quick else WORKLOADS)
    unknown = [n for n in names if n not in WORKLOADS]
    if unknown:
        parser.error(f"unknown workload {', '.join(unknown)}; choose from {', '.join(WORKLOADS)}")
    started = time.perf_counter()
    print("CPU backends: medians over fresh processes per cell; the peak is measured again "
          "before each workload (other processes on the machine move it)")  # fmt: skip
    summaries = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            peak = measure_peak()
            summaries[name] = print_workload(name, measure_workload(name, args, tmp), peak)
            sys.stdout.flush()
    print_targets(summaries)
    print(f"\n(total {time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
