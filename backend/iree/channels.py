"""Pipeline channels on IREE: each send and receive is a call of a host import.

The lowering gives a pipeline stage's `mindir.send` / `mindir.receive` as a
store to / a load of a channel global `@__mindjit_channel_<k>`
(passes/mindir_to_tensor/state.py); the numpy executor turns those into calls
of its `ChannelHub` while a pipelined call runs. IREE has value semantics for
globals and one function per call, so the stage functions cannot meet in a
global: instead each channel op becomes a call of a function of the Python
module `mindjit` the executable registers, as prints are,

    ml_program.global_store @__mindjit_channel_3 = %x  ->  func.call @mindjit.send_3(%x)
    %y = ml_program.global_load @__mindjit_channel_3   ->  %y = func.call @mindjit.receive_3()

and the channel globals leave the module (they are not Parameters: no argument,
no result). The executable implements the imports with the hub of the call
(`put` / `get`, which may block until the other stage sends).

Why the order holds: IREE treats a call of an import as having side effects,
so it keeps the calls in block order relative to each other (a stage's sends
and receives stay the subsequence of the graph's order that makes the
pipeline deadlock-free, mindir_pipeline_split.py), never drops one, and
waits for a sent tensor's value before the call (the import gets a buffer,
i.e. IREE exports the tensor at that point). Parameters are SSA values by then
(prepare.py), so a value sent before an update is the value before the update
by construction. tests/backend/test_iree_channels.py checks each of these on
programs where a wrong order gives a different value or a deadlock.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, SymbolRefAttr
from xdsl.dialects.ml_program import GlobalOp
from xdsl.ir import Attribute

from mindjit.backend.cpu.errors import ExecutionError
from mindjit.backend.cpu.types import dense_array, dtype_of, static_shape
from mindjit.dialects.ml_program_ext import GlobalLoadOp, GlobalStoreOp
from mindjit.ir.walk import walk_ops
from mindjit.passes.mindir_to_tensor.state import CHANNEL_PREFIX

HOST_MODULE = "mindjit"  # the Python module of the host imports (prints too)


@dataclass(frozen=True)
class Channel:
    """One channel global: its tag, its tensor type, its initial value (what a
    receive gives outside a pipelined call before any send, as on the CPU)."""

    name: str  # the global, @__mindjit_channel_<tag>
    type: Attribute
    initial: Attribute | None

    @property
    def tag(self) -> str:
        return self.name[len(CHANNEL_PREFIX) :]

    @property
    def send(self) -> str:
        return f"send_{self.tag}"

    @property
    def receive(self) -> str:
        return f"receive_{self.tag}"


def is_channel(name: str) -> bool:
    return name.startswith(CHANNEL_PREFIX)


def channels_of(module: ModuleOp) -> dict[str, Channel]:
    """The module's channel globals, by name."""
    return {
        op.sym_name.data: Channel(op.sym_name.data, op.type, op.value)
        for op in module.body.block.ops
        if isinstance(op, GlobalOp) and is_channel(op.sym_name.data)
    }


def channels_to_imports(module: ModuleOp) -> None:
    """Every channel store becomes a call of `@mindjit.send_<tag>`, every load a call
    of `@mindjit.receive_<tag>` (declared once each); the channel globals go."""
    channels = channels_of(module)
    if not channels:
        return
    body = module.body.block
    used: set[str] = set()
    for op in list(walk_ops(module)):
        if isinstance(op, (GlobalLoadOp, GlobalStoreOp)):
            name = op.global_.root_reference.data
            if name not in channels:
                continue
            block = op.parent_block()
            assert block is not None
            if isinstance(op, GlobalStoreOp):
                callee = channels[name].send
                call = func.CallOp(SymbolRefAttr(f"{HOST_MODULE}.{callee}"), [op.value], [])
            else:
                callee = channels[name].receive
                call = func.CallOp(
                    SymbolRefAttr(f"{HOST_MODULE}.{callee}"), [], [op.results[0].type]
                )
                op.results[0].replace_all_uses_with(call.results[0])
            call.location = op.location  # type: ignore[assignment]
            block.insert_op_before(call, op)
            block.erase_op(op)
            used.add(callee)
    first = next(iter(body.ops))
    for channel in channels.values():
        if channel.send in used:
            decl = func.FuncOp.external(f"{HOST_MODULE}.{channel.send}", [channel.type], [])
            body.insert_op_before(decl, first)
        if channel.receive in used:
            decl = func.FuncOp.external(f"{HOST_MODULE}.{channel.receive}", [], [channel.type])
            body.insert_op_before(decl, first)
    for op in list(body.ops):
        if isinstance(op, GlobalOp) and op.sym_name.data in channels:
            body.erase_op(op)


# -- the host side -------------------------------------------------------------------------


class ChannelFailed(Exception):
    """What IREE is told when a channel's host function fails (the executable
    raises the real error, kept by `HostErrors`, once IREE returns)."""


class HostErrors:
    """The error a host function of this thread raised during the current call:
    IREE reports a failed import as its own text, so the executable keeps the
    Python error here and raises it instead (a hub's error names the channel)."""

    def __init__(self) -> None:
        self._local = threading.local()

    def keep(self, exc: BaseException) -> None:
        self._local.error = exc

    def take(self) -> BaseException | None:
        exc = getattr(self._local, "error", None)
        self._local.error = None
        return exc


def channel_exports(exe: Any, channel: Channel) -> list[tuple[str, str, Callable[..., Any]]]:
    """(name, calling convention, function) of the channel's two imports. The
    executable (held weakly: IREE's runtime holds the functions) gives `channels`
    (the hub of a pipelined call, or None), `to_numpy`, `buffer_view`, `errors`
    and `channel_values` (the channels as globals outside a pipelined call)."""
    owner = weakref.ref(exe)
    rt = exe._rt  # noqa: SLF001 - the executable's runtime module
    name, t = channel.name, channel.type
    dtype, shape = dtype_of(t), static_shape(t)

    def send(_state: Any, ref: Any) -> None:
        exe = owner()
        if exe is None:
            return
        try:
            value = exe.to_numpy(ref.deref(rt.HalBufferView), t).copy()  # IREE reuses its memory
            hub = exe.channels
            if hub is None:
                exe.channel_values[name] = value
            else:
                hub.put(name, value)
        except BaseException as exc:  # noqa: BLE001 - raised by the executable after IREE
            exe.errors.keep(exc)
            raise ChannelFailed(f"send of channel @{name} failed") from None

    def receive(_state: Any) -> Any:
        exe = owner()
        if exe is None:
            raise ChannelFailed(f"receive of channel @{name} after its executable was freed")
        try:
            hub = exe.channels
            if hub is None:
                value = exe.channel_values.get(name)
                if value is None:
                    value = dense_array(channel.initial, t)
            else:
                value = hub.get(name)
            array = np.asarray(value)
            if array.shape != shape or array.dtype != dtype:
                raise ExecutionError(
                    f"channel @{name} received a {array.dtype}{list(array.shape)} tensor, "
                    f"the stage expects {t}"
                )
            return exe.buffer_view(array).ref
        except BaseException as exc:  # noqa: BLE001 - raised by the executable after IREE
            exe.errors.keep(exc)
            raise ChannelFailed(f"receive of channel @{name} failed") from None

    return [(channel.send, "0r_v", send), (channel.receive, "0v_r", receive)]
