"""Pipeline channels on IREE: each send and receive is a call of a host import.

The lowering gives a pipeline stage's `mindir.send` / `mindir.receive` as a
store to / a load of a channel global `@__mindjit_channel_<k>`
(passes/mindir_to_tensor/state.py); the numpy executor turns those into calls
of its `ChannelHub` while a pipelined call runs. IREE has value semantics for
globals and one function per call, so the stage functions cannot meet in a
global: instead each channel op becomes a call of a function of the Python
module `mindjit` the executable registers, as prints are,

    ml_program.global_store @__mindjit_channel_3 = %x  ->  %t2 = func.call @mindjit.send_3(%x, %t1)
    %y = ml_program.global_load @__mindjit_channel_3   ->  %y, %t3 = func.call @mindjit.receive_3(%t2)

and the channel globals leave the module (they are not Parameters: no argument,
no result). The executable implements the imports with the hub of the call
(`put` / `get`, which may block until the other stage sends).

Why the order token (an i32 each call takes and gives, starting at 0 in each
function): the deadlock freedom of the stages rests on each stage making its
sends and receives in the order mindir-pipeline-split / mindir-pipeline-schedule
gave them, and IREE does not keep calls of imports in block order. Measured
(IREE 3.13, a 1F1B-scheduled stage: receive 0, send 7, receive 1, send 6, ...):
without the token its VM code called receive 0, 1, 2, 3 and then the sends, and
the two stages waited for each other. IREE never drops an import call, so only
the order needed saying; the token is a data dependency it must keep. IREE
waits for a sent tensor's value before the call (the import gets a buffer, i.e.
IREE exports the tensor there). Parameters are SSA values by then (prepare.py),
so a value sent before an update is the value before the update by
construction. tests/backend/test_iree_channels.py checks each of these on
programs where a wrong order gives a different value or a deadlock, and
tests/frontend/test_iree_pipeline_*.py train under both schedules.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, SymbolRefAttr, i32
from xdsl.dialects.ml_program import GlobalOp
from xdsl.ir import Attribute, Block, Operation, SSAValue

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


def _channel_ops(module: ModuleOp, channels: dict[str, Channel]) -> list[Operation]:
    return [
        op
        for op in walk_ops(module)
        if isinstance(op, (GlobalLoadOp, GlobalStoreOp))
        and op.global_.root_reference.data in channels
    ]


def nested_channel(module: ModuleOp) -> Operation | None:
    """A send or receive inside a region op (an `scf.if`, ...), which the order
    token cannot reach; mindir-pipeline-split makes none (its sends and receives
    are ops of the stage graph's body), prepare.py rejects a module with one."""
    for op in _channel_ops(module, channels_of(module)):
        parent = op.parent_op()
        if not isinstance(parent, func.FuncOp):
            return op
    return None


def channels_to_imports(module: ModuleOp) -> None:
    """Every channel store becomes a call of `@mindjit.send_<tag>`, every load a call
    of `@mindjit.receive_<tag>` (declared once each), chained by an order token
    (see the module doc); the channel globals go."""
    channels = channels_of(module)
    if not channels:
        return
    body = module.body.block
    used: set[str] = set()
    token: dict[Block, SSAValue] = {}  # function body -> the last call's token
    for op in _channel_ops(module, channels):
        name = op.global_.root_reference.data  # type: ignore[attr-defined]
        block = op.parent_block()
        assert block is not None
        if block not in token:
            start = arith.ConstantOp(IntegerAttr(0, i32))
            block.insert_op_before(start, block.first_op)  # type: ignore[arg-type]
            token[block] = start.result
        if isinstance(op, GlobalStoreOp):
            callee = channels[name].send
            call = func.CallOp(
                SymbolRefAttr(f"{HOST_MODULE}.{callee}"), [op.value, token[block]], [i32]
            )
            token[block] = call.results[0]
        else:
            callee = channels[name].receive
            call = func.CallOp(
                SymbolRefAttr(f"{HOST_MODULE}.{callee}"), [token[block]], [op.results[0].type, i32]
            )
            op.results[0].replace_all_uses_with(call.results[0])
            token[block] = call.results[1]
        call.location = op.location  # type: ignore[assignment]
        block.insert_op_before(call, op)
        block.erase_op(op)
        used.add(callee)
    first = next(iter(body.ops))
    for channel in channels.values():
        if channel.send in used:
            decl = func.FuncOp.external(f"{HOST_MODULE}.{channel.send}", [channel.type, i32], [i32])
            body.insert_op_before(decl, first)
        if channel.receive in used:
            decl = func.FuncOp.external(
                f"{HOST_MODULE}.{channel.receive}", [i32], [channel.type, i32]
            )
            body.insert_op_before(decl, first)
    for op in list(body.ops):
        if isinstance(op, GlobalOp) and op.sym_name.data in channels:
            body.erase_op(op)


# -- the host side -------------------------------------------------------------------------


class HostCallFailed(Exception):
    """What IREE is told when a host function (a channel's, a collective's) fails
    (the executable raises the real error, kept by `HostErrors`, once IREE returns)."""


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

    def send(_state: Any, ref: Any, token: int) -> int:
        exe = owner()
        if exe is None:
            raise HostCallFailed(f"send of channel @{name} after its executable was freed")
        try:
            value = exe.to_numpy(ref.deref(rt.HalBufferView), t).copy()  # IREE reuses its memory
            hub = exe.channels
            if hub is None:
                exe.channel_values[name] = value
            else:
                hub.put(name, value)
            return token + 1
        except BaseException as exc:  # noqa: BLE001 - raised by the executable after IREE
            exe.errors.keep(exc)
            raise HostCallFailed(f"send of channel @{name} failed") from None

    def receive(_state: Any, token: int) -> tuple[Any, int]:
        exe = owner()
        if exe is None:
            raise HostCallFailed(f"receive of channel @{name} after its executable was freed")
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
            return exe.buffer_view(array).ref, token + 1
        except BaseException as exc:  # noqa: BLE001 - raised by the executable after IREE
            exe.errors.keep(exc)
            raise HostCallFailed(f"receive of channel @{name} failed") from None

    return [(channel.send, "0ri_i", send), (channel.receive, "0i_ri", receive)]
