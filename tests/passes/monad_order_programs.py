"""Programs with side effects for the auto-monad / depend-order tests, and helpers
to trace them with the frontend and run them on the CPU executor.

Graph mode reads their source from this file. `PROGRAMS` lists, for each, the
Cell class and a factory for its inputs.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

import mindjit as ms
from mindjit import nn, ops
from mindjit.backend.cpu import CpuExecutable
from mindjit.frontend.graph.program import new_compiler
from mindjit.passes.pipelines import lower_to_tensor, parse_pipeline, run_passes


class ForwardNet(nn.Cell):
    """The notebook's forward program (the loop on a Python int is unrolled)."""

    def __init__(self):
        super().__init__()
        self.weight = ms.Parameter(ms.Tensor(np.array(0), ms.int32), name="param")

    def construct(self, x):
        out = 0
        i = 0
        while i < 3:
            ops.assign(self.weight, i)
            out = x * self.weight + out
            i = i + 1
        return out


class LoopNet(nn.Cell):
    """A tensor while: assign, print and a read-only Parameter in the body."""

    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(ms.Tensor(np.array(0), ms.int32), name="w")
        self.r = ms.Parameter(ms.Tensor(np.array(5), ms.int32), name="r")

    def construct(self, x, n):
        out = x * 0
        i = x * 0
        while i < n:
            ops.assign(self.w, i)
            print("iter", i, self.w)
            out = x * self.w + out + self.r
            i = i + 1
        return out


class Sub(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = ms.Parameter(ms.Tensor(np.array(1.0, np.float32)), name="p")

    def construct(self, x):
        print("sub", x)
        ops.assign(self.p, x)
        return self.p + 1


class Top(nn.Cell):
    """A sub-Cell with effects, and an if that assigns and prints."""

    def __init__(self):
        super().__init__()
        self.sub = Sub()
        self.w = ms.Parameter(ms.Tensor(np.array(2.0, np.float32)), name="w")

    def construct(self, x):
        print("before", self.w)
        y = self.sub(x)
        if x > 0:
            ops.assign(self.w, y)
            print("in if")
        else:
            print("in else", self.w)
        return y * self.w


class WarNet(nn.Cell):
    """Write after read: `t = y + x; assign(p, t); assign(p, y); return p - w`."""

    def __init__(self):
        super().__init__()
        self.p = ms.Parameter(ms.Tensor(np.array([1.0, 2.0], np.float32)), name="p")

    def construct(self, y, w):
        x = self.p + 0
        t = y + x
        ops.assign(self.p, t)
        ops.assign(self.p, y)
        return self.p - w


class PrintBeforeAfter(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = ms.Parameter(ms.Tensor(np.array(1.0, np.float32)), name="p")

    def construct(self, x):
        print("before:", self.p)
        ops.assign(self.p, x)
        print("after:", self.p)
        return x


class Bump(nn.Cell):
    def __init__(self):
        super().__init__()
        self.count = ms.Parameter(ms.Tensor(np.array(0.0, np.float32)), name="count")

    def construct(self, x):
        ops.assign(self.count, self.count + x)
        return self.count * 2


class NestedNet(nn.Cell):
    """A call and an if with effects inside a tensor while."""

    def __init__(self):
        super().__init__()
        self.bump = Bump()
        self.acc = ms.Parameter(ms.Tensor(np.array(0.0, np.float32)), name="acc")

    def construct(self, x, n):
        i = n * 0
        while i < n:
            b = self.bump(x)
            if b > 4:
                ops.assign(self.acc, self.acc + b)
                print("big", b)
            i = i + 1
        return self.acc + self.bump.count


class FloatStatusNet(nn.Cell):
    """The docs' Depend example with the float-status ops."""

    def __init__(self):
        super().__init__()
        self.alloc_status = ops.NPUAllocFloatStatus()
        self.get_status = ops.NPUGetFloatStatus()
        self.clear_status = ops.NPUClearFloatStatus()

    def construct(self, x):
        init = self.alloc_status()
        clear_status = self.clear_status(init)
        x = ops.depend(x, clear_status)
        res = ops.sub(x, ops.neg(x))
        init = ops.depend(init, res)
        get_status = self.get_status(init)
        res = ops.depend(res, get_status)
        return res


def _i32(v):
    return ms.Tensor(np.array(v), ms.int32)


def _f32(v):
    return ms.Tensor(np.array(v, np.float32))


PROGRAMS = {
    "forward_x1": (ForwardNet, lambda: (_i32(1),)),
    "forward_x4": (ForwardNet, lambda: (_i32(4),)),
    "loop": (LoopNet, lambda: (_i32(2), _i32(3))),
    "loop_zero_trips": (LoopNet, lambda: (_i32(2), _i32(0))),
    "sub_and_if": (Top, lambda: (_f32(3.0),)),
    "sub_and_else": (Top, lambda: (_f32(-3.0),)),
    "war": (WarNet, lambda: (_f32([3.0, 4.0]), _f32([0.5, 0.25]))),
    "print_before_after": (PrintBeforeAfter, lambda: (_f32(7.0),)),
    "nested": (NestedNet, lambda: (_f32(1.5), _f32(4.0))),
    "float_status": (
        FloatStatusNet,
        lambda: (ms.Tensor(np.full((2, 3), 5, np.float16), ms.float16),),
    ),
}


def frontend(cls, args) -> tuple[ModuleOp, str, list[str]]:
    net = cls()
    name = f"{cls.__name__}_construct"
    compiler = new_compiler()
    compiler.entry(type(net).construct, net, tuple(args), {}, name)
    symbols = [symbol for symbol, _ in compiler.module.parameters.values()]
    return compiler.module.module, name, symbols


def run_pipeline(module: ModuleOp, spec: str) -> ModuleOp:
    run_passes(parse_pipeline(spec), module)
    return module


def execute(module: ModuleOp, name: str, args, symbols: list[str]):
    """Lower a copy and run it: (outputs, Parameter values, printed items)."""
    lowered = lower_to_tensor(module.clone())
    exe = CpuExecutable(lowered)
    printed: list[list] = []
    exe.print_hook = lambda items: printed.append(
        [i if isinstance(i, str) else np.asarray(i).tolist() for i in items]
    )
    outputs = exe.run(name, *[a.asnumpy() for a in args])
    values = {s: np.asarray(exe.get_global(s)).tolist() for s in symbols}
    return [np.asarray(o).tolist() for o in outputs], values, printed


def graph(module: ModuleOp, name: str) -> func.FuncOp:
    fn = next(
        op for op in module.walk() if isinstance(op, func.FuncOp) and op.sym_name.data == name
    )
    return fn
