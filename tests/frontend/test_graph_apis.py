"""Issue 24, APIs in graph mode: ops.stop_gradient (and inside ms.grad, value_and_grad,
GradOperation), ms.mutable (a run-time input: a new value does not recompile), type
checks, JIT Fallback of numpy and math (constants only; a graph's tensor is refused with
MindSpore's TypeError at the user's line). The corpus block in graph_corpus.py checks
the constant folding of builtins, str and list/dict methods against PyNative."""

from __future__ import annotations

import inspect
import math

import numpy as np
import pytest

import mindjit as ms
from mindjit import nn, ops
from mindjit.frontend.graph import api
from mindjit.frontend.graph.program_cache import cache_key
from mindjit.support import config


@pytest.fixture
def modes():
    saved = ms.get_context("mode")
    yield
    ms.set_context(mode=saved)


def t(*values):
    return ms.Tensor(np.array(values, np.float32))


def both(fn, *args):
    """fn's result in PyNative mode and as a graph."""
    ms.set_context(mode=ms.PYNATIVE_MODE)
    eager = fn(*args)
    ms.set_context(mode=ms.GRAPH_MODE)
    return eager, ms.jit(fn)(*args)


def arrays(value):
    if isinstance(value, tuple | list):
        return [a for v in value for a in arrays(v)]
    return [value.asnumpy() if isinstance(value, ms.Tensor) else np.asarray(value)]


def assert_close(a, b):
    for x, y in zip(arrays(a), arrays(b), strict=True):
        np.testing.assert_allclose(x, y, rtol=1e-6)


# --- ops.stop_gradient -----------------------------------------------------------------


def sg_loss(x, y):
    return (ops.stop_gradient(x * y) * x + y * y).sum()


def sg_grad(x, y):
    return ms.grad(sg_loss, grad_position=(0, 1))(x, y)


def sg_value_and_grad(x, y):
    return ms.value_and_grad(sg_loss, grad_position=0)(x, y)


def sg_all_stopped(x):
    return ms.grad(lambda_free_loss)(x)


def lambda_free_loss(x):
    return (ops.stop_gradient(x) * 3).sum() + x.sum() * 0


class SgNet(nn.Cell):
    def construct(self, x, y):
        return sg_loss(x, y)


class SgGrad(nn.Cell):
    def __init__(self):
        super().__init__()
        self.net = SgNet()
        self.grad = ops.GradOperation(get_all=True)

    def construct(self, x, y):
        return self.grad(self.net)(x, y)


def test_stop_gradient_forward_is_identity(modes):
    x = t(1.0, -2.0)
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        assert_close(ops.stop_gradient(x), x)
        assert ops.stop_gradient(3) == 3 and ops.stop_gradient("s") == "s"
        pair = ops.stop_gradient((x, [x * 2]))
        assert isinstance(pair, tuple) and isinstance(pair[1], list)


@pytest.mark.parametrize("fn", [sg_grad, sg_value_and_grad])
def test_stop_gradient_in_grad(fn, modes):
    x, y = t(1.0, 2.0), t(3.0, 4.0)
    eager, graph = both(fn, x, y)
    assert_close(eager, graph)
    # d/dx stop(x*y)*x = x*y only: no gradient through the product
    grads = graph if fn is sg_grad else graph[1]
    if fn is sg_grad:
        assert_close(grads, (t(3.0, 8.0), t(6.0, 8.0)))
    else:
        assert_close(grads, t(3.0, 8.0))


def test_stop_gradient_everything_stopped_gives_zeros(modes):
    eager, graph = both(sg_all_stopped, t(1.0, 2.0))
    assert_close(eager, t(0.0, 0.0))
    assert_close(graph, t(0.0, 0.0))


def test_stop_gradient_in_grad_operation(modes):
    x, y = t(1.0, 2.0), t(3.0, 4.0)
    results = []
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        results.append(SgGrad()(x, y))
    assert_close(results[0], results[1])
    assert_close(results[1], (t(3.0, 8.0), t(6.0, 8.0)))


def test_stop_gradient_is_a_mindir_op_with_no_adjoint(modes):
    ms.set_context(mode=ms.GRAPH_MODE)
    api.clear_cache()
    ms.jit(sg_grad)(t(1.0), t(2.0))
    (program,) = api.cached_programs()
    # the lowered program has no stop_gradient left and no adjoint of the product
    assert "mindir.stop_gradient" not in str(program.module)


# --- ms.mutable ------------------------------------------------------------------------


class MutableNet(nn.Cell):
    def construct(self, x, s, pair):
        return x * s + pair[0] - pair[1] * 2, s + 1


def scale_by(x, n):
    return x * n, n * 3 + 1


def test_mutable_does_not_recompile(modes):
    ms.set_context(mode=ms.GRAPH_MODE)
    net, x = MutableNet(), ms.Tensor(np.ones((2, 2), np.float32))
    api.clear_cache()
    for k in range(3):
        out, s1 = net(x, ms.mutable(k + 0.5), ms.mutable((k, t(k))))
        ms.set_context(mode=ms.PYNATIVE_MODE)
        eager, e1 = net(x, k + 0.5, (k, t(k)))
        ms.set_context(mode=ms.GRAPH_MODE)
        assert_close(out, eager)
        assert s1.shape == () and float(s1.asnumpy()) == e1  # a 0-d tensor input
    assert len(api.cached_programs()) == 1
    api.clear_cache()
    for k in range(3):  # constants: one graph per value
        net(x, k + 0.5, (k, t(k)))
    assert len(api.cached_programs()) == 3


def test_mutable_scalar_is_a_tensor_input_of_the_graph(modes):
    ms.set_context(mode=ms.GRAPH_MODE)
    api.clear_cache()
    x = t(1.0, 2.0)
    jitted = ms.jit(scale_by)  # one wrapper: its programs (a new wrapper compiles again)
    a = jitted(x, ms.mutable(2))
    b = jitted(x, ms.mutable(5))
    assert len(api.cached_programs()) == 1
    assert_close(a, (t(2.0, 4.0), 7))
    assert_close(b, (t(5.0, 10.0), 16))
    assert b[1].dtype == ms.int64  # n * 3 + 1 stayed in the graph
    (program,) = api.cached_programs()
    assert "tensor<i64>" in str(program.module)


def test_mutable_list_and_dict_inputs(modes):
    ms.set_context(mode=ms.GRAPH_MODE)
    api.clear_cache()

    jitted = ms.jit(sum_list)
    results = [jitted(ms.mutable([t(1.0), t(k)]), ms.mutable({"w": float(k)})) for k in range(2)]
    assert len(api.cached_programs()) == 1
    assert_close(results, [t(0.0), t(2.0)])


def sum_list(items, weights):
    return (items[0] + items[1]) * weights["w"]


def test_mutable_compile_cache_key_ignores_the_value():
    options = config.compile_options(None)
    from mindjit.frontend.mutable import graph_inputs

    def key(*args):
        return cache_key(scale_by, None, graph_inputs(args), {}, options)[0]

    x = t(1.0)
    assert key(x, ms.mutable(2)) == key(x, ms.mutable(7))
    assert key(x, 2) != key(x, 7)
    assert key(x, ms.mutable(2)) != key(x, ms.mutable(2.0))  # int64 vs float32 input


def test_mutable_in_pynative_is_the_value(modes):
    ms.set_context(mode=ms.PYNATIVE_MODE)
    m = ms.mutable(3)
    assert m == 3 and isinstance(m, int) and m.__ms_mutable__
    pair = ms.mutable((1, 2.5))
    assert pair == (1, 2.5) and isinstance(pair, tuple)
    x = t(1.0)
    assert ms.mutable(x) is x
    assert_close(MutableNet()(t(1.0), ms.mutable(2.0), ms.mutable((1, t(1.0))))[0], t(1.0))


@pytest.mark.parametrize("bad", [True, "a", None, (1, "a"), [1, None]])
def test_mutable_rejects_what_mindspore_rejects(bad):
    with pytest.raises(TypeError, match="For 'mutable', the 'input_data' should be one of"):
        ms.mutable(bad)


def test_mutable_dynamic_len_rules():
    with pytest.raises(TypeError, match="should be list or tuple"):
        ms.mutable(1, dynamic_len=True)
    with pytest.raises(ValueError, match="same type and shape"):
        ms.mutable((t(1.0), t(1.0, 2.0)), dynamic_len=True)
    seq = ms.mutable([t(1.0), t(2.0)], dynamic_len=True)
    assert seq.__ms_dynamic_len__ is True


# --- type checks -----------------------------------------------------------------------


def test_isinstance_primitive():
    assert ops.isinstance_(1, ms.int32) is False  # MindSpore's example: an int is Int64
    assert ops.isinstance_(1, ms.int64) and ops.isinstance_(1.0, ms.float32)
    assert ops.IsInstance()(True, ms.bool_)
    assert not ops.isinstance_(t(1.0), ms.float32)  # a tensor's type is not a dtype
    with pytest.raises(TypeError, match="'type_' must be a mindspore dtype"):
        ops.isinstance_(1, int)


# --- JIT Fallback: refused on a graph's tensor -----------------------------------------


def np_on_tensor(x):
    return np.sqrt(x)  # LINE: np


def math_on_tensor(x):
    return math.sqrt(x.sum())  # LINE: math


def ndarray_method_on_tensor(x):
    return np.ones(2, np.float32).dot(x)  # LINE: dot


def int_of_tensor(x):
    return int(x[0])  # LINE: int


def float_of_mutable(x, n):
    return x * float(n)  # LINE: float_mutable


def line_of(fn, marker):
    lines, start = inspect.getsourcelines(fn)
    return start + next(i for i, text in enumerate(lines) if f"LINE: {marker}" in text)


@pytest.mark.parametrize(
    ("fn", "marker", "pattern"),
    [
        (np_on_tensor, "np", r"JIT Fallback: 'numpy.sqrt' runs in Python at compile time"),
        (math_on_tensor, "math", r"JIT Fallback: 'math.sqrt'"),
        (ndarray_method_on_tensor, "dot", r"JIT Fallback: 'numpy.ndarray.dot'"),
        (int_of_tensor, "int", r"int\(\) of a Tensor computed by the graph"),
    ],
    ids=["numpy", "math", "ndarray_method", "int"],
)
def test_fallback_on_a_graph_tensor_is_refused(fn, marker, pattern, modes):
    ms.set_context(mode=ms.GRAPH_MODE)
    with pytest.raises(TypeError, match=pattern) as info:
        ms.jit(fn)(t(1.0, 4.0))
    text = str(info.value)
    assert f"{__file__}:{line_of(fn, marker)}" in text
    assert "GraphValue" not in text


def test_a_mutable_scalar_is_a_tensor_for_fallback(modes):
    ms.set_context(mode=ms.GRAPH_MODE)
    assert_close(ms.jit(float_of_mutable)(t(1.0), 2), t(2.0))  # a constant: folded
    with pytest.raises(TypeError, match=r"float\(\) of a Tensor") as info:
        ms.jit(float_of_mutable)(t(1.0), ms.mutable(2))
    assert f":{line_of(float_of_mutable, 'float_mutable')}" in str(info.value)


def fallback_constants(x):
    arr = np.linspace(0, 1, 3).astype(np.float32) * math.sqrt(4)
    return x + ms.Tensor(arr), math.pi, np.float32(2.5) * 2


def test_fallback_on_constants_equals_pynative(modes):
    eager, graph = both(fallback_constants, t(1.0, 2.0, 3.0))
    assert_close(eager, graph)


def fallback_python_functions(x):
    """numpy functions written in Python (np.eye, np.prod's wrapper) run, not traced."""
    n = x.shape[0]
    row = np.eye(n)[1]
    k = int(np.prod(x.shape))
    return x * math.sqrt(k) + ms.Tensor(row, ms.float32)


def test_fallback_runs_numpy_python_functions(modes):
    x = t(1.0, 2.0, 3.0, 4.0)
    eager, graph = both(fallback_python_functions, x)
    assert_close(eager, graph)
    np.testing.assert_allclose(graph.asnumpy(), x.asnumpy() * 2 + np.eye(4)[1], rtol=1e-6)


# --- a dict input's tensors are graph inputs (found here: they were folded as
# constants while the program cache keyed them by shape, so a second call with new
# values returned the first call's result)


def dict_input(d):
    return d["w"] * 2 + d["b"]


def test_dict_input_tensors_are_runtime_inputs(modes):
    ms.set_context(mode=ms.GRAPH_MODE)
    api.clear_cache()
    jitted = ms.jit(dict_input)
    first = jitted({"w": t(1.0), "b": t(0.5)})
    second = jitted({"w": t(5.0), "b": t(0.5)})
    assert_close((first, second), (t(2.5), t(10.5)))
    assert len(api.cached_programs()) == 1


def mutable_inside(x):
    n = ms.mutable(3)
    y = ms.mutable(x * 2)
    return y + n, ms.mutable((1, 2))[1]


def sg_vmapped(x):
    return ms.vmap(ops.stop_gradient)(x) * 2


def test_mutable_inside_a_graph_and_stop_gradient_under_vmap(modes):
    x = ms.Tensor(np.ones((2, 3), np.float32))
    for fn in (mutable_inside, sg_vmapped):
        eager, graph = both(fn, x)
        assert_close(eager, graph)
