"""Issue 38: MindSpore 2.10's sparse tensors (frontend/ops/sparse_tensor.py, sparse_csr.py):
COOTensor, CSRTensor, RowTensor, SparseTensor, their constructor checks,
properties and methods, and the static-shape ops on them (sparse_ops.py):
make_*/getters, coo2csr, csr2coo, csr_to_coo, csr_mul/div/mv/reduce_sum/gather,
csr_softmax, coo_concat. A sparse tensor is a graph argument and result here (as
in MindSpore), so every case runs in PyNative and graph mode. Values are what
MindSpore 2.10 printed on CPU, pasted as constants; csr_mul, csr_div, csr_mv,
csr_reduce_sum, csr_gather, coo2csr and csr2coo are AKG kernels that the
reference install cannot build (no `decorator` module for AKG), so theirs are
MindSpore's docstring examples or numpy's dense arithmetic."""

from __future__ import annotations

import numpy as np
import pytest
from grad_check import assert_grads_match_finite_differences
from modes import run

import mindjit as ms
from mindjit import COOTensor, CSRTensor, RowTensor, SparseTensor, Tensor, ops

RNG = np.random.default_rng(3838)
IND = Tensor([[0, 1], [1, 2], [2, 0]], ms.int64)
VAL = Tensor([-1.5, 2.0, 0.5], ms.float32)
PTR = Tensor([0, 1, 1, 3], ms.int32)
COL = Tensor([3, 0, 2], ms.int32)
COO_DENSE = [[0, -1.5, 0, 0], [0, 0, 2, 0], [0.5, 0, 0, 0]]  # MindSpore's to_dense
CSR_DENSE = [[0, 0, 0, -1.5], [0, 0, 0, 0], [2, 0, 0.5, 0]]


def _coo():
    return COOTensor(IND, VAL, (3, 4))


def _csr():
    return CSRTensor(PTR, COL, VAL, (3, 4))


def _eq(got, want, dtype=None):
    np.testing.assert_allclose(got.asnumpy(), np.asarray(want), rtol=1e-6, atol=1e-7)
    assert tuple(got.shape) == np.asarray(want).shape
    if dtype is not None:
        assert str(got.dtype) == dtype


def test_coo_properties_and_methods(mode):
    x = _coo()
    assert (x.shape, str(x.dtype), x.size, x.itemsize, x.ndim) == ((3, 4), "Float32", 3, 4, 2)
    out = run(lambda c: (c.to_dense(), c.abs(), -c, c.astype(ms.float64), c.to_tuple()), mode, x)
    dense, ab, neg, f64, tup = out
    _eq(dense, COO_DENSE, "Float32")
    assert isinstance(ab, COOTensor) and ab.shape == (3, 4)
    _eq(ab.values, [1.5, 2.0, 0.5])
    _eq(ab.indices, IND.asnumpy(), "Int64")
    _eq(neg.values, [1.5, -2.0, -0.5])
    assert str(f64.dtype) == "Float64"
    assert tup[2] == (3, 4)
    _eq(tup[0], IND.asnumpy())


def test_coo_operators(mode):
    d = Tensor(np.arange(12, dtype=np.float32).reshape(3, 4))
    one = Tensor(np.ones((3, 4), np.float32))
    add, sub, mul, div = run(
        lambda c, o, m: (c + o, c - o, c * m, c / (m + 1)), mode, _coo(), one, d
    )
    both = _coo() + _coo()  # its size depends on the indices: PyNative (sparse_patterns.py)
    # MindSpore 2.10's printed values
    _eq(add, [[1, -0.5, 1, 1], [1, 1, 3, 1], [1.5, 1, 1, 1]])
    _eq(sub, [[-1, -2.5, -1, -1], [-1, -1, 1, -1], [-0.5, -1, -1, -1]])
    _eq(mul.values, [-1.5, 12.0, 4.0])
    _eq(div.values, [-0.75, 0.285714298, 0.0555555560])
    _eq(both.values, [-3.0, 4.0, 1.0])
    _eq(both.indices, IND.asnumpy())


def test_coo_to_csr(mode):
    x = COOTensor(Tensor([[2, 1], [0, 3], [2, 0]], ms.int32), Tensor([1.0, 2.0, 3.0]), (3, 4))
    y = run(lambda c: c.to_csr(), mode, x)
    # sorted by row, stable in a row (MindSpore's coo2csr is an AKG kernel here)
    _eq(y.indptr, [0, 1, 1, 3], "Int32")
    _eq(y.indices, [3, 1, 0])
    _eq(y.values, [2.0, 1.0, 3.0])
    with pytest.raises(TypeError, match="only support Int32"):
        _coo().to_csr()


def test_csr_properties_and_methods(mode):
    x = _csr()
    assert (x.shape, str(x.dtype), x.size, x.itemsize, x.ndim) == ((3, 4), "Float32", 3, 4, 2)
    v = Tensor(np.arange(4, dtype=np.float32).reshape(4, 1))
    dense, coo, ab, neg, f16, mv, s = run(
        lambda c, v: (
            c.to_dense(),
            c.to_coo(),
            c.abs(),
            -c,
            c.astype(ms.float16),
            c.mv(v),
            c.sum(1),
        ),
        mode,
        x,
        v,
    )
    twice = x + x  # its size depends on the indices: PyNative (sparse_patterns.py)
    _eq(dense, CSR_DENSE, "Float32")
    _eq(coo.indices, [[0, 3], [2, 0], [2, 2]], "Int32")  # MindSpore's csr_to_coo
    _eq(ab.values, [1.5, 2.0, 0.5])
    _eq(neg.values, [1.5, -2.0, -0.5])
    assert str(f16.dtype) == "Float16"
    _eq(mv, np.asarray(CSR_DENSE) @ np.arange(4).reshape(4, 1))
    _eq(s, np.asarray(CSR_DENSE).sum(1, keepdims=True))
    _eq(twice.values, [-3.0, 4.0, 1.0])  # MindSpore 2.10's csr + csr
    _eq(twice.indptr, [0, 1, 1, 3])


def test_csr_docstring_examples(mode):
    # MindSpore's CSRTensor.mv / sum / mm / to_coo docstring examples
    x = CSRTensor(Tensor([0, 1, 2], ms.int32), Tensor([0, 1], ms.int32), Tensor([2.0, 1.0]), (2, 4))
    v = Tensor([[1.0], [1.0], [1.0], [1.0]])
    m = Tensor(np.ones((4, 2), np.float32))
    mv, s, mm, coo = run(lambda c, v, m: (c.mv(v), c.sum(1), c.mm(m), c.to_coo()), mode, x, v, m)
    _eq(mv, [[2.0], [1.0]])
    _eq(s, [[2.0], [1.0]])
    _eq(mm, [[2.0, 2.0], [1.0, 1.0]])
    _eq(coo.indices, [[0, 0], [1, 1]])


def test_makers_and_getters(mode):
    def fn(i, v, p, c):
        a = ops.make_coo_tensor(i, v, (3, 4))
        b = ops.make_csr_tensor(p, c, v, (3, 4))
        return (
            ops.coo_tensor_get_indices(a),
            ops.coo_tensor_get_values(a),
            ops.coo_tensor_get_dense_shape(a),
            ops.csr_tensor_get_indptr(b),
            ops.csr_tensor_get_indices(b),
            ops.csr_tensor_get_values(b),
            ops.csr_tensor_get_dense_shape(b),
            a.to_dense(),
        )

    got = run(fn, mode, IND, VAL, PTR, COL)
    _eq(got[0], IND.asnumpy())
    _eq(got[1], VAL.asnumpy())
    assert got[2] == (3, 4) and got[6] == (3, 4)  # MindSpore prints the tuple (3, 4)
    _eq(got[3], [0, 1, 1, 3])
    _eq(got[4], [3, 0, 2])
    _eq(got[5], VAL.asnumpy())
    _eq(got[7], COO_DENSE)
    with pytest.raises(TypeError, match="should be COOTensor"):
        ops.coo_tensor_get_values(_csr())


def test_row_and_sparse_tensor(mode):
    rt = ops.make_row_tensor(Tensor([0], ms.int32), Tensor([[1.0, 2.0]]), (3, 2))
    got = run(lambda r: (ops.row_tensor_get_indices(r), ops.row_tensor_get_values(r), r), mode, rt)
    _eq(got[0], [0])
    _eq(got[1], [[1.0, 2.0]])
    assert isinstance(got[2], RowTensor) and got[2].dense_shape == (3, 2)
    assert ops.row_tensor_get_dense_shape(rt) == (3, 2)
    st = SparseTensor(Tensor([[0, 1]], ms.int32), Tensor([1.0]), (2, 2))
    assert st.shape == (2, 2) and st.values.shape == (1,)
    assert isinstance(ops.make_sparse_tensor(IND, VAL, (3, 4)), COOTensor)


def test_conversions(mode):
    ptr, nnz = run(
        lambda p, r: (ops.csr2coo(p, 3), ops.coo2csr(r, 3)), mode, PTR, Tensor([0, 2, 2], ms.int32)
    )
    _eq(ptr, [0, 2, 2], "Int32")  # row of each element
    _eq(nnz, [0, 1, 1, 3], "Int32")  # rows < i
    coo = run(
        ops.csr_to_coo,
        mode,
        CSRTensor(Tensor([0, 1, 1, 3], ms.int64), Tensor([3, 0, 2], ms.int64), VAL, (3, 4)),
    )
    _eq(coo.indices, [[0, 3], [2, 0], [2, 2]], "Int32")  # MindSpore 2.10: Int32 for int64 input
    with pytest.raises(TypeError, match="only support Int32"):
        ops.csr2coo(Tensor([0, 1], ms.int64), 1)
    with pytest.raises(TypeError, match="only support Int32"):
        ops.coo2csr(Tensor([0, 1], ms.int64), 3)
    with pytest.raises(TypeError, match="must be a CSRTensor"):
        ops.csr_to_coo(_coo())


def test_csr_dense_ops(mode):
    d = np.arange(12, dtype=np.float32).reshape(3, 4)
    x, want = _csr(), np.asarray(CSR_DENSE)
    mul, div, col, scalar, gathered = run(
        lambda c, d, k: (
            ops.csr_mul(c, d),
            ops.csr_div(c, d + 1),
            ops.csr_mul(c, k),
            ops.csr_div(c, 2.0),
            ops.csr_gather(c.indptr, c.indices, d, (3, 4)),
        ),
        mode,
        x,
        Tensor(d),
        Tensor(np.arange(3, dtype=np.float32).reshape(3, 1)),
    )
    _eq(mul.to_dense(), want * d)
    _eq(div.to_dense(), want / (d + 1))
    _eq(col.to_dense(), want * np.arange(3).reshape(3, 1))
    _eq(scalar, [-0.75, 1.0, 0.25])  # MindSpore 2.10: a scalar gives the values, dense
    _eq(gathered, [3.0, 8.0, 10.0])
    with pytest.raises(ValueError, match="only support 2-D inputs"):
        ops.csr_mv(x, Tensor(np.ones(4, np.float32)))
    with pytest.raises(ValueError, match="should be 1 or 1-dim"):
        ops.csr_reduce_sum(x, 0)


def test_csr_softmax(mode):
    x = CSRTensor(
        Tensor([0, 4, 6], ms.int32),
        Tensor([0, 2, 3, 4, 3, 4], ms.int32),
        Tensor([1, 2, 3, 4, 1, 2], ms.float32),
        (2, 6),
    )
    y = run(lambda c: ops.csr_softmax(c, ms.float32), mode, x)
    # MindSpore 2.10's printed values
    want = [
        3.20586003e-02,
        8.71443152e-02,
        2.36882806e-01,
        6.43914223e-01,
        2.68941432e-01,
        7.31058598e-01,
    ]
    _eq(y.values, want)
    _eq(y.indptr, [0, 4, 6])
    with pytest.raises(TypeError, match="must be type of CSRTensor"):
        ops.csr_softmax(_coo(), ms.float32)


def test_coo_concat(mode):
    a = COOTensor(Tensor([[0, 1], [1, 2]], ms.int64), Tensor([1, 2], ms.int32), (3, 4))
    b = COOTensor(Tensor([[0, 0], [1, 1]], ms.int64), Tensor([3, 4], ms.int32), (3, 4))
    c1, c0, c3 = run(
        lambda a, b: (
            ops.coo_concat((a, b), 1),
            ops.coo_concat((a, b), 0),
            ops.coo_concat((a, b, a), 0),
        ),
        mode,
        a,
        b,
    )
    # MindSpore 2.10's printed values
    assert c1.shape == (3, 8) and c0.shape == (6, 4) and c3.shape == (9, 4)
    _eq(c1.indices, [[0, 1], [0, 4], [1, 2], [1, 5]], "Int64")
    _eq(c1.values, [1, 3, 2, 4], "Int32")
    _eq(c0.indices, [[0, 1], [1, 2], [3, 0], [4, 1]])
    _eq(c3.indices, [[0, 1], [1, 2], [3, 0], [4, 1], [6, 1], [7, 2]])
    _eq(c3.values, [1, 2, 3, 4, 1, 2])
    u = COOTensor(Tensor([[1, 1], [0, 2]], ms.int64), Tensor([1.0, 2.0]), (3, 4))
    w = COOTensor(Tensor([[2, 1], [0, 0]], ms.int64), Tensor([3.0, 4.0]), (3, 2))
    last = ops.coo_concat([u, w], -1)
    assert last.shape == (3, 6)
    _eq(last.indices, [[0, 2], [0, 4], [1, 1], [2, 5]])
    _eq(last.values, [2.0, 4.0, 1.0, 3.0])
    with pytest.raises(ValueError, match="input number < 2"):
        ops.coo_concat((a,), 0)
    with pytest.raises(TypeError, match="Int64"):
        ops.coo_concat([COOTensor(Tensor([[1, 1]], ms.int32), Tensor([1.0]), (3, 4))] * 2, 0)


def test_constructor_errors():
    # MindSpore 2.10's exception types and messages
    with pytest.raises(TypeError, match="must be one of \\[int16, int32, int64\\]"):
        COOTensor(Tensor([[0, 1]], ms.float32), Tensor([1.0]), (2, 2))
    with pytest.raises(ValueError, match="length of 'shape' must be 2"):
        COOTensor(IND, VAL, (3, 4, 5))
    with pytest.raises(TypeError, match="'shape' must be tuple"):
        COOTensor(IND, VAL, [3, 4])
    with pytest.raises(TypeError, match="'indices' must be Tensor"):
        COOTensor([[0, 1]], VAL, (3, 4))
    with pytest.raises(ValueError, match="must be euqal to"):
        COOTensor(IND, Tensor([1.0, 2.0]), (3, 4))
    with pytest.raises(ValueError, match="length \\(1 \\+ shape\\[0\\]\\)"):
        CSRTensor(Tensor([0, 1, 3], ms.int32), COL, VAL, (3, 4))
    with pytest.raises(TypeError, match="indptr must have int16 or int32 or int64"):
        CSRTensor(Tensor([0, 1, 1, 3], ms.float32), COL, VAL, (3, 4))
    with pytest.raises(ValueError, match="should have the same shape"):
        _coo() + Tensor(np.ones((2, 2), np.float32))
    copy = COOTensor(coo_tensor=_coo())
    assert copy.shape == (3, 4)
    with pytest.raises(TypeError, match="should all be `None`"):
        COOTensor(IND, coo_tensor=_coo())


@pytest.mark.parametrize(
    ("cls", "arg", "make", "fields"),
    [
        (COOTensor, "coo_tensor", _coo, "`indices`, `values`, `shapes`"),
        (CSRTensor, "csr_tensor", _csr, "`indptr`, `indices`, `values`, `shapes`"),
        (
            RowTensor,
            "row_tensor",
            lambda: RowTensor(
                Tensor([0, 2], ms.int32), Tensor(np.ones((2, 2), np.float32)), (3, 2)
            ),
            "`indices`, `values`, `shapes`",
        ),
    ],
)
def test_a_copy_takes_the_same_kind_and_nothing_else(cls, arg, make, fields):
    """`COOTensor(coo_tensor=...)` and its kin (MindSpore 2.10's messages)."""
    source = make()
    copy = cls(**{arg: source})
    assert copy.ndim == source.ndim
    _eq(copy.indices, source.indices.asnumpy())
    _eq(copy.values, source.values.asnumpy())
    with pytest.raises(TypeError, match=f"Expect input `{arg}` to be a {cls.__name__}, but got"):
        cls(**{arg: Tensor([1.0])})
    with pytest.raises(TypeError, match=f"If input `{arg}` is provided, {fields} should all be"):
        cls(shape=(3, 4), **{arg: source})


def test_gradients():
    x = RNG.standard_normal(3)
    d = RNG.standard_normal((4, 2))

    def mv(v, m):
        return ops.csr_mv(CSRTensor(PTR, COL, v, (3, 4)), m)

    def dense(v):
        return COOTensor(IND, v, (3, 4)).to_dense() * 2

    def softmax(v):
        return ops.csr_softmax(CSRTensor(PTR, COL, v, (3, 4)), ms.float64).values

    assert_grads_match_finite_differences(mv, [x, d], RNG)
    assert_grads_match_finite_differences(dense, [x], RNG)
    assert_grads_match_finite_differences(softmax, [x], RNG)


def test_sparse_cells(mode):
    ind = Tensor([[0, 1], [1, 2]], ms.int32)
    val = Tensor([1.0, 2.0])
    d = Tensor(np.arange(8, dtype=np.float32).reshape(4, 2))
    dt = Tensor(np.arange(8, dtype=np.float32).reshape(2, 4))
    to_dense = ms.nn.SparseToDense()
    plain = ms.nn.SparseTensorDenseMatmul()
    adj_st = ms.nn.SparseTensorDenseMatmul(adjoint_st=True)
    adj_dt = ms.nn.SparseTensorDenseMatmul(adjoint_dt=True)
    got = run(
        lambda i, v, d, dt: (
            to_dense(COOTensor(i, v, (3, 4))),
            plain(i, v, (3, 4), d),
            adj_st(i, v, (4, 3), d),
            adj_dt(i, v, (3, 4), dt),
        ),
        mode,
        ind,
        val,
        d,
        dt,
    )
    # MindSpore 2.10's printed values
    _eq(got[0], [[0, 1, 0, 0], [0, 0, 2, 0], [0, 0, 0, 0]])
    _eq(got[1], [[2, 3], [8, 10], [0, 0]])
    _eq(got[2], [[0, 0], [0, 1], [4, 6]])
    _eq(got[3], [[1, 5], [4, 12], [0, 0]])
    _eq(plain(ind, val, Tensor([3, 4], ms.int32), d), [[2, 3], [8, 10], [0, 0]])
    with pytest.raises(TypeError):
        ms.nn.SparseTensorDenseMatmul(adjoint_st=1)
    with pytest.raises(TypeError):
        plain(ind, val, (3, 4), Tensor(np.ones((4, 2), np.float64)))


def test_sparse_dense_matmul_gradient():
    ind = Tensor([[0, 1], [1, 2], [2, 1]], ms.int64)
    cell = ms.nn.SparseTensorDenseMatmul()
    assert_grads_match_finite_differences(
        lambda v, d: cell(ind, v, (3, 4), d),
        [RNG.standard_normal(3), RNG.standard_normal((4, 2))],
        RNG,
    )


def test_graph_arguments_follow_values_and_shape():
    """A sparse tensor is a graph argument by its fields (new values, new indices: the
    same graph) and specializes it by its dense shape, as a Tensor by its shape."""

    @ms.jit
    def double(x):
        return x.to_dense() * 2

    first = double(COOTensor(IND, Tensor([1.0, 2.0, 3.0]), (3, 4)))
    _eq(first, [[0, 2, 0, 0], [0, 0, 4, 0], [6, 0, 0, 0]])
    moved = double(
        COOTensor(Tensor([[2, 2], [0, 0], [1, 1]], ms.int64), Tensor([4.0, 5.0, 6.0]), (3, 5))
    )
    _eq(moved, [[10, 0, 0, 0, 0], [0, 12, 0, 0, 0], [0, 0, 8, 0, 0]])

    class Net(ms.nn.Cell):
        def construct(self, x, d):
            return ops.csr_mv(x, d) + 1

    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        out = Net()(
            CSRTensor(PTR, COL, Tensor([1.0, 2.0, 3.0]), (3, 4)),
            Tensor(np.ones((4, 1), np.float32)),
        )
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    _eq(out, [[2.0], [1.0], [6.0]])


def test_gradient_with_respect_to_a_sparse_argument():
    """MindSpore 2.10 in GRAPH_MODE printed a COOTensor: zero (int) indices and the
    values' gradient (its PyNative mode gives the values' gradient alone)."""

    def g(c, d):
        return (c.to_dense() * d).sum()

    d = Tensor(np.arange(12, dtype=np.float32).reshape(3, 4))
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        got = ms.jit(ms.grad(g, 0))(COOTensor(IND, Tensor([1.0, 2.0, 3.0]), (3, 4)), d)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert isinstance(got, COOTensor) and got.shape == (3, 4)
    _eq(got.indices, np.zeros((3, 2)), "Int64")
    _eq(got.values, [1.0, 6.0, 8.0])
