"""Control flow and errors in graph mode (issue 24): `raise`, `assert`, MindSpore's error types.

A `raise` on constants happens while compiling, with the user's type, message and
line; under an `if` on a tensor, and `assert` on a tensor, it is a run-time check
(mindir.check_range) that raises the user's type when the graph runs: on the CPU
executor, the simulated device and (as a failed `cf.assert`) IREE. PyNative mode
runs the same Python eagerly and raises the same types.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

import numpy as np
import pytest

import mindjit as ms
from mindjit import Tensor, nn, ops
from mindjit.frontend.graph import api

sys.path.append(os.path.join(os.path.dirname(__file__), "..", "backend"))
from test_cpu_iree import IREE_COMPILE, IREE_RUN, run_iree  # noqa: E402

FILE = os.path.basename(__file__)
MODES = [ms.PYNATIVE_MODE, ms.GRAPH_MODE]


def t(*values):
    return Tensor(np.array(values, np.float32))


def line_of(text):
    with open(__file__) as f:
        for i, line in enumerate(f, 1):
            if text in line:
                return i
    raise AssertionError(text)


@pytest.fixture(autouse=True)
def restore_mode():
    saved = ms.get_context("mode")
    yield
    ms.set_context(mode=saved, device_target="CPU")
    api.clear_cache()


class FlagNet(nn.Cell):
    def __init__(self, flag):
        super().__init__()
        self.flag = flag

    def construct(self, x):
        if self.flag > 2:
            raise TypeError(f"flag must be at most 2, got {self.flag}")  # raise-const
        return x * self.flag


class PositiveNet(nn.Cell):
    def construct(self, x):
        y = x * 2
        if y.sum() > 0:
            raise ValueError("x must be non-positive")  # raise-tensor
        return y - 1


class ElseRaiseNet(nn.Cell):
    def construct(self, x):
        if x.max() < 10:
            y = x + 1
        else:
            raise RuntimeError("too large")
        return y


class LoopRaiseNet(nn.Cell):
    def construct(self, x):
        total = x[0] * 0
        for i in range(3):
            if x[i] < 0:
                raise IndexError("negative entry")
            total = total + x[i]
        return total


class WhileRaiseNet(nn.Cell):
    def construct(self, x, n):
        i = 0
        s = x * 0
        while i < n:
            if s.sum() > 100:
                raise ValueError("diverged")
            s = s + x
            i = i + 1
        return s


class AssertNet(nn.Cell):
    def construct(self, x):
        assert x.sum() < 10, "sum must stay below 10"  # assert-tensor
        return x + 1


def returns_constant_after_check(x):
    if x.sum() > 0:
        raise ValueError("checked before a constant return")
    return ops.ones((2,), ms.float32)


@pytest.mark.parametrize("mode", MODES)
def test_raise_on_constants_raises_the_users_type_at_compile_time(mode):
    ms.set_context(mode=mode)
    assert FlagNet(2)(t(1.0)).asnumpy().tolist() == [2.0]
    with pytest.raises(TypeError, match="flag must be at most 2, got 3") as info:
        FlagNet(3)(t(1.0))
    if mode == ms.GRAPH_MODE:
        assert f"{FILE}:{line_of('# raise-const')}" in str(info.value)


@pytest.mark.parametrize("mode", MODES)
def test_raise_under_a_tensor_if_runs_as_a_check(mode):
    ms.set_context(mode=mode)
    net = PositiveNet()
    np.testing.assert_array_equal(net(t(-1.0, -2.0)).asnumpy(), [-3.0, -5.0])
    with pytest.raises(ValueError, match="x must be non-positive") as info:
        net(t(1.0, 2.0))
    if mode == ms.GRAPH_MODE:
        assert f"{FILE}:{line_of('# raise-tensor')}" in str(info.value)
        assert "GraphValue" not in str(info.value)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("cls", "good", "bad", "exc", "text"),
    [
        (ElseRaiseNet, (t(1.0, 2.0),), (t(1.0, 20.0),), RuntimeError, "too large"),
        (LoopRaiseNet, (t(1.0, 2.0, 3.0),), (t(1.0, -2.0, 3.0),), IndexError, "negative entry"),
        (
            WhileRaiseNet,
            (t(1.0, 2.0), Tensor(3, ms.int32)),
            (t(40.0, 30.0), Tensor(3, ms.int32)),
            ValueError,
            "diverged",
        ),
    ],
)
def test_raise_forms_agree_with_pynative(mode, cls, good, bad, exc, text):
    ms.set_context(mode=ms.PYNATIVE_MODE)
    expected = cls()(*good).asnumpy()
    ms.set_context(mode=mode)
    np.testing.assert_array_equal(cls()(*good).asnumpy(), expected)
    with pytest.raises(exc, match=text):
        cls()(*bad)


@pytest.mark.parametrize("mode", MODES)
def test_assert_on_a_tensor(mode):
    ms.set_context(mode=mode)
    np.testing.assert_array_equal(AssertNet()(t(1.0)).asnumpy(), [2.0])
    with pytest.raises(AssertionError, match="sum must stay below 10") as info:
        AssertNet()(t(20.0))
    if mode == ms.GRAPH_MODE:
        assert f"{FILE}:{line_of('# assert-tensor')}" in str(info.value)


def test_assert_on_constants_fails_at_compile_time():
    def f(x, n):
        assert n > 0, "n must be positive"
        return x * n

    ms.set_context(mode=ms.GRAPH_MODE)
    assert ms.jit(f)(t(1.0), 2).asnumpy().tolist() == [2.0]
    with pytest.raises(AssertionError, match="n must be positive"):
        ms.jit(f)(t(1.0), 0)


def test_a_check_before_a_constant_return_is_kept():
    ms.set_context(mode=ms.GRAPH_MODE)
    fn = ms.jit(returns_constant_after_check)
    assert fn(t(-1.0)).asnumpy().tolist() == [1.0, 1.0]
    with pytest.raises(ValueError, match="checked before a constant return"):
        fn(t(1.0))


def test_raise_on_the_simulated_device():
    ms.set_context(mode=ms.GRAPH_MODE, device_target="Ascend")
    net = PositiveNet()
    np.testing.assert_array_equal(net(t(-1.0, -2.0)).asnumpy(), [-3.0, -5.0])
    with pytest.raises(ValueError, match="x must be non-positive"):
        net(t(1.0, 2.0))


@pytest.mark.skipif(IREE_COMPILE is None or IREE_RUN is None, reason="IREE is not installed")
def test_raise_on_iree_is_a_failed_assert(tmp_path):
    """IREE runs the lowered module: a passing input gives the CPU's result; a failing
    one makes iree-run-module exit non-zero with the check's message ("ValueError:
    x must be non-positive"); IREE has no exception types, the message names it."""
    ms.set_context(mode=ms.GRAPH_MODE)
    net = PositiveNet()
    ours = net(t(-1.0, -2.0)).asnumpy()
    (program,) = api.cached_programs()
    src, vmfb = tmp_path / "prog.mlir", tmp_path / "prog.vmfb"
    src.write_text(str(program.module))
    compiled = subprocess.run(
        [IREE_COMPILE, "--iree-hal-target-backends=llvm-cpu", str(src), "-o", str(vmfb)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert compiled.returncode == 0, compiled.stderr

    def run(x):
        np.save(tmp_path / "in.npy", x)
        return subprocess.run(
            [
                IREE_RUN,
                f"--module={vmfb}",
                f"--function={program.entry_name}",
                f"--input=@{tmp_path / 'in.npy'}",
                f"--output=@{tmp_path / 'out.npy'}",
            ],
            capture_output=True,
            text=True,
            timeout=300,
        )

    ok = run(np.array([-1.0, -2.0], np.float32))
    assert ok.returncode == 0, ok.stderr
    np.testing.assert_array_equal(np.load(tmp_path / "out.npy"), ours)
    bad = run(np.array([1.0, 2.0], np.float32))
    assert bad.returncode != 0
    assert "ValueError: x must be non-positive" in bad.stderr + bad.stdout


def test_refused_raise_forms_are_located():
    def nested(x):
        if x.sum() > 0:
            for _ in range(2):
                raise ValueError("inside a loop in a branch")  # refused-raise
        return x

    def bare(x):
        raise

    ms.set_context(mode=ms.GRAPH_MODE)
    with pytest.raises(RuntimeError, match="last statement of one of its branches") as info:
        ms.jit(nested)(t(1.0))
    assert f"{FILE}:{line_of('# refused-raise')}" in str(info.value)
    with pytest.raises(RuntimeError, match="bare 'raise'"):
        ms.jit(bare)(t(1.0))


# -- errors with MindSpore's types ------------------------------------------------------


class MissingAttr(nn.Cell):
    def construct(self, x):
        return self.missing(x)  # err-attr


class MissingMethod(nn.Cell):
    def construct(self, x):
        return x.no_such_method()  # err-method


class UndefinedName(nn.Cell):
    def construct(self, x):
        return undefined_name_here + x  # err-name  # noqa: F821


class Ambiguous(nn.Cell):
    def construct(self, x):
        if x > 0:  # err-ambiguous
            return x
        return -x


class WrongArgument(nn.Cell):
    def construct(self, x):
        return ops.reshape(x, "abc")  # err-arg


class MissingArgument(nn.Cell):
    def construct(self, x):
        return ops.add(x)  # err-missing


class BadUnpack(nn.Cell):
    def construct(self, x):
        a, b = x  # err-unpack
        return a + b


ERROR_CASES = [
    (MissingAttr, AttributeError, "'MissingAttr' object has no attribute 'missing'", "err-attr"),
    (
        MissingMethod,
        AttributeError,
        "'Tensor' object has no attribute 'no_such_method'",
        "err-method",
    ),
    (UndefinedName, NameError, "name 'undefined_name_here' is not defined", "err-name"),
    (Ambiguous, ValueError, "ambiguous", "err-ambiguous"),
    (WrongArgument, TypeError, "For 'reshape'", "err-arg"),
    (MissingArgument, TypeError, "missing 1 required positional argument", "err-missing"),
    (BadUnpack, ValueError, "unpack", "err-unpack"),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("cls", "exc", "text", "marker"), ERROR_CASES, ids=[c[3] for c in ERROR_CASES]
)
def test_errors_have_mindspores_types(mode, cls, exc, text, marker):
    """Both modes raise the same type; graph mode names the user's file and line and
    no internal class (GraphValue, the evaluator's objects)."""
    ms.set_context(mode=mode)
    with pytest.raises(exc, match=re.escape(text)) as info:
        cls()(t(1.0, 2.0, 3.0))
    message = str(info.value)
    assert "GraphValue" not in message and "Evaluator" not in message, message
    if mode == ms.GRAPH_MODE:
        assert f"{FILE}:{line_of('# ' + marker)}:" in message, message


def shape_index_out_of_range(x):
    return x.shape[5]  # err-index


def missing_key(x):
    return {"a": x}["b"]  # err-key


def bad_operand(x):
    return ops.matmul(x, "a")  # err-operand


FUNCTION_ERRORS = [
    (shape_index_out_of_range, IndexError, "tuple index out of range", "err-index"),
    (bad_operand, TypeError, "matmul input must be a Tensor or a number, got str", "err-operand"),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("fn", "exc", "text", "marker"), FUNCTION_ERRORS, ids=[c[3] for c in FUNCTION_ERRORS]
)
def test_errors_of_python_operations_keep_their_types(mode, fn, exc, text, marker):
    ms.set_context(mode=mode)
    call = ms.jit(fn) if mode == ms.GRAPH_MODE else fn
    with pytest.raises(exc, match=re.escape(text)) as info:
        call(t(1.0, 2.0, 3.0))
    if mode == ms.GRAPH_MODE:
        assert f"{FILE}:{line_of('# ' + marker)}:" in str(info.value)


def test_a_missing_dict_key_is_mindspores_value_error_in_graph_mode():
    """MindSpore 2.10's graph mode: "ValueError: The key b does not exist in the
    dict:{...}" (PyNative is Python: KeyError)."""
    with pytest.raises(KeyError, match="'b'"):
        missing_key(t(1.0))
    ms.set_context(mode=ms.GRAPH_MODE)
    with pytest.raises(ValueError, match="The key b does not exist in the dict") as info:
        ms.jit(missing_key)(t(1.0, 2.0))
    assert f"{FILE}:{line_of('# err-key')}:" in str(info.value)


def test_wrong_arguments_to_a_jit_function_are_a_type_error():
    @ms.jit
    def f(x, y):
        return x + y

    ms.set_context(mode=ms.GRAPH_MODE)
    with pytest.raises(TypeError, match="cannot call 'f'"):
        f(t(1.0))


# -- break / continue under a tensor condition ------------------------------------------


def for_break(x):
    s = x[0] * 0
    for i in range(4):
        if x[i] > 2:
            break
        s = s + x[i]
    return s


def for_continue(x):
    s = x[0] * 0
    n = 0
    for i in range(4):
        if x[i] < 0:
            continue
        s = s + x[i]
        n = n + 1
    return s, n


def for_rows_elif(x):
    s = x[0] * 0
    for r in x:
        if r.sum() > 5:
            s = s - 100
            break
        elif r.sum() < 0:
            continue
        s = s + r
    return s


def nested_break(x):
    s = x[0, 0] * 0
    for i in range(3):
        for j in range(3):
            if x[i, j] < 0:
                break  # the inner loop only
            s = s + x[i, j]
        s = s * 2
    return s


def constant_while_break(x):
    i = 0
    s = x[0] * 0
    while i < 4:
        s = s + x[0] + i
        i += 1
        if s > 3:
            break
        s = s * 2
    return s, i


def constant_while_counter_after_break(x):
    i = 0
    s = x[0] * 0
    while i < 4:
        if s > 3:
            break
        s = s + x[0] * i
        i += 1
    return s, i


def tensor_while_break(x, n):
    i = 0
    s = x * 0
    while i < n:
        if s.sum() > 5:
            break
        s = s + x
        i = i + 1
    return s, i


def tensor_while_continue(x, n):
    i = 0
    s = x * 0
    while i < n:
        i = i + 1
        if (i % 2) == 0:
            continue
        s = s + x
    return s, i


def v(*values):
    return Tensor(np.array(values, np.float32))


LOOP_CASES = {
    "for_break_taken": (for_break, lambda: (v(1.0, 2.0, 3.0, 4.0),)),
    "for_break_not_taken": (for_break, lambda: (v(1.0, 2.0, 1.0, 0.5),)),
    "for_continue": (for_continue, lambda: (v(1.0, -2.0, 3.0, -4.0),)),
    "for_rows_elif": (for_rows_elif, lambda: (v([1.0, 2.0], [-3.0, 1.0], [4.0, 4.0], [1.0, 1.0]),)),
    "nested_break": (
        nested_break,
        lambda: (v([1.0, -1.0, 2.0], [1.0, 1.0, 1.0], [-1.0, 3.0, 3.0]),),
    ),
    "constant_while_break": (constant_while_break, lambda: (v(1.0, 1.5, 2.0, 4.0),)),
    "constant_while_small": (constant_while_break, lambda: (v(0.1, 0, 0, 0),)),
    "constant_while_counter": (constant_while_counter_after_break, lambda: (v(2, 0, 0, 0),)),
    "constant_while_no_break": (constant_while_counter_after_break, lambda: (v(0.1, 0, 0, 0),)),
    "tensor_while_break": (tensor_while_break, lambda: (v(1.0, 2.0), Tensor(7, ms.int32))),
    "tensor_while_continue": (tensor_while_continue, lambda: (v(1.0, 2.0), Tensor(5, ms.int32))),
}


def same(eager, graph):
    eager = eager if isinstance(eager, tuple) else (eager,)
    graph = graph if isinstance(graph, tuple) else (graph,)
    assert len(eager) == len(graph)
    for a, b in zip(eager, graph):
        a = a.asnumpy() if isinstance(a, Tensor) else np.asarray(a)
        b = b.asnumpy() if isinstance(b, Tensor) else np.asarray(b)
        np.testing.assert_array_equal(b, a)


@pytest.mark.parametrize("device", ["CPU", "Ascend"])
@pytest.mark.parametrize("name", sorted(LOOP_CASES))
def test_break_continue_on_tensors_as_in_pynative(name, device):
    fn, make = LOOP_CASES[name]
    ms.set_context(mode=ms.PYNATIVE_MODE)
    eager = fn(*make())
    ms.set_context(mode=ms.GRAPH_MODE, device_target=device)
    same(eager, ms.jit(fn)(*make()))


class Accumulate(nn.Cell):
    def __init__(self):
        super().__init__()
        self.total = ms.Parameter(Tensor(np.zeros(1, np.float32)), name="total")

    def construct(self, x):
        for i in range(4):
            if x[i] > 2:
                break
            ops.assign(self.total, self.total + x[i])
            print("step")
        return self.total + 0


@pytest.mark.parametrize("mode", MODES)
def test_a_skipped_iteration_has_no_side_effects(mode, capfd):
    ms.set_context(mode=mode)
    net = Accumulate()
    out = net(v(1.0, 2.0, 3.0, 4.0))
    assert out.asnumpy().tolist() == [3.0] and net.total.asnumpy().tolist() == [3.0]
    assert capfd.readouterr().out.count("step") == 2


def break_loss(x, w):
    s = x[0] * 0
    for i in range(4):
        if x[i] * w > 2:
            break
        s = s + x[i] * w * w
    return s


@ms.jit
def grad_of_break_loss(x, w):
    return ms.grad(break_loss, grad_position=1)(x, w)


def test_gradients_through_an_unrolled_for_with_a_tensor_break():
    x, w = v(1.0, 2.0, 3.0, 4.0), Tensor(np.array(0.9, np.float32))
    ms.set_context(mode=ms.PYNATIVE_MODE)
    eager = ms.grad(break_loss, grad_position=1)(x, w).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    np.testing.assert_allclose(grad_of_break_loss(x, w).asnumpy(), eager, rtol=1e-6)
    np.testing.assert_allclose(eager, 2 * 0.9 * 3.0, rtol=1e-6)


def while_break_loss(x, n):
    i = 0
    s = x * 0
    while i < n:
        if s.sum() > 5:
            break
        s = s + x * x
        i = i + 1
    return s.sum()


@ms.jit
def grad_of_while_break(x, n):
    return ms.grad(while_break_loss)(x, n)


def test_a_while_on_a_tensor_with_break_is_differentiated():
    x, n = v(1.0, 2.0), Tensor(5, ms.int32)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    eager = ms.grad(while_break_loss)(x, n).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    np.testing.assert_allclose(grad_of_while_break(x, n).asnumpy(), eager, rtol=1e-6)
    # s = k * x * x after k iterations; k = 2 (s.sum() = 10 > 5 breaks the third)
    np.testing.assert_allclose(eager, 2 * 2 * np.array([1.0, 2.0]), rtol=1e-6)


@pytest.mark.skipif(IREE_COMPILE is None or IREE_RUN is None, reason="IREE is not installed")
@pytest.mark.parametrize("name", ["for_break_taken", "tensor_while_break"])
def test_break_on_iree_as_on_the_cpu(name, tmp_path):
    fn, make = LOOP_CASES[name]
    inputs = make()
    ms.set_context(mode=ms.GRAPH_MODE)
    ours = ms.jit(fn)(*inputs)
    ours = ours if isinstance(ours, tuple) else (ours,)
    (program,) = api.cached_programs()
    theirs = run_iree(
        str(program.module), [x.asnumpy() for x in inputs], len(ours), tmp_path, program.entry_name
    )
    for a, b in zip(ours, theirs):
        np.testing.assert_array_equal(b, a.asnumpy())


# -- return under a tensor condition inside a loop ------------------------------------


def return_in_for(x):
    for i in range(3):
        if x[i] > 0:
            return x * i
        x = x + 1
    return x * 10


def return_in_nested_for(x):
    s = x[0] * 0
    for i in range(3):
        for j in range(2):
            if x[i] + j > 2:
                return s - 1
            s = s + x[i] * j
        s = s * 2
    return s


def return_after_break(x):
    for i in range(3):
        if x[i] > 5:
            break
        if x[i] < 0:
            return x - i, i
    return x, -1


class ReturnInLoopNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.layers = nn.CellList([nn.Dense(2, 2, weight_init="ones") for _ in range(3)])

    def construct(self, x):
        for layer in self.layers:
            x = layer(x)
            if x.sum() > 50:
                return x / 100
        return x


RETURN_CASES = {
    "for_returns": (return_in_for, lambda: (v(-1.0, 0.5, 3.0),)),
    "for_no_return": (return_in_for, lambda: (v(-5.0, -5.0, -5.0),)),
    "for_returns_first": (return_in_for, lambda: (v(1.0, -2.0, 0.0),)),
    "nested_returns": (return_in_nested_for, lambda: (v(1.0, 1.5, 2.5),)),
    "nested_no_return": (return_in_nested_for, lambda: (v(0.0, 0.5, 0.1),)),
    "break_then_return": (return_after_break, lambda: (v(1.0, -1.0, 9.0),)),
    "break_no_return": (return_after_break, lambda: (v(1.0, 9.0, -1.0),)),
}


@pytest.mark.parametrize("device", ["CPU", "Ascend"])
@pytest.mark.parametrize("name", sorted(RETURN_CASES))
def test_return_on_a_tensor_inside_a_loop(name, device):
    fn, make = RETURN_CASES[name]
    ms.set_context(mode=ms.PYNATIVE_MODE)
    eager = fn(*make())
    ms.set_context(mode=ms.GRAPH_MODE, device_target=device)
    same(eager, ms.jit(fn)(*make()))


@pytest.mark.parametrize("scale", [1.0, 10.0])
def test_return_inside_a_loop_over_a_cell_list(scale):
    x = v([1.0, 2.0]) * scale
    ms.set_context(mode=ms.PYNATIVE_MODE)
    net = ReturnInLoopNet()
    eager = net(x)
    ms.set_context(mode=ms.GRAPH_MODE)
    np.testing.assert_allclose(net(x).asnumpy(), eager.asnumpy(), rtol=1e-6)


def return_loss(x, w):
    for i in range(3):
        y = x * w * (i + 1)
        if y.sum() > 4:
            return (y * y).sum()
    return w.sum()


@ms.jit
def grad_of_return_loss(x, w):
    return ms.grad(return_loss, grad_position=1)(x, w)


def test_gradients_through_a_return_inside_an_unrolled_for():
    x, w = v(1.0, 1.0), v(1.0, 0.5)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    eager = ms.grad(return_loss, grad_position=1)(x, w).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    np.testing.assert_allclose(grad_of_return_loss(x, w).asnumpy(), eager, rtol=1e-6)


def test_refused_return_forms_in_loops():
    def not_at_the_end(x, flag):
        if flag:
            for i in range(3):
                if x[i] > 0:
                    return x
        return x * 2

    def in_a_tensor_while(x, n):
        i = 0
        while i < n:
            if x.sum() > 0:
                return x
            i = i + 1
        return x

    ms.set_context(mode=ms.GRAPH_MODE)
    with pytest.raises(RuntimeError, match="needs the loop to be followed by the end") as info:
        ms.jit(not_at_the_end)(v(1.0, 2.0, 3.0), True)
    assert f"{FILE}:" in str(info.value)
    with pytest.raises(RuntimeError, match="'return' in a while on a tensor is not supported"):
        ms.jit(in_a_tensor_while)(v(1.0), Tensor(3, ms.int32))
