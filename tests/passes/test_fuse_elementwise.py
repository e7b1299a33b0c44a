"""convert-mindir-to-tensor{fuse-elementwise=true}: the same values as one generic
per op, bit for bit, on random pointwise programs (shapes that broadcast, values
used once, twice or by another shape, compares, selects and casts between f32,
f16 and i32), on the CPU executor and on IREE; and the frontend's CPU pipeline
fuses while the device's does not."""

from __future__ import annotations

import numpy as np
import pytest

from mindjit.backend.cpu import CpuExecutable
from mindjit.dialects.parsing import parse_module
from mindjit.ir.walk import walk_ops
from mindjit.passes.mindir_to_tensor import elementwise
from mindjit.passes.pipelines import (
    FUSED_LOWER_TO_TENSOR,
    LOWER_TO_TENSOR,
    lower_to_tensor_pipeline,
    parse_pipeline,
    run_passes,
)

_SHAPES = ((2, 3), (3,), (1, 3), (2, 1), ())
_UNARY = ("neg", "exp", "tanh", "abs", "sigmoid", "sqrt", "relu", "floor")
_BINARY = ("add", "sub", "mul", "maximum", "minimum", "div")
_COMPARE = ("less", "greater_equal", "equal")


def _type(shape: tuple[int, ...], element: str) -> str:
    return f"tensor<{'x'.join(map(str, shape))}{'x' if shape else ''}{element}>"


class _Program:
    """A random function of pointwise ops over f32 inputs of broadcasting shapes."""

    def __init__(self, seed: int):
        self.rng = np.random.default_rng(seed)
        self.lines: list[str] = []
        self.values: list[tuple[str, tuple[int, ...], str]] = []
        self.n = 0

    def fresh(self) -> str:
        self.n += 1
        return f"%v{self.n}"

    def pick(self, element: str = "f32") -> tuple[str, tuple[int, ...], str]:
        pool = [v for v in self.values if v[2] == element]
        return pool[self.rng.integers(len(pool))]

    def op(self) -> None:
        kind = self.rng.integers(0, 6)
        r = self.fresh()
        if kind <= 1:
            name, shape, _ = self.pick()
            op = self.rng.choice(_UNARY)
            self.lines.append(f"{r} = mindir.{op} {name} : {_type(shape, 'f32')}")
            self.values.append((r, shape, "f32"))
            return
        a, b = self.pick(), self.pick()
        out = tuple(np.broadcast_shapes(a[1], b[1]))
        sig = f"({_type(a[1], 'f32')}, {_type(b[1], 'f32')})"
        if kind <= 3:
            op = self.rng.choice(_BINARY)
            self.lines.append(f"{r} = mindir.{op} {a[0]}, {b[0]} : {sig} -> {_type(out, 'f32')}")
            self.values.append((r, out, "f32"))
        elif kind == 4:  # select(a < b, a, b) through a compare
            op = self.rng.choice(_COMPARE)
            c = r
            self.lines.append(f"{c} = mindir.{op} {a[0]}, {b[0]} : {sig} -> {_type(out, 'i1')}")
            x, y = self.fresh(), self.fresh()
            self.lines.append(
                f"{x} = mindir.broadcast_to {a[0]} : ({_type(a[1], 'f32')}) -> {_type(out, 'f32')}"
                if a[1] != out
                else f"{x} = mindir.abs {a[0]} : {_type(out, 'f32')}"
            )
            self.lines.append(
                f"{y} = mindir.select {c}, {x}, {b[0]} : ({_type(out, 'i1')}, "
                f"{_type(out, 'f32')}, {_type(b[1], 'f32')}) -> {_type(out, 'f32')}"
            )
            self.values.append((y, out, "f32"))
        else:  # a round trip through f16 or i32
            name, shape, _ = self.pick()
            to = self.rng.choice(["f16", "i32"])
            c, back = self.fresh(), self.fresh()
            self.lines.append(
                f"{c} = mindir.cast {name} {{to = {to}}} : ({_type(shape, 'f32')}) -> {_type(shape, to)}"
            )
            self.lines.append(
                f"{back} = mindir.cast {c} {{to = f32}} : ({_type(shape, to)}) -> {_type(shape, 'f32')}"
            )
            self.values.append((back, shape, "f32"))

    def text(self, count: int) -> tuple[str, list[tuple[int, ...]]]:
        inputs = [_SHAPES[i] for i in self.rng.integers(0, len(_SHAPES), 3)]
        self.values = [(f"%a{i}", s, "f32") for i, s in enumerate(inputs)]
        for _ in range(count):
            self.op()
        outs = [self.values[-1]] + [self.pick() for _ in range(2)]
        args = ", ".join(f"%a{i}: {_type(s, 'f32')}" for i, s in enumerate(inputs))
        results = ", ".join(_type(v[1], "f32") for v in outs)
        body = "\n".join(f"  {line}" for line in self.lines)
        ret = ", ".join(v[0] for v in outs)
        return (
            f"func.func @f({args}) -> ({results}) {{\n{body}\n  func.return {ret} : {results}\n}}\n"
        ), inputs


def _lowered(text: str, spec: str):
    module = parse_module(text, "<fuse>")
    run_passes(parse_pipeline(spec), module)
    return module


def _generics(module) -> int:
    return sum(op.name == "linalg.generic" for op in walk_ops(module))


def _inputs(shapes: list[tuple[int, ...]], seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.uniform(-2.0, 3.0, s).astype(np.float32) for s in shapes]


def _same_bits_as_unfused(text: str, shapes: list[tuple[int, ...]], seed: int):
    """The fused lowering of `text`, once its CPU results equal the unfused one's."""
    fused, unfused = _lowered(text, FUSED_LOWER_TO_TENSOR), _lowered(text, LOWER_TO_TENSOR)
    args = _inputs(shapes, seed)
    with np.errstate(all="ignore"):
        want = CpuExecutable(unfused).run("f", *args)
        got = CpuExecutable(fused).run("f", *args)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
    return fused


@pytest.mark.parametrize("seed", range(40))
def test_fused_equals_unfused_on_the_cpu(seed: int) -> None:
    text, shapes = _Program(seed).text(12)
    fused = _same_bits_as_unfused(text, shapes, seed)
    assert _generics(fused) <= _generics(_lowered(text, LOWER_TO_TENSOR))


@pytest.mark.parametrize("seed", range(40, 60))
def test_computing_again_in_each_user_equals_unfused(seed: int, monkeypatch) -> None:
    """Cheap values read by several users, computed again in each (`_duplicable`: here
    at any size), give the same bits, on programs where that happens."""
    text, shapes = _Program(seed).text(12)
    kept = _generics(_lowered(text, FUSED_LOWER_TO_TENSOR))
    monkeypatch.setattr(elementwise, "DUPLICATE_MIN_ELEMENTS", 1)
    assert _generics(_same_bits_as_unfused(text, shapes, seed)) <= kept


def test_some_random_programs_compute_again(monkeypatch) -> None:
    """The programs above do exercise it: with it, fewer generics in some of them."""
    fewer = 0
    for seed in range(40, 60):
        text, _ = _Program(seed).text(12)
        kept = _generics(_lowered(text, FUSED_LOWER_TO_TENSOR))
        with monkeypatch.context() as m:
            m.setattr(elementwise, "DUPLICATE_MIN_ELEMENTS", 1)
            fewer += _generics(_lowered(text, FUSED_LOWER_TO_TENSOR)) < kept
    assert fewer >= 3, fewer


def test_random_programs_do_fuse() -> None:
    """The programs above are not all unfusable: most ops join a generic."""
    fused = unfused = 0
    for seed in range(40):
        text, _ = _Program(seed).text(12)
        fused += _generics(_lowered(text, FUSED_LOWER_TO_TENSOR))
        unfused += _generics(_lowered(text, LOWER_TO_TENSOR))
    assert fused < 0.7 * unfused, (fused, unfused)


@pytest.mark.parametrize("seed", range(6))
def test_fused_runs_on_iree(seed: int) -> None:
    pytest.importorskip("iree.runtime")
    from mindjit.backend.iree.executable import IreeExecutable

    text, shapes = _Program(seed).text(12)
    args = _inputs(shapes, seed)
    with np.errstate(all="ignore"):
        want = CpuExecutable(_lowered(text, LOWER_TO_TENSOR)).run("f", *args)
    got = IreeExecutable(_lowered(text, FUSED_LOWER_TO_TENSOR)).run("f", *args)
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=2e-3, atol=2e-3)


def test_the_device_keeps_one_kernel_per_node() -> None:
    """MindSpore's device runs one kernel per node unless graph kernel fusion is on."""
    assert lower_to_tensor_pipeline("Ascend") == LOWER_TO_TENSOR
    assert lower_to_tensor_pipeline("CPU") == FUSED_LOWER_TO_TENSOR
