"""A loop's record (mindir.stack_*) on every engine: the CPU executor, IREE and the
simulated device give a numpy loop's values.

The program is what mindir-grad's loops do with a record: a `mindir.while`
pushes its carried value at its counter each iteration, then a second while
counts down and reads the slots back, weighting each by its slot number. It
goes through `compile_to_tensor` (the whole mindir pipeline and the lowering),
for 0, 1, 7 and 100 iterations, items of shape (), (3,) and (2, 4), f32 and i32.
"""

from __future__ import annotations

import sys

import numpy as np
import pytest

from mindjit.backend.ascend.compile import compile_for_device
from mindjit.backend.ascend.report import format_report
from mindjit.backend.ascend.simulator import Simulator
from mindjit.backend.cpu import CpuExecutable
from mindjit.dialects.parsing import parse_module
from mindjit.passes.pipelines import compile_to_tensor

SHAPES = [(), (3,), (2, 4)]
DTYPES = {"f32": np.float32, "i32": np.int32}
TRIPS = [0, 1, 7, 100]


def _t(shape: tuple[int, ...], element: str) -> str:
    return f"tensor<{''.join(f'{d}x' for d in shape)}{element}>"


def record_program(shape: tuple[int, ...], element: str) -> str:
    """`@f(x, n)`: push x, x+1, ... (n items) then sum slot k's item times (k + 1),
    reading the slots from n - 1 down to 0."""
    T, S, K = _t(shape, element), _t((-1, *shape), element).replace("-1", "?"), "tensor<i64>"
    one = "1.0" if element.startswith("f") else "1"
    return f"""
func.func @f(%x: {T}, %n: {K}) -> {T} {{
  %c0 = mindir.constant dense<0> : {K}
  %c1 = mindir.constant dense<1> : {K}
  %one = mindir.constant dense<{one}> : {T}
  %zero = mindir.sub %x, %x : {T}
  %s0 = mindir.stack_new : {S}
  %fw:3 = mindir.while (%k = %c0, %s = %s0, %v = %x) : ({K}, {S}, {T}) -> ({K}, {S}, {T}) {{
    %go = mindir.less %k, %n : ({K}, {K}) -> tensor<i1>
    mindir.condition(%go : tensor<i1>) %k, %s, %v : {K}, {S}, {T}
  }} do {{
  ^bb0(%k1: {K}, %s1: {S}, %v1: {T}):
    %s2 = mindir.stack_push %s1, %k1, %v1 : ({S}, {K}, {T}) -> {S}
    %v2 = mindir.add %v1, %one : {T}
    %k2 = mindir.add %k1, %c1 : {K}
    mindir.yield %k2, %s2, %v2 : {K}, {S}, {T}
  }}
  %bw:2 = mindir.while (%j = %fw#0, %acc = %zero) : ({K}, {T}) -> ({K}, {T}) {{
    %more = mindir.greater %j, %c0 : ({K}, {K}) -> tensor<i1>
    mindir.condition(%more : tensor<i1>) %j, %acc : {K}, {T}
  }} do {{
  ^bb0(%j1: {K}, %acc1: {T}):
    %slot = mindir.sub %j1, %c1 : {K}
    %item = mindir.stack_read %fw#1, %slot : ({S}, {K}) -> {T}
    %w = mindir.cast %j1 {{to = {element}}} : ({K}) -> tensor<{element}>
    %term = mindir.mul %item, %w : ({T}, tensor<{element}>) -> {T}
    %acc2 = mindir.add %acc1, %term : {T}
    mindir.yield %slot, %acc2 : {K}, {T}
  }}
  func.return %bw#1 : {T}
}}
"""


def reference(x: np.ndarray, n: int) -> np.ndarray:
    stack = []
    v = x.copy()
    for _ in range(n):
        stack.append(v.copy())
        v = v + x.dtype.type(1)
    acc = np.zeros_like(x)
    for k in range(n - 1, -1, -1):
        acc = acc + stack[k] * x.dtype.type(k + 1)
    return acc


def _input(shape: tuple[int, ...], dtype: type) -> np.ndarray:
    rng = np.random.default_rng(7)
    if dtype is np.int32:
        return rng.integers(-3, 4, shape).astype(np.int32)
    return rng.uniform(-1, 1, shape).astype(np.float32)


def _lowered(shape: tuple[int, ...], element: str):
    module = parse_module(record_program(shape, element), "<record>")
    return compile_to_tensor(module)


def _close(got: np.ndarray, want: np.ndarray, what: str) -> None:
    got = np.asarray(got)
    assert got.shape == want.shape and got.dtype == want.dtype, what
    if want.dtype.kind == "f":
        np.testing.assert_allclose(got, want, rtol=2e-5, atol=1e-4, err_msg=what)
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)


def capacity(pushes: int) -> int:
    """A stack's capacity after `pushes` pushes into slots 0, 1, ...: growth by a
    sixteenth plus 4 items, or to the slot (passes/mindir_to_tensor/stack.py)."""
    cap = 0
    for slot in range(pushes):
        if slot >= cap:
            cap = max(cap + cap // 16 + 4, slot + 1)
    return cap


@pytest.mark.parametrize("element", DTYPES)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_cpu_and_device_equal_numpy(shape: tuple[int, ...], element: str) -> None:
    lowered = _lowered(shape, element)
    assert not [op.name for op in lowered.walk() if op.name.startswith("mindir.")]
    cpu = CpuExecutable(lowered)
    sim = Simulator(compile_for_device(lowered.clone()))
    x = _input(shape, DTYPES[element])
    item = x.nbytes
    for n in TRIPS:
        want = reference(x, n)
        k = np.array(n, np.int64)
        _close(cpu.run("f", x, k)[0], want, f"CPU, n={n}")
        _close(sim.run([x, k])[0], want, f"device, n={n}")
        # the record is a run-time allocation of capacity x item bytes
        assert sim.report["loop_record_bytes"] == capacity(n) * item, n
    assert "loop records" in format_report(sim.report)


def test_report_counts_the_record_in_the_peak() -> None:
    lowered = _lowered((64,), "f32")
    model = compile_for_device(lowered)
    sim = Simulator(model)
    x = _input((64,), np.float32)
    sim.run([x, np.array(100, np.int64)])
    record = capacity(100) * 64 * 4
    assert capacity(100) == 103  # within 10% of the 100 items pushed
    assert sim.report["loop_record_bytes"] == record
    aligned = -(-record // model.align) * model.align  # allocations are aligned
    assert sim.report["peak_memory_bytes"] == model.memory_bytes + aligned
    assert max(level for _, level in sim.report["memory_timeline"]) >= record
    sim.run([x, np.array(0, np.int64)])
    assert sim.report["loop_record_bytes"] == 0
    assert sim.report["peak_memory_bytes"] == model.memory_bytes


def test_a_record_past_the_device_memory_is_refused() -> None:
    from mindjit.backend.ascend.device import DeviceConfig
    from mindjit.backend.ascend.simulator import SimulationError

    model = compile_for_device(_lowered((64,), "f32"))
    sim = Simulator(model, DeviceConfig(memory_bytes=model.memory_bytes + 4096))
    x = _input((64,), np.float32)
    sim.run([x, np.array(4, np.int64)])  # 4 x 256 B
    with pytest.raises(SimulationError, match="out of device memory: .* loop record"):
        sim.run([x, np.array(100, np.int64)])


@pytest.mark.parametrize("element", DTYPES)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_iree_equals_numpy(shape: tuple[int, ...], element: str) -> None:
    pytest.importorskip("iree.runtime")
    from mindjit.backend.iree.executable import IreeExecutable

    exe = IreeExecutable(_lowered(shape, element))
    x = _input(shape, DTYPES[element])
    for n in TRIPS:
        _close(exe.run("f", x, np.array(n, np.int64))[0], reference(x, n), f"IREE, n={n}")


# --- the CPU executor's in-place push ----------------------------------------------------

PUSH_TWICE = """
func.func @f(%a: tensor<3xf32>, %b: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %k0 = mindir.constant dense<0> : tensor<i64>
  %s0 = mindir.stack_new : tensor<?x3xf32>
  %s1 = mindir.stack_push %s0, %k0, %a : (tensor<?x3xf32>, tensor<i64>, tensor<3xf32>) -> tensor<?x3xf32>
  %s2 = mindir.stack_push %s1, %k0, %b : (tensor<?x3xf32>, tensor<i64>, tensor<3xf32>) -> tensor<?x3xf32>
  %x1 = mindir.stack_read %s1, %k0 : (tensor<?x3xf32>, tensor<i64>) -> tensor<3xf32>
  %x2 = mindir.stack_read %s2, %k0 : (tensor<?x3xf32>, tensor<i64>) -> tensor<3xf32>
  func.return %x1, %x2 : tensor<3xf32>, tensor<3xf32>
}
"""


def test_a_push_onto_a_stack_still_read_later_copies() -> None:
    """Value semantics: slot 0 of %s1 stays `a` though %s2 overwrites it (the push
    writes in place only into a destination nothing reads after it)."""
    exe = CpuExecutable(compile_to_tensor(parse_module(PUSH_TWICE, "<push twice>")))
    a, b = np.ones(3, np.float32), np.full(3, 2.0, np.float32)
    x1, x2 = exe.run("f", a, b)
    np.testing.assert_array_equal(x1, a)
    np.testing.assert_array_equal(x2, b)


def test_the_in_place_push_needs_the_only_reference() -> None:
    """The kernel writes in place only an array nothing else holds (a caller's array,
    a constant, a view keep their values)."""
    from mindjit.backend.cpu import kernels_tensor as K
    from mindjit.backend.cpu.steps import steal_release_step

    def push(d: np.ndarray, sole: bool = False) -> np.ndarray:
        out = d if sole and K._owned(d) else d.copy()
        out[0] = 9
        return out

    mine = [np.zeros(4), None]
    kept = mine[0]
    steal_release_step(push, [0], 1, 0, [])(mine)  # `kept` still holds it: a copy
    assert kept[0] == 0 and mine[1][0] == 9 and mine[1] is not kept
    sole = [np.zeros(4), None]
    ident = id(sole[0])
    steal_release_step(push, [0], 1, 0, [])(sole)  # the slot held the only reference
    assert id(sole[1]) == ident and sole[0] is None
    base = np.zeros((2, 4))
    view = [base[0], None]
    steal_release_step(push, [0], 1, 0, [])(view)  # a view: its base is another array
    assert base[0, 0] == 0
    assert sys.getrefcount(kept) >= 2


IF_RECORD = """
func.func @f(%x: tensor<3xf32>, %c: tensor<i1>) -> tensor<3xf32> {
  %k0 = mindir.constant dense<0> : tensor<i64>
  %k1 = mindir.constant dense<1> : tensor<i64>
  %s0 = mindir.stack_new : tensor<?x3xf32>
  %s1 = mindir.stack_push %s0, %k0, %x : (tensor<?x3xf32>, tensor<i64>, tensor<3xf32>) -> tensor<?x3xf32>
  %s2 = mindir.if %c -> (tensor<?x3xf32>) {
    %y = mindir.add %x, %x : tensor<3xf32>
    %p = mindir.stack_push %s1, %k1, %y : (tensor<?x3xf32>, tensor<i64>, tensor<3xf32>) -> tensor<?x3xf32>
    mindir.yield %p : tensor<?x3xf32>
  } else {
    %p = mindir.stack_push %s1, %k1, %x : (tensor<?x3xf32>, tensor<i64>, tensor<3xf32>) -> tensor<?x3xf32>
    mindir.yield %p : tensor<?x3xf32>
  }
  %a = mindir.stack_read %s2, %k1 : (tensor<?x3xf32>, tensor<i64>) -> tensor<3xf32>
  %b = mindir.stack_read %s2, %k0 : (tensor<?x3xf32>, tensor<i64>) -> tensor<3xf32>
  %r = mindir.sub %a, %b : tensor<3xf32>
  func.return %r : tensor<3xf32>
}
"""


def test_a_record_flows_out_of_an_if_on_every_engine() -> None:
    """An `if` yielding a record stays an `if` (mindir-cf-to-select leaves it) and
    lowers to an `scf.if` with a `tensor<?x3xf32>` result."""
    lowered = compile_to_tensor(parse_module(IF_RECORD, "<if record>"))
    assert any(op.name == "scf.if" and "?" in str(op.results[0].type) for op in lowered.walk())
    x = np.array([1.0, 2.0, 3.0], np.float32)
    engines = [lambda *a: CpuExecutable(lowered).run("f", *a)[0]]
    sim = Simulator(compile_for_device(lowered.clone()))
    engines.append(lambda *a: sim.run(list(a))[0])
    try:
        from mindjit.backend.iree.executable import IreeExecutable

        iree = IreeExecutable(lowered)
        engines.append(lambda *a: iree.run("f", *a)[0])
    except ImportError:
        pass
    for c, want in ((True, x), (False, 0 * x)):
        for run in engines:
            np.testing.assert_array_equal(run(x, np.array(c)), want)


def _count_copies(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    from mindjit.backend.cpu import kernels_tensor as K

    copies: list[int] = []
    real = K._copied

    def counted(d: np.ndarray) -> np.ndarray:
        copies.append(d.shape[0])
        return real(d)

    monkeypatch.setattr(K, "_copied", counted)
    return copies


def test_a_loop_of_pushes_copies_no_stack(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each push writes its item into the stack in place (the loop-carried stack has
    one holder when the push runs), so n pushes cost n items plus the growth's
    O(n) copies, not O(n^2): the time per push does not grow with n."""
    copies = _count_copies(monkeypatch)
    exe = CpuExecutable(_lowered((256,), "f32"))
    x = _input((256,), np.float32)
    np.testing.assert_allclose(exe.run("f", x, np.array(300, np.int64))[0], reference(x, 300))
    assert copies == []
    exe.run("f", x, np.array(300, np.int64))  # a second run reuses nothing stale
    assert copies == []


def test_a_push_onto_a_stack_read_later_copies_it_once(monkeypatch: pytest.MonkeyPatch) -> None:
    copies = _count_copies(monkeypatch)
    exe = CpuExecutable(compile_to_tensor(parse_module(PUSH_TWICE, "<push twice>")))
    exe.run("f", np.ones(3, np.float32), np.full(3, 2.0, np.float32))
    assert copies == [4]  # %s1 is read after %s2's push: that push copies it


def test_reading_past_the_capacity_is_a_located_error() -> None:
    from mindjit.backend.cpu.errors import ExecutionError

    text = PUSH_TWICE.replace(
        "%x1 = mindir.stack_read %s1, %k0",
        "%k9 = mindir.constant dense<9> : tensor<i64>\n  %x1 = mindir.stack_read %s1, %k9",
    )
    exe = CpuExecutable(compile_to_tensor(parse_module(text, "push.mlir")))
    with pytest.raises(ExecutionError, match=r"push.mlir:\d+:\d+: .*offset 9, size 1, .* size 4"):
        exe.run("f", np.ones(3, np.float32), np.ones(3, np.float32))
