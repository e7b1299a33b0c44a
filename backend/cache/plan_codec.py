"""A function's executor plan as data, so that a warm cache start neither
rebuilds the module's ops nor plans them (each costs tens of microseconds per op).

Most plans are a list of `call_step`s, `slots[out] = kernel(*slots[ins])`, some
followed by releasing slots. Two ops of the same *structure* (name, attributes,
types, regions, and the plan-time constants they read) get kernels that do the
same thing; only their slots differ. So a captured plan holds:

- one *kernel template* per distinct structure: a small function with the op,
  its non-constant inputs as arguments and the ops computing its constant
  inputs cloned in (they are what the builders fold);
- per step: its template and which of the template's kernels, the input slots,
  the output slot, the slots released after it, and the op's name and location
  (for run-time errors);
- the slot template's constants as raw arrays, the result slots and which of
  them are copied, and whether the function has side effects.

`rebuild` plans each kernel template once, with the same builders as a cold
compile, and binds the kernels to the recorded slots. A function with any other
kind of step (control flow, calls of other functions, prints, overflow checks,
tracing) is not captured (`capture` gives None): the cache then decodes the
module and plans it as usual. Everything read back is checked; an inconsistency
is a `ModuleFormatError`.
"""

from __future__ import annotations

import io
from array import array
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType, ModuleOp
from xdsl.ir import Block, Operation, OpResult, Region, SSAValue

from mindjit.backend.cache.module_codec import (
    ModuleFormatError,
    append_chunk,
    checked_int,
    checked_str,
    read_chunk,
)
from mindjit.backend.cpu.compiler import FunctionCompiler
from mindjit.backend.cpu.plan import Plan, result_getter
from mindjit.backend.cpu.steps import (
    Step,
    StepBlock,
    StepOrigin,
    call_release_step,
    call_step,
    effect_step,
)
from mindjit.ir.locations import loc_of_op
from mindjit.support.errors import SourceLoc

if TYPE_CHECKING:
    from mindjit.backend.cpu.executable import CpuExecutable

#: A step that only releases slots (a kept node without steps whose slots die there).
RELEASE_ONLY = -1
#: The output slot of a step called for its effect only (`effect_step`).
NO_RESULT = -1


class NotCapturable(Exception):
    """The plan has a step or an op structure that `rebuild` could not reproduce."""


class CapturedPlans:
    """Plans as JSON (`data`), raw bytes (`blob`) and their kernel templates
    (`kernels`); `names` are the functions captured."""

    def __init__(self, data: dict[str, Any], blob: bytes, kernels: ModuleOp, names: list[str]):
        self.data, self.blob, self.kernels, self.names = data, blob, kernels, names


# -- capture ------------------------------------------------------------------------------


def capture(exe: CpuExecutable) -> CapturedPlans | None:
    """Plan every function of `exe` again, recording as data the plans a rebuild
    can reproduce; None when there is none."""
    if exe.trace_enabled:
        return None
    recorder = _Capture(exe)
    functions = []
    for name in exe.entry_names():
        recorded = recorder.function(exe.function(name))
        if recorded is not None:
            functions.append(recorded)
    if not functions:
        return None
    data = {
        "kernel_counts": recorder.kernel_counts,
        "origins": [[n, *(_loc_json(loc))] for n, loc in recorder.origins],
        "functions": functions,
    }
    names = [f["name"] for f in functions]
    return CapturedPlans(data, recorder.blob.getvalue(), recorder.kernels, names)


class _Capture:
    def __init__(self, exe: CpuExecutable):
        self.exe = exe
        self.templates: dict[Any, int] = {}
        self.kernel_counts: list[int] = []
        self.kernels = ModuleOp([])
        self.origins: dict[tuple[str, SourceLoc | None], int] = {}
        self.blob = io.BytesIO()

    def function(self, fn: func.FuncOp) -> dict[str, Any] | None:
        """The data of `fn`'s plan, or None if it cannot be captured (nothing of
        it is kept: its templates are added only once all its steps are known)."""
        compiler = FunctionCompiler(self.exe, fn)
        compiler.keep_top = True
        plan = Plan(fn.sym_name.data)
        compiler.compile(plan)
        assert compiler.top is not None
        self.compiler = compiler
        self.order = {op: i for i, op in enumerate(fn.body.block.ops)}
        self.constant_keys: dict[Operation, tuple[Any, frozenset[Operation]]] = {}
        n_templates, n_origins = len(self.kernel_counts), len(self.origins)
        try:
            steps = self.steps(*compiler.top)
            constants = [_constant_json(v, self.blob) for v in plan.template]
        except NotCapturable:  # forget this function's templates
            self.templates = {k: t for k, t in self.templates.items() if t < n_templates}
            del self.kernel_counts[n_templates:]
            self.origins = dict(list(self.origins.items())[:n_origins])
            for op in list(self.kernels.body.block.ops)[n_templates:]:
                op.detach()
                op.erase()
            return None
        return {
            "name": plan.name,
            "arguments": len(fn.body.block.args),
            "steps": append_chunk(self.blob, steps.tobytes()),
            "constants": constants,
            "results": compiler.results[0],
            "copies": compiler.results[1],
            "side_effects": plan.side_effects,
        }

    def steps(self, kept: list[Any], releases: dict[int, list[int]]) -> array:
        steps = array("q")
        for pos, node in enumerate(kept):
            kill = releases.get(pos, [])
            if not node.steps:
                if kill:
                    where = self.origin_of(node.op)
                    steps.extend([RELEASE_ONLY, 0, 0, NO_RESULT, len(kill), *kill, where])
                continue
            specs = [getattr(step, "call_spec", None) for step in node.steps]
            if any(spec is None for spec in specs):
                raise NotCapturable(node.op.name)
            template = self.template_of(node.op, len(specs), node.reads)
            where = self.origin_of(node.op)
            for j, (_, ins, out) in enumerate(specs):
                last = kill if j == len(specs) - 1 else []
                out = NO_RESULT if out is None else out
                steps.extend([template, j, len(ins), *ins, out, len(last), *last, where])
        return steps

    def origin_of(self, op: Operation) -> int:
        key = (op.name, loc_of_op(op))
        return self.origins.setdefault(key, len(self.origins))

    # -- kernel templates -------------------------------------------------------------

    def template_of(self, op: Operation, count: int, reads: set[SSAValue]) -> int:
        """The template of `op`'s kernels. An operand its kernels did not read was
        looked through (a convolution reads the input before its zero padding,
        kernels_conv.zero_padding): its producer goes into the template too, so the
        rebuilt kernel looks through it the same way and reads the same values."""
        arguments: dict[SSAValue, int] = {}
        constants: set[Operation] = set()

        def outside(v: SSAValue) -> Any:
            if self.compiler.is_known(v):
                if not isinstance(v, OpResult) or v.op not in self.order:
                    raise NotCapturable("a constant from outside the function block")
                key, ops = self.constant_key(v.op)
                constants.update(ops)
                return ("k", key, v.index)
            if v not in reads:
                if not isinstance(v, OpResult) or v.op not in self.order or v.op.regions:
                    raise NotCapturable("a kernel looks through a value it cannot rebuild")
                constants.add(v.op)
                return ("t", structure(v.op, outside), v.index)
            return ("a", arguments.setdefault(v, len(arguments)), v.type)

        try:
            key = structure(op, outside)
            found = self.templates.get(key)
        except TypeError as exc:  # an attribute without a hash
            raise NotCapturable(str(exc)) from exc
        if found is not None:
            if self.kernel_counts[found] != count:
                raise NotCapturable("one structure planned two ways")
            return found
        index = self.templates[key] = len(self.kernel_counts)
        self.kernel_counts.append(count)
        self.kernels.body.block.add_op(
            _template_function(
                f"t{index}", op, list(arguments), sorted(constants, key=self.order.get)
            )
        )
        return index

    def constant_key(self, op: Operation) -> tuple[Any, frozenset[Operation]]:
        """The structure of a constant-producing op and of the ops it folds from."""
        found = self.constant_keys.get(op)
        if found is not None:
            return found
        ops = {op}

        def outside(v: SSAValue) -> Any:
            if not self.compiler.is_known(v) or not isinstance(v, OpResult):
                raise NotCapturable("a constant computed from a run-time value")
            if v.op not in self.order:
                raise NotCapturable("a constant from outside the function block")
            key, more = self.constant_key(v.op)
            ops.update(more)
            return ("k", key, v.index)

        found = self.constant_keys[op] = (structure(op, outside), frozenset(ops))
        return found


def structure(op: Operation, outside: Callable[[SSAValue], Any]) -> tuple[Any, ...]:
    """A hashable description of `op` with its regions: values defined inside are
    numbered, values from outside are described by `outside`. Locations and value
    names are left out: they do not change what a kernel computes."""
    inner: dict[SSAValue, int] = {}
    for o in op.walk():
        for region in o.regions:
            for block in region.blocks:
                for a in block.args:
                    inner[a] = len(inner)
        for r in o.results:
            inner[r] = len(inner)

    def ref(v: SSAValue) -> Any:
        n = inner.get(v)
        return n if n is not None else outside(v)

    def one(o: Operation) -> tuple[Any, ...]:
        if o.successors:
            raise NotCapturable("an op with successors")
        parts: list[Any] = [
            o.name,
            tuple([ref(v) for v in o.operands]),
            tuple([r.type for r in o.results]),
            tuple(sorted(o.properties.items())),
            tuple(sorted(o.attributes.items())),
        ]
        for region in o.regions:
            parts.append(
                tuple(
                    (tuple([a.type for a in block.args]), tuple([one(x) for x in block.ops]))
                    for block in region.blocks
                )
            )
        return tuple(parts)

    return one(op)


def _template_function(
    name: str, op: Operation, arguments: list[SSAValue], constants: list[Operation]
) -> func.FuncOp:
    """`func.func @name(non-constant inputs) { constant producers; op; return }`."""
    block = Block(arg_types=[v.type for v in arguments])
    mapper: dict[SSAValue, SSAValue] = dict(zip(arguments, block.args))
    for c in constants:
        block.add_op(c.clone(value_mapper=mapper))
    clone = op.clone(value_mapper=mapper)
    block.add_op(clone)
    block.add_op(func.ReturnOp(*clone.results))
    signature = FunctionType.from_lists([v.type for v in arguments], clone.result_types)
    return func.FuncOp(name, signature, Region(block))


def declaring(module: ModuleOp, names: list[str]) -> ModuleOp:
    """A copy of `module`'s top level with the functions `names` as declarations:
    what an executor adopting their rebuilt plans reads (globals, signatures,
    runtime declarations, the functions not captured)."""
    captured = set(names)
    ops = []
    for op in module.body.block.ops:
        declared = isinstance(op, func.FuncOp) and op.sym_name.data in captured
        ops.append(op.clone_without_regions() if declared else op.clone())
    return ModuleOp(ops)


# -- rebuild -----------------------------------------------------------------------------


def rebuild(
    data: dict[str, Any],
    blob: bytes,
    kernels: ModuleOp,
    exe: CpuExecutable,
    load_module: Callable[[], ModuleOp],
) -> list[str]:
    """Give `exe` (made from the module with the captured functions declared,
    see `declaring`) the plans `capture` recorded, their kernels planned from the
    templates in `exe`; the names of the functions planned."""
    try:
        functions = data["functions"]
        plans = {checked_str(f["name"]): Plan(f["name"]) for f in functions}
        if len(plans) != len(functions):
            raise ModuleFormatError("a function is captured twice")
        exe.adopt_plans(plans, load_module)  # first: kernels of calls bind these plans
        kernel_fns = _kernels(data, kernels, exe)
        origins = [
            StepOrigin(
                checked_str(o[0]),
                None
                if o[1] is None
                else SourceLoc(checked_str(o[1]), checked_int(o[2]), checked_int(o[3])),
            )
            for o in data["origins"]
        ]
        for f in functions:
            _finish(plans[f["name"]], f, blob, kernel_fns, origins)
        return list(plans)
    except ModuleFormatError:
        raise
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
        raise ModuleFormatError(f"bad captured plan: {type(exc).__name__}: {exc}") from exc


def _kernels(
    data: dict[str, Any], kernels: ModuleOp, exe: CpuExecutable
) -> list[list[tuple[Any, int, bool]]]:
    """Each template's kernels (see `_kernels_of`), in template order."""
    templates = {op.sym_name.data: op for op in kernels.ops if isinstance(op, func.FuncOp)}
    counts = [checked_int(n) for n in data["kernel_counts"]]
    if len(templates) != len(counts):
        raise ModuleFormatError("the kernel templates do not match the plans")
    return [_kernels_of(templates[f"t{i}"], n, exe) for i, n in enumerate(counts)]


def _finish(
    plan: Plan,
    data: dict[str, Any],
    blob: bytes,
    kernel_fns: list[list[tuple[Any, int, bool]]],
    origins: list[StepOrigin],
) -> None:
    constants = [_constant_value(c, blob) for c in data["constants"]]
    size = checked_int(data["arguments"]) + len(constants)
    ints = read_chunk(blob, data["steps"])
    if len(ints) % 8:
        raise ModuleFormatError("the step stream is not whole")
    packed = array("q")
    packed.frombytes(ints)
    stream = packed.tolist()
    steps: list[Step] = []
    origin: dict[Step, Any] = {}
    i, end = 0, len(stream)
    while i < end:
        t, j, n = stream[i : i + 3]
        ins = stream[i + 3 : i + 3 + n]
        out, k = stream[i + 3 + n : i + 5 + n]
        kill = stream[i + 5 + n : i + 5 + n + k]
        where = stream[i + 5 + n + k]
        i += 6 + n + k
        if (
            n < 0
            or k < 0
            or i > end
            or not all(0 <= s < size for s in (*ins, *kill))
            or not (0 <= out < size or out == NO_RESULT)
            or not 0 <= where < len(origins)
        ):
            raise ModuleFormatError("a step refers to a slot or origin that does not exist")
        if t == RELEASE_ONLY:
            step = _release(kill)
        else:
            if not 0 <= t < len(kernel_fns) or not 0 <= j < len(kernel_fns[t]):
                raise ModuleFormatError("a step refers to a kernel that does not exist")
            fn, arity, effect = kernel_fns[t][j]
            if arity != n or effect != (out == NO_RESULT):
                raise ModuleFormatError("a step's inputs or output do not match its kernel")
            result = None if effect else out
            if kill:
                step = call_release_step(fn, ins, result, kill)
            elif effect:
                step = effect_step(fn, ins)
            else:
                step = call_step(fn, ins, out)
        steps.append(step)
        origin[step] = origins[where]
    slots, copies = [checked_int(s) for s in data["results"]], [bool(c) for c in data["copies"]]
    if len(slots) != len(copies) or not all(0 <= s < size for s in slots):
        raise ModuleFormatError("bad result slots")
    body = StepBlock(steps, origin)
    plan.finish(constants, body, result_getter(slots, copies), bool(data["side_effects"]))


def _kernels_of(
    template: func.FuncOp, count: int, exe: CpuExecutable
) -> list[tuple[Any, int, bool]]:
    """Plan a kernel template; its op's kernels, their arities and whether each is
    called for its effect only."""
    compiler = FunctionCompiler(exe, template)
    compiler.keep_top = True
    compiler.compile(Plan(template.sym_name.data))
    assert compiler.top is not None
    ops = list(template.body.block.ops)
    node = next((n for n in compiler.top[0] if len(ops) > 1 and n.op is ops[-2]), None)
    specs = [getattr(s, "call_spec", None) for s in node.steps] if node is not None else []
    if len(specs) != count or any(s is None for s in specs):
        raise ModuleFormatError(f"kernel template @{template.sym_name.data} plans differently")
    return [(fn, len(ins), out is None) for fn, ins, out in specs]


def _release(kill: list[int]) -> Step:
    ks = tuple(kill)

    def release(s: list[Any]) -> None:
        for k in ks:
            s[k] = None

    return release


# -- values ------------------------------------------------------------------------------


def _constant_json(value: Any, blob: io.BytesIO) -> Any:
    """A slot-template constant: null, a Python number, or a numpy value's bytes
    (a uniform array as one element)."""
    if value is None or type(value) in (bool, int, float):
        return {"py": value.hex() if type(value) is float else value}
    if not isinstance(value, np.ndarray | np.generic) or value.dtype.hasobject:
        raise NotCapturable(f"a {type(value).__name__} constant")
    array_ = np.asarray(value)
    raw = np.ascontiguousarray(array_).tobytes()
    first = raw[: array_.dtype.itemsize]
    splat = array_.size > 1 and raw == first * array_.size
    return {
        "dtype": array_.dtype.str,
        "shape": list(array_.shape),
        "scalar": isinstance(value, np.generic),
        "writeable": bool(array_.flags.writeable) and isinstance(value, np.ndarray),
        "splat": splat,
        "bytes": append_chunk(blob, first if splat else raw),
    }


def _constant_value(c: Any, blob: bytes) -> Any:
    if not isinstance(c, dict):
        raise ModuleFormatError("bad plan constant")
    if "py" in c:
        v = c["py"]
        return float.fromhex(v) if isinstance(v, str) else v
    dtype = np.dtype(checked_str(c["dtype"]))
    if dtype.hasobject:
        raise ModuleFormatError("bad plan constant dtype")
    shape = tuple(checked_int(d) for d in c["shape"])
    raw = read_chunk(blob, c["bytes"])
    element = np.frombuffer(raw, dtype=dtype)
    if c["splat"]:
        if element.size != 1:
            raise ModuleFormatError("bad splat constant")
        value = np.full(shape, element[0], dtype=dtype)
    else:
        if element.size != int(np.prod(shape)):
            raise ModuleFormatError("a plan constant's bytes do not match its shape")
        value = element.reshape(shape).copy()
    if c["scalar"]:
        return value[()]
    value.flags.writeable = bool(c["writeable"])
    return value


def _loc_json(loc: SourceLoc | None) -> list[Any]:
    return [None, 0, 0] if loc is None else [loc.file, loc.line, loc.col]
