"""State on the CPU executor: Parameters lowered to ml_program globals, Load/Assign
in block order, print through `print_hook`, and the executable's global API."""

from __future__ import annotations

import numpy as np
import pytest

from mindjit.backend.cpu import CpuExecutable, ExecutionError
from mindjit.dialects.parsing import parse_module
from mindjit.passes.pipelines import lower_to_tensor
from mindjit.support.tensor_text import default_print_hook, format_tensor


def compile_mindir(src: str, name: str = "prog.mlir") -> CpuExecutable:
    module = parse_module(src, name)
    lower_to_tensor(module)
    return CpuExecutable(module)


ORDER = """
mindir.parameter @w = dense<[1.0, 2.0]> : tensor<2xf32>

func.func @assign_then_load(%x: tensor<2xf32>, %u0: !mindir.u) -> tensor<2xf32> {
  %p = mindir.get_parameter @w : !mindir.ref<tensor<2xf32>>
  %a = mindir.assign %p, %x, %u0 : tensor<2xf32>
  %l = mindir.load %p, %u0 : tensor<2xf32>
  func.return %l : tensor<2xf32>
}

func.func @load_then_assign(%x: tensor<2xf32>, %u0: !mindir.u) -> (tensor<2xf32>, tensor<2xf32>) {
  %p = mindir.get_parameter @w : !mindir.ref<tensor<2xf32>>
  %l = mindir.load %p, %u0 : tensor<2xf32>
  %a = mindir.assign %p, %x, %u0 : tensor<2xf32>
  func.return %l, %a : tensor<2xf32>, tensor<2xf32>
}

func.func @load_copy_then_assign(%x: tensor<2xf32>, %u0: !mindir.u) -> (tensor<2xf32>, tensor<2xf32>) {
  %p = mindir.get_parameter @w : !mindir.ref<tensor<2xf32>>
  %l = mindir.load %p, %u0 : tensor<2xf32>
  %c = mindir.tensor_move %l : tensor<2xf32>
  %a = mindir.assign %p, %x, %u0 : tensor<2xf32>
  func.return %c, %a : tensor<2xf32>, tensor<2xf32>
}

func.func @read() -> tensor<2xf32> {
  %u = builtin.unrealized_conversion_cast to !mindir.u
  %p = mindir.get_parameter @w : !mindir.ref<tensor<2xf32>>
  %l = mindir.load %p, %u : tensor<2xf32>
  func.return %l : tensor<2xf32>
}
"""

COUNTER = """
mindir.parameter @count = dense<0> : tensor<i32>

func.func @bump(%u0: !mindir.u) -> (tensor<i32>, !mindir.u) {
  %one = mindir.constant dense<1> : tensor<i32>
  %p = mindir.get_parameter @count : !mindir.ref<tensor<i32>>
  %v = mindir.load %p, %u0 : tensor<i32>
  %v1 = mindir.add %v, %one : tensor<i32>
  %a = mindir.assign %p, %v1, %u0 : tensor<i32>
  %u1 = mindir.update_state %u0, %a : tensor<i32>
  func.return %a, %u1 : tensor<i32>, !mindir.u
}

func.func @bump_unused(%x: tensor<f32>, %u0: !mindir.u) -> tensor<f32> {
  %r:2 = func.call @bump(%u0) : (!mindir.u) -> (tensor<i32>, !mindir.u)
  func.return %x : tensor<f32>
}

func.func @bump_n(%n: tensor<i32>, %u0: !mindir.u) -> tensor<i32> {
  %zero = mindir.constant dense<0> : tensor<i32>
  %one = mindir.constant dense<1> : tensor<i32>
  %w:2 = mindir.while (%i = %zero, %u = %u0) : (tensor<i32>, !mindir.u) -> (tensor<i32>, !mindir.u) {
    %lt = mindir.less %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
    mindir.condition(%lt : tensor<i1>) %i, %u : tensor<i32>, !mindir.u
  } do {
  ^bb0(%j: tensor<i32>, %uj: !mindir.u):
    %r:2 = func.call @bump(%uj) : (!mindir.u) -> (tensor<i32>, !mindir.u)
    %j1 = mindir.add %j, %one : tensor<i32>
    mindir.yield %j1, %r#1 : tensor<i32>, !mindir.u
  }
  %p = mindir.get_parameter @count : !mindir.ref<tensor<i32>>
  %v = mindir.load %p, %w#1 : tensor<i32>
  func.return %v : tensor<i32>
}

func.func @pure(%x: tensor<f32>) -> tensor<f32> {
  %y = mindir.add %x, %x : tensor<f32>
  func.return %y : tensor<f32>
}
"""

PRINTS = """
func.func @show(%x: tensor<3xf32>, %n: tensor<i64>, %io0: !mindir.io) -> (tensor<3xf32>, !mindir.io) {
  %io1 = mindir.print %x, %n, %io0 {format = ["x:", 0, "n:", 1]} : tensor<3xf32>, tensor<i64>
  %io2 = mindir.print %n, %io1 : tensor<i64>
  func.return %x, %io2 : tensor<3xf32>, !mindir.io
}

func.func @show_unused(%x: tensor<3xf32>, %io0: !mindir.io) -> tensor<3xf32> {
  %n = mindir.constant dense<7> : tensor<i64>
  %r:2 = func.call @show(%x, %n, %io0) : (tensor<3xf32>, tensor<i64>, !mindir.io) -> (tensor<3xf32>, !mindir.io)
  func.return %x : tensor<3xf32>
}
"""

F32 = np.float32


def arr(*values: float) -> np.ndarray:
    return np.array(values, F32)


# -- globals -------------------------------------------------------------------------


def test_globals_start_at_the_initial_values() -> None:
    exe = compile_mindir(ORDER)
    assert set(exe.globals) == {"w"}
    np.testing.assert_array_equal(exe.get_global("w"), arr(1, 2))
    np.testing.assert_array_equal(exe.run("read")[0], arr(1, 2))


def test_assign_then_load_sees_the_new_value() -> None:
    exe = compile_mindir(ORDER)
    (loaded,) = exe.run("assign_then_load", arr(5, 6))
    np.testing.assert_array_equal(loaded, arr(5, 6))
    np.testing.assert_array_equal(exe.get_global("w"), arr(5, 6))


def test_load_then_assign_aliases_and_tensor_move_keeps_the_old_value() -> None:
    exe = compile_mindir(ORDER)
    # a Load is the Parameter's memory: returned without a TensorMove it shows the
    # value the Parameter has when the call returns (after the Assign)
    seen, assigned = exe.run("load_then_assign", arr(5, 6))
    np.testing.assert_array_equal(seen, arr(5, 6))
    np.testing.assert_array_equal(assigned, arr(5, 6))  # Assign returns the new value
    np.testing.assert_array_equal(exe.get_global("w"), arr(5, 6))
    old, _ = exe.run("load_copy_then_assign", arr(7, 8))  # the copy keeps the old value
    np.testing.assert_array_equal(old, arr(5, 6))
    np.testing.assert_array_equal(exe.get_global("w"), arr(7, 8))


def test_state_persists_across_runs() -> None:
    exe = compile_mindir(COUNTER)
    assert [int(exe.run("bump")[0]) for _ in range(3)] == [1, 2, 3]
    assert int(exe.get_global("count")) == 3


def test_effects_in_a_loop_and_in_called_graphs() -> None:
    exe = compile_mindir(COUNTER)
    (v,) = exe.run("bump_n", np.array(4, np.int32))
    assert int(v) == 4
    (v,) = exe.run("bump_n", np.array(0, np.int32))
    assert int(v) == 4


def test_side_effects_are_kept_when_results_are_unused() -> None:
    exe = compile_mindir(COUNTER)
    x = np.array(1.5, F32)
    for _ in range(2):
        (y,) = exe.run("bump_unused", x)
        assert float(y) == 1.5
    assert int(exe.get_global("count")) == 2


def test_pure_functions_keep_the_fast_path() -> None:
    exe = compile_mindir(COUNTER)
    assert exe.plan_for("pure").side_effects is False
    assert exe.plan_for("bump").side_effects is True
    assert exe.plan_for("bump_unused").side_effects is True  # through the call


def test_set_global_then_run_then_get_global() -> None:
    exe = compile_mindir(COUNTER)
    exe.set_global("count", np.array(41, np.int32))
    assert int(exe.run("bump")[0]) == 42
    assert int(exe.get_global("count")) == 42


def test_set_global_adopts_the_array_and_stores_write_into_it() -> None:
    exe = compile_mindir(ORDER)
    source = arr(3, 4)
    exe.set_global("w", source)
    np.testing.assert_array_equal(exe.run("read")[0], arr(3, 4))
    assert exe.get_global("w") is source  # the caller's array is the buffer
    exe.run("assign_then_load", arr(5, 6))
    assert exe.get_global("w") is source  # written in place
    np.testing.assert_array_equal(source, arr(5, 6))
    exe.set_global("w", np.float32(1.0) * arr(7, 8))
    np.testing.assert_array_equal(exe.run("read")[0], arr(7, 8))


def test_results_and_arguments_do_not_alias_globals() -> None:
    exe = compile_mindir(ORDER)
    x = arr(5, 6)
    loaded, assigned = exe.run("load_then_assign", x)
    x[:] = -1  # the caller's input array was stored: the global kept a copy
    assigned[:] = -2
    loaded[:] = -3
    np.testing.assert_array_equal(exe.get_global("w"), arr(5, 6))
    (read,) = exe.run("read")
    read[:] = -4
    np.testing.assert_array_equal(exe.get_global("w"), arr(5, 6))


TWO = """
mindir.parameter @a = dense<[1.0, 2.0]> : tensor<2xf32>
mindir.parameter @b = dense<[0.0, 0.0]> : tensor<2xf32>

func.func @copy_and_reset(%u0: !mindir.u) {
  %pa = mindir.get_parameter @a : !mindir.ref<tensor<2xf32>>
  %pb = mindir.get_parameter @b : !mindir.ref<tensor<2xf32>>
  %va = mindir.load %pa, %u0 : tensor<2xf32>
  %s = mindir.assign %pb, %va, %u0 : tensor<2xf32>
  %zero = mindir.constant dense<0.0> : tensor<2xf32>
  %r = mindir.assign %pa, %zero, %u0 : tensor<2xf32>
  func.return
}
"""


def test_stores_never_share_memory_with_constants_or_other_globals() -> None:
    exe = compile_mindir(TWO)
    exe.run("copy_and_reset")  # no results: kept for its effects
    a, b = exe.get_global("a"), exe.get_global("b")
    np.testing.assert_array_equal(a, arr(0, 0))
    np.testing.assert_array_equal(b, arr(1, 2))
    assert a.flags.writeable and b.flags.writeable
    a[:] = 5  # the caller may own what it gets back; the next run starts from it
    exe.run("copy_and_reset")
    np.testing.assert_array_equal(exe.get_global("b"), arr(5, 5))
    np.testing.assert_array_equal(exe.get_global("a"), arr(0, 0))


def test_initial_values_are_copied_lazily() -> None:
    exe = compile_mindir(TWO)
    live = exe.live_globals
    assert set(live.pending) == {"a", "b"} and dict(live) == {}
    np.testing.assert_array_equal(exe.get_global("a"), arr(1, 2))  # first use copies @a only
    assert set(live.pending) == {"b"} and set(dict(live)) == {"a"}
    assert exe.get_global("a") is exe.get_global("a")  # one buffer, made once
    assert set(exe.globals) == {"a", "b"} and not live.pending  # `globals` materializes all


def test_get_global_of_an_unused_global_is_its_initial_value() -> None:
    exe = compile_mindir(ORDER)
    assert "w" in exe.live_globals.pending
    w = exe.get_global("w")
    np.testing.assert_array_equal(w, arr(1, 2))
    assert w.dtype == F32 and w.flags.writeable and w.flags.c_contiguous
    assert "w" not in exe.live_globals.pending
    w[0] = 10.0  # the buffer is the global's: the next run reads it
    np.testing.assert_array_equal(exe.run("read")[0], arr(10, 2))
    fresh = compile_mindir(ORDER)  # and a copy: the module's attribute is unchanged
    np.testing.assert_array_equal(fresh.get_global("w"), arr(1, 2))


def test_set_global_before_any_run_never_copies_the_initial_value(monkeypatch) -> None:
    exe = compile_mindir(ORDER)
    copies: list[str] = []
    adopt = exe._adopt_initial
    monkeypatch.setattr(exe, "_adopt_initial", lambda n, v: copies.append(n) or adopt(n, v))
    source = arr(3, 4)
    exe.set_global("w", source)
    assert "w" not in exe.live_globals.pending
    assert exe.live_globals["w"] is source and exe.get_global("w") is source
    np.testing.assert_array_equal(exe.run("read")[0], arr(3, 4))
    exe.run("assign_then_load", arr(5, 6))
    assert exe.get_global("w") is source
    np.testing.assert_array_equal(source, arr(5, 6))
    assert set(exe.globals) == {"w"} and exe.globals["w"] is source
    assert copies == []  # the initial value was never copied


def test_a_store_before_any_load_writes_into_the_initial_copy() -> None:
    exe = compile_mindir(TWO)
    exe.run("copy_and_reset")  # stores to @b (pending) and @a (read first)
    assert not exe.live_globals.pending
    np.testing.assert_array_equal(exe.get_global("b"), arr(1, 2))
    np.testing.assert_array_equal(exe.get_global("a"), arr(0, 0))


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("nope", arr(1, 2), r"no global @nope; available: @w"),
        (
            "w",
            arr(1, 2, 3),
            r"global @w is tensor<2xf32> \(shape \(2,\), float32\), got array of shape \(3,\) float32",
        ),
        ("w", np.array([1, 2], np.int32), r"got array of shape \(2,\) int32"),
        ("w", [1.0, 2.0], r"got list"),
    ],
)
def test_set_global_validates(name: str, value: object, message: str) -> None:
    exe = compile_mindir(ORDER)
    with pytest.raises(ExecutionError, match=message):
        exe.set_global(name, value)
    np.testing.assert_array_equal(exe.get_global("w"), arr(1, 2))


def test_get_global_unknown_name() -> None:
    exe = compile_mindir(ORDER)
    with pytest.raises(ExecutionError, match="no global @v; available: @w"):
        exe.get_global("v")


LOWERED = """
ml_program.global private @frozen(dense<3> : tensor<i32>) : tensor<i32>
ml_program.global private mutable @empty : tensor<i32>
func.func @const() -> tensor<i32> {
  %c = ml_program.global_load_const @frozen : tensor<i32>
  func.return %c : tensor<i32>
}
func.func @read_empty() -> tensor<i32> {
  %v = ml_program.global_load @empty : tensor<i32>
  func.return %v : tensor<i32>
}
func.func private @external(tensor<i32>)
func.func @call_external(%x: tensor<i32>) {
  func.call @external(%x) : (tensor<i32>) -> ()
  func.return
}
"""


def test_upstream_ml_program_forms() -> None:
    exe = CpuExecutable(parse_module(LOWERED, "low.mlir"))
    assert int(exe.run("const")[0]) == 3
    with pytest.raises(ExecutionError, match="global @frozen is immutable"):
        exe.set_global("frozen", np.array(1, np.int32))
    with pytest.raises(ExecutionError, match="global @empty has no value yet"):
        exe.get_global("empty")
    with pytest.raises(
        ExecutionError, match=r"low.mlir:9:3: error: global @empty is read before it has a value"
    ):
        exe.run("read_empty")
    exe.set_global("empty", np.array(5, np.int32))
    assert int(exe.run("read_empty")[0]) == 5
    with pytest.raises(ExecutionError, match="cannot call @external: external functions"):
        exe.run("call_external", np.array(1, np.int32))


# -- print ---------------------------------------------------------------------------


def test_print_writes_mindspore_format_to_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    exe = compile_mindir(PRINTS)
    x = np.array([-4.01971531, -0.579053342, 3.41115999], F32)
    exe.run("show", x, np.array(5, np.int64))
    assert capsys.readouterr().out == (
        "x:\n"
        "Tensor(shape=[3], dtype=Float32, value=[-4.01971531e+00 -5.79053342e-01  3.41115999e+00])\n"
        "n:\n"
        "Tensor(shape=[], dtype=Int64, value=5)\n"
        "Tensor(shape=[], dtype=Int64, value=5)\n"
    )


def test_print_hook_gets_strings_and_arrays() -> None:
    exe = compile_mindir(PRINTS)
    calls: list[list[object]] = []
    exe.print_hook = calls.append
    x = arr(1, 2, 3)
    for _ in range(2):  # prints inside a called graph whose results are unused
        exe.run("show_unused", x)
    assert len(calls) == 4
    first, second = calls[0], calls[1]
    assert first[0] == "x:" and first[2] == "n:"
    np.testing.assert_array_equal(first[1], x)
    assert isinstance(first[3], np.ndarray) and first[3].shape == () and int(first[3]) == 7
    assert len(second) == 1 and int(second[0]) == 7
    exe.print_hook = default_print_hook


def test_format_tensor() -> None:
    assert format_tensor(np.array(5, np.int64)) == "Tensor(shape=[], dtype=Int64, value=5)"
    assert (
        format_tensor(np.array(-1.5, np.float64)) == "Tensor(shape=[], dtype=Float64, value=-1.5)"
    )
    assert (
        format_tensor(np.ones((2, 1), np.int32))
        == "Tensor(shape=[2, 1], dtype=Int32, value=\n[[1]\n [1]])"
    )
    assert (
        format_tensor(np.array([True, False]))
        == "Tensor(shape=[2], dtype=Bool, value=[ True False])"
    )
    assert (
        format_tensor(np.array([[1.0, 2.0]], np.float32))
        == "Tensor(shape=[1, 2], dtype=Float32, value=\n[[ 1.00000000e+00  2.00000000e+00]])"
    )
    assert (
        format_tensor(np.array([1.0, -2.0], np.float16))
        == "Tensor(shape=[2], dtype=Float16, value=[ 1.0000e+00 -2.0000e+00])"
    )
    assert format_tensor(np.arange(8, dtype=np.int64).reshape(1, 8)) == (
        "Tensor(shape=[1, 8], dtype=Int64, value=\n[[0 1 2 ... 5 6 7]])"
    )
