"""The simulated device: runs a `DeviceModel` for values, time and memory.

Values: one numpy byte array is the device memory; every tensor is a view of it
at its planned address. Kernels run in the model's order, their code by the CPU
executor's numpy kernels (backend/ascend/kernels.py), reading their inputs
from memory and writing their results to memory. So the memory plan is really
exercised: a Load without a TensorMove sees a later Assign, and two tensors
sharing an address while both live would give wrong values.

Time (DEVICE.md): the host issues kernels in order, `launch_us` each; a kernel
starts when the host has issued it, its stream and its unit are free and the
events its stream waits for have happened; it takes `DeviceConfig.kernel_us`.
A reused graph's call runs its sub-sequence, then copies its outputs to the
caller's tensors.

The float-status register is set when a kernel writes an inf or nan into an
f16/f32 output; the NPU*FloatStatus builtins reset and read it.

Send and Receive (unit comm) are builtins passing a tensor through a channel
(the `__mindjit_channel_<sr_tag>` global a Step names). With `channels` None
(one device runs both ends) a Send stores its input into the channel global's
memory and a Receive copies the channel's current value into its own output.
With `channels` set (one simulator per pipeline stage, each in its own thread),
a Send calls `channels.put(channel, copy of its input)` and a Receive writes
`channels.get(channel)` (which blocks until the value is there) into its
output; the channel global's memory is not used. Either way the kernel takes
`DeviceConfig.link_us(bytes)` on the comm unit; the time a Receive waits for
its peer device is not on this device's clock.

A loop's record (a tensor at `DYNAMIC_OFFSET`, model.py) has no planned address:
it is a run-time allocation of the bytes the kernel writing it gave (capacity x
item bytes), held apart from the planned memory (`_records`) until the tensor is
written again or the run ends. The memory curve counts it while it is live, the
report's `loop_record_bytes` is the peak of those bytes, and a record that would
take the device past `memory_bytes` is a `SimulationError`.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

from mindjit.backend.ascend.device import DeviceConfig
from mindjit.backend.ascend.kernels import LoadedCode, load_code
from mindjit.backend.ascend.model import (
    COMM_UNIT,
    DYNAMIC_OFFSET,
    DeviceModel,
    Graph,
    ModelFormatError,
    Step,
    Tensor,
)
from mindjit.backend.ascend.report import build_report
from mindjit.support.errors import MindjitError

STATUS = ("float32", [8])
BUILTINS = {
    "NPUAllocFloatStatus": (0, 1),
    "NPUClearFloatStatus": (1, 1),
    "NPUGetFloatStatus": (1, 1),
}
FLOATS = ("float16", "float32")


class SimulationError(MindjitError):
    """A failure while the device runs (a failed Assert, a kernel error)."""


class Channels(Protocol):
    """Where Send and Receive meet when several simulators run a pipeline's stages
    (e.g. backend/cpu/pipeline_run.py's ChannelHub). `name` is the channel global's
    name, `__mindjit_channel_<sr_tag>`; `get` blocks until the value is there."""

    def put(self, name: str, value: np.ndarray) -> None: ...

    def get(self, name: str) -> np.ndarray: ...


class Simulator:
    def __init__(self, model: DeviceModel, config: DeviceConfig | None = None):
        self.model = model
        self.config = config or DeviceConfig()
        if model.memory_bytes > self.config.memory_bytes:
            raise MindjitError(
                f"out of device memory: the model needs {model.memory_bytes} bytes, the "
                f"device has {self.config.memory_bytes}"
            )
        # host memory for the addresses the model uses, not the whole device
        used = max(
            [t.offset + t.nbytes for t in model.tensors if t.offset >= 0]
            + [
                s.workspace[0] + s.workspace[1]
                for g in model.graphs
                for s in g.sequence
                if s.workspace
            ]
            + [0]
        )
        try:
            self.memory = np.zeros(used, np.uint8)
        except MemoryError:
            raise MindjitError(
                f"the host cannot hold the {used} bytes of device memory the model uses"
            ) from None
        self._views: dict[int, np.ndarray] = {}
        #: loop records (tensors at DYNAMIC_OFFSET, by root tensor): their arrays now
        self._records: dict[int, np.ndarray] = {}
        self.codes: dict[int, LoadedCode] = {}
        self.overflow = False
        self.print_hook: Any = None
        #: None: a Send / Receive uses its channel global's memory (one device);
        #: else the channels several simulators share (see the module doc).
        self.channels: Channels | None = None
        for entry in [*model.parameters, *model.constants]:
            t = model.tensors[entry.tensor]
            data = np.frombuffer(
                model.blob,
                np.dtype(t.dtype).newbyteorder("<"),
                count=math.prod(t.shape),
                offset=entry.start,
            )
            self.view(entry.tensor)[...] = data.reshape(t.shape)
        self._load_codes()
        self.entries = {g.name: i for i, g in enumerate(model.graphs) if g.entry}
        self.reserved = _Reserved(model)  # for every run's memory curve
        self.parameter_tensors = {p.name: p.tensor for p in model.parameters}

    # -- loading ------------------------------------------------------------------------

    def _load_codes(self) -> None:
        tensors = self.model.tensors
        for g in self.model.graphs:
            for s in g.sequence:
                if s.op != "kernel" or s.unit == COMM_UNIT:
                    continue  # Send / Receive: checked with the manifest (model.py)
                ins = [tensors[t] for t in s.inputs]
                outs = [tensors[t] for t in s.outputs]
                if s.writes != -1:
                    if s.outputs:
                        raise ModelFormatError(
                            f"kernel '{s.name}' both writes a Parameter and gives results"
                        )
                    outs = [tensors[s.writes]]
                if s.code == -1:
                    arity = BUILTINS.get(s.name)
                    status = (STATUS[0], STATUS[1])
                    if arity is None:
                        raise ModelFormatError(f"kernel '{s.name}' has no code and is no builtin")
                    if (len(ins), len(outs)) != arity or any(
                        (t.dtype, t.shape) != status for t in [*ins, *outs]
                    ):
                        raise ModelFormatError(f"builtin '{s.name}' has a bad signature")
                    continue
                if s.code not in self.codes:
                    self.codes[s.code] = load_code(self.model.codes[s.code])
                self.codes[s.code].check(s.name, ins, outs)

    def view(self, tid: int) -> np.ndarray:
        """Tensor `tid` (with an address) as a view of the device memory, or a loop
        record's current array."""
        v = self._views.get(tid)
        if v is None and self.model.tensors[tid].offset == DYNAMIC_OFFSET:
            v = self._records.get(self._root(tid))
            if v is None:
                raise SimulationError(f"loop record (tensor {tid}) read before it was written")
            return v
        if v is None:
            t = self.model.tensors[tid]
            dtype = np.dtype(t.dtype)
            raw = self.memory[t.offset : t.offset + t.nbytes]
            v = raw.view(dtype).reshape(t.shape) if t.nbytes else np.zeros(t.shape, dtype)
            self._views[tid] = v
        return v

    def _root(self, tid: int) -> int:
        while self.model.tensors[tid].alias != -1:
            tid = self.model.tensors[tid].alias
        return tid

    def _record(self, tid: int, value: np.ndarray, kernel: str) -> int:
        """Allocate loop record `tid` for `value` (a copy: the device's own memory);
        returns its bytes."""
        t = self.model.tensors[tid]
        got = np.asarray(value)
        if (
            got.dtype != np.dtype(t.dtype)
            or list(got.shape[1:]) != t.shape[1:]
            or got.ndim != len(t.shape)
        ):
            raise SimulationError(
                f"kernel '{kernel}' gave a {got.dtype} record of shape {got.shape} for a "
                f"{t.dtype} record of items {tuple(t.shape[1:])}"
            )
        live = self.clock.record_bytes_live(exclude=tid)
        if self.model.memory_bytes + live + got.nbytes > self.config.memory_bytes:
            raise SimulationError(
                f"out of device memory: kernel '{kernel}' needs a loop record of {got.nbytes} "
                f"bytes beyond the plan's {self.model.memory_bytes} and the records' {live}; "
                f"the device has {self.config.memory_bytes}"
            )
        self._records[self._root(tid)] = np.array(got)
        return got.nbytes

    # -- running --------------------------------------------------------------------------

    def run(self, inputs: Sequence[Any], entry: str | None = None) -> list[np.ndarray]:
        """Run an entry graph (the first one by default); returns copies of its outputs.
        `self.report` then describes the run."""
        gi = self.entry_index(entry)
        g = self.model.graphs[gi]
        if len(inputs) != len(g.inputs):
            raise MindjitError(f"entry @{g.name} expects {len(g.inputs)} inputs, got {len(inputs)}")
        self.clock = _Clock(self.config, self.model, self.reserved)
        self._records = {}
        for k, (tid, value) in enumerate(zip(g.inputs, inputs)):
            t = self.model.tensors[tid]
            array = np.asarray(value)
            if t.dynamic:
                size = self._record(tid, array.astype(t.dtype, copy=False), f"input {k}")
                self.clock.written(tid, 0.0, size)
                continue
            if list(array.shape) != t.shape:
                raise MindjitError(
                    f"input {k} of @{g.name} must have shape {tuple(t.shape)}, got {array.shape}"
                )
            self.view(tid)[...] = array.astype(t.dtype, copy=False)
            self.clock.written(tid, 0.0)
        self._graph(g, {})
        outs = [np.array(self.view(self._resolve(t, {}))) for t in g.outputs]
        self.report = self.clock.report(self)
        return outs

    def entry_index(self, entry: str | None) -> int:
        """The graph an entry name (None: the first entry) runs."""
        if entry is None:
            return next(iter(self.entries.values()))
        if entry not in self.entries:
            raise MindjitError(f"no entry graph '{entry}' (entries: {', '.join(self.entries)})")
        return self.entries[entry]

    def _resolve(self, tid: int, frame: dict[int, int]) -> int:
        t = self.model.tensors[tid]
        while t.offset == -1:
            tid = frame[t.arg]
            t = self.model.tensors[tid]
        return tid

    def _shaped(self, tid: int, frame: dict[int, int]) -> np.ndarray:
        """Tensor `tid` resolved through the frame, in `tid`'s own shape: a view
        (`ascend.view`) of a graph argument aliases the caller's tensor, whose
        shape may differ (a reshape of the attention mask inside a reused layer)."""
        v = self.view(self._resolve(tid, frame))
        shape = self.model.tensors[tid].shape
        if list(v.shape) == list(shape) or self.model.tensors[tid].dynamic:
            return v
        return v.reshape(shape)

    def _value(self, tid: int, frame: dict[int, int]) -> Any:
        """A tensor's value as a kernel takes it (a scalar as a numpy scalar)."""
        v = self._shaped(tid, frame)
        return v[()] if self.model.tensors[tid].scalar else v

    def _graph(self, g: Graph, frame: dict[int, int]) -> None:
        for s in g.sequence:
            if s.op == "kernel":
                self._kernel(s, frame)
            elif s.op == "call":
                self._call(s, frame)
            elif s.op == "record":
                self.clock.record(s.event, s.stream)
            else:
                self.clock.wait(s.event, s.stream)

    def _kernel(self, s: Step, frame: dict[int, int]) -> None:
        if s.unit == COMM_UNIT:
            self._comm(s, frame)
            return
        sources = [self._resolve(t, frame) for t in s.inputs]
        args = [self._value(t, frame) for t in s.inputs]
        targets = [s.writes] if s.writes != -1 else [self._resolve(t, frame) for t in s.outputs]
        if s.code == -1:
            results = self._builtin(s.name)
        else:
            code = self.codes[s.code]
            for name in code.globals:
                code.exe.set_global(name, self._param_view(name, s.name))
            if self.print_hook is not None:
                code.exe.print_hook = self.print_hook
            try:
                results = code.plan.invoke(args)
            except MindjitError as err:
                raise SimulationError(f"kernel '{s.name}' failed: {err.message}", err.loc) from None
            # the executable keeps a view of device memory as one global's buffer only
            # (views of one byte array share a root): write the others' stores back
            for name in code.stored_globals:
                view, buf = self._param_view(name, s.name), code.exe.get_global(name)
                if buf is not view:
                    view[...] = buf
        if len(results) != len(targets):
            raise SimulationError(
                f"kernel '{s.name}' gave {len(results)} results for {len(targets)} outputs"
            )
        sizes: dict[int, int] = {}
        for tid, value in zip(targets, results):
            if self.model.tensors[tid].dynamic:
                sizes[tid] = self._record(tid, value, s.name)
                out = self.view(tid)
                if s.code != -1 and out.dtype.name in FLOATS and not self.overflow:
                    self.overflow = not np.isfinite(out).all()
                continue
            out = self.view(tid)
            got = np.asarray(value)
            if got.shape != out.shape or got.dtype != out.dtype:
                raise SimulationError(
                    f"kernel '{s.name}' gave a {got.dtype} result of shape {got.shape} for "
                    f"a {out.dtype} output of shape {out.shape}"
                )
            out[...] = got
            if s.code != -1 and out.dtype.name in FLOATS and not self.overflow:
                if not np.isfinite(out).all():
                    self.overflow = True
        self.clock.kernel(s, sources, targets, sizes)

    def _comm(self, s: Step, frame: dict[int, int]) -> None:
        """A Send or Receive through channel `s.channel` (see the module doc)."""
        channel = self.parameter_tensors[s.channel]
        if s.name == "Send":
            source = self._resolve(s.inputs[0], frame)
            value = self._shaped(s.inputs[0], frame)
            if self.channels is None:
                self.view(channel)[...] = value
            else:
                self.channels.put(s.channel, np.array(value, copy=True))
            self.clock.kernel(s, [source], [channel] if self.channels is None else [])
            return
        target = self._resolve(s.outputs[0], frame)
        out = self.view(target)
        if self.channels is None:
            out[...] = self.view(channel)
        else:
            got = np.asarray(self.channels.get(s.channel))
            if got.shape != out.shape or got.dtype != out.dtype:
                raise SimulationError(
                    f"kernel 'Receive' got a {got.dtype} value of shape {got.shape} from "
                    f"channel @{s.channel} for a {out.dtype} output of shape {out.shape}"
                )
            out[...] = got
        self.clock.kernel(s, [channel] if self.channels is None else [], [target])

    def _builtin(self, name: str) -> list[np.ndarray]:
        status = np.zeros(8, np.float32)
        if name == "NPUGetFloatStatus":
            status[0] = 1.0 if self.overflow else 0.0
        else:
            self.overflow = False
        return [status]

    def _param_view(self, name: str, kernel: str) -> np.ndarray:
        tid = self.parameter_tensors.get(name)
        if tid is None:
            raise SimulationError(
                f"kernel '{kernel}' uses Parameter @{name}, which the model lacks"
            )
        return self.view(tid)

    def _call(self, s: Step, frame: dict[int, int]) -> None:
        callee = self.model.graphs[s.graph]
        inner = {k: self._resolve(t, frame) for k, t in enumerate(s.inputs)}
        self.clock.barrier()
        # the caller's tensors of a call are in use for the whole call, as the memory
        # plan holds them: the outputs from its start, the inputs to its end
        outputs = [self._resolve(dst, frame) for dst in s.outputs]
        for dst_id in outputs:
            self.clock.written(dst_id, self.clock.floor)
        self._graph(callee, inner)
        for src, dst_id in zip(callee.outputs, outputs):
            src_id = self._resolve(src, inner)
            if self.model.tensors[dst_id].dynamic:
                size = self._record(dst_id, self._shaped(src, inner), "MemCopy")
                self.clock.written(dst_id, self.clock.floor, size)
                self.clock.copy(src_id, dst_id, self.model.tensors[dst_id], s.stream, size)
                continue
            self.view(dst_id)[...] = self._shaped(src, inner).reshape(self.view(dst_id).shape)
            self.clock.copy(src_id, dst_id, self.model.tensors[dst_id], s.stream)
        self.clock.barrier()
        for tid in inner.values():
            self.clock.read(tid, self.clock.floor)

    @property
    def float_status(self) -> list[float]:
        return [1.0 if self.overflow else 0.0] + [0.0] * 7


class _Reserved:
    """Memory reserved for the whole run, found once per model: the Parameters', the
    constants' and the reused graphs' regions (the report's memory curve counts it
    in its base, as the plan's peak does), so their tensors are not live intervals."""

    def __init__(self, model: DeviceModel):
        self.regions = [(g.base, g.base + g.heap_bytes) for g in model.graphs if not g.entry]
        self.tensors = {p.tensor for p in model.parameters} | {c.tensor for c in model.constants}
        self.tensors |= {
            i for i, t in enumerate(model.tensors) if t.offset >= 0 and self.in_region(t.offset)
        }

    def in_region(self, offset: int) -> bool:
        return any(lo <= offset < hi for lo, hi in self.regions)


class _Clock:
    """Simulated time: host issue, streams, units, events; and memory in use."""

    def __init__(self, config: DeviceConfig, model: DeviceModel, reserved: _Reserved):
        self.cfg = config
        self.model = model
        self.host = 0.0
        self.floor = 0.0  # nothing starts before the last call barrier
        self.stream_end: dict[int, float] = defaultdict(float)
        self.unit_free: dict[str, float] = defaultdict(float)
        self.events: dict[int, float] = {}
        self.recorded_on: dict[int, int] = {}  # event -> the stream that records it
        self.waits: list[dict[str, Any]] = []  # every wait: which event, streams, when
        self.kernels: list[dict[str, Any]] = []
        self.live: dict[int, list[float]] = {}  # tensor -> [start, end] of its current value
        self.intervals: list[tuple[float, float, int]] = []
        self.reserved = reserved
        self.link_bytes = 0.0  # what Send / Receive kernels moved
        self.record_sizes: dict[int, int] = {}  # a loop record's bytes now (by tensor)
        self.record_intervals: list[tuple[float, float, int]] = []

    def _size(self, tid: int) -> int:
        t = self.model.tensors[tid]
        if t.dynamic:  # a loop record: its bytes now, nothing while empty
            n = self.record_sizes.get(tid, 0)
            if n == 0:
                return 0
        else:
            n = t.nbytes
        a = self.model.align
        return max(a, -(-n // a) * a) if a > 1 else n

    def _close(self, tid: int, span: list[float]) -> None:
        size = self._size(tid)
        self.intervals.append((span[0], span[1], size))
        if self.model.tensors[tid].dynamic:  # its exact bytes: capacity x item bytes
            self.record_intervals.append((span[0], span[1], self.record_sizes.get(tid, 0)))

    def _aligned(self, n: int) -> int:
        a = self.model.align
        return 0 if n == 0 else (max(a, -(-n // a) * a) if a > 1 else n)

    def record_bytes_live(self, exclude: int = -1) -> int:
        """The bytes of the loop records live now (the one being rewritten left out)."""
        return sum(
            self._size(t) for t in self.live if t != exclude and self.model.tensors[t].dynamic
        )

    def written(self, tid: int, at: float, size: int | None = None) -> None:
        if tid in self.reserved.tensors:
            return
        old = self.live.pop(tid, None)
        if old is not None:
            self._close(tid, old)
        if size is not None:
            self.record_sizes[tid] = size
        self.live[tid] = [at, at]

    def read(self, tid: int, at: float) -> None:
        if tid in self.live:
            self.live[tid][1] = max(self.live[tid][1], at)

    def _run(self, name: str, unit: str, stream: int, duration: float) -> tuple[float, float]:
        self.host += self.cfg.launch_us
        start = max(self.host, self.floor, self.stream_end[stream], self.unit_free[unit])
        end = start + duration
        self.stream_end[stream] = end
        self.unit_free[unit] = end
        self.kernels.append(
            {
                "name": name,
                "unit": unit,
                "stream": stream,
                "start_us": start,
                "duration_us": duration,
            }
        )
        return start, end

    def kernel(
        self, s: Step, reads: list[int], writes: list[int], sizes: dict[int, int] | None = None
    ) -> None:
        duration = self.cfg.kernel_us(s.unit, s.dtype, s.flops, s.bytes)
        start, end = self._run(s.name, s.unit, s.stream, duration)
        if s.unit == COMM_UNIT:
            self.link_bytes += s.bytes
        for t in reads:
            self.read(t, end)
        for t in writes:
            self.written(t, start, sizes.get(t) if sizes else None)
            self.read(t, end)
        if s.workspace and not self.reserved.in_region(s.workspace[0]):
            self.intervals.append((start, end, s.workspace[1]))

    def copy(self, src: int, dst: int, t: Tensor, stream: int, nbytes: int | None = None) -> None:
        moved = t.nbytes if nbytes is None else nbytes
        start, end = self._run("MemCopy", "vector", stream, self.cfg.copy_us(2 * moved))
        self.read(src, end)
        if dst not in self.live:  # a call's output is in use from the call's start
            self.written(dst, start)
        self.read(dst, end)

    def record(self, event: int, stream: int) -> None:
        self.events[event] = self.stream_end[stream]
        self.recorded_on[event] = stream

    def wait(self, event: int, stream: int) -> None:
        at = self.events.get(event, 0.0)
        self.stream_end[stream] = max(self.stream_end[stream], at)
        self.waits.append(
            {
                "event": event,
                "from_stream": self.recorded_on.get(event, -1),
                "to_stream": stream,
                "time_us": at,
            }
        )

    def barrier(self) -> None:
        """Every stream has finished what was issued; later kernels start after."""
        self.floor = max([self.floor, *self.stream_end.values()])

    def report(self, sim: Simulator) -> dict[str, Any]:

        for tid, span in self.live.items():
            self._close(tid, span)
        self.live = {}
        aligned = [(a, b, self._aligned(n)) for a, b, n in self.record_intervals]
        report = build_report(
            sim, self.kernels, self.intervals, self.link_bytes, self.record_intervals, aligned
        )
        report["event_waits"] = self.waits
        return report
