"""Graph mode's functional Python (issue 24): comprehensions and generator
expressions, lambda / nested def / closures, `*` and `**` unpacking, dicts, and
what a graph returns (dicts, Parameters). Each program runs in PyNative mode
and compiled; the results must be the same. Refusals carry MindSpore's
exception type and the user's line."""

from __future__ import annotations

import functools
import inspect

import numpy as np
import pytest

import mindjit as ms
from mindjit import nn, ops
from mindjit.frontend.graph.errors import FrontendError
from mindjit.frontend.graph.program_cache import _template_from_json, _template_to_json
from mindjit.frontend.structure import Leaf


def t(*shape, seed=0):
    rng = np.random.default_rng(seed)
    return ms.Tensor(rng.standard_normal(shape).astype(np.float32))


def leaves(value):
    if isinstance(value, dict):
        return [("key", k) for k in value] + [x for v in value.values() for x in leaves(v)]
    if isinstance(value, tuple | list):
        return [type(value).__name__] + [x for v in value for x in leaves(v)]
    return [value]


def assert_same(eager, graph):
    a, b = leaves(eager), leaves(graph)
    assert len(a) == len(b), (eager, graph)
    for x, y in zip(a, b):
        if isinstance(x, ms.Tensor):
            assert type(y) is ms.Tensor, (x, y)
            assert x.dtype == y.dtype and x.shape == y.shape
            np.testing.assert_allclose(x.asnumpy(), y.asnumpy(), rtol=1e-6, atol=1e-6)
        else:
            assert x == y, (eager, graph)


def both(fn, *args):
    eager = fn(*args)
    graph = ms.jit(fn)(*args)
    assert_same(eager, graph)
    return graph


def line_of(fn, marker):
    lines, start = inspect.getsourcelines(fn)
    for offset, text in enumerate(lines):
        if f"LINE: {marker}" in text:
            return start + offset
    raise AssertionError(marker)


def raises_at(fn, marker, exc_type, pattern, *args):
    with pytest.raises(exc_type, match=pattern) as info:
        ms.jit(fn)(*args)
    assert isinstance(info.value, FrontendError)
    assert f"{__file__}:{line_of(fn, marker)}:" in str(info.value), str(info.value)
    assert "GraphValue" not in str(info.value) and "Evaluator" not in str(info.value)


# --- comprehensions and generator expressions -------------------------------------------------


def comprehensions(x, n):
    scaled = [x * i for i in range(n)]
    evens = tuple(x + i for i in (1, 2, 3, 4) if i % 2 == 0 if i > 0)
    total = sum(x * i for i in range(n))
    named = {k: x * v for k, v in zip(("a", "b"), (1, 2))}
    rows = [r * 2 for r in x]  # a tensor along its first axis
    numbered = [v + i for i, v in enumerate(scaled)]
    consts = (
        [i * i for i in range(5)],
        any(i > 3 for i in range(n)),
        all(i < 10 for i in range(n)),
        min(i - 1 for i in (3, 1, 2)),
        max(abs(i) for i in (-5, 2)),
        sum(i for i in range(n)),
        {i: str(i) for i in range(2)},
        [[a * b for b in range(2)] for a in range(3)],
    )
    return ops.stack(scaled), evens, total, named, rows, numbered, consts


def test_comprehensions_on_tensors_and_constants():
    both(comprehensions, t(2, 3), 3)
    both(comprehensions, t(4, 2), 1)


def test_comprehension_variables_do_not_leak():
    def fn(x):
        i = 10
        ys = [x * i for i in range(2)]
        return ys[1] + i

    both(fn, t(3))


class Blocks(nn.Cell):
    def __init__(self):
        super().__init__()
        self.blocks = nn.CellList([nn.Dense(3, 3, weight_init="ones") for _ in range(3)])

    def construct(self, x):
        outs = [blk(x) for blk in self.blocks]
        return ops.concat(outs), tuple(b(x) for b in self.blocks if True)


def test_comprehension_over_cell_list():
    net = Blocks()
    x = t(2, 3)
    eager = net(x)
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        graph = net(x)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert_same(eager, graph)


def two_for_clauses(x):
    return [x * (i + j) for i in range(2) for j in range(2)]  # LINE: two_for


def set_comprehension(x):
    return len({i for i in range(3)}) * x  # LINE: setcomp


def tensor_filter(x):
    return [r for r in x if r.sum() > 0]  # LINE: tensor_if


def over_scalar_tensor(x):
    return [v for v in x.sum()]  # LINE: scalar


def test_comprehension_refusals():
    x = t(2, 3)
    raises_at(two_for_clauses, "two_for", TypeError, r"'generators' supports 1 'comprehension'", x)
    raises_at(set_comprehension, "setcomp", RuntimeError, r"set comprehension is not supported", x)
    raises_at(tensor_filter, "tensor_if", RuntimeError, r"'if' of a comprehension must be a", x)
    raises_at(over_scalar_tensor, "scalar", RuntimeError, r"cannot iterate over a 0-d tensor", x)
    assert len(two_for_clauses(x)) == 4  # PyNative mode runs Python as it is


# --- lambda, nested def, closures ----------------------------------------------------------------


def closures(x, y):
    k = 2
    f = lambda v, w=3: v * k + w  # noqa: E731
    k = 5  # late binding: f sees 5

    def g(v, *rest, scale=1.0, **kw):
        return (v + y) * scale + len(rest) + kw.get("z", 0)

    def maker(n):
        return lambda v: v * n

    triple = maker(3)
    half = functools.partial(g, scale=0.5)

    def fact(n):
        return 1 if n <= 1 else n * fact(n - 1)

    def apply(fn, v):
        return fn(v)

    return (
        f(x),
        f(x, w=y),
        g(x, 1, 2, z=4),
        triple(x),
        half(x),
        fact(4) * x,
        apply(lambda v: v - 1, y),
        list(map(lambda v: v + 1, (x, y))),
        sorted((3, 1, 2), key=lambda v: -v),
    )


def test_lambda_nested_def_closures():
    both(closures, t(2, 3), t(2, 3, seed=1))


def tensor_branch_in_nested(x):
    def pick(v):
        if v.sum() > 0:
            return v * 2
        return v - 1

    return pick(x), pick(-x)


def test_nested_def_with_tensor_control_flow():
    both(tensor_branch_in_nested, t(3))


def functions_to_transforms(x, y):
    grads = ops.grad(lambda u: (u * y).sum())(x)
    rows = ms.vmap(lambda r: r.sum() * 2)(x)
    pairs = ops.HyperMap()(lambda a, b: a * b, (x, y), (y, 2.0))
    return grads, rows, pairs


def test_functions_passed_to_grad_vmap_hypermap():
    both(functions_to_transforms, t(2, 3), t(2, 3, seed=1))


def test_jit_of_a_lambda_and_of_a_nested_def():
    k = 3
    fn = ms.jit(lambda v, w=2: v * k + w)
    x = t(2, 3)
    np.testing.assert_allclose(fn(x).asnumpy(), (x * 3 + 2).asnumpy(), rtol=1e-6)
    split = ms.jit(
        lambda v: (
            v,
            v + 1,
        )
    )
    assert_same((x, x + 1), split(x))

    def outer(scale):
        @ms.jit
        def inner(v):
            return v * scale + sum(i for i in range(3))

        return inner

    np.testing.assert_allclose(outer(2.0)(x).asnumpy(), (x * 2 + 3).asnumpy(), rtol=1e-6)


def decorated_nested_def(x):
    @ms.jit
    def inner(v):
        return v * 2

    return inner(x)


def test_jit_decorated_nested_def_inside_a_graph_is_inlined():
    both(decorated_nested_def, t(3))


def nested_bad_call(x):
    f = lambda v: v  # noqa: E731
    return f(x, x)  # LINE: bad_call


def test_nested_function_refusals():
    """As for a user function called with the wrong arguments: the def's line,
    and the call's line in the traceback."""
    with pytest.raises(RuntimeError, match=r"cannot call '<lambda>'") as info:
        ms.jit(nested_bad_call)(t(2))
    text = str(info.value)
    assert f"{__file__}:{line_of(nested_bad_call, 'bad_call') - 1}:" in text
    assert f"In file {__file__}:{line_of(nested_bad_call, 'bad_call')}\n" in text


# --- unpacking, dicts --------------------------------------------------------------------------


def helper(a, b, c=0):
    return a + b * c


def unpacking(x, seq):
    a, *rest = seq
    *init, last = (1, 2, 3)
    first, *others = x  # a tensor along axis 0
    head, *mid, tail = [x, 1, 2, x]
    args = (x, 2)
    kw = {"c": 3}
    merged = {**kw, "z": 4, **{"c": 5}}
    s = 0
    for _k, v in merged.items():
        s = s + v
    for i, (u, w) in enumerate(((1, 2), (3, 4))):
        s = s + i * u * w
    return (
        a,
        rest,
        init,
        last,
        first,
        others,
        head,
        mid,
        tail,
        helper(*args, **kw),
        helper(*(x, x), c=2),
        [*seq, x],
        (*init, 9),
        s,
        merged.get("z"),
        merged.get("q", 7),
        tuple(merged.keys()),
        tuple(merged.values()),
        merged["c"] * x,
    )


def test_unpacking_and_dicts():
    x = t(3, 2)
    both(unpacking, x, (x, x + 1, x * 2))
    both(unpacking, x, [x])


def too_few(x):
    a, b, *rest = (x,)  # noqa: F841  LINE: too_few
    return a


def not_a_mapping(x):
    return {**(1, 2)}  # LINE: mapping


def test_unpacking_refusals():
    raises_at(too_few, "too_few", RuntimeError, r"not enough values to unpack", t(2))
    raises_at(not_a_mapping, "mapping", RuntimeError, r"'tuple' object is not a mapping", t(2))


# --- what a graph returns ----------------------------------------------------------------------


def returns_dict(x, d):
    return {"a": x, "b": {"c": x * 2, "d": (d["w"] + 1, 1)}, "n": "name"}


def test_graph_returns_a_dict():
    x = t(2, 3)
    out = both(returns_dict, x, {"w": x * 3})
    assert isinstance(out, dict) and isinstance(out["b"], dict)


def test_dict_results_survive_the_compile_cache_manifest():
    template = {"a": Leaf(0), "b": {"c": (Leaf(1), 2.5)}, 3: None}
    assert _template_from_json(_template_to_json(template)) == template


class Accumulate(nn.Cell):
    def __init__(self):
        super().__init__()
        self.c = ms.Parameter(ms.Tensor(np.zeros(3, np.float32)), name="c")

    def construct(self, x):
        ops.assign(self.c, self.c + x)
        return self.c, {"c": self.c}


def test_returned_parameter_is_a_tensor_value():
    x = ms.Tensor(np.ones(3, np.float32))
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net = Accumulate()
        first, named = net(x)
        second, _ = net(x)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    for value in (first, named["c"], second):
        assert type(value) is ms.Tensor and not isinstance(value, ms.Parameter)
    np.testing.assert_array_equal(first.asnumpy(), np.ones(3))
    np.testing.assert_array_equal(named["c"].asnumpy(), np.ones(3))
    np.testing.assert_array_equal(second.asnumpy(), np.full(3, 2.0))
    np.testing.assert_array_equal(net.c.asnumpy(), np.full(3, 2.0))


def apply_twice(fn, v):
    return fn(fn(v))


class Scale(nn.Cell):
    def construct(self, fn, v):
        return fn(v)


def passes_lambda_to_helper(x, y):
    return apply_twice(lambda v: v * y, x), apply_twice(ops.relu, x)


def test_nested_function_passed_to_a_user_function():
    """The helper is traced inline, in the graph that holds the closure's tensors."""
    both(passes_lambda_to_helper, t(2, 3), t(2, 3, seed=1))


scale_cell = Scale()


def passes_lambda_to_cell(x):
    return scale_cell(lambda v: v * 2, x)  # LINE: to_cell


def returns_function(x):
    return lambda v: v + x  # LINE: returns_fn


def test_nested_function_boundaries():
    x = t(2)
    with pytest.raises(RuntimeError, match="called from another graph") as info:
        ms.jit(passes_lambda_to_cell)(x)
    assert f"In file {__file__}:{line_of(passes_lambda_to_cell, 'to_cell')}\n" in str(info.value)
    raises_at(returns_function, "returns_fn", RuntimeError, r"cannot return a function", x)


def late_binding_in_tensor_branches(x):
    k = 1.0
    f = lambda v: v * k  # noqa: E731
    if x.sum() > 0:
        k = 3.0
        y = f(x)
    else:
        y = f(x) - 1
    i = 0
    while x.sum() > 0 and i < 3:
        x = x - 1
        k = 2.0
        i = i + 1
    makers = [lambda v: v + j for j in range(3)]  # noqa: B023 (the last j, as in Python)
    return y, f(x), [m(x) for m in makers]


def test_late_binding_inside_tensor_if_and_while():
    x = ms.Tensor(np.ones(3, np.float32))
    both(late_binding_in_tensor_branches, x)
    both(late_binding_in_tensor_branches, -x)
