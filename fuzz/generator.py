"""Random valid programs for the differential fuzzer, written as Python source
(graph mode parses source, so each program is a file that is imported).

It extends tests/frontend/side_effect_fuzz.py's `ProgramGenerator` (assign, let,
print, depend, tensor if, for, counter while, sub-Cell calls) with what issue 29
lists: elementwise and matmul ops, reductions, indexing and slicing, item
assignment, `ops.assign_add`, a data-dependent `while`, `@ms.lazy_inline`
Blocks reused several times, `ms.grad` / `ms.value_and_grad` /
`ops.GradOperation` with respect to inputs and weights, and `ms.vmap` (also
inside a differentiated function: grad of vmap, `function_loss`).

Shapes: every value of `construct` is a float32 (2, 3) tensor, as are its
Parameters but the matmul weight (3, 3) and the convolution kernel (1, 1, 3, 3).
An op that changes the shape is written so that its result broadcasts back
(`v + ops.reduce_sum(v, 0)`, `v * v[0]`, `ops.matmul(v, self.w)`), so any two
values combine and any value can be assigned to any Parameter. vmap'd functions
see one row or one column, and use only ops valid on any 1-D shape. Values stay
small (tanh around every stored value) so no overflow differs between paths.

What a program must not do because the two modes are documented to differ, the
generator does not write: an item assignment targets only a name it made
itself (PyNative writes through every alias of a Tensor, graph mode rebinds the
name: README "Tensor indexing"); a data-dependent `while` only grows its value,
and nothing in its body rebinds it, so it ends in both modes.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "frontend"))

from side_effect_fuzz import ProgramGenerator, indent  # noqa: E402

SHAPE = (2, 3)
#: what a condition compares with: no value the program makes exactly (0, the constants
#: it assigns, sums of centred values, multiples of 1/4), so no path's rounding can tip a
#: branch (a sum that is 0 up to rounding against `> 0.0` went either way on IREE, whose
#: tanh differs from numpy's by an ulp)
THRESHOLDS = ["0.13", "-0.41", "0.57", "0.29"]
IMPORTS = """\
import numpy as np
import mindjit as ms
from mindjit import Parameter, nn, ops

"""


@dataclass
class Scope:
    """Where statements are being written: the names they may read, the
    Parameters they may assign, the matmul weight, and the statement kinds
    allowed (a lazy-inline Block has no grad or vmap inside it, a vmap'd body
    no effects)."""

    vars: list[str]
    params: list[str]
    weight: str | None
    kinds: frozenset[str]
    vector: bool = False  # a vmap'd body: 1-D values, no matmul or axis reductions
    #: the (1, 1, 3, 3) convolution kernel Parameter (the Net's `self.k`): a value as
    #: a 1x1x2x3 image, convolved with padding 1 (the padded forward, its input
    #: gradient's backward data, its weight gradient: backend/cpu/kernels_conv.py)
    kernel: str | None = None
    frozen: set[str] = field(default_factory=set)  # read, never rebound
    #: a Parameter read only inside a tensor if's branch (`stmt_if_weight`): the
    #: gradient of such a weight was once zero in graph mode (mindir-grad's activity
    #: analysis looked only at what a region used from outside)
    branch_param: str | None = None

    def __post_init__(self) -> None:
        self.args = tuple(self.vars)  # the caller's values: never item-assigned


NET_KINDS = frozenset(
    {
        "assign",
        "let",
        "print",
        "depend",
        "if",
        "for",
        "while",
        "sub",
        "assign_add",
        "setitem",
        "while_data",
        "block",
        "grad",
        "vmap",
        "call",
    }
)
BLOCK_KINDS = frozenset({"assign", "let", "if", "setitem", "print"})
PURE_KINDS = frozenset({"let", "if", "setitem"})


class FuzzGenerator(ProgramGenerator):
    """`class Net(nn.Cell)` with inputs x, y and Parameters p0..p2, w, u, a
    CellList of lazy-inline Blocks, a Head differentiated inside construct, and
    the module-level functions the body calls (vmap'd, differentiated, helpers)."""

    size = 10

    def __init__(self, seed: int):
        super().__init__(seed)
        self.inputs = ["x", "y"]
        self.vars = list(self.inputs)
        self.scope = Scope(self.vars, ["p0", "p1", "p2"], "self.w", NET_KINDS, kernel="self.k")
        self.functions: list[str] = []  # module-level defs, in the order made
        self.n_blocks = self.rng.randint(2, 4)

    # -- scopes ---------------------------------------------------------------------------

    @contextlib.contextmanager
    def inside(self, scope: Scope) -> Iterator[None]:
        saved_scope, saved_vars = self.scope, self.vars
        self.scope, self.vars = scope, scope.vars
        try:
            yield
        finally:
            self.scope, self.vars = saved_scope, saved_vars

    def constant(self, shape: tuple[int, ...], scale: float = 1.0) -> str:
        values = [round(self.rng.uniform(-1, 1) * scale, 2) for _ in range(shape[0] * shape[1])]
        rows = [values[i * shape[1] : (i + 1) * shape[1]] for i in range(shape[0])]
        return f"np.array({rows}, np.float32)"

    # -- expressions ----------------------------------------------------------------------

    def operand(self) -> str:
        return self.rng.choice([*self.vars, *(f"self.{p}" for p in self.scope.params)])

    def expr(self, depth: int = 0) -> str:
        r = self.rng.random()
        if depth > 1 or r < 0.3:
            return self.operand()
        e = lambda: self.expr(depth + 1)  # noqa: E731
        c = lambda: self.rng.choice(["0.5", "2.0", "-1.0", "0.25"])  # noqa: E731
        t = lambda: self.rng.choice(THRESHOLDS)  # noqa: E731
        forms = [
            lambda: f"({e()} * {c()})",
            lambda: f"({e()} {self.rng.choice(['+', '-', '*'])} {e()})",
            lambda: f"ops.{self.rng.choice(['tanh', 'sin', 'relu', 'sigmoid', 'abs'])}({e()})",
            lambda: f"ops.exp(ops.tanh({e()}))",
            lambda: f"ops.select({e()} > {t()}, {e()}, {e()})",
            lambda: f"ops.{self.rng.choice(['maximum', 'minimum'])}({e()}, {e()})",
            lambda: f"({e()} * ops.tanh({e()}.sum()))",
            lambda: f"({e()} - ops.reduce_mean({e()}))",
            lambda: f"{e()}[::-1]",
        ]
        if not self.scope.vector:
            forms += [
                lambda: f"({e()} + ops.reduce_sum({e()}, 0))",
                lambda: f"({e()} - ops.reduce_mean({e()}, 1, True))",
                lambda: f"({e()} * ops.amax({e()}, 1, True))",
                lambda: f"({e()} + ops.reduce_max({e()}, 0, True))",
                lambda: f"{e()}[:, ::-1]",
                lambda: f"({e()} * {e()}[{self.rng.randint(0, 1)}])",
                lambda: f"({e()} + {e()}[1:2])",
                lambda: f"({e()} - {e()}[:, 1:2])",
                lambda: f"{e()}[:, [2, 0, 1]]",
                lambda: f"ops.transpose(ops.transpose({e()}, (1, 0)), (1, 0))",
                lambda: f"(ops.cast(ops.cast({e()} * 4.0, ms.int32), ms.float32) * 0.25)",
            ]
        if self.scope.weight is not None:
            w = self.scope.weight
            forms += [lambda: f"ops.matmul({e()}, {w})", lambda: f"({e()} @ {w})"]
        if self.scope.kernel is not None:
            k = self.scope.kernel
            forms.append(
                lambda: (
                    f"ops.reshape(ops.conv2d(ops.reshape({e()}, (1, 1, 2, 3)), {k}, "
                    'pad_mode="pad", padding=1), (2, 3))'
                )
            )
        return self.rng.choice(forms)()

    # -- statements -----------------------------------------------------------------------

    def kinds(self, depth: int) -> dict[str, int]:
        weights = {
            **super().kinds(depth),
            "assign_add": 2,
            "setitem": 3,
            "while_data": 1 if depth < 2 else 0,
            "block": 2 if depth < 2 else 0,
            "grad": 2 if depth < 2 else 0,
            "vmap": 2 if depth < 2 else 0,
            "call": 1,
            "if_weight": 3 if self.scope.branch_param else 0,
        }
        if not self.scope.params:
            weights["assign"] = weights["depend"] = weights["assign_add"] = 0
        if not self.targets():
            weights["setitem"] = 0
        return {k: w for k, w in weights.items() if k in self.scope.kinds and w}

    def targets(self) -> list[str]:
        """Names a statement may rebind: not the inputs, not a while's value."""
        return [v for v in self.vars if v not in self.scope.args and v not in self.scope.frozen]

    def stmt_assign(self, depth: int) -> list[str]:
        return [f"ops.assign(self.{self.rng.choice(self.scope.params)}, {self.bounded()})"]

    def stmt_depend(self, depth: int) -> list[str]:
        target = self.rng.choice([v for v in self.vars if v not in self.scope.frozen])
        return [f"{target} = ops.depend({target}, self.{self.rng.choice(self.scope.params)})"]

    def stmt_if(self, depth: int) -> list[str]:
        choices = [v for v in self.vars if v not in self.scope.frozen]
        target = self.rng.choice(choices)
        cond = f"{self.operand()}.sum() > {self.rng.choice(THRESHOLDS[:3])}"
        then = self.block(depth + 1, 2) + [f"{target} = {self.bounded()}"]
        other = self.block(depth + 1, 2) + [f"{target} = {self.bounded()}"]
        return [f"if {cond}:", *indent(then), "else:", *indent(other)]

    def stmt_if_weight(self, depth: int) -> list[str]:
        """A tensor if whose branch alone reads `scope.branch_param`."""
        lines: list[str] = []
        if not self.targets():
            target = self.new_name()
            lines.append(f"{target} = {self.bounded()}")
            self.vars.append(target)
        else:
            target = self.rng.choice(self.targets())
        weight = f"self.{self.scope.branch_param}"
        if self.rng.random() < 0.5:
            cond = f"{self.operand()}.sum() > {self.rng.choice(THRESHOLDS[:3])}"
            then = [f"{target} = ops.tanh({target} * {weight} + {self.bounded()})"]
            other = [f"{target} = {self.bounded()}"]
        else:  # nothing the if reads from outside varies: only what its branches yield
            cond = f"self.{self.scope.params[0]}.sum() > {self.rng.choice(THRESHOLDS[:3])}"
            then = [f"{target} = ops.tanh({weight} * {self.rng.choice(['0.5', '-1.5', '2.0'])})"]
            other = [f"{target} = ops.tanh({weight} - {self.rng.choice(['0.25', '1.0'])})"]
        if self.rng.random() < 0.5:
            then, other = other, then
        return [*lines, f"if {cond}:", *indent(then), "else:", *indent(other)]

    def stmt_assign_add(self, depth: int) -> list[str]:
        p = self.rng.choice(self.scope.params)
        return [f"ops.assign_add(self.{p}, {self.bounded()} * 0.5)"]

    def stmt_setitem(self, depth: int) -> list[str]:
        t = self.rng.choice(self.targets())
        c = self.rng.choice(["0.5", "-1.0", "0.25"])
        at = THRESHOLDS[["0.5", "-1.0", "0.25"].index(c)]  # a mask's threshold
        if self.scope.vector:
            forms = [f"{t}[0] = {c}", f"{t}[{t} > {at}] = {c}", f"{t}[::2] += {c}"]
        else:
            forms = [
                f"{t}[{self.rng.randint(0, 1)}] = {self.bounded()}[{self.rng.randint(0, 1)}]",
                f"{t}[:, {self.rng.randint(0, 2)}] = {c}",
                f"{t}[{self.rng.randint(0, 1)}] += {self.bounded()}[0]",
                f"{t}[{self.operand()} > {at}] = {c}",
                f"{t}[:, ::2] *= {c}",
                f"{t}[1, {self.rng.randint(0, 2)}] = {c}",
            ]
        return [self.rng.choice(forms)]

    def stmt_while_data(self, depth: int) -> list[str]:
        """A while on a tensor value: the value only grows, nothing else rebinds it."""
        name = self.new_name("w")
        first = f"{name} = {self.bounded()}"
        self.vars.append(name)
        self.scope.frozen.add(name)
        body = self.block(depth + 1, 2)
        limit = self.rng.choice(["2.1", "4.3", "6.2"])
        return [
            first,
            f"while ops.reduce_sum({name}) < {limit}:",
            *indent([*body, f"{name} = ops.abs({name}) * 1.5 + 0.5"]),
        ]

    def stmt_block(self, depth: int) -> list[str]:
        name = self.new_name()
        if self.rng.random() < 0.5:
            lines = [
                f"{name} = {self.bounded()}",
                "for blk in self.blocks:",
                f"    {name} = blk({name})",
            ]
        else:
            i = self.rng.randrange(self.n_blocks)
            lines = [f"{name} = self.blocks[{i}]({self.bounded()})"]
        self.vars.append(name)
        return lines

    def stmt_grad(self, depth: int) -> list[str]:
        name, g, h = self.new_name(), self.new_name("g"), self.new_name("g")
        w = self.new_name("g")  # the Head's weights' gradients (hb's is the third)
        form = self.rng.randrange(5)
        if form == 0:
            lines = [
                f"{g}, {h} = ms.grad(self.head, 0, self.hp)({self.bounded()})",
                f"{name} = ops.tanh({g} + {h}[0] + ops.matmul({g}, {h}[1]) + {h}[2])",
            ]
        elif form == 1:
            lines = [
                f"({g},), {h} = self.gop(self.head, self.hp)({self.bounded()})",
                f"{name} = ops.tanh({g} - {h}[0] + {h}[2])",
            ]
        elif form == 2:
            lines = [
                f"{g}, ({h}, {w}) = ms.value_and_grad(self.head, 0, self.hp)({self.bounded()})",
                f"{name} = ops.tanh({h} * {g} + {w}[2])",
            ]
        else:
            fn = self.function_loss()
            wrt = "(0, 1)" if form == 3 else "1"
            get = f"{g}, {h} = " if form == 3 else f"{g} = "
            use = f"({g} - {h})" if form == 3 else g
            lines = [
                f"{get}ms.grad({fn}, {wrt})({self.bounded()}, {self.bounded()})",
                f"{name} = ops.tanh({use})",
            ]
        self.vars.append(name)
        return lines

    def stmt_vmap(self, depth: int) -> list[str]:
        name = self.new_name()
        fn = self.function_mapped()
        if self.rng.random() < 0.5:
            call = f"ms.vmap({fn}, in_axes=(0, None))({self.bounded()}, self.u)"
        else:
            call = f"ms.vmap({fn}, in_axes=1, out_axes=1)({self.bounded()}, {self.bounded()})"
        self.vars.append(name)
        return [f"{name} = ops.tanh({call})"]

    def stmt_call(self, depth: int) -> list[str]:
        name = self.new_name()
        line = f"{name} = {self.function_helper()}({self.bounded()}, {self.operand()})"
        self.vars.append(name)
        return [line]

    # -- functions and classes ------------------------------------------------------------

    def body(self, scope: Scope, size: int, result: str, first: tuple[str, ...] = ()) -> list[str]:
        """Statements in `scope` (`first` those kinds), then `return <result>` of a
        bounded value."""
        with self.inside(scope):
            lines: list[str] = []
            for kind in first:
                lines += getattr(self, f"stmt_{kind}")(0)
            for _ in range(self.rng.randint(1, size)):
                lines += self.statement(0)
            value = self.bounded()
        return [*lines, f"return {result.format(value)}"]

    def function(self, prefix: str, args: str, scope: Scope, size: int, result: str) -> str:
        name = f"{prefix}{len(self.functions)}"
        body = self.body(scope, size, result)
        self.functions.append("\n".join([f"def {name}({args}):", *indent(body), "", ""]))
        return name

    def function_loss(self) -> str:
        if self.rng.random() < 0.3:  # grad of vmap: columns in, columns out
            name = f"vloss{len(self.functions)}"
            fn = self.function_mapped()
            call = f"ms.vmap({fn}, in_axes=1, out_axes=1)(a, b)"
            lines = [f"def {name}(a, b):", f"    return ops.reduce_sum(ops.tanh({call}) * b)"]
            self.functions.append("\n".join([*lines, "", ""]))
            return name
        scope = Scope(["a", "b"], [], None, PURE_KINDS)
        return self.function("loss", "a, b", scope, 2, "ops.reduce_sum({})")

    def function_mapped(self) -> str:
        scope = Scope(["a", "c"], [], None, PURE_KINDS, vector=True)
        return self.function("mapped", "a, c", scope, 1, "{}")

    def function_helper(self) -> str:
        scope = Scope(["a", "b"], [], None, PURE_KINDS)
        return self.function("helper", "a, b", scope, 2, "{}")

    def classes(self) -> str:
        block_scope = Scope(["h"], ["bb"], "self.bw", BLOCK_KINDS)
        block = self.body(block_scope, 2, "ops.tanh({})")
        # a Head that assigns (an effect in the differentiated forward) or loops on a
        # tensor (mindir-grad refuses a while it cannot unroll: README "Gradients")
        extra = tuple(
            k for k in ("assign", "while") if self.rng.random() < (0.15, 0.05)[k == "while"]
        )
        head_scope = Scope(
            ["a"], ["hw"], "self.hm", PURE_KINDS | {"if_weight"} | set(extra), branch_param="hb"
        )
        first = (*extra, "if_weight") if self.rng.random() < 0.5 else extra
        head = self.body(head_scope, 2, "ops.reduce_sum({} * self.hw)", first)
        sub_scope = Scope(["v"], ["q"], None, frozenset({"assign", "print"}))
        sub = self.body(sub_scope, 2, "self.q + {}")
        return "\n".join(
            [
                "class Sub(nn.Cell):",
                "    def __init__(self):",
                "        super().__init__()",
                f'        self.q = Parameter(ms.Tensor({self.constant(SHAPE)}), name="q")',
                "",
                "    def construct(self, v):",
                *indent(indent(sub)),
                "",
                "",
                "class Block(nn.Cell):",
                "    @ms.lazy_inline",
                "    def __init__(self, scale):",
                "        super().__init__()",
                '        self.bw = Parameter(ms.Tensor(np.eye(3, dtype=np.float32) * scale), name="bw")',
                '        self.bb = Parameter(ms.Tensor(np.full((2, 3), scale, np.float32)), name="bb")',
                "",
                "    def construct(self, h):",
                *indent(indent(block)),
                "",
                "",
                "class Head(nn.Cell):",
                "    def __init__(self):",
                "        super().__init__()",
                f'        self.hw = Parameter(ms.Tensor({self.constant(SHAPE)}), name="hw")',
                f'        self.hm = Parameter(ms.Tensor({self.constant((3, 3))}), name="hm")',
                f'        self.hb = Parameter(ms.Tensor({self.constant(SHAPE)}), name="hb")',
                "",
                "    def construct(self, a):",
                *indent(indent(head)),
                "",
                "",
            ]
        )

    @property
    def header(self) -> str:  # made after construct: it holds the functions construct calls
        return IMPORTS + "\n" + "".join(self.functions) + "\n" + self.made_classes

    def init_lines(self) -> list[str]:
        blocks = [f"        {self.constant((3, 3), 0.5)}," for _ in range(self.n_blocks)]
        return [
            *(
                f'    self.{p} = Parameter(ms.Tensor({self.constant(SHAPE)}), name="{p}")'
                for p in ("p0", "p1", "p2")
            ),
            f'    self.w = Parameter(ms.Tensor({self.constant((3, 3), 0.7)}), name="w")',
            f'    self.k = Parameter(ms.Tensor({self.constant((3, 3), 0.4)}.reshape(1, 1, 3, 3)), name="k")',
            '    self.u = Parameter(ms.Tensor(np.array([0.5, -1.0, 0.25], np.float32)), name="u")',
            "    self.sub = Sub()",
            f"    self.blocks = nn.CellList([Block(0.5) for _ in range({self.n_blocks})])",
            "    for blk, value in zip(self.blocks, [",
            *blocks,
            "    ]):",
            "        blk.bw.set_data(ms.Tensor(value))",
            "    self.head = Head()",
            "    self.hp = self.head.trainable_params()",
            "    self.gop = ops.GradOperation(get_all=True, get_by_list=True)",
        ]

    def outputs(self) -> list[str]:
        outs = [*self.vars[-2:], "self.p0 + 0", "self.p1 * 1.0"]
        last = self.vars[-1]
        if self.rng.random() < 0.3:
            outs.append(f"{last} > 0")
        if self.rng.random() < 0.3:
            outs.append(f"ops.cast({last} * 4.0, ms.int32)")
        return outs

    def program(self) -> str:
        self.made_classes = self.classes()
        return super().program()


def generate(seed: int) -> str:
    """The program of `seed` (the same text on every machine and Python 3.11+)."""
    return FuzzGenerator(seed).program()
