"""mindir-cf-to-select: same results on random programs, what converts, options, pipelines."""

from __future__ import annotations

import numpy as np
import pytest
from monad_order_programs import execute
from xdsl.dialects.builtin import ModuleOp

from mindjit.dialects import mindir
from mindjit.dialects.parsing import parse_module
from mindjit.passes.mindir_cf_to_select import MindirCfToSelectPass, cf_to_select
from mindjit.passes.pipelines import jit_level_pipeline, parse_pipeline, run_passes
from mindjit.support.errors import MindjitError

T = "tensor<4xf32>"
PAIR = f"tuple<{T}, {T}>"
_UNARY = ("neg", "exp", "tanh", "abs", "relu", "sigmoid")
_BINARY = ("add", "sub", "mul", "maximum", "minimum")


class _Gen:
    """A random function of nested pure ifs (some yielding tuples, some reading a
    Parameter nothing writes) over two tensor<4xf32> and two tensor<i1> inputs."""

    def __init__(self, seed: int):
        self.rng = np.random.default_rng(seed)
        self.n = 0
        self.lines: list[str] = []

    def name(self) -> str:
        self.n += 1
        return f"%v{self.n}"

    def emit(self, indent: int, text: str) -> None:
        self.lines.append("  " * indent + text)

    def ops(self, indent: int, values: list[str], count: int) -> list[str]:
        values = list(values)
        for _ in range(count):
            r = self.name()
            kind = self.rng.integers(0, 4)
            if kind == 0:
                op = self.rng.choice(_UNARY)
                self.emit(indent, f"{r} = mindir.{op} {self.rng.choice(values)} : {T}")
            elif kind == 1:
                op = self.rng.choice(_BINARY)
                a, b = self.rng.choice(values, 2)
                self.emit(indent, f"{r} = mindir.{op} {a}, {b} : {T}")
            elif kind == 2:
                self.emit(indent, f"{r} = mindir.load %p, %u : {T}")
            else:
                c = self.scalar_cond(indent, values)
                a, b = self.rng.choice(values, 2)
                self.emit(
                    indent, f"{r} = mindir.select {c}, {a}, {b} : (tensor<i1>, {T}, {T}) -> {T}"
                )
            values.append(r)
        return values

    def scalar_cond(self, indent: int, values: list[str]) -> str:
        if self.rng.random() < 0.5:
            return str(self.rng.choice(["%c0", "%c1"]))
        s, c = self.name(), self.name()
        self.emit(
            indent,
            f"{s} = mindir.reduce_sum {self.rng.choice(values)} "
            f"{{axis = array<i64: 0>}} : ({T}) -> tensor<f32>",
        )
        self.emit(
            indent, f"{c} = mindir.less {s}, %zero : (tensor<f32>, tensor<f32>) -> tensor<i1>"
        )
        return c

    def if_op(self, indent: int, values: list[str], depth: int) -> list[str]:
        cond = self.scalar_cond(indent, values)
        tuple_result = self.rng.random() < 0.3
        types = [T, PAIR] if tuple_result else [T]
        r = self.name()
        count = len(types)
        self.emit(indent, f"{r}:{count} = mindir.if {cond} -> ({', '.join(types)}) {{")
        for branch in range(2):
            inner = self.ops(indent + 1, values, int(self.rng.integers(0, 4)))
            if depth < 2 and self.rng.random() < 0.5:
                inner = inner + self.if_op(indent + 1, inner, depth + 1)
            yields = [str(self.rng.choice(inner))]
            if tuple_result:
                t = self.name()
                a, b = self.rng.choice(inner, 2)
                self.emit(indent + 1, f"{t} = mindir.make_tuple {a}, {b} : ({T}, {T}) -> {PAIR}")
                yields.append(t)
            self.emit(indent + 1, f"mindir.yield {', '.join(yields)} : {', '.join(types)}")
            self.emit(indent, "} else {" if branch == 0 else "}")
        out = [f"{r}#0"]
        if tuple_result:
            g = self.name()
            self.emit(
                indent, f"{g} = mindir.tuple_get_item {r}#1 {{index = 1 : i64}} : ({PAIR}) -> {T}"
            )
            out.append(g)
        return out

    def program(self) -> str:
        self.emit(1, f"%p = mindir.get_parameter @ro : !mindir.ref<{T}>")
        self.emit(1, "%zero = mindir.constant dense<0.0> : tensor<f32>")
        values = ["%x", "%y"]
        for _ in range(int(self.rng.integers(1, 4))):
            values = self.ops(1, values, int(self.rng.integers(0, 3)))
            values = values + self.if_op(1, values, 0)
        body = "\n".join(self.lines)
        return (
            f"mindir.parameter @ro = dense<[0.5, -1.0, 2.0, 0.25]> : {T}\n"
            f"func.func @main(%x: {T}, %y: {T}, %c0: tensor<i1>, %c1: tensor<i1>, "
            f"%u: !mindir.u) -> ({T}, {T}) {{\n{body}\n"
            f"  func.return {values[-1]}, {values[-2]} : {T}, {T}\n}}\n"
        )


class _Arr:
    def __init__(self, value):
        self.value = np.asarray(value)

    def asnumpy(self):
        return self.value


def _ifs(module: ModuleOp) -> int:
    return sum(isinstance(op, mindir.IfOp) for op in module.walk())


@pytest.mark.parametrize("seed", range(40))
def test_random_programs_give_the_same_outputs(seed: int) -> None:
    text = _Gen(seed).program()
    rng = np.random.default_rng(1000 + seed)
    converted_any = False
    for trial in range(3):
        args = [
            _Arr(rng.normal(size=4).astype(np.float32)),
            _Arr(rng.normal(size=4).astype(np.float32)),
            _Arr(np.bool_(trial % 2)),
            _Arr(np.bool_(trial // 2)),
        ]
        before = execute(parse_module(text), "main", args, [])
        module = parse_module(text)
        n = _ifs(module)
        converted = cf_to_select(module, max_branch_ops=1000)
        module.verify()
        assert _ifs(module) == 0 and converted == n  # all pure: every if converts
        converted_any |= converted > 0
        after = execute(module, "main", args, [])
        np.testing.assert_allclose(after[0], before[0], rtol=1e-6, equal_nan=True)
    assert converted_any


def test_a_small_limit_keeps_larger_branches() -> None:
    kept = 0
    for seed in range(40):
        module = parse_module(_Gen(seed).program())
        cf_to_select(module, max_branch_ops=2)
        kept += _ifs(module)
    assert kept > 0  # some random branches have more than 2 ops


@pytest.mark.parametrize(
    "spec",
    [
        "mindir-cf-to-select{max-branch-ops=-1}",
        "mindir-cf-to-select{max-branch-ops=x}",
        "mindir-cf-to-select{max-branch-elements=-4}",
    ],
)
def test_bad_option_is_a_located_error(spec: str) -> None:
    with pytest.raises(MindjitError, match="bad options for pass 'mindir-cf-to-select'") as info:
        parse_pipeline(spec)
    assert str(info.value).startswith("<pass-pipeline>:1:1: error:")


def test_option_spellings() -> None:
    for spec in ("mindir-cf-to-select{max-branch-ops=3}", "mindir-cf-to-select{max_branch_ops=3}"):
        (p,) = parse_pipeline(spec)
        assert isinstance(p, MindirCfToSelectPass)
        assert p.max_branch_ops == 3


@pytest.mark.parametrize(("level", "runs"), [("O0", False), ("O1", True), ("O2", True)])
def test_default_pipeline_runs_it_at_o1_and_o2(level: str, runs: bool) -> None:
    assert ("mindir-cf-to-select" in jit_level_pipeline(level)) is runs


@pytest.mark.parametrize(("raw", "runs"), [("", True), ("1", True), ("0", False)])
def test_environment_switch(monkeypatch, raw: str, runs: bool) -> None:
    monkeypatch.setenv("MINDJIT_CF_TO_SELECT", raw)
    assert ("mindir-cf-to-select" in jit_level_pipeline("O1")) is runs
    assert ("mindir-cf-to-select" in jit_level_pipeline("O2")) is runs
    assert "canonicalize" in jit_level_pipeline("O1")


def test_bad_environment_value_is_a_clear_error(monkeypatch) -> None:
    monkeypatch.setenv("MINDJIT_CF_TO_SELECT", "yes")
    with pytest.raises(MindjitError, match="MINDJIT_CF_TO_SELECT must be 0 or 1, got 'yes'"):
        jit_level_pipeline("O1")


def test_pipeline_converts_and_keeps_the_result() -> None:
    text = _Gen(3).program()
    module = parse_module(text)
    spec = "mindir-auto-monad,mindir-cf-to-select{max-branch-ops=100},canonicalize,cse"
    run_passes(parse_pipeline(spec), module)
    assert _ifs(module) == 0
    args = [_Arr(np.arange(4, dtype=np.float32)), _Arr(-np.ones(4, np.float32))]
    args += [_Arr(np.bool_(True)), _Arr(np.bool_(False))]
    np.testing.assert_allclose(
        execute(module, "main", args, [])[0], execute(parse_module(text), "main", args, [])[0]
    )
