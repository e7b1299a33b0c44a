"""The lowered gather / segment-sum generics on the CPU executor and the device:
the segment-sum form runs as one scatter-add (not segments x inputs), a body that
only looks like it takes the general path, and the device names the kernels as
MindSpore's profiler does."""

from __future__ import annotations

import numpy as np

import mindjit.backend.cpu.kernels_linalg as K
from mindjit.backend.ascend.passes.kernel_table import generic_kernel, is_segment_sum
from mindjit.backend.cpu import CpuExecutable
from mindjit.dialects.parsing import parse_module
from mindjit.passes.pipelines import lower_to_tensor

PROGRAM = """
func.func @f(%t: tensor<6x3xf32>, %i: tensor<2x4xi32>, %g: tensor<2x4x3xf32>)
    -> (tensor<2x4x3xf32>, tensor<6x3xf32>, tensor<6x3xf32>) {
  %r = mindir.gather %t, %i : (tensor<6x3xf32>, tensor<2x4xi32>) -> tensor<2x4x3xf32>
  %s = mindir.unsorted_segment_sum %g, %i {num_segments = 6 : i64} : (tensor<2x4x3xf32>, tensor<2x4xi32>) -> tensor<6x3xf32>
  %v = mindir.reverse %t {axis = array<i64: 0>} : tensor<6x3xf32>
  func.return %r, %s, %v : tensor<2x4x3xf32>, tensor<6x3xf32>, tensor<6x3xf32>
}
"""


def _inputs():
    rng = np.random.default_rng(0)
    t = rng.standard_normal((6, 3)).astype(np.float32)
    i = np.array([[0, 5, 5, -1], [2, 6, 0, 0]], np.int32)
    g = rng.standard_normal((2, 4, 3)).astype(np.float32)
    return t, i, g


def _want(t, i, g):
    ok = (i >= 0) & (i < 6)
    rows = np.where(ok[..., None], t[np.clip(i, 0, 5)], 0)
    seg = np.zeros((6, 3), np.float32)
    np.add.at(seg, i[ok], g[ok])
    return rows, seg, t[::-1]


def _spy(monkeypatch, name: str) -> list[bool]:
    """Replace the generic-body pattern `K.<name>` with a wrapper recording, per
    generic it is asked about, whether it matched."""
    hits: list[bool] = []
    real = getattr(K, name)

    def spy(spec):
        found = real(spec)
        hits.append(found is not None)
        return found

    monkeypatch.setattr(K, name, spy)
    return hits


def test_segment_sum_runs_as_a_scatter_add(monkeypatch) -> None:
    hits = _spy(monkeypatch, "segment_sum_kernel")
    module = lower_to_tensor(parse_module(PROGRAM))
    got = CpuExecutable(module).run("f", *_inputs())
    for a, b in zip(got, _want(*_inputs()), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)
    assert hits.count(True) == 1  # the segment sum; gather and reverse are not


REVERSE = """
func.func @f(%t: tensor<2x3x4x5xf32>) -> (tensor<2x3x4x5xf32>, tensor<2x3x4x5xf32>) {
  %a = mindir.reverse %t {axis = array<i64: 2, 3>} : tensor<2x3x4x5xf32>
  %b = mindir.reverse %t {axis = array<i64: 0, 3>} : tensor<2x3x4x5xf32>
  func.return %a, %b : tensor<2x3x4x5xf32>, tensor<2x3x4x5xf32>
}
"""


def test_reverse_runs_as_a_flip(monkeypatch) -> None:
    """The reverse generic is np.flip and a copy (linalg_index_patterns.reverse_kernel),
    not an index array per axis: each of its results is a fresh C-contiguous array."""
    hits = _spy(monkeypatch, "reverse_kernel")
    t = np.random.default_rng(1).standard_normal((2, 3, 4, 5)).astype(np.float32)
    a, b = CpuExecutable(lower_to_tensor(parse_module(REVERSE))).run("f", t)
    np.testing.assert_array_equal(a, t[:, :, ::-1, ::-1])
    np.testing.assert_array_equal(b, t[::-1, :, :, ::-1])
    assert hits == [True, True]
    assert a.flags.c_contiguous and b.flags.c_contiguous and not np.shares_memory(a, t)


def test_a_body_that_only_looks_like_a_reverse_takes_the_general_path() -> None:
    """An index one off the reversed one ((n - 2) - i, clamped by nothing: here the
    lowering's form with another constant) is not a flip."""
    text = str(lower_to_tensor(parse_module(REVERSE)))
    assert text.count("arith.constant 3 : index") == 1  # axis 2's n - 1
    module = parse_module(text.replace("arith.constant 3 : index", "arith.constant 2 : index"))
    t = np.random.default_rng(2).standard_normal((2, 3, 4, 5)).astype(np.float32)
    want = np.take(t, [2, 1, 0, 0], axis=2)[:, :, :, ::-1]
    a, _ = CpuExecutable(module).run("f", t)
    np.testing.assert_array_equal(a[:, :, :3], want[:, :, :3])  # indices 2, 1, 0 in range


def test_a_near_miss_body_takes_the_general_path() -> None:
    text = str(lower_to_tensor(parse_module(PROGRAM))).replace("arith.cmpi eq", "arith.cmpi ne")
    module = parse_module(text)
    t, i, g = _inputs()
    _, seg, _ = CpuExecutable(module).run("f", t, i, g)
    want = np.zeros((6, 3), np.float32)
    for s in range(6):
        want[s] = np.where((i != s)[..., None], g, 0).sum((0, 1))
    np.testing.assert_allclose(seg, want, rtol=1e-5, atol=1e-5)


def test_device_kernel_names() -> None:
    module = lower_to_tensor(parse_module(PROGRAM))
    generics = [op for op in module.walk() if op.name == "linalg.generic"]
    assert [generic_kernel(op) for op in generics] == [
        ("Gather", "vector"),
        ("UnsortedSegmentSum", "vector"),
        ("ReverseV2", "vector"),
    ]
    assert [is_segment_sum(op) for op in generics] == [False, True, False]
