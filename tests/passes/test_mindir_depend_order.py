"""mindir-depend-order: write-after-read attachment, the stable topological order,
cycle errors, the docs' float-status example, and a differential check after
mindir-auto-monad (same results, Parameter values and prints on the CPU)."""

from __future__ import annotations

import monad_order_programs as P
import numpy as np
import pytest
from monad_order_programs import execute, frontend, graph, run_pipeline

from mindjit.dialects import mindir
from mindjit.dialects.parsing import parse_module
from mindjit.support.errors import MindjitError

WAR = """
mindir.parameter @p = dense<[1.0, 2.0]> : tensor<2xf32>

func.func @war(%y: tensor<2xf32>, %w: tensor<2xf32>, %u0: !mindir.u) -> (tensor<2xf32>, !mindir.u) {
  %pp = mindir.get_parameter @p : !mindir.ref<tensor<2xf32>>
  %x = mindir.load %pp, %u0 : tensor<2xf32>
  %u1 = mindir.update_state %u0, %x : tensor<2xf32>
  %a1 = mindir.assign %pp, %y, %u1 : tensor<2xf32>
  %u2 = mindir.update_state %u1, %a1 : tensor<2xf32>
  %t = mindir.add %y, %x : tensor<2xf32>
  %a2 = mindir.assign %pp, %t, %u2 : tensor<2xf32>
  %u3 = mindir.update_state %u2, %a2 : tensor<2xf32>
  %l = mindir.load %pp, %u3 : tensor<2xf32>
  %u4 = mindir.update_state %u3, %l : tensor<2xf32>
  %r = mindir.sub %l, %w : tensor<2xf32>
  func.return %r, %u4 : tensor<2xf32>, !mindir.u
}
"""


def names(block) -> list[str]:
    return [op.name for op in block.ops]


def test_users_of_a_load_run_before_the_next_assign():
    module = parse_module(WAR, "war.mlir")
    run_pipeline(module, "mindir-depend-order")
    block = graph(module, "war").body.block
    ops = list(block.ops)
    add = next(op for op in ops if isinstance(op, mindir.AddOp))
    first_assign = next(op for op in ops if isinstance(op, mindir.AssignOp))
    assert ops.index(add) < ops.index(first_assign)
    # the add is attached to the update_state that feeds the first assign
    feed = first_assign.state.owner
    assert isinstance(feed, mindir.UpdateStateOp)
    assert add.result in list(feed.attach)


def test_write_after_read_gives_the_pynative_result():
    # PyNative: x = p (old value, [1, 2]); p = y; t = y + x; p = t; return p - w
    y, w = np.array([3.0, 4.0], np.float32), np.array([0.5, 0.25], np.float32)
    module = parse_module(WAR, "war.mlir")
    run_pipeline(module, "mindir-depend-order")

    class Arg:
        def __init__(self, a):
            self.a = a

        def asnumpy(self):
            return self.a

    outputs, values, _ = execute(module, "war", [Arg(y), Arg(w)], ["p"])
    expected = y + np.array([1.0, 2.0], np.float32)
    assert outputs == [(expected - w).tolist()]
    assert values == {"p": expected.tolist()}


def test_user_that_needs_the_assign_is_not_attached():
    src = """
mindir.parameter @p = dense<0.0> : tensor<f32>
func.func @f(%y: tensor<f32>, %u0: !mindir.u) -> (tensor<f32>, !mindir.u) {
  %pp = mindir.get_parameter @p : !mindir.ref<tensor<f32>>
  %x = mindir.load %pp, %u0 : tensor<f32>
  %u1 = mindir.update_state %u0, %x : tensor<f32>
  %a = mindir.assign %pp, %y, %u1 : tensor<f32>
  %u2 = mindir.update_state %u1, %a : tensor<f32>
  %s = mindir.add %x, %a : tensor<f32>
  func.return %s, %u2 : tensor<f32>, !mindir.u
}
"""
    module = parse_module(src, "needs.mlir")
    before = str(module)
    run_pipeline(module, "mindir-depend-order")
    assert str(module) == before


def test_ordered_frontend_programs_keep_their_order():
    """After auto-monad the frontend's block order is already right: apart from
    update_states moving after the users they now wait for, nothing moves."""
    for program in sorted(P.PROGRAMS):
        cls, make_args = P.PROGRAMS[program]
        module, _, _ = frontend(cls, make_args())
        run_pipeline(module, "mindir-auto-monad")
        before = [
            [op for op in block.ops if not isinstance(op, mindir.UpdateStateOp)]
            for block in module.walk_blocks()
        ]
        run_pipeline(module, "mindir-depend-order")
        after = [
            [op for op in block.ops if not isinstance(op, mindir.UpdateStateOp)]
            for block in module.walk_blocks()
        ]
        assert after == before, program


def test_float_status_order_and_result():
    cls, make_args = P.PROGRAMS["float_status"]
    args = make_args()
    module, name, symbols = frontend(cls, args)
    run_pipeline(module, "mindir-auto-monad,mindir-depend-order")
    order = [
        op.name
        for op in graph(module, name).body.block.ops
        if isinstance(
            op,
            mindir.NPUAllocFloatStatusOp
            | mindir.NPUClearFloatStatusOp
            | mindir.SubOp
            | mindir.NPUGetFloatStatusOp,
        )
    ]
    assert order == [
        "mindir.npu_alloc_float_status",
        "mindir.npu_clear_float_status",
        "mindir.sub",
        "mindir.npu_get_float_status",
    ]
    outputs, _, _ = execute(module, name, args, symbols)
    assert outputs == [[[10.0] * 3] * 2]


def test_depend_moves_users_after_the_attached_value():
    src = """
func.func @f(%x: tensor<f32>) -> tensor<f32> {
  %s = mindir.npu_alloc_float_status : tensor<8xf32>
  %y = mindir.depend %x, %c : tensor<f32>, tensor<8xf32>
  %n = mindir.neg %y : tensor<f32>
  %c = mindir.npu_clear_float_status %s : tensor<8xf32>
  func.return %n : tensor<f32>
}
"""
    module = parse_module(src, "fwd.mlir")
    run_pipeline(module, "mindir-depend-order")
    assert names(graph(module, "f").body.block) == [
        "mindir.npu_alloc_float_status",
        "mindir.npu_clear_float_status",
        "mindir.depend",
        "mindir.neg",
        "func.return",
    ]


def test_cycle_is_a_located_error_listing_the_ops():
    src = """func.func @f(%x: tensor<f32>) -> tensor<f32> {
  %a = mindir.depend %x, %b : tensor<f32>, tensor<f32>
  %b = mindir.add %a, %x : tensor<f32>
  func.return %b : tensor<f32>
}
"""
    module = parse_module(src, "cycle.mlir")
    with pytest.raises(MindjitError) as info:
        run_pipeline(module, "mindir-depend-order")
    err = info.value
    assert str(err.loc) == "cycle.mlir:2:3"
    assert err.message == (
        "mindir-depend-order: the ops form a dependency cycle: 'mindir.depend' at 2:3, "
        "which needs 'mindir.add' at 3:3, which needs 'mindir.depend' at 2:3"
    )


@pytest.mark.parametrize("program", sorted(P.PROGRAMS))
def test_same_results_after_auto_monad_and_depend_order(program):
    cls, make_args = P.PROGRAMS[program]
    args = make_args()
    module, name, symbols = frontend(cls, args)
    expected = execute(module, name, args, symbols)
    run_pipeline(module, "mindir-auto-monad,mindir-depend-order")
    assert execute(module, name, args, symbols) == expected


def test_war_program_from_the_frontend():
    cls, make_args = P.PROGRAMS["war"]
    args = make_args()
    module, name, symbols = frontend(cls, args)
    run_pipeline(module, "mindir-auto-monad,mindir-depend-order")
    outputs, values, _ = execute(module, name, args, symbols)
    y, w = (a.asnumpy() for a in args)
    assert outputs == [(y - w).tolist()]
    assert values == {"p": y.tolist()}
