"""A pipelined graph on several simulated devices: one module per stage
(stage_modules.py), the pipeline's timeline picture (pipeline_timeline.py)."""

from __future__ import annotations

import re

from mindjit.backend.ascend.pipeline_schedule import Link, StageCost, simulate
from mindjit.backend.ascend.pipeline_timeline import pipeline_svg, transfers
from mindjit.backend.ascend.stage_modules import stage_module
from mindjit.dialects.parsing import parse_module

SPLIT = """
ml_program.global private mutable @w0(dense<1.0> : tensor<2xf32>) : tensor<2xf32>
ml_program.global private mutable @w1(dense<2.0> : tensor<2xf32>) : tensor<2xf32>
ml_program.global private mutable @__mindjit_channel_0(dense<0.0> : tensor<2xf32>) : tensor<2xf32>
func.func private @Block(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = math.tanh %x : tensor<2xf32>
  func.return %y : tensor<2xf32>
}
func.func private @Unused(%x: tensor<2xf32>) -> tensor<2xf32> {
  func.return %x : tensor<2xf32>
}
func.func @f_stage0(%x: tensor<2xf32>) attributes {mindir.pipeline_stage = 0 : i64, mindir.pipeline_of = "f", mindir.pipeline_results = array<i64>} {
  %w = ml_program.global_load @w0 : tensor<2xf32>
  %a = arith.mulf %x, %w : tensor<2xf32>
  %b = func.call @Block(%a) : (tensor<2xf32>) -> tensor<2xf32>
  ml_program.global_store @__mindjit_channel_0 = %b : tensor<2xf32>
  func.return
}
func.func @f_stage1(%x: tensor<2xf32>) -> tensor<2xf32> attributes {mindir.pipeline_stage = 1 : i64, mindir.pipeline_of = "f", mindir.pipeline_results = array<i64: 0>} {
  %r = ml_program.global_load @__mindjit_channel_0 : tensor<2xf32>
  %w = ml_program.global_load @w1 : tensor<2xf32>
  %y = arith.addf %r, %w : tensor<2xf32>
  func.return %y : tensor<2xf32>
}
"""


def symbols(module) -> set[str]:
    return {
        (op.properties.get("sym_name") or op.attributes.get("sym_name")).data for op in module.ops
    }


def test_each_stage_module_holds_its_graph_callees_parameters_and_channels():
    module = parse_module(SPLIT)
    assert symbols(stage_module(module, "f_stage0")) == {
        "w0",
        "__mindjit_channel_0",
        "Block",
        "f_stage0",
    }
    assert symbols(stage_module(module, "f_stage1")) == {"w1", "__mindjit_channel_0", "f_stage1"}
    assert len(symbols(module)) == 7  # the module itself is left whole


def test_pipeline_picture_has_a_lane_per_device_and_labelled_slots():
    costs = [StageCost(10, 20, activation_bytes=4000, gradient_bytes=4000)] * 4
    link = Link(latency_us=2.0, bytes_per_us=1000.0)
    timeline = simulate(costs, 8, link, "1f1b")
    svg = pipeline_svg(timeline, costs, link)
    assert [f"device {d}" in svg for d in range(4)] == [True] * 4
    assert svg.count('class="slot"') == 2 * 4 * 8
    labels = re.findall(r'fill="white" [^>]*>([FB]\d+)</text>', svg)
    assert "F0" in labels and "B7" in labels
    moves = transfers(timeline, costs, link)
    assert len(moves) == 2 * 3 * 8  # activations forward, gradients back, per boundary
    assert all(end - start == 6.0 for _, start, end, _ in moves)  # 2 us + 4000 B at 1000 B/us
    assert svg.count('class="transfer"') == len(moves)
    assert f"{timeline.theoretical_bubble():.3f}" in svg
