"""mindir-vmap of gather and unsorted_segment_sum against the per-example loop.

Every combination of batched and shared operands, with repeated and out-of-range
indices (they must stay out of range per example once the batch is one table)."""

from __future__ import annotations

import numpy as np
import pytest

from mindjit.backend.cpu import CpuExecutable
from mindjit.dialects.parsing import parse_module
from mindjit.passes.mindir_vmap import vmap_module
from mindjit.passes.pipelines import lower_to_tensor

B = 3


def _t(shape, element: str) -> str:
    return f"tensor<{''.join(f'{d}x' for d in shape)}{element}>"


def _gather_ref(p: np.ndarray, i: np.ndarray, axis: int) -> np.ndarray:
    n = p.shape[axis]
    out = np.take(p, np.clip(i, 0, n - 1), axis=axis)
    bad = (i < 0) | (i >= n)
    mask = bad.reshape((1,) * axis + i.shape + (1,) * (p.ndim - axis - 1))
    return np.where(mask, 0, out).astype(p.dtype)


def _segment_ref(x: np.ndarray, ids: np.ndarray, n: int) -> np.ndarray:
    out = np.zeros((n, *x.shape[ids.ndim :]), x.dtype)
    flat, rows = ids.reshape(-1), x.reshape(ids.size, *x.shape[ids.ndim :])
    ok = (flat >= 0) & (flat < n)
    np.add.at(out, flat[ok], rows[ok])
    return out


def _run_vmap(body: str, names, arrays, elements, batched, out_shape) -> np.ndarray:
    ins, binds, axes, inner = [], [], [], []
    for name, a, el, b in zip(names, arrays, elements, batched):
        ins.append(f"%{name}b: {_t(a.shape, el)}")
        binds.append(f"%{name} = %{name}b")
        axes.append("0" if b else "none")
        inner.append(_t(a.shape[1:] if b else a.shape, el))
    out_t = _t((B, *out_shape), "f32")
    text = (
        f"func.func @main({', '.join(ins)}) -> {out_t} {{\n"
        f"  %o = mindir.vmap ({', '.join(binds)}) in_axes [{', '.join(axes)}] out_axes [0] : "
        f"({', '.join(_t(a.shape, el) for a, el in zip(arrays, elements))}) -> {out_t} {{\n"
        f"    {body}\n    mindir.yield %r : {_t(out_shape, 'f32')}\n  }}\n"
        f"  func.return %o : {out_t}\n}}\n"
    )
    module = parse_module(text)
    assert vmap_module(module) == 1
    module.verify()
    assert "mindir.vmap" not in str(module)
    lower_to_tensor(module)
    (got,) = CpuExecutable(module).run("main", *arrays)
    return np.asarray(got)


@pytest.mark.parametrize("batched", [(True, False), (False, True), (True, True)])
@pytest.mark.parametrize("axis", [0, 1])
def test_gather(batched, axis: int) -> None:
    rng = np.random.default_rng(axis)
    p_shape, i_shape = (4, 5, 2), (2, 3)
    p = rng.normal(size=(B, *p_shape) if batched[0] else p_shape).astype(np.float32)
    i = rng.integers(-1, p_shape[axis] + 1, (B, *i_shape) if batched[1] else i_shape).astype(
        np.int32
    )
    out_shape = (*p_shape[:axis], *i_shape, *p_shape[axis + 1 :])
    body = (
        f"%r = mindir.gather %p, %i {{axis = {axis} : i64}} : "
        f"({_t(p_shape, 'f32')}, {_t(i_shape, 'i32')}) -> {_t(out_shape, 'f32')}"
    )
    got = _run_vmap(body, "pi", [p, i], ["f32", "i32"], batched, out_shape)
    want = [
        _gather_ref(p[b] if batched[0] else p, i[b] if batched[1] else i, axis) for b in range(B)
    ]
    np.testing.assert_array_equal(got, np.stack(want))


@pytest.mark.parametrize("batched", [(True, False), (False, True), (True, True)])
def test_unsorted_segment_sum(batched) -> None:
    rng = np.random.default_rng(3)
    x_shape, ids_shape, n = (2, 3, 4), (2, 3), 4
    x = rng.normal(size=(B, *x_shape) if batched[0] else x_shape).astype(np.float32)
    ids = rng.integers(-1, n + 1, (B, *ids_shape) if batched[1] else ids_shape)
    out_shape = (n, 4)
    body = (
        f"%r = mindir.unsorted_segment_sum %x, %s {{num_segments = {n} : i64}} : "
        f"({_t(x_shape, 'f32')}, {_t(ids_shape, 'i64')}) -> {_t(out_shape, 'f32')}"
    )
    got = _run_vmap(body, "xs", [x, ids], ["f32", "i64"], batched, out_shape)
    want = [
        _segment_ref(x[b] if batched[0] else x, ids[b] if batched[1] else ids, n) for b in range(B)
    ]
    np.testing.assert_allclose(got, np.stack(want), rtol=1e-6, atol=1e-6)
