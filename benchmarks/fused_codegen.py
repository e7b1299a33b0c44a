"""A/B of the CPU executor's fused-elementwise code generator (backend/cpu/codegen_llvm.py).

Three workloads, one thread: the GPT-like train step (examples/gpt.py, 4 Blocks,
hidden 256, seq 32, batch 8, MSE loss, SGD), the 8-Block forward (hidden 256,
seq 64, batch 1) and the LeNet5 train step (examples/models/zoo.py, batch 32).
Each is compiled twice in this process, codegen off (numpy) and on, and the two
are timed interleaved (alternating single calls, median of many) so that a busy
machine slows both alike; the table gives both medians, the ratio, the first
call of each (compile + run; LLVM compiles in the background meanwhile, its
seconds in brackets) and the largest difference of the outputs over their
largest magnitude.

A third table times mindjit's float32 tanh (backend/cpu/tanh_f32.py) on 64 x 1024
elements: np.tanh, numpy running the recipe (while the kernel compiles), the
recipe's whole-array kernel, with each one's largest error in ulp there. (Fused
into a loop nest, tanh's effect shows in the workloads' table above.)

A second table times the compiled row sums (backend/cpu/codegen_reduce.py) on
their own: `linalg.reduce` of addf over the last axis, one executable each way,
per call (exe.run, so the executor's entry is in both), and whether the two
results are bit-equal.

    .venv/bin/python benchmarks/fused_codegen.py [--calls 40] [--only row_sums|tanh]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "examples"))
sys.path.insert(0, str(ROOT / "examples" / "models"))

import mindjit as ms  # noqa: E402
from mindjit import Tensor, nn  # noqa: E402
from mindjit.backend.cpu import CpuExecutable, allocator, codegen_llvm, tanh_f32  # noqa: E402
from mindjit.dialects.parsing import parse_module  # noqa: E402
from mindjit.support import config  # noqa: E402


def gpt_step(batch: int = 8, layers: int = 4) -> Callable[[], Any]:
    import gpt  # examples/gpt.py: on the path set above

    ms.set_seed(0)
    config = gpt.GPTConfig(layers, hidden=256, seq=32, batch=batch)
    net = gpt.GPT(config, lazy=False)
    loss_fn = nn.MSELoss()
    opt = nn.SGD(net.trainable_params(), learning_rate=0.01)

    def forward(x, y):
        return loss_fn(net(x), y)

    grad_fn = ms.value_and_grad(forward, None, opt.parameters)

    @ms.jit
    def step(x, y):
        loss, grads = grad_fn(x, y)
        opt(grads)
        return loss

    rng = np.random.default_rng(0)
    x = Tensor(rng.standard_normal((batch, 32, 256)).astype(np.float32))
    y = Tensor(rng.standard_normal((batch, 32, 256)).astype(np.float32))
    return lambda: step(x, y)


def gpt_forward(layers: int = 8) -> Callable[[], Any]:
    import gpt  # examples/gpt.py: on the path set above

    ms.set_seed(0)
    config = gpt.GPTConfig(layers, hidden=256, seq=64, batch=1)
    net = gpt.GPT(config, lazy=False)
    x = Tensor(np.random.default_rng(1).standard_normal((1, 64, 256)).astype(np.float32))
    fn = ms.jit(lambda a: net(a))
    return lambda: fn(x)


def lenet_step() -> Callable[[], Any]:
    import zoo  # examples/models/zoo.py: on the path set above

    model = zoo.get("lenet5")
    ms.set_seed(0)
    net = model.build()
    step = model.train_step(net, graph=True)
    batch = model.batch(model.default_batch)
    return lambda: step(*batch)


WORKLOADS = {"gpt_step": gpt_step, "gpt8_forward": gpt_forward, "lenet5_step": lenet_step}

#: the row sums of the workloads above: LayerNorm's (rows x hidden), softmax's
#: (rows x seq, batch x heads x seq x seq) and the FFN's width
ROW_SUMS = [(64, 256), (64, 64), (256, 256), (256, 1024), (8, 4, 32, 32)]


def row_sum_text(shape: tuple[int, ...]) -> str:
    t_in = f"tensor<{'x'.join(map(str, shape))}xf32>"
    t_out = f"tensor<{'x'.join(map(str, shape[:-1]))}xf32>"
    return f"""
func.func @f(%x: {t_in}) -> {t_out} {{
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : {t_out}
  %i = linalg.fill ins(%zero : f32) outs(%e : {t_out}) -> {t_out}
  %r = linalg.reduce ins(%x : {t_in}) outs(%i : {t_out}) dimensions = [{len(shape) - 1}]
    (%a: f32, %b: f32) {{
      %s = arith.addf %a, %b : f32
      linalg.yield %s : f32
    }}
  func.return %r : {t_out}
}}
"""


def row_sums(calls: int) -> None:
    if not codegen_llvm.available():  # both executables would run numpy's reducer
        print("\nrow sums: llvmlite is not installed, nothing to compare")
        return
    print("\n| row sum of | numpy us | codegen us | ratio | bit-equal |")
    print("|---|---|---|---|---|")
    for shape in ROW_SUMS:
        x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
        exes = [
            CpuExecutable(parse_module(row_sum_text(shape)), codegen=on) for on in (False, True)
        ]
        outs = [e.run("f", x)[0] for e in exes]
        codegen_llvm.wait_all()
        outs[1] = exes[1].run("f", x)[0]
        times: list[list[float]] = [[], []]
        for _ in range(calls):
            for e, ts in zip(exes, times):
                t = time.perf_counter()
                for _ in range(50):
                    e.run("f", x)
                ts.append((time.perf_counter() - t) / 50)
        a, b = (statistics.median(ts) * 1e6 for ts in times)
        same = outs[0].tobytes() == outs[1].tobytes()
        print(
            f"| {' x '.join(map(str, shape))} | {a:.1f} | {b:.1f} | {b / a:.2f} | {'yes' if same else 'NO'} |"
        )


def _per_call(fn: Callable[[], Any], calls: int) -> float:
    """Median microseconds of `fn` over `calls` rounds of 20 calls."""
    times = []
    for _ in range(calls):
        t = time.perf_counter()
        for _ in range(20):
            fn()
        times.append((time.perf_counter() - t) / 20)
    return statistics.median(times) * 1e6


def _max_ulp(got: np.ndarray, x: np.ndarray) -> float:
    ref = np.tanh(x.astype(np.float64))
    spacing = np.spacing(np.abs(ref).astype(np.float32)).astype(np.float64)
    return float(np.max(np.abs(got.astype(np.float64) - ref) / spacing))


def tanh(calls: int) -> None:
    if not codegen_llvm.available():
        print("\nfloat32 tanh: llvmlite is not installed, numpy's np.tanh runs it")
        return
    allocator.keep_freed_memory()  # as inside the executor: freed pages are reused
    x = (np.random.default_rng(0).standard_normal((64, 1024)) * 3).astype(np.float32)
    codegen_llvm.tanh_f32_array(x)  # starts the kernel's compile
    codegen_llvm.wait_all()
    rows = [
        ("np.tanh", lambda: np.tanh(x)),
        ("numpy running the recipe", lambda: tanh_f32.tanh(x)),
        ("the recipe's kernel", lambda: codegen_llvm.tanh_f32_array(x)),
    ]
    print("\n| tanh of 64 x 1024 float32 | us per call | / np.tanh | largest error, ulp |")
    print("|---|---|---|---|")
    base = 0.0
    for label, fn in rows:
        us = _per_call(fn, calls)
        base = base or us
        print(f"| {label} | {us:.1f} | {us / base:.2f} | {_max_ulp(fn(), x):.2f} |")


def build(make: Callable[[], Callable[[], Any]], codegen: bool) -> tuple[Callable, float, Any]:
    config.set_cpu_codegen(codegen)
    ms.set_context(mode=ms.GRAPH_MODE)
    run = make()
    t = time.perf_counter()
    first = run()
    seconds = time.perf_counter() - t
    codegen_llvm.wait_all()  # the background compile: the timed calls run its code
    return run, seconds, np.asarray(first.asnumpy())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=40)
    parser.add_argument("--only", default="")
    args = parser.parse_args()
    names = [n for n in WORKLOADS if not args.only or n == args.only]
    if names:
        print(
            "| workload | numpy ms | codegen ms | ratio | first call s (numpy / codegen) "
            "| max diff / max abs |"
        )
        print("|---|---|---|---|---|---|")
    for name in names:
        make = WORKLOADS[name]
        run_a, c_a, out_a = build(make, False)
        before = codegen_llvm.compile_stats()["seconds"]
        run_b, c_b, out_b = build(make, True)
        llvm_ms = (codegen_llvm.compile_stats()["seconds"] - before) * 1e3
        ta, tb = [], []
        for _ in range(args.calls):
            for run, times in ((run_a, ta), (run_b, tb)):
                t = time.perf_counter()
                run()
                times.append(time.perf_counter() - t)
        a, b = statistics.median(ta) * 1e3, statistics.median(tb) * 1e3
        diff = float(np.max(np.abs(out_a - out_b)) / max(float(np.max(np.abs(out_a))), 1e-30))
        print(
            f"| {name} | {a:.2f} | {b:.2f} | {b / a:.2f} | {c_a:.2f} / {c_b:.2f} (LLVM {llvm_ms:.0f} ms) | {diff:.1e} |"
        )
    if not args.only or args.only == "row_sums":
        row_sums(args.calls)
    if not args.only or args.only == "tanh":
        tanh(args.calls)


if __name__ == "__main__":
    main()
