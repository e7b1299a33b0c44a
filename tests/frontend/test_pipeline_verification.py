"""The frontend verifies at stage boundaries (verify-mindir, verify-tensor) and after every
pass only with MINDJIT_VERIFY_EACH=1."""

from __future__ import annotations

from dataclasses import dataclass

import graph_api_programs as P
import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, ModuleOp, StringAttr, TensorType, f32
from xdsl.passes import ModulePass

import mindjit as ms
from mindjit.dialects.mindir.effects import ParameterOp
from mindjit.driver import compile as program_module
from mindjit.frontend import context as C
from mindjit.frontend.graph import api
from mindjit.support.errors import MindjitError

ENV = "MINDJIT_VERIFY_EACH"
BAD = "'mindir.parameter' op initial value has type tensor<3xf32>, the Parameter has tensor<2xf32>"


@pytest.fixture(autouse=True)
def _fresh(monkeypatch):
    monkeypatch.delenv(ENV, raising=False)
    C.reset_context()
    api.clear_cache()
    yield
    C.reset_context()
    api.clear_cache()


@dataclass(frozen=True)
class AddBadParameter(ModulePass):
    """Leaves the module invalid (a Parameter whose value has another type)."""

    name = "test-add-bad-parameter"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        bad = ParameterOp.create(
            properties={
                "sym_name": StringAttr("bad"),
                "type": TensorType(f32, [2]),
                "initial_value": DenseIntOrFPElementsAttr.from_list(
                    TensorType(f32, [3]), [0.0, 0.0, 0.0]
                ),
            }
        )
        op.body.block.add_op(bad)


def break_mindir_stage(monkeypatch) -> None:
    """Insert AddBadParameter right after mindir-auto-monad in the frontend's mindir stage."""
    original = program_module.parse_pipeline

    def parse(spec: str):
        passes = original(spec)
        if passes and passes[0].name == "mindir-auto-monad":
            passes.insert(1, AddBadParameter())
        return passes

    monkeypatch.setattr(program_module, "parse_pipeline", parse)


def record_verify_each(monkeypatch) -> list[bool]:
    seen: list[bool] = []
    original = program_module.run_passes

    def run(passes, module, ctx=None, verify_each=True):
        seen.append(verify_each)
        return original(passes, module, ctx, verify_each=verify_each)

    monkeypatch.setattr(program_module, "run_passes", run)
    return seen


def compile_double():
    return ms.jit(P.double)(ms.Tensor([1.0, 2.0]))


def test_stage_boundaries_are_verified_and_reported():
    assert compile_double().asnumpy().tolist() == [2.0, 4.0]
    (program,) = api.cached_programs()
    stages = [s.name for s in program.report.stages]
    assert stages.count("verify-mindir") == 1 and stages.count("verify-tensor") == 1
    mindir_at = stages.index("verify-mindir")
    assert stages[mindir_at - 1] == "mindir-load-elim"
    assert stages[mindir_at + 1] == "convert-mindir-to-tensor"
    assert stages[-2:] == ["verify-tensor", "cpu-plan"]


def test_passes_are_not_verified_one_by_one_by_default(monkeypatch):
    seen = record_verify_each(monkeypatch)
    compile_double()
    assert seen and not any(seen)


@pytest.mark.parametrize(("value", "expected"), [("1", True), ("0", False), ("", False)])
def test_env_turns_on_verification_after_each_pass(monkeypatch, value, expected):
    monkeypatch.setenv(ENV, value)
    seen = record_verify_each(monkeypatch)
    compile_double()
    assert seen and all(v is expected for v in seen)


def test_a_broken_stage_is_caught_at_its_boundary(monkeypatch):
    break_mindir_stage(monkeypatch)
    with pytest.raises(MindjitError) as info:
        compile_double()
    message = info.value.message
    assert message.startswith(BAD)
    assert "(after the pipeline 'mindir-auto-monad,mindir-inline{cell-reuse=1}," in message
    assert "set MINDJIT_VERIFY_EACH=1 to verify after every pass" in message
    assert api.cached_programs() == []


def test_verify_each_catches_the_break_right_after_the_pass(monkeypatch):
    monkeypatch.setenv(ENV, "1")
    break_mindir_stage(monkeypatch)
    ran: list[str] = []
    original = program_module.run_passes

    def run(passes, module, ctx=None, verify_each=True):
        ran.extend(p.name for p in passes)
        return original(passes, module, ctx, verify_each=verify_each)

    monkeypatch.setattr(program_module, "run_passes", run)
    with pytest.raises(MindjitError) as info:
        compile_double()
    # from run_passes, naming the pass, not from the stage boundary
    assert info.value.message == f"after pass 'test-add-bad-parameter': {BAD}"
    assert ran == ["mindir-auto-monad", "test-add-bad-parameter"]  # nothing ran after it
