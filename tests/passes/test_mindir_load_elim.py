"""mindir-load-elim: merging, the TensorMove rules per level, the level option and
MS_DEV_SIDE_EFFECT_LOAD_ELIM, the level-3 warning, and over generated programs:
level 2 <= level 1 <= level 0 TensorMoves, and levels 0-2 give the program-order
(PyNative) results on the CPU executor, whose Loads alias their Parameter."""

from __future__ import annotations

import random
import warnings
from dataclasses import dataclass, field

import monad_order_programs as P
import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp

from mindjit.backend.cpu import CpuExecutable
from mindjit.dialects import mindir
from mindjit.dialects.parsing import parse_module
from mindjit.passes.mindir_load_elim import (
    LEVEL3_WARNING,
    LoadElimWarning,
    MindirLoadElimPass,
    count_tensor_moves,
    merge_loads,
)
from mindjit.passes.pipelines import lower_to_tensor, parse_pipeline, run_passes
from mindjit.support.config import LOAD_ELIM_ENV as ENV_VAR
from mindjit.support.config import load_elim_level as default_level
from mindjit.support.errors import MindjitError

SIDE_EFFECTS = "mindir-auto-monad,mindir-depend-order"


def load_elim(module: ModuleOp, level: int) -> ModuleOp:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LoadElimWarning)
        run_passes(parse_pipeline(f"mindir-load-elim{{level={level}}}"), module)
    return module


def run_module(module: ModuleOp, entry: str, *args: np.ndarray, symbols=()) -> tuple:
    exe = CpuExecutable(lower_to_tensor(module.clone()))
    outs = exe.run(entry, *args)
    return [np.asarray(o).tolist() for o in outs], {
        s: np.asarray(exe.get_global(s)).tolist() for s in symbols
    }


# -- the docs' programs ------------------------------------------------------------------


@pytest.mark.parametrize(("level", "moves"), [(0, 3), (1, 3), (2, 0), (3, 0)])
@pytest.mark.parametrize(("x", "expected"), [(1, 3), (4, 12)])
def test_docs_forward_program_through_the_frontend(level, moves, x, expected):
    args = (P._i32(x),)
    module, name, symbols = P.frontend(P.ForwardNet, args)
    P.run_pipeline(module, SIDE_EFFECTS)
    load_elim(module, level)
    assert count_tensor_moves(module) == moves
    outs, values = run_module(module, name, np.array(x, np.int32), symbols=symbols)
    assert outs == [expected]
    assert values == {"param": 2}


BACKWARD = """
mindir.parameter @param = dense<0> : tensor<i32>

func.func @backward(%u0: !mindir.u) -> (tensor<i32>, !mindir.u) {
  %c0 = mindir.constant dense<0> : tensor<i32>
  %c1 = mindir.constant dense<1> : tensor<i32>
  %c2 = mindir.constant dense<2> : tensor<i32>
  %p = mindir.get_parameter @param : !mindir.ref<tensor<i32>>
  %a0 = mindir.assign %p, %c0, %u0 : tensor<i32>
  %u1 = mindir.update_state %u0, %a0 : tensor<i32>
  %l0 = mindir.load %p, %u1 : tensor<i32>
  %u2 = mindir.update_state %u1, %l0 : tensor<i32>
  %a1 = mindir.assign %p, %c1, %u2 : tensor<i32>
  %u3 = mindir.update_state %u2, %a1 : tensor<i32>
  %l1 = mindir.load %p, %u3 : tensor<i32>
  %u4 = mindir.update_state %u3, %l1 : tensor<i32>
  %a2 = mindir.assign %p, %c2, %u4 : tensor<i32>
  %u5 = mindir.update_state %u4, %a2 : tensor<i32>
  %l2 = mindir.load %p, %u5 : tensor<i32>
  %t0 = mindir.make_tuple %l2, %l1 : (tensor<i32>, tensor<i32>) -> tuple<tensor<i32>, tensor<i32>>
  %s0 = mindir.addn %t0 : (tuple<tensor<i32>, tensor<i32>>) -> tensor<i32>
  %t1 = mindir.make_tuple %s0, %l0 : (tensor<i32>, tensor<i32>) -> tuple<tensor<i32>, tensor<i32>>
  %s1 = mindir.addn %t1 : (tuple<tensor<i32>, tensor<i32>>) -> tensor<i32>
  %u6 = mindir.update_state %u5, %l2 : tensor<i32>
  func.return %s1, %u6 : tensor<i32>, !mindir.u
}
"""


@pytest.mark.parametrize(("level", "moves", "result"), [(0, 3, 3), (1, 3, 3), (2, 3, 3), (3, 0, 6)])
def test_docs_backward_ir_needs_the_copies_and_level_3_goes_wrong(level, moves, result):
    module = load_elim(parse_module(BACKWARD, "backward.mlir"), level)
    assert count_tensor_moves(module) == moves
    outs, _ = run_module(module, "backward")
    assert outs == [result]  # 0 + 1 + 2; level 3 reads the last value three times


# -- rules ----------------------------------------------------------------------------------

MERGE = """
mindir.parameter @w = dense<[1.0, 2.0]> : tensor<2xf32>
mindir.parameter @v = dense<[0.0, 0.0]> : tensor<2xf32>

func.func @f(%x: tensor<2xf32>, %u0: !mindir.u) -> (tensor<2xf32>, !mindir.u) {
  %pw = mindir.get_parameter @w : !mindir.ref<tensor<2xf32>>
  %pv = mindir.get_parameter @v : !mindir.ref<tensor<2xf32>>
  %a = mindir.load %pw, %u0 : tensor<2xf32>
  %b = mindir.load %pw, %u0 : tensor<2xf32>
  %u1 = mindir.update_state %u0, %a : tensor<2xf32>
  %c = mindir.load %pw, %u1 : tensor<2xf32>
  %s = mindir.add %b, %c : tensor<2xf32>
  %av = mindir.assign %pv, %s, %u1 : tensor<2xf32>
  %u2 = mindir.update_state %u1, %av : tensor<2xf32>
  %e = mindir.load %pw, %u2 : tensor<2xf32>
  %aw = mindir.assign %pw, %x, %u2 : tensor<2xf32>
  %u3 = mindir.update_state %u2, %e, %aw : tensor<2xf32>, tensor<2xf32>
  %d = mindir.load %pw, %u3 : tensor<2xf32>
  %r = mindir.add %e, %d : tensor<2xf32>
  func.return %r, %u3 : tensor<2xf32>, !mindir.u
}
"""


def test_merge_loads_no_assign_separates():
    module = parse_module(MERGE, "merge.mlir")
    assert merge_loads(module) == 3  # %b, %c, %e become %a; %d stays (after @w's assign)
    loads = [op for op in module.walk() if isinstance(op, mindir.LoadOp)]
    assert [ld.result.name_hint for ld in loads] == ["a", "d"]


def test_merge_keeps_loads_apart_in_unthreaded_ir():
    # all effects on the entry state (not auto-monad'ed): block order separates them
    src = """
mindir.parameter @w = dense<1.0> : tensor<f32>
func.func @f(%x: tensor<f32>, %u0: !mindir.u) -> tensor<f32> {
  %pw = mindir.get_parameter @w : !mindir.ref<tensor<f32>>
  %a = mindir.load %pw, %u0 : tensor<f32>
  %w = mindir.assign %pw, %x, %u0 : tensor<f32>
  %b = mindir.load %pw, %u0 : tensor<f32>
  %r = mindir.add %a, %b : tensor<f32>
  func.return %r : tensor<f32>
}
"""
    module = parse_module(src, "u.mlir")
    assert merge_loads(module) == 0
    for level in (1, 2):
        moved = load_elim(parse_module(src, "u.mlir"), level)
        outs, _ = run_module(moved, "f", np.array(5.0, np.float32))
        assert outs == [6.0]  # old 1 + new 5


def test_level_2_copies_a_load_whose_consumer_needs_the_assign():
    src = """
mindir.parameter @p = dense<2.0> : tensor<f32>
func.func @f(%y: tensor<f32>, %u0: !mindir.u) -> (tensor<f32>, !mindir.u) {
  %pp = mindir.get_parameter @p : !mindir.ref<tensor<f32>>
  %x = mindir.load %pp, %u0 : tensor<f32>
  %u1 = mindir.update_state %u0, %x : tensor<f32>
  %a = mindir.assign %pp, %y, %u1 : tensor<f32>
  %u2 = mindir.update_state %u1, %a : tensor<f32>
  %s = mindir.add %x, %a : tensor<f32>
  func.return %s, %u2 : tensor<f32>, !mindir.u
}
"""
    results = {}
    for level in range(4):
        module = load_elim(parse_module(src, "a.mlir"), level)
        results[level] = (
            count_tensor_moves(module),
            run_module(module, "f", np.array(5, np.float32))[0],
        )
    assert results[0] == results[1] == results[2] == (1, [7.0])
    assert results[3] == (0, [10.0])  # the Load sees the Assign


def test_escaping_loads_are_copied_at_levels_1_and_2():
    src = """
mindir.parameter @p = dense<1.0> : tensor<f32>
mindir.parameter @r = dense<3.0> : tensor<f32>
func.func @twice(%t: tensor<f32>) -> tensor<f32> {
  %s = mindir.add %t, %t : tensor<f32>
  func.return %s : tensor<f32>
}
func.func @f(%u0: !mindir.u) -> (tensor<f32>, tensor<f32>, tensor<f32>) {
  %pp = mindir.get_parameter @p : !mindir.ref<tensor<f32>>
  %pr = mindir.get_parameter @r : !mindir.ref<tensor<f32>>
  %lp = mindir.load %pp, %u0 : tensor<f32>
  %y = func.call @twice(%lp) : (tensor<f32>) -> tensor<f32>
  %lr = mindir.load %pr, %u0 : tensor<f32>
  %m = mindir.mul %lr, %y : tensor<f32>
  %lq = mindir.load %pr, %u0 : tensor<f32>
  func.return %y, %m, %lp : tensor<f32>, tensor<f32>, tensor<f32>
}
"""
    counts = [count_tensor_moves(load_elim(parse_module(src, "e.mlir"), lv)) for lv in range(4)]
    assert counts == [2, 1, 1, 0]  # %lq merged into %lr; %lp escapes twice, one copy


@pytest.mark.parametrize("level", [0, 1, 2])
def test_a_load_read_in_later_iterations_of_a_writing_loop_is_copied(level):
    src = """
mindir.parameter @w = dense<10> : tensor<i32>
func.func @f(%n: tensor<i32>, %u0: !mindir.u) -> (tensor<i32>, !mindir.u) {
  %pw = mindir.get_parameter @w : !mindir.ref<tensor<i32>>
  %zero = mindir.constant dense<0> : tensor<i32>
  %one = mindir.constant dense<1> : tensor<i32>
  %before = mindir.load %pw, %u0 : tensor<i32>
  %u1 = mindir.update_state %u0, %before : tensor<i32>
  %r:3 = mindir.while (%i = %zero, %acc0 = %zero, %us = %u1) : (tensor<i32>, tensor<i32>, !mindir.u) -> (tensor<i32>, tensor<i32>, !mindir.u) {
    %lt = mindir.less %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
    mindir.condition(%lt : tensor<i1>) %i, %acc0, %us : tensor<i32>, tensor<i32>, !mindir.u
  } do {
  ^bb0(%j: tensor<i32>, %acc: tensor<i32>, %ub: !mindir.u):
    %a = mindir.assign %pw, %j, %ub : tensor<i32>
    %ub1 = mindir.update_state %ub, %a : tensor<i32>
    %inner = mindir.load %pw, %ub1 : tensor<i32>
    %m = mindir.add %inner, %acc : tensor<i32>
    %m2 = mindir.add %m, %before : tensor<i32>
    %ub2 = mindir.update_state %ub1, %inner, %m : tensor<i32>, tensor<i32>
    %j1 = mindir.add %j, %one : tensor<i32>
    mindir.yield %j1, %m2, %ub2 : tensor<i32>, tensor<i32>, !mindir.u
  }
  func.return %r#1, %r#2 : tensor<i32>, !mindir.u
}
"""
    module = load_elim(parse_module(src, "loop.mlir"), level)
    assert count_tensor_moves(module) == {0: 2, 1: 2, 2: 1}[level]
    outs, values = run_module(module, "f", np.array(3, np.int32), symbols=["w"])
    assert outs == [(0 + 10) + (1 + 10) + (2 + 10)]  # %before stays 10
    assert values == {"w": 2}


# -- the option and the environment ---------------------------------------------------------


def test_level_defaults_to_the_environment(monkeypatch):
    monkeypatch.delenv(ENV_VAR, raising=False)
    assert default_level() == 1
    assert MindirLoadElimPass().level == 1  # the pass's own default reads no environment
    monkeypatch.setenv(ENV_VAR, "")
    assert default_level() == 1
    for value in "0123":
        monkeypatch.setenv(ENV_VAR, f" {value} ")
        assert parse_pipeline("mindir-load-elim")[0].level == int(value)  # type: ignore[attr-defined]
        assert MindirLoadElimPass().level == 1
    monkeypatch.setenv(ENV_VAR, "0")
    assert parse_pipeline("mindir-load-elim{level=2}")[0].level == 2  # type: ignore[attr-defined]  # the option wins
    module = parse_module(BACKWARD, "b.mlir")
    run_passes(parse_pipeline("mindir-load-elim"), module)
    assert count_tensor_moves(module) == 3


@pytest.mark.parametrize("value", ["4", "-1", "one", "1.0", "2 3"])
def test_a_bad_environment_value_is_a_clear_error(monkeypatch, value):
    monkeypatch.setenv(ENV_VAR, value)
    with pytest.raises(
        MindjitError, match=rf"MS_DEV_SIDE_EFFECT_LOAD_ELIM must be 0, 1, 2 or 3, got '{value}'"
    ):
        run_passes(parse_pipeline("mindir-load-elim"), parse_module(BACKWARD, "b.mlir"))


def test_a_bad_level_option_is_a_clear_error():
    with pytest.raises(
        MindjitError,
        match=r"bad options for pass 'mindir-load-elim': level must be 0, 1, 2 or 3, got '4'",
    ):
        parse_pipeline("mindir-load-elim{level=4}")
    with pytest.raises(ValueError, match="level must be 0, 1, 2 or 3"):
        MindirLoadElimPass(level=-1)


def test_level_3_warns_that_results_may_be_wrong():
    module = parse_module(BACKWARD, "b.mlir")
    with pytest.warns(LoadElimWarning, match="results may be wrong"):
        run_passes(parse_pipeline("mindir-load-elim{level=3}"), module)
    assert "MS_DEV_SIDE_EFFECT_LOAD_ELIM=3" in LEVEL3_WARNING
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # other levels are silent
        run_passes(parse_pipeline("mindir-load-elim{level=2}"), parse_module(BACKWARD, "b.mlir"))


# -- the frontend programs of the side-effect tests -------------------------------------------


@pytest.mark.parametrize("key", sorted(P.PROGRAMS))
def test_levels_agree_on_the_side_effect_programs(key):
    cls, make_args = P.PROGRAMS[key]
    seen = []
    for level in range(3):
        args = make_args()
        module, name, symbols = P.frontend(cls, args)
        P.run_pipeline(module, SIDE_EFFECTS)
        load_elim(module, level)
        seen.append((count_tensor_moves(module), P.execute(module, name, args, symbols)))
    assert seen[2][0] <= seen[1][0] <= seen[0][0]
    assert seen[0][1] == seen[1][1] == seen[2][1]


# -- generated programs ------------------------------------------------------------------------

T = "tensor<3xf32>"
PAIR = f"tuple<{T}, {T}>"
BINARY = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "maximum": np.maximum}


@dataclass
class Generated:
    """A straight-line program as the frontend emits it (effects on the entry state,
    in program order), and its program-order meaning."""

    seed: int
    n_params: int = 3
    n_ops: int = 30
    lines: list[str] = field(default_factory=list)
    steps: list[tuple] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        rng = random.Random(self.seed)
        self.init = {
            f"p{i}": np.array([rng.randint(-3, 3) for _ in range(3)], np.float32)
            for i in range(self.n_params)
        }
        pool, count = ["%x"], 0

        def new() -> str:
            nonlocal count
            count += 1
            return f"%v{count}"

        def ref(p: str) -> str:
            r = new()
            self.lines.append(f"{r} = mindir.get_parameter @{p} : !mindir.ref<{T}>")
            return r

        kinds = ["load", "assign", "binary", "tuple", "depend", "call", "reshape"]
        for _ in range(self.n_ops):
            kind = rng.choices(kinds, [5, 3, 4, 1, 1, 1, 1])[0]
            v = None
            if kind == "load" or len(pool) < 2:
                p = f"p{rng.randrange(self.n_params)}"
                r, v = ref(p), new()
                self.lines.append(f"{v} = mindir.load {r}, %u0 : {T}")
                self.steps.append(("load", v, p))
            elif kind == "assign":
                p, src = f"p{rng.randrange(self.n_params)}", rng.choice(pool)
                r, v = ref(p), new()
                self.lines.append(f"{v} = mindir.assign {r}, {src}, %u0 : {T}")
                self.steps.append(("assign", v, p, src))
            elif kind == "binary":
                a, b, op = rng.choice(pool), rng.choice(pool), rng.choice(sorted(BINARY))
                v = new()
                self.lines.append(f"{v} = mindir.{op} {a}, {b} : {T}")
                self.steps.append(("binary", v, op, a, b))
            elif kind == "tuple":
                a, b, t, v = rng.choice(pool), rng.choice(pool), new(), new()
                self.lines.append(f"{t} = mindir.make_tuple {a}, {b} : ({T}, {T}) -> {PAIR}")
                if rng.random() < 0.5:
                    self.lines.append(f"{v} = mindir.addn {t} : ({PAIR}) -> {T}")
                    self.steps.append(("binary", v, "add", a, b))
                else:
                    i = rng.randrange(2)
                    self.lines.append(
                        f"{v} = mindir.tuple_get_item {t} {{index = {i} : i64}} : ({PAIR}) -> {T}"
                    )
                    self.steps.append(("same", v, (a, b)[i]))
            elif kind == "depend":
                a, b, v = rng.choice(pool), rng.choice(pool), new()
                self.lines.append(f"{v} = mindir.depend {a}, {b} : {T}, {T}")
                self.steps.append(("same", v, a))
            elif kind == "reshape":
                a, t, v = rng.choice(pool), new(), new()
                self.lines.append(f"{t} = mindir.reshape {a} : ({T}) -> tensor<1x3xf32>")
                self.lines.append(f"{v} = mindir.reshape {t} : (tensor<1x3xf32>) -> {T}")
                self.steps.append(("same", v, a))
            else:
                a, v = rng.choice(pool), new()
                self.lines.append(f"{v} = func.call @twice({a}) : ({T}) -> {T}")
                self.steps.append(("call", v, a))
            pool.append(v)
        self.outputs = rng.sample(pool[1:], k=min(len(pool) - 1, rng.randint(1, 3)))

    def source(self) -> str:
        params = "\n".join(
            f"mindir.parameter @{k} = dense<[{', '.join(str(float(x)) for x in v)}]> : {T}"
            for k, v in self.init.items()
        )
        types = ", ".join([T] * len(self.outputs))
        body = "\n".join(f"  {line}" for line in self.lines)
        return f"""{params}
func.func @twice(%a: {T}) -> {T} {{
  %b = mindir.add %a, %a : {T}
  func.return %b : {T}
}}
func.func @main(%x: {T}, %u0: !mindir.u) -> ({types}) {{
{body}
  func.return {", ".join(self.outputs)} : {types}
}}
"""

    def expected(self, x: np.ndarray) -> tuple:
        """Program order: a Load is the Parameter's value at that point."""
        state = {k: v.copy() for k, v in self.init.items()}
        env = {"%x": x}
        for step in self.steps:
            kind, out = step[0], step[1]
            if kind == "load":
                env[out] = state[step[2]].copy()
            elif kind == "assign":
                state[step[2]] = env[step[3]].copy()
                env[out] = env[step[3]]
            elif kind == "binary":
                env[out] = BINARY[step[2]](env[step[3]], env[step[4]])
            elif kind == "same":
                env[out] = env[step[2]]
            else:
                env[out] = env[step[2]] + env[step[2]]
        return [env[o].tolist() for o in self.outputs], {k: v.tolist() for k, v in state.items()}


@pytest.mark.parametrize("seed", range(60))
def test_generated_programs_monotonic_and_correct(seed):
    program = Generated(seed, n_params=2 + seed % 4, n_ops=20 + seed % 30)
    src = program.source()
    x = np.array([1.0, -2.0, 3.0], np.float32)
    expected = program.expected(x)
    counts = []
    for level in range(4):
        module = parse_module(src, f"gen{seed}.mlir")
        P.run_pipeline(module, SIDE_EFFECTS)
        load_elim(module, level)
        counts.append(count_tensor_moves(module))
        got = run_module(module, "main", x, symbols=list(program.init))
        if level < 3:
            assert got == expected, f"level {level}"
    assert counts[3] == 0
    assert counts[2] <= counts[1] <= counts[0]
    loads = sum(1 for line in program.lines if "mindir.load" in line)
    assert counts[0] <= loads
