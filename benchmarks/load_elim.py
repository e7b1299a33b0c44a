"""What the Load-elimination levels cost: TensorMoves, bytes copied, peak memory.

Each program is built in memory as the frontend emits it (effects in program
order on the entry state), then run through mindir-auto-monad,
mindir-depend-order and mindir-load-elim{level=N}, lowered, and run on the CPU
executor. Per level 0-3 the table shows the TensorMoves in the IR, the copies
and bytes they copied in one call (the executor's `stats`), the call's peak
traced memory above what was live before it (tracemalloc: numpy reports its
buffers), the time per call, and whether the results and Parameter values match
level 0 (level 3 may not: it is documented as unsafe).

Programs:
- forward: the docs' notebook (`while i < 3: assign(param, i); out = x * param +
  out`, unrolled), a 0-d int32 Parameter;
- params100: 100 Parameters of 128x128 f32 with interleaved reads and writes
  (`r = p; acc += r; p = r * 0.5 + x; acc += p`), every 10th also adds the old and
  the new value in one `addn` (a consumer that sees two states); the first 20
  are also read at the start and added to their final value at the end (their
  copies live through the whole call), and 20 read-only weights are read at the
  start and used at the end (copied only at level 0);
- calls: 20 Parameters, each loaded, passed to a graph call, and assigned its
  result; a read-only Parameter read at every step.

    .venv/bin/python benchmarks/load_elim.py [--size 128] [--calls 5]
"""

from __future__ import annotations

import argparse
import statistics
import time
import tracemalloc
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from xdsl.builder import Builder
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    ModuleOp,
    TensorType,
    f32,
    i32,
)
from xdsl.ir import Block, Region, SSAValue
from xdsl.rewriter import InsertPoint

from mindjit.backend.cpu import CpuExecutable
from mindjit.dialects import mindir as M
from mindjit.passes.mindir_load_elim import count_tensor_moves
from mindjit.passes.pipelines import lower_to_tensor, parse_pipeline, run_passes

SIDE_EFFECTS = "mindir-auto-monad,mindir-depend-order,mindir-load-elim{{level={level}}}"


@dataclass
class Program:
    name: str
    build: Callable[[], ModuleOp]
    entry: str
    inputs: list[np.ndarray]


class _Graph:
    """Frontend-style emission: every effect takes the entry state %u0."""

    def __init__(self, module: ModuleOp, name: str, inputs: list[TensorType]):
        self.block = Block(arg_types=[*inputs, M.MonadUType()])
        self.u = self.block.args[-1]
        self.b = Builder(InsertPoint.at_end(self.block))
        self.module, self.name = module, name

    def arg(self, i: int) -> SSAValue:
        return self.block.args[i]

    def ref(self, sym: str, t: TensorType) -> SSAValue:
        return self.b.insert(M.GetParameterOp.get(sym, t)).result

    def load(self, sym: str, t: TensorType) -> SSAValue:
        return self.b.insert(M.LoadOp.get(self.ref(sym, t), self.u)).results[0]

    def assign(self, sym: str, t: TensorType, v: SSAValue) -> SSAValue:
        return self.b.insert(M.AssignOp.get(self.ref(sym, t), v, self.u)).results[0]

    def const(self, value: float | int, t: TensorType) -> SSAValue:
        attr = DenseIntOrFPElementsAttr.from_list(t, [value])
        return self.b.insert(M.ConstantOp.make([], {"value": attr})).results[0]

    def op(self, cls, *operands: SSAValue) -> SSAValue:
        return self.b.insert(cls.get(*operands)).results[0]

    def finish(self, results: list[SSAValue]) -> None:
        self.b.insert(func.ReturnOp(*results))
        types = [r.type for r in results]
        fn = func.FuncOp(self.name, (list(self.block.arg_types), types), Region(self.block))
        self.module.body.block.add_op(fn)


def _parameter(module: ModuleOp, sym: str, value: np.ndarray, t: TensorType) -> None:
    attr = DenseIntOrFPElementsAttr.from_list(t, value.reshape(-1).tolist())
    module.body.block.add_op(M.ParameterOp.get(sym, attr))


def forward() -> ModuleOp:
    t = TensorType(i32, [])
    module = ModuleOp([])
    _parameter(module, "param", np.zeros((), np.int32), t)
    g = _Graph(module, "ForwardNet_construct", [t])
    out = g.const(0, t)
    for i in range(3):
        g.assign("param", t, g.const(i, t))
        out = g.op(M.AddOp, g.op(M.MulOp, g.arg(0), g.load("param", t)), out)
    g.finish([out])
    return module


def params100(size: int) -> Callable[[], ModuleOp]:
    def build() -> ModuleOp:
        t = TensorType(f32, [size, size])
        module = ModuleOp([])
        rng = np.random.default_rng(0)
        for i in range(100):
            _parameter(module, f"p{i}", rng.standard_normal((size, size)).astype(np.float32), t)
        for j in range(20):
            w = (rng.standard_normal((size, size)) / size).astype(np.float32)
            _parameter(module, f"w{j}", w, t)
        g = _Graph(module, "params100", [t])
        x, half = g.arg(0), g.const(0.5, t)
        early = [g.load(f"p{i}", t) for i in range(20)]  # kept until the end
        weights = [g.load(f"w{j}", t) for j in range(20)]  # read-only, used at the end
        acc = g.op(M.MulOp, x, g.const(0.0, t))
        for i in range(100):  # interleaved reads and writes
            sym = f"p{i}"
            r = g.load(sym, t)
            acc = g.op(M.AddOp, acc, r)
            g.assign(sym, t, g.op(M.AddOp, g.op(M.MulOp, r, half), x))
            new = g.load(sym, t)
            acc = g.op(M.AddOp, acc, new)
            if i % 10 == 0:  # one consumer of both states
                both = g.b.insert(M.MakeTupleOp.get([r, new])).results[0]
                acc = g.op(M.AddOp, acc, g.b.insert(M.AddNOp.make([both])).results[0])
        for i, old in enumerate(early):  # the first value and the current one
            both = g.b.insert(M.MakeTupleOp.get([old, g.load(f"p{i}", t)])).results[0]
            acc = g.op(M.AddOp, acc, g.b.insert(M.AddNOp.make([both])).results[0])
        for w in weights:
            acc = g.op(M.AddOp, acc, g.op(M.MulOp, w, acc))
        g.finish([acc])
        return module

    return build


def calls(size: int) -> Callable[[], ModuleOp]:
    def build() -> ModuleOp:
        t = TensorType(f32, [size, size])
        module = ModuleOp([])
        rng = np.random.default_rng(1)
        for i in range(20):
            _parameter(module, f"q{i}", rng.standard_normal((size, size)).astype(np.float32), t)
        _parameter(module, "bias", rng.standard_normal((size, size)).astype(np.float32), t)
        scale = _Graph(module, "scale", [t])
        scale.finish([scale.op(M.MulOp, scale.arg(0), scale.const(2.0, t))])
        # a pure helper: no state argument
        fn = next(op for op in module.ops if isinstance(op, func.FuncOp))
        block = fn.body.block
        block.erase_arg(block.args[-1])
        fn.function_type = func.FunctionType.from_lists([t], [t])
        g = _Graph(module, "calls", [t])
        acc = g.arg(0)
        for i in range(20):
            sym = f"q{i}"
            loaded = g.load(sym, t)
            scaled = g.b.insert(func.CallOp("scale", [loaded], [t])).results[0]
            g.assign(sym, t, scaled)
            acc = g.op(M.AddOp, g.op(M.AddOp, acc, scaled), g.load("bias", t))
        g.finish([acc])
        return module

    return build


@dataclass
class Row:
    moves: int
    copies: float
    copied_bytes: float
    peak: int
    seconds: float
    same: bool


def measure(program: Program, level: int, calls_: int, reference: list | None) -> tuple[Row, list]:
    module = program.build()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # level 3 warns
        run_passes(parse_pipeline(SIDE_EFFECTS.format(level=level)), module)
    moves = count_tensor_moves(module)
    lower_to_tensor(module)
    exe = CpuExecutable(module)
    initial = {name: np.array(v) for name, v in exe.globals.items()}
    exe.run(program.entry, *program.inputs)  # plans, first run
    outcome = [np.asarray(o).tolist() for o in exe.run(program.entry, *program.inputs)]
    values = {k: v.tolist() for k, v in sorted(exe.globals.items())}
    result = [outcome, values]
    times = []
    exe.stats.reset()
    for _ in range(calls_):
        start = time.perf_counter()
        exe.run(program.entry, *program.inputs)
        times.append(time.perf_counter() - start)
    copies = exe.stats.copies / calls_
    copied = exe.stats.copied_bytes / calls_
    for name, v in initial.items():  # the peak from a known state
        exe.set_global(name, np.array(v))
    tracemalloc.start()
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    exe.run(program.entry, *program.inputs)
    peak = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    same = reference is None or result == reference
    return Row(moves, copies, copied, peak, statistics.median(times), same), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=128, help="side of the square Parameters")
    parser.add_argument("--calls", type=int, default=5, help="timed calls per level")
    args = parser.parse_args()
    n = args.size
    x = np.random.default_rng(2).standard_normal((n, n)).astype(np.float32)
    programs = [
        Program("forward", forward, "ForwardNet_construct", [np.array(4, np.int32)]),
        Program("params100", params100(n), "params100", [x]),
        Program("calls", calls(n), "calls", [x]),
    ]
    print(f"Load elimination levels (Parameters {n}x{n} f32 in params100 and calls)")
    header = (
        f"| {'program':<10} | lvl | {'moves':>5} | {'copies/call':>11} | "
        f"{'MB copied/call':>14} | {'peak MB':>8} | {'ms/call':>8} | {'= level 0':>9} |"
    )
    print(header)
    print("|" + "|".join("-" * (len(c)) for c in header.split("|")[1:-1]) + "|")
    for program in programs:
        reference = None
        peaks = {}
        for level in range(4):
            row, result = measure(program, level, args.calls, reference)
            if level == 0:
                reference = result
            peaks[level] = row.peak
            print(
                f"| {program.name:<10} | {level:>3} | {row.moves:>5} | {row.copies:>11.0f} | "
                f"{row.copied_bytes / 1e6:>14.3f} | {row.peak / 1e6:>8.3f} | "
                f"{row.seconds * 1e3:>8.3f} | {'yes' if row.same else 'NO':>9} |"
            )
        if peaks[0]:
            print(
                f"  {program.name}: peak level 1 / level 0 = {peaks[1] / peaks[0]:.2f}, "
                f"level 2 / level 0 = {peaks[2] / peaks[0]:.2f}"
            )


if __name__ == "__main__":
    main()
