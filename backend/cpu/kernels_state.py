"""Plan builders for state: `ml_program` globals and mindjit's print runtime.

Every global lives in one buffer, `exe.globals[name]` (see `CpuExecutable`), and
the Load/Assign meaning of MindSpore is kept: a Load is an alias, only a
TensorMove (lowered to `linalg.copy`) copies.

- `ml_program.global_load @w` gives the buffer itself (a view, no copy) at its
  place in block order, so a loaded value that nothing copied sees every later
  store to @w, as on the device.
- `ml_program.global_store @w = %v` writes `%v` into the buffer in place
  (`buf[...] = v`; numpy copies through a temporary when `%v` overlaps the
  buffer). The stored value's own memory is never kept by the global. A global
  without a value yet gets a fresh buffer on its first store.
- A returned value that may share memory with a global (root `GLOBAL` in the
  compiler, e.g. a Load returned without a TensorMove) is copied by the
  function's result getter, i.e. when the call returns, after all its stores:
  the caller gets the value the global had at the end of the call, in memory of
  its own that later runs never write.
- `ml_program.global_load_const @w` is the global's initial value, a plan-time
  constant.
- `func.call` of a `mindjit.runtime = "print"` declaration resolves its
  `mindjit.print_format` items (strings, operand indices; all operands in order
  without it) and calls `exe.print_hook(items)`, looked up at run time so the
  hook can be changed between runs.

Loads, stores and prints are side effects: never dropped, run in block order,
and they make their function (and its callers) impure. Functions without them
keep the pure fast path.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from xdsl.dialects import ml_program
from xdsl.dialects.builtin import ArrayAttr, IntegerAttr, StringAttr
from xdsl.ir import Operation

from mindjit.backend.cpu.compiler import GLOBAL
from mindjit.backend.cpu.errors import ExecutionError, op_failure
from mindjit.backend.cpu.registry import register, register_runtime
from mindjit.backend.cpu.steps import Slots, call_step, effect_step
from mindjit.backend.cpu.types import dense_array, dtype_of, static_shape
from mindjit.dialects import ml_program_ext
from mindjit.passes.mindir_to_tensor.state import CHANNEL_PREFIX

if TYPE_CHECKING:
    from mindjit.backend.cpu.compiler import FunctionCompiler


def _global_name(op: Operation) -> str:
    return op.properties["global"].root_reference.data  # type: ignore[union-attr]


@register(ml_program_ext.GlobalLoadOp)
def build_global_load(c: FunctionCompiler, op: Operation) -> None:
    name = _global_name(op)
    glob = c.exe.global_op(name, op)
    result = op.results[0]
    if glob.type != result.type:
        raise op_failure(op, f"cannot load global @{name} of type {glob.type} as {result.type}")
    out = c.define(result)
    c.set_roots(result, {GLOBAL})
    c.mark_side_effects()
    values = c.exe.live_globals

    def global_load() -> np.ndarray:
        try:
            return values[name]
        except KeyError:  # located by the step block, at this op
            raise ExecutionError(f"global @{name} is read before it has a value") from None

    if name.startswith(CHANNEL_PREFIX):
        exe = c.exe

        def channel_receive() -> np.ndarray:
            """The hub's value during a pipelined call (backend/cpu/pipeline_run.py);
            otherwise a copy of the channel global, as the device's Receive kernel
            (a later send does not change it)."""
            hub = exe.channels
            return hub.get(name) if hub is not None else np.array(global_load())

        c.emit(call_step(channel_receive, [], out))
        return
    c.emit(call_step(global_load, [], out))


@register(ml_program_ext.GlobalStoreOp)
def build_global_store(c: FunctionCompiler, op: Operation) -> None:
    name = _global_name(op)
    glob = c.exe.global_op(name, op)
    value = op.operands[0]
    if glob.is_mutable is None:
        raise op_failure(op, f"cannot store to the immutable global @{name}")
    if glob.type != value.type:
        raise op_failure(op, f"cannot store {value.type} to global @{name} of type {glob.type}")
    src = c.read(value)
    c.mark_side_effects()
    values = c.exe.live_globals
    dtype, shape = dtype_of(glob.type, op), static_shape(glob.type, op)

    def global_store(v: Any) -> None:
        try:
            values[name][...] = v
        except KeyError:  # no initial value: the first store makes the buffer
            values[name] = np.array(np.broadcast_to(v, shape), dtype=dtype, order="C")

    if name.startswith(CHANNEL_PREFIX):
        exe = c.exe

        def channel_send(v: Any) -> None:
            hub = exe.channels
            if hub is None:
                global_store(v)
            else:
                hub.put(name, v)

        c.emit(effect_step(channel_send, [src]))
        return
    c.emit(effect_step(global_store, [src]))


@register(ml_program.GlobalLoadConstantOp)
def build_global_load_const(c: FunctionCompiler, op: Operation) -> None:
    name = op.properties["global_attr"].root_reference.data  # type: ignore[union-attr]
    glob = c.exe.global_op(name, op)
    if glob.value is None:
        raise op_failure(op, f"global @{name} has no initial value")
    c.constant(op.results[0], dense_array(glob.value, glob.type, op))


def format_items(op: Operation) -> list[str | int]:
    attr = op.attributes.get("mindjit.print_format")
    if attr is None:
        return list(range(len(op.operands)))
    if not isinstance(attr, ArrayAttr):
        raise op_failure(op, "mindjit.print_format must be an array of strings and indices")
    items: list[str | int] = []
    for item in attr.data:
        if isinstance(item, StringAttr):
            items.append(item.data)
        elif isinstance(item, IntegerAttr) and 0 <= item.value.data < len(op.operands):
            items.append(item.value.data)
        else:
            raise op_failure(op, f"bad mindjit.print_format item {item}")
    return items


def frozen(value: Any) -> np.ndarray:
    """A read-only view for the hook (scalars become 0-d arrays)."""
    array = np.asarray(value).view()
    array.flags.writeable = False
    return array


@register_runtime("print")
def build_print(c: FunctionCompiler, op: Operation) -> None:
    """A print call: hand the resolved items to `exe.print_hook` at run time."""
    if op.results:
        raise op_failure(op, "a print call has no results")
    slots = [c.read(v) for v in op.operands]
    spec: list[tuple[bool, Any]] = []
    for item in format_items(op):
        if isinstance(item, str):
            spec.append((False, item))
        else:
            spec.append((True, slots[item]))
    c.mark_side_effects()
    exe = c.exe
    parts = tuple(spec)

    def print_call(s: Slots) -> None:
        exe.print_hook([frozen(s[v]) if is_value else v for is_value, v in parts])

    c.emit(print_call)
