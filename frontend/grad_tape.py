"""Gradients in PyNative mode: a tape of the ops the forward ran, and per-op bprops.

While a gradient function's forward runs, every op whose inputs depend on a
differentiated input or weight is recorded with the arrays it read (a
Parameter's array is copied: a later `ops.assign` writes into it, and the
backward must see the value of the time, like a TensorMove). The backward
walks the tape in reverse; each op's adjoint is the op's one-op graph wrapped in
a `mindir.grad` and expanded by `mindir-grad` — the same rules as graph mode —
compiled once per (op, input types, differentiated inputs) and cached, as
MindSpore caches its PyNative bprop graphs.

Cells and `@jit` functions called by the forward run op by op while the tape
records (their ops must be on it). Higher-order gradients need graph mode.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xdsl.builder import Builder
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Block, Region, SSAValue
from xdsl.rewriter import InsertPoint

from mindjit.dialects import mindir as M
from mindjit.driver.eager import compile_op
from mindjit.frontend.emitter import Emitter
from mindjit.frontend.grad_spec import aux_of, check_sens, flat_outputs
from mindjit.frontend.structure import flatten, unflatten
from mindjit.frontend.tensor import Parameter, Tensor

_state = threading.local()


@dataclass
class _Record:
    key: Hashable
    build: Any
    inputs: list[Any]
    arrays: list[np.ndarray]
    outputs: list[Any]


@dataclass
class Tape:
    varying: set[int] = field(default_factory=set)  # ids of tensors the sources reach
    records: list[_Record] = field(default_factory=list)
    # a differentiated input or weight given a new value in place (x[i] = v): its
    # value at the start, whose gradient the caller gets
    renamed: dict[int, Any] = field(default_factory=dict)
    sources: set[int] = field(default_factory=set)

    def rebind(self, target: Any, old: Any, new: Any) -> None:
        """`target` (a Tensor object) now holds `new`'s value, `old` its former one
        (`x[i] = v` in PyNative mode): the records so far read `old` where they
        read `target`, and later ops reading `target` differentiate into `new`."""

        def swap(x: Any) -> Any:
            return old if x is target else target if x is new else x

        for rec in self.records:
            rec.inputs = [swap(x) for x in rec.inputs]
            rec.outputs = [swap(x) for x in rec.outputs]
        if id(target) in self.varying:
            self.varying.add(id(old))
        self.varying.discard(id(target))
        if id(new) in self.varying:
            self.varying.discard(id(new))
            self.varying.add(id(target))
        if id(target) in self.sources and id(target) not in self.renamed:
            self.renamed[id(target)] = old

    def record(self, key: Hashable, build: Any, inputs: list, arrays: list, outputs: list) -> None:

        if not any(id(x) in self.varying for x in inputs):
            return
        arrays = [a.copy() if isinstance(x, Parameter) else a for x, a in zip(inputs, arrays)]
        self.varying.update(id(o) for o in outputs if not o.dtype.is_bool)
        self.records.append(_Record(key, build, list(inputs), arrays, list(outputs)))


def active_tape() -> Tape | None:
    return getattr(_state, "tape", None)


def recording() -> bool:
    """True while a PyNative gradient's forward runs (Cells and jit run op by op)."""
    return active_tape() is not None


_BPROP_CACHE: dict[Hashable, Any] = {}


def _bprop(rec: _Record, wrt: tuple[int, ...]) -> Any:
    """The compiled adjoint of one recorded op: (inputs..., output adjoints...) ->
    adjoints of the inputs `wrt`."""
    cache_key = (rec.key, wrt)
    exe = _BPROP_CACHE.get(cache_key)
    if exe is not None:
        return exe

    in_types = [TensorType(x.dtype.mlir, list(x.shape)) for x in rec.inputs]
    out_types = [TensorType(o.dtype.mlir, list(o.shape)) for o in rec.outputs]
    outer = Block(arg_types=[*in_types, *out_types])
    region = Block(arg_types=in_types)
    emitter = Emitter(Builder(InsertPoint.at_end(region)))
    built = rec.build(emitter, list(region.args))
    results = [built] if isinstance(built, SSAValue) else list(built)
    emitter.insert(M.YieldOp(*results))
    n = len(in_types)
    grad = M.GradOp(
        outer.args[:n],
        outer.args[n:],
        wrt,
        [],
        0,
        False,
        [in_types[i] for i in wrt],
        Region(region),
    )
    outer.add_op(grad)
    outer.add_op(func.ReturnOp(*grad.results))
    fn = func.FuncOp("bprop", ([*in_types, *out_types], [in_types[i] for i in wrt]), Region(outer))
    module = ModuleOp([fn])
    exe = _BPROP_CACHE[cache_key] = compile_op(module, differentiate=True)
    return exe


def backward(tape: Tape, seeds: dict[int, np.ndarray]) -> dict[int, np.ndarray]:
    """Adjoints (by tensor id) of every tensor on the tape, from the output `seeds`."""
    adj = dict(seeds)
    for rec in reversed(tape.records):
        douts = [adj.get(id(o)) for o in rec.outputs]
        if all(d is None for d in douts):
            continue
        wrt = tuple(
            i for i, x in enumerate(rec.inputs) if id(x) in tape.varying and not x.dtype.is_bool
        )
        if not wrt:
            continue
        dout_arrays = [
            d if d is not None else np.zeros(o.shape, o.dtype.numpy)
            for d, o in zip(douts, rec.outputs)
        ]
        grads = _bprop(rec, wrt).run("bprop", *rec.arrays, *dout_arrays)
        for i, g in zip(wrt, grads):
            key = id(rec.inputs[i])
            old = adj.get(key)
            # np.asarray: two 0-d arrays add up to a numpy scalar, which no bprop takes
            adj[key] = np.asarray(g if old is None else old + g)
    return adj


@dataclass
class _Forward:
    """A set_grad Cell's last PyNative forward: its thread, arguments, output and tape."""

    thread: int
    args: tuple
    out: Any
    tape: Tape


#: Each Cell's last recorded forward (it lives as long as the Cell, and no Cell
#: attribute changes: the compile cache's keys read a Cell's attributes).
_FORWARDS: weakref.WeakKeyDictionary[Any, _Forward] = weakref.WeakKeyDictionary()
_FORWARDS_LOCK = threading.Lock()


def run_forward(cell: Any, args: tuple, kwargs: dict, construct: Any = None) -> Any:
    """Run a Cell with `set_grad()` in PyNative mode on a tape of its inputs and
    Parameters, kept for a gradient of the same Cell on the same inputs in the same
    thread (MindSpore's `check_run`: TrainOneStepCell's `grad(net, weights)(*inputs,
    sens)` after `net(*inputs)` differentiates that run, so the forward and its side
    effects, BatchNorm statistics and random draws, happen once). A new forward
    replaces it; a gradient takes it. `construct`: what runs it (the Cell's construct
    by default; a to_float Cell's casts its inputs, on the tape)."""
    _, leaves = flatten((args, kwargs))
    tape = Tape()
    tape.varying.update(id(x) for x in leaves if isinstance(x, Tensor))
    tape.varying.update(id(p) for p in cell.get_parameters())
    tape.sources = set(tape.varying)
    with _FORWARDS_LOCK:
        _FORWARDS.pop(cell, None)
    _state.tape = tape
    try:
        out = (construct or cell.construct)(*args, **kwargs)
    finally:
        _state.tape = None
    if not kwargs:
        with _FORWARDS_LOCK:
            _FORWARDS[cell] = _Forward(threading.get_ident(), tuple(args), out, tape)
    return out


def _take_forward(fn: Any, fn_args: tuple, sources: list[Any]) -> _Forward | None:
    """The forward `run_forward` kept for `fn(*fn_args)` (the same argument objects,
    this thread), if its tape has every source the gradient asks for."""
    try:
        with _FORWARDS_LOCK:
            rec = _FORWARDS.get(fn)
            if rec is None or rec.thread != threading.get_ident():
                return None
            del _FORWARDS[fn]
    except TypeError:  # not a Cell: no weak reference to it, nothing recorded
        return None
    if len(rec.args) != len(fn_args) or any(a is not b for a, b in zip(rec.args, fn_args)):
        return None
    if not all(id(x) in rec.tape.sources for x in sources):
        return None
    return rec


def pynative_grad(gf: Any, args: tuple) -> Any:
    """Run `gf(*args)` eagerly: the forward on a tape, then the backward."""
    if recording():
        raise NotImplementedError(
            "a gradient of a gradient in PyNative mode is not supported: compile the outer "
            "function with @ms.jit"
        )
    spec = gf.spec
    fn_args, sens = gf.split_args(tuple(args))
    per_position = [(t, leaves) for _, t, leaves in gf.differentiated_args(fn_args)]
    weights = list(spec.weights or ())
    sources = [x for _, leaves in per_position for x in leaves] + weights
    reused = _take_forward(gf.fn, fn_args, sources)
    if reused is not None:
        tape, out = reused.tape, reused.out
    else:
        tape = Tape()
        tape.varying.update(id(x) for x in sources)
        tape.sources = set(tape.varying)
        _state.tape = tape
        try:
            out = gf.fn(*fn_args)
        finally:
            _state.tape = None
    _, diff, _ = flat_outputs(spec, out)
    if not diff or not all(isinstance(o, Tensor) for o in diff):
        raise TypeError("the function to differentiate must return a Tensor")
    if sens is not None:
        _, sens_leaves = flatten(sens)
        check_sens(sens_leaves, diff)
        seeds_arrays = [
            np.asarray(s.asnumpy(), dtype=o.dtype.numpy) for s, o in zip(sens_leaves, diff)
        ]
    else:
        seeds_arrays = [np.ones(o.shape, o.dtype.numpy) for o in diff]
    seeds: dict[int, np.ndarray] = {}
    for o, s in zip(diff, seeds_arrays):
        seeds[id(o)] = np.asarray(seeds[id(o)] + s) if id(o) in seeds else s
    adj = backward(tape, seeds)

    def grad_of(x: Any) -> Tensor:
        g = adj.get(id(tape.renamed.get(id(x), x)))
        if g is None:
            return Tensor._wrap(np.zeros(x.shape, x.dtype.numpy))
        return Tensor._wrap(np.asarray(g, dtype=x.dtype.numpy).reshape(x.shape))

    input_grads = [unflatten(t, [grad_of(x) for x in leaves]) for t, leaves in per_position]
    weight_grads = [grad_of(w) for w in weights]
    return spec.pack(out, aux_of(spec, out), input_grads, weight_grads)
