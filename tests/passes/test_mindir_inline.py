"""mindir-inline: differential checks (the CPU executor gives the same results, Parameter
values and prints with and without the pass), lazy-inline graphs kept per cell-reuse
level, the option and MS_DEV_CELL_REUSE, locations, which graphs are erased, errors,
and a module with hundreds of calls (no timing assertion)."""

from __future__ import annotations

import monad_order_programs as P
import numpy as np
import pytest
from monad_order_programs import execute, frontend, run_pipeline
from xdsl.dialects import func
from xdsl.dialects.builtin import FileLineColLoc, ModuleOp

from mindjit.dialects import mindir
from mindjit.dialects.parsing import parse_module
from mindjit.ir.locations import loc_of_op
from mindjit.passes.mindir_inline import (
    MindirInlinePass,
    inline_module,
)
from mindjit.passes.pipelines import parse_pipeline, run_passes
from mindjit.support.config import CELL_REUSE_ENV as ENV_VAR
from mindjit.support.config import cell_reuse_level as default_cell_reuse
from mindjit.support.errors import MindjitError

SIDE_EFFECTS_LAST = "mindir-depend-order,mindir-load-elim"


def funcs(module: ModuleOp) -> dict[str, func.FuncOp]:
    return {op.sym_name.data: op for op in module.ops if isinstance(op, func.FuncOp)}


def calls(op) -> list[func.CallOp]:
    return [o for o in op.walk() if isinstance(o, func.CallOp)]


def inline(module: ModuleOp, spec: str = "mindir-inline") -> ModuleOp:
    run_passes(parse_pipeline(spec), module)
    return module


def run_text(text: str, entry: str, args, symbols=(), spec: str | None = None):
    """Parse, optionally run `spec`, lower and execute: (outputs, globals, prints)."""
    module = parse_module(text)
    if spec:
        run_passes(parse_pipeline(spec), module)
    tensors = [_Arr(a) for a in args]
    return execute(module, entry, tensors, list(symbols))


class _Arr:
    """What `monad_order_programs.execute` expects of an input (`asnumpy`)."""

    def __init__(self, value):
        self.value = np.asarray(value)

    def asnumpy(self):
        return self.value


# -- differential: programs with calls ---------------------------------------------------

PURE = """
func.func @sq(%x: tensor<3xf32>) -> tensor<3xf32> {
  %y = mindir.mul %x, %x : tensor<3xf32>
  func.return %y : tensor<3xf32>
}

func.func @clamp(%v: tensor<f32>, %hi: tensor<f32>) -> tensor<f32> {
  %g = mindir.greater %v, %hi : (tensor<f32>, tensor<f32>) -> tensor<i1>
  %r = mindir.if %g -> (tensor<f32>) {
    %m = mindir.while (%a = %v) : (tensor<f32>) -> tensor<f32> {
      %lt = mindir.less %hi, %a : (tensor<f32>, tensor<f32>) -> tensor<i1>
      mindir.condition(%lt : tensor<i1>) %a : tensor<f32>
    } do {
    ^bb0(%b: tensor<f32>):
      %s = mindir.sub %b, %hi : tensor<f32>
      mindir.yield %s : tensor<f32>
    }
    mindir.yield %m : tensor<f32>
  } else {
    mindir.yield %v : tensor<f32>
  }
  func.return %r : tensor<f32>
}

func.func @norm(%x: tensor<3xf32>, %hi: tensor<f32>) -> (tensor<3xf32>, tensor<f32>) {
  %q = func.call @sq(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %s = mindir.reduce_sum %q {axis = array<i64: 0>} : (tensor<3xf32>) -> tensor<f32>
  %c = func.call @clamp(%s, %hi) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  func.return %q, %c : tensor<3xf32>, tensor<f32>
}

func.func @main(%x: tensor<3xf32>, %hi: tensor<f32>, %k: tensor<i1>) -> (tensor<3xf32>, tensor<f32>) {
  %r:2 = mindir.if %k -> (tensor<3xf32>, tensor<f32>) {
    %a, %b = func.call @norm(%x, %hi) : (tensor<3xf32>, tensor<f32>) -> (tensor<3xf32>, tensor<f32>)
    mindir.yield %a, %b : tensor<3xf32>, tensor<f32>
  } else {
    %n = mindir.neg %x : tensor<3xf32>
    %a, %b = func.call @norm(%n, %hi) : (tensor<3xf32>, tensor<f32>) -> (tensor<3xf32>, tensor<f32>)
    mindir.yield %a, %b : tensor<3xf32>, tensor<f32>
  }
  func.return %r#0, %r#1 : tensor<3xf32>, tensor<f32>
}
"""


@pytest.mark.parametrize("seed", range(6))
def test_pure_calls_with_regions_keep_results(seed):
    rng = np.random.default_rng(seed)
    args = (
        rng.normal(size=3).astype(np.float32),
        np.float32(rng.uniform(0.5, 2.0)),
        np.bool_(seed % 2),
    )
    before = run_text(PURE, "main", args)
    after = run_text(PURE, "main", args, spec="mindir-inline")
    assert before == after
    module = inline(parse_module(PURE))
    assert list(funcs(module)) == ["main"]
    assert not calls(module)


# Effects in the frontend's form (every effect on the graph's entry states), through
# calls, a call inside a while, and a print in a callee.
EFFECTS = """
mindir.parameter @count = dense<0.0> : tensor<f32>
mindir.parameter @acc = dense<0.0> : tensor<f32>

func.func @bump(%x: tensor<f32>, %u0: !mindir.u, %io0: !mindir.io) -> tensor<f32> {
  %p = mindir.get_parameter @count : !mindir.ref<tensor<f32>>
  %l = mindir.load %p, %u0 : tensor<f32>
  %s = mindir.add %l, %x : tensor<f32>
  %a = mindir.assign %p, %s, %u0 : tensor<f32>
  %pr = mindir.print %s, %io0 {format = ["count", 0]} : tensor<f32>
  %l2 = mindir.load %p, %u0 : tensor<f32>
  %d = mindir.add %l2, %l2 : tensor<f32>
  func.return %d : tensor<f32>
}

func.func @step(%x: tensor<f32>, %u0: !mindir.u, %io0: !mindir.io) -> tensor<f32> {
  %b = func.call @bump(%x, %u0, %io0) : (tensor<f32>, !mindir.u, !mindir.io) -> tensor<f32>
  %pa = mindir.get_parameter @acc : !mindir.ref<tensor<f32>>
  %la = mindir.load %pa, %u0 : tensor<f32>
  %n = mindir.add %la, %b : tensor<f32>
  %a = mindir.assign %pa, %n, %u0 : tensor<f32>
  func.return %b : tensor<f32>
}

func.func @main(%x: tensor<f32>, %n: tensor<f32>, %u0: !mindir.u, %io0: !mindir.io) -> tensor<f32> {
  %zero = mindir.sub %n, %n : tensor<f32>
  %r:2 = mindir.while (%i = %zero, %acc = %zero) : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>) {
    %lt = mindir.less %i, %n : (tensor<f32>, tensor<f32>) -> tensor<i1>
    mindir.condition(%lt : tensor<i1>) %i, %acc : tensor<f32>, tensor<f32>
  } do {
  ^bb0(%j: tensor<f32>, %c: tensor<f32>):
    %b = func.call @step(%x, %u0, %io0) : (tensor<f32>, !mindir.u, !mindir.io) -> tensor<f32>
    %one = mindir.div %n, %n : tensor<f32>
    %j1 = mindir.add %j, %one : tensor<f32>
    %c1 = mindir.add %c, %b : tensor<f32>
    mindir.yield %j1, %c1 : tensor<f32>, tensor<f32>
  }
  %pc = mindir.get_parameter @count : !mindir.ref<tensor<f32>>
  %lc = mindir.load %pc, %u0 : tensor<f32>
  %pr = mindir.print %lc, %io0 {format = ["final", 0]} : tensor<f32>
  %out = mindir.add %r#1, %lc : tensor<f32>
  func.return %out : tensor<f32>
}
"""


@pytest.mark.parametrize(("x", "n"), [(1.5, 3.0), (-2.0, 1.0), (0.25, 0.0)])
def test_effects_through_calls_keep_results_globals_and_prints(x, n):
    args = (np.float32(x), np.float32(n))
    symbols = ("count", "acc")
    plain = f"mindir-auto-monad,{SIDE_EFFECTS_LAST}"
    inlined = f"mindir-auto-monad,mindir-inline,{SIDE_EFFECTS_LAST}"
    before = run_text(EFFECTS, "main", args, symbols, spec=plain)
    after = run_text(EFFECTS, "main", args, symbols, spec=inlined)
    assert before == after
    outputs, values, printed = after
    assert [p[0] for p in printed] == ["count"] * int(n) + ["final"]
    assert values["count"] == x * n


@pytest.mark.parametrize("program", ["sub_and_if", "sub_and_else", "nested"])
def test_frontend_programs_keep_results(program):
    cls, make_args = P.PROGRAMS[program]
    args = make_args()
    results = []
    for spec in (
        f"mindir-auto-monad,{SIDE_EFFECTS_LAST}",
        f"mindir-auto-monad,mindir-inline,{SIDE_EFFECTS_LAST}",
    ):
        module, name, symbols = frontend(cls, args)
        run_pipeline(module, spec)
        if "inline" in spec:
            assert not calls(module)
            assert list(funcs(module)) == [name]
        results.append(execute(module, name, args, symbols))
    assert results[0] == results[1]


# -- refs as arguments, lazy inline ----------------------------------------------------

from lazy_block_program import BLOCKS  # noqa: E402


def _block_reference(x: np.ndarray):
    """The BLOCKS program by hand: (output, Parameters, printed)."""
    w = {"w0": np.array([1.0, 2.0], np.float32), "w1": np.array([0.5, -1.0], np.float32)}
    printed = []
    h = x
    for name in ("w0", "w1", "w0"):
        z = np.tanh(h * w[name])
        w[name] = w[name] + z
        printed.append([z.tolist()])
        h = z
    return h, w, printed


@pytest.mark.parametrize("seed", range(3))
def test_refs_passed_to_inlined_graphs(seed):
    # Lowering needs every ref to come from a get_parameter of its own graph, so the
    # program only runs inlined; it is compared with the same program by hand.
    x = np.random.default_rng(seed).normal(size=2).astype(np.float32)
    outputs, values, printed = run_text(
        BLOCKS,
        "Net_construct",
        (x,),
        ("w0", "w1"),
        spec=f"mindir-inline{{cell-reuse=0}},{SIDE_EFFECTS_LAST}",
    )
    out, params, expected_prints = _block_reference(x)
    np.testing.assert_allclose(outputs[0], out, rtol=1e-6)
    for name in ("w0", "w1"):
        np.testing.assert_allclose(values[name], params[name], rtol=1e-6)
    assert len(printed) == 3
    for got, want in zip(printed, expected_prints):
        np.testing.assert_allclose(got[0], want[0], rtol=1e-6)


@pytest.mark.parametrize(("level", "kept"), [(0, False), (1, True), (2, True)])
def test_lazy_graph_kept_per_cell_reuse(level, kept):
    module = inline(parse_module(BLOCKS), f"mindir-inline{{cell-reuse={level}}}")
    names = funcs(module)
    assert ("Block_construct" in names) is kept
    assert len(calls(names["Net_construct"])) == (3 if kept else 0)
    if kept:
        # each call site passes its own refs; the kept graph is unchanged
        refs = [c.arguments[1].owner.parameter.root_reference.data for c in calls(module)]
        assert refs == ["w0", "w1", "w0"]
        assert names["Block_construct"].attributes["mindir.lazy_inline"].data == "Block(2)"


def test_lazy_graph_flattened_once_and_callers_of_it_inlined():
    text = """
    func.func @dense(%x: tensor<f32>) -> tensor<f32> {
      %y = mindir.tanh %x : tensor<f32>
      func.return %y : tensor<f32>
    }
    func.func @Block_construct(%x: tensor<f32>) -> tensor<f32> attributes {mindir.lazy_inline = 7 : i64} {
      %a = func.call @dense(%x) : (tensor<f32>) -> tensor<f32>
      %b = func.call @dense(%a) : (tensor<f32>) -> tensor<f32>
      func.return %b : tensor<f32>
    }
    func.func @Stage_construct(%x: tensor<f32>) -> tensor<f32> {
      %a = func.call @Block_construct(%x) : (tensor<f32>) -> tensor<f32>
      %b = func.call @Block_construct(%a) : (tensor<f32>) -> tensor<f32>
      func.return %b : tensor<f32>
    }
    func.func @Net_construct(%x: tensor<f32>) -> tensor<f32> {
      %a = func.call @Stage_construct(%x) : (tensor<f32>) -> tensor<f32>
      %b = func.call @Stage_construct(%a) : (tensor<f32>) -> tensor<f32>
      func.return %b : tensor<f32>
    }
    """
    module = inline(parse_module(text), "mindir-inline{cell-reuse=1}")
    names = funcs(module)
    assert list(names) == ["Block_construct", "Net_construct"]
    assert [op.name for op in names["Block_construct"].body.block.ops] == [
        "mindir.tanh",
        "mindir.tanh",
        "func.return",
    ]
    assert [c.callee.root_reference.data for c in calls(names["Net_construct"])] == [
        "Block_construct"
    ] * 4
    x = np.float32(0.3)
    kept = run_text(text, "Net_construct", (x,), spec="mindir-inline{cell-reuse=1}")
    flat = run_text(text, "Net_construct", (x,), spec="mindir-inline{cell-reuse=0}")
    plain = run_text(text, "Net_construct", (x,))
    assert kept == flat == plain
    np.testing.assert_allclose(plain[0][0], x_tanh8(x), rtol=1e-6)


def x_tanh8(x):
    for _ in range(8):
        x = np.tanh(x)
    return x


RECURSIVE_LAZY = """
func.func @Lazy_construct(%x: tensor<f32>, %c: tensor<i1>) -> tensor<f32> attributes {mindir.lazy_inline} {
  %r = mindir.if %c -> (tensor<f32>) {
    %f = mindir.logical_not %c : tensor<i1>
    %n = func.call @Lazy_construct(%x, %f) : (tensor<f32>, tensor<i1>) -> tensor<f32>
    mindir.yield %n : tensor<f32>
  } else {
    mindir.yield %x : tensor<f32>
  }
  func.return %r : tensor<f32>
}
"""


def test_recursion_through_a_kept_lazy_graph_is_fine_until_cell_reuse_0():
    module = inline(parse_module(RECURSIVE_LAZY), "mindir-inline{cell-reuse=1}")
    assert len(calls(module)) == 1
    with pytest.raises(MindjitError, match="recursive call to @Lazy_construct") as info:
        inline(parse_module(RECURSIVE_LAZY, "rec.mlir"), "mindir-inline{cell-reuse=0}")
    assert str(info.value.loc) == "rec.mlir:5:5"


# -- options -------------------------------------------------------------------------


def test_cell_reuse_default_from_environment(monkeypatch):
    monkeypatch.delenv(ENV_VAR, raising=False)
    assert default_cell_reuse() == 1
    monkeypatch.setenv(ENV_VAR, "")
    assert default_cell_reuse() == 1
    monkeypatch.setenv(ENV_VAR, " 0 ")
    assert default_cell_reuse() == 0
    assert parse_pipeline("mindir-inline")[0].cell_reuse == 0  # type: ignore[attr-defined]
    assert MindirInlinePass().cell_reuse == 1  # the pass's own default reads no environment
    assert parse_pipeline("mindir-inline{cell-reuse=2}")[0].cell_reuse == 2  # type: ignore[attr-defined]
    module = inline(parse_module(BLOCKS))
    assert "Block_construct" not in funcs(module)
    monkeypatch.setenv(ENV_VAR, "2")
    module = inline(parse_module(BLOCKS))
    assert "Block_construct" in funcs(module)


@pytest.mark.parametrize("raw", ["3", "-1", "yes", "1.0"])
def test_bad_environment_value_is_a_clear_error(monkeypatch, raw):
    monkeypatch.setenv(ENV_VAR, raw)
    with pytest.raises(MindjitError, match=f"{ENV_VAR} must be 0, 1 or 2, got '{raw}'"):
        inline(parse_module(BLOCKS))


@pytest.mark.parametrize("spec", ["mindir-inline{cell-reuse=3}", "mindir-inline{cell-reuse=x}"])
def test_bad_option_is_a_located_error(spec):
    with pytest.raises(MindjitError, match="bad options for pass 'mindir-inline'") as info:
        parse_pipeline(spec)
    assert str(info.value).startswith("<pass-pipeline>:1:1: error:")


def test_option_spellings():
    for spec in ("mindir-inline{cell-reuse=0}", "mindir-inline{cell_reuse=0}"):
        (p,) = parse_pipeline(spec)
        assert isinstance(p, MindirInlinePass)
        assert p.cell_reuse == 0


# -- locations, erasure, errors ----------------------------------------------------------


def test_inlined_ops_take_the_call_location():
    text = """func.func @sub(%x: tensor<f32>, %c: tensor<i1>) -> tensor<f32> {
  %r = mindir.if %c -> (tensor<f32>) {
    %n = mindir.neg %x : tensor<f32>
    mindir.yield %n : tensor<f32>
  } else {
    mindir.yield %x : tensor<f32>
  }
  func.return %r : tensor<f32>
}
func.func @main(%x: tensor<f32>, %c: tensor<i1>) -> tensor<f32> {
  %y = mindir.exp %x : tensor<f32>
  %r = func.call @sub(%y, %c) : (tensor<f32>, tensor<i1>) -> tensor<f32>
  func.return %r : tensor<f32>
}
"""
    module = inline(parse_module(text, "prog.py.mlir"))
    main = funcs(module)["main"]
    ops = [op for op in main.walk() if op is not main and not isinstance(op, func.ReturnOp)]
    assert [op.name for op in ops] == [
        "mindir.exp",
        "mindir.if",
        "mindir.neg",
        "mindir.yield",
        "mindir.yield",
    ]
    for op in ops[1:]:
        assert isinstance(op.location, FileLineColLoc)
        assert str(loc_of_op(op)) == "prog.py.mlir:12:3"
    assert str(loc_of_op(ops[0])) == "prog.py.mlir:11:3"


def test_which_graphs_are_erased():
    text = """
    func.func @sub(%x: tensor<f32>) -> tensor<f32> {
      %y = mindir.neg %x : tensor<f32>
      func.return %y : tensor<f32>
    }
    func.func private @referenced(%x: tensor<f32>) -> tensor<f32> {
      func.return %x : tensor<f32>
    }
    func.func private @dead(%x: tensor<f32>) -> tensor<f32> {
      %y = func.call @sub(%x) : (tensor<f32>) -> tensor<f32>
      func.return %y : tensor<f32>
    }
    func.func private @ext(tensor<f32>) -> tensor<f32>
    func.func @main(%x: tensor<f32>) -> tensor<f32> {
      %a = func.call @sub(%x) : (tensor<f32>) -> tensor<f32>
      %b = func.call @referenced(%a) : (tensor<f32>) -> tensor<f32>
      %c = func.call @ext(%b) : (tensor<f32>) -> tensor<f32>
      "test.op"() {graph = @referenced} : () -> ()
      func.return %c : tensor<f32>
    }
    """
    module = inline(parse_module(text))
    names = funcs(module)
    # @sub: every call inlined, erased (public or not); @referenced: still named by
    # an attribute; @dead: never called, kept (its call inlined); @ext: a declaration
    assert list(names) == ["referenced", "dead", "ext", "main"]
    assert not calls(names["dead"])
    assert [c.callee.root_reference.data for c in calls(names["main"])] == ["ext"]
    assert names["referenced"].sym_visibility.data == "private"


def test_mutual_recursion_is_located_at_the_closing_call():
    text = """func.func @a(%x: tensor<f32>) -> tensor<f32> {
  %y = func.call @b(%x) : (tensor<f32>) -> tensor<f32>
  func.return %y : tensor<f32>
}
func.func @b(%x: tensor<f32>) -> tensor<f32> {
  %y = func.call @c(%x) : (tensor<f32>) -> tensor<f32>
  func.return %y : tensor<f32>
}
func.func @c(%x: tensor<f32>) -> tensor<f32> {
  %y = func.call @b(%x) : (tensor<f32>) -> tensor<f32>
  func.return %y : tensor<f32>
}
"""
    with pytest.raises(MindjitError) as info:
        inline(parse_module(text, "cyc.mlir"))
    assert str(info.value) == (
        "cyc.mlir:10:3: error: recursive call to @b cannot be inlined: @b -> @c -> @b"
    )


def test_ms_opt_reports_recursion_without_traceback(tool, tmp_path):
    path = tmp_path / "rec.mlir"
    path.write_text(RECURSIVE_LAZY)
    done = tool("ms-opt", str(path), "-p", "mindir-inline{cell-reuse=0}")
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert f"{path}:5:5: error: recursive call to @Lazy_construct" in done.stderr
    done = tool("ms-opt", str(path), "-p", "mindir-inline{cell-reuse=1}")
    assert done.returncode == 0, done.stderr


# -- scale -----------------------------------------------------------------------------


def _many_calls(n: int) -> str:
    lines = [
        "mindir.parameter @w = dense<1.0> : tensor<4xf32>",
        "func.func @leaf(%x: tensor<4xf32>, %p: !mindir.ref<tensor<4xf32>>, %u0: !mindir.u)"
        " -> (tensor<4xf32>, !mindir.u) {",
        "  %l = mindir.load %p, %u0 : tensor<4xf32>",
        "  %u1 = mindir.update_state %u0, %l : tensor<4xf32>",
        "  %y = mindir.mul %x, %l : tensor<4xf32>",
        "  %z = mindir.tanh %y : tensor<4xf32>",
        "  %a = mindir.assign %p, %z, %u1 : tensor<4xf32>",
        "  %u2 = mindir.update_state %u1, %a : tensor<4xf32>",
        "  func.return %z, %u2 : tensor<4xf32>, !mindir.u",
        "}",
        "func.func @main(%x: tensor<4xf32>, %u0: !mindir.u) -> (tensor<4xf32>, !mindir.u) {",
        "  %p = mindir.get_parameter @w : !mindir.ref<tensor<4xf32>>",
    ]
    value, state = "%x", "%u0"
    for i in range(n):
        lines.append(
            f"  %r{i}, %s{i} = func.call @leaf({value}, %p, {state}) : (tensor<4xf32>,"
            " !mindir.ref<tensor<4xf32>>, !mindir.u) -> (tensor<4xf32>, !mindir.u)"
        )
        value, state = f"%r{i}", f"%s{i}"
    lines += [f"  func.return {value}, {state} : tensor<4xf32>, !mindir.u", "}"]
    return "\n".join(lines)


def test_five_hundred_calls_inline():
    module = parse_module(_many_calls(500))
    created = inline_module(module, 1)
    assert created == 500 * 6
    main = funcs(module)["main"]
    assert list(funcs(module)) == ["main"]
    assert sum(isinstance(op, mindir.AssignOp) for op in main.walk()) == 500
    # the state chain runs through every inlined body in call order
    ret = main.body.block.last_op
    state, steps = ret.arguments[1], 0
    while isinstance(state.owner, mindir.UpdateStateOp):
        state, steps = state.owner.state, steps + 1
    assert steps == 1000 and state is main.body.block.args[1]


def test_deep_call_chain_is_not_limited_by_python_recursion():
    depth = 1200
    lines = []
    for i in range(depth):
        body = (
            f"  %y = func.call @f{i + 1}(%x) : (tensor<f32>) -> tensor<f32>"
            if i + 1 < depth
            else "  %y = mindir.neg %x : tensor<f32>"
        )
        lines += [
            f"func.func @f{i}(%x: tensor<f32>) -> tensor<f32> {{",
            body,
            "  func.return %y : tensor<f32>",
            "}",
        ]
    module = parse_module("\n".join(lines))
    inline_module(module)
    assert list(funcs(module)) == ["f0"]
    assert [op.name for op in funcs(module)["f0"].body.block.ops] == [
        "mindir.neg",
        "func.return",
    ]
