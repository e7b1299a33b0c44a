"""Plans as data (the compile cache's warm path): a rebuilt plan runs exactly as the
plan it was captured from, on random inputs, for every function of every lit
module the CPU executor can run; what cannot be captured says so; errors keep
their locations."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from mindjit.backend.cache.module_codec import Encoded, ModuleFormatError, decode, encode
from mindjit.backend.cache.plan_codec import capture, declaring, rebuild
from mindjit.backend.cpu import CpuExecutable
from mindjit.backend.cpu.errors import ExecutionError, RuntimeCheckError
from mindjit.backend.cpu.types import dtype_of, is_tensor, static_shape
from mindjit.dialects.context import make_context
from mindjit.dialects.parsing import parse_module
from mindjit.passes.pipelines import LOWER_TO_TENSOR, parse_pipeline, run_passes
from mindjit.support.errors import MindjitError

FILECHECK = Path(__file__).resolve().parents[1] / "filecheck"


def _through_bytes(module):
    encoded = encode(module)
    again = Encoded(
        json.loads(json.dumps(encoded.attrs)), encoded.ops, encoded.forward, encoded.blob
    )
    return decode(again, make_context())


def warm_executable(module) -> CpuExecutable | None:
    """What a cache hit builds: the module with the captured functions declared,
    their plans rebuilt from data (everything through the entry's byte forms)."""
    captured = capture(CpuExecutable(module))
    if captured is None:
        return None
    data = json.loads(json.dumps(captured.data))
    exe = CpuExecutable(_through_bytes(declaring(module, captured.names)))
    kernels = _through_bytes(captured.kernels)
    assert rebuild(data, captured.blob, kernels, exe, lambda: _through_bytes(module)) == (
        captured.names
    )
    return exe


def captured_names(module) -> list[str]:
    captured = capture(CpuExecutable(module))
    return [] if captured is None else captured.names


def random_inputs(exe: CpuExecutable, name: str, rng: np.random.Generator) -> list[Any]:
    values = []
    for t in exe.signature(name)[0]:
        dtype = dtype_of(t)
        shape = static_shape(t) if is_tensor(t) else ()
        if dtype.kind == "b":
            a = rng.random(shape) < 0.5
        elif dtype.kind in "iu":
            a = rng.integers(0, 4, shape).astype(dtype)  # small: also valid as indices
        else:
            a = rng.standard_normal(shape).astype(dtype)
        values.append(a if is_tensor(t) else dtype.type(a[()]))
    return values


def outcome(exe: CpuExecutable, name: str, args: list[Any]) -> Any:
    """The results and every global after a run, or the error's text."""
    try:
        results = exe.run(name, *[np.copy(a) for a in args])
    except MindjitError as err:
        return str(err)
    state = {k: np.copy(v) for k, v in sorted(exe.globals.items())}
    return [np.copy(r) for r in results], state


def assert_same(a: Any, b: Any, what: str) -> None:
    if isinstance(a, str) or isinstance(b, str):  # the same error at the same op
        if "RecursionError" in a and "RecursionError" in b:
            return  # endless recursion: where the stack ends depends on frame sizes
        assert a.split(" at run time: ")[0] == b.split(" at run time: ")[0], what
        return
    (ra, ga), (rb, gb) = a, b
    assert len(ra) == len(rb), what
    for x, y in zip(ra, rb):
        assert x.dtype == y.dtype and x.shape == y.shape, what
        np.testing.assert_array_equal(x, y, err_msg=what)
    assert ga.keys() == gb.keys(), what
    for k in ga:
        np.testing.assert_array_equal(ga[k], gb[k], err_msg=f"{what}: global @{k}")


def _module(case: str):
    """A lit module, as written or (case suffix "~lowered") lowered to tensors."""
    path, k = case.removesuffix(LOWERED).split("#")
    module = parse_module((FILECHECK / path).read_text().split("// -----")[int(k)], case)
    if case.endswith(LOWERED):
        run_passes(parse_pipeline(LOWER_TO_TENSOR), module, make_context())
    return module


LOWERED = "~lowered"


def _runnable() -> list[tuple[str, str]]:
    """(case, function) for every function of a lit module (as written, or lowered
    to tensors when it is mindir) that the executor plans."""
    found = []
    for path in sorted(FILECHECK.rglob("*.mlir")):
        for k in range(len(path.read_text().split("// -----"))):
            for case in (
                f"{path.relative_to(FILECHECK)}#{k}",
                f"{path.relative_to(FILECHECK)}#{k}{LOWERED}",
            ):
                try:
                    exe = CpuExecutable(_module(case))
                    names = exe.entry_names()
                    for name in names:
                        exe.plan_for(name)
                        random_inputs(exe, name, np.random.default_rng(0))
                except MindjitError:
                    continue
                found += [(case, name) for name in names]
                break
    return found


RUNNABLE = _runnable()


@pytest.mark.parametrize("case, name", RUNNABLE, ids=[f"{c}@{n}" for c, n in RUNNABLE])
def test_rebuilt_plan_runs_as_the_captured_one(case, name):
    if name not in captured_names(_module(case)):
        pytest.skip("not captured (control flow, prints): planned from the module on a hit")
    warm = warm_executable(_module(case))
    cold = CpuExecutable(_module(case))
    rng = np.random.default_rng(0)
    for run in range(3):  # state carries across runs
        args = random_inputs(cold, name, rng)
        assert_same(outcome(cold, name, args), outcome(warm, name, args), f"{case} run {run}")


def test_most_runnable_functions_are_captured():
    captured = [c for c, n in RUNNABLE if n in captured_names(_module(c))]
    assert len(RUNNABLE) >= 100 and len(captured) >= 80, (len(RUNNABLE), len(captured))


STATE = """
ml_program.global private mutable @w(dense<[1.0, 2.0]> : tensor<2xf32>) : tensor<2xf32>
func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  %w = ml_program.global_load @w : tensor<2xf32>
  %e = tensor.empty() : tensor<2xf32>
  %s = linalg.add ins(%w, %x : tensor<2xf32>, tensor<2xf32>) outs(%e : tensor<2xf32>) -> tensor<2xf32>
  %t = linalg.add ins(%s, %x : tensor<2xf32>, tensor<2xf32>) outs(%e : tensor<2xf32>) -> tensor<2xf32>
  ml_program.global_store @w = %t : tensor<2xf32>
  %c = arith.constant dense<[3.0, 3.0]> : tensor<2xf32>
  %r = linalg.mul ins(%t, %c : tensor<2xf32>, tensor<2xf32>) outs(%e : tensor<2xf32>) -> tensor<2xf32>
  func.return %r : tensor<2xf32>
}
"""


def test_same_structures_share_one_kernel_template():
    captured = capture(CpuExecutable(parse_module(STATE, "state.mlir")))
    assert captured is not None and captured.names == ["f"]
    # load, the two adds (one structure), store, mul with its constant
    assert len(captured.data["kernel_counts"]) == 4
    ops = [op.name for op in captured.kernels.walk()]
    assert ops.count("arith.constant") == 1  # the mul's constant travels with it


def test_global_state_and_aliasing_match_after_rebuild():
    warm = warm_executable(parse_module(STATE, "state.mlir"))
    cold = CpuExecutable(parse_module(STATE, "state.mlir"))
    x = np.array([0.5, -1.0], np.float32)
    for _ in range(3):
        assert_same(outcome(cold, "f", [x]), outcome(warm, "f", [x]), "state")
    returned = warm.run("f", x)[0]
    returned[...] = 99  # the caller's copy: the global is untouched
    assert not (warm.get_global("w") == 99).any()


CHECKED = """
func.func @f(%x: i32) -> i32 {
  %c = arith.constant 3 : i32
  %ok = arith.cmpi slt, %x, %c : i32
  cf.assert %ok, "x must be below 3"
  %y = arith.addi %x, %c : i32
  func.return %y : i32
}
"""


def test_rebuilt_plan_errors_are_located_at_the_original_op():
    warm = warm_executable(parse_module(CHECKED, "checked.mlir"))
    assert warm is not None
    assert warm.run("f", np.int32(1))[0] == 4
    with pytest.raises(RuntimeCheckError) as err:
        warm.run("f", np.int32(5))
    assert str(err.value) == "checked.mlir:5:3: error: x must be below 3"


UNSET = """
ml_program.global private mutable @w : tensor<2xf32>
func.func @f() -> tensor<2xf32> {
  %w = ml_program.global_load @w : tensor<2xf32>
  func.return %w : tensor<2xf32>
}
"""


def test_a_global_read_before_it_has_a_value_is_located():
    warm = warm_executable(parse_module(UNSET, "unset.mlir"))
    assert warm is not None
    with pytest.raises(ExecutionError, match=r"^unset\.mlir:4:3: error: global @w is read before"):
        warm.run("f")


CONTROL = """
func.func @f(%c: i1, %x: f32) -> f32 {
  %r = scf.if %c -> (f32) {
    scf.yield %x : f32
  } else {
    %n = arith.negf %x : f32
    scf.yield %n : f32
  }
  func.return %r : f32
}
"""


def test_control_flow_is_not_captured():
    assert capture(CpuExecutable(parse_module(CONTROL, "c.mlir"))) is None


def test_tracing_plans_the_module_again():
    warm = warm_executable(parse_module(STATE, "state.mlir"))
    warm.trace_enabled = True
    warm.run("f", np.zeros(2, np.float32))
    assert warm.trace[0] == "ml_program.global_load"
    assert warm.function("f").body.blocks  # the declaration gave way to the body


CALLS = """
func.func @g(%x: tensor<2xf32>) -> tensor<2xf32> {
  %e = tensor.empty() : tensor<2xf32>
  %y = linalg.mul ins(%x, %x : tensor<2xf32>, tensor<2xf32>) outs(%e : tensor<2xf32>) -> tensor<2xf32>
  func.return %y : tensor<2xf32>
}
func.func @h(%c: i1, %x: tensor<2xf32>) -> tensor<2xf32> {
  %r = scf.if %c -> (tensor<2xf32>) {
    %y = func.call @g(%x) : (tensor<2xf32>) -> tensor<2xf32>
    scf.yield %y : tensor<2xf32>
  } else {
    scf.yield %x : tensor<2xf32>
  }
  func.return %r : tensor<2xf32>
}
func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  %a = func.call @g(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %b = func.call @g(%a) : (tensor<2xf32>) -> tensor<2xf32>
  func.return %b : tensor<2xf32>
}
"""


def test_calls_bind_the_callees_rebuilt_or_planned_plans():
    module = parse_module(CALLS, "calls.mlir")
    assert captured_names(module) == ["g", "f"]  # @h has control flow: planned on a hit
    warm, cold = warm_executable(module), CpuExecutable(parse_module(CALLS, "calls.mlir"))
    x = np.array([1.5, -2.0], np.float32)
    np.testing.assert_array_equal(warm.run("f", x)[0], cold.run("f", x)[0])
    np.testing.assert_array_equal(warm.run("h", np.True_, x)[0], x * x)
    assert not warm.function("g").body.blocks  # @h's call found @g's rebuilt plan


def _change(path: str, value):
    def change(d):
        *parents, last = path.split("/")
        for k in parents:
            d = d[int(k)] if k.isdigit() else d[k]
        d[last] = value

    return change


@pytest.mark.parametrize(
    "change",
    [
        _change("kernel_counts", []),
        _change("functions/0/results", [99]),
        _change("functions/0/arguments", -5),
        _change("functions/0/steps", [0, 7]),
        _change("origins", [["x", "f", "a", 1]]),
        _change("functions/0/constants", [{"dtype": "<f4", "shape": [3], "bytes": [0, 4]}]),
        _change("functions/0/name", 3),
        _change("functions", [{}]),
    ],
)
def test_inconsistent_plan_data_is_a_format_error(change):
    module = parse_module(STATE, "state.mlir")
    captured = capture(CpuExecutable(module))
    data = json.loads(json.dumps(captured.data))
    change(data)
    exe = CpuExecutable(declaring(module, ["f"]))
    with pytest.raises(ModuleFormatError):
        rebuild(data, captured.blob, captured.kernels, exe, lambda: module)


def test_adopting_a_plan_needs_the_function_declared():
    from mindjit.backend.cpu import Plan

    exe = CpuExecutable(parse_module(STATE, "state.mlir"))  # @f has its body here
    with pytest.raises(ExecutionError, match="no declaration of @f to stand for its plan"):
        exe.adopt_plans({"f": Plan("f")}, lambda: None)
