"""run_passes(verify_each=...): verify after every pass by default, not at all when off."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, SymbolRefAttr
from xdsl.passes import ModulePass

from mindjit.dialects.mindir.effects import GetParameterOp
from mindjit.dialects.parsing import parse_module
from mindjit.passes.pipelines import parse_pipeline, run_passes
from mindjit.support.errors import MindjitError

TEXT = """
mindir.parameter @w = dense<[1.0, 2.0]> : tensor<2xf32>
func.func @f(%u: !mindir.u) -> tensor<2xf32> {
  %p = mindir.get_parameter @w : !mindir.ref<tensor<2xf32>>
  %l = mindir.load %p, %u : tensor<2xf32>
  func.return %l : tensor<2xf32>
}
"""

MISSING = "'mindir.get_parameter' op no mindir.parameter named @missing"


@dataclass(frozen=True)
class NoOp(ModulePass):
    name = "test-noop"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        RAN.append(self.name)


@dataclass(frozen=True)
class BreakGetParameter(ModulePass):
    """Leaves the module invalid: the get_parameter names a missing symbol."""

    name = "test-break"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        RAN.append(self.name)
        get = next(o for o in op.walk() if isinstance(o, GetParameterOp))
        get.properties["parameter"] = SymbolRefAttr("missing")


@dataclass(frozen=True)
class Crash(ModulePass):
    name = "test-crash"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        raise ValueError("boom")


RAN: list[str] = []


@pytest.fixture(autouse=True)
def _clear_ran():
    RAN.clear()
    yield
    RAN.clear()


def invalid_module() -> ModuleOp:
    module = parse_module(TEXT, "t.mlir")
    BreakGetParameter().apply(Context(), module)
    RAN.clear()
    return module


def test_default_verifies_after_a_no_op_pass():
    module = invalid_module()
    with pytest.raises(MindjitError) as info:
        run_passes([NoOp()], module)
    assert RAN == ["test-noop"]  # the pass ran, then the module was verified
    assert info.value.message == f"after pass 'test-noop': {MISSING}"
    assert str(info.value).startswith("t.mlir:4:3: error:")


def test_verify_each_true_is_the_default():
    module = invalid_module()
    with pytest.raises(MindjitError, match="no mindir.parameter named @missing"):
        run_passes([NoOp()], module, verify_each=True)


def test_verify_each_false_does_not_verify():
    module = invalid_module()
    run_passes([NoOp(), NoOp()], module, verify_each=False)  # no error
    assert RAN == ["test-noop", "test-noop"]
    with pytest.raises(MindjitError, match="no mindir.parameter named @missing"):
        run_passes([NoOp()], module)  # it was invalid all along


def test_default_stops_right_after_the_pass_that_broke_the_module():
    module = parse_module(TEXT, "t.mlir")
    with pytest.raises(MindjitError, match="no mindir.parameter named @missing"):
        run_passes([NoOp(), BreakGetParameter(), NoOp()], module)
    assert RAN == ["test-noop", "test-break"]  # the third pass never ran


def test_without_verify_each_later_passes_run_on_the_broken_module():
    module = parse_module(TEXT, "t.mlir")
    run_passes([NoOp(), BreakGetParameter(), NoOp()], module, verify_each=False)
    assert RAN == ["test-noop", "test-break", "test-noop"]


def test_pass_failures_are_reported_either_way():
    for verify_each in (True, False):
        module = parse_module(TEXT, "t.mlir")
        with pytest.raises(MindjitError, match="pass 'test-crash' failed: boom"):
            run_passes([Crash()], module, verify_each=verify_each)


def test_real_pipeline_without_verify_each_still_runs():
    module = parse_module(TEXT, "t.mlir")
    run_passes(parse_pipeline("canonicalize,cse"), module, verify_each=False)
    assert any(isinstance(op, GetParameterOp) for op in module.walk())
