"""Tensor and Parameter: construction, dtype rules, text, operators, indexing."""

from __future__ import annotations

import numpy as np
import pytest

import mindjit as ms
from mindjit import Parameter, Tensor
from mindjit.frontend import context as C


@pytest.fixture(autouse=True)
def _pynative():
    C.reset_context()
    yield
    C.reset_context()


# --- construction and dtype inference ------------------------------------------------------


@pytest.mark.parametrize(
    "data, dtype",
    [
        ([0], ms.int64),
        ([1.0], ms.float32),
        ([1, 2.5], ms.float32),
        (True, ms.bool_),
        ([True, False], ms.bool_),
        (3, ms.int64),
        (3.5, ms.float32),
        (np.array([1.0]), ms.float64),
        (np.array([1], np.int32), ms.int32),
        (np.float16(2), ms.float16),
        ([np.array([1.0, 2.0])], ms.float64),
        ([], ms.float32),
    ],
)
def test_default_dtypes(data, dtype):
    assert Tensor(data).dtype == dtype


def test_explicit_dtype_and_shape():
    t = Tensor(2, dtype=ms.int32)
    assert t.dtype == ms.int32 and t.shape == () and t.ndim == 0 and t.size == 1
    t = Tensor(np.random.randn(5, 3), ms.float32)
    assert t.dtype == ms.float32 and t.shape == (5, 3) and t.size == 15
    assert Tensor([1.7, -1.2], ms.int32).asnumpy().tolist() == [1, -1]
    assert Tensor(shape=(2, 2), dtype=ms.int32).asnumpy().tolist() == [[0, 0], [0, 0]]
    assert ms.tensor([1, 2], ms.float16).dtype == ms.float16
    assert Tensor([1], "float64").dtype == ms.float64
    assert Tensor([1], np.float32).dtype == ms.float32


def test_copy_semantics():
    arr = np.array([1.0, 2.0], np.float32)
    t = Tensor(arr)
    arr[0] = 9
    assert t.asnumpy()[0] == 1.0  # the constructor copies
    u = Tensor(t)
    assert u.asnumpy() is not t.asnumpy() and u.dtype == ms.float32
    w = Tensor._wrap(arr)
    assert w.asnumpy() is arr  # _wrap does not


def test_bad_input():
    with pytest.raises(TypeError):
        Tensor({"a": 1})
    with pytest.raises(TypeError):
        Tensor(["a", "b"])
    with pytest.raises(TypeError):
        Tensor(np.array([1], np.complex64))
    with pytest.raises(ValueError):
        Tensor()


def test_dtype_module_and_aliases():
    from mindjit import dtype as mstype

    assert mstype.float32 is ms.float32
    assert ms.mstype.int64 is ms.int64
    assert repr(ms.float32) == "Float32" and str(ms.bool_) == "Bool"
    assert ms.dtype.to_dtype("float16") is ms.float16


# --- Python protocols -------------------------------------------------------------------------


def test_str_and_repr():
    assert str(Tensor([1, 2, 3])) == "[1 2 3]"
    assert repr(Tensor([1, 2, 3])) == "Tensor(shape=[3], dtype=Int64, value= [1, 2, 3])"
    assert repr(Tensor(5)) == "Tensor(shape=[], dtype=Int64, value= 5)"
    assert repr(Tensor([[1, 2], [3, 4]], ms.int32)) == (
        "Tensor(shape=[2, 2], dtype=Int32, value=\n[[1, 2],\n [3, 4]])"
    )
    assert repr(Tensor([1.5, -2.0])) == (
        "Tensor(shape=[2], dtype=Float32, value= [ 1.50000000e+00, -2.00000000e+00])"
    )
    assert str(Tensor(np.full((2, 3), 10, np.float16))) == "[[10. 10. 10.]\n [10. 10. 10.]]"


def test_scalar_conversions():
    t = Tensor([3.5])
    assert float(t) == 3.5 and int(t) == 3 and t.item() == 3.5 and bool(t)
    assert not bool(Tensor(0))
    assert [10, 20, 30][Tensor(1)] == 20
    assert f"{Tensor(2.5):.2f}" == "2.50"
    with pytest.raises(ValueError):
        bool(Tensor([1, 2]))
    with pytest.raises(ValueError):
        Tensor([1, 2]).item()


def test_len_iter_hash():
    t = Tensor([[1, 2], [3, 4]])
    assert len(t) == 2
    assert [r.asnumpy().tolist() for r in t] == [[1, 2], [3, 4]]
    with pytest.raises(TypeError):
        len(Tensor(1))
    assert hash(t) == id(t)
    assert {t: 1}[t] == 1


def test_numpy_interop():
    t = Tensor([1.0, 2.0])
    assert np.asarray(t).dtype == np.float32
    np.testing.assert_array_equal(np.array(t, dtype=np.float64), [1.0, 2.0])
    # numpy defers to the Tensor's reflected operators
    out = np.array([1.0, 1.0], np.float32) + t
    assert isinstance(out, Tensor) and out.asnumpy().tolist() == [2.0, 3.0]
    assert isinstance(np.float32(2) * t, Tensor)


# --- operators and promotion --------------------------------------------------------------------


def _np(t):
    return t.asnumpy()


def test_arithmetic_matches_numpy():
    a = np.array([[1.5, -2.0], [3.0, 4.0]], np.float32)
    b = np.array([0.5, 2.0], np.float32)
    x, y = Tensor(a), Tensor(b)
    np.testing.assert_allclose(_np(x + y), a + b)
    np.testing.assert_allclose(_np(x - y), a - b)
    np.testing.assert_allclose(_np(x * y), a * b)
    np.testing.assert_allclose(_np(x / y), a / b)
    np.testing.assert_allclose(_np(x**2), a**2)
    np.testing.assert_allclose(_np(x @ x), a @ a)
    np.testing.assert_allclose(_np(-x), -a)
    np.testing.assert_allclose(_np(abs(x)), np.abs(a))
    np.testing.assert_allclose(_np(+x), a)
    np.testing.assert_allclose(_np(x // y), a // b)
    np.testing.assert_allclose(_np(x % y), a % b)


def test_reflected_operators():
    x = Tensor([1.0, 2.0, 4.0])
    assert _np(1 + x).tolist() == [2.0, 3.0, 5.0]
    assert _np(1 - x).tolist() == [0.0, -1.0, -3.0]
    assert _np(2 * x).tolist() == [2.0, 4.0, 8.0]
    assert _np(4 / x).tolist() == [4.0, 2.0, 1.0]
    assert _np(2**x).tolist() == [2.0, 4.0, 16.0]
    assert _np(7 // x).tolist() == [7.0, 3.0, 1.0]
    assert _np(7 % x).tolist() == [0.0, 1.0, 3.0]
    assert _np([1.0, 1.0, 1.0] @ x).tolist() == 7.0


@pytest.mark.parametrize(
    "left, right, dtype",
    [
        (Tensor([1]), 2, ms.int64),
        (Tensor([1], ms.int32), 2, ms.int32),
        (Tensor([1], ms.int32), 2.5, ms.float32),
        (Tensor([1], ms.float16), 2.5, ms.float16),
        (Tensor([1], ms.float64), 2, ms.float64),
        (Tensor([True]), 2, ms.int64),
        (Tensor([True]), 2.0, ms.float32),
        (Tensor([1], ms.int8), True, ms.int8),
        (Tensor([1], ms.int32), Tensor([1], ms.int64), ms.int64),
        (Tensor([1], ms.int64), Tensor([1], ms.float16), ms.float16),
        (Tensor([1], ms.float16), Tensor([1], ms.float32), ms.float32),
        (Tensor([1], ms.float32), Tensor([1], ms.float64), ms.float64),
        (Tensor([True]), Tensor([1], ms.int16), ms.int16),
    ],
)
def test_promotion(left, right, dtype):
    assert (left + right).dtype == dtype
    assert (right + left).dtype == dtype
    assert (left * right).dtype == dtype


def test_integer_division_is_true_division():
    out = Tensor([3, -3]) / 2
    assert out.dtype == ms.float32 and _np(out).tolist() == [1.5, -1.5]
    assert (Tensor([7, -7]) // 2).asnumpy().tolist() == [3, -4]
    assert (Tensor([7, -7]) % 3).asnumpy().tolist() == [1, 2]


def test_comparisons():
    x = Tensor([1, 2, 3])
    assert _np(x < 2).tolist() == [True, False, False]
    assert _np(x <= 2).tolist() == [True, True, False]
    assert _np(x > 2).tolist() == [False, False, True]
    assert _np(x >= 2).tolist() == [False, True, True]
    assert _np(x == 2).tolist() == [False, True, False]
    assert _np(x != 2).tolist() == [True, False, True]
    assert (x < 2.5).dtype == ms.bool_
    assert _np(2 < x).tolist() == [False, False, True]
    assert (x == None) is False  # noqa: E711
    assert (x != "text") is True
    assert _np(x == [1, 0, 3]).tolist() == [True, False, True]


def test_logical_operators_on_bools():
    a, b = Tensor([True, True, False]), Tensor([True, False, False])
    assert _np(a & b).tolist() == [True, False, False]
    assert _np(a | b).tolist() == [True, True, False]
    assert _np(a ^ b).tolist() == [False, True, False]
    assert _np(~a).tolist() == [False, False, True]
    assert _np(True & b).tolist() == [True, False, False]
    with pytest.raises(TypeError, match="bool"):
        Tensor([1]) & Tensor([1])
    with pytest.raises(TypeError, match="bool"):
        ~Tensor([1])


def test_bad_operands():
    with pytest.raises(TypeError):
        Tensor([1]) + "a"
    with pytest.raises(ValueError, match="add"):
        Tensor([1, 2]) + Tensor([1, 2, 3])
    with pytest.raises(TypeError, match="Bool"):
        -Tensor([True])


# --- indexing ---------------------------------------------------------------------------------


X = np.arange(24, dtype=np.int32).reshape(2, 3, 4)


@pytest.mark.parametrize(
    "index",
    [
        0,
        -1,
        (1, 2),
        (1, 2, 3),
        (-1, -2, -3),
        slice(None),
        slice(1, None),
        (slice(None), slice(0, 3, 2)),
        (slice(None), slice(-2, None), slice(None, None, 3)),
        (Ellipsis, 1),
        (0, Ellipsis),
        (None, 0),
        (0, None, slice(1, 3)),
        (Ellipsis, None),
        (slice(5, 10),),
        (slice(2, 1),),
        (slice(-10, 10), 1),
    ],
)
def test_getitem_matches_numpy(index):
    out = Tensor(X)[index]
    ref = X[index]
    assert out.shape == ref.shape
    np.testing.assert_array_equal(out.asnumpy(), ref)


def test_getitem_with_tensor_and_numpy_ints():
    assert Tensor(X)[Tensor(1), np.int64(2)].asnumpy().tolist() == X[1, 2].tolist()


def test_getitem_errors():
    t = Tensor(X)
    with pytest.raises(IndexError):
        t[2]
    with pytest.raises(IndexError):
        t[0, 0, 0, 0]
    with pytest.raises(IndexError):
        t[..., ...]
    with pytest.raises(TypeError):
        t[1.5]
    with pytest.raises(TypeError):
        t[[0.5, 1]]
    # negative steps and list indices read since issue 24 (tests/frontend/test_tensor_items.py)
    np.testing.assert_array_equal(t[::-1].asnumpy(), X[::-1])
    np.testing.assert_array_equal(t[[0, 1]].asnumpy(), X[[0, 1]])


# --- methods -----------------------------------------------------------------------------------


def test_methods_match_numpy():
    a = np.arange(6, dtype=np.float32).reshape(2, 3) - 2
    x = Tensor(a)
    np.testing.assert_allclose(_np(x.sum()), a.sum())
    np.testing.assert_allclose(_np(x.sum(axis=1, keepdims=True)), a.sum(1, keepdims=True))
    np.testing.assert_allclose(_np(x.sum(0, True)), a.sum(0, keepdims=True))
    np.testing.assert_allclose(_np(x.mean(1)), a.mean(1))
    np.testing.assert_allclose(_np(x.mean((0, 1), keep_dims=True)), a.mean(keepdims=True))
    np.testing.assert_allclose(_np(x.max()), a.max())
    np.testing.assert_allclose(_np(x.max(axis=0)), a.max(0))
    np.testing.assert_allclose(_np(x.min(axis=1, keepdims=True)), a.min(1, keepdims=True))
    assert x.reshape(3, 2).shape == (3, 2)
    assert x.reshape((-1,)).shape == (6,)
    assert x.reshape([1, -1]).shape == (1, 6)
    np.testing.assert_array_equal(_np(x.T), a.T)
    np.testing.assert_array_equal(_np(x.transpose()), a.T)
    np.testing.assert_array_equal(_np(x.transpose(1, 0)), a.T)
    np.testing.assert_array_equal(_np(x.transpose((1, 0))), a.T)
    np.testing.assert_array_equal(_np(x.permute(1, 0)), a.T)
    assert x.astype(ms.int32).dtype == ms.int32
    assert x.astype(np.float16).dtype == ms.float16
    assert x.int().dtype == ms.int32 and x.half().dtype == ms.float16 and x.bool().dtype == ms.bool_
    assert x.flatten().shape == (6,)
    assert x.expand_dims(0).shape == (1, 2, 3) and x.unsqueeze(-1).shape == (2, 3, 1)
    assert x.expand_dims(0).squeeze().shape == (2, 3)
    np.testing.assert_allclose(_np(x.abs()), np.abs(a))
    np.testing.assert_allclose(_np(x.exp()), np.exp(a), rtol=1e-6)
    np.testing.assert_allclose(_np(x.square()), a * a)
    np.testing.assert_allclose(_np(x.matmul(x.T)), a @ a.T)
    assert _np(Tensor([True, False]).all()).item() is False
    assert _np(Tensor([True, False]).any()).item() is True
    assert x.broadcast_to((4, 2, 3)).shape == (4, 2, 3)


def test_sum_of_bools_counts():
    out = Tensor([True, True, False]).sum()
    assert out.dtype == ms.int64 and out.item() == 2


# --- Parameter ----------------------------------------------------------------------------------


def test_parameter_basics():
    p = Parameter(Tensor([1.0, 2.0]), name="w")
    assert isinstance(p, Tensor) and p.name == "w" and p.requires_grad
    assert str(p) == "Parameter (name=w, shape=(2,), dtype=Float32, requires_grad=True)"
    assert repr(p) == str(p)
    assert (p + 1).asnumpy().tolist() == [2.0, 3.0]
    assert type(p + 1) is Tensor
    q = Parameter(np.zeros(3, np.float32), requires_grad=False)
    assert not q.requires_grad
    assert Parameter(1.0).dtype == ms.float32


def test_parameter_auto_names_are_unique():
    a, b = Parameter(Tensor(1)), Parameter(Tensor(2))
    assert a.name.startswith("Parameter_") and b.name.startswith("Parameter_")
    assert a.name != b.name
    a.name = "renamed"
    assert a.name == "renamed" and not a.auto_named
    with pytest.raises(ValueError):
        a.name = ""


def test_parameter_set_data_in_place():
    p = Parameter(Tensor([1.0, 2.0]), name="w")
    before = id(p)
    assert p.set_data(Tensor([5.0, 6.0])) is p
    assert id(p) == before and p.name == "w"
    assert p.asnumpy().tolist() == [5.0, 6.0]
    p.set_data(Tensor([1, 2]))  # other dtypes are converted
    assert p.dtype == ms.float32
    with pytest.raises(ValueError, match="shape"):
        p.set_data(Tensor([1.0, 2.0, 3.0]))


def test_parameter_value_and_clone():
    p = Parameter(Tensor([1.0]), name="w")
    v = p.value()
    assert type(v) is Tensor and v.asnumpy().tolist() == [1.0]
    p.set_data(Tensor([3.0]))
    assert v.asnumpy().tolist() == [1.0]  # a snapshot
    c = p.clone()
    assert c is not p and c.name == "w" and c.asnumpy().tolist() == [3.0]
    c.set_data(Tensor([4.0]))
    assert p.asnumpy().tolist() == [3.0]
