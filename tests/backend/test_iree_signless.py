"""Unsigned types on IREE (backend/iree/signless.py): IREE's input is signless,
the ops keep reading the bits as unsigned, callers see uint8 in and out,
a uint8 Parameter included."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("iree.runtime")

from mindjit.backend.cpu import CpuExecutable  # noqa: E402
from mindjit.backend.iree.executable import IreeExecutable  # noqa: E402
from mindjit.backend.iree.prepare import prepare  # noqa: E402
from mindjit.backend.iree.signless import has_signed_forms, make_signless  # noqa: E402
from mindjit.dialects.parsing import parse_module  # noqa: E402
from mindjit.passes.pipelines import lower_to_tensor  # noqa: E402

UNSIGNED = """
mindir.parameter @count = dense<250> : tensor<2xui8>
func.func @step(%a: tensor<2xui8>, %b: tensor<2xui8>, %u0: !mindir.u) -> (tensor<2xi1>, tensor<2xui8>, tensor<2xf32>, tensor<2xui8>, !mindir.u) {
  %k = mindir.constant dense<200> : tensor<2xui8>
  %gt = mindir.greater %a, %k : (tensor<2xui8>, tensor<2xui8>) -> tensor<2xi1>
  %q = mindir.div %a, %b : tensor<2xui8>
  %f = mindir.cast %a {to = f32} : (tensor<2xui8>) -> tensor<2xf32>
  %p = mindir.get_parameter @count : !mindir.ref<tensor<2xui8>>
  %c = mindir.load %p, %u0 : tensor<2xui8>
  %u1 = mindir.update_state %u0, %c : tensor<2xui8>
  %n = mindir.add %c, %b : tensor<2xui8>
  %s = mindir.assign %p, %n, %u1 : tensor<2xui8>
  %u2 = mindir.update_state %u1, %s : tensor<2xui8>
  func.return %gt, %q, %f, %n, %u2 : tensor<2xi1>, tensor<2xui8>, tensor<2xf32>, tensor<2xui8>, !mindir.u
}
"""


def _lowered():
    return lower_to_tensor(parse_module(UNSIGNED, "<unsigned>"))


def test_the_rewrite_drops_every_sign_and_keeps_the_bytes():
    module = _lowered()
    assert has_signed_forms(module)
    work = module.clone()
    make_signless(work)
    text = str(work)
    assert "ui8" not in text and not has_signed_forms(work)
    assert "dense<-56> : tensor<2xi8>" in text  # 200's bits
    assert "arith.cmpi ugt" in text and "arith.divui" in text and "arith.uitofp" in text
    assert "ui8" in str(module)  # the module itself is not changed


def test_iree_runs_it_as_the_numpy_executor():
    a = np.array([255, 7], np.uint8)
    b = np.array([3, 2], np.uint8)
    cpu = CpuExecutable(_lowered())
    iree = IreeExecutable(_lowered())
    assert "ui8" not in prepare(iree.module).text
    for _ in range(2):  # the Parameter wraps 250 + 3 + 3 = 0 (mod 256) alike
        want = cpu.run("step", a, b)
        got = iree.run("step", a, b)
        for w, g in zip(want, got, strict=True):
            assert g.dtype == w.dtype
            np.testing.assert_array_equal(g, w)
    assert iree.get_global("count").dtype == np.uint8
    np.testing.assert_array_equal(iree.get_global("count"), [0, 254])
