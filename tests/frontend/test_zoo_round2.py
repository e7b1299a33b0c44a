"""Model-zoo coverage, round 2: the primitives (`P.X()(...)`), functional and composite
names, ops, nn Cells and Cell rules zoo code uses, each against MindSpore's documented
results (or numpy), in PyNative mode and GRAPH_MODE with equal results, with
gradients checked by finite differences where MindSpore defines them."""

from __future__ import annotations

import math

import numpy as np
import pytest
from grad_check import assert_grads_match_finite_differences
from modes import run

import mindjit as ms
from mindjit import Parameter, ParameterTuple, Tensor, nn, ops
from mindjit.common import dtype as mstype
from mindjit.ops import composite as C
from mindjit.ops import functional as F
from mindjit.ops import operations as P


def _f32(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def _same_in_both_modes(fn, *args):
    """fn(*args) in PyNative mode and compiled; the two results (asserted equal).

    The PyNative results are also checked not to share memory and not to change
    while the graph runs. (A flaky failure of the ClipByNorm test was graph mode's:
    a temporary Cell's traced graph reused for the next Cell at its address,
    test_graph_api's test_a_temporary_cell_in_a_graph_never_gets_a_dead_ones_graph.)"""
    eager = run(fn, ms.PYNATIVE_MODE, *args)
    arrays = [a.asnumpy() for a in _leaves(eager) if isinstance(a, Tensor)]
    for i, a in enumerate(arrays):
        for b in arrays[i + 1 :]:
            assert a.size == 0 or not np.shares_memory(a, b), "PyNative results share memory"
    kept = [a.copy() for a in arrays]
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        graph = run(fn, ms.GRAPH_MODE, *args)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    for a, k in zip(arrays, kept):
        np.testing.assert_array_equal(a, k, err_msg="a PyNative result changed in the graph run")
    for a, b in zip(_leaves(eager), _leaves(graph), strict=True):
        if isinstance(a, Tensor):
            assert a.dtype == b.dtype and a.shape == b.shape
            np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
        else:
            assert a == b
    return eager


def _leaves(x):
    if isinstance(x, tuple | list):
        return [y for v in x for y in _leaves(v)]
    return [x]


# --- primitives --------------------------------------------------------------------------


def test_dtype_and_size_primitives_give_the_tensor_facts():
    def facts(x):
        return P.DType()(x), P.Size()(x)

    dtype, size = _same_in_both_modes(facts, Tensor(_f32(2, 3, 4)))
    assert dtype == mstype.float32 and size == 24


def test_broadcast_to_keeps_the_input_size_at_minus_one():
    x = Tensor(_f32(3, 1))

    def widen(t):
        return P.BroadcastTo((2, -1, 4))(t)

    out = _same_in_both_modes(widen, x)
    np.testing.assert_array_equal(out.asnumpy(), np.broadcast_to(x.asnumpy(), (2, 3, 4)))
    with pytest.raises(TypeError, match="'shape' must be a tuple of ints"):
        P.BroadcastTo(3)
    with pytest.raises(ValueError, match="positive or -1"):
        P.BroadcastTo((2, 0))


def test_flatten_primitive_keeps_axis_0_and_merges_the_rest():
    def flat(a, b):
        return P.Flatten()(a), P.Flatten()(b)

    out3, out1 = _same_in_both_modes(flat, Tensor(_f32(2, 3, 4)), Tensor(_f32(5)))
    assert out3.shape == (2, 12) and out1.shape == (5, 1)
    with pytest.raises(ValueError, match="'Flatten'"):
        P.Flatten()(Tensor(np.float32(1.0)))


@pytest.mark.parametrize("dtype", [np.int32, np.float32])
def test_floor_mod_takes_the_sign_of_the_divisor(dtype):
    x = np.array([-7, -3, 5, 7, 0], dtype)
    y = np.array([2, -2, -3, 3, 4], dtype)

    def mod(a, b):
        return P.FloorMod()(a, b)

    out = _same_in_both_modes(mod, Tensor(x), Tensor(y))
    np.testing.assert_array_equal(out.asnumpy(), np.mod(x, y))


def test_logical_xor_primitive_takes_bool_tensors_only():
    a = Tensor(np.array([True, False, True]))
    b = Tensor(np.array([True, True, False]))

    def xor(p, q):
        return P.LogicalXor()(p, q)

    assert _same_in_both_modes(xor, a, b).asnumpy().tolist() == [False, True, True]
    with pytest.raises(TypeError, match="'LogicalXor', 'x' must be a Bool tensor"):
        P.LogicalXor()(Tensor(np.array([1, 0], np.int32)), b[:2])


def test_squared_difference_and_its_gradient():
    x, y = _f32(2, 3), _f32(2, 3, seed=1)

    def sq(a, b):
        return P.SquaredDifference()(a, b)

    out = _same_in_both_modes(sq, Tensor(x), Tensor(y))
    np.testing.assert_allclose(out.asnumpy(), (x - y) ** 2, rtol=1e-6)
    assert_grads_match_finite_differences(
        sq, [x.astype(np.float64), y.astype(np.float64)], np.random.default_rng(2)
    )


def test_tuple_to_array_and_scalar_to_tensor_follow_mindspore_dtypes():
    def convert():
        return (
            P.TupleToArray()((1, 2, 3)),
            F.tuple_to_array((1.0, 2.5)),
            P.ScalarToTensor()(2),
            F.scalar_to_tensor(True, mstype.int32),
        )

    ints, floats, scalar, as_int = _same_in_both_modes(convert)
    assert ints.dtype == mstype.int32 and ints.asnumpy().tolist() == [1, 2, 3]
    assert floats.dtype == mstype.float32 and floats.asnumpy().tolist() == [1.0, 2.5]
    assert scalar.dtype == mstype.float32 and scalar.shape == () and float(scalar) == 2.0
    assert as_int.dtype == mstype.int32 and int(as_int) == 1
    with pytest.raises(TypeError, match="must be a tuple"):
        P.TupleToArray()([1, 2])
    with pytest.raises(TypeError, match="same type"):
        P.TupleToArray()((1, 2.0))
    with pytest.raises(ValueError, match="greater than 0"):
        P.TupleToArray()(())
    with pytest.raises(TypeError, match="'ScalarToTensor'"):
        P.ScalarToTensor()(Tensor(1.0))


def test_tuple_to_array_of_a_computed_tensor_is_a_located_type_error():
    def bad(x):
        return P.TupleToArray()((x, x))

    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        with pytest.raises(TypeError, match=r"test_zoo_round2.py:\d+.*'x\[0\]' must be a Number"):
            run(bad, ms.GRAPH_MODE, Tensor(np.float32(1.0)))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def _nearest_reference(img, out_hw, align_corners=False, half_pixel=False):
    """TensorFlow's nearest-neighbour source rows, written out per position."""
    out = img
    for axis, m in ((2, out_hw[0]), (3, out_hw[1])):
        n = out.shape[axis]
        src = []
        for i in range(m):
            if align_corners:
                s = round(i * (n - 1) / (m - 1)) if m > 1 else 0
            elif half_pixel:
                s = math.floor((i + 0.5) * n / m)
            else:
                s = math.floor(i * n / m)
            src.append(min(s, n - 1))
        out = np.take(out, src, axis=axis)
    return out


def test_resize_nearest_neighbor_is_mindspores_example_and_tensorflow_mapping():
    example = Tensor(np.array([[[[-0.1, 0.3, 3.6], [0.4, 0.5, -3.2]]]], np.float32))

    def resize(x):
        return P.ResizeNearestNeighbor((2, 2))(x)

    np.testing.assert_array_equal(
        _same_in_both_modes(resize, example).asnumpy(),
        np.array([[[[-0.1, 0.3], [0.4, 0.5]]]], np.float32),
    )
    img = _f32(1, 2, 5, 7)
    for size, corners, half in [
        ((8, 3), False, False),
        ((3, 10), True, False),
        ((7, 4), False, True),
    ]:
        got = P.ResizeNearestNeighbor(size, corners, half)(Tensor(img)).asnumpy()
        np.testing.assert_array_equal(got, _nearest_reference(img, size, corners, half))
    assert_grads_match_finite_differences(
        P.ResizeNearestNeighbor((3, 5)),
        [img.astype(np.float64)[:, :1, :4, :3]],
        np.random.default_rng(0),
    )
    with pytest.raises(ValueError, match="length of 'size' must be 2"):
        P.ResizeNearestNeighbor((2,))
    with pytest.raises(TypeError, match="'align_corners' must be a bool"):
        P.ResizeNearestNeighbor((2, 2), align_corners=1)


def test_nn_resize_bilinear_is_mindspores_example():
    image = Tensor(np.array([[[[1, 2, 3, 4], [5, 6, 7, 8]]]], np.float32))
    want = [
        [1.0, 1.8, 2.6, 3.4, 4.0],
        [2.6, 3.4, 4.2, 5.0, 5.6],
        [4.2, 5.0, 5.8, 6.6, 7.2],
        [5.0, 5.8, 6.6, 7.4, 8.0],
        [5.0, 5.8, 6.6, 7.4, 8.0],
    ]
    resize = nn.ResizeBilinear()

    def by_size(x):
        return resize(x, size=(5, 5))

    np.testing.assert_allclose(_same_in_both_modes(by_size, image).asnumpy()[0, 0], want, 1e-6)

    def by_scale(x):
        return resize(x, scale_factor=2, align_corners=True)

    doubled = _same_in_both_modes(by_scale, image).asnumpy()[0, 0]
    assert doubled.shape == (4, 8)
    np.testing.assert_allclose(doubled[:, 0], [1, 1 + 4 / 3, 1 + 8 / 3, 5], rtol=1e-6)
    np.testing.assert_allclose(doubled[0], np.linspace(1, 4, 8), rtol=1e-6)
    assert_grads_match_finite_differences(
        lambda x: P.ResizeBilinear((3, 5))(x),
        [np.arange(8, dtype=np.float64).reshape(1, 1, 2, 4)],
        np.random.default_rng(0),
    )
    with pytest.raises(ValueError, match="'size' and 'scale' both none"):
        resize(image)
    with pytest.raises(TypeError, match="float16 or float32"):
        resize(Tensor(np.ones((1, 1, 2, 2), np.int32)), size=(3, 3))


def test_unique_scatter_and_lgamma_primitives_call_their_ops():
    x = Tensor(np.array([2, 1, 2], np.int32))
    assert P.Unique()(x)[0].asnumpy().tolist() == [1, 2]
    idx = Tensor(np.array([[1]], np.int32))
    u = Tensor(np.array([[5.0, 6.0]], np.float32))
    assert P.ScatterNd()(idx, u, (2, 2)).asnumpy().tolist() == [[0, 0], [5, 6]]
    base = Tensor(np.ones((2, 2), np.float32))
    assert P.TensorScatterAdd()(base, idx, u).asnumpy().tolist() == [[1, 1], [6, 7]]
    assert P.TensorScatterUpdate()(base, idx, u).asnumpy().tolist() == [[1, 1], [5, 6]]
    assert float(P.Lgamma()(Tensor(np.float32(3.0)))) == pytest.approx(math.log(2.0), abs=1e-6)


# --- functional and composite --------------------------------------------------------------


def test_isconstant_and_typeof():
    def facts(x):
        return F.isconstant(x), F.isconstant(Tensor(1)), F.isconstant(3), F.typeof(x), F.typeof(2)

    eager = run(facts, ms.PYNATIVE_MODE, Tensor(np.int32(-1)))
    assert eager[:3] == (True, True, True)  # MindSpore's example: isconstant(Tensor) is True
    assert repr(eager[3]) == "Tensor[Int32]" and eager[3] == mstype.tensor_type(mstype.int32)
    assert eager[4] == mstype.int64
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        graph = run(facts, ms.GRAPH_MODE, Tensor(np.int32(-1)))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert graph[:3] == (False, True, True)  # a graph's argument is no constant
    assert graph[3:] == eager[3:]
    assert repr(F.typeof((1, 2))) == "Tuple" and F.typeof(None) == F.typeof(None)


def test_add_flags_records_the_flags_and_returns_the_function():
    @C.add_flags(has_effect=True)
    def step(x):
        return x + 1

    assert C.add_flags(step, other=1) is step
    assert step._func_graph_flags == {"has_effect": True, "other": 1}
    assert float(ms.jit(step)(Tensor(np.float32(1.0)))) == 2.0


def test_map_applies_its_function_one_level_deep():
    mapper = C.Map()

    def pairs(a, b):
        return mapper(ops.add, (a, b), (b, a))

    a, b = Tensor(_f32(2)), Tensor(_f32(2, seed=1))
    out = _same_in_both_modes(pairs, a, b)
    assert isinstance(out, tuple) and len(out) == 2
    np.testing.assert_allclose(out[0].asnumpy(), a.asnumpy() + b.asnumpy())
    # one level: a nested tuple is passed whole (HyperMap would map into it)
    assert C.Map(len)(((1, 2), (3,))) == (2, 1)
    assert C.HyperMap(lambda v: v * 10)(((1, 2), (3,))) == ((10, 20), (30,))
    with pytest.raises(TypeError, match="Map: the arguments at one level"):
        C.Map(len)((1,), [2])


def test_clip_by_global_norm_scales_every_tensor_by_one_factor():
    x = (_f32(2, 3), _f32(4, seed=1) * 3)

    def clip(a, b):
        return C.clip_by_global_norm((a, b), 2.0)

    out = _same_in_both_modes(clip, *map(Tensor, x))
    norm = math.sqrt(sum(float((t.astype(np.float64) ** 2).sum()) for t in x))
    for got, t in zip(out, x):
        np.testing.assert_allclose(got.asnumpy(), t * 2.0 / max(norm, 2.0), rtol=1e-5)
    small = ops.clip_by_global_norm((Tensor(np.full(2, 0.1, np.float32)),), 1.0)
    np.testing.assert_allclose(small[0].asnumpy(), [0.1, 0.1], rtol=1e-6)  # within: unchanged
    assert_grads_match_finite_differences(
        lambda a, b: ops.concat(
            [ops.reshape(t, (-1,)) for t in ops.clip_by_global_norm((a, b), 1.0)]
        ),
        [t.astype(np.float64) for t in x],
        np.random.default_rng(3),
        eps=1e-3,  # the norm is float32 (MindSpore's): rounding noise over a small eps
        rtol=1e-3,
        atol=1e-3,
    )
    with pytest.raises(ValueError, match="greater than 0"):
        C.clip_by_global_norm((Tensor(x[0]),), 0.0)
    with pytest.raises(ValueError, match="'use_norm' only supports None"):
        C.clip_by_global_norm((Tensor(x[0]),), 1.0, use_norm=Tensor(1.0))


def test_pynative_gradient_through_a_0d_value_used_twice():
    """Two cotangents of a 0-d value add up to a 0-d array (numpy makes a scalar of
    them, which the backward pass refused): clip_by_global_norm's norm is one."""

    def square_of_sum(a):
        s = ops.reduce_sum(a)
        return ops.mul(s, s)

    grad = ms.grad(square_of_sum)(Tensor(np.ones(3)))
    np.testing.assert_array_equal(grad.asnumpy(), [6.0, 6.0, 6.0])


# --- ops ------------------------------------------------------------------------------------


def test_argsort_is_sort_s_int32_indices():
    x = Tensor(np.array([[3.0, 1.0, 2.0, 1.0], [0.5, -1.0, 4.0, 0.5]], np.float32))

    def order(t):
        return ops.argsort(t), ops.argsort(t, axis=0, descending=True)

    ascending, down = _same_in_both_modes(order, x)
    assert ascending.dtype == mstype.int32
    assert ascending.asnumpy().tolist() == [[1, 3, 2, 0], [1, 0, 3, 2]]  # stable on ties
    assert down.asnumpy().tolist() == [[0, 0, 1, 0], [1, 1, 0, 1]]


def _scatter_reference(indices, updates, shape, base=None):
    out = np.zeros(shape, updates.dtype) if base is None else base.copy()
    for pos, u in zip(
        indices.reshape(-1, indices.shape[-1]), updates.reshape(-1, *shape[indices.shape[-1] :])
    ):
        out[tuple(pos)] += u
    return out


def test_scatter_nd_and_tensor_scatter_add_sum_duplicate_indices():
    indices = np.array([[0, 1], [1, 1], [0, 1]], np.int32)
    updates = _f32(3, 4)
    base = _f32(2, 3, 4, seed=1)

    def scatter(i, u, b):
        return ops.scatter_nd(i, u, (2, 3, 4)), ops.tensor_scatter_add(b, i, u)

    made, added = _same_in_both_modes(scatter, Tensor(indices), Tensor(updates), Tensor(base))
    np.testing.assert_allclose(made.asnumpy(), _scatter_reference(indices, updates, (2, 3, 4)))
    np.testing.assert_allclose(
        added.asnumpy(), _scatter_reference(indices, updates, (2, 3, 4), base), rtol=1e-6
    )
    with pytest.raises(RuntimeError, match=r"'scatter_nd', the 'indices' must be in the range"):
        ops.scatter_nd(Tensor(np.array([[2, 0]], np.int32)), Tensor(updates[:1]), (2, 3, 4))
    with pytest.raises(ValueError, match="shape of 'updates' must be"):
        ops.scatter_nd(Tensor(indices), Tensor(updates[:, :3]), (2, 3, 4))
    with pytest.raises(TypeError, match="dtype of 'input_x'"):
        ops.tensor_scatter_add(Tensor(base), Tensor(indices), Tensor(updates.astype(np.float16)))


def test_tensor_scatter_update_replaces_the_addressed_slices_and_its_gradient():
    indices = np.array([[1], [0]], np.int64)
    updates = _f32(2, 3)
    base = _f32(3, 3, seed=1)

    def update(b, i, u):
        return ops.tensor_scatter_update(b, i, u)

    out = _same_in_both_modes(update, Tensor(base), Tensor(indices), Tensor(updates))
    want = base.copy()
    want[1], want[0] = updates[0], updates[1]
    np.testing.assert_array_equal(out.asnumpy(), want)
    i = Tensor(indices)
    assert_grads_match_finite_differences(
        lambda b, u: ops.tensor_scatter_update(b, i, u),
        [base.astype(np.float64), updates.astype(np.float64)],
        np.random.default_rng(0),
    )
    assert_grads_match_finite_differences(
        lambda u: ops.scatter_nd(Tensor(np.array([[0, 2], [0, 2]], np.int32)), u, (2, 3)),
        [np.array([1.5, -2.0])],
        np.random.default_rng(1),
    )


def test_lgamma_values_poles_and_gradient():
    x = np.array([0.1, 0.5, 1.0, 1.5, 2.0, 2.5, 7.9, 8.0, 30.0, 1e4, -0.5, -1.5, -2.7], np.float64)
    want = np.array([math.lgamma(v) for v in x])

    def lg(t):
        return ops.lgamma(t)

    np.testing.assert_allclose(
        _same_in_both_modes(lg, Tensor(x)).asnumpy(), want, rtol=1e-12, atol=1e-11
    )
    got32 = _same_in_both_modes(lg, Tensor(x.astype(np.float32))).asnumpy()
    assert got32.dtype == np.float32
    np.testing.assert_allclose(got32, want, rtol=2e-6, atol=3e-6)
    poles = ops.lgamma(Tensor(np.array([0.0, -1.0, -2.0], np.float32))).asnumpy()
    assert np.isposinf(poles).all()
    assert ops.lgamma(Tensor(np.array([3], np.int32))).dtype == mstype.float32
    assert_grads_match_finite_differences(
        ops.lgamma,
        [np.array([0.3, 1.0, 2.2, 7.5, 9.0, 40.0, -0.4, -1.3])],
        np.random.default_rng(0),
    )

    def grad_in_mode(t):
        return ms.grad(ops.lgamma)(t)

    digamma = _same_in_both_modes(grad_in_mode, Tensor(np.array([1.0, 2.0], np.float64)))
    np.testing.assert_allclose(digamma.asnumpy(), [-0.5772156649, 0.4227843351], rtol=1e-9)


def test_unique_runs_in_pynative_and_folds_constants_in_graph_mode():
    x = Tensor(np.array([[3, 1], [3, -2]], np.int32))
    values, idx = ops.unique(x)
    assert values.asnumpy().tolist() == [-2, 1, 3] and values.dtype == mstype.int32
    assert idx.asnumpy().tolist() == [[2, 1], [2, 0]] and idx.dtype == mstype.int32
    example = ops.unique(Tensor(np.array([1, 2, 5, 2], np.int32)))  # MindSpore's example
    assert [t.asnumpy().tolist() for t in example] == [[1, 2, 5], [0, 1, 2, 1]]

    def of_constant():
        return ops.unique(Tensor(np.array([2.5, -1.0, 2.5], np.float32)))

    ys, where = _same_in_both_modes(of_constant)
    assert ys.asnumpy().tolist() == [-1.0, 2.5] and where.asnumpy().tolist() == [1, 0, 1]


def test_unique_values_carry_the_gradient_of_each_group_s_first_element():
    def top(t):
        return ops.unique(t)[0]

    grad = ms.grad(lambda t: ops.reduce_sum(top(t) * Tensor(np.array([1.0, 10.0]))))(
        Tensor(np.array([4.0, 2.0, 4.0]))
    )
    assert grad.asnumpy().tolist() == [10.0, 1.0, 0.0]


def test_value_shaped_ops_of_a_computed_tensor_are_refused_at_the_user_s_line():
    def uniq(x):
        return ops.unique(x + 1)

    def nz(x):
        return ops.nonzero(x)

    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        for fn, name in ((uniq, "unique"), (nz, "nonzero")):
            with pytest.raises(
                ValueError, match=rf"test_zoo_round2.py:\d+.*'{name}'.*static shapes"
            ):
                run(fn, ms.GRAPH_MODE, Tensor(np.array([1, 0, 1], np.int32)))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_nonzero_gives_int64_coordinates_in_row_major_order():
    x = Tensor(np.array([[[1, 0], [-5, 0]]], np.int32))
    out = ops.nonzero(x)
    assert out.dtype == mstype.int64 and out.asnumpy().tolist() == [[0, 0, 0], [0, 1, 0]]
    parts = ops.nonzero(Tensor(np.array([1, 0, 2, 0, 3], np.int32)), as_tuple=True)
    assert [p.asnumpy().tolist() for p in parts] == [[0, 2, 4]]
    mask = np.random.default_rng(0).random((3, 4, 5)) > 0.6
    np.testing.assert_array_equal(ops.nonzero(Tensor(mask)).asnumpy(), np.argwhere(mask))
    assert ops.nonzero(Tensor(np.zeros((2, 2), np.float32))).shape == (0, 2)

    def of_constant():
        return ops.nonzero(Tensor(np.array([0.0, 2.0, 0.0, -1.0], np.float32)))

    assert _same_in_both_modes(of_constant).asnumpy().tolist() == [[1], [3]]
    with pytest.raises(ValueError, match="rank of 'input' must be >= 1"):
        ops.nonzero(Tensor(np.float32(1.0)))
    with pytest.raises(TypeError, match="'as_tuple' must be a bool"):
        ops.nonzero(x, as_tuple=1)


def test_multinomial_samples_follow_the_weights_with_the_same_seed_in_both_modes():
    weights = Tensor(np.array([[0.0, 9.0, 4.0, 0.0], [1.0, 0.0, 0.0, 3.0]], np.float32))

    def draw(w):
        return ops.multinomial(w, 6), ops.multinomial(w, 2, replacement=False)

    ms.set_seed(7)
    eager = run(draw, ms.PYNATIVE_MODE, weights)
    ms.set_seed(7)
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        graph = run(draw, ms.GRAPH_MODE, weights)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    for a, b in zip(eager, graph):
        assert a.dtype == mstype.int32
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
    with_rep, without = (t.asnumpy() for t in eager)
    assert with_rep.shape == (2, 6) and set(with_rep[0]) <= {1, 2} and set(with_rep[1]) <= {0, 3}
    assert sorted(without[0]) == [1, 2] and sorted(without[1]) == [0, 3]  # distinct, nonzero
    counts = np.bincount(
        ops.multinomial(Tensor(np.array([1, 2, 3, 4], np.float32)), 40000).asnumpy()
    )
    np.testing.assert_allclose(counts / 40000, [0.1, 0.2, 0.3, 0.4], atol=0.015)
    with pytest.raises(ValueError, match="'num_samples' must be less than"):
        ops.multinomial(weights, 5, replacement=False)
    with pytest.raises(ValueError, match="1d or 2d"):
        ops.multinomial(Tensor(np.ones((1, 1, 2), np.float32)), 1)


# --- nn -----------------------------------------------------------------------------------


def _train_mode_outputs(cell, x, seed=3):
    """cell(x) in training mode, PyNative and GRAPH_MODE from one seed."""
    cell.set_train()
    try:
        ms.set_seed(seed)
        eager = cell(x)
        ms.set_seed(seed)
        ms.set_context(mode=ms.GRAPH_MODE)
        try:
            graph = cell(x)
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)
    finally:
        cell.set_train(False)
    return eager, graph


def test_dropout2d_zeroes_whole_channels_in_training_only():
    x = Tensor(np.abs(_f32(4, 8, 3, 3)) + 1.0)
    cell = nn.Dropout2d(p=0.5)
    eager, graph = _train_mode_outputs(cell, x)
    np.testing.assert_array_equal(eager.asnumpy(), graph.asnumpy())
    out = eager.asnumpy()
    dropped = (out == 0).all(axis=(2, 3))
    kept = ~dropped
    assert dropped.any() and kept.any()
    assert ((out == 0).any(axis=(2, 3)) == dropped).all()  # a channel is all or nothing
    np.testing.assert_allclose(out[kept], (x.asnumpy() * 2.0)[kept], rtol=1e-6)
    assert cell(x) is x  # eval mode: the identity
    with pytest.raises(ValueError, match=r"range \[0, 1\]"):
        nn.Dropout2d(1.5)
    with pytest.raises(ValueError, match="dimension of 'input' must be 4"):
        ops.dropout2d(Tensor(_f32(2, 3)), 0.5)


def test_clip_by_norm_scales_to_the_norm_bound():
    x = _f32(3, 4) * 4

    def clip(t):
        return (
            nn.ClipByNorm()(t, Tensor(np.float32(1.0))),
            nn.ClipByNorm(axis=1)(t, Tensor(np.float32(2.0))),
            nn.ClipByNorm()(t * 0.0, Tensor(np.float32(1.0))),
        )

    whole, rows, zero = _same_in_both_modes(clip, Tensor(x))
    norm = np.sqrt((x.astype(np.float64) ** 2).sum())
    np.testing.assert_allclose(whole.asnumpy(), x / max(norm, 1.0), rtol=1e-5)
    row_norms = np.sqrt((x.astype(np.float64) ** 2).sum(axis=1, keepdims=True))
    np.testing.assert_allclose(rows.asnumpy(), x * 2.0 / np.maximum(row_norms, 2.0), rtol=1e-5)
    assert (zero.asnumpy() == 0).all() and whole.dtype == mstype.float32
    clip_norm = Tensor(np.float32(1.0))
    assert_grads_match_finite_differences(
        lambda t: nn.ClipByNorm()(t, clip_norm),
        [x],  # float32, the dtypes MindSpore takes: a wide eps over its rounding
        np.random.default_rng(0),
        eps=1e-2,
        rtol=5e-3,
        atol=5e-3,
    )
    with pytest.raises(TypeError, match="float16 or float32"):
        nn.ClipByNorm()(Tensor(np.ones(2, np.int32)), clip_norm)


class _Regression(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(3, 2, weight_init="ones")

    def construct(self, x, y):
        return ops.reduce_mean(ops.square(self.dense(x) - y))


def test_forward_value_and_grad_gives_the_loss_and_its_gradients():
    net = _Regression()
    weights = ParameterTuple(net.trainable_params())
    x, y = Tensor(_f32(4, 3)), Tensor(_f32(4, 2, seed=1))
    by_weights = nn.ForwardValueAndGrad(net, weights=weights, get_by_list=True)
    want_loss, want = ms.value_and_grad(net, None, weights)(x, y)
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        try:
            loss, grads = by_weights(x, y)
            _, input_grads = nn.ForwardValueAndGrad(net, get_all=True)(x, y)
            sens = nn.ForwardValueAndGrad(net, sens_param=True)(x, y, Tensor(np.float32(2.0)))
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)
        np.testing.assert_allclose(loss.asnumpy(), want_loss.asnumpy(), rtol=1e-6)
        for g, w in zip(grads, want):
            np.testing.assert_allclose(g.asnumpy(), w.asnumpy(), rtol=1e-5, atol=1e-7)
        assert len(input_grads) == 2 and input_grads[0].shape == (4, 3)
        np.testing.assert_allclose(
            sens[1].asnumpy(), 2 * ms.grad(net)(x, y).asnumpy(), rtol=1e-5, atol=1e-7
        )
    with pytest.raises(TypeError, match='"weights" requires to be set'):
        nn.ForwardValueAndGrad(net, get_by_list=True)
    with pytest.raises(TypeError, match="'network' must be cell, function type"):
        nn.ForwardValueAndGrad(3)


def _patches_reference(x, k, s, r, same):
    n, c, h, w = x.shape
    if same:
        pads = []
        for size, kk, ss, rr in ((h, k[0], s[0], r[0]), (w, k[1], s[1], r[1])):
            out = -(-size // ss)
            total = max((out - 1) * ss + (kk - 1) * rr + 1 - size, 0)
            pads.append((total // 2, total - total // 2))
        x = np.pad(x, ((0, 0), (0, 0), pads[0], pads[1]))
        out_h, out_w = -(-h // s[0]), -(-w // s[1])
    else:
        out_h = (h - (k[0] - 1) * r[0] - 1) // s[0] + 1
        out_w = (w - (k[1] - 1) * r[1] - 1) // s[1] + 1
    out = np.zeros((n, k[0] * k[1] * c, out_h, out_w), x.dtype)
    for yy in range(out_h):
        for xx in range(out_w):
            for i in range(k[0]):
                for j in range(k[1]):
                    for ch in range(c):
                        out[:, (i * k[1] + j) * c + ch, yy, xx] = x[
                            :, ch, yy * s[0] + i * r[0], xx * s[1] + j * r[1]
                        ]
    return out


@pytest.mark.parametrize(
    ("k", "s", "r", "padding"),
    [
        ((2, 2), (2, 2), (2, 2), "valid"),
        ((3, 2), (1, 2), (1, 1), "valid"),
        ((3, 3), (2, 1), (1, 2), "SAME"),
    ],
)
def test_unfold_extracts_tensorflow_ordered_patches(k, s, r, padding):
    x = _f32(2, 3, 6, 7)
    unfold = nn.Unfold([1, *k, 1], [1, *s, 1], [1, *r, 1], padding)

    def patches(t):
        return unfold(t)

    out = _same_in_both_modes(patches, Tensor(x))
    np.testing.assert_array_equal(out.asnumpy(), _patches_reference(x, k, s, r, padding == "SAME"))


def test_unfold_is_mindspores_example_and_checks_its_arguments():
    net = nn.Unfold(ksizes=[1, 2, 2, 1], strides=[1, 2, 2, 1], rates=[1, 2, 2, 1])
    assert net(Tensor(np.ones([2, 3, 6, 6]), mstype.float16)).shape == (2, 12, 2, 2)
    assert_grads_match_finite_differences(
        nn.Unfold([1, 2, 2, 1], [1, 1, 2, 1], [1, 1, 1, 1], "same"),
        [np.random.default_rng(0).standard_normal((1, 2, 3, 3))],
        np.random.default_rng(1),
    )
    with pytest.raises(ValueError, match=r"format of 'ksizes' must be \[1, ksize_row"):
        nn.Unfold([2, 2], [1, 1, 1, 1], [1, 1, 1, 1])
    with pytest.raises(ValueError, match="'padding' must be 'same' or 'valid'"):
        nn.Unfold([1, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], "full")


def test_cosine_embedding_loss_is_mindspores_example():
    x1 = Tensor(np.array([[0.3, 0.8], [0.4, 0.3]], np.float32))
    x2 = Tensor(np.array([[0.4, 1.2], [-0.4, -0.9]], np.float32))
    labels = Tensor(np.array([1, -1], np.int32))
    loss = nn.CosineEmbeddingLoss()
    per_row = nn.CosineEmbeddingLoss(margin=-0.9, reduction="none")

    def losses(a, b, y):
        return loss(a, b, y), per_row(a, b, y)

    mean, rows = _same_in_both_modes(losses, x1, x2, labels)
    assert float(mean) == pytest.approx(0.0003425479, rel=1e-4)
    cos = -0.43 / (math.hypot(0.4, 0.3) * math.hypot(0.4, 0.9))
    np.testing.assert_allclose(rows.asnumpy(), [0.000685096, cos + 0.9], rtol=1e-4)
    y = labels
    assert_grads_match_finite_differences(
        lambda a, b: nn.CosineEmbeddingLoss(reduction="sum")(a, b, y),
        [np.array([[0.3, 0.8], [0.4, 0.3]]), np.array([[0.4, 1.2], [0.4, 0.9]])],
        np.random.default_rng(0),
        eps=1e-3,  # LossBase reduces in float32 (MindSpore's rule): its rounding over eps
        rtol=1e-3,
        atol=1e-4,
    )
    with pytest.raises(TypeError, match="'margin' must be float"):
        nn.CosineEmbeddingLoss(margin=1)
    with pytest.raises(ValueError, match=r"range \[-1.0, 1.0\]"):
        nn.CosineEmbeddingLoss(margin=1.5)
    with pytest.raises(ValueError, match="shape of 'labels'"):
        loss(x1, x2, Tensor(np.array([1], np.int32)))


def test_nn_names_are_in_mindspores_module_paths():
    from mindjit.nn.layer.basic import ClipByNorm, Dropout2d, ResizeBilinear, Unfold
    from mindjit.nn.loss.loss import CosineEmbeddingLoss
    from mindjit.nn.wrap.cell_wrapper import ForwardValueAndGrad

    assert (ClipByNorm, Dropout2d, ResizeBilinear, Unfold) == (
        nn.ClipByNorm,
        nn.Dropout2d,
        nn.ResizeBilinear,
        nn.Unfold,
    )
    assert CosineEmbeddingLoss is nn.CosineEmbeddingLoss
    assert ForwardValueAndGrad is nn.ForwardValueAndGrad


# --- Cell: ParameterTuple attributes -------------------------------------------------------


class _ZooMomentum(nn.Cell):
    """An optimizer written the model zoo's way: its moments are a clone of its
    ParameterTuple, updated by ops.assign in construct."""

    def __init__(self, params, lr=0.1, momentum=0.9):
        super().__init__(auto_prefix=False)
        self.parameters = ParameterTuple(params)
        self.moments = self.parameters.clone(prefix="moments", init="zeros")
        self.lr, self.momentum = lr, momentum

    def construct(self, grads):
        for i in range(len(self.parameters)):
            v = self.moments[i] * self.momentum + grads[i]
            ops.assign(self.moments[i], v)
            ops.assign(self.parameters[i], self.parameters[i] - v * self.lr)
        return True


def _zoo_step(net, mode, steps=2):
    opt = _ZooMomentum(net.trainable_params())
    grads = tuple(Tensor(np.full(p.shape, 0.5, np.float32)) for p in opt.parameters)
    ms.set_context(mode=mode)
    try:
        for _ in range(steps):
            opt(grads)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    return opt


def test_a_parameter_tuple_attribute_registers_its_parameters_under_their_names():
    net = nn.Dense(2, 3)
    opt = _ZooMomentum(net.trainable_params())
    assert isinstance(opt.moments, ParameterTuple)
    names = [n for n, _ in opt.parameters_and_names()]
    assert names == ["weight", "bias", "moments.weight", "moments.bias"]
    assert [p.name for p in opt.moments] == ["moments.weight", "moments.bias"]
    assert opt.moments[0].requires_grad  # MindSpore's clone keeps it
    assert list(opt.parameters_dict()) == names
    dup = ParameterTuple([Parameter(Tensor(np.zeros(1, np.float32)), name="w")])
    holder = nn.Cell()
    holder.w = 3
    with pytest.raises(KeyError, match="the w parameter already exists"):
        holder.state = dup


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE], ids=["pynative", "graph"])
def test_cloned_moments_updated_by_assign_persist_and_are_checkpointed(mode, tmp_path):
    net = nn.Dense(2, 3, weight_init="ones", bias_init="zeros")
    opt = _zoo_step(net, mode)
    # v1 = 0.5, v2 = 0.9 * 0.5 + 0.5 = 0.95; w = 1 - 0.1 * (0.5 + 0.95)
    np.testing.assert_allclose(opt.moments[0].asnumpy(), np.full((3, 2), 0.95), rtol=1e-6)
    np.testing.assert_allclose(net.weight.asnumpy(), np.full((3, 2), 0.855), rtol=1e-6)
    path = str(tmp_path / "opt.ckpt")
    ms.save_checkpoint(opt, path)
    saved = ms.load_checkpoint(path)
    assert set(saved) == {"weight", "bias", "moments.weight", "moments.bias"}
    np.testing.assert_allclose(saved["moments.bias"].asnumpy(), np.full(3, 0.95), rtol=1e-6)
    fresh = _ZooMomentum(nn.Dense(2, 3).trainable_params())
    ms.load_param_into_net(fresh, saved)
    np.testing.assert_allclose(fresh.moments[0].asnumpy(), opt.moments[0].asnumpy())


def test_a_tuple_of_parameters_is_checked_but_not_registered():
    a = Parameter(Tensor(np.zeros(2, np.float32)), name="a")
    b = Parameter(Tensor(np.ones(2, np.float32)), name="a")
    cell = nn.Cell()
    cell.group = (a,)
    cell.group_again = [a]  # the same Parameter again: fine
    assert list(cell.parameters_and_names()) == []  # MindSpore registers a ParameterTuple only
    with pytest.raises(ValueError, match="its name 'a' already exists"):
        cell.other = [b]


def test_optimizer_parameters_are_a_parameter_tuple_as_in_mindspore():
    net = nn.Dense(2, 3)
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    assert isinstance(opt.parameters, ParameterTuple) and isinstance(opt.moments, ParameterTuple)
    assert opt.trainable_params() == net.trainable_params()
    other = nn.Dense(2, 3)  # two Parameters named 'weight'
    with pytest.raises(ValueError, match="its name 'weight' already exists"):
        nn.Momentum(net.trainable_params() + other.trainable_params(), 0.1, 0.9)


# --- primitives defined in Python ------------------------------------------------------------


class _Arange(ops.PrimitiveWithInfer):
    @ops.prim_attr_register
    def __init__(self, start, limit=4):
        self.init_prim_io_names(inputs=["x"], outputs=["output"])

    def infer_shape(self, x_shape):
        return [self.limit - self.start]

    def infer_dtype(self, x_dtype):
        return x_dtype

    def infer_value(self, x):
        if x is None:
            return None
        return ops.add(x, Tensor(np.arange(self.start, self.limit, dtype=np.float32)))


class _Kernelled(ops.PrimitiveWithCheck):
    @ops.prim_attr_register
    def __init__(self):
        pass

    def check_dtype(self, x_dtype):
        if x_dtype != mstype.tensor_type(mstype.float32):
            raise TypeError(f"For '{self.name}', x must be float32, got {x_dtype}")


def test_prim_attr_register_names_the_primitive_and_records_its_arguments():
    prim = _Arange(1)
    assert prim.name == "_Arange" and prim.start == 1 and prim.limit == 4
    assert prim.init_attrs == {"start": 1, "limit": 4}
    assert prim.attrs["input_names"] == ["x"] and prim.attrs["limit"] == 4
    assert "PrimitiveWithInfer" not in dir(P)
    from mindjit.ops.primitive import PrimitiveWithCheck, PrimitiveWithInfer, prim_attr_register

    assert (PrimitiveWithInfer, PrimitiveWithCheck, prim_attr_register) == (
        ops.PrimitiveWithInfer,
        ops.PrimitiveWithCheck,
        ops.prim_attr_register,
    )


def test_an_inferred_value_is_the_result_for_constants_in_both_modes():
    prim = _Arange(1)

    def folded():
        return prim(Tensor(np.float32(10.0)))

    assert _same_in_both_modes(folded).asnumpy().tolist() == [11.0, 12.0, 13.0]


def test_a_python_primitive_without_a_value_needs_a_kernel_mindjit_lacks():
    with pytest.raises(TypeError, match="x must be float32"):
        _Kernelled()(Tensor(np.ones(2, np.int32)))  # its checks run first, as in MindSpore
    with pytest.raises(NotImplementedError, match="does not implement the primitive '_Kernelled'"):
        _Kernelled()(Tensor(np.ones(2, np.float32)))
    prim = _Arange(0)

    def computed(x):
        return prim(x + 1)

    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        with pytest.raises(
            NotImplementedError, match=r"test_zoo_round2.py:\d+.*primitive '_Arange'"
        ):
            run(computed, ms.GRAPH_MODE, Tensor(np.float32(1.0)))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
