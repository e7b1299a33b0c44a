"""`CpuExecutable`: a module of upstream tensor-level functions, run with numpy.

Each function is planned once, on first use, and every later call reuses the
plan; `run` only checks the inputs and walks the precomputed steps.

The executable owns the module's state. Every `ml_program.global` lives in one
buffer, `globals[name]` (a copy of the initial value, made on first use, so a
frontend that binds every global with `set_global` never copies the initial
values of a large model):
`ml_program.global_load` gives that buffer itself (a view: no copy), and
`ml_program.global_store` writes into it in place, so a loaded value that no
`linalg.copy` (the lowering of `mindir.tensor_move`) copied sees later stores,
like MindSpore's Load without TensorMove. State persists across `run` calls.
A returned value that may share a global's memory is copied when the call
returns (after all its stores), so callers never hold a global's buffer.

An entry function's argument marked `{mindjit.global = @w}` (a Parameter the
entry graph takes as an input, see `mindjit.dialects.mindir.parameter_args`) is not
given by the caller: `run` passes global @w's buffer there, as a
`global_load` would. `signature` lists only the inputs a caller gives.

`set_global(name, array)` makes the caller's array *the* buffer when it can (the
global's dtype and shape, writeable, C-contiguous, not another global's memory):
runs then write into it in place, so a frontend that passes each Parameter's own
array sees assignments without any write-back. `get_global` returns the buffer.

Also on the executable:
- `print_hook`: called by print runtime calls (by default
  `mindjit.support.tensor_text.default_print_hook`);
- `stats`: counts of executed copies (`copies`, `copied_bytes`, from
  `linalg.copy`);
- `trace_enabled` / `trace`: when enabled (plans are rebuilt), every executed
  op appends its name to `trace` (`func.call @callee` for calls,
  `linalg.generic[arith.subf]` with the body's ops for a generic);
- `memory_meter`: when set (plans are rebuilt), each function's peak live bytes
  of activations and of all its values (backend/cpu/memory_meter.py);
- `float_status`: the emulated Ascend overflow register of the float-status
  runtime (see `kernels_float_status`); only modules that call it pay for the
  overflow checks.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from dataclasses import dataclass
from operator import attrgetter
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import DenseResourceAttr, ModuleOp, StringAttr, TensorType
from xdsl.dialects.ml_program import GlobalOp
from xdsl.ir import Attribute, Operation

from mindjit.backend.cpu import blas_threads
from mindjit.backend.cpu.allocator import keep_freed_memory
from mindjit.backend.cpu.codegen_llvm import Codegen, make_codegen
from mindjit.backend.cpu.compiler import FunctionCompiler
from mindjit.backend.cpu.errors import ExecutionError, op_failure
from mindjit.backend.cpu.memory_meter import MemoryMeter
from mindjit.backend.cpu.pipeline_run import ChannelHub, PipelinePlan, pipeline_plan, run_pipeline
from mindjit.backend.cpu.plan import Plan
from mindjit.backend.cpu.types import (
    dense_array,
    describe_value,
    dtype_of,
    is_tensor,
    static_shape,
)
from mindjit.dialects.mindir.parameter_args import GLOBAL_ARG_ATTR, bound_symbols
from mindjit.ir.locations import loc_of_op
from mindjit.ir.resources import has_blob
from mindjit.ir.walk import walk_ops
from mindjit.support import config
from mindjit.support.errors import SourceLoc
from mindjit.support.tensor_text import default_print_hook

Check = Callable[[Any], Any]
PrintHook = Callable[[list[str | np.ndarray]], None]

#: Prefix of the `mindjit.runtime` kinds of the float-status runtime.
FLOAT_STATUS_RUNTIME = "float_status_"


@dataclass
class ExecStats:
    """What the executable did, summed over runs (reset with `reset()`)."""

    copies: int = 0  # executed linalg.copy (TensorMove) steps
    copied_bytes: int = 0  # bytes those copies wrote

    def reset(self) -> None:
        self.copies = 0
        self.copied_bytes = 0


class FloatStatus:
    """The emulated overflow register: set once an f16/f32 result is inf or nan."""

    __slots__ = ("overflow",)

    def __init__(self) -> None:
        self.overflow = False


def _buffer_root(a: np.ndarray) -> Any:
    """The object owning `a`'s memory (follows `.base`)."""
    root: Any = a
    while isinstance(root, np.ndarray) and root.base is not None:
        root = root.base
    return root


class _Entry:
    """A plan plus the input checks and result conversion of one entry point."""

    __slots__ = (
        "plan",
        "bound",
        "exe",
        "checks",
        "name",
        "scalar_results",
        "arity",
        "loc",
        "types",
        "shapes",
        "dtypes",
    )

    def __init__(self, plan: Plan, fn: func.FuncOp, exe: CpuExecutable):
        self.plan = plan
        self.name = fn.sym_name.data
        self.loc = loc_of_op(fn)
        #: (argument index, global) for the arguments filled from globals, in order
        self.bound = tuple(_bound_globals(fn, exe).items())
        self.exe = exe
        inputs = caller_inputs(fn)
        self.arity = len(inputs)
        self.checks = tuple(input_check(self.name, i, t, self.loc) for i, t in enumerate(inputs))
        # the fast path: exactly these types, shapes and dtypes (checked in C by map)
        self.types = tuple(np.ndarray if is_tensor(t) else dtype_of(t).type for t in inputs)
        self.shapes = tuple(static_shape(t) for t in inputs)
        self.dtypes = tuple(dtype_of(t) for t in inputs)
        self.scalar_results = tuple(not is_tensor(t) for t in fn.function_type.outputs.data)

    def __call__(self, args: tuple[Any, ...]) -> tuple[np.ndarray, ...]:
        if not (
            tuple(map(type, args)) == self.types
            and tuple(map(_shape, args)) == self.shapes
            and tuple(map(_dtype, args)) == self.dtypes
        ):
            args = self._checked(args)
        if self.bound:
            args = self._with_globals(args)
        with np.errstate(all="ignore"):  # MLIR float/int semantics: no warnings
            if blas_threads.wanted():
                with blas_threads.single_threaded():
                    results = self.plan.invoke(args)
            else:
                results = self.plan.invoke(args)
        if any(self.scalar_results):
            return tuple(np.asarray(r) if s else r for r, s in zip(results, self.scalar_results))
        return results

    def _with_globals(self, args: tuple[Any, ...]) -> tuple[Any, ...]:
        """The caller's inputs with each bound argument's global buffer in its place."""
        live = self.exe.live_globals
        try:
            values = [live[name] for _, name in self.bound]
        except KeyError:
            for _, name in self.bound:
                self.exe.get_global(name)  # raises, naming the global without a value
            raise
        if self.bound[0][0] == len(args):  # the usual layout: bound arguments last
            return (*args, *values)
        full = list(args)
        for (index, _), value in zip(self.bound, values):
            full.insert(index, value)
        return tuple(full)

    def _checked(self, args: tuple[Any, ...]) -> tuple[Any, ...]:
        """The slow path: convert what is acceptable, else say what is wrong."""
        if len(args) != self.arity:
            raise ExecutionError(
                f"entry @{self.name} expects {self.arity} inputs, got {len(args)}", self.loc
            )
        return tuple([check(a) for check, a in zip(self.checks, args)])


def _rounded(converted: np.generic, v: float) -> bool:
    """A Python float rounded to a float type without overflowing."""
    return (
        isinstance(v, float)
        and converted.dtype.kind == "f"
        and bool(np.isfinite(converted)) == math.isfinite(v)
    )


def check_global_value(op: GlobalOp, value: Any) -> None:
    """A value for global `op`: mutable, and an array (or numpy scalar) of exactly
    its shape and dtype; else an `ExecutionError` at the global."""
    name, t = op.sym_name.data, op.type
    if op.is_mutable is None:
        raise ExecutionError(f"global @{name} is immutable", loc_of_op(op))
    shape, dtype = static_shape(t), dtype_of(t)
    if (
        not isinstance(value, np.ndarray | np.generic)
        or value.shape != shape
        or value.dtype != dtype
    ):
        raise ExecutionError(
            f"global @{name} is {t} (shape {shape}, {dtype}), got {describe_value(value)}",
            loc_of_op(op),
        )


def caller_inputs(fn: func.FuncOp) -> list[Attribute]:
    """The input types of `fn` a caller of the entry gives (not the bound globals)."""
    inputs = fn.function_type.inputs.data
    bound = bound_symbols(fn, GLOBAL_ARG_ATTR)
    return [t for i, t in enumerate(inputs) if i not in bound]


def _bound_globals(fn: func.FuncOp, exe: CpuExecutable) -> dict[int, str]:
    """The arguments of `fn` bound to globals, checked against the globals' types."""
    bound = bound_symbols(fn, GLOBAL_ARG_ATTR)
    inputs = fn.function_type.inputs.data
    for i, name in bound.items():
        glob = exe.global_op(name, fn)
        if glob.type != inputs[i]:
            raise op_failure(
                fn,
                f"argument {i} of @{fn.sym_name.data} is {inputs[i]} but is bound to "
                f"global @{name} of type {glob.type}",
            )
    return bound


_shape = attrgetter("shape")
_dtype = attrgetter("dtype")


def input_check(name: str, index: int, t: Attribute, loc: SourceLoc | None) -> Check:
    """The per-input check of the slow path (the fast path compares all at once)."""
    dtype = dtype_of(t)
    where = f"input {index} of @{name}: expected {t}"
    if not is_tensor(t):

        def check_scalar(v: Any) -> Any:
            """A numpy scalar or 0-d array of the type, or a Python number it holds exactly."""
            if isinstance(v, (bool, int, float)) and not isinstance(v, np.generic):
                try:
                    with np.errstate(all="ignore"):
                        converted = dtype.type(v)
                except (OverflowError, ValueError):
                    converted = None
                if converted is not None and (converted.item() == v or _rounded(converted, v)):
                    return converted
            elif np.shape(v) == () and getattr(v, "dtype", None) == dtype:
                return dtype.type(np.asarray(v)[()])
            raise ExecutionError(f"{where}, got {describe_value(v)}", loc)

        return check_scalar
    shape = static_shape(t)

    def check(v: Any) -> Any:
        if type(v) is not np.ndarray or v.shape != shape or v.dtype != dtype:
            if isinstance(v, np.ndarray) and v.shape == shape and v.dtype == dtype:
                return v  # an ndarray subclass
            raise ExecutionError(f"{where}, got {describe_value(v)}", loc)
        return v

    return check


class CpuExecutable:
    """Runs the functions of an upstream-dialect module (func/arith/math/tensor/
    linalg/scf) with numpy; see `mindjit.backend.cpu` for what is supported."""

    backend = "numpy"

    def __init__(self, module: ModuleOp, codegen: bool | None = None):
        self.module = module
        #: Compiles fused elementwise bodies (codegen_llvm.py); None: numpy calls.
        #: `codegen` None: support/config.py's cpu_codegen() decides.
        use_codegen = config.cpu_codegen() if codegen is None else codegen
        if config.cpu_keep_memory():
            keep_freed_memory()
        self.codegen: Codegen | None = make_codegen() if use_codegen else None
        self._funcs: dict[str, func.FuncOp] = {}
        self._declarations: dict[str, func.FuncOp] = {}
        self._global_ops: dict[str, GlobalOp] = {}
        self._globals = _LazyGlobals()
        self._owner_of: dict[int, str] = {}  # id(buffer root) -> the global using it
        self._supported_types: set[Attribute] = set()
        self._supported_ids: dict[int, Attribute] = {}
        for op in walk_ops(module):
            kind = type(op)  # exact classes: every op of the module is asked
            if kind is func.FuncOp:
                if op.body.blocks:
                    self._funcs[op.sym_name.data] = op
                else:
                    self._declarations[op.sym_name.data] = op
            elif kind is GlobalOp:
                self._add_global(op)
        self._plans: dict[str, Plan] = {}  # built
        self._building: dict[str, Plan] = {}  # being built by the thread holding _planning
        self._planning = threading.RLock()
        self._entries: dict[str, _Entry] = {}
        self._pipelines: dict[str, PipelinePlan | None] = {}
        #: The channels of the pipelined call running now (None: channels are globals).
        self.channels: ChannelHub | None = None
        #: The communication object of the data-parallel step running now (None:
        #: one process, collectives are the identity; a `Communicator` of
        #: backend/cpu/collectives.py).
        self.comm: Any = None
        self._load_module: Callable[[], ModuleOp] | None = None
        #: Called by every print with its items (str, or np.ndarray for values).
        self.print_hook: PrintHook = default_print_hook
        #: Executed copies (TensorMove), summed over runs.
        self.stats = ExecStats()
        #: Executed op names, appended to while `trace_enabled`.
        self.trace: list[str] = []
        self._trace_enabled = False
        self._memory_meter: MemoryMeter | None = None
        #: The float-status runtime's overflow register.
        self.float_status = FloatStatus()
        #: Plan-time flag: f16/f32 results are checked for inf/nan only when the
        #: module calls the float-status runtime.
        self.checks_float_status = any(
            isinstance(kind := d.attributes.get("mindjit.runtime"), StringAttr)
            and kind.data.startswith(FLOAT_STATUS_RUNTIME)
            for d in self._declarations.values()
        )

    # -- tracing ------------------------------------------------------------------

    @property
    def trace_enabled(self) -> bool:
        """Whether plans append each executed op's name to `trace`. Changing it
        drops the plans built so far (they are rebuilt on next use)."""
        return self._trace_enabled

    @trace_enabled.setter
    def trace_enabled(self, value: bool) -> None:
        value = bool(value)
        if value != self._trace_enabled:
            self._trace_enabled = value
            self._plans.clear()
            self._entries.clear()

    @property
    def memory_meter(self) -> MemoryMeter | None:
        """The meter the plans count live bytes into (backend/cpu/memory_meter.py), or
        None. Changing it drops the plans built so far (they are rebuilt on next use)."""
        return self._memory_meter

    @memory_meter.setter
    def memory_meter(self, meter: MemoryMeter | None) -> None:
        if meter is not self._memory_meter:
            self._memory_meter = meter
            self._plans.clear()
            self._entries.clear()

    # -- state ------------------------------------------------------------------

    def _add_global(self, op: GlobalOp) -> None:
        props = op.properties
        name, t = props["sym_name"].data, props["type"]  # type: ignore[attr-defined]
        # a model's globals share a few types, mostly the same objects: by identity first
        if id(t) not in self._supported_ids:
            if t not in self._supported_types:
                if not isinstance(t, TensorType):
                    raise op_failure(
                        op, f"global @{name} of type {t} is not supported by the CPU executor"
                    )
                static_shape(t, op)
                dtype_of(t, op)
                self._supported_types.add(t)
            self._supported_ids[id(t)] = t  # kept alive: the id stays this type's
        self._global_ops[name] = op
        value = props.get("value")
        if isinstance(value, DenseResourceAttr):
            if not has_blob(value.resource_handle.data):
                return  # a value held elsewhere and gone: set_global must give it one
        elif value is not None and getattr(value, "type", None) != t:
            # reject unsupported values now (a literal of the global's own type is
            # one the verifier checked and `dtype_of` accepted: nothing to find)
            dense_array(value, t, op)
        if value is not None:  # the buffer: a writable copy of the value at first use
            self._globals.pending[name] = lambda: self._adopt_initial(name, value, op)

    def _adopt_initial(self, name: str, value: Attribute, op: GlobalOp) -> np.ndarray:
        buf = np.array(dense_array(value, op.type, op), order="C")
        self._owner_of[id(_buffer_root(buf))] = name
        return buf

    @property
    def globals(self) -> dict[str, np.ndarray]:
        """Every (initialized) global's buffer, by name: the live dict the plans
        read. Stores write into these arrays in place."""
        self._globals.materialize()
        return self._globals

    @property
    def live_globals(self) -> dict[str, np.ndarray]:
        """The dict plans read at run time: a global's initial value is copied
        in when it is first read (`globals` copies them all)."""
        return self._globals

    def global_op(self, name: str, user: Operation | None = None) -> GlobalOp:
        """The `ml_program.global` named `name` (plan time)."""
        op = self._global_ops.get(name)
        if op is None:
            available = ", ".join(f"@{n}" for n in self._global_ops) or "none"
            message = f"no global @{name}; available: {available}"
            if user is not None:
                raise op_failure(user, message)
            raise ExecutionError(message)
        return op

    def get_global(self, name: str) -> np.ndarray:
        """Global @name's buffer: the array runs load from and store into in
        place (the caller's own array after `set_global` adopted it). Copy it to
        keep a snapshot."""
        op = self.global_op(name)
        try:
            return self._globals[name]
        except KeyError:
            raise ExecutionError(f"global @{name} has no value yet", loc_of_op(op)) from None

    def set_global(self, name: str, value: Any) -> None:
        """Make `value` global @name's value. It must be an array (or numpy scalar)
        of exactly the global's shape and dtype. A writeable, C-contiguous array
        that is no other global's memory becomes the buffer itself (no copy): runs
        write into it in place. Anything else is copied into a new buffer."""
        if self._globals.get(name) is value:  # already its buffer, checked when installed
            return  # (a program sets every Parameter per call: 96 checks, 1% of a forward)
        op = self.global_op(name)
        check_global_value(op, value)
        dtype = dtype_of(op.type)
        if (
            isinstance(value, np.ndarray)
            and value.flags.writeable
            and value.flags.c_contiguous
            and not self._owned_by_other(name, _buffer_root(value))
        ):
            self._install(name, value)
        else:
            self._install(name, np.array(value, dtype=dtype, order="C"))

    def _install(self, name: str, buf: np.ndarray) -> None:
        self._globals.pending.pop(name, None)  # replaced before its initial value was used
        old = self._globals.get(name)
        if old is not None:
            old_root = id(_buffer_root(old))
            if self._owner_of.get(old_root) == name:
                del self._owner_of[old_root]
        self._globals[name] = buf
        self._owner_of[id(_buffer_root(buf))] = name

    def _owned_by_other(self, name: str, root: Any) -> bool:
        other = self._owner_of.get(id(root))
        if other is None or other == name:
            return False
        buf = self._globals.get(other)
        return buf is not None and _buffer_root(buf) is root

    def declaration(self, name: str) -> func.FuncOp | None:
        """The body-less `func.func` named `name`, if there is one."""
        return self._declarations.get(name)

    # -- functions ----------------------------------------------------------------

    def entry_names(self) -> list[str]:
        return list(self._funcs)

    def signature(self, name: str) -> tuple[list[Attribute], list[Attribute]]:
        """The input types a caller gives @name (arguments bound to globals are
        filled by `run`) and its result types."""
        if name not in self._funcs and (plan := self.pipeline(name)) is not None:
            outputs: list[Attribute] = [None] * plan.n_results  # type: ignore[list-item]
            for stage, indices in plan.stages:
                types = self._func(stage).function_type.outputs.data
                for i, t in zip(indices, types):
                    outputs[i] = t
            return caller_inputs(self._func(plan.stages[0][0])), outputs
        fn = self._func(name)
        return caller_inputs(fn), list(fn.function_type.outputs.data)

    def run(self, name: str, *args: Any) -> tuple[np.ndarray, ...]:
        """Call function @name; inputs must match its declared types exactly. A graph
        `mindir-pipeline-split` cut into stages runs them all (backend/cpu/pipeline_run.py)."""
        entry = self._entries.get(name)
        if entry is None:
            if name not in self._funcs and (plan := self.pipeline(name)) is not None:
                return run_pipeline(self, plan, args)
            fn = self._func(name)
            entry = self._entries[name] = _Entry(self.plan_for(name), fn, self)
        return entry(args)

    def pipeline(self, name: str) -> PipelinePlan | None:
        """The stages of graph @name when the module holds it split, else None."""
        if name not in self._pipelines:
            self._pipelines[name] = pipeline_plan(self.module, name)
        return self._pipelines[name]

    def plan_for(self, name: str, caller: Operation | None = None) -> Plan:
        """The plan of @name, compiled on first request (shared by all callers); for a
        graph split into pipeline stages, its stages' (the last one's is returned).

        Plans are built under a lock, and a plan is published to other threads only
        once built: threads running one executable (pipeline stages, a user's
        threads) never run a half-built plan. A graph that calls itself sees its own
        plan while it is being built, from the same thread."""
        plan = self._plans.get(name)
        if plan is not None:
            return plan
        with self._planning:
            plan = self._plans.get(name)
            if plan is None:
                plan = self._building.get(name)
            return plan if plan is not None else self._plan(name, caller)

    def _plan(self, name: str, caller: Operation | None) -> Plan:
        if caller is None and name not in self._funcs:
            stages = self.pipeline(name)
            if stages is not None:
                for stage, _ in stages.stages:
                    plan = self.plan_for(stage)
                return plan
        fn = self._funcs.get(name)
        if fn is None:
            if caller is not None:
                raise op_failure(caller, f"no function @{name} to call")
            raise self._missing(name)
        fn = self._with_body(fn)
        plan = self._building[name] = Plan(name)
        try:
            FunctionCompiler(self, fn).compile(plan)
            self._plans[name] = plan
        finally:
            del self._building[name]
        return plan

    def function(self, name: str) -> func.FuncOp:
        """The `func.func` @name that has a body (or stands for one, see `adopt_plans`)."""
        return self._func(name)

    def adopt_plans(self, plans: dict[str, Plan], load_module: Callable[[], ModuleOp]) -> None:
        """Use ready plans (the compile cache rebuilds them) for functions the module
        only declares. `load_module` gives the whole module; it is read only when one
        of those functions must be planned again (e.g. when tracing is switched on)."""
        for name, plan in plans.items():
            fn = self._declarations.pop(name, None)
            if fn is None:
                raise ExecutionError(f"no declaration of @{name} to stand for its plan")
            self._funcs[name] = fn
            self._plans[name] = plan
        self._load_module = load_module

    def _with_body(self, fn: func.FuncOp) -> func.FuncOp:
        """`fn` itself, or, for a function `adopt_plans` held as a declaration, its
        body from the whole module (which then replaces the declarations)."""
        if fn.body.blocks or self._load_module is None:
            return fn
        module, self._load_module = self._load_module(), None
        self.module = module
        for op in walk_ops(module):
            if isinstance(op, func.FuncOp) and op.body.blocks:
                held = self._funcs.get(op.sym_name.data)
                if held is not None and not held.body.blocks:
                    self._funcs[op.sym_name.data] = op
        return self._funcs[fn.sym_name.data]

    def _func(self, name: str) -> func.FuncOp:
        fn = self._funcs.get(name)
        if fn is None:
            raise self._missing(name)
        return fn

    def _missing(self, name: str) -> ExecutionError:
        available = ", ".join(f"@{n}" for n in self._funcs) or "none"
        return ExecutionError(f"no function @{name}; available: {available}")


class _LazyGlobals(dict):
    """Global buffers by name; `pending` makes a global's first buffer on first read."""

    def __init__(self) -> None:
        super().__init__()
        self.pending: dict[str, Callable[[], np.ndarray]] = {}

    def __missing__(self, name: str) -> np.ndarray:
        make = self.pending.pop(name, None)
        if make is None:
            raise KeyError(name)
        buf = self[name] = make()
        return buf

    def materialize(self) -> None:
        for name in list(self.pending):
            self[name]  # noqa: B018 - __missing__ installs it
