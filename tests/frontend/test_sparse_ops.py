"""Issue 38: MindSpore 2.10's elementwise sparse ops (frontend/ops/sparse_unary.py,
coo_abs ... csr_tanh, one table) and the ops whose result size depends on the
indices (frontend/ops/sparse_patterns.py: coalesce, coo_add, csr_add,
sparse_segment_mean). Values are what MindSpore 2.10 printed on CPU, pasted as
constants. The elementwise ops run in PyNative and graph mode; the pattern ops in
PyNative mode and, on constant indices, in graph mode (a computed index is a
ValueError there); gradients of the values against finite differences."""

from __future__ import annotations

import numpy as np
import pytest
from grad_check import assert_grads_match_finite_differences
from modes import run

import mindjit as ms
from mindjit import COOTensor, CSRTensor, Tensor, ops

RNG = np.random.default_rng(3839)
NAN = float("nan")
IND = Tensor([[0, 1], [1, 2], [2, 0]], ms.int64)
PTR = Tensor([0, 1, 1, 3], ms.int32)
COL = Tensor([3, 0, 2], ms.int32)

#: MindSpore 2.10's coo_<op>(x).values (csr_<op> printed the same) for values
#: [0.25, -0.5, 0.75] ([1.25, 1.5, 1.75] for acosh), and the result's dtype
UNARY = {
    "abs": ([0.25, 0.5, 0.75], "Float32"),
    "acos": ([1.3181160688400269, 2.094395160675049, 0.722734272480011], "Float32"),
    "acosh": ([0.6931471824645996, 0.9624236226081848, 1.1588103771209717], "Float32"),
    "asin": ([0.252680242061615, -0.5235987901687622, 0.8480620980262756], "Float32"),
    "asinh": ([0.24746645987033844, -0.4812118113040924, 0.6931471824645996], "Float32"),
    "atan": ([0.244978666305542, -0.46364760398864746, 0.6435011029243469], "Float32"),
    "atanh": ([0.2554128170013428, -0.5493061542510986, 0.972955048084259], "Float32"),
    "ceil": ([1.0, -0.0, 1.0], "Float32"),
    "cos": ([0.9689124226570129, 0.8775825500488281, 0.7316888570785522], "Float32"),
    "cosh": ([1.0314130783081055, 1.1276259422302246, 1.2946833372116089], "Float32"),
    "exp": ([1.2840250730514526, 0.606530487537384, 2.1170003414154053], "Float32"),
    "expm1": ([0.2840254306793213, -0.39346933364868164, 1.1170001029968262], "Float32"),
    "floor": ([0.0, -1.0, 0.0], "Float32"),
    "inv": ([4.0, -2.0, 1.3333333730697632], "Float32"),
    "isfinite": ([True, True, True], "Bool"),
    "isinf": ([False, False, False], "Bool"),
    "isnan": ([False, False, False], "Bool"),
    "log": ([-1.3862943649291992, NAN, -0.28768208622932434], "Float32"),
    "log1p": ([0.2231435477733612, -0.6931471824645996, 0.5596157908439636], "Float32"),
    "neg": ([-0.25, 0.5, -0.75], "Float32"),
    "relu": ([0.25, 0.0, 0.75], "Float32"),
    "relu6": ([0.25, 0.0, 0.75], "Float32"),
    "round": ([0.0, -0.0, 1.0], "Float32"),
    "sigmoid": ([0.5621765851974487, 0.377540647983551, 0.679178774356842], "Float32"),
    "sin": ([0.24740396440029144, -0.4794255495071411, 0.681638777256012], "Float32"),
    "sinh": ([0.25261232256889343, -0.5210952758789062, 0.8223167061805725], "Float32"),
    "softsign": ([0.20000000298023224, -0.3333333432674408, 0.4285714328289032], "Float32"),
    "sqrt": ([0.5, NAN, 0.8660253882408142], "Float32"),
    "square": ([0.0625, 0.25, 0.5625], "Float32"),
    "tan": ([0.25534191727638245, -0.5463024973869324, 0.9315964579582214], "Float32"),
    "tanh": ([0.24491867423057556, -0.46211716532707214, 0.6351490020751953], "Float32"),
}


def test_unary_table(mode):
    names = sorted(UNARY)

    def fn(v, w):
        out = []
        for n in names:
            x = w if n == "acosh" else v
            out.append(getattr(ops, "coo_" + n)(COOTensor(IND, x, (3, 4))))
            out.append(getattr(ops, "csr_" + n)(CSRTensor(PTR, COL, x, (3, 4))))
        return tuple(out)

    v = Tensor(np.array([0.25, -0.5, 0.75], np.float32))
    w = Tensor(np.array([1.25, 1.5, 1.75], np.float32))
    got = run(fn, mode, v, w)
    for k, n in enumerate(names):
        want, dtype = UNARY[n]
        coo, csr = got[2 * k], got[2 * k + 1]
        assert isinstance(coo, COOTensor) and isinstance(csr, CSRTensor)
        for y in (coo, csr):
            np.testing.assert_allclose(
                y.values.asnumpy().astype(np.float64), want, rtol=2e-6, err_msg=n
            )
            assert str(y.values.dtype) == dtype, n
        np.testing.assert_array_equal(coo.indices.asnumpy(), IND.asnumpy())
        np.testing.assert_array_equal(csr.indptr.asnumpy(), PTR.asnumpy())
        assert coo.shape == csr.shape == (3, 4)


def test_unary_dtypes_and_errors(mode):
    ints = Tensor([1, -2, 4], ms.int32)
    inv, sqrt, relu, square = run(
        lambda i: (
            ops.coo_inv(COOTensor(IND, i, (3, 4))),
            ops.coo_sqrt(COOTensor(IND, ops.abs(i), (3, 4))),
            ops.coo_relu(COOTensor(IND, i, (3, 4))),
            ops.csr_square(CSRTensor(PTR, COL, i, (3, 4))),
        ),
        mode,
        ints,
    )
    # MindSpore 2.10's printed values
    np.testing.assert_array_equal(inv.values.asnumpy(), [1, 0, 0])
    assert str(inv.values.dtype) == "Int32"
    np.testing.assert_allclose(sqrt.values.asnumpy(), [1.0, 1.41421354, 2.0], rtol=1e-6)
    assert str(sqrt.values.dtype) == "Float32"
    np.testing.assert_array_equal(relu.values.asnumpy(), [1, 0, 4])
    np.testing.assert_array_equal(square.values.asnumpy(), [1, 4, 16])
    r6 = ops.coo_relu6(COOTensor(IND, Tensor([-0.5, 7.5, 2.5]), (3, 4)))
    np.testing.assert_allclose(r6.values.asnumpy(), [0.0, 6.0, 2.5])
    with pytest.raises(TypeError, match="Expects COOTensor for coo_abs"):
        ops.coo_abs(ints)
    with pytest.raises(TypeError, match="Expects CSRTensor for csr_abs"):
        ops.csr_abs(COOTensor(IND, ints, (3, 4)))


def test_coalesce():
    i64 = ms.int64
    y = ops.coalesce(
        Tensor([[0, 0, 1], [1, 1, 2]], i64), Tensor([1, 5, 4], ms.float32), Tensor([3, 3], i64)
    )
    # MindSpore 2.10's printed values
    np.testing.assert_array_equal(y[0].asnumpy(), [[0, 1], [1, 2]])
    np.testing.assert_allclose(y[1].asnumpy(), [6.0, 4.0])
    np.testing.assert_array_equal(y[2].asnumpy(), [3, 3])
    assert str(y[0].dtype) == "Int64"
    # unsorted input: sorted and merged (MindSpore's CPU kernel expects sorted input)
    u = ops.coalesce(
        Tensor([[2, 0, 0, 1, 0], [1, 1, 0, 2, 1]], i64),
        Tensor([1, 5, 4, 3, 2], ms.float32),
        Tensor([3, 3], i64),
    )
    np.testing.assert_array_equal(u[0].asnumpy(), [[0, 0, 1, 2], [0, 1, 2, 1]])
    np.testing.assert_allclose(u[1].asnumpy(), [4.0, 7.0, 3.0, 1.0])
    c = COOTensor(Tensor([[0, 1], [1, 2], [0, 1]], i64), Tensor([1.0, 2.0, 3.0]), (3, 3)).coalesce()
    np.testing.assert_array_equal(c.indices.asnumpy(), [[0, 1], [1, 2]])
    np.testing.assert_allclose(c.values.asnumpy(), [4.0, 2.0])
    with pytest.raises(TypeError, match="Tensor\\[Int64\\]"):
        ops.coalesce(
            Tensor([[0, 0, 1], [1, 1, 2]], ms.int32),
            Tensor([1, 5, 4], ms.float32),
            Tensor([3, 3], i64),
        )
    with pytest.raises(TypeError):
        ops.coalesce(Tensor([[0], [1]], i64), Tensor([1], ms.int32), Tensor([3, 3], i64))
    with pytest.raises(ValueError, match="exceed"):
        ops.coalesce(Tensor([[0], [3]], i64), Tensor([1.0]), Tensor([3, 3], i64))


def _pair():
    a = COOTensor(Tensor([[0, 1], [1, 2]], ms.int64), Tensor([1, 2], ms.int32), (3, 4))
    b = COOTensor(Tensor([[0, 0], [1, 1]], ms.int64), Tensor([3, 4], ms.int32), (3, 4))
    return a, b


def test_coo_add():
    a, b = _pair()
    out = ops.coo_add(a, b, Tensor(0, ms.int32))
    # MindSpore 2.10's printed values
    np.testing.assert_array_equal(out.indices.asnumpy(), [[0, 0], [0, 1], [1, 1], [1, 2]])
    np.testing.assert_array_equal(out.values.asnumpy(), [3, 1, 4, 2])
    assert str(out.dtype) == "Int32" and out.shape == (3, 4)
    assert ops.coo_add(a, b, Tensor(3, ms.int32)).values.shape == (4,)  # single entries stay
    neg = COOTensor(Tensor([[0, 1], [2, 2]], ms.int64), Tensor([-1, 5], ms.int32), (3, 4))
    np.testing.assert_array_equal(
        ops.coo_add(a, neg, Tensor(0, ms.int32)).values.asnumpy(), [0, 2, 5]
    )
    cut = a.add(neg, Tensor(2, ms.int32))
    np.testing.assert_array_equal(cut.indices.asnumpy(), [[1, 2], [2, 2]])
    np.testing.assert_array_equal(cut.values.asnumpy(), [2, 5])
    af = COOTensor(Tensor([[0, 1], [1, 2]], ms.int64), Tensor([1.0, -2.0]), (3, 4))
    bf = COOTensor(Tensor([[1, 2], [0, 0]], ms.int64), Tensor([0.5, -4.0]), (3, 4))
    merged = ops.coo_add(af, bf, Tensor(1.0))  # a merge of the lists as given
    np.testing.assert_array_equal(merged.indices.asnumpy(), [[0, 1], [1, 2], [0, 0]])
    np.testing.assert_allclose(merged.values.asnumpy(), [1.0, -1.5, -4.0])
    mixed = ops.coo_add(
        COOTensor(Tensor([[0, 1]], ms.int64), Tensor([1.0]), (3, 4)),
        COOTensor(Tensor([[0, 1]], ms.int64), Tensor([1], ms.int32), (3, 4)),
        Tensor(0, ms.int32),
    )
    assert str(mixed.dtype) == "Float32"
    np.testing.assert_allclose(mixed.values.asnumpy(), [2.0])
    with pytest.raises(TypeError, match="Int64"):
        i32 = COOTensor(Tensor([[0, 1]], ms.int32), Tensor([1.0]), (3, 4))
        ops.coo_add(i32, i32, Tensor(0.0))


def test_csr_add():
    a = CSRTensor(
        Tensor([0, 1, 2], ms.int32), Tensor([0, 1], ms.int32), Tensor([1, 2], ms.float32), (2, 6)
    )
    b = CSRTensor(
        Tensor([0, 1, 3], ms.int32),
        Tensor([3, 1, 4], ms.int32),
        Tensor([5, 2, 7], ms.float32),
        (2, 6),
    )
    out = ops.csr_add(a, b, Tensor(1, ms.float32), Tensor(2, ms.float32))
    # MindSpore 2.10's printed values
    np.testing.assert_array_equal(out.indptr.asnumpy(), [0, 2, 4])
    np.testing.assert_array_equal(out.indices.asnumpy(), [0, 3, 1, 4])
    np.testing.assert_allclose(out.values.asnumpy(), [1.0, 10.0, 6.0, 14.0])
    assert str(out.indptr.dtype) == "Int32"
    diff = a - b
    np.testing.assert_allclose(diff.values.asnumpy(), [1.0, -5.0, 0.0, -7.0])  # a zero is kept
    with pytest.raises(TypeError, match="must be type of CSRTensor"):
        ops.csr_add(a, COOTensor(IND, Tensor([1.0, 2.0, 3.0]), (3, 4)), Tensor(1.0), Tensor(1.0))
    with pytest.raises(TypeError, match="must be Tensor"):
        ops.csr_add(a, b, 1.0, Tensor(1.0))


def test_sparse_segment_mean(mode):
    x = Tensor([[0, 1, 2], [1, 2, 3], [3, 6, 7]], ms.float32)
    # segment ids are constants of the graph: the result's row count is known
    got = run(
        lambda x, i: ops.sparse_segment_mean(x, i, Tensor([1, 2, 2], ms.int32)),
        mode,
        x,
        Tensor([0, 1, 2], ms.int32),
    )
    # MindSpore 2.10's printed values
    np.testing.assert_allclose(got.asnumpy(), [[0, 0, 0], [0, 1, 2], [2, 4, 5]])
    y = Tensor([[0, 1], [1, 2], [3, 6]], ms.float32)
    got = ops.sparse_segment_mean(y, Tensor([2, 0, 1, 1], ms.int64), Tensor([0, 0, 3, 3], ms.int64))
    np.testing.assert_allclose(got.asnumpy(), [[1.5, 3.5], [0, 0], [0, 0], [1, 2]])
    got = ops.sparse_segment_mean(
        Tensor([1.0, 2, 3]), Tensor([2, 0, 1], ms.int32), Tensor([0, 1, 1], ms.int32)
    )
    np.testing.assert_allclose(got.asnumpy(), [3.0, 1.5])
    with pytest.raises(TypeError, match="Float16"):
        ops.sparse_segment_mean(
            Tensor([[0, 1]], ms.int32), Tensor([0], ms.int32), Tensor([0], ms.int32)
        )
    with pytest.raises(TypeError, match="must be same"):
        ops.sparse_segment_mean(Tensor([1.0, 2.0]), Tensor([0], ms.int32), Tensor([0], ms.int64))
    with pytest.raises(RuntimeError):
        ops.sparse_segment_mean(
            Tensor([1.0, 2, 3]), Tensor([2, 0, 1], ms.int32), Tensor([1, 0, 1], ms.int32)
        )


def test_patterns_in_graph_mode():
    def constant_indices(v):
        a = COOTensor(Tensor([[0, 1], [1, 2]], ms.int64), v, (3, 4))
        return ops.coalesce(
            Tensor([[0, 0, 1], [1, 1, 2]], ms.int64),
            ops.concat((v, v[:1])),
            Tensor([3, 3], ms.int64),
        )[1], a

    got = run(constant_indices, ms.GRAPH_MODE, Tensor([1.0, 5.0]))
    np.testing.assert_allclose(got[0].asnumpy(), [6.0, 1.0])
    with pytest.raises(ValueError, match="static shapes"):
        run(
            lambda i, v: ops.coalesce(i, v, Tensor([3, 3], ms.int64)),
            ms.GRAPH_MODE,
            Tensor([[0, 0], [1, 1]], ms.int64),
            Tensor([1.0, 2.0]),
        )
    a, b = _pair()
    with pytest.raises(ValueError, match="static shapes"):
        run(lambda a, b: ops.coo_add(a, b, Tensor(0, ms.int32)), ms.GRAPH_MODE, a, b)


def test_pattern_gradients():
    rng = RNG
    csr_a = (Tensor([0, 1, 2], ms.int32), Tensor([0, 1], ms.int32))
    csr_b = (Tensor([0, 1, 3], ms.int32), Tensor([3, 1, 4], ms.int32))

    def add(u, w):
        a = CSRTensor(*csr_a, u, (2, 6))
        b = CSRTensor(*csr_b, w, (2, 6))
        return ops.csr_add(a, b, Tensor(np.float64(1.5)), Tensor(np.float64(-2.0))).values

    def segment_mean(x):
        return ops.sparse_segment_mean(x, Tensor([0, 2, 1], ms.int32), Tensor([0, 0, 2], ms.int32))

    def coalesced(v):
        return ops.coalesce(Tensor([[0, 0, 1], [1, 1, 2]], ms.int64), v, Tensor([3, 3], ms.int64))[
            1
        ]

    assert_grads_match_finite_differences(
        add, [rng.standard_normal(2), rng.standard_normal(3)], rng
    )
    assert_grads_match_finite_differences(segment_mean, [rng.standard_normal((3, 2))], rng)
    assert_grads_match_finite_differences(coalesced, [rng.standard_normal(3)], rng)
