"""Parameters alias on the CPU executor, as on the device: a Load (global_load) is
the Parameter's buffer, an Assign (global_store) writes into it in place, only a
TensorMove (linalg.copy) copies. set_global adopts the caller's array; returned
values never share memory with a global."""

from __future__ import annotations

import numpy as np
import pytest

from mindjit.backend.cpu import CpuExecutable
from mindjit.backend.cpu.compiler import trace_name
from mindjit.dialects.parsing import parse_module
from mindjit.passes.pipelines import lower_to_tensor

F32 = np.float32


def arr(*values: float) -> np.ndarray:
    return np.array(values, F32)


def compile_mindir(src: str) -> CpuExecutable:
    return CpuExecutable(lower_to_tensor(parse_module(src, "alias.mlir")))


PROGRAM = """
mindir.parameter @w = dense<[1.0, 2.0]> : tensor<2xf32>
mindir.parameter @v = dense<[10.0, 20.0]> : tensor<2xf32>

func.func @stale(%x: tensor<2xf32>, %u: !mindir.u) -> tensor<2xf32> {
  %p = mindir.get_parameter @w : !mindir.ref<tensor<2xf32>>
  %l = mindir.load %p, %u : tensor<2xf32>
  %a = mindir.assign %p, %x, %u : tensor<2xf32>
  %r = mindir.add %l, %x : tensor<2xf32>
  func.return %r : tensor<2xf32>
}

func.func @copied(%x: tensor<2xf32>, %u: !mindir.u) -> tensor<2xf32> {
  %p = mindir.get_parameter @w : !mindir.ref<tensor<2xf32>>
  %l = mindir.load %p, %u : tensor<2xf32>
  %c = mindir.tensor_move %l : tensor<2xf32>
  %a = mindir.assign %p, %x, %u : tensor<2xf32>
  %r = mindir.add %c, %x : tensor<2xf32>
  func.return %r : tensor<2xf32>
}

func.func @view(%x: tensor<2xf32>, %u: !mindir.u) -> tensor<1x2xf32> {
  %p = mindir.get_parameter @w : !mindir.ref<tensor<2xf32>>
  %l = mindir.load %p, %u : tensor<2xf32>
  %v = mindir.reshape %l : (tensor<2xf32>) -> tensor<1x2xf32>
  %a = mindir.assign %p, %x, %u : tensor<2xf32>
  %b = mindir.reshape %x : (tensor<2xf32>) -> tensor<1x2xf32>
  %r = mindir.mul %v, %b : tensor<1x2xf32>
  func.return %r : tensor<1x2xf32>
}

func.func @returned(%x: tensor<2xf32>, %u: !mindir.u) -> (tensor<2xf32>, tensor<2xf32>) {
  %p = mindir.get_parameter @w : !mindir.ref<tensor<2xf32>>
  %l = mindir.load %p, %u : tensor<2xf32>
  %a = mindir.assign %p, %x, %u : tensor<2xf32>
  %q = mindir.get_parameter @v : !mindir.ref<tensor<2xf32>>
  %lv = mindir.load %q, %u : tensor<2xf32>
  func.return %l, %lv : tensor<2xf32>, tensor<2xf32>
}

func.func @swap(%u: !mindir.u) {
  %p = mindir.get_parameter @w : !mindir.ref<tensor<2xf32>>
  %q = mindir.get_parameter @v : !mindir.ref<tensor<2xf32>>
  %lw = mindir.load %p, %u : tensor<2xf32>
  %lv = mindir.load %q, %u : tensor<2xf32>
  %cw = mindir.tensor_move %lw : tensor<2xf32>
  %a = mindir.assign %p, %lv, %u : tensor<2xf32>
  %b = mindir.assign %q, %cw, %u : tensor<2xf32>
  func.return
}

func.func @pure(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = mindir.add %x, %x : tensor<2xf32>
  func.return %y : tensor<2xf32>
}
"""


def test_a_load_without_tensor_move_sees_a_later_store():
    exe = compile_mindir(PROGRAM)
    (r,) = exe.run("stale", arr(5, 6))
    np.testing.assert_array_equal(r, arr(10, 12))  # the Load reads the new value


def test_a_tensor_move_keeps_the_old_value():
    exe = compile_mindir(PROGRAM)
    (r,) = exe.run("copied", arr(5, 6))
    np.testing.assert_array_equal(r, arr(6, 8))
    assert exe.stats.copies == 1 and exe.stats.copied_bytes == 8
    exe.run("copied", arr(1, 1))
    assert exe.stats.copies == 2 and exe.stats.copied_bytes == 16
    exe.stats.reset()
    assert (exe.stats.copies, exe.stats.copied_bytes) == (0, 0)


def test_views_of_a_load_see_the_store_too():
    exe = compile_mindir(PROGRAM)
    (r,) = exe.run("view", arr(5, 6))
    np.testing.assert_array_equal(r, np.array([[25, 36]], F32))


def test_stores_write_into_the_buffer_in_place():
    exe = compile_mindir(PROGRAM)
    buf = exe.get_global("w")
    exe.run("stale", arr(5, 6))
    assert exe.get_global("w") is buf
    np.testing.assert_array_equal(buf, arr(5, 6))


def test_returned_values_are_the_value_at_return_in_memory_of_their_own():
    exe = compile_mindir(PROGRAM)
    old_v = exe.get_global("v")
    seen, v = exe.run("returned", arr(5, 6))
    # copied when the call returns, after the store: the value at the end of the call
    np.testing.assert_array_equal(seen, arr(5, 6))
    np.testing.assert_array_equal(v, arr(10, 20))
    for out in (seen, v):
        assert not np.shares_memory(out, exe.get_global("w"))
        assert not np.shares_memory(out, old_v)
    seen[:] = -1
    v[:] = -2
    np.testing.assert_array_equal(exe.get_global("w"), arr(5, 6))
    np.testing.assert_array_equal(exe.get_global("v"), arr(10, 20))
    exe.run("returned", arr(7, 8))
    np.testing.assert_array_equal(seen, arr(-1, -1))  # later runs never write into it


def test_a_store_of_another_globals_buffer_copies_its_values():
    exe = compile_mindir(PROGRAM)
    exe.run("swap")
    w, v = exe.get_global("w"), exe.get_global("v")
    np.testing.assert_array_equal(w, arr(10, 20))
    np.testing.assert_array_equal(v, arr(1, 2))
    assert not np.shares_memory(w, v)


def test_a_store_overlapping_its_own_buffer():
    src = """
mindir.parameter @m = dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
func.func @transpose_in_place(%u: !mindir.u) {
  %p = mindir.get_parameter @m : !mindir.ref<tensor<2x2xf32>>
  %l = mindir.load %p, %u : tensor<2x2xf32>
  %t = mindir.transpose %l {perm = array<i64: 1, 0>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %a = mindir.assign %p, %t, %u : tensor<2x2xf32>
  func.return
}
"""
    exe = compile_mindir(src)
    exe.run("transpose_in_place")
    np.testing.assert_array_equal(exe.get_global("m"), np.array([[1, 3], [2, 4]], F32))


# -- set_global / get_global ---------------------------------------------------------------


def test_set_global_adopts_the_callers_array():
    exe = compile_mindir(PROGRAM)
    mine = arr(3, 4)
    exe.set_global("w", mine)
    assert exe.get_global("w") is mine
    exe.run("stale", arr(5, 6))
    np.testing.assert_array_equal(mine, arr(5, 6))  # written in place: no write-back needed
    assert exe.get_global("w") is mine


@pytest.mark.parametrize(
    "make",
    [
        lambda: np.broadcast_to(arr(3), (2,)),  # read-only view
        lambda: np.array([3, 9, 4, 9], F32)[::2],  # not contiguous
        lambda: np.frombuffer(arr(3, 4).tobytes(), F32),  # read-only buffer
    ],
)
def test_set_global_copies_what_it_cannot_write_into(make):
    exe = compile_mindir(PROGRAM)
    value = make()
    before = value.copy()
    exe.set_global("w", value)
    buf = exe.get_global("w")
    assert buf is not value and buf.flags.writeable and buf.flags.c_contiguous
    np.testing.assert_array_equal(buf, before)
    exe.run("stale", arr(5, 6))
    np.testing.assert_array_equal(value, before)
    np.testing.assert_array_equal(exe.get_global("w"), arr(5, 6))


def test_two_globals_never_share_a_buffer():
    exe = compile_mindir(PROGRAM)
    shared = arr(7, 7)
    exe.set_global("w", shared)
    exe.set_global("v", shared)  # already @w's buffer: @v gets a copy
    assert exe.get_global("w") is shared
    assert exe.get_global("v") is not shared
    exe.set_global("v", exe.get_global("w")[:])  # a view of it, too
    assert not np.shares_memory(exe.get_global("v"), shared)
    exe.run("stale", arr(5, 6))
    np.testing.assert_array_equal(exe.get_global("v"), arr(7, 7))
    exe.set_global("w", arr(0, 0))  # @w lets go of it: @v may adopt it now
    exe.set_global("v", shared)
    assert exe.get_global("v") is shared


def test_set_global_with_the_current_buffer_is_a_no_op():
    exe = compile_mindir(PROGRAM)
    buf = exe.get_global("w")
    exe.set_global("w", buf)
    assert exe.get_global("w") is buf


# -- the pure fast path and the trace ----------------------------------------------------------


def test_pure_functions_stay_pure():
    exe = compile_mindir(PROGRAM)
    assert exe.plan_for("pure").side_effects is False
    assert exe.plan_for("stale").side_effects is True
    assert exe.checks_float_status is False
    assert exe.trace_enabled is False


def test_trace_records_the_executed_ops_in_order():
    exe = compile_mindir(PROGRAM)
    exe.run("copied", arr(1, 1))
    assert exe.trace == []  # off by default
    exe.trace_enabled = True  # rebuilds the plans
    exe.run("copied", arr(1, 1))
    assert exe.trace == [
        "ml_program.global_load",
        "linalg.copy",
        "ml_program.global_store",
        "linalg.generic[arith.addf]",
    ]
    exe.trace.clear()
    exe.trace_enabled = False
    exe.run("copied", arr(1, 1))
    assert exe.trace == []


def test_trace_names():
    module = lower_to_tensor(parse_module(PROGRAM, "alias.mlir"))
    names = {trace_name(op) for op in module.walk()}
    assert "linalg.generic[arith.addf]" in names
    assert "ml_program.global_store" in names
