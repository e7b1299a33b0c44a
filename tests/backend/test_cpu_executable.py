"""CpuExecutable's API: signatures, input checks, errors, plan reuse, aliasing."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects.builtin import TensorType

from mindjit.backend.cpu import BUILDERS, CpuExecutable, ExecutionError
from mindjit.dialects.parsing import parse_module
from mindjit.support.errors import MindjitError

MLP_BLOCK = """
func.func @block(%x: tensor<2x4xf32>, %w: tensor<4x4xf32>, %b: tensor<4xf32>) -> tensor<2x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x4xf32>) -> tensor<2x4xf32>
  %m = linalg.matmul ins(%x, %w : tensor<2x4xf32>, tensor<4x4xf32>) outs(%z : tensor<2x4xf32>) -> tensor<2x4xf32>
  %a = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%m, %b : tensor<2x4xf32>, tensor<4xf32>) outs(%e : tensor<2x4xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<2x4xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<2x4xf32>) outs(%e : tensor<2x4xf32>) {
  ^bb0(%p: f32, %o: f32):
    %s = math.tanh %p : f32
    linalg.yield %s : f32
  } -> tensor<2x4xf32>
  func.return %t : tensor<2x4xf32>
}
func.func @passthrough(%x: tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  func.return %x, %x : tensor<2x4xf32>, tensor<2x4xf32>
}
"""


@pytest.fixture
def exe() -> CpuExecutable:
    return CpuExecutable(parse_module(MLP_BLOCK, "mlp.mlir"))


def args() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(1)
    return (
        rng.standard_normal((2, 4), dtype=np.float32),
        rng.standard_normal((4, 4), dtype=np.float32),
        rng.standard_normal(4, dtype=np.float32),
    )


def test_entry_names_and_signature(exe):
    assert exe.entry_names() == ["block", "passthrough"]
    ins, outs = exe.signature("block")
    assert [str(t) for t in ins] == ["tensor<2x4xf32>", "tensor<4x4xf32>", "tensor<4xf32>"]
    assert len(outs) == 1 and isinstance(outs[0], TensorType)


def test_runs_and_plans_once(exe):
    x, w, b = args()
    (out,) = exe.run("block", x, w, b)
    np.testing.assert_allclose(out, np.tanh(x @ w + b), rtol=1e-6)
    plan = exe.plan_for("block")
    for _ in range(3):
        exe.run("block", x, w, b)
    assert exe.plan_for("block") is plan
    # tensor.empty and the zero linalg.fill cost nothing: matmul, add, tanh
    assert plan.num_steps == 3


def test_a_plan_is_built_once_and_never_seen_half_built_by_another_thread(exe, monkeypatch):
    """Thread A builds @block's plan slowly; thread B asking for it meanwhile waits
    and gets the finished plan (before: B got A's empty plan and ran nothing)."""
    import threading

    from mindjit.backend.cpu import executable

    building, go_on = threading.Event(), threading.Event()
    compile_plan = executable.FunctionCompiler.compile
    built = []

    def slow_compile(self, plan):  # type: ignore[no-untyped-def]
        built.append(plan)
        building.set()
        go_on.wait(5)
        return compile_plan(self, plan)

    monkeypatch.setattr(executable.FunctionCompiler, "compile", slow_compile)
    got = {}
    a = threading.Thread(target=lambda: got.setdefault("a", exe.plan_for("block")))
    b = threading.Thread(target=lambda: got.setdefault("b", exe.plan_for("block")))
    a.start()
    building.wait(5)
    b.start()
    b.join(0.2)
    assert b.is_alive()  # waiting for A's plan, not running it half-built
    go_on.set()
    a.join()
    b.join()
    assert got["a"] is got["b"] is built[0] and len(built) == 1
    assert got["b"].num_steps == 3


def test_results_never_alias_inputs_or_each_other(exe):
    x, _, _ = args()
    r0, r1 = exe.run("passthrough", x)
    np.testing.assert_array_equal(r0, x)
    assert not np.shares_memory(r0, x) and not np.shares_memory(r1, x)
    assert not np.shares_memory(r0, r1)
    r0[0, 0] = 1e9
    assert x[0, 0] != 1e9


def test_fresh_results_are_not_copied(exe):
    x, w, b = args()
    (out,) = exe.run("block", x, w, b)
    assert out.flags.writeable and out.flags.owndata


def test_wrong_input_count(exe):
    x, w, _ = args()
    with pytest.raises(ExecutionError, match=r"entry @block expects 3 inputs, got 2"):
        exe.run("block", x, w)


def test_wrong_input_shape_and_dtype(exe):
    x, w, b = args()
    with pytest.raises(
        ExecutionError,
        match=r"input 2 of @block: expected tensor<4xf32>, got array of shape \(3,\) float32",
    ):
        exe.run("block", x, w, b[:3])
    with pytest.raises(
        ExecutionError,
        match=r"input 0 of @block: expected tensor<2x4xf32>, got array of shape \(2, 4\) float64",
    ):
        exe.run("block", x.astype(np.float64), w, b)
    with pytest.raises(
        ExecutionError, match=r"input 0 of @block: expected tensor<2x4xf32>, got list"
    ):
        exe.run("block", [[0.0] * 4] * 2, w, b)


def test_missing_function(exe):
    with pytest.raises(ExecutionError, match=r"no function @nope; available: @block, @passthrough"):
        exe.run("nope")


def test_execution_error_is_a_mindjit_error():
    assert issubclass(ExecutionError, MindjitError)


def test_unsupported_op_names_op_and_location():
    text = """func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %c = arith.constant 0.0 : f32
  %p = tensor.pad %a low[1] high[1] {
  ^bb0(%i: index):
    tensor.yield %c : f32
  } : tensor<4xf32> to tensor<6xf32>
  func.return %a : tensor<4xf32>
}
"""
    exe = CpuExecutable(parse_module(text, "prog.mlir"))
    with pytest.raises(ExecutionError) as info:
        exe.run("f", np.zeros(4, np.float32))
    assert str(info.value).startswith(
        "prog.mlir:3:3: error: 'tensor.pad' is not supported by the CPU executor"
    )


def test_unsupported_op_inside_a_body_is_located_there():
    text = """func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %t = tensor.empty() : tensor<2xf32>
    linalg.yield %x : f32
  } -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}
"""
    with pytest.raises(
        ExecutionError,
        match=r"prog.mlir:6:5: error: 'tensor.empty' is not supported .*inside the body of 'linalg.generic'",
    ):
        CpuExecutable(parse_module(text, "prog.mlir")).plan_for("f")


def test_run_time_failure_is_located_at_the_op():
    text = """func.func @f(%a: tensor<4xf32>, %i: index) -> f32 {
  %x = tensor.extract %a[%i] : tensor<4xf32>
  func.return %x : f32
}
"""
    exe = CpuExecutable(parse_module(text, "prog.mlir"))
    assert exe.run("f", np.arange(4, dtype=np.float32), np.int64(2))[0] == 2.0
    with pytest.raises(
        ExecutionError,
        match=r"prog.mlir:2:3: error: 'tensor.extract' failed at run time: IndexError",
    ):
        exe.run("f", np.arange(4, dtype=np.float32), np.int64(9))


def test_returned_constants_are_private_copies():
    text = """func.func @f() -> tensor<2xi32> {
  %c = arith.constant dense<[1, 2]> : tensor<2xi32>
  func.return %c : tensor<2xi32>
}
"""
    exe = CpuExecutable(parse_module(text))
    (first,) = exe.run("f")
    first[0] = 100
    (second,) = exe.run("f")
    np.testing.assert_array_equal(second, [1, 2])


def test_builders_registry_is_the_extension_point():
    assert "linalg.generic" in BUILDERS and "scf.while" in BUILDERS
    assert "ml_program.global_load" in BUILDERS and "ml_program.global_store" in BUILDERS


def test_scalar_inputs_accept_numpy_scalars_and_exact_python_numbers():
    text = """func.func @f(%x: i32, %y: f32, %b: i1) -> (i32, f32, i1) {
  func.return %x, %y, %b : i32, f32, i1
}
"""
    exe = CpuExecutable(parse_module(text))
    x, y, b = exe.run("f", 3, 0.5, True)
    assert (x.dtype, y.dtype, b.dtype) == (np.int32, np.float32, np.bool_)
    assert isinstance(x, np.ndarray) and x.shape == () and x == 3
    exe.run("f", np.int32(1), np.array(2.0, np.float32), np.bool_(False))
    with pytest.raises(ExecutionError, match=r"input 0 of @f: expected i32, got float"):
        exe.run("f", 2.5, 0.5, True)
    with pytest.raises(ExecutionError, match=r"input 0 of @f: expected i32, got int"):
        exe.run("f", 2**40, 0.5, True)
    with pytest.raises(ExecutionError, match=r"input 1 of @f: expected f32, got scalar float64"):
        exe.run("f", 1, np.float64(0.5), True)
