"""A generator of random side-effect programs (assign, load, depend, print, if, for,
while, sub-Cell calls), written as Python source so graph mode can parse them.

`ProgramGenerator` is also the base of fuzz/programs.py (the differential fuzzer's
generator): a statement kind is a method `stmt_<kind>` weighted by `kinds`, and the
header, Parameters and outputs are methods, so a subclass adds kinds and values
without changing what a seed gives here."""

from __future__ import annotations

import random
import textwrap

HEADER = """\
import numpy as np
import mindjit as ms
from mindjit import Parameter, nn, ops


class Sub(nn.Cell):
    def __init__(self):
        super().__init__()
        self.q = Parameter(ms.Tensor(np.array([0.5, -1.0, 2.0], np.float32)), name="q")

    def construct(self, v):
        ops.assign(self.q, self.q * 0.5 + v)
        ops.print("sub", self.q)
        return self.q + v

"""


class ProgramGenerator:
    """Builds `class Net(nn.Cell)` with Parameters p0..p2 and a random construct."""

    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        self.inputs = ["x"]
        self.vars = list(self.inputs)
        self.fresh = 0

    def operand(self) -> str:
        choices = [*self.vars, "self.p0", "self.p1", "self.p2", "x"]
        return self.rng.choice(choices)

    def expr(self, depth: int = 0) -> str:
        r = self.rng.random()
        if depth > 1 or r < 0.35:
            return self.operand()
        if r < 0.5:
            return f"({self.operand()} * {self.rng.choice(['0.5', '2.0', '-1.0'])})"
        op = self.rng.choice(["+", "-", "*"])
        return f"({self.expr(depth + 1)} {op} {self.expr(depth + 1)})"

    def bounded(self) -> str:
        """Keep values small so no overflow differs between runs."""
        return f"ops.tanh({self.expr()})"

    def kinds(self, depth: int) -> dict[str, int]:
        """Statement kinds and their weights at this nesting depth."""
        return {
            "assign": 5,
            "let": 4,
            "print": 2,
            "depend": 1,
            "if": 2 if depth < 2 else 0,
            "for": 1 if depth < 2 else 0,
            "while": 1 if depth < 1 else 0,
            "sub": 1,
        }

    def statement(self, depth: int) -> list[str]:
        weights = self.kinds(depth)
        kind = self.rng.choices(list(weights), weights=list(weights.values()))[0]
        return getattr(self, f"stmt_{kind}")(depth)

    def new_name(self, prefix: str = "v") -> str:
        name = f"{prefix}{self.fresh}"
        self.fresh += 1
        return name

    def stmt_assign(self, depth: int) -> list[str]:
        p = self.rng.choice(["p0", "p1", "p2"])
        return [f"ops.assign(self.{p}, {self.bounded()})"]

    def stmt_let(self, depth: int) -> list[str]:
        name = self.new_name()
        line = f"{name} = {self.bounded()}"
        self.vars.append(name)
        return [line]

    def stmt_print(self, depth: int) -> list[str]:
        return [f'ops.print("at", {self.operand()})']

    def stmt_depend(self, depth: int) -> list[str]:
        target = self.rng.choice(self.vars)
        return [f"{target} = ops.depend({target}, self.{self.rng.choice(['p0', 'p1', 'p2'])})"]

    def stmt_sub(self, depth: int) -> list[str]:
        name = self.new_name()
        line = f"{name} = ops.tanh(self.sub({self.bounded()}))"
        self.vars.append(name)
        return [line]

    def stmt_if(self, depth: int) -> list[str]:
        # every variable set in a branch is set in both, so it is defined after
        target = self.rng.choice(self.vars)
        cond = f"{self.operand()}.sum() > {self.rng.choice(['0.0', '0.5', '-0.5'])}"
        then = self.block(depth + 1, 2) + [f"{target} = {self.bounded()}"]
        other = self.block(depth + 1, 2) + [f"{target} = {self.bounded()}"]
        return [f"if {cond}:", *indent(then), "else:", *indent(other)]

    def stmt_for(self, depth: int) -> list[str]:
        return [f"for _ in range({self.rng.randint(1, 3)}):", *indent(self.block(depth + 1, 2))]

    def stmt_while(self, depth: int) -> list[str]:
        # while on a tensor: a counter plus effects in the body
        counter = self.new_name("k")
        body = self.block(depth + 1, 2) + [f"{counter} = {counter} + 1"]
        return [
            f"{counter} = ms.Tensor(0, ms.int32)",
            f"while {counter} < {self.rng.randint(1, 3)}:",
            *indent(body),
        ]

    def block(self, depth: int, size: int) -> list[str]:
        saved = list(self.vars)
        lines: list[str] = []
        for _ in range(self.rng.randint(1, size)):
            lines += self.statement(depth)
        self.vars = saved  # names made inside a nested block stay there
        return lines

    header = HEADER

    def outputs(self) -> list[str]:
        return [*self.vars[-2:], "self.p0 + 0", "self.p1 * 1.0"]

    def init_lines(self) -> list[str]:
        return [
            '    self.p0 = Parameter(ms.Tensor(np.array([1.0, 2.0, 3.0], np.float32)), name="p0")',
            '    self.p1 = Parameter(ms.Tensor(np.array([-1.0, 0.5, 0.25], np.float32)), name="p1")',
            '    self.p2 = Parameter(ms.Tensor(np.array([0.0, 1.0, -2.0], np.float32)), name="p2")',
            "    self.sub = Sub()",
        ]

    size = 7  # at most this many statements at the top of construct

    def program(self) -> str:
        body = self.block(0, self.size)
        outs = ", ".join(dict.fromkeys(self.outputs()))
        args = ", ".join(["self", *self.inputs])
        construct = "\n".join([f"def construct({args}):", *indent(body), f"    return ({outs},)"])
        init = ["def __init__(self):", "    super().__init__()", *self.init_lines()]
        cls = ["class Net(nn.Cell):", *indent(init), "", *indent(construct.splitlines())]
        return self.header + "\n".join(cls) + "\n"


def indent(lines: list[str]) -> list[str]:
    return [textwrap.indent(line, "    ") if line else line for line in lines]


def generate(seed: int) -> str:
    return ProgramGenerator(seed).program()
