"""Plan builders for state: `ml_program` globals and mindjit's print runtime.

- `ml_program.global_load @w` reads `exe.globals["w"]` at its place in block
  order; `ml_program.global_store @w = %v` replaces the dict entry. Arrays held
  by globals are never written in place (kernels never write their inputs), so a
  value loaded before a store keeps its old contents. A stored value that is not
  a buffer of its own (an argument, a constant, another global, or of unknown
  origin) is copied first, so a global never shares memory with the caller's
  arrays, a constant or another global; a fresh kernel result is stored as is.
  A returned value that may share memory with a global is copied (roots
  `GLOBAL` and `escape` in the compiler).
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
from xdsl.dialects.builtin import ArrayAttr, IntegerAttr, StringAttr
from xdsl.ir import Operation

from mindjit.backend.cpu.compiler import GLOBAL, UNSAFE_ROOTS
from mindjit.backend.cpu.errors import op_failure
from mindjit.backend.cpu.registry import register, register_runtime
from mindjit.backend.cpu.steps import Slots
from mindjit.backend.cpu.types import dense_array

if TYPE_CHECKING:
    from mindjit.backend.cpu.compiler import FunctionCompiler


def _global_name(op: Operation) -> str:
    return op.properties["global"].root_reference.data  # type: ignore[union-attr]


@register("ml_program.global_load")
def build_global_load(c: FunctionCompiler, op: Operation) -> None:
    name = _global_name(op)
    glob = c.exe.global_op(name, op)
    result = op.results[0]
    if glob.type != result.type:
        raise op_failure(op, f"cannot load global @{name} of type {glob.type} as {result.type}")
    out = c.define(result)
    c.set_roots(result, {GLOBAL})
    c.mark_side_effects()
    values = c.exe.globals

    def global_load(s: Slots) -> None:
        try:
            s[out] = values[name]
        except KeyError:
            raise op_failure(op, f"global @{name} is read before it has a value") from None

    c.emit(global_load)


@register("ml_program.global_store")
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
    c.escape(value)
    values = c.exe.globals
    if c.roots(value) & UNSAFE_ROOTS:  # not a buffer of its own: keep a private copy

        def global_store_copy(s: Slots) -> None:
            values[name] = np.array(s[src])

        c.emit(global_store_copy)
        return

    def global_store(s: Slots) -> None:
        values[name] = s[src]

    c.emit(global_store)


@register("ml_program.global_load_const")
def build_global_load_const(c: FunctionCompiler, op: Operation) -> None:
    name = op.properties["global_attr"].root_reference.data  # type: ignore[union-attr]
    glob = c.exe.global_op(name, op)
    if glob.value is None:
        raise op_failure(op, f"global @{name} has no initial value")
    c.constant(op.results[0], dense_array(glob.value, glob.type, op))


def _format_items(op: Operation) -> list[str | int]:
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


def _frozen(value: Any) -> np.ndarray:
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
    for item in _format_items(op):
        if isinstance(item, str):
            spec.append((False, item))
        else:
            spec.append((True, slots[item]))
    c.mark_side_effects()
    exe = c.exe
    parts = tuple(spec)

    def print_call(s: Slots) -> None:
        exe.print_hook([_frozen(s[v]) if is_value else v for is_value, v in parts])

    c.emit(print_call)
