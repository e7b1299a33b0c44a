"""ops.MultitypeFuncGraph and ops.HyperMap in graph and PyNative mode."""

from __future__ import annotations

import hyper_map_programs as P
import pytest

import mindjit as ms
from mindjit.frontend.graph.errors import FrontendError
from mindjit.ops import HyperMap, MultitypeFuncGraph


def _np(x):  # type: ignore[no-untyped-def]
    if isinstance(x, tuple | list):
        return type(x)(_np(e) for e in x)
    return x.asnumpy().tolist() if hasattr(x, "asnumpy") else x


def _both_modes(fn, *args):  # type: ignore[no-untyped-def]
    ms.set_context(mode=ms.PYNATIVE_MODE)
    eager = _np(fn(*args))
    ms.set_context(mode=ms.GRAPH_MODE)
    graph = _np(ms.jit(fn)(*args))
    return eager, graph


def test_docs_hyper_map_net():
    eager, graph = _both_modes(P.hyper_map_net)
    assert graph == eager == [3 * i for i in range(20)]
    assert isinstance(graph, list)


def test_nested_sequences_and_numbers():
    x, y = ms.Tensor([1.0, 2.0]), ms.Tensor([10.0, 20.0])
    eager, graph = _both_modes(P.nested_net, x, y)
    assert graph == eager
    assert graph[0] == [11.0, 22.0]
    assert graph[1] == ([11.0, 22.0], 7)
    assert graph[2] == [[1.5 * 1.0, 1.5 * 2.0], 7.0]


@pytest.mark.parametrize("x", [[1.0, 2.0], [-3.0, 1.0]])
def test_dispatch_by_type_with_tensor_control_flow(x):
    eager, graph = _both_modes(P.dispatch_net, ms.Tensor(x))
    assert graph == eager


def test_most_specific_registration_wins():
    f = MultitypeFuncGraph("f")
    f.register("Number")(lambda v: "number")
    f.register("Bool")(lambda v: "bool")
    assert f(True) == "bool" and f(3) == "number"


def test_nothing_registered_is_a_clear_error_in_both_modes():
    with pytest.raises(TypeError, match=r"'add' has no function registered for \(String, Tensor\)"):
        P.add("a", ms.Tensor(1.0))
    ms.set_context(mode=ms.GRAPH_MODE)
    with pytest.raises(FrontendError, match=r"hyper_map_programs.py:\d+: .*no function registered"):
        ms.jit(P.nested_net)(ms.Tensor([1.0]), "s")


def test_bad_registrations():
    f = MultitypeFuncGraph("f")
    with pytest.raises(TypeError, match="unknown type name 'Tensr'"):
        f.register("Tensr")
    f.register("Tensor")(lambda x: x)
    with pytest.raises(ValueError, match=r"\(Tensor\) is registered twice"):
        f.register("Tensor")(lambda x: x)


def test_hyper_map_shape_errors():
    m = HyperMap(P.add)
    with pytest.raises(ValueError, match="same length, got 2, 1"):
        m((1, 2), (3,))
    with pytest.raises(TypeError, match="must all be tuples or all lists"):
        m((1, 2), [3, 4])
    with pytest.raises(TypeError, match="first argument"):
        HyperMap()()


def test_reverse_applies_last_first_and_keeps_order():
    seen = []
    m = HyperMap(lambda v: seen.append(v) or v * 2, reverse=True)
    assert m((1, 2, 3)) == (2, 4, 6)
    assert seen == [3, 2, 1]


def test_bad_construction_and_keywords_are_clear_errors():
    with pytest.raises(TypeError, match="HyperMap needs a function, got int"):
        HyperMap(3)
    with pytest.raises(TypeError, match="name must be a str"):
        MultitypeFuncGraph(1)  # type: ignore[arg-type]
    ms.set_context(mode=ms.GRAPH_MODE)
    with pytest.raises(
        FrontendError, match=r"hyper_map_programs.py:\d+: HyperMap takes no keyword"
    ):
        ms.jit(P.keyword_net)(ms.Tensor([1.0]))
