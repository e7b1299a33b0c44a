"""The simulated device against the CPU executor: the same values for every program,
stream count and alignment, on random inputs; the report's shape and invariants;
device memory limits; the float-status register."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from pathlib import Path
from string import Template
from typing import Any

import numpy as np
import pytest
from ascend_programs import REUSE, SCF_WHILE, STATE, STATUS
from xdsl.dialects import func

from mindjit.backend.ascend.compile import compile_for_device
from mindjit.backend.ascend.device import DeviceConfig
from mindjit.backend.ascend.executable import AscendExecutable
from mindjit.backend.ascend.model import DeviceModel
from mindjit.backend.ascend.model_file import decode, encode
from mindjit.backend.ascend.simulator import Simulator
from mindjit.backend.cpu import CpuExecutable
from mindjit.backend.cpu.types import dtype_of, static_shape
from mindjit.dialects.parsing import parse_module
from mindjit.passes.pipelines import compile_to_tensor
from mindjit.support.errors import MindjitError
from mindjit.tools.ms_run import load_module

ROOT = Path(__file__).resolve().parents[2]

# -- programs (mindir unless said otherwise) ---------------------------------------------

# Broadcasting (row vector, 0-d scalar), a fused elementwise chain, matmul with a
# transposed operand, a mean reduction, a transpose.
BCAST = Template("""
func.func @bcast(%a: tensor<${n}x${m}xf32>, %b: tensor<${m}xf32>, %w: tensor<${k}x${m}xf32>,
                 %s: tensor<f32>) -> (tensor<${n}x${k}xf32>, tensor<${n}xf32>, tensor<${m}x${n}xf32>) {
  %x = mindir.add %a, %b : (tensor<${n}x${m}xf32>, tensor<${m}xf32>) -> tensor<${n}x${m}xf32>
  %y = mindir.mul %x, %s : (tensor<${n}x${m}xf32>, tensor<f32>) -> tensor<${n}x${m}xf32>
  %z = mindir.sigmoid %y : tensor<${n}x${m}xf32>
  %mm = mindir.matmul %z, %w {transpose_b = true}
      : (tensor<${n}x${m}xf32>, tensor<${k}x${m}xf32>) -> tensor<${n}x${k}xf32>
  %r = mindir.reduce_mean %z {axis = array<i64: 1>} : (tensor<${n}x${m}xf32>) -> tensor<${n}xf32>
  %t = mindir.transpose %y {perm = array<i64: 1, 0>} : (tensor<${n}x${m}xf32>) -> tensor<${m}x${n}xf32>
  func.return %mm, %r, %t : tensor<${n}x${k}xf32>, tensor<${n}xf32>, tensor<${m}x${n}xf32>
}
""")

# Integers: broadcasting, compares, a cast to float and one to i8 (wrapping), select,
# reductions to a 0-d tensor and along an axis.
INTS = Template("""
func.func @ints(%a: tensor<${n}x${m}xi32>, %b: tensor<${m}xi32>, %f: tensor<${n}x${m}xf32>)
    -> (tensor<${n}x${m}xi32>, tensor<${n}x${m}xf32>, tensor<i32>, tensor<${n}xi32>,
        tensor<${n}x${m}xi8>, tensor<${n}x${m}xi1>) {
  %s = mindir.add %a, %b : (tensor<${n}x${m}xi32>, tensor<${m}xi32>) -> tensor<${n}x${m}xi32>
  %p = mindir.mul %s, %a : tensor<${n}x${m}xi32>
  %c = mindir.greater %p, %b : (tensor<${n}x${m}xi32>, tensor<${m}xi32>) -> tensor<${n}x${m}xi1>
  %fc = mindir.cast %p {to = f32} : (tensor<${n}x${m}xi32>) -> tensor<${n}x${m}xf32>
  %sel = mindir.select %c, %fc, %f
      : (tensor<${n}x${m}xi1>, tensor<${n}x${m}xf32>, tensor<${n}x${m}xf32>) -> tensor<${n}x${m}xf32>
  %t = mindir.reduce_sum %p {axis = array<i64>} : (tensor<${n}x${m}xi32>) -> tensor<i32>
  %neg = mindir.neg %p : tensor<${n}x${m}xi32>
  %mx = mindir.reduce_max %neg {axis = array<i64: 1>} : (tensor<${n}x${m}xi32>) -> tensor<${n}xi32>
  %big = mindir.mul %p, %p : tensor<${n}x${m}xi32>
  %c8 = mindir.cast %big {to = i8} : (tensor<${n}x${m}xi32>) -> tensor<${n}x${m}xi8>
  %eq = mindir.equal %a, %b : (tensor<${n}x${m}xi32>, tensor<${m}xi32>) -> tensor<${n}x${m}xi1>
  func.return %p, %sel, %t, %mx, %c8, %eq
      : tensor<${n}x${m}xi32>, tensor<${n}x${m}xf32>, tensor<i32>, tensor<${n}xi32>,
        tensor<${n}x${m}xi8>, tensor<${n}x${m}xi1>
}
""")

# mindir.if (becomes a Select) and mindir.while carrying a tuple (an AI CPU While kernel).
CONTROL = """
func.func @ctrl(%c: tensor<i1>, %x: tensor<f32>, %v: tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>) {
  %r = mindir.if %c -> (tensor<f32>) {
    %n = mindir.neg %x : tensor<f32>
    mindir.yield %n : tensor<f32>
  } else {
    %e = mindir.exp %x : tensor<f32>
    mindir.yield %e : tensor<f32>
  }
  %zero = mindir.constant dense<0.0> : tensor<f32>
  %one = mindir.constant dense<1.0> : tensor<f32>
  %five = mindir.constant dense<5.0> : tensor<f32>
  %t0 = mindir.make_tuple %zero, %v : (tensor<f32>, tensor<3xf32>) -> tuple<tensor<f32>, tensor<3xf32>>
  %w = mindir.while (%t = %t0) : (tuple<tensor<f32>, tensor<3xf32>>) -> tuple<tensor<f32>, tensor<3xf32>> {
    %i = mindir.tuple_get_item %t {index = 0 : i64} : (tuple<tensor<f32>, tensor<3xf32>>) -> tensor<f32>
    %lt = mindir.less %i, %five : (tensor<f32>, tensor<f32>) -> tensor<i1>
    mindir.condition(%lt : tensor<i1>) %t : tuple<tensor<f32>, tensor<3xf32>>
  } do {
  ^bb0(%t1: tuple<tensor<f32>, tensor<3xf32>>):
    %i1 = mindir.tuple_get_item %t1 {index = 0 : i64} : (tuple<tensor<f32>, tensor<3xf32>>) -> tensor<f32>
    %a1 = mindir.tuple_get_item %t1 {index = 1 : i64} : (tuple<tensor<f32>, tensor<3xf32>>) -> tensor<3xf32>
    %i2 = mindir.add %i1, %one : tensor<f32>
    %a2 = mindir.mul %a1, %r : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
    %a3 = mindir.tanh %a2 : tensor<3xf32>
    %t2 = mindir.make_tuple %i2, %a3 : (tensor<f32>, tensor<3xf32>) -> tuple<tensor<f32>, tensor<3xf32>>
    mindir.yield %t2 : tuple<tensor<f32>, tensor<3xf32>>
  }
  %out = mindir.tuple_get_item %w {index = 1 : i64} : (tuple<tensor<f32>, tensor<3xf32>>) -> tensor<3xf32>
  func.return %r, %out : tensor<f32>, tensor<3xf32>
}
"""

# Tensor level: scf.if on a value read from a 0-d tensor (AI CPU kernels).
SCF_IF = """
func.func @f(%a: tensor<3xf32>, %s: tensor<f32>) -> tensor<3xf32> {
  %c0 = arith.constant 0.0 : f32
  %v = tensor.extract %s[] : tensor<f32>
  %cond = arith.cmpf ogt, %v, %c0 : f32
  %r = scf.if %cond -> (tensor<3xf32>) {
    %e = tensor.empty() : tensor<3xf32>
    %d = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                         iterator_types = ["parallel"]}
        ins(%a : tensor<3xf32>) outs(%e : tensor<3xf32>) {
    ^bb0(%x: f32, %o: f32):
      %y = arith.mulf %x, %v : f32
      linalg.yield %y : f32
    } -> tensor<3xf32>
    scf.yield %d : tensor<3xf32>
  } else {
    scf.yield %a : tensor<3xf32>
  }
  func.return %r : tensor<3xf32>
}
"""

SQUARE_F16 = Template("""
func.func @square(%x: tensor<${n}xf16>) -> tensor<${n}xf16> {
  %y = mindir.mul %x, %x : tensor<${n}xf16>
  func.return %y : tensor<${n}xf16>
}
""")


@dataclass(frozen=True)
class Program:
    id: str
    text: str | None  # None: examples/mlp.mlir
    entry: str
    runs: int = 2  # calls in a row on one executable (state carries over)


PROGRAMS = [
    Program("mlp", None, "Net_construct"),
    *[
        Program(f"bcast-{n}x{m}x{k}", BCAST.substitute(n=n, m=m, k=k), "bcast")
        for n, m, k in [(1, 1, 1), (2, 3, 4), (7, 5, 3), (16, 33, 8)]
    ],
    *[
        Program(f"ints-{n}x{m}", INTS.substitute(n=n, m=m), "ints")
        for n, m in [(1, 1), (3, 4), (9, 17)]
    ],
    Program("control", CONTROL, "ctrl", runs=4),
    Program("scf-if", SCF_IF, "f", runs=4),
    Program("scf-while", SCF_WHILE, "f", runs=4),
    Program("state", STATE, "step", runs=3),
    Program("reuse", REUSE, "Net_construct"),
    *[Program(f"f16-{n}", SQUARE_F16.substitute(n=n), "square") for n in (1, 6, 64)],
    Program("status", STATUS, "status", runs=3),
]

CONFIGS = [(streams, align) for streams in (1, 2) for align in (1, 512)]


def tensor_module(program: Program, tmp_path: Path) -> Any:
    if program.text is None:
        return load_module(str(ROOT / "examples" / "mlp.mlir"))
    path = tmp_path / f"{program.id}.mlir"
    path.write_text(program.text)
    return load_module(str(path))


def compiled(program: Program, tmp_path: Path, streams: int, align: int) -> tuple[Any, DeviceModel]:
    """(CPU executable, device model) of one program; the model read back from bytes."""
    module = tensor_module(program, tmp_path)
    cpu = CpuExecutable(module.clone())
    model = compile_for_device(module, streams=streams, align=align)
    return cpu, decode(encode(model))


def random_inputs(model: DeviceModel, entry: str, rng: np.random.Generator) -> list[Any]:
    graph = next(g for g in model.graphs if g.name == entry and g.entry)
    values: list[Any] = []
    for tid in graph.inputs:
        t = model.tensors[tid]
        dtype = np.dtype(t.dtype)
        if dtype.kind == "b":
            a = rng.random(t.shape) < 0.5
        elif dtype.kind in "iu":
            a = rng.integers(-6, 7, t.shape).astype(dtype)
        elif dtype == np.float16:
            a = rng.uniform(-8, 8, t.shape).astype(dtype)
        else:
            a = rng.standard_normal(t.shape).astype(dtype)
        values.append(dtype.type(a[()]) if t.scalar else a)
    return values


def assert_same(device: list[np.ndarray], cpu: tuple[Any, ...], what: str) -> None:
    assert len(device) == len(cpu), what
    for i, (d, c) in enumerate(zip(device, cpu)):
        c = np.asarray(c)
        assert d.dtype == c.dtype, f"{what}: result {i}: {d.dtype} vs {c.dtype}"
        assert d.shape == c.shape, f"{what}: result {i}: {d.shape} vs {c.shape}"
        if d.dtype.kind in "fc":
            np.testing.assert_allclose(d, c, rtol=1e-6, err_msg=f"{what}: result {i}")
        else:
            np.testing.assert_array_equal(d, c, err_msg=f"{what}: result {i}")


REPORT_KEYS = {"total_time_us", "peak_memory_bytes", "lower_bound_bytes", "kernels", "float_status"}
KERNEL_KEYS = {"name", "unit", "stream", "start_us", "duration_us"}


def check_report(report: dict[str, Any], model: DeviceModel, streams: int) -> None:
    assert REPORT_KEYS <= report.keys()
    assert report["peak_memory_bytes"] == model.memory_bytes
    assert report["peak_memory_bytes"] >= report["lower_bound_bytes"] > 0
    assert len(report["float_status"]) == 8
    kernels = report["kernels"]
    assert kernels
    for k in kernels:
        assert KERNEL_KEYS <= k.keys()
        assert k["unit"] in ("cube", "vector", "aicpu")
        assert k["duration_us"] > 0 and k["start_us"] >= 0
    assert {k["stream"] for k in kernels} <= set(range(streams))
    end = max(k["start_us"] + k["duration_us"] for k in kernels)
    assert report["total_time_us"] == pytest.approx(end)
    # On one stream, each kernel starts after the previous one ended (issue order).
    for stream in {k["stream"] for k in kernels}:
        on = [k for k in kernels if k["stream"] == stream]
        for before, after in itertools.pairwise(on):
            assert after["start_us"] >= before["start_us"] + before["duration_us"] - 1e-9, (
                stream,
                before,
                after,
            )
    # One unit runs one kernel at a time, whatever the streams.
    for unit in {k["unit"] for k in kernels}:
        spans = sorted(
            (k["start_us"], k["start_us"] + k["duration_us"]) for k in kernels if k["unit"] == unit
        )
        for (_, end0), (start1, _) in itertools.pairwise(spans):
            assert start1 >= end0 - 1e-9
    # Without calls, the report lists the model's kernels in sequence order.
    if not any(s.op == "call" for g in model.graphs for s in g.sequence):
        (graph,) = [g for g in model.graphs if g.entry]
        names = [s.name for s in graph.sequence if s.op == "kernel"]
        assert [k["name"] for k in kernels] == names


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize(
    ("streams", "align"), CONFIGS, ids=[f"streams{s}-align{a}" for s, a in CONFIGS]
)
@pytest.mark.parametrize("program", PROGRAMS, ids=[p.id for p in PROGRAMS])
def test_device_equals_cpu(program: Program, streams: int, align: int, tmp_path: Path) -> None:
    cpu, model = compiled(program, tmp_path, streams, align)
    assert model.align == align
    if streams == 1:
        assert model.events == 0
    if align > 1:
        assert all(t.offset % align == 0 for t in model.tensors if t.offset >= 0)
    sim = Simulator(model)
    rng = np.random.default_rng(1234)
    for run in range(program.runs):
        inputs = random_inputs(model, program.entry, rng)
        expected = cpu.run(program.entry, *[np.copy(v) for v in inputs])
        got = sim.run(inputs, program.entry)
        assert_same(got, expected, f"{program.id} run {run}")
        check_report(sim.report, model, streams)
    for p in model.parameters:  # the state after the runs too
        np.testing.assert_array_equal(sim.view(p.tensor), cpu.get_global(p.name))


def test_state_carries_over_between_runs(tmp_path: Path) -> None:
    program = next(p for p in PROGRAMS if p.id == "state")
    _, model = compiled(program, tmp_path, 2, 512)
    sim = Simulator(model)
    x = np.array([2.0, 1.0, 0.5], np.float32)
    w = np.array([1.0, 2.0, 3.0], np.float32)
    for _ in range(3):
        r, l1 = sim.run([x])
        new = w + x * np.array([0.5, -1.0, 2.0], np.float32)
        np.testing.assert_array_equal(l1, new)
        np.testing.assert_array_equal(r, new - w)
        w = new
    assert [k["name"] for k in sim.report["kernels"]].count("TensorMove") == 2
    assert sim.report["tensor_move_bytes"] == 2 * 12


def test_reused_graph_runs_as_calls(tmp_path: Path) -> None:
    program = next(p for p in PROGRAMS if p.id == "reuse")
    _, model = compiled(program, tmp_path, 2, 512)
    assert [g.entry for g in model.graphs] == [False, True]
    sim = Simulator(model)
    x = np.array([0.3, -0.7], np.float32)
    (out,) = sim.run([x])
    h = np.tanh(x * np.float32([0.5, 1.5]))
    np.testing.assert_allclose(out, np.tanh(h * np.float32([2.0, -1.0])), rtol=1e-6)
    names = [k["name"] for k in sim.report["kernels"]]
    assert names == ["Mul", "Tanh", "MemCopy", "Mul", "Tanh", "MemCopy"]


def test_two_streams_overlap_independent_kernels(tmp_path: Path) -> None:
    program = next(p for p in PROGRAMS if p.id == "bcast-16x33x8")
    times = {}
    for streams in (1, 2):
        _, model = compiled(program, tmp_path, streams, 512)
        sim = Simulator(model)
        sim.run(random_inputs(model, "bcast", np.random.default_rng(0)))
        times[streams] = sim.report["total_time_us"]
        assert {k["stream"] for k in sim.report["kernels"]} == set(range(streams))
    assert times[2] <= times[1]


def test_alignment_changes_the_plan_not_the_values(tmp_path: Path) -> None:
    program = next(p for p in PROGRAMS if p.id == "bcast-7x5x3")
    peaks = {}
    outs = {}
    for align in (1, 512):
        _, model = compiled(program, tmp_path, 2, align)
        sim = Simulator(model)
        outs[align] = sim.run(random_inputs(model, "bcast", np.random.default_rng(5)))
        peaks[align] = sim.report["peak_memory_bytes"]
        assert peaks[align] >= sim.report["lower_bound_bytes"]
    assert peaks[1] < peaks[512]
    for a, b in zip(outs[1], outs[512]):
        np.testing.assert_array_equal(a, b)


# -- device memory --------------------------------------------------------------------------


def test_model_larger_than_the_device_is_refused(tmp_path: Path) -> None:
    _, model = compiled(PROGRAMS[0], tmp_path, 2, 512)
    need = model.memory_bytes
    with pytest.raises(MindjitError) as info:
        Simulator(model, DeviceConfig(memory_bytes=need - 1))
    assert info.value.message == (
        f"out of device memory: the model needs {need} bytes, the device has {need - 1}"
    )
    with pytest.raises(MindjitError, match="out of device memory"):
        Simulator(model, DeviceConfig(memory_bytes=1))
    Simulator(model, DeviceConfig(memory_bytes=need))  # exactly enough is enough


def test_wrong_inputs_are_mindjit_errors(tmp_path: Path) -> None:
    _, model = compiled(PROGRAMS[0], tmp_path, 2, 512)
    sim = Simulator(model)
    with pytest.raises(MindjitError, match="entry @Net_construct expects 5 inputs, got 1"):
        sim.run([np.zeros((4, 8), np.float32)])
    ins = random_inputs(model, "Net_construct", np.random.default_rng(0))
    ins[0] = np.zeros((8, 4), np.float32)
    with pytest.raises(MindjitError, match=r"input 0 of @Net_construct must have shape \(4, 8\)"):
        sim.run(ins)
    with pytest.raises(MindjitError, match="no entry graph 'nope'"):
        sim.run(ins, "nope")


# -- float status ----------------------------------------------------------------------------


def _square(tmp_path: Path, n: int = 6) -> DeviceModel:
    program = next(p for p in PROGRAMS if p.id == f"f16-{n}")
    return compiled(program, tmp_path, 2, 512)[1]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_float16_overflow_sets_the_float_status(tmp_path: Path) -> None:
    model = _square(tmp_path)
    sim = Simulator(model)
    (y,) = sim.run([np.full(6, 300.0, np.float16)])
    assert np.isinf(y).all()
    assert sim.report["float_status"][0] == 1.0
    assert sim.report["float_status"][1:] == [0.0] * 7


def test_finite_float16_leaves_the_float_status_clear(tmp_path: Path) -> None:
    model = _square(tmp_path)
    sim = Simulator(model)
    (y,) = sim.run([np.full(6, 3.0, np.float16)])
    np.testing.assert_array_equal(y, np.full(6, 9.0, np.float16))
    assert y.dtype == np.float16
    assert sim.report["float_status"] == [0.0] * 8


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_float_status_builtins_clear_and_read_the_register(tmp_path: Path) -> None:
    program = next(p for p in PROGRAMS if p.id == "status")
    cpu, model = compiled(program, tmp_path, 2, 512)
    sim = Simulator(model)
    for value, flag in [(300.0, 1.0), (3.0, 0.0), (1000.0, 1.0), (0.5, 0.0)]:
        x = np.full(2, value, np.float16)
        y, status = sim.run([x])
        assert status[0] == flag and not status[1:].any()
        assert sim.report["float_status"][0] == flag
        assert_same([y, status], cpu.run("status", x), f"status {value}")


# -- the memory curve against the plan (issue 27) -----------------------------------------

CURVE_PROGRAMS = {
    "STATE": (STATE, "step"),
    "REUSE": (REUSE, "Net_construct"),
    "STATUS": (STATUS, "status"),
    "SCF_WHILE": (SCF_WHILE, "f"),
    "mlp": (None, "Net_construct"),
}


@pytest.mark.parametrize("name", sorted(CURVE_PROGRAMS))
def test_memory_curve_tops_out_at_the_reported_peak(name):
    """The curve counts what the plan reserves for the whole run (Parameters,
    constants, reused graphs' regions) in its base, and holds a call's tensors for
    the whole call as the plan does: on these programs, whose plans are tight, its
    maximum is the report's peak (it was 2048 B against 3072 B with a reused graph)."""
    text, entry = CURVE_PROGRAMS[name]
    if text is None:
        text = (Path(__file__).resolve().parents[2] / "examples" / "mlp.mlir").read_text()
    module = parse_module(text)
    if "mindir." in text:
        module = compile_to_tensor(module)
    (fn,) = [op for op in module.ops if isinstance(op, func.FuncOp) and op.sym_name.data == entry]
    exe = AscendExecutable(module, entry)
    exe.run(entry, *[np.ones(static_shape(t), dtype_of(t)) for t in fn.function_type.inputs.data])
    report = exe.report
    assert report["lower_bound_bytes"] == report["peak_memory_bytes"]  # a tight plan
    assert max(b for _, b in report["memory_timeline"]) == report["peak_memory_bytes"]
