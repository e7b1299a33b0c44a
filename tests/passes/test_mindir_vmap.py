"""mindir-vmap: batched ops give what running the region once per example gives."""

from __future__ import annotations

import numpy as np
import pytest
from monad_order_programs import execute

from mindjit.dialects import mindir
from mindjit.dialects.parsing import parse_module
from mindjit.passes.mindir_vmap import vmap_module
from mindjit.support.errors import MindjitError

B = 5
#: per-example inputs: name -> shape
INPUTS = {"x": (3,), "m": (2, 3), "s": ()}


def _t(shape) -> str:  # type: ignore[no-untyped-def]
    return f"tensor<{''.join(f'{d}x' for d in shape)}f32>"


class _Gen:
    """A random per-example body over x: [3], m: [2, 3], s: [] using every rule."""

    def __init__(self, seed: int):
        self.rng = np.random.default_rng(seed)
        self.lines: list[str] = []
        self.n = 0
        self.vals: dict[str, tuple[int, ...]] = {"%x": (3,), "%m": (2, 3), "%s": ()}

    def new(self, shape, text: str) -> str:  # type: ignore[no-untyped-def]
        self.n += 1
        name = f"%v{self.n}"
        self.lines.append(f"    {name} = {text}")
        self.vals[name] = tuple(shape)
        return name

    def pick(self, shape=None) -> str:  # type: ignore[no-untyped-def]
        names = [
            n
            for n, s in self.vals.items()
            if all(isinstance(d, int) for d in s) and (shape is None or s == tuple(shape))
        ]
        return str(self.rng.choice(names))

    def step(self) -> None:
        r = self.rng.integers(0, 12)
        if r == 0:
            a = self.pick()
            op = self.rng.choice(["neg", "exp", "tanh", "abs", "sigmoid", "hswish"])
            self.new(self.vals[a], f"mindir.{op} {a} : {_t(self.vals[a])}")
        elif r == 1:  # binary with broadcasting between ranks
            a, b = self.pick(), self.pick()
            sa, sb = self.vals[a], self.vals[b]
            out = np.broadcast_shapes(sa, sb) if _broadcastable(sa, sb) else None
            if out is None:
                return
            op = self.rng.choice(["add", "sub", "mul", "maximum"])
            self.new(out, f"mindir.{op} {a}, {b} : ({_t(sa)}, {_t(sb)}) -> {_t(out)}")
        elif r == 2:  # select on a comparison
            a = self.pick((3,))
            c = self.new((3,), f"mindir.less {a}, %s : ({_t((3,))}, {_t(())}) -> tensor<3xi1>")
            self.vals[c] = ("i1",)  # not picked as a float value again
            b = self.pick((3,))
            self.new(
                (3,),
                f"mindir.select {c}, {a}, {b} : (tensor<3xi1>, {_t((3,))}, {_t((3,))}) -> {_t((3,))}",
            )
        elif r == 3:
            a = self.pick((2, 3))
            self.new(
                (2, 2),
                f"mindir.matmul {a}, {a} {{transpose_b = true}} : ({_t((2, 3))}, {_t((2, 3))}) -> {_t((2, 2))}",
            )
        elif r == 4:
            a = self.pick((2, 3))
            axis = int(self.rng.integers(-2, 2))
            out = (3,) if axis in (0, -2) else (2,)
            self.new(
                out,
                f"mindir.reduce_sum {a} {{axis = array<i64: {axis}>}} : ({_t((2, 3))}) -> {_t(out)}",
            )
        elif r == 5:
            a = self.pick((2, 3))
            self.new(
                (3, 2),
                f"mindir.transpose {a} {{perm = array<i64: 1, 0>}} : ({_t((2, 3))}) -> {_t((3, 2))}",
            )
            b = self.pick((3, 2))
            self.new((2, 3), f"mindir.reshape {b} : ({_t((3, 2))}) -> {_t((2, 3))}")
        elif r == 6:
            a = self.pick((3,))
            self.new((2, 3), f"mindir.broadcast_to {a} : ({_t((3,))}) -> {_t((2, 3))}")
        elif r == 7:
            a, b = self.pick((3,)), self.pick((3,))
            self.new(
                (2, 3),
                f"mindir.stack {a}, {b} {{axis = 0 : i64}} : ({_t((3,))}, {_t((3,))}) -> {_t((2, 3))}",
            )
            c = self.pick((2, 3))
            self.new(
                (2, 6),
                f"mindir.concat {c}, {c} {{axis = -1 : i64}} : ({_t((2, 3))}, {_t((2, 3))}) -> {_t((2, 6))}",
            )
        elif r == 8:
            a, b = self.pick((3,)), self.pick((3,))
            tt = f"tuple<{_t((3,))}, {_t((3,))}>"
            t = self.new(
                ("tuple",), f"mindir.make_tuple {a}, {b} : ({_t((3,))}, {_t((3,))}) -> {tt}"
            )
            self.new((3,), f"mindir.addn {t} : ({tt}) -> {_t((3,))}")
            self.new((3,), f"mindir.tuple_get_item {t} {{index = 1 : i64}} : ({tt}) -> {_t((3,))}")
        elif r == 9:  # unstack: one piece each, named like the op's results
            a = self.pick((2, 3))
            axis = int(self.rng.integers(-2, 2))
            piece, n = ((3,), 2) if axis in (0, -2) else ((2,), 3)
            self.n += 1
            base = f"%u{self.n}"
            self.lines.append(
                f"    {base}:{n} = mindir.unstack {a} {{axis = {axis} : i64}} : {_t((2, 3))} -> {_t(piece)}"
            )
            for k in range(n):
                self.vals[f"{base}#{k}"] = piece
        elif r == 10:  # get_item with a stride and a squeezed axis
            a = self.pick((2, 3))
            self.new(
                (2,),
                f"mindir.get_item {a} {{starts = array<i64: 1, 0>, limits = array<i64: 2, 3>, "
                f"strides = array<i64: 1, 2>, squeeze = array<i64: 0>}} : ({_t((2, 3))}) -> {_t((2,))}",
            )
        else:
            self.new((3,), f"mindir.constant dense<[1.0, -2.0, 0.5]> : {_t((3,))}")

    def body(self) -> tuple[str, list[str]]:
        for _ in range(int(self.rng.integers(4, 12))):
            self.step()
        floats = [n for n, s in self.vals.items() if all(isinstance(d, int) for d in s)]
        outs = [str(v) for v in self.rng.choice(floats, 2)]
        return "\n".join(self.lines), outs


def _broadcastable(a, b) -> bool:  # type: ignore[no-untyped-def]
    try:
        np.broadcast_shapes(a, b)
    except ValueError:
        return False
    return True


def _program(seed: int):  # type: ignore[no-untyped-def]
    gen = _Gen(seed)
    body, outs = gen.body()
    rng = gen.rng
    in_axes = {}
    for name, shape in INPUTS.items():
        in_axes[name] = int(rng.integers(-1, len(shape) + 1))
    if all(a == -1 for a in in_axes.values()):
        in_axes["x"] = 0
    out_shapes = [gen.vals[o] for o in outs]
    out_axes = [int(rng.integers(0, len(s) + 1)) for s in out_shapes]
    args = ", ".join(f"%{n}: {_t(s)}" for n, s in INPUTS.items())
    results = ", ".join(_t(s) for s in out_shapes)
    example = (
        f"func.func @example({args}) -> ({results}) {{\n{body}\n"
        f"    func.return {', '.join(outs)} : {results}\n}}\n"
    )

    def batched(shape, axis):  # type: ignore[no-untyped-def]
        s = list(shape)
        if axis >= 0:
            s.insert(axis, B)
        return tuple(s)

    outer_args = ", ".join(f"%{n}_b: {_t(batched(s, in_axes[n]))}" for n, s in INPUTS.items())
    pairs = ", ".join(f"%{n} = %{n}_b" for n in INPUTS)
    axes = ", ".join("none" if in_axes[n] < 0 else str(in_axes[n]) for n in INPUTS)
    in_types = ", ".join(_t(batched(s, in_axes[n])) for n, s in INPUTS.items())
    out_types = [_t(batched(s, a)) for s, a in zip(out_shapes, out_axes)]
    main = (
        f"func.func @main({outer_args}) -> ({', '.join(out_types)}) {{\n"
        f"  %r:2 = mindir.vmap ({pairs}) in_axes [{axes}] out_axes [{', '.join(map(str, out_axes))}]"
        f" : ({in_types}) -> ({', '.join(out_types)}) {{\n{body}\n"
        f"    mindir.yield {', '.join(outs)} : {results}\n  }}\n"
        f"  func.return %r#0, %r#1 : {', '.join(out_types)}\n}}\n"
    )
    return example, main, in_axes, out_axes


class _Arr:
    def __init__(self, value):
        self.value = np.asarray(value)

    def asnumpy(self):
        return self.value


@pytest.mark.parametrize("seed", range(30))
def test_random_vmaps_equal_the_per_example_loop(seed: int) -> None:
    example, main, in_axes, out_axes = _program(seed)
    rng = np.random.default_rng(seed)
    inputs = {}
    for n, s in INPUTS.items():
        shape = list(s)
        if in_axes[n] >= 0:
            shape.insert(in_axes[n], B)
        inputs[n] = rng.normal(size=shape).astype(np.float32)
    # the reference: the region as a function, once per example, stacked on out_axes
    per_example = [[], []]
    for b in range(B):
        args = [
            _Arr(inputs[n] if in_axes[n] < 0 else np.take(inputs[n], b, axis=in_axes[n]))
            for n in INPUTS
        ]
        outs, _, _ = execute(parse_module(example), "example", args, [])
        for k in range(2):
            per_example[k].append(np.asarray(outs[k], np.float32))
    want = [np.stack(per_example[k], axis=out_axes[k]) for k in range(2)]
    module = parse_module(main)
    assert vmap_module(module) == 1
    module.verify()
    assert not any(isinstance(op, mindir.VmapOp) for op in module.walk())
    got, _, _ = execute(module, "main", [_Arr(inputs[n]) for n in INPUTS], [])
    for k in range(2):
        np.testing.assert_allclose(np.asarray(got[k]), want[k], rtol=1e-5, atol=1e-6)


PER_EXAMPLE_IF = """
func.func @main(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %z = mindir.constant dense<0.0> : tensor<f32>
  %r = mindir.vmap (%e = %x) in_axes [0] out_axes [0] : (tensor<4x3xf32>) -> tensor<4x3xf32> {
    %s = mindir.reduce_sum %e : (tensor<3xf32>) -> tensor<f32>
    %c = mindir.greater %s, %z : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %i = mindir.if %c -> (tensor<3xf32>) {
      %d = mindir.add %e, %e : tensor<3xf32>
      mindir.yield %d : tensor<3xf32>
    } else {
      %n = mindir.neg %e : tensor<3xf32>
      mindir.yield %n : tensor<3xf32>
    }
    mindir.yield %i : tensor<3xf32>
  }
  func.return %r : tensor<4x3xf32>
}
"""


def test_a_per_example_if_picks_per_example() -> None:
    xs = np.array([[1, 2, 3], [-1, -2, 0], [0.5, -4, 1], [2, -1, 0]], np.float32)
    module = parse_module(PER_EXAMPLE_IF)
    vmap_module(module)
    (got,), _, _ = execute(module, "main", [_Arr(xs)], [])
    want = np.where(xs.sum(axis=1, keepdims=True) > 0, 2 * xs, -xs)
    np.testing.assert_allclose(np.asarray(got), want)


def test_a_refused_op_is_a_located_error() -> None:
    """A Parameter assigned inside a vmap: each example would write in turn."""
    text = """
mindir.parameter @p = dense<0.0> : tensor<3xf32>
func.func @main(%x: tensor<4x3xf32>, %u: !mindir.u) -> tensor<4x3xf32> {
  %r = mindir.vmap (%e = %x) in_axes [0] out_axes [0] : (tensor<4x3xf32>) -> tensor<4x3xf32> {
    %ref = mindir.get_parameter @p : !mindir.ref<tensor<3xf32>>
    %a = mindir.assign %ref, %e, %u : tensor<3xf32>
    mindir.yield %a : tensor<3xf32>
  }
  func.return %r : tensor<4x3xf32>
}
"""
    with pytest.raises(
        MindjitError, match=r"<stdin>:6:5: error: mindir-vmap: no batching rule for 'mindir.assign'"
    ):
        vmap_module(parse_module(text))


def test_a_while_runs_each_example_to_its_own_end() -> None:
    """A per-example condition: the loop runs while any example's holds, and a done
    example keeps its values (vmap_loops.py), as the loop run example by example."""
    text = """
func.func @main(%x: tensor<4x3xf32>, %y: tensor<f32>) -> tensor<4x3xf32> {
  %r = mindir.vmap (%e = %x) in_axes [0] out_axes [0] : (tensor<4x3xf32>) -> tensor<4x3xf32> {
    %w = mindir.while (%v = %e) : (tensor<3xf32>) -> tensor<3xf32> {
      %s = mindir.reduce_sum %v : (tensor<3xf32>) -> tensor<f32>
      %k = mindir.less %s, %y : (tensor<f32>, tensor<f32>) -> tensor<i1>
      mindir.condition(%k : tensor<i1>) %v : tensor<3xf32>
    } do {
    ^bb0(%v2: tensor<3xf32>):
      %d = mindir.add %v2, %v2 : tensor<3xf32>
      mindir.yield %d : tensor<3xf32>
    }
    mindir.yield %w : tensor<3xf32>
  }
  func.return %r : tensor<4x3xf32>
}
"""
    module = parse_module(text)
    vmap_module(module)
    scale = np.array([[0.1], [1], [5], [30]], np.float32)
    xs = np.random.default_rng(0).random((4, 3)).astype(np.float32) * scale
    limit = np.float32(10)
    (got,), _, _ = execute(module, "main", [_Arr(xs), _Arr(limit)], [])
    want = []
    for row in xs:
        while row.sum() < limit:
            row = row + row
        want.append(row)
    np.testing.assert_allclose(np.asarray(got), np.array(want))


CONV_BODY = """
    %y = mindir.conv2d %x, %w {stride = array<i64: 2, 1>, pad = array<i64: 1, 0, 1, 1>, group = 2 : i64} : (tensor<2x4x6x5xf32>, tensor<6x2x3x3xf32>) -> tensor<2x6x3x5xf32>
    %m = mindir.max_pool2d %y {kernel = array<i64: 2, 2>, stride = array<i64: 1, 2>, pad_extra = array<i64: 0, 1>} : (tensor<2x6x3x5xf32>) -> tensor<2x6x2x3xf32>
    %a = mindir.avg_pool2d %m {kernel = array<i64: 2, 2>, pad = array<i64: 1, 0, 0, 1>, count_include_pad = false} : (tensor<2x6x2x3xf32>) -> tensor<2x6x2x3xf32>
    %p = mindir.pad %a {low = array<i64: 0, 1, -1, 0>, high = array<i64: 1, 0, 0, 2>, interior = array<i64: 0, 0, 1, 0>, value = 0.5 : f64} : (tensor<2x6x2x3xf32>) -> tensor<3x7x2x5xf32>
    %r = mindir.reverse %p {axis = array<i64: 1, 3>} : tensor<3x7x2x5xf32>
"""


@pytest.mark.parametrize("axes", [(0, -1), (-1, 0), (1, 0)], ids=["x", "w", "both"])
def test_conv_pool_pad_reverse_equal_the_per_example_loop(axes) -> None:
    """mindir-vmap's conv2d (batched input: more images; batched weight: more
    groups), pooling, pad and reverse against the region run once per example."""
    shapes = {"x": (2, 4, 6, 5), "w": (6, 2, 3, 3)}
    rng = np.random.default_rng(7)
    batched = {}
    for (n, s), axis in zip(shapes.items(), axes):
        shape = list(s)
        if axis >= 0:
            shape.insert(axis, B)
        batched[n] = rng.normal(size=shape).astype(np.float32)
    example = (
        "func.func @example(%x: tensor<2x4x6x5xf32>, %w: tensor<6x2x3x3xf32>) -> "
        f"tensor<3x7x2x5xf32> {{\n{CONV_BODY}\n    func.return %r : tensor<3x7x2x5xf32>\n}}\n"
    )
    want = []
    for b in range(B):
        args = [
            _Arr(batched[n] if a < 0 else np.take(batched[n], b, axis=a))
            for n, a in zip(shapes, axes)
        ]
        (out,), _, _ = execute(parse_module(example), "example", args, [])
        want.append(np.asarray(out))
    in_types = ", ".join(_t(batched[n].shape) for n in shapes)
    axes_text = ", ".join("none" if a < 0 else str(a) for a in axes)
    main = (
        f"func.func @main(%xb: {_t(batched['x'].shape)}, %wb: {_t(batched['w'].shape)}) -> "
        f"tensor<{B}x3x7x2x5xf32> {{\n"
        f"  %o = mindir.vmap (%x = %xb, %w = %wb) in_axes [{axes_text}] out_axes [0] : "
        f"({in_types}) -> tensor<{B}x3x7x2x5xf32> {{\n{CONV_BODY}\n"
        "    mindir.yield %r : tensor<3x7x2x5xf32>\n  }\n"
        f"  func.return %o : tensor<{B}x3x7x2x5xf32>\n}}\n"
    )
    module = parse_module(main)
    assert vmap_module(module) == 1
    module.verify()
    (got,), _, _ = execute(module, "main", [_Arr(batched[n]) for n in shapes], [])
    np.testing.assert_allclose(np.asarray(got), np.stack(want), rtol=1e-5, atol=1e-5)
