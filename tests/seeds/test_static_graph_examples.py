"""CPU-runnable examples of docs 000 (select/if, compile cache function), 003 (Depend
with float status) and 004 (Network with print, mul)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np

import mindjit as ms
from mindjit import Parameter, Tensor, nn, ops
from mindjit import dtype as mstype

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))
import docs_programs  # noqa: E402 - the docs' if_net and select_net, as the docs write them


def test_if_net_and_select_net_agree_with_the_math():
    if_net, select_net = ms.jit(docs_programs.if_net), ms.jit(docs_programs.select_net)

    a = if_net(ms.Tensor([0]), ms.Tensor([1]))
    b = select_net(ms.Tensor([0]), ms.Tensor([1]))
    expected = -sum(range(1, 101))
    assert a.asnumpy().tolist() == [expected] and a.dtype == ms.int64
    assert b.asnumpy().tolist() == [expected]


def test_compile_cache_function_without_cache():
    from mindjit import set_context

    @ms.jit
    def func(input_x, input_y):
        output = input_x
        for _ in range(200):
            output = input_x + input_x * input_y + output
        return output

    set_context(enable_compile_cache=False)
    x = ms.Tensor([1], mstype.float32)
    y = ms.Tensor([2], mstype.float32)
    out = func(x, y)
    assert out.asnumpy().tolist() == [601.0]


def test_mul_jit():
    @ms.jit
    def mul(x, y):
        return x * y

    out = mul(Tensor([1.0, 2.0]), Tensor([3.0, 4.0]))
    assert out.asnumpy().tolist() == [3.0, 8.0]


class Network(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.random.randn(5, 3), ms.float32), name="w")  # weight
        self.b = Parameter(Tensor(np.random.randn(3), ms.float32), name="b")  # bias

    def construct(self, x):
        out = ops.matmul(x, self.w)
        print("matmul: ", out)
        out = out + self.b
        print("add bias: ", out)
        return out


def _reference(model, x):
    w, b = model.w.asnumpy(), model.b.asnumpy()
    return x.asnumpy() @ w, x.asnumpy() @ w + b


def test_network_pynative_prints_at_once(capsys):
    ms.set_context(mode=ms.PYNATIVE_MODE)
    model = Network()
    x = ops.ones(5, ms.float32)
    out = model(x)
    printed = capsys.readouterr().out.splitlines()
    matmul, with_bias = _reference(model, x)
    assert printed[0].startswith("matmul:  [") and printed[1].startswith("add bias:  [")
    np.testing.assert_allclose(out.asnumpy(), with_bias, rtol=1e-5)
    assert out.shape == (3,)


def test_network_graph_mode_prints_like_the_docs(capsys):
    model = Network()
    x = ops.ones(5, ms.float32)
    model.compile(x)
    ms.set_context(mode=ms.GRAPH_MODE)
    out = model(x)
    print("out: ", out)
    lines = capsys.readouterr().out.splitlines()
    matmul, with_bias = _reference(model, x)
    assert lines[0].rstrip() == "matmul:"
    assert re.fullmatch(r"Tensor\(shape=\[3\], dtype=Float32, value=\[.*\]\)", lines[1])
    assert lines[2].rstrip() == "add bias:"
    assert re.fullmatch(r"Tensor\(shape=\[3\], dtype=Float32, value=\[.*\]\)", lines[3])
    printed = [float(v) for v in lines[1].split("value=[")[1].rstrip("])").split()]
    np.testing.assert_allclose(printed, matmul, rtol=1e-6)
    assert lines[4].startswith("out:  [")
    np.testing.assert_allclose(out.asnumpy(), with_bias, rtol=1e-5)


class FloatStatusNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.alloc_status = ops.NPUAllocFloatStatus()
        self.get_status = ops.NPUGetFloatStatus()
        self.clear_status = ops.NPUClearFloatStatus()
        self.sub = ops.Sub()
        self.neg = ops.Neg()

    def construct(self, x):
        init = self.alloc_status()
        clear_status = self.clear_status(init)
        x = ops.depend(x, clear_status)
        res = self.sub(x, self.neg(x))
        init = ops.depend(init, res)
        get_status = self.get_status(init)
        res = ops.depend(res, get_status)
        return res


def test_depend_with_float_status(capsys):
    ms.set_context(mode=ms.GRAPH_MODE, device_target="CPU")
    data = np.full((2, 3), 5, dtype=np.float16)
    x = Tensor(data, dtype=mstype.float16)
    res = FloatStatusNet()(x)
    print(res)
    assert capsys.readouterr().out == "[[10. 10. 10.]\n [10. 10. 10.]]\n"
    assert res.dtype == mstype.float16


def test_depend_orders_the_float_status_ops():
    """alloc before clear before the Sub before get, as the Depends in doc 003 demand."""
    from mindjit.frontend.graph import api

    ms.set_context(mode=ms.GRAPH_MODE, device_target="CPU")
    net = FloatStatusNet()
    x = Tensor(np.full((2, 3), 5, dtype=np.float16))
    net(x)
    api.clear_cache()
    net(x)
    (program,) = api.cached_programs()
    exe = program.executable
    exe.trace_enabled = True
    exe.trace.clear()
    net(x)
    trace = list(exe.trace)

    def first(pred):
        return next(i for i, name in enumerate(trace) if pred(name))

    alloc = first(lambda n: "float_status_alloc" in n)
    clear = first(lambda n: "float_status_clear" in n)
    sub = first(lambda n: "arith.subf" in n)
    get = first(lambda n: "float_status_get" in n)
    assert alloc < clear < sub < get, trace


def test_float_status_reports_an_overflow_after_clear():
    class Overflow(nn.Cell):
        def __init__(self):
            super().__init__()
            self.alloc_status = ops.NPUAllocFloatStatus()
            self.get_status = ops.NPUGetFloatStatus()
            self.clear_status = ops.NPUClearFloatStatus()

        def construct(self, x):
            init = self.alloc_status()
            clear_status = self.clear_status(init)
            x = ops.depend(x, clear_status)
            res = x * x
            init = ops.depend(init, res)
            return res, self.get_status(init)

    ms.set_context(mode=ms.GRAPH_MODE, device_target="CPU")
    _, status = Overflow()(Tensor(np.full((2,), 300.0, dtype=np.float16)))
    assert status.asnumpy().any()
    _, status = Overflow()(Tensor(np.full((2,), 3.0, dtype=np.float16)))
    assert not status.asnumpy().any()
