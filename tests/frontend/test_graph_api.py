"""jit forms, JitConfig levels, the in-process compile cache, Parameters and saved graphs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import graph_api_programs as P
import numpy as np
import pytest

import mindjit as ms
from mindjit.frontend.graph import api


@pytest.fixture(autouse=True)
def pynative_after():
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE, jit_config={"jit_level": "O1"})


def test_jit_as_function_and_decorator_forms():
    x = ms.Tensor([1.0, 2.0])
    assert ms.jit(P.double)(x).asnumpy().tolist() == [2.0, 4.0]
    assert ms.jit(jit_config=ms.JitConfig(jit_level="O0"))(P.double)(x).asnumpy().tolist() == [
        2.0,
        4.0,
    ]
    assert ms.jit(P.double, jit_config=ms.JitConfig(jit_level="O2"))(x).asnumpy().tolist() == [
        2.0,
        4.0,
    ]


def test_jit_on_construct_compiles_in_pynative_mode():
    api.clear_cache()
    out = P.JitConstruct()(ms.Tensor([1.0]))
    assert out.asnumpy().tolist() == [2.0]
    assert len(api.cached_programs()) == 1


def test_one_compilation_per_signature():
    api.clear_cache()
    f = ms.jit(P.double)
    f(ms.Tensor([1.0, 2.0]))
    f(ms.Tensor([3.0, 4.0]))
    assert len(api.cached_programs()) == 1
    f(ms.Tensor([1.0, 2.0, 3.0]))
    f(ms.Tensor([1, 2]))
    assert len(api.cached_programs()) == 3


@pytest.mark.parametrize("level", ["O0", "O1", "O2"])
def test_jit_levels_pick_their_pipeline(level):
    api.clear_cache()
    net = P.Doubler()
    net.set_jit_config(ms.JitConfig(jit_level=level))
    ms.set_context(mode=ms.GRAPH_MODE)
    assert net(ms.Tensor([2.0])).asnumpy().tolist() == [4.0]
    (program,) = api.cached_programs()
    stages = [stage.name for stage in program.report.stages]
    optional = {
        "O0": [],
        "O1": ["mindir-cf-to-select", "canonicalize", "cse"],
        "O2": ["mindir-cf-to-select", "canonicalize", "cse", "dce"],
    }
    expected = [
        "frontend",
        "mindir-auto-monad",
        "mindir-inline",
        "mindir-grad",
        "mindir-vmap",
        *optional[level],
        "mindir-depend-order",
        "mindir-load-elim",
        "verify-mindir",
        "convert-mindir-to-tensor",
    ]
    assert stages[: len(expected)] == expected


def test_bad_jit_level():
    with pytest.raises(ValueError):
        ms.JitConfig(jit_level="O9")


def test_parameter_assign_persists_across_calls():
    ms.set_context(mode=ms.GRAPH_MODE)
    net = P.Counter()
    assert net(ms.Tensor([10.0])).asnumpy().tolist() == [11.0]
    assert net(ms.Tensor([10.0])).asnumpy().tolist() == [12.0]
    assert net.count.asnumpy().item() == 2.0
    ms.set_context(mode=ms.PYNATIVE_MODE)
    assert net(ms.Tensor([10.0])).asnumpy().tolist() == [13.0]
    ms.set_context(mode=ms.GRAPH_MODE)
    assert net(ms.Tensor([10.0])).asnumpy().tolist() == [14.0]


def test_parameters_named_with_a_leading_digit_compile():
    """Their symbols and argument names are made valid identifiers; the module
    prints and parses back, and the Parameter is updated."""
    from xdsl.parser import Parser

    from mindjit.dialects.context import make_context

    ms.set_context(mode=ms.GRAPH_MODE)
    net = P.DigitNamed()
    program = api.compile_cell(net, (ms.Tensor([1.0, 1.0, 1.0]),))
    assert "@_0_weight" in str(program.module)
    Parser(make_context(), str(program.module)).parse_module()
    assert net(ms.Tensor([1.0, 1.0, 1.0])).asnumpy().tolist() == [2.0, 3.0, 4.0]
    assert net.w.asnumpy().tolist() == [2.0, 3.0, 4.0]


def test_graph_print_one_line_per_argument(capsys):
    ms.jit(P.with_print)(ms.Tensor([1, 2, 3], ms.int32))
    assert capsys.readouterr().out.splitlines() == [
        "x is",
        "Tensor(shape=[3], dtype=Int32, value=[1 2 3])",
        "Tensor(shape=[3], dtype=Int32, value=[2 3 4])",
    ]


def test_save_graphs_writes_every_stage_and_each_parses(tmp_path):
    script = (
        f"import sys; sys.path.insert(0, {str(Path(P.__file__).parent)!r})\n"
        "import mindjit as ms, graph_api_programs as P\n"
        "ms.jit(P.with_print)(ms.Tensor([1.0, 2.0]))\n"
    )
    env = {"MS_DEV_SAVE_GRAPHS": "1", "MS_DEV_SAVE_GRAPHS_PATH": str(tmp_path / "g")}
    result = subprocess.run(
        [sys.executable, "-c", script], env={**os.environ, **env}, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    files = sorted(p.name for p in (tmp_path / "g").iterdir())
    assert files[0] == "0000_with_print_00_frontend.mlir"
    assert (
        "0000_with_print_15_convert_mindir_to_tensor.mlir" in files
    )  # the fullest pipeline's 15th
    numbers = [int(f.split("_")[3]) for f in files]  # 0000_with_print_NN_stage
    assert numbers == sorted(set(numbers))
    from mindjit.dialects.parsing import parse_file

    for name in files:
        parse_file(str(tmp_path / "g" / name))


def test_tensor_results_do_not_alias_inputs():
    x = ms.Tensor(np.array([1.0, 2.0], np.float32))
    y = ms.jit(P.identity)(x)  # the graph returns its input: the result must be a copy
    y.asnumpy()[0] = 100.0
    assert x.asnumpy().tolist() == [1.0, 2.0]


def test_each_closure_gets_its_own_program():
    """One code object, two closures over different values: two programs, each
    kept for its own function object (a dead closure's program is not reused)."""
    x = ms.Tensor([1.0, 2.0])
    assert P.make_scaler(2.0)(x).asnumpy().tolist() == [2.0, 4.0]
    assert P.make_scaler(3.0)(x).asnumpy().tolist() == [3.0, 6.0]
    for k in range(5):
        assert P.make_scaler(float(k))(x).asnumpy().tolist() == [k, 2.0 * k]


def test_new_cell_never_reuses_a_dead_cells_program():
    """Python reuses ids of dead objects; a program must only serve its own Cell."""
    ms.set_context(mode=ms.GRAPH_MODE)
    for _ in range(20):
        net = P.Counter()
        net(ms.Tensor([1.0]))
        assert net.count.asnumpy().item() == 1.0
        del net


class _Scale(ms.nn.Cell):
    def __init__(self, k):
        super().__init__()
        self.k = k

    def construct(self, x):
        return x * self.k


def _temporaries(x):
    return [_Scale(k)(x) for k in range(1, 9)]  # each Cell dies after its call


def test_a_temporary_cell_in_a_graph_never_gets_a_dead_ones_graph():
    """A Cell made and called inside a graph dies after the call, and the next one
    made often takes its address: its call reused the dead Cell's traced graph
    (nn.ClipByNorm(axis=1) computed as the nn.ClipByNorm() before it). The module
    keeps the Cells its graph keys name alive."""
    x = ms.Tensor(np.ones(3, np.float32))
    for _ in range(10):

        def graph(x):
            return _temporaries(x)

        got = [t.asnumpy()[0] for t in ms.jit(graph)(x)]
        assert got == [float(k) for k in range(1, 9)]


def test_a_numpy_array_argument_is_a_constant_by_its_values():
    """Unhashable, an array was keyed by its id: every later call with a new array
    (often at the freed one's address) or the same array changed in place ran the
    first call's program. It is keyed by its contents."""
    x = ms.Tensor(np.zeros(3, np.float32))
    f = ms.jit(P.add_array)
    for i in range(6):
        a = np.full(3, float(i), np.float32)
        assert f(x, a).asnumpy().tolist() == [float(i)] * 3
        del a
    a = np.zeros(3, np.float32)
    assert f(x, a).asnumpy().tolist() == [0.0] * 3
    a[:] = 5.0
    assert f(x, a).asnumpy().tolist() == [5.0] * 3


class _Unhashable:
    __hash__ = None  # type: ignore[assignment]

    def __init__(self, k):
        self.k = k


def _scaled_by(x, cfg):
    return x * cfg.k


def _configs(x):
    return [P.scale_by(x, _Unhashable(float(k))) for k in range(1, 9)]  # each dies after


def test_an_unhashable_argument_never_gets_a_dead_ones_program():
    """An object with no value to compare stands for itself: a program made for a
    dead one is not reused for a new object at its address, between calls and
    between two calls inside one graph."""
    x = ms.Tensor(np.ones(3, np.float32))
    f = ms.jit(_scaled_by)
    for i in range(6):
        assert f(x, _Unhashable(float(i))).asnumpy().tolist() == [float(i)] * 3
    for _ in range(5):

        def graph(x):
            return _configs(x)

        assert [t.asnumpy()[0] for t in ms.jit(graph)(x)] == [float(k) for k in range(1, 9)]


def test_import_loads_the_compiler_so_a_first_compile_loads_no_module():
    """Stage times of a process's first compile are compile work, not imports."""
    script = (
        f"import sys; sys.path.insert(0, {str(Path(P.__file__).parent)!r})\n"
        "import mindjit as ms, graph_api_programs as P\n"
        "before = set(sys.modules)\n"
        "ms.set_context(mode=ms.GRAPH_MODE)\n"
        "ms.jit(P.with_print)(ms.Tensor([1.0, 2.0]))\n"
        "print(sorted(m for m in set(sys.modules) - before if m.startswith(('mindjit', 'xdsl'))))\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "[]"


def test_a_bad_environment_value_does_not_break_import_but_the_compile():
    script = (
        f"import sys; sys.path.insert(0, {str(Path(P.__file__).parent)!r})\n"
        "import mindjit as ms, graph_api_programs as P\n"
        "ms.set_context(mode=ms.GRAPH_MODE)\n"
        "ms.jit(P.double)(ms.Tensor([1.0]))\n"
    )
    env = {**os.environ, "MINDJIT_CF_TO_SELECT": "maybe"}
    result = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True)
    assert result.returncode != 0
    assert "MINDJIT_CF_TO_SELECT" in result.stderr
    assert 'File "<string>", line 4' in result.stderr  # raised by the call, not the import


def test_dumps_of_two_compiles_keep_both_and_stage_numbers_stay(tmp_path):
    """A second graph does not overwrite the first one's dumps, and a stage keeps its
    number when an optional pass before it is off (MINDJIT_CF_TO_SELECT=0)."""
    script = (
        f"import sys; sys.path.insert(0, {str(Path(P.__file__).parent)!r})\n"
        "import mindjit as ms, graph_api_programs as P\n"
        "ms.jit(P.with_print)(ms.Tensor([1.0, 2.0]))\n"
        "ms.jit(P.with_print)(ms.Tensor([1.0, 2.0, 3.0]))\n"  # another signature: compiled again
    )

    def names(cf_to_select: str) -> list[str]:
        out = tmp_path / cf_to_select
        env = {
            "MS_DEV_SAVE_GRAPHS": "1",
            "MS_DEV_SAVE_GRAPHS_PATH": str(out),
            "MINDJIT_CF_TO_SELECT": cf_to_select,
        }
        result = subprocess.run(
            [sys.executable, "-c", script],
            env={**os.environ, **env},
            capture_output=True,
            text=True,
        )
        assert result.returncode == 0, result.stderr
        return sorted(p.name for p in out.iterdir())

    on, off = names("1"), names("0")
    for files in (on, off):
        first = [f for f in files if f.startswith("0000_with_print_")]
        second = [f for f in files if f.startswith("0001_with_print_")]
        assert first and len(first) == len(second)
    assert "0000_with_print_05_mindir_cf_to_select.mlir" in on
    assert not any("cf_to_select" in f for f in off)
    after = [f for f in on if f.startswith("0000_") and int(f.split("_")[3]) > 5]
    assert after == [f for f in off if f.startswith("0000_") and int(f.split("_")[3]) > 5]
