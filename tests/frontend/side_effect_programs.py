"""Side-effect programs of issue 4's checks (graph mode reads their source here)."""

from __future__ import annotations

import numpy as np

import mindjit as ms
from mindjit import Parameter, nn, ops


class ForwardNet(nn.Cell):
    """The notebook's program (doc 002): three Assigns and three Loads of one Parameter."""

    def __init__(self):
        super().__init__()
        self.weight = Parameter(ms.tensor(np.array(0), ms.int32), name="param")

    def construct(self, x):
        out = 0
        i = 0
        while i < 3:
            ops.assign(self.weight, i)
            out = x * self.weight + out
            i = i + 1
        return out


class Reference(nn.Cell):
    """A Parameter bound to a name stays a reference: a + b sees the last assign (4)."""

    def __init__(self):
        super().__init__()
        self.p = Parameter(ms.Tensor(0, ms.int32), name="p")

    def construct(self):
        ops.assign(self.p, ms.Tensor(1, ms.int32))
        a = self.p
        ops.assign(self.p, ms.Tensor(2, ms.int32))
        b = self.p
        return a + b


class Snapshot(nn.Cell):
    """`self.p + 0` reads the value at that point: 1 + 2 = 3."""

    def __init__(self):
        super().__init__()
        self.p = Parameter(ms.Tensor(0, ms.int32), name="p")

    def construct(self):
        ops.assign(self.p, ms.Tensor(1, ms.int32))
        a = self.p + 0
        ops.assign(self.p, ms.Tensor(2, ms.int32))
        b = self.p + 0
        return a + b


class WriteAfterRead(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = Parameter(ms.Tensor([1.0, 2.0], ms.float32), name="p")
        self.w = Parameter(ms.Tensor([0.5, 0.5], ms.float32), name="w")

    def construct(self, x, y):
        t = y + self.p
        ops.assign(self.p, t)
        ops.assign(self.p, y + x)
        return self.p - self.w + t


class WriteReadWrite(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = Parameter(ms.Tensor([1.0, 2.0], ms.float32), name="p")

    def construct(self, x):
        ops.assign(self.p, x)
        r = self.p * 2
        ops.assign(self.p, r + 1)
        return r, self.p + 0


class Printer(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = Parameter(ms.Tensor([1.0], ms.float32), name="p")

    def construct(self, x):
        print("before:", self.p)
        ops.assign(self.p, x)
        print("after:", self.p)
        return x


class Inner(nn.Cell):
    def construct(self, x):
        print("inner")
        return x + 1


class PrintOrder(nn.Cell):
    def __init__(self):
        super().__init__()
        self.inner = Inner()

    def construct(self, x):
        print("first")
        y = self.inner(x)
        print("second")
        if x.sum() > 0:
            print("then")
        else:
            print("else")
        i = ms.Tensor(0, ms.int32)
        while i < 3:
            print("loop")
            i = i + 1
        print("last")
        return y
