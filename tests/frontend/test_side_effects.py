"""Issue 4's end-to-end checks in graph mode at every Load-elimination level."""

from __future__ import annotations

import numpy as np
import pytest
import side_effect_programs as P

import mindjit as ms

LEVELS = ["0", "1", "2", "3"]


@pytest.fixture
def level(request, monkeypatch):
    monkeypatch.setenv("MS_DEV_SIDE_EFFECT_LOAD_ELIM", request.param)
    ms.set_context(mode=ms.GRAPH_MODE)
    yield request.param
    ms.set_context(mode=ms.PYNATIVE_MODE)


def value(t):
    return t.asnumpy().tolist()


@pytest.mark.parametrize("level", LEVELS, indirect=True)
def test_notebook_forward_program(level):
    net = P.ForwardNet()
    assert value(net(ms.tensor(np.array(1), ms.int32))) == 3
    assert value(net(ms.tensor(np.array(4), ms.int32))) == 12
    assert value(net.weight) == 2


@pytest.mark.parametrize("level", LEVELS, indirect=True)
def test_reference_and_snapshot(level):
    assert value(P.Reference()()) == 4
    assert value(P.Snapshot()()) == 3


def test_reference_and_snapshot_pynative():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    assert value(P.Reference()()) == 4
    assert value(P.Snapshot()()) == 3


def pynative(cls, *args):
    ms.set_context(mode=ms.PYNATIVE_MODE)
    net = cls()
    out = net(*args)
    return net, out


@pytest.mark.parametrize("level", ["0", "1", "2"], indirect=True)
@pytest.mark.parametrize("cls", [P.WriteAfterRead, P.WriteReadWrite])
def test_write_after_read_matches_pynative(level, cls):
    args = [ms.Tensor([3.0, 4.0], ms.float32), ms.Tensor([10.0, 20.0], ms.float32)]
    args = args[: 2 if cls is P.WriteAfterRead else 1]
    eager_net, eager = pynative(cls, *args)
    ms.set_context(mode=ms.GRAPH_MODE)
    net = cls()
    out = net(*args)
    flat = lambda v: [value(x) for x in (v if isinstance(v, tuple) else (v,))]  # noqa: E731
    assert flat(out) == flat(eager)
    for (name, p), (_, q) in zip(net.parameters_and_names(), eager_net.parameters_and_names()):
        assert value(p) == value(q), name


@pytest.mark.parametrize("level", LEVELS, indirect=True)
def test_print_before_and_after_assign(level, capsys):
    P.Printer()(ms.Tensor([5.0], ms.float32))
    assert capsys.readouterr().out.splitlines() == [
        "before:",
        "Tensor(shape=[1], dtype=Float32, value=[ 1.00000000e+00])",
        "after:",
        "Tensor(shape=[1], dtype=Float32, value=[ 5.00000000e+00])",
    ]


@pytest.mark.parametrize("level", ["1"], indirect=True)
def test_print_order_across_cells_if_and_while(level, capsys):
    P.PrintOrder()(ms.Tensor([1.0], ms.float32))
    assert capsys.readouterr().out.splitlines() == [
        "first",
        "inner",
        "second",
        "then",
        "loop",
        "loop",
        "loop",
        "last",
    ]
