"""backend/cpu/memory_meter.py: live bytes of a function's values, counted after each
op: an array and its views once, the arguments never, forward work's arrays as
activations, and the activations held between two works."""

from __future__ import annotations

import numpy as np

from mindjit.backend.cpu import CpuExecutable
from mindjit.backend.cpu.memory_meter import MemoryMeter
from mindjit.dialects.parsing import parse_module
from mindjit.passes.pipelines import lower_to_tensor

PROGRAM = """
func.func @f(%x: tensor<4xf32>) -> tensor<f32> {
  %v = mindir.get_item %x {mindir.pipeline_micro = "F0", starts = array<i64: 0>, limits = array<i64: 4>, strides = array<i64: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  %a = mindir.exp %v {mindir.pipeline_micro = "F0"} : tensor<4xf32>
  %r = mindir.reshape %a {mindir.pipeline_micro = "F0"} : (tensor<4xf32>) -> tensor<2x2xf32>
  %n = mindir.neg %x : tensor<4xf32>
  %q = mindir.reshape %n : (tensor<4xf32>) -> tensor<2x2xf32>
  %b = mindir.mul %r, %r {mindir.pipeline_micro = "B0"} : tensor<2x2xf32>
  %c = mindir.add %b, %q {mindir.pipeline_micro = "B0"} : tensor<2x2xf32>
  %s = mindir.reduce_sum %c {mindir.pipeline_micro = "B0", axis = array<i64: 0, 1>} : (tensor<2x2xf32>) -> tensor<f32>
  func.return %s : tensor<f32>
}
"""


def test_counts_views_once_and_not_the_arguments():
    exe = CpuExecutable(lower_to_tensor(parse_module(PROGRAM)))
    x = np.arange(4, dtype=np.float32)
    want = exe.run("f", x)[0]
    meter = MemoryMeter()
    exe.memory_meter = meter
    assert float(exe.run("f", x)[0]) == float(want)  # the same values, measured
    peak = meter.peak("f")
    # %a (16 bytes) and its reshape are one buffer; %v is a view of the argument
    assert peak.activation_bytes == peak.held_activation_bytes == 16
    # all values: %a's and %n's 16 bytes (%a is freed when %b has read it)
    assert peak.intermediate_bytes == 32
    assert peak.calls == 1
    exe.run("f", x)
    assert meter.peak("f").calls == 2 and meter.peak("f").activation_bytes == 16
    exe.memory_meter = None
    exe.run("f", x)
    assert meter.peak("f").calls == 2  # the plans without the meter count nothing
    assert meter.peak("g") == type(peak)()  # a function never run: zeros
