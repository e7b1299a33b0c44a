"""convert-mindir-to-tensor on graphs that take Parameters as `!mindir.ref` arguments
(lazy inline's reused graphs, kept as functions at MS_DEV_CELL_REUSE=1).

Differential: each program is compiled twice, with its lazy graphs kept
(`mindir-inline{cell-reuse=1}`: they take refs, and the lowering functionalizes
them at the call boundary) and with everything inlined (`cell-reuse=0`: no ref
argument is left), lowered with `lower_to_tensor` and run by the CPU executor;
outputs, the Parameters' final values (`exe.get_global`) and prints must be
equal, over several runs (state persists between them). Plus the lowered shape
(calls kept, `mindjit.ref_results`), iree-opt validity and located errors.
"""

from __future__ import annotations

import io
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, ModuleOp
from xdsl.printer import Printer

from mindjit.backend.cpu import CpuExecutable
from mindjit.dialects.mindir.types import RefType
from mindjit.dialects.parsing import parse_module
from mindjit.passes.mindir_to_tensor.refs import REF_RESULTS_ATTR
from mindjit.passes.pipelines import lower_to_tensor, parse_pipeline, run_passes
from mindjit.support.errors import MindjitError

SIDE_EFFECTS_LAST = "mindir-depend-order,mindir-load-elim"


def _pipeline(cell_reuse: int, threaded: bool) -> str:
    first = "" if threaded else "mindir-auto-monad,"
    return f"{first}mindir-inline{{cell-reuse={cell_reuse}}},{SIDE_EFFECTS_LAST}"


def compile_text(text: str, cell_reuse: int, threaded: bool = False) -> ModuleOp:
    module = parse_module(text, "prog.mlir")
    run_passes(parse_pipeline(_pipeline(cell_reuse, threaded)), module)
    return lower_to_tensor(module)


def funcs(module: ModuleOp) -> dict[str, func.FuncOp]:
    return {op.sym_name.data: op for op in module.ops if isinstance(op, func.FuncOp)}


def run_lowered(lowered: ModuleOp, entry: str, inputs: list[tuple], symbols: list[str]):
    """Run `entry` once per input tuple on one executable: [(outputs, globals, prints)]."""
    exe = CpuExecutable(lowered)
    printed: list[list] = []
    exe.print_hook = lambda items: printed.append(
        [i if isinstance(i, str) else np.asarray(i).tolist() for i in items]
    )
    runs = []
    for args in inputs:
        printed.clear()
        outputs = exe.run(entry, *args)
        values = {s: np.asarray(exe.get_global(s)).copy() for s in symbols}
        runs.append(([np.asarray(o).copy() for o in outputs], values, list(printed)))
    return runs


def assert_same(kept_runs, inlined_runs) -> None:
    assert len(kept_runs) == len(inlined_runs)
    for (out_k, glob_k, pr_k), (out_i, glob_i, pr_i) in zip(kept_runs, inlined_runs):
        assert len(out_k) == len(out_i)
        for a, b in zip(out_k, out_i):
            np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)
        assert glob_k.keys() == glob_i.keys()
        for name in glob_k:
            np.testing.assert_allclose(glob_k[name], glob_i[name], rtol=1e-6, atol=1e-6)
        assert len(pr_k) == len(pr_i)
        for a, b in zip(pr_k, pr_i):
            assert len(a) == len(b)
            for x, y in zip(a, b):
                if isinstance(x, str):
                    assert x == y
                else:
                    np.testing.assert_allclose(x, y, rtol=1e-6, atol=1e-6)


def differential(
    text: str,
    entry: str,
    inputs: list[tuple],
    symbols: list[str],
    lazy: list[str],
    threaded: bool = False,
):
    kept = compile_text(text, 1, threaded)
    inlined = compile_text(text, 0, threaded)
    kept_funcs, inlined_funcs = funcs(kept), funcs(inlined)
    for name in lazy:
        assert name in kept_funcs, f"@{name} should stay a function"
        assert name not in inlined_funcs
        assert any(
            isinstance(op, func.CallOp) and op.callee.root_reference.data == name
            for op in kept.walk()
        )
    for fn in kept_funcs.values():  # nothing ref-typed is left
        assert not any(isinstance(t, RefType) for t in fn.function_type.inputs.data)
    kept_runs = run_lowered(kept, entry, inputs, symbols)
    assert_same(kept_runs, run_lowered(inlined, entry, inputs, symbols))
    return kept, kept_runs


def ref_results(fn: func.FuncOp) -> list[int] | None:
    attr = fn.attributes.get(REF_RESULTS_ATTR)
    if attr is None:
        return None
    assert isinstance(attr, ArrayAttr)
    return [a.value.data for a in attr.data]  # type: ignore[attr-defined]


# -- a reused Block, called with different Parameters (threaded, as after auto-monad) ----

from lazy_block_program import BLOCKS  # noqa: E402


def _blocks_by_hand(x: np.ndarray, w: dict[str, np.ndarray]):
    printed = []
    h = x
    for name in ("w0", "w1", "w0"):
        z = np.tanh(h * w[name])
        w[name] = w[name] + z
        printed.append([z.tolist()])
        h = z
    return h, printed


def test_block_lowered_alone_matches_the_program_by_hand():
    # No other pass: the threaded program is lowered as it is.
    lowered = lower_to_tensor(parse_module(BLOCKS))
    block = funcs(lowered)["Block_construct"]
    assert [str(t) for t in block.function_type.inputs.data] == ["tensor<2xf32>"] * 2
    assert len(block.function_type.outputs.data) == 2
    assert ref_results(block) == [1]
    rng = np.random.default_rng(0)
    inputs = [(rng.normal(size=2).astype(np.float32),) for _ in range(3)]
    runs = run_lowered(lowered, "Net_construct", inputs, ["w0", "w1"])
    w = {"w0": np.array([1.0, 2.0], np.float32), "w1": np.array([0.5, -1.0], np.float32)}
    for (x,), (outputs, values, printed) in zip(inputs, runs):
        out, expected = _blocks_by_hand(x, w)
        np.testing.assert_allclose(outputs[0], out, rtol=1e-6)
        for name in w:
            np.testing.assert_allclose(values[name], w[name], rtol=1e-6)
        for got, want in zip(printed, expected, strict=True):
            np.testing.assert_allclose(got[0], want[0], rtol=1e-6)


@pytest.mark.parametrize("seed", range(3))
def test_block_kept_equals_inlined(seed):
    rng = np.random.default_rng(seed)
    inputs = [(rng.normal(size=2).astype(np.float32),) for _ in range(2)]
    differential(BLOCKS, "Net_construct", inputs, ["w0", "w1"], ["Block_construct"], threaded=True)


# -- nested reuse, frontend form (auto-monad threads it) --------------------------------

NESTED = """
mindir.parameter @a0 = dense<[1.0, 2.0]> : tensor<2xf32>
mindir.parameter @b0 = dense<[0.5, 0.25]> : tensor<2xf32>
mindir.parameter @a1 = dense<[-1.0, 0.5]> : tensor<2xf32>
mindir.parameter @b1 = dense<[2.0, -0.5]> : tensor<2xf32>
mindir.parameter @scale = dense<0.5> : tensor<f32>

func.func @Inner_construct(%x: tensor<2xf32>, %w: !mindir.ref<tensor<2xf32>>, %s: !mindir.ref<tensor<f32>>, %u: !mindir.u, %io: !mindir.io) -> tensor<2xf32> attributes {mindir.lazy_inline = "Inner"} {
  %l = mindir.load %w, %u : tensor<2xf32>
  %sc = mindir.load %s, %u : tensor<f32>
  %y = mindir.mul %x, %l : tensor<2xf32>
  %t = mindir.tanh %y : tensor<2xf32>
  %d = mindir.mul %t, %sc : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  %n = mindir.add %l, %d : tensor<2xf32>
  %a = mindir.assign %w, %n, %u : tensor<2xf32>
  %l2 = mindir.load %w, %u : tensor<2xf32>
  %z = mindir.sub %l2, %x : tensor<2xf32>
  %p = mindir.print %z, %io {format = ["inner", 0]} : tensor<2xf32>
  func.return %z : tensor<2xf32>
}

func.func @Outer_construct(%x: tensor<2xf32>, %wa: !mindir.ref<tensor<2xf32>>, %wb: !mindir.ref<tensor<2xf32>>, %s: !mindir.ref<tensor<f32>>, %u: !mindir.u, %io: !mindir.io) -> tensor<2xf32> attributes {mindir.lazy_inline = "Outer"} {
  %h = func.call @Inner_construct(%x, %wa, %s, %u, %io) : (tensor<2xf32>, !mindir.ref<tensor<2xf32>>, !mindir.ref<tensor<f32>>, !mindir.u, !mindir.io) -> tensor<2xf32>
  %o = func.call @Inner_construct(%h, %wb, %s, %u, %io) : (tensor<2xf32>, !mindir.ref<tensor<2xf32>>, !mindir.ref<tensor<f32>>, !mindir.u, !mindir.io) -> tensor<2xf32>
  %la = mindir.load %wa, %u : tensor<2xf32>
  %r = mindir.add %o, %la : tensor<2xf32>
  %m = mindir.mul %r, %la : tensor<2xf32>
  %a = mindir.assign %wb, %m, %u : tensor<2xf32>
  func.return %r : tensor<2xf32>
}

func.func @Net_construct(%x: tensor<2xf32>, %u: !mindir.u, %io: !mindir.io) -> tensor<2xf32> {
  %a0 = mindir.get_parameter @a0 : !mindir.ref<tensor<2xf32>>
  %b0 = mindir.get_parameter @b0 : !mindir.ref<tensor<2xf32>>
  %a1 = mindir.get_parameter @a1 : !mindir.ref<tensor<2xf32>>
  %b1 = mindir.get_parameter @b1 : !mindir.ref<tensor<2xf32>>
  %s = mindir.get_parameter @scale : !mindir.ref<tensor<f32>>
  %h = func.call @Outer_construct(%x, %a0, %b0, %s, %u, %io) : (tensor<2xf32>, !mindir.ref<tensor<2xf32>>, !mindir.ref<tensor<2xf32>>, !mindir.ref<tensor<f32>>, !mindir.u, !mindir.io) -> tensor<2xf32>
  %o = func.call @Outer_construct(%h, %a1, %b1, %s, %u, %io) : (tensor<2xf32>, !mindir.ref<tensor<2xf32>>, !mindir.ref<tensor<2xf32>>, !mindir.ref<tensor<f32>>, !mindir.u, !mindir.io) -> tensor<2xf32>
  %l = mindir.load %a0, %u : tensor<2xf32>
  %r = mindir.add %o, %l : tensor<2xf32>
  %p = mindir.print %r, %io {format = ["net", 0]} : tensor<2xf32>
  func.return %r : tensor<2xf32>
}
"""


@pytest.mark.parametrize("seed", range(3))
def test_nested_reuse_kept_equals_inlined(seed):
    rng = np.random.default_rng(seed)
    inputs = [(rng.normal(size=2).astype(np.float32),) for _ in range(3)]
    symbols = ["a0", "b0", "a1", "b1", "scale"]
    kept, runs = differential(
        NESTED, "Net_construct", inputs, symbols, ["Inner_construct", "Outer_construct"]
    )
    graphs = funcs(kept)
    # Inner writes w (argument 1), reads s; Outer writes both of its Block refs
    assert ref_results(graphs["Inner_construct"]) == [1]
    assert ref_results(graphs["Outer_construct"]) == [1, 2]
    assert ref_results(graphs["Net_construct"]) is None
    assert [p[0] for p in runs[0][2]] == ["inner"] * 4 + ["net"]
    # the read-only Parameter is never stored to
    assert not any(
        op.name == "ml_program.global_store"
        and op.properties["global"].root_reference.data == "scale"  # type: ignore[union-attr]
        for op in kept.walk()
    )


# -- assigns inside if / while of a reused graph ----------------------------------------

CONTROL = """
mindir.parameter @acc0 = dense<0.0> : tensor<f32>
mindir.parameter @cnt0 = dense<0.0> : tensor<f32>
mindir.parameter @acc1 = dense<10.0> : tensor<f32>
mindir.parameter @cnt1 = dense<1.0> : tensor<f32>

func.func @Step_construct(%x: tensor<f32>, %n: tensor<f32>, %acc: !mindir.ref<tensor<f32>>, %cnt: !mindir.ref<tensor<f32>>, %u: !mindir.u, %io: !mindir.io) -> tensor<f32> attributes {mindir.lazy_inline = "Step"} {
  %zero = mindir.sub %n, %n : tensor<f32>
  %pos = mindir.greater %x, %zero : (tensor<f32>, tensor<f32>) -> tensor<i1>
  %r = mindir.if %pos -> (tensor<f32>) {
    %l = mindir.load %acc, %u : tensor<f32>
    %s = mindir.add %l, %x : tensor<f32>
    %a = mindir.assign %acc, %s, %u : tensor<f32>
    mindir.yield %s : tensor<f32>
  } else {
    %l = mindir.load %acc, %u : tensor<f32>
    %p = mindir.print %l, %io {format = ["not positive", 0]} : tensor<f32>
    mindir.yield %l : tensor<f32>
  }
  %one = mindir.div %x, %x : tensor<f32>
  %i = mindir.while (%j = %zero) : (tensor<f32>) -> tensor<f32> {
    %lt = mindir.less %j, %n : (tensor<f32>, tensor<f32>) -> tensor<i1>
    mindir.condition(%lt : tensor<i1>) %j : tensor<f32>
  } do {
  ^bb0(%k: tensor<f32>):
    %c = mindir.load %cnt, %u : tensor<f32>
    %la = mindir.load %acc, %u : tensor<f32>
    %c1 = mindir.add %c, %la : tensor<f32>
    %a = mindir.assign %cnt, %c1, %u : tensor<f32>
    %inner = mindir.greater %c1, %n : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %q = mindir.if %inner -> (tensor<f32>) {
      %h = mindir.mul %c1, %one : tensor<f32>
      %half = mindir.add %one, %one : tensor<f32>
      %d = mindir.div %h, %half : tensor<f32>
      %a2 = mindir.assign %acc, %d, %u : tensor<f32>
      mindir.yield %d : tensor<f32>
    } else {
      mindir.yield %c1 : tensor<f32>
    }
    %k1 = mindir.add %k, %one : tensor<f32>
    mindir.yield %k1 : tensor<f32>
  }
  %fa = mindir.load %acc, %u : tensor<f32>
  %fc = mindir.load %cnt, %u : tensor<f32>
  %o = mindir.add %fa, %fc : tensor<f32>
  %o2 = mindir.add %o, %r : tensor<f32>
  func.return %o2 : tensor<f32>
}

func.func @Net_construct(%x: tensor<f32>, %n: tensor<f32>, %u: !mindir.u, %io: !mindir.io) -> tensor<f32> {
  %acc0 = mindir.get_parameter @acc0 : !mindir.ref<tensor<f32>>
  %cnt0 = mindir.get_parameter @cnt0 : !mindir.ref<tensor<f32>>
  %acc1 = mindir.get_parameter @acc1 : !mindir.ref<tensor<f32>>
  %cnt1 = mindir.get_parameter @cnt1 : !mindir.ref<tensor<f32>>
  %h = func.call @Step_construct(%x, %n, %acc0, %cnt0, %u, %io) : (tensor<f32>, tensor<f32>, !mindir.ref<tensor<f32>>, !mindir.ref<tensor<f32>>, !mindir.u, !mindir.io) -> tensor<f32>
  %y = mindir.neg %x : tensor<f32>
  %o = func.call @Step_construct(%y, %n, %acc1, %cnt1, %u, %io) : (tensor<f32>, tensor<f32>, !mindir.ref<tensor<f32>>, !mindir.ref<tensor<f32>>, !mindir.u, !mindir.io) -> tensor<f32>
  %r = mindir.add %h, %o : tensor<f32>
  func.return %r : tensor<f32>
}
"""


@pytest.mark.parametrize(("x", "n"), [(1.5, 3.0), (-2.0, 2.0), (0.5, 0.0), (3.0, 5.0)])
def test_if_and_while_writing_refs_kept_equals_inlined(x, n):
    inputs = [(np.array(x, np.float32), np.array(n, np.float32))] * 3
    kept, _ = differential(
        CONTROL, "Net_construct", inputs, ["acc0", "cnt0", "acc1", "cnt1"], ["Step_construct"]
    )
    assert ref_results(funcs(kept)["Step_construct"]) == [2, 3]


# -- a read-only ref ---------------------------------------------------------------------

READ_ONLY = """
mindir.parameter @w = dense<[1.0, -2.0, 3.0]> : tensor<3xf32>
mindir.parameter @v = dense<[0.5, 0.5, 0.5]> : tensor<3xf32>

func.func @Dense_construct(%x: tensor<3xf32>, %w: !mindir.ref<tensor<3xf32>>, %u: !mindir.u) -> tensor<3xf32> attributes {mindir.lazy_inline = "Dense"} {
  %l = mindir.load %w, %u : tensor<3xf32>
  %y = mindir.mul %x, %l : tensor<3xf32>
  func.return %y : tensor<3xf32>
}

func.func @Net_construct(%x: tensor<3xf32>, %u: !mindir.u) -> tensor<3xf32> {
  %w = mindir.get_parameter @w : !mindir.ref<tensor<3xf32>>
  %v = mindir.get_parameter @v : !mindir.ref<tensor<3xf32>>
  %h = func.call @Dense_construct(%x, %w, %u) : (tensor<3xf32>, !mindir.ref<tensor<3xf32>>, !mindir.u) -> tensor<3xf32>
  %lv = mindir.load %v, %u : tensor<3xf32>
  %n = mindir.add %lv, %h : tensor<3xf32>
  %a = mindir.assign %v, %n, %u : tensor<3xf32>
  %o = func.call @Dense_construct(%h, %v, %u) : (tensor<3xf32>, !mindir.ref<tensor<3xf32>>, !mindir.u) -> tensor<3xf32>
  func.return %o : tensor<3xf32>
}
"""


def test_read_only_ref_gets_no_extra_result():
    rng = np.random.default_rng(1)
    inputs = [(rng.normal(size=3).astype(np.float32),) for _ in range(2)]
    kept, runs = differential(READ_ONLY, "Net_construct", inputs, ["w", "v"], ["Dense_construct"])
    dense = funcs(kept)["Dense_construct"]
    assert ref_results(dense) is None
    assert len(dense.function_type.outputs.data) == 1
    stores = [
        op.properties["global"].root_reference.data  # type: ignore[union-attr]
        for op in kept.walk()
        if op.name == "ml_program.global_store"
    ]
    assert stores == ["v"]
    # the second call sees the value @v was given between the calls
    x = inputs[0][0]
    v = np.array([0.5, 0.5, 0.5], np.float32) + x * np.array([1.0, -2.0, 3.0], np.float32)
    np.testing.assert_allclose(runs[0][0][0], x * np.array([1.0, -2.0, 3.0]) * v, rtol=1e-6)


# -- the caller's own Load of a Parameter, used after a call that writes it -----------

CALLER_LOAD = """
mindir.parameter @w = dense<[1.0, 2.0]> : tensor<2xf32>

func.func @Block_construct(%x: tensor<2xf32>, %w: !mindir.ref<tensor<2xf32>>, %u: !mindir.u) -> tensor<2xf32> attributes {mindir.lazy_inline = "B"} {
  %l = mindir.load %w, %u : tensor<2xf32>
  %n = mindir.add %l, %x : tensor<2xf32>
  %a = mindir.assign %w, %n, %u : tensor<2xf32>
  %m = mindir.mul %l, %x : tensor<2xf32>
  func.return %m : tensor<2xf32>
}

func.func @Net_construct(%x: tensor<2xf32>, %u: !mindir.u) -> (tensor<2xf32>, tensor<2xf32>) {
  %p = mindir.get_parameter @w : !mindir.ref<tensor<2xf32>>
  %l0 = mindir.load %p, %u : tensor<2xf32>
  %h = func.call @Block_construct(%x, %p, %u) : (tensor<2xf32>, !mindir.ref<tensor<2xf32>>, !mindir.u) -> tensor<2xf32>
  %l1 = mindir.load %p, %u : tensor<2xf32>
  %r = mindir.add %h, %l0 : tensor<2xf32>
  func.return %r, %l1 : tensor<2xf32>, tensor<2xf32>
}
"""


def test_callers_load_across_a_writing_call():
    # mindir-load-elim sees the call write @w through the ref and keeps %l0 a snapshot;
    # the callee reads its entry value after its own Assign (%m uses %l)
    x = np.array([0.5, -1.0], np.float32)
    _, runs = differential(CALLER_LOAD, "Net_construct", [(x,)] * 2, ["w"], ["Block_construct"])
    (r, l1), values, _ = runs[0]
    w0 = np.array([1.0, 2.0], np.float32)
    np.testing.assert_allclose(r, w0 * x + w0, rtol=1e-6)
    np.testing.assert_allclose(l1, w0 + x, rtol=1e-6)
    np.testing.assert_allclose(values["w"], w0 + x, rtol=1e-6)


# -- iree-opt ----------------------------------------------------------------------------


def _iree_opt() -> str | None:
    local = Path(sys.executable).parent / "iree-opt"
    if local.exists():
        return str(local)
    return shutil.which("iree-opt")


@pytest.mark.parametrize("program", ["BLOCKS", "NESTED", "CONTROL", "READ_ONLY", "CALLER_LOAD"])
def test_lowered_is_valid_for_iree_opt(program):
    tool = _iree_opt()
    if tool is None:
        pytest.skip("iree-opt is not installed")
    text = globals()[program]
    lowered = compile_text(text, 1, threaded=program == "BLOCKS")
    out = io.StringIO()
    Printer(stream=out).print_op(lowered)
    done = subprocess.run([tool, "-"], input=out.getvalue(), capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


# -- errors ------------------------------------------------------------------------------


def _lowering_error(text: str) -> MindjitError:
    with pytest.raises(MindjitError) as info:
        lower_to_tensor(parse_module(text, "prog.mlir"))
    return info.value


def test_ref_returned_is_a_located_error():
    error = _lowering_error(
        """
mindir.parameter @w = dense<1.0> : tensor<f32>
func.func @f(%p: !mindir.ref<tensor<f32>>) -> !mindir.ref<tensor<f32>> {
  func.return %p : !mindir.ref<tensor<f32>>
}"""
    )
    assert str(error).startswith("prog.mlir:3:")
    assert "@f returns a Parameter ref" in str(error)


def test_ref_through_if_passed_to_call_is_a_located_error():
    error = _lowering_error(
        """
mindir.parameter @w = dense<1.0> : tensor<f32>
func.func @g(%p: !mindir.ref<tensor<f32>>, %u: !mindir.u) -> tensor<f32> {
  %l = mindir.load %p, %u : tensor<f32>
  func.return %l : tensor<f32>
}
func.func @f(%c: tensor<i1>, %u: !mindir.u) -> tensor<f32> {
  %p = mindir.get_parameter @w : !mindir.ref<tensor<f32>>
  %r = mindir.if %c -> (!mindir.ref<tensor<f32>>) {
    mindir.yield %p : !mindir.ref<tensor<f32>>
  } else {
    mindir.yield %p : !mindir.ref<tensor<f32>>
  }
  %l = func.call @g(%r, %u) : (!mindir.ref<tensor<f32>>, !mindir.u) -> tensor<f32>
  func.return %l : tensor<f32>
}"""
    )
    assert str(error).startswith("prog.mlir:9:")
    assert "'mindir.if' gives a Parameter ref" in str(error)


def test_one_parameter_written_through_two_arguments_is_refused():
    error = _lowering_error(
        """
mindir.parameter @w = dense<1.0> : tensor<f32>
func.func @g(%p: !mindir.ref<tensor<f32>>, %q: !mindir.ref<tensor<f32>>, %x: tensor<f32>, %u: !mindir.u) -> tensor<f32> {
  %a = mindir.assign %q, %x, %u : tensor<f32>
  func.return %a : tensor<f32>
}
func.func @f(%x: tensor<f32>, %u: !mindir.u) -> tensor<f32> {
  %p = mindir.get_parameter @w : !mindir.ref<tensor<f32>>
  %l = func.call @g(%p, %p, %x, %u) : (!mindir.ref<tensor<f32>>, !mindir.ref<tensor<f32>>, tensor<f32>, !mindir.u) -> tensor<f32>
  func.return %l : tensor<f32>
}"""
    )
    assert str(error).startswith("prog.mlir:9:")
    assert "passes Parameter @w as operands 0 and 1 of @g" in str(error)
