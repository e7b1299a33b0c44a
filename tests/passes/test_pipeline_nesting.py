"""`func.func(p)` in a pass pipeline: function-local passes run on each function."""

from __future__ import annotations

import pytest

from mindjit.dialects.context import make_context
from mindjit.dialects.parsing import parse_module
from mindjit.passes.pipelines import (
    LOWER_TO_TENSOR,
    OnEachFunction,
    jit_level_pipeline,
    parse_pipeline,
    run_passes,
)

TEXT = """
%top = arith.constant 1.0 : f32
func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {
  %dead = mindir.exp %a : tensor<2xf32>
  %0 = mindir.exp %a : tensor<2xf32>
  %1 = mindir.exp %a : tensor<2xf32>
  %2 = mindir.add %0, %1 : tensor<2xf32>
  func.return %2 : tensor<2xf32>
}
func.func private @decl(tensor<2xf32>) -> tensor<2xf32>
"""


def test_nested_local_passes_are_wrapped_and_keep_their_names():
    passes = parse_pipeline("builtin.module(func.func(canonicalize, cse), dce)")
    assert [p.name for p in passes] == ["canonicalize", "cse", "dce"]
    assert [type(p) is OnEachFunction for p in passes] == [True, True, False]


def test_module_passes_under_func_func_still_see_the_module():
    (p,) = parse_pipeline("builtin.module(func.func(mindir-auto-monad))")
    assert not isinstance(p, OnEachFunction)


@pytest.mark.parametrize("spec", ["func.func(dce)", "func.func(canonicalize,cse)"])
def test_nested_passes_leave_module_level_ops(spec):
    module = parse_module(TEXT)
    run_passes(parse_pipeline(spec), module, make_context())
    text = str(module)
    assert "%top = arith.constant" in text  # not a function's op
    assert "%dead" not in text
    assert "@decl" in text  # declarations are skipped, not broken


def test_module_level_dce_reaches_the_module():
    module = parse_module(TEXT)
    run_passes(parse_pipeline("dce"), module, make_context())
    assert "%top" not in str(module)


def test_nested_cse_merges_inside_functions():
    module = parse_module(TEXT)
    run_passes(parse_pipeline("func.func(cse)"), module, make_context())
    assert str(module).count("mindir.exp") == 1  # the three equal exps merged (one was dead)
    assert "%top" in str(module)


def test_the_frontend_pipelines_nest_their_cleanups():
    for spec in (jit_level_pipeline("O1"), jit_level_pipeline("O2"), LOWER_TO_TENSOR):
        for p in parse_pipeline(spec):
            if p.name in ("canonicalize", "cse", "dce"):
                assert isinstance(p, OnEachFunction), spec


def test_parsed_pipelines_are_shared_and_each_caller_gets_its_own_list():
    spec = jit_level_pipeline("O2")
    first, second = parse_pipeline(spec), parse_pipeline(spec)
    assert first == second and first is not second
    assert all(a is b for a, b in zip(first, second))  # frozen passes, parsed once
    first.clear()
    assert [p.name for p in parse_pipeline(spec)] == [p.name for p in second]
