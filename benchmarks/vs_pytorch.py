"""mindjit against PyTorch on the CPU (issue 41): the same models, weights, data and
losses, side by side, one thread and the machine's threads.

Workloads (mindjit's seeded Parameters; the torch replicas load them by name):

- lenet5: the LeNet5 train step, batch 32 (examples/models/lenet5.py through zoo.py:
  value_and_grad + Momentum);
- gpt_fwd: 8 transformer Blocks forward, hidden 256, seq 64, batch 1 (examples/gpt.py,
  LazyBlocks, as benchmarks/lazy_inline.py builds it);
- gpt_train: the GPT-like train step of benchmarks/pipeline.py (4 Blocks, hidden 256,
  seq 32, batch 8, MSELoss, SGD 0.01, TrainOneStepCell; attention over all batch*seq rows);
- gpt_train_lazy: the same with @lazy_inline Blocks (not a target: the gradient of a
  kept Block call recomputes the Block's forward, passes/mindir_grad/calls.py, which
  the torch replica never does: 99 against 78 ms a step at one thread);
- resnet18, bert: benchmarks/models.py's ResNet-18-shaped and BERT-style train steps
  (zoo.py, their own batches and optimizers). BERT's Dropout cells are set to p = 0 on
  both sides: each framework draws its masks from its own RNG, so the losses could not
  be compared otherwise (the timings therefore leave dropout out on both sides).

Rows: mindjit on the numpy executor (the default path), mindjit on IREE
(MINDJIT_BACKEND=iree; "n/a (error: ...)" when it cannot compile the program or the
program ran on the numpy executor after all), torch eager and, with --torch-compile,
torch.compile of the whole step (its cold compile took 26-71 s per process on the
2-core machine: every torch process gets a fresh inductor cache). The
torch rows run benchmarks/torch_peers.py (numpy + torch only, never mindjit) under
--torch-python (default: this interpreter if it imports torch; otherwise the rows say
"n/a (torch not importable: --torch-python)"); torch is never a dependency.

Each cell runs in fresh processes (benchmarks/fresh_workers.py; --processes 3, in
rounds over the rows and thread settings, so drift hits every row alike; a cell whose
process took over a minute runs once): the first call (compile s = the first call less
a steady one; mindjit's workers share a trial record, backend/cpu/trial_record.py, made
empty for the run, so its first process of each thread setting times its kernel shapes
and the later ones take the kept choices: the table gives both, "cold / kept"), two more steps whose losses are kept with the first's, warm-up steps,
then the median of the steady steps. Thread settings: 1 thread
(OMP/OPENBLAS/MKL_NUM_THREADS=1, torch.set_num_threads(1),
MINDJIT_IREE_DRIVER=local-sync) and the machine's threads (the libraries' defaults,
local-task). Losses equal: the first three losses (gpt_fwd: the output) of each row
against mindjit's numpy executor, within 1e-5 relative (max |a - b| / max |b|).

Targets (issue 41): mindjit's default path at or below torch eager's time per step on
lenet5, gpt_fwd and gpt_train, at 1 thread and at the machine's threads, with the same
losses. A missed target is a measurement, not a failure: the script exits 0.

--profile adds, per workload, where the numpy executor's steady step spends its time
(1 thread; every plan step wrapped with a timer, grouped by op kind and kernel).

    .venv/bin/python benchmarks/vs_pytorch.py [--quick] [--only lenet5,gpt_train]
        [--torch-python /path/to/python] [--torch-compile] [--processes 3] [--profile]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
for _path in (ROOT / "benchmarks", ROOT / "examples", ROOT / "examples" / "models"):
    sys.path.insert(0, str(_path))

from fresh_workers import (  # noqa: E402
    load_npz,
    rel_err,
    run_worker,
    save_npz,
    thread_env,
    time_steps,
    worker_main,
)

from mindjit.support.config import TRIAL_CACHE_ENV  # noqa: E402

TOLERANCE = 1e-5
LOSS_STEPS = 3
SLOW_PROCESS_S = 60  # a cell slower than this (a long compile) is not repeated
TORCH_WORKER = str(ROOT / "benchmarks" / "torch_peers.py")
TARGETS = ("lenet5", "gpt_fwd", "gpt_train")


@dataclass(frozen=True)
class Workload:
    title: str
    train: bool  # a train step (its losses compared) or a forward (its output)
    calls: int  # steady calls timed (--quick: a quarter, at least 3)


WORKLOADS: dict[str, Workload] = {
    "lenet5": Workload("LeNet5 train step, batch 32", True, 20),
    "gpt_fwd": Workload("8 transformer Blocks forward, H=256, S=64", False, 20),
    "gpt_train": Workload("GPT-like train step, 4 Blocks, H=256, S=32, batch 8, SGD", True, 10),
    "gpt_train_lazy": Workload("the same with @lazy_inline Blocks (recomputed forward)", True, 10),
    "resnet18": Workload("ResNet-18-shaped train step, width 16, batch 8", True, 5),
    "bert": Workload("BERT-style train step, 2 layers, batch 8, seq 16, Adam", True, 20),
}
MINDJIT_ROWS = {"mindjit numpy": "numpy executor", "mindjit IREE": "IREE"}  # -> cpu_backends'
TORCH_ROWS = {"torch eager": "eager", "torch.compile": "compile"}
ALL_ROWS = (*MINDJIT_ROWS, *TORCH_ROWS)


# --- the mindjit side (run inside a worker) --------------------------------------------


@dataclass
class Built:
    """`call()` runs one step and returns its loss (or output) as numpy; `params` are the
    Parameters by name and `inputs` the step's inputs, for the torch replica."""

    call: Callable[[], np.ndarray]
    params: dict[str, np.ndarray]
    inputs: list[np.ndarray]


def build(name: str) -> Built:
    """The mindjit workload `name` in graph mode (this process's MINDJIT_BACKEND)."""
    import mindjit as ms

    ms.set_context(mode=ms.GRAPH_MODE)
    if name == "gpt_fwd":
        from lazy_inline import _model

        net, x = _model(8, True, 256, 64)
        params = {n: p.asnumpy() for n, p in net.parameters_and_names()}
        return Built(lambda: net(x).asnumpy(), params, [x.asnumpy()])
    if name in ("gpt_train", "gpt_train_lazy"):
        from pipeline import build as gpt_train_step

        step, x, y = gpt_train_step(4, 256, 32, 1, 8, name == "gpt_train_lazy", cell=False)
        params = {p.name: p.asnumpy() for p in step.optimizer.parameters}
        return Built(lambda: step(x, y).asnumpy(), params, [x.asnumpy(), y.asnumpy()])
    import zoo

    from mindjit import nn

    model = zoo.get(name)
    inputs = model.batch(model.default_batch)
    ms.set_seed(1)
    net = model.build()
    for _, cell in net.cells_and_names():
        if isinstance(cell, nn.Dropout):  # see the module docstring (bert)
            cell.p, cell.keep_prob = 0.0, 1.0
    step = model.train_step(net, True)
    params = {n: p.asnumpy() for n, p in net.parameters_and_names()}
    return Built(lambda: step(*inputs).asnumpy(), params, [t.asnumpy() for t in inputs])


def export(name: str, out: str) -> dict:
    """Save the workload's initial Parameters ("param:NAME") and inputs ("input:I")."""
    built = build(name)
    arrays = {f"param:{n}": a for n, a in built.params.items()}
    arrays.update({f"input:{i}": a for i, a in enumerate(built.inputs)})
    np.savez(out, **arrays)
    return {"params": len(built.params), "inputs": len(built.inputs)}


def _op_kind(op: object, step: object) -> str:
    """An op's name; a linalg.generic's with its body's ops, a kernel call's with the
    kernel's name (the step's call_spec, when the compiler kept it)."""
    name = getattr(op, "name", "?")
    if name == "linalg.generic":
        body = [o.name for o in op.body.ops if o.name != "linalg.yield"]  # type: ignore[attr-defined]
        name += "{" + ",".join(dict.fromkeys(body)) + "}"
    spec = getattr(step, "call_spec", None)
    if spec is not None:
        fn = spec[0]
        name += f" [{getattr(fn, '__name__', type(fn).__name__)}]"
    return name


def profile_steps(call: Callable[[], np.ndarray], calls: int, top: int = 10) -> list:
    """Where the numpy executor's steps spend a call: [op kind, ms per call, % of the
    steps' time, steps per call] of the `top` kinds by exclusive time. Every plan's
    top-level steps are wrapped with a timer (a func.call step's time excludes the
    callee's steps, which are timed on their own; nested regions count in their op)."""
    from mindjit.frontend.graph import api

    totals: dict[str, float] = {}
    counts: dict[str, int] = {}
    inner = [0.0]  # exclusive time: what the steps called from the running step took

    def timed(step: Callable, kind: str) -> Callable:
        def run(s: list) -> None:
            saved, inner[0] = inner[0], 0.0
            start = time.perf_counter()
            step(s)
            took = time.perf_counter() - start
            totals[kind] = totals.get(kind, 0.0) + took - inner[0]
            counts[kind] = counts.get(kind, 0) + 1
            inner[0] = saved + took

        return run

    for program in api.cached_programs():
        for plan in getattr(program.executable, "_plans", {}).values():
            block = plan.body
            block.steps = tuple(
                timed(step, _op_kind(block.origin.get(step), step)) for step in block.steps
            )
    for _ in range(calls):
        call()
    total = sum(totals.values()) or 1.0
    rows = sorted(totals.items(), key=lambda kv: -kv[1])[:top]
    return [[k, t / calls * 1e3, 100.0 * t / total, counts[k] // calls] for k, t in rows]


def mindjit_worker(args: argparse.Namespace) -> dict:
    from cpu_backends import check_backend

    from mindjit.backend.cpu import codegen_llvm  # here: after the worker set its threads

    built = build(args.worker)
    # the LLVM kernels compile in the background: time the steady step after them
    outputs, result = time_steps(
        built.call, args.recorded, args.warmup, args.calls, settle=codegen_llvm.wait_all
    )
    check_backend(MINDJIT_ROWS[args.row])
    save_npz(args.out, outputs)
    if args.profile:
        result["profile"] = profile_steps(built.call, args.calls)
    return result


# --- the parent: fresh processes, the table, the targets ---------------------------------

THREADS = {"1": "1 thread", "default": f"{os.cpu_count()} threads"}


def torch_python(args: argparse.Namespace) -> str | None:
    """The interpreter for the torch rows, or None (then args.torch_missing says why)."""
    python = args.torch_python
    if python is None:
        if importlib.util.find_spec("torch") is None:
            args.torch_missing = "torch not importable: --torch-python"
            return None
        return sys.executable
    try:
        done = subprocess.run([python, "-c", "import torch"], capture_output=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as exc:
        args.torch_missing = f"cannot run --torch-python {python}: {exc}"
        return None
    if done.returncode != 0:
        args.torch_missing = f"torch not importable by --torch-python {python}"
        return None
    return python


def cell_argv(name: str, row: str, threads: str, args: argparse.Namespace, out: str) -> list[str]:
    work = WORKLOADS[name]
    calls = max(3, work.calls // 4) if args.quick else work.calls
    argv = ["--worker", name, "--row", row, "--threads", threads, "--calls", str(calls)]
    argv += ["--warmup", "1" if args.quick else "2", "--out", out]
    argv += ["--recorded", str(LOSS_STEPS if work.train else 1)]
    return argv


def run_cell(
    name: str, row: str, threads: str, args: argparse.Namespace, tmp: str, profile: bool = False
) -> dict:
    """One fresh process of one cell; its JSON (with "outputs" loaded) or {"error"}."""
    from cpu_backends import worker_env

    out = os.path.join(tmp, f"{name}-{threads}-{row.replace(' ', '_')}.npz")
    argv = cell_argv(name, row, threads, args, out)
    if row in MINDJIT_ROWS:
        argv += ["--profile"] if profile else []
        result = run_worker(__file__, argv, worker_env(MINDJIT_ROWS[row], threads))
    else:
        argv[3] = TORCH_ROWS[row]
        argv += ["--weights", os.path.join(tmp, f"{name}-weights.npz")]
        env = thread_env(threads)
        # a fresh inductor cache per process: torch.compile's compile is a cold one, as
        # mindjit's (MS_COMPILER_CACHE_ENABLE=0)
        env["TORCHINDUCTOR_CACHE_DIR"] = tempfile.mkdtemp(dir=tmp, prefix="inductor-")
        result = run_worker(TORCH_WORKER, argv, env, args.python)
    if "error" not in result:
        result["outputs"] = load_npz(out)
    return result


def measure(name: str, args: argparse.Namespace, tmp: str) -> dict:
    """{(threads, row): result} for every cell of `name`, medians over the processes."""
    from cpu_backends import worker_env

    rows = [r for r in ALL_ROWS if r in args.rows]
    runs: dict[tuple[str, str], list[dict]] = {}
    weights = os.path.join(tmp, f"{name}-weights.npz")
    exported = run_worker(
        __file__, ["--export", name, "--out", weights], worker_env("numpy executor", "1")
    )
    for _ in range(args.processes):
        for threads in THREADS:
            for row in rows:
                done = runs.setdefault((threads, row), [])
                if row in TORCH_ROWS and (args.python is None or "error" in exported):
                    why = args.torch_missing or f"no weights: {exported.get('error')}"
                    done[:] = [{"error": why}]
                    continue
                if done and ("error" in done[0] or done[0]["seconds"] > SLOW_PROCESS_S):
                    continue
                start = time.perf_counter()
                result = run_cell(name, row, threads, args, tmp)
                result["seconds"] = time.perf_counter() - start
                done.append(result)
                print(f"  {name} {row} ({THREADS[threads]}): {_brief(result)}", file=sys.stderr)
    results = {}
    for key, done in runs.items():
        results[key] = dict(done[0])  # the first process's outputs
        if "run_ms" in done[0]:
            results[key]["run_ms"] = statistics.median(r["run_ms"] for r in done)
            # mindjit's first process timed its kernels' shapes; the later took the kept choices
            later = done[1:] if key[1] in MINDJIT_ROWS and len(done) > 1 else done
            results[key]["compile_s"] = statistics.median(r["compile_s"] for r in later)
            results[key]["compile_cold_s"] = done[0]["compile_s"]
    return results


def _brief(result: dict) -> str:
    return f"error: {result['error']}" if "error" in result else f"{result['run_ms']:.2f} ms"


def _cell(result: dict) -> str:
    return f"n/a ({result['error']})" if "error" in result else f"{result['run_ms']:.2f}"


def summarize(name: str, results: dict) -> dict:
    """Per row: the table's cells; per thread setting: mindjit numpy / torch eager."""
    ref = results.get(("1", "mindjit numpy"), {})
    summary: dict = {"rows": [], "ratio": {}, "auto": {}, "equal": {}, "losses": {}}
    for row in dict.fromkeys(r for _, r in results):
        one, many = results[("1", row)], results[("default", row)]
        ratios = []
        for threads, mine in (("1", one), ("default", many)):
            torch_eager = results.get((threads, "torch eager"), {})
            if row in MINDJIT_ROWS and "run_ms" in mine and "run_ms" in torch_eager:
                ratio = mine["run_ms"] / torch_eager["run_ms"]
                ratios.append(f"{ratio:.2f}")
                if row == "mindjit numpy":
                    summary["ratio"][threads] = ratio
                # backend="auto" keeps the engine that measured faster (backend/auto)
                best = summary["auto"].get(threads)
                summary["auto"][threads] = ratio if best is None else min(best, ratio)
            else:
                ratios.append("")
        if "outputs" in one:
            summary["losses"][row] = one["outputs"]
        if row == "mindjit numpy":
            equal = "reference" if "outputs" in one else "n/a"
        elif "outputs" in one and "outputs" in ref:
            err = rel_err(one["outputs"], ref["outputs"])
            summary["equal"][row] = err <= TOLERANCE
            equal = f"{'yes' if err <= TOLERANCE else 'no'} ({err:.1e})"
        else:
            equal = "n/a"
        compile_s = f"{one['compile_s']:.2f}" if "compile_s" in one else ""
        if row in MINDJIT_ROWS and "compile_s" in one:
            compile_s = f"{one['compile_cold_s']:.2f} / {compile_s}"
        summary["rows"].append(
            [WORKLOADS[name].title, row, _cell(one), _cell(many), compile_s, *ratios, equal]
        )
    return summary


def print_table(summaries: dict[str, dict]) -> None:
    n = THREADS["default"]
    print(f"\n| workload | row | 1 thread ms/step | {n} ms/step "
          f"| compile s (1 thread; mindjit: cold / kept trials) "
          f"| mindjit / torch eager, 1 thread | mindjit / torch eager, {n} "
          f"| losses equal (max rel err vs mindjit numpy) |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|")
    for summary in summaries.values():
        for cells in summary["rows"]:
            print("| " + " | ".join(cells) + " |")


def print_losses(summaries: dict[str, dict]) -> None:
    print("\nFirst losses per row (1 thread, the first process; gpt_fwd: the output's sum):\n")
    for name, summary in summaries.items():
        for row, outputs in summary["losses"].items():
            if WORKLOADS[name].train:
                shown = " ".join(f"{float(v):.7g}" for v in outputs)
            else:
                shown = f"sum {float(np.sum(outputs[0], dtype=np.float64)):.7g}"
            print(f"- {name}, {row}: {shown}")


def print_targets(summaries: dict[str, dict]) -> None:
    print(
        "\n### Targets (issue 41): mindjit's default path (numpy) and backend='auto' <= torch "
        "eager, same losses\n"
    )
    for name in TARGETS:
        summary = summaries.get(name)
        if summary is None:
            print(f"- {name}: not measured (--only)")
            continue
        for threads, label in THREADS.items():
            ratio = summary["ratio"].get(threads)
            if ratio is None:
                print(f"- {name}, {label}: n/a (a row did not run)")
                continue
            met = "met" if ratio <= 1.0 else "not met"
            auto = summary["auto"][threads]
            print(
                f"- {name}, {label}: mindjit / torch eager {ratio:.2f} <= 1.0: {met}; with "
                f"backend='auto' (the faster engine) {auto:.2f}: {'met' if auto <= 1.0 else 'not met'}"
            )
        same = summary["equal"].get("torch eager")
        shown = "n/a" if same is None else ("yes" if same else "no")
        print(f"- {name}: losses equal to torch eager's within {TOLERANCE:g}: {shown}")


def print_profiles(names: list[str], args: argparse.Namespace, tmp: str) -> None:
    print(
        "\n### Where the numpy executor's step goes (1 thread, each plan step timed, by op kind)\n"
    )
    for name in names:
        result = run_cell(name, "mindjit numpy", "1", args, tmp, profile=True)
        if "error" in result:
            print(f"- {name}: n/a ({result['error']})")
            continue
        print(f"{WORKLOADS[name].title} ({result['run_ms']:.2f} ms/step unprofiled):\n")
        print("| op kind [kernel] | ms/step (timed steps) | % of the steps' time | steps/call |")
        print("|---|---|---|---|")
        for label, ms, pct, count in result["profile"]:
            print(f"| {label} | {ms:.2f} | {pct:.0f}% | {count} |")
        print()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="lenet5 and gpt_fwd; fewer steps")
    parser.add_argument("--only", help=f"comma-separated, of {','.join(WORKLOADS)}")
    parser.add_argument("--processes", type=int, help="fresh processes per cell (3; --quick 1)")
    parser.add_argument("--torch-python", help="a Python that imports torch (the torch rows)")
    parser.add_argument("--torch-compile", action="store_true", help="add torch.compile rows")
    parser.add_argument("--profile", action="store_true", help="profile the numpy executor")
    parser.add_argument("--rows", help=f"comma-separated, of {','.join(ALL_ROWS)} (default: all; "
                        "torch.compile only with --torch-compile)")  # fmt: skip
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--export", help=argparse.SUPPRESS)
    parser.add_argument("--row", help=argparse.SUPPRESS)
    parser.add_argument("--threads", help=argparse.SUPPRESS)
    parser.add_argument("--calls", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--warmup", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--recorded", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.export:
        return worker_main(lambda: export(args.export, args.out))
    if args.worker:
        return worker_main(lambda: mindjit_worker(args))
    if args.processes is None:
        args.processes = 1 if args.quick else 3
    if args.processes < 1:
        parser.error("--processes must be at least 1")
    names = args.only.split(",") if args.only else (["lenet5", "gpt_fwd"] if args.quick else list(WORKLOADS))  # fmt: skip
    unknown = [n for n in names if n not in WORKLOADS]
    if unknown:
        parser.error(f"unknown workload {', '.join(unknown)}; choose from {', '.join(WORKLOADS)}")
    args.rows = args.rows.split(",") if args.rows else [r for r in ALL_ROWS if r != "torch.compile"]
    if args.torch_compile and "torch.compile" not in args.rows:
        args.rows.append("torch.compile")
    unknown = [r for r in args.rows if r not in ALL_ROWS]
    if unknown:
        parser.error(f"unknown row {', '.join(unknown)}; choose from {', '.join(ALL_ROWS)}")
    args.torch_missing = None
    args.python = torch_python(args)
    started = time.perf_counter()
    print("mindjit vs PyTorch: ms per step, medians over fresh processes per cell "
          f"({args.processes}), rounds over the rows")  # fmt: skip
    summaries = {}
    with tempfile.TemporaryDirectory() as tmp:
        # the workers' trial record: empty for this run, whatever the user's holds
        os.environ[TRIAL_CACHE_ENV] = os.path.join(tmp, "trials")
        for name in names:
            summaries[name] = summarize(name, measure(name, args, tmp))
        print_table(summaries)
        print_losses(summaries)
        print_targets(summaries)
        if args.profile:
            print_profiles(names, args, tmp)
    print(f"\n(total {time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
