"""mindir-auto-monad: structure of the threaded IR for frontend programs, errors, and a
differential check (with and without the pass, the CPU executor gives the same
results, Parameter values and prints)."""

from __future__ import annotations

import monad_order_programs as P
import pytest
from monad_order_programs import execute, frontend, graph, run_pipeline
from xdsl.dialects import func

from mindjit.dialects import mindir
from mindjit.dialects.parsing import parse_module
from mindjit.passes.analysis.effects import parameter_symbol
from mindjit.support.errors import MindjitError


def chain_is_linear(block, first) -> bool:
    """The update_states of `block` form one chain starting at `first`."""
    state = first
    for op in block.ops:
        if isinstance(op, mindir.UpdateStateOp) and isinstance(op.result.type, mindir.MonadUType):
            if op.state is not state:
                return False
            state = op.result
    return True


# -- structure --------------------------------------------------------------------------


def test_notebook_program_reads_like_mindspore():
    module, name, _ = frontend(P.ForwardNet, (P._i32(1),))
    run_pipeline(module, "mindir-auto-monad")
    fn = graph(module, name)
    outputs = fn.function_type.outputs.data
    assert outputs[-1] == mindir.MonadUType()
    block = fn.body.block
    effects = [
        op.name
        for op in block.ops
        if isinstance(op, mindir.AssignOp | mindir.LoadOp | mindir.UpdateStateOp)
    ]
    # Assign, UpdateState, Load, UpdateState, ... three times (MindSpore's IR)
    assert (
        effects
        == ["mindir.assign", "mindir.update_state", "mindir.load", "mindir.update_state"] * 3
    )
    # the entry takes its Parameter as a bound argument, then the memory state
    assert [str(t) for t in block.arg_types] == [
        "tensor<i32>",
        "!mindir.ref<tensor<i32>>",
        "!mindir.u",
    ]
    assert parameter_symbol(block.args[1]) == "param"
    assert chain_is_linear(block, block.args[2])
    # every effect takes the state produced by the update_state right before it
    ops = list(block.ops)
    for op in ops:
        if isinstance(op, mindir.AssignOp | mindir.LoadOp):
            owner = op.state.owner
            assert owner is block or isinstance(owner, mindir.UpdateStateOp)
    ret = block.last_op
    assert isinstance(ret, func.ReturnOp)
    assert isinstance(ret.arguments[-1].owner, mindir.UpdateStateOp)


def test_call_and_if_carry_states():
    module, name, _ = frontend(P.Top, (P._f32(3.0),))
    run_pipeline(module, "mindir-auto-monad")
    sub = graph(module, "Sub_construct")
    assert [str(t) for t in sub.function_type.outputs.data] == [
        "tensor<f32>",
        "!mindir.u",
        "!mindir.io",
    ]
    top = graph(module, name)
    call = next(op for op in top.walk() if isinstance(op, func.CallOp))
    assert [str(t) for t in call.res.types] == ["tensor<f32>", "!mindir.u", "!mindir.io"]
    # the call takes the states produced by the load and print before it
    assert all(isinstance(v.owner, mindir.UpdateStateOp) for v in call.arguments[1:])
    if_op = next(op for op in top.walk() if isinstance(op, mindir.IfOp))
    assert [str(t) for t in if_op.output.types] == ["!mindir.u", "!mindir.io"]
    # both branches start from the call's returned states
    for region in (if_op.then_region, if_op.else_region):
        users = [
            op
            for op in region.block.ops
            if isinstance(op, mindir.AssignOp | mindir.LoadOp | mindir.PrintOp)
        ]
        first_u = next(op.state for op in users if not isinstance(op, mindir.PrintOp))
        first_io = next(op.io for op in users if isinstance(op, mindir.PrintOp))
        assert first_u is call.res[1]
        assert first_io is call.res[2]
    # after the if, the load of @w takes the if's memory state
    load = [op for op in top.body.block.ops if isinstance(op, mindir.LoadOp)][-1]
    assert load.state is if_op.output[0]


def test_while_carries_states_and_read_only_parameter_is_free():
    module, name, _ = frontend(P.LoopNet, (P._i32(2), P._i32(3)))
    run_pipeline(module, "mindir-auto-monad")
    loop = next(op for op in module.walk() if isinstance(op, mindir.WhileOp))
    assert [str(t) for t in loop.res.types][-2:] == ["!mindir.u", "!mindir.io"]
    body = loop.after_region.block
    loads = [op for op in body.ops if isinstance(op, mindir.LoadOp)]
    read_only = [op for op in loads if parameter_symbol(op.ref) == "r"]
    assert len(read_only) == 1
    # @r is never assigned: its load is not followed by an update_state
    assert all(not isinstance(u.operation, mindir.UpdateStateOp) for u in read_only[0].result.uses)
    assert chain_is_linear(body, body.args[-2])


def test_running_twice_changes_nothing():
    for cls, args in (P.PROGRAMS["nested"], P.PROGRAMS["sub_and_if"]):
        module, _, _ = frontend(cls, args())
        run_pipeline(module, "mindir-auto-monad")
        once = str(module)
        run_pipeline(module, "mindir-auto-monad")
        assert str(module) == once


def test_graph_without_effects_is_unchanged():
    src = """
func.func @f(%x: tensor<f32>) -> tensor<f32> {
  %y = mindir.neg %x : tensor<f32>
  func.return %y : tensor<f32>
}
"""
    module = parse_module(src, "pure.mlir")
    before = str(module)
    run_pipeline(module, "mindir-auto-monad")
    assert str(module) == before


def test_partly_threaded_graph_is_rejected():
    src = """
mindir.parameter @w = dense<1.0> : tensor<f32>
func.func @f(%x: tensor<f32>, %u0: !mindir.u) -> tensor<f32> {
  %p = mindir.get_parameter @w : !mindir.ref<tensor<f32>>
  %a = mindir.assign %p, %x, %u0 : tensor<f32>
  %u1 = mindir.update_state %u0, %a : tensor<f32>
  func.return %a : tensor<f32>
}
"""
    module = parse_module(src, "partly.mlir")
    with pytest.raises(MindjitError) as info:
        run_pipeline(module, "mindir-auto-monad")
    assert "partly threaded" in info.value.message
    assert info.value.loc is not None and info.value.loc.line == 6


# -- semantics --------------------------------------------------------------------------


@pytest.mark.parametrize("program", sorted(P.PROGRAMS))
def test_same_results_with_and_without_the_pass(program):
    cls, make_args = P.PROGRAMS[program]
    args = make_args()
    module, name, symbols = frontend(cls, args)
    expected = execute(module, name, args, symbols)
    run_pipeline(module, "mindir-auto-monad")
    assert execute(module, name, args, symbols) == expected


def test_known_results():
    for program, want in (("forward_x1", 3), ("forward_x4", 12)):
        cls, make_args = P.PROGRAMS[program]
        args = make_args()
        module, name, symbols = frontend(cls, args)
        run_pipeline(module, "mindir-auto-monad,mindir-depend-order")
        outputs, values, _ = execute(module, name, args, symbols)
        assert outputs == [want]
        assert values == {"param": 2}
    cls, make_args = P.PROGRAMS["loop"]
    args = make_args()
    module, name, symbols = frontend(cls, args)
    run_pipeline(module, "mindir-auto-monad,mindir-depend-order")
    outputs, values, printed = execute(module, name, args, symbols)
    assert outputs == [2 * (0 + 1 + 2) + 3 * 5]
    assert printed == [["iter", 0, 0], ["iter", 1, 1], ["iter", 2, 2]]
    assert values == {"w": 2, "r": 5}
