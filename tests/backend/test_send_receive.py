"""mindir.send / mindir.receive end to end: a send in one graph and a receive
of the same tag in another, called in order, pass the value (one process: the
channel is a global shared by both graphs)."""

from __future__ import annotations

import numpy as np
import pytest

from mindjit.backend.ascend.executable import AscendExecutable
from mindjit.backend.cpu import CpuExecutable
from mindjit.dialects.parsing import parse_module
from mindjit.passes.pipelines import compile_to_tensor
from mindjit.support.errors import MindjitError

_T = "tensor<2x3xf32>"
_PROGRAM = f"""
func.func @stage0(%x: {_T}, %io0: !mindir.io) -> !mindir.io {{
  %d = mindir.mul %x, %x : {_T}
  %io1 = mindir.send %d, %io0 {{sr_tag = 5 : i64, dest_rank = 1 : i64}} : {_T}
  func.return %io1 : !mindir.io
}}
func.func @stage1(%b: {_T}, %io0: !mindir.io) -> {_T} {{
  %y, %io1 = mindir.receive %io0 {{sr_tag = 5 : i64, src_rank = 0 : i64}} : {_T}
  %r = mindir.add %y, %b : {_T}
  func.return %r : {_T}
}}
"""


def _lowered():
    return compile_to_tensor(parse_module(_PROGRAM, "<send_receive>"))


def test_a_receive_gets_what_the_send_of_its_tag_sent_on_the_cpu() -> None:
    exe = CpuExecutable(_lowered())
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.ones((2, 3), np.float32)
    (before,) = exe.run("stage1", b)
    np.testing.assert_array_equal(before, b)  # nothing sent yet: the channel is zero
    exe.run("stage0", x)
    (got,) = exe.run("stage1", b)
    np.testing.assert_array_equal(got, x * x + b)


def test_two_types_on_one_tag_is_a_located_error() -> None:
    text = _PROGRAM.replace(
        f"mindir.receive %io0 {{sr_tag = 5 : i64, src_rank = 0 : i64}} : {_T}",
        "mindir.receive %io0 {sr_tag = 5 : i64, src_rank = 0 : i64} : tensor<2x3xi32>",
    ).replace("mindir.add %y, %b", "mindir.add %b, %b")
    with pytest.raises(MindjitError, match="sr_tag 5 moves a tensor<2x3xi32>"):
        compile_to_tensor(parse_module(text, "<send_receive>"))


def test_the_device_passes_the_value_too() -> None:
    # one simulator runs both stages: the Send kernel stores into the channel global,
    # the Receive kernel copies it (backend/ascend/DEVICE.md, "Send and receive")
    exe = AscendExecutable(_lowered(), "stage0")
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.ones((2, 3), np.float32)
    exe.run("stage0", x)
    (got,) = exe.run("stage1", b)
    np.testing.assert_array_equal(got, x * x + b)
