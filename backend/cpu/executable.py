"""`CpuExecutable`: a module of upstream tensor-level functions, run with numpy.

Each function is planned once, on first use, and every later call reuses the
plan; `run` only checks the inputs and walks the precomputed steps.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from operator import attrgetter
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, Operation

from mindjit.backend.cpu.compiler import FunctionCompiler
from mindjit.backend.cpu.errors import ExecutionError, op_failure
from mindjit.backend.cpu.plan import Plan
from mindjit.backend.cpu.types import describe_value, dtype_of, is_tensor, static_shape
from mindjit.dialects.diagnostics import SourceLoc, loc_of_op

Check = Callable[[Any], Any]


class _Entry:
    """A plan plus the input checks and result conversion of one entry point."""

    __slots__ = (
        "plan",
        "checks",
        "name",
        "scalar_results",
        "arity",
        "loc",
        "types",
        "shapes",
        "dtypes",
    )

    def __init__(self, plan: Plan, fn: func.FuncOp):
        self.plan = plan
        self.name = fn.sym_name.data
        self.loc = loc_of_op(fn)
        inputs = fn.function_type.inputs.data
        self.arity = len(inputs)
        self.checks = tuple(_input_check(self.name, i, t, self.loc) for i, t in enumerate(inputs))
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
        with np.errstate(all="ignore"):  # MLIR float/int semantics: no warnings
            results = self.plan.invoke(args)
        if any(self.scalar_results):
            return tuple(np.asarray(r) if s else r for r, s in zip(results, self.scalar_results))
        return results

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


_shape = attrgetter("shape")
_dtype = attrgetter("dtype")


def _input_check(name: str, index: int, t: Attribute, loc: SourceLoc | None) -> Check:
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

    def __init__(self, module: ModuleOp):
        self.module = module
        self._funcs: dict[str, func.FuncOp] = {}
        for op in module.walk():
            if isinstance(op, func.FuncOp) and op.body.blocks:
                self._funcs[op.sym_name.data] = op
        self._plans: dict[str, Plan] = {}
        self._entries: dict[str, _Entry] = {}

    def entry_names(self) -> list[str]:
        return list(self._funcs)

    def signature(self, name: str) -> tuple[list[Attribute], list[Attribute]]:
        fn = self._func(name)
        return list(fn.function_type.inputs.data), list(fn.function_type.outputs.data)

    def run(self, name: str, *args: Any) -> tuple[np.ndarray, ...]:
        """Call function @name; inputs must match its declared types exactly."""
        entry = self._entries.get(name)
        if entry is None:
            fn = self._func(name)
            entry = self._entries[name] = _Entry(self.plan_for(name), fn)
        return entry(args)

    def plan_for(self, name: str, caller: Operation | None = None) -> Plan:
        """The plan of @name, compiled on first request (shared by all callers)."""
        plan = self._plans.get(name)
        if plan is None:
            fn = self._funcs.get(name)
            if fn is None:
                if caller is not None:
                    raise op_failure(caller, f"no function @{name} to call")
                raise self._missing(name)
            plan = self._plans[name] = Plan(name)
            try:
                FunctionCompiler(self, fn).compile(plan)
            except BaseException:
                del self._plans[name]
                raise
        return plan

    def _func(self, name: str) -> func.FuncOp:
        fn = self._funcs.get(name)
        if fn is None:
            raise self._missing(name)
        return fn

    def _missing(self, name: str) -> ExecutionError:
        available = ", ".join(f"@{n}" for n in self._funcs) or "none"
        return ExecutionError(f"no function @{name}; available: {available}")
