"""Big and deep programs compile and give the right answer, or a located error;
never a RecursionError (issue 29 §4).

A 1000-term sum was a RecursionError in the evaluator; a 3000-term one also in
parsing its source; a tensor elif chain of 200, a constant one of 1500, and
ms-opt on 300 nested regions ran out of Python's default 1000 frames. Programs
are written to files (graph mode reads the source) and imported with the
recursion limit CPython's own compiler needs for them; every compile runs at
the default limit, as a user's would after the import.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import threading
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp

import mindjit as ms
from mindjit.frontend.graph import api, too_deep
from mindjit.frontend.graph.program import CompiledProgram
from mindjit.passes.pipelines import run_passes
from mindjit.support.deep_stack import deep_stack, frame_budget

DEFAULT_LIMIT = 1000


@pytest.fixture(autouse=True)
def graph_mode():
    ms.set_context(mode=ms.GRAPH_MODE, device_target="CPU")
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    api.clear_cache()


@pytest.fixture
def load(tmp_path: Path):
    """`load(source)`: the module of `source`, imported from a file."""
    count = iter(range(1000))

    def load(source: str):  # type: ignore[no-untyped-def]
        name = f"deep_program_{next(count)}"
        path = tmp_path / f"{name}.py"
        path.write_text("import mindjit as ms\n\n" + source)
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        saved = sys.getrecursionlimit()
        sys.setrecursionlimit(20_000)  # CPython compiles a 3000-term sum only so
        try:
            spec.loader.exec_module(module)
        finally:
            sys.setrecursionlimit(saved)
        assert sys.getrecursionlimit() == DEFAULT_LIMIT
        return module

    return load


def ones() -> ms.Tensor:
    return ms.Tensor(np.ones(2, np.float32))


def value(t: ms.Tensor) -> list[float]:
    return t.asnumpy().tolist()


def sum_of(n: int) -> str:
    return "def f(x):\n    return " + " + ".join(["x"] * n) + "\n"


# --- long expressions: no recursion per link (expr_chains.py) ------------------------


@pytest.mark.parametrize("level", ["O0", "O1", "O2"])
def test_a_1000_term_sum_compiles_at_every_jit_level(load, level):
    f = load(sum_of(1000)).f
    assert value(ms.jit(f, jit_level=level)(ones())) == [1000.0, 1000.0]


def test_a_3000_term_sum_compiles(load):
    """Parsing its source needs more than the default limit, too (source.py)."""
    f = load(sum_of(3000)).f
    assert value(ms.jit(f, jit_level="O0")(ones())) == [3000.0, 3000.0]
    assert sys.getrecursionlimit() == DEFAULT_LIMIT  # raised while compiling only


def test_the_gradient_of_a_1000_term_sum(load):
    m = load(sum_of(1000) + "\n\ndef df(x):\n    return ms.grad(f)(x)\n")
    assert value(ms.jit(m.df)(ones())) == [1000.0, 1000.0]


def test_a_500_term_sum_on_the_device_and_on_iree(load):
    f = load(sum_of(500)).f
    ms.set_context(device_target="Ascend")
    assert value(ms.jit(f)(ones())) == [500.0, 500.0]
    ms.set_context(device_target="CPU")
    pytest.importorskip("iree.compiler")
    assert value(ms.jit(f, backend="iree")(ones())) == [500.0, 500.0]


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("return " + "-" * 601 + "x", -1.0),  # unary operands
        ("return " + "(x + " * 190 + "x" + ")" * 190, 191.0),  # brackets: CPython takes 200
        ("return " + "g(" * 190 + "x" + ")" * 190, 191.0),  # nested calls
        ("return (" + " * 1.0 + ".join(["x"] * 500) + ").sum() * x", 1000.0),  # mixed links
        ("return " + " + ".join(f"x * {i % 3}.0 - x" for i in range(300)), 300.0 - 300.0),
    ],
    ids=["unary", "brackets", "calls", "mixed", "products"],
)
def test_long_chains_of_every_kind(load, body, expected):
    m = load(f"def g(y):\n    return y + 1.0\n\n\ndef f(x):\n    {body}\n")
    assert value(ms.jit(m.f)(ones())) == [expected, expected]


# --- deep statements ----------------------------------------------------------------


def test_an_elif_chain_of_1500_on_constants_is_a_loop(load):
    lines = ["def f(x, k):", "    if k == 0:", "        y = x * 0.0"]
    for i in range(1, 1500):
        lines += [f"    elif k == {i}:", f"        y = x * {float(i)}"]
    m = load("\n".join([*lines, "    else:", "        y = x", "    return y", ""]))
    assert value(ms.jit(m.f)(ones(), 1499)) == [1499.0, 1499.0]  # the last elif


def test_an_elif_chain_of_200_returns_on_tensors(load):
    lines = ["def f(x):", "    s = x.sum()", "    if s < 0.0:", "        return x * 0.0"]
    for i in range(1, 200):
        lines += [f"    elif s < {float(i)}:", f"        return x * {float(i)}"]
    m = load("\n".join([*lines, "    return x", ""]))
    f = ms.jit(m.f, jit_level="O0")
    assert value(f(ones())) == [3.0, 3.0]  # sum 2 < 3
    assert value(f(ones() * 100.0)) == [100.0, 100.0]  # past every branch


def test_5000_statements(load):
    m = load("def f(x):\n    a = x\n" + "    a = a + 1.0\n" * 5000 + "    return a\n")
    assert value(ms.jit(m.f, jit_level="O0")(ones())) == [5001.0, 5001.0]


# --- what cannot be compiled: a located error ---------------------------------------


def test_tensor_ifs_nested_past_the_bound_are_refused_at_their_line(load, monkeypatch):
    monkeypatch.setattr(too_deep, "max_nesting", lambda: 10)
    lines = ["def f(x):", "    s = x.sum()", "    if s < 0.0:", "        y = x"]
    for i in range(1, 30):
        lines += [f"    elif s < {float(i)}:", f"        y = x * {float(i)}"]
    m = load("\n".join([*lines, "    else:", "        y = x", "    return y", ""]))
    with pytest.raises(RuntimeError) as info:
        ms.jit(m.f)(ones())
    assert not isinstance(info.value, RecursionError)
    message = str(info.value)
    assert "nest more than 10 deep" in message
    assert f"{m.__file__}:{4 + 2 * 10 + 1}:" in message  # the 11th level's elif


def test_functions_calling_each_other_too_deep_is_a_located_error(load):
    source = "def g0(y):\n    return y + 1.0\n\n"
    source += "".join(f"def g{i}(y):\n    return g{i - 1}(y) + 1.0\n\n" for i in range(1, 600))
    m = load(source + "def f(x):\n    return g599(x)\n")
    with pytest.raises(RuntimeError) as info:
        ms.jit(m.f)(ones())
    assert not isinstance(info.value, RecursionError)
    message = str(info.value).splitlines()[0]
    assert message.startswith(f"frontend error: {m.__file__}:")
    assert "nested too deeply to compile" in message
    assert sys.getrecursionlimit() == DEFAULT_LIMIT


def test_a_recursion_error_anywhere_names_an_ops_line():
    """Past the frontend, the innermost op being worked on names the line."""
    from xdsl.dialects.builtin import FileLineColLoc, IntAttr, StringAttr
    from xdsl.dialects.test import TestOp

    def deep(op, n):  # type: ignore[no-untyped-def]
        return deep(op, n + 1)

    op = TestOp()
    op.location = FileLineColLoc(StringAttr("/user/net.py"), IntAttr(42), IntAttr(5))
    with pytest.raises(RuntimeError) as info, too_deep.guarded(None, "run"):
        deep(op, 0)
    assert not isinstance(info.value, RecursionError)
    assert str(info.value).startswith("frontend error: /user/net.py:42: ")


def test_running_a_program_has_the_room_too():
    """The device parses its kernel code at the first run: 7-8 frames a nested region."""

    class Executable:
        def run(self, entry: str, *arrays: object, depth: int = 0) -> list:
            if depth == 3000:
                raise ValueError("deep enough")
            return self.run(entry, *arrays, depth=depth + 1)

    compiled = SimpleNamespace(entry="f", executable=Executable())
    program = CompiledProgram.restored(compiled, None, [], [], None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="deep enough"):
        program((ones(),), {})


def test_a_pass_running_out_of_stack_is_not_a_pass_failure():
    """The caller locates it (too_deep.guarded) or says the input nests too deeply."""

    class Deep:
        name = "deep"

        def apply(self, ctx: object, module: object) -> None:
            raise RecursionError("maximum recursion depth exceeded")

    with pytest.raises(RecursionError):
        run_passes([Deep()], ModuleOp([]), verify_each=False)  # type: ignore[list-item]


# --- the raised limit itself ------------------------------------------------------------


def test_the_limit_is_raised_within_and_restored_after():
    assert sys.getrecursionlimit() == DEFAULT_LIMIT
    with deep_stack() as limit:
        assert sys.getrecursionlimit() == limit == frame_budget() > DEFAULT_LIMIT
        with deep_stack():
            pass
        assert sys.getrecursionlimit() == limit  # the outer block still holds it
    assert sys.getrecursionlimit() == DEFAULT_LIMIT


def test_the_limit_is_never_lowered_and_a_users_change_is_kept():
    try:
        sys.setrecursionlimit(50_000)
        with deep_stack() as limit:
            assert limit == 50_000
        sys.setrecursionlimit(DEFAULT_LIMIT)
        with deep_stack():
            sys.setrecursionlimit(3000)  # the program's own choice, made inside
        assert sys.getrecursionlimit() == 3000
    finally:
        sys.setrecursionlimit(DEFAULT_LIMIT)


def test_threads_restore_the_limit_once_the_last_leaves():
    inside, release = threading.Event(), threading.Event()

    def hold() -> None:
        with deep_stack():
            inside.set()
            release.wait(10)

    thread = threading.Thread(target=hold)
    thread.start()
    inside.wait(10)
    with deep_stack():
        pass
    raised = sys.getrecursionlimit()  # the other thread is still inside
    release.set()
    thread.join()
    assert raised > DEFAULT_LIMIT
    assert sys.getrecursionlimit() == DEFAULT_LIMIT


# --- the tools ------------------------------------------------------------------------------


def _nested_ifs(n: int) -> str:
    lines = ["func.func @f(%c: i1, %x: f32) -> f32 {"]
    lines += [f"  %r{i} = scf.if %c -> (f32) {{" for i in range(n)]
    lines.append("  scf.yield %x : f32")
    for i in reversed(range(n)):
        lines += ["  } else {", "  scf.yield %x : f32", "  }"]
        lines.append(f"  scf.yield %r{i} : f32" if i else "  func.return %r0 : f32")
    return "\n".join([*lines, "}", ""])


def test_ms_opt_parses_prints_and_rewrites_300_nested_regions(tmp_path):
    source = tmp_path / "nested.mlir"
    source.write_text(_nested_ifs(300))
    ms_opt = Path(sys.executable).parent / "ms-opt"
    out = subprocess.run(
        [str(ms_opt), str(source), "-p", "cse"], capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("scf.if") == 300
