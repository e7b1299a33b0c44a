"""The device model: what the model file holds, checked field by field when read.

`DeviceModel.from_manifest` is the only way a manifest becomes a model, and it
rejects (with `ModelFormatError`) anything the simulator could trip on: a
missing or mistyped field, an offset past the device memory, a tensor read
before any kernel wrote it, a wait for an event never recorded, a call cycle,
a blob range past the blob, a Send / Receive whose channel is no Parameter of
the model's type. The kernels' code is checked when it is loaded
(backend/ascend/kernels.py).

Send and Receive (unit "comm") are builtins of the device like the float-status
kernels (no code): a Send takes one input and `writes` its channel, a Receive
gives one output; both name their channel global (`channel`, the
`__mindjit_channel_<sr_tag>` Parameter) and carry the bytes they move (`bytes`).
Every other kernel has `channel` "".

A loop's record (mindir.stack_*, a `tensor<?x...>`) is a tensor whose shape
starts with -1 and whose offset is `DYNAMIC_OFFSET`: no planned address, the
simulator allocates it when a kernel writes it (its capacity is known only
then). Its `nbytes` is 0: it takes none of the planned memory.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mindjit.support.errors import MindjitError

FORMAT_NAME = "mindjit-ascend-sim"
DTYPES = (
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64",
)  # fmt: skip
UNITS = ("cube", "vector", "aicpu", "comm")
COMM_UNIT = "comm"
COMM_KERNELS = ("Send", "Receive")
MAX_STREAMS = 64
MAX_RANK = 16
#: the offset of a loop's record: allocated at run time (the module doc)
DYNAMIC_OFFSET = -2


class ModelFormatError(MindjitError):
    """A model file that cannot be run: truncated, corrupted, foreign or inconsistent."""


@dataclass
class Tensor:
    dtype: str
    shape: list[int]
    offset: int  # absolute address; -1 for a graph argument bound at each call
    arg: int = -1  # argument index, for a bound argument
    alias: int = -1  # the tensor whose memory this one views (same bytes)
    scalar: bool = False  # a scalar value, not a tensor

    @property
    def nbytes(self) -> int:
        """Planned bytes: 0 for a loop's record (allocated at run time)."""
        if self.shape and self.shape[0] == -1:
            return 0
        return math.prod(self.shape) * np.dtype(self.dtype).itemsize

    @property
    def dynamic(self) -> bool:
        """A loop's record: its first dim is its capacity, known when it is written."""
        return bool(self.shape) and self.shape[0] == -1


@dataclass
class Step:
    """One entry of a graph's sequence: a kernel, a call, or an event."""

    op: str  # "kernel" | "call" | "record" | "wait"
    name: str = ""
    unit: str = "vector"
    dtype: str = "float32"
    stream: int = 0
    code: int = -1  # index into codes; -1: a builtin kernel (float status)
    inputs: list[int] = field(default_factory=list)
    outputs: list[int] = field(default_factory=list)
    writes: int = -1  # the Parameter tensor an Assign stores into
    workspace: list[int] = field(default_factory=list)  # [offset, bytes]
    flops: float = 0.0
    bytes: float = 0.0
    graph: int = -1  # callee, for a call
    event: int = -1
    channel: str = ""  # a Send / Receive's channel: the Parameter it passes through


@dataclass
class Graph:
    name: str
    inputs: list[int]
    outputs: list[int]
    sequence: list[Step]
    base: int = 0
    heap_bytes: int = 0
    lower_bound_bytes: int = 0
    entry: bool = True


@dataclass
class Blob:
    tensor: int
    start: int
    nbytes: int
    name: str = ""


@dataclass
class DeviceModel:
    memory_bytes: int
    persistent_bytes: int
    align: int
    events: int
    tensors: list[Tensor]
    parameters: list[Blob]
    constants: list[Blob]
    codes: list[str]
    graphs: list[Graph]
    blob: bytes = b""
    producer: str = "mindjit"

    # -- writing ------------------------------------------------------------------

    def manifest(self) -> dict[str, Any]:
        def step(s: Step) -> dict[str, Any]:
            if s.op in ("record", "wait"):
                return {"op": s.op, "event": s.event, "stream": s.stream}
            if s.op == "call":
                keys = ("op", "graph", "stream", "inputs", "outputs")
            else:
                keys = (
                    "op", "name", "unit", "dtype", "stream", "code", "inputs", "outputs",
                    "writes", "workspace", "flops", "bytes", "channel",
                )  # fmt: skip
            return {k: getattr(s, k) for k in keys}

        return {
            "format": FORMAT_NAME,
            "producer": self.producer,
            "memory_bytes": self.memory_bytes,
            "persistent_bytes": self.persistent_bytes,
            "align": self.align,
            "events": self.events,
            "tensors": [
                [t.dtype, t.shape, t.offset, t.arg, t.alias, t.scalar] for t in self.tensors
            ],
            "parameters": [[p.name, p.tensor, p.start, p.nbytes] for p in self.parameters],
            "constants": [[c.tensor, c.start, c.nbytes] for c in self.constants],
            "codes": self.codes,
            "graphs": [
                {
                    "name": g.name,
                    "entry": g.entry,
                    "inputs": g.inputs,
                    "outputs": g.outputs,
                    "base": g.base,
                    "heap_bytes": g.heap_bytes,
                    "lower_bound_bytes": g.lower_bound_bytes,
                    "sequence": [step(s) for s in g.sequence],
                }
                for g in self.graphs
            ],
        }

    # -- reading --------------------------------------------------------------------

    @classmethod
    def from_manifest(cls, m: Any, blob: bytes) -> DeviceModel:
        r = _Reader()
        m = r.obj(m, "manifest")
        if m.get("format") != FORMAT_NAME:
            raise ModelFormatError(f"not a {FORMAT_NAME} model (format {m.get('format')!r})")
        memory = r.int(m, "memory_bytes", 1, 1 << 50)
        model = cls(
            memory_bytes=memory,
            persistent_bytes=r.int(m, "persistent_bytes", 0, memory),
            align=r.int(m, "align", 1, 1 << 20),
            events=r.int(m, "events", 0, 1 << 24),
            tensors=[],
            parameters=[],
            constants=[],
            codes=[r.str(c, "codes[]") for c in r.list(m, "codes")],
            graphs=[],
            blob=blob,
            producer=r.str(m.get("producer", ""), "producer"),
        )
        for i, row in enumerate(r.list(m, "tensors")):
            model.tensors.append(r.tensor(row, i, memory))
        nt = len(model.tensors)
        for i, t in enumerate(model.tensors):
            if t.alias != -1:
                if not 0 <= t.alias < i:
                    raise ModelFormatError(f"tensor {i} views tensor {t.alias}, not an earlier one")
                root = model.tensors[t.alias]
                if (root.offset, root.arg, root.nbytes) != (t.offset, t.arg, t.nbytes):
                    raise ModelFormatError(f"tensor {i} views tensor {t.alias} but not its memory")
        for row in r.list(m, "parameters"):
            items = r.row(row, 4, "parameter")
            model.parameters.append(
                Blob(items[1], items[2], items[3], name=r.str(items[0], "parameter name"))
            )
        for row in r.list(m, "constants"):
            items = r.row(row, 3, "constant")
            model.constants.append(Blob(items[0], items[1], items[2]))
        for b in [*model.parameters, *model.constants]:
            r.index(b.tensor, nt, "blob tensor")
            r.check_ints(b.start, b.nbytes)
            t = model.tensors[b.tensor]
            if b.start < 0 or b.start + b.nbytes > len(blob) or b.nbytes != t.nbytes:
                raise ModelFormatError(f"data of tensor {b.tensor} lies outside the blob")
            if t.offset < 0:
                raise ModelFormatError(f"tensor {b.tensor} holds data but has no address")
        for g in r.list(m, "graphs"):
            model.graphs.append(r.graph(g, len(model.codes), nt))
        if not model.graphs or not any(g.entry for g in model.graphs):
            raise ModelFormatError("the model has no entry graph")
        _check_graphs(model)
        return model


class _Reader:
    """Typed access to untrusted JSON: every failure is a ModelFormatError."""

    def obj(self, v: Any, what: str) -> dict[str, Any]:
        if not isinstance(v, dict):
            raise ModelFormatError(f"{what} must be an object")
        return v

    def list(self, m: dict[str, Any], key: str) -> list[Any]:
        v = m.get(key)
        if not isinstance(v, list):
            raise ModelFormatError(f"field '{key}' must be a list")
        return v

    def str(self, v: Any, what: str) -> str:
        if not isinstance(v, str):
            raise ModelFormatError(f"{what} must be a string")
        return v

    def int(self, m: dict[str, Any], key: str, lo: int, hi: int) -> int:
        v = m.get(key)
        if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
            raise ModelFormatError(f"field '{key}' must be an integer in [{lo}, {hi}], got {v!r}")
        return v

    def check_ints(self, *values: Any) -> None:
        for v in values:
            if not isinstance(v, int) or isinstance(v, bool) or abs(v) > 1 << 52:
                raise ModelFormatError(f"expected an integer, got {v!r}")

    def index(self, v: Any, n: int, what: str) -> int:
        self.check_ints(v)
        if not 0 <= v < n:
            raise ModelFormatError(f"{what} {v} is out of range (0..{n - 1})")
        return v

    def ints(self, v: Any, what: str) -> list[int]:
        if not isinstance(v, list):
            raise ModelFormatError(f"{what} must be a list of integers")
        self.check_ints(*v)
        return v

    def row(self, v: Any, n: int, what: str) -> list[Any]:
        if not isinstance(v, list) or len(v) != n:
            raise ModelFormatError(f"a {what} entry must have {n} items")
        return v

    def tensor(self, row: Any, i: int, memory: int) -> Tensor:
        dtype, shape, offset, arg, alias, scalar = self.row(row, 6, "tensor")
        if dtype not in DTYPES:
            raise ModelFormatError(f"tensor {i} has unknown dtype {dtype!r}")
        shape = self.ints(shape, f"tensor {i} shape")
        dynamic = bool(shape) and shape[0] == -1  # a loop's record: [-1, item dims...]
        if len(shape) > MAX_RANK or any(d < 0 for d in shape[1 if dynamic else 0 :]):
            raise ModelFormatError(f"tensor {i} has a bad shape {shape}")
        self.check_ints(offset, arg, alias)
        if not isinstance(scalar, bool) or (scalar and shape):
            raise ModelFormatError(f"tensor {i} has a bad scalar flag")
        t = Tensor(dtype, shape, offset, arg, alias, scalar)
        if dynamic and offset not in (-1, DYNAMIC_OFFSET):
            raise ModelFormatError(f"tensor {i} has a dynamic shape {shape} and an address")
        if offset == DYNAMIC_OFFSET:
            if not dynamic:
                raise ModelFormatError(f"tensor {i} of static shape {shape} has no address")
        elif offset == -1:
            if arg < 0:
                raise ModelFormatError(f"tensor {i} has neither an address nor an argument")
        elif offset < 0 or offset + t.nbytes > memory:
            raise ModelFormatError(
                f"tensor {i} at offset {offset} ({t.nbytes} bytes) lies past the device "
                f"memory ({memory} bytes)"
            )
        return t

    def graph(self, g: Any, codes: int, nt: int) -> Graph:
        g = self.obj(g, "graph")
        entry = g.get("entry")
        if not isinstance(entry, bool):
            raise ModelFormatError("graph field 'entry' must be a boolean")
        graph = Graph(
            name=self.str(g.get("name"), "graph name"),
            inputs=[self.index(t, nt, "graph input") for t in self.ints(g.get("inputs"), "inputs")],
            outputs=[
                self.index(t, nt, "graph output") for t in self.ints(g.get("outputs"), "outputs")
            ],
            sequence=[],
            base=self.int(g, "base", 0, 1 << 50),
            heap_bytes=self.int(g, "heap_bytes", 0, 1 << 50),
            lower_bound_bytes=self.int(g, "lower_bound_bytes", 0, 1 << 50),
            entry=entry,
        )
        for s in self.list(g, "sequence"):
            graph.sequence.append(self.step(s, codes, nt))
        return graph

    def step(self, s: Any, codes: int, nt: int) -> Step:
        s = self.obj(s, "sequence entry")
        op = s.get("op")
        stream = self.int(s, "stream", 0, MAX_STREAMS - 1)
        if op in ("record", "wait"):
            return Step(op, stream=stream, event=self.int(s, "event", 0, 1 << 24))

        def tensors(key: str) -> list[int]:
            return [self.index(t, nt, f"{op} {key[:-1]}") for t in self.ints(s.get(key), key)]

        if op == "call":
            return Step(
                "call",
                stream=stream,
                graph=self.int(s, "graph", 0, 1 << 24),
                inputs=tensors("inputs"),
                outputs=tensors("outputs"),
            )
        if op != "kernel":
            raise ModelFormatError(f"unknown sequence entry {op!r}")
        unit = s.get("unit")
        if unit not in UNITS:
            raise ModelFormatError(f"kernel has unknown unit {unit!r}")
        dtype = s.get("dtype")
        if dtype not in DTYPES:
            raise ModelFormatError(f"kernel has unknown dtype {dtype!r}")
        code = s.get("code")
        self.check_ints(code)
        if not -1 <= code < codes:
            raise ModelFormatError(f"kernel code {code} is out of range")
        workspace = self.ints(s.get("workspace"), "workspace")
        if len(workspace) not in (0, 2) or any(w < 0 for w in workspace):
            raise ModelFormatError("a kernel workspace is [offset, bytes]")
        flops, nbytes = s.get("flops"), s.get("bytes")
        for v in (flops, nbytes):
            if not isinstance(v, int | float) or isinstance(v, bool) or not 0 <= v < 1e30:
                raise ModelFormatError(f"kernel cost {v!r} is not a non-negative number")
        writes = s.get("writes")
        self.check_ints(writes)
        if writes != -1:
            self.index(writes, nt, "Assign target")
        name = self.str(s.get("name"), "kernel name")
        channel = self.str(s.get("channel"), "kernel channel")
        if unit == COMM_UNIT:
            if name not in COMM_KERNELS:
                raise ModelFormatError(
                    f"kernel '{name}' on the comm unit is neither Send nor Receive"
                )
            if not channel:
                raise ModelFormatError(f"kernel '{name}' on the comm unit names no channel")
            if code != -1:
                raise ModelFormatError(f"kernel '{name}' is a builtin of the device, not code")
        elif channel:
            raise ModelFormatError(
                f"kernel '{name}' on the {unit} unit names a channel; only comm kernels do"
            )
        return Step(
            "kernel",
            name=name,
            unit=unit,
            dtype=dtype,
            stream=stream,
            code=code,
            inputs=tensors("inputs"),
            outputs=tensors("outputs"),
            writes=writes,
            workspace=workspace,
            flops=float(flops),
            bytes=float(nbytes),
            channel=channel,
        )


def _check_graphs(model: DeviceModel) -> None:
    """Consistency across the manifest: reads after writes, events, calls, memory."""
    persistent = {p.tensor for p in model.parameters} | {c.tensor for c in model.constants}
    channels = {p.name: p.tensor for p in model.parameters}
    tensors = model.tensors

    def root(t: int) -> int:
        while tensors[t].alias != -1:
            t = tensors[t].alias
        return t

    calls: dict[int, set[int]] = {}
    for gi, g in enumerate(model.graphs):
        if g.base + g.heap_bytes > model.memory_bytes:
            raise ModelFormatError(f"graph '{g.name}' has its heap past the device memory")
        written = {root(t) for t in g.inputs} | {root(t) for t in persistent}
        if g.entry and any(tensors[t].offset == -1 for t in g.inputs):
            raise ModelFormatError(f"entry graph '{g.name}' has inputs bound at a call")
        for k, t in enumerate(g.inputs):
            if tensors[t].offset == -1 and tensors[t].arg != k:
                raise ModelFormatError(f"graph '{g.name}' input {k} is bound to another argument")
        recorded: set[int] = set()
        calls[gi] = set()
        for n, s in enumerate(g.sequence):
            where = f"graph '{g.name}' step {n}"
            if s.op in ("record", "wait"):
                if s.event >= model.events:
                    raise ModelFormatError(f"{where}: event {s.event} is out of range")
                if s.op == "record":
                    recorded.add(s.event)
                elif s.event not in recorded:
                    raise ModelFormatError(f"{where}: waits for event {s.event}, never recorded")
                continue
            for t in s.inputs:
                if root(t) not in written:
                    raise ModelFormatError(
                        f"{where}: '{s.name or s.op}' reads tensor {t}, which no one wrote"
                    )
            if s.op == "call":
                if s.graph >= len(model.graphs):
                    raise ModelFormatError(f"{where}: calls graph {s.graph}, which does not exist")
                callee = model.graphs[s.graph]
                _same_types(tensors, s.inputs, callee.inputs, f"{where}: call inputs")
                _same_types(tensors, s.outputs, callee.outputs, f"{where}: call outputs")
                calls[gi].add(s.graph)
            if s.writes != -1 and root(s.writes) not in persistent:
                raise ModelFormatError(f"{where}: Assign writes tensor {s.writes}, not a Parameter")
            if s.op == "kernel" and s.unit == COMM_UNIT:
                _check_comm(s, where, channels, tensors)
            if s.workspace and s.workspace[0] + s.workspace[1] > model.memory_bytes:
                raise ModelFormatError(f"{where}: workspace lies past the device memory")
            for t in s.outputs:
                if tensors[t].offset == -1 or root(t) in persistent:
                    raise ModelFormatError(f"{where}: writes tensor {t}, which it may not")
                written.add(root(t))
        for t in g.outputs:
            if root(t) not in written:
                raise ModelFormatError(f"graph '{g.name}' returns tensor {t}, which no one wrote")
    _check_acyclic(calls, model)


def _check_comm(s: Step, where: str, channels: dict[str, int], tensors: list[Tensor]) -> None:
    """A Send stores its one input into its channel; a Receive gives the channel's
    value as its one output: the channel is a Parameter of the value's type."""
    if s.channel not in channels:
        raise ModelFormatError(
            f"{where}: '{s.name}' uses channel @{s.channel}, which is no Parameter of the model"
        )
    channel = channels[s.channel]
    if s.name == "Send":
        if len(s.inputs) != 1 or s.outputs or s.writes != channel:
            raise ModelFormatError(
                f"{where}: a Send takes one input, gives nothing and writes its channel"
            )
        value = s.inputs[0]
    else:
        if s.inputs or len(s.outputs) != 1 or s.writes != -1:
            raise ModelFormatError(
                f"{where}: a Receive takes nothing, gives one output and writes no Parameter"
            )
        value = s.outputs[0]
    sig = lambda t: (tensors[t].dtype, tensors[t].shape, tensors[t].scalar)  # noqa: E731
    if sig(value) != sig(channel):
        raise ModelFormatError(
            f"{where}: '{s.name}' moves a {tensors[value].dtype} {tensors[value].shape} "
            f"but channel @{s.channel} holds a {tensors[channel].dtype} {tensors[channel].shape}"
        )


def _same_types(tensors: list[Tensor], a: list[int], b: list[int], what: str) -> None:
    sig = lambda ts: [(tensors[t].dtype, tensors[t].shape, tensors[t].scalar) for t in ts]  # noqa: E731
    if sig(a) != sig(b):
        raise ModelFormatError(f"{what} do not match the callee's signature")


MAX_CALL_DEPTH = 64


def _check_acyclic(calls: dict[int, set[int]], model: DeviceModel) -> None:
    """No graph calls itself, and calls nest at most MAX_CALL_DEPTH deep."""
    depth: dict[int, int] = {}
    for start in calls:
        stack: list[tuple[int, list[int]]] = [(start, sorted(calls.get(start, ())))]
        on_path = {start}
        while stack:
            g, todo = stack[-1]
            if todo:
                c = todo.pop()
                if c in on_path:
                    raise ModelFormatError(f"graph '{model.graphs[c].name}' calls itself")
                if c not in depth:
                    if len(stack) >= MAX_CALL_DEPTH:
                        raise ModelFormatError(f"calls nest deeper than {MAX_CALL_DEPTH} graphs")
                    stack.append((c, sorted(calls.get(c, ()))))
                    on_path.add(c)
                elif depth[c] + len(stack) > MAX_CALL_DEPTH:
                    raise ModelFormatError(f"calls nest deeper than {MAX_CALL_DEPTH} graphs")
                continue
            stack.pop()
            on_path.discard(g)
            depth[g] = 1 + max((depth[c] for c in calls.get(g, ())), default=0)
