"""canonicalize's region-simplify option (passes/canonicalize.py)."""

from __future__ import annotations

import pytest
from xdsl.transforms.canonicalize import CanonicalizePass as XdslCanonicalize

from mindjit.dialects.parsing import parse_module
from mindjit.passes.canonicalize import CanonicalizePass
from mindjit.passes.pipelines import (
    jit_level_pipeline,
    parse_pipeline,
    run_passes,
)
from mindjit.support.errors import MindjitError

TEXT = """
func.func @f(%a: tensor<4xf32>, %c: tensor<i1>) -> tensor<4xf32> {
  %d = mindir.exp %a : tensor<4xf32>
  %r = mindir.if %c -> (tensor<4xf32>) {
    %n = mindir.neg %a : tensor<4xf32>
    mindir.yield %a : tensor<4xf32>
  } else {
    mindir.yield %a : tensor<4xf32>
  }
  func.return %r : tensor<4xf32>
}
"""


def test_default_is_xdsls_pass_and_disabled_gives_the_same_here():
    outputs = []
    for passes in (
        [XdslCanonicalize()],
        parse_pipeline("canonicalize"),
        parse_pipeline("canonicalize{region-simplify=disabled}"),
    ):
        module = parse_module(TEXT)
        run_passes(passes, module)
        outputs.append(str(module))
    assert outputs[0] == outputs[1] == outputs[2]
    assert "mindir.exp" not in outputs[0] and "mindir.neg" not in outputs[0]
    assert parse_pipeline("canonicalize") == [CanonicalizePass()]


def test_a_bad_value_is_a_located_error():
    with pytest.raises(MindjitError, match="region-simplify must be one of") as info:
        parse_pipeline("cse,canonicalize{region-simplify=sometimes}")
    assert info.value.loc is not None and info.value.loc.col == 5


def test_the_compile_pipelines_skip_the_region_sweep():
    for spec in (jit_level_pipeline("O1"), jit_level_pipeline("O2")):
        canon = [p for p in parse_pipeline(spec) if p.name == "canonicalize"]
        assert canon and all(getattr(p, "inner", p).region_simplify == "disabled" for p in canon)
