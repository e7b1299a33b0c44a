"""The one effects analysis (passes/analysis/effects.py): ref provenance, what each
op and graph writes (through calls, ref arguments and recursion), state chains; and
Load/Assign as xDSL memory effects on their ref."""

from __future__ import annotations

from xdsl.dialects import func

from mindjit.dialects import mindir
from mindjit.dialects.parsing import parse_module
from mindjit.passes.analysis.effects import (
    ANY,
    Effects,
    input_state,
    parameter_symbol,
    ref_key,
    ref_root,
)
from mindjit.passes.pipelines import parse_pipeline, run_passes

SHARED = """
mindir.parameter @w0 = dense<[1.0, 2.0]> : tensor<2xf32>
mindir.parameter @w1 = dense<[0.5, -1.0]> : tensor<2xf32>
mindir.parameter @r = dense<[3.0, 4.0]> : tensor<2xf32>

func.func @Block(%x: tensor<2xf32>, %w: !mindir.ref<tensor<2xf32>>, %u0: !mindir.u) -> (tensor<2xf32>, !mindir.u) attributes {mindir.lazy_inline = "Block"} {
  %a = mindir.assign %w, %x, %u0 : tensor<2xf32>
  %u1 = mindir.update_state %u0, %a : tensor<2xf32>
  func.return %x, %u1 : tensor<2xf32>, !mindir.u
}

func.func @Outer(%x: tensor<2xf32>, %v: !mindir.ref<tensor<2xf32>>, %u0: !mindir.u) -> (tensor<2xf32>, !mindir.u) {
  %y, %u1 = func.call @Block(%x, %v, %u0) : (tensor<2xf32>, !mindir.ref<tensor<2xf32>>, !mindir.u) -> (tensor<2xf32>, !mindir.u)
  func.return %y, %u1 : tensor<2xf32>, !mindir.u
}

func.func @Net(%x: tensor<2xf32>, %w0: !mindir.ref<tensor<2xf32>> {mindir.parameter = @w0}, %u0: !mindir.u) -> (tensor<2xf32>, !mindir.u) {
  %d = mindir.depend %w0, %x : !mindir.ref<tensor<2xf32>>, tensor<2xf32>
  %h, %u1 = func.call @Outer(%x, %d, %u0) : (tensor<2xf32>, !mindir.ref<tensor<2xf32>>, !mindir.u) -> (tensor<2xf32>, !mindir.u)
  %w1 = mindir.get_parameter @w1 : !mindir.ref<tensor<2xf32>>
  %o, %u2 = func.call @Block(%h, %w1, %u1) : (tensor<2xf32>, !mindir.ref<tensor<2xf32>>, !mindir.u) -> (tensor<2xf32>, !mindir.u)
  %pr = mindir.get_parameter @r : !mindir.ref<tensor<2xf32>>
  %l = mindir.load %pr, %u2 : tensor<2xf32>
  %s = mindir.add %o, %l : tensor<2xf32>
  func.return %s, %u2 : tensor<2xf32>, !mindir.u
}
"""


def _graphs(module):  # type: ignore[no-untyped-def]
    return {op.sym_name.data: op for op in module.ops if isinstance(op, func.FuncOp)}


def test_refs_resolve_through_depends_to_their_parameter():
    module = parse_module(SHARED)
    net = _graphs(module)["Net"]
    depend = next(op for op in net.walk() if isinstance(op, mindir.DependOp))
    assert ref_root(depend.result) is net.body.block.args[1]
    assert parameter_symbol(depend.result) == "w0"  # a bound argument is its Parameter
    block_ref = _graphs(module)["Block"].body.block.args[1]
    assert parameter_symbol(block_ref) is None and ref_key(block_ref) is block_ref


def test_a_shared_graph_writes_the_parameter_each_call_site_passes():
    effects = Effects(parse_module(SHARED))
    assert effects.by_graph["Block"].arguments == {1} and not effects.by_graph["Block"].symbols
    assert effects.by_graph["Outer"].arguments == {1}  # passes its own ref argument on
    assert effects.by_graph["Net"].symbols == {"w0", "w1"}
    assert effects.written_symbols() == {"w0", "w1"}  # @r is only read
    module = effects.module
    calls = [op for op in _graphs(module)["Net"].walk() if isinstance(op, func.CallOp)]
    assert [effects.writes(c) for c in calls] == [{"w0"}, {"w1"}]
    load = next(op for op in module.walk() if isinstance(op, mindir.LoadOp))
    assert not effects.is_written(load.ref)
    # inside the shared graph the argument may be any Parameter
    assign = next(op for op in _graphs(module)["Block"].walk() if isinstance(op, mindir.AssignOp))
    assert effects.writes(assign) == {ANY} and effects.may_write(assign, "r")


RECURSIVE = """
mindir.parameter @p = dense<1.0> : tensor<f32>
func.func @a(%x: tensor<f32>, %u0: !mindir.u) -> (tensor<f32>, !mindir.u) {
  %y, %u1 = func.call @b(%x, %u0) : (tensor<f32>, !mindir.u) -> (tensor<f32>, !mindir.u)
  func.return %y, %u1 : tensor<f32>, !mindir.u
}
func.func @b(%x: tensor<f32>, %u0: !mindir.u) -> (tensor<f32>, !mindir.u) {
  %pp = mindir.get_parameter @p : !mindir.ref<tensor<f32>>
  %w = mindir.assign %pp, %x, %u0 : tensor<f32>
  %u1 = mindir.update_state %u0, %w : tensor<f32>
  %y, %u2 = func.call @a(%x, %u1) : (tensor<f32>, !mindir.u) -> (tensor<f32>, !mindir.u)
  %z, %u3 = func.call @ext(%y, %u2) : (tensor<f32>, !mindir.u) -> (tensor<f32>, !mindir.u)
  func.return %z, %u3 : tensor<f32>, !mindir.u
}
func.func private @ext(tensor<f32>, !mindir.u) -> (tensor<f32>, !mindir.u)
func.func private @pure(tensor<f32>) -> tensor<f32>
"""


def test_recursion_is_a_fixpoint_and_a_declaration_taking_a_state_writes_anything():
    effects = Effects(parse_module(RECURSIVE))
    assert effects.by_graph["a"].symbols == effects.by_graph["b"].symbols == {"p", ANY}


def test_input_state_of_an_if_is_the_state_its_branches_start_from():
    text = """
    mindir.parameter @p = dense<1.0> : tensor<f32>
    func.func @f(%c: tensor<i1>, %x: tensor<f32>, %u0: !mindir.u) -> (tensor<f32>, !mindir.u) {
      %pp = mindir.get_parameter @p : !mindir.ref<tensor<f32>>
      %r, %u1 = mindir.if %c -> (tensor<f32>, !mindir.u) {
        %a = mindir.assign %pp, %x, %u0 : tensor<f32>
        %ua = mindir.update_state %u0, %a : tensor<f32>
        mindir.yield %x, %ua : tensor<f32>, !mindir.u
      } else {
        mindir.yield %x, %u0 : tensor<f32>, !mindir.u
      }
      func.return %r, %u1 : tensor<f32>, !mindir.u
    }
    """
    module = parse_module(text)
    fn = _graphs(module)["f"]
    if_op = next(op for op in fn.walk() if isinstance(op, mindir.IfOp))
    assert input_state(if_op) is fn.body.block.args[2]
    assert Effects(module).writes(if_op) == {"p"}


def test_loads_and_assigns_are_memory_effects_upstream_cse_understands():
    text = """
    mindir.parameter @p = dense<1.0> : tensor<f32>
    func.func @f(%x: tensor<f32>, %u0: !mindir.u) -> (tensor<f32>, tensor<f32>, tensor<f32>) {
      %pp = mindir.get_parameter @p : !mindir.ref<tensor<f32>>
      %l1 = mindir.load %pp, %u0 : tensor<f32>
      %l2 = mindir.load %pp, %u0 : tensor<f32>
      %a = mindir.assign %pp, %x, %u0 : tensor<f32>
      %l3 = mindir.load %pp, %u0 : tensor<f32>
      %dead = mindir.load %pp, %u0 : tensor<f32>
      func.return %l1, %l2, %l3 : tensor<f32>, tensor<f32>, tensor<f32>
    }
    """
    module = parse_module(text)
    run_passes(parse_pipeline("cse"), module)
    loads = [op for op in module.walk() if isinstance(op, mindir.LoadOp)]
    # l1 and l2 merge; l3 (after the assign) stays; the unused load is dead code
    assert len(loads) == 2
    assert any(isinstance(op, mindir.AssignOp) for op in module.walk())
