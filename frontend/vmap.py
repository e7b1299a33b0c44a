"""`ms.vmap(fn, in_axes=0, out_axes=0)`: `fn` written for one example, run over a batch.

`in_axes` says where each argument's batch axis is: an int for every tensor of
every argument, or a tuple with one entry per positional argument (an int, None
for an argument shared by every example, or a nested tuple for a tuple
argument). Negative axes count from the end. `out_axes` (an int, or one per
output) is where each output gets the batch axis; None for an output that is
the same for every example, returned once (an error if it is not). Numbers and other constants
are shared. Calls nest: `ms.vmap(ms.vmap(f))` maps over two axes.

In graph mode the call becomes a `mindir.vmap` op whose region is one example
(a call of `fn`'s graph, inlined by mindir-inline), which `mindir-vmap`
rewrites into batched ops. In PyNative mode `fn` runs once per example and the
results are stacked: the same numbers, computed one example at a time, by ops
(unstack, stack) that a PyNative gradient differentiates through.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Region

from mindjit.dialects.mindir.control import YieldOp
from mindjit.dialects.mindir.vmap import NOT_BATCHED, VmapOp, batched_type, example_type
from mindjit.frontend.graph.branches import Branch
from mindjit.frontend.graph_value import GraphValue
from mindjit.frontend.structure import flatten, unflatten
from mindjit.frontend.tensor import Tensor

AxisSpec = Any  # int | None | tuple[AxisSpec, ...]


def vmap(fn: Callable[..., Any], in_axes: AxisSpec = 0, out_axes: AxisSpec = 0) -> VmapFunction:
    """MindSpore's `ms.vmap` (see the module doc)."""
    return VmapFunction(fn, in_axes, out_axes)


def _check_spec(spec: AxisSpec, what: str) -> None:
    if spec is None:
        return
    if isinstance(spec, bool) or not isinstance(spec, int | tuple | list):
        raise TypeError(f"vmap: {what} must be an int, None or a tuple of them, got {spec!r}")
    if isinstance(spec, tuple | list):
        for s in spec:
            _check_spec(s, what)


class VmapFunction:
    """What `ms.vmap` returns: call it like `fn`, with batched arguments."""

    def __init__(self, fn: Callable[..., Any], in_axes: AxisSpec, out_axes: AxisSpec):
        if not callable(fn):
            raise TypeError(f"vmap: fn must be callable, got {type(fn).__name__}")
        _check_spec(in_axes, "in_axes")
        _check_spec(out_axes, "out_axes")
        self.fn = fn
        self.in_axes = in_axes
        self.out_axes = out_axes
        self.__name__ = f"vmap_{getattr(fn, '__name__', 'fn')}"

    # --- shared by both modes ---------------------------------------------------------------
    def batched_leaves(self, args: tuple) -> tuple[Any, list[tuple[Any, int | None]], int]:
        """(template, [(tensor, normalized axis or None)], batch size) of `args`."""

        specs = self.in_axes
        if isinstance(specs, tuple | list):
            if len(specs) != len(args):
                raise ValueError(
                    f"vmap: in_axes has {len(specs)} entries for {len(args)} arguments"
                )
        else:
            specs = (specs,) * len(args)
        template, leaves = flatten(tuple(args))
        axes: list[int | None] = []
        for arg, spec in zip(args, specs):
            _, arg_leaves = flatten(arg)
            axes += _leaf_axes(arg, spec, len(arg_leaves), "in_axes")
        out: list[tuple[Any, int | None]] = []
        sizes = set()
        for leaf, axis in zip(leaves, axes):
            if axis is None:
                out.append((leaf, None))
                continue
            rank = len(leaf.shape)
            if not -rank <= axis < rank:
                raise ValueError(f"vmap: in_axes {axis} is out of range for a rank-{rank} argument")
            axis %= rank
            sizes.add(leaf.shape[axis])
            out.append((leaf, axis))
        if not sizes:
            raise ValueError("vmap: in_axes must batch at least one tensor argument")
        if len(sizes) > 1:
            raise ValueError(f"vmap: the batched arguments have different sizes {sorted(sizes)}")
        return template, out, sizes.pop()

    def output_axes(self, out: Any, n_leaves: int) -> list[int | None]:
        """The out_axes entry of each tensor leaf of `fn`'s result `out` (None: the
        output is the same for every example and returned once)."""
        return _leaf_axes(out, self.out_axes, n_leaves, "out_axes")

    # --- PyNative ------------------------------------------------------------------------------
    def __call__(self, *args: Any) -> Any:

        from mindjit.frontend.ops.array import stack, unstack  # ops import this module

        template, leaves, size = self.batched_leaves(args)
        # slices and stacks are ops (not numpy), so that a gradient taped around the
        # call flows through them: ms.grad of a vmap in PyNative mode
        pieces = [None if axis is None else unstack(x, axis) for x, axis in leaves]
        results: list[list[Tensor]] = []
        out_template: Any = None
        for b in range(size):
            sliced = [x if p is None else p[b] for (x, _), p in zip(leaves, pieces)]
            out = self.fn(*unflatten(template, sliced))
            out_template, outs = flatten(out)
            if not outs:
                raise TypeError("vmap: fn must return tensors")
            results.append(list(outs))
        axes = self.output_axes(out, len(results[0]))
        stacked = []
        for k, axis in enumerate(axes):
            first = np.asarray(results[0][k].asnumpy())
            if axis is None:
                if any(not np.array_equal(r[k].asnumpy(), first) for r in results):
                    raise ValueError(
                        "vmap: an output with out_axes None must be the same for every "
                        "example, but it differs"
                    )
                stacked.append(results[0][k])
                continue
            rank = first.ndim
            if not -(rank + 1) <= axis <= rank:
                raise ValueError(f"vmap: out_axes {axis} is out of range for a rank-{rank} output")
            stacked.append(stack([r[k] for r in results], axis=axis))
        return unflatten(out_template, stacked)


def _leaf_axes(value: Any, spec: AxisSpec, n_leaves: int, what: str) -> list[int | None]:
    """The axis of each tensor leaf of `value` under its `what` entry `spec`."""
    if spec is None or isinstance(spec, int):
        return [spec] * n_leaves
    if not isinstance(value, tuple | list) or len(value) != len(spec):
        raise ValueError(f"vmap: {what} entry {spec!r} does not match the structure of {value!r}")

    out: list[int | None] = []
    for v, s in zip(value, spec):
        out += _leaf_axes(v, s, len(flatten(v)[1]), what)
    return out


# --- graph mode ---------------------------------------------------------------------------------


def trace_example(
    ev: Any, call: Callable[[Any, list], Any], fn: Any, template: Any, branch: Any
) -> tuple[Any, list]:
    """Trace `fn` on one example into `branch` (a Branch whose block
    arguments are the example's tensors), ending in `mindir.yield` of its tensors:
    (fn's output template, its output GraphValues). `template` rebuilds fn's
    positional arguments from the block arguments."""

    def body() -> tuple[Any, list]:
        example = [GraphValue(a) for a in branch.block.args]
        out = call(fn, list(unflatten(template, example)))
        out_template, outs = flatten(out)
        if not outs or not all(isinstance(o, GraphValue) for o in outs):
            raise TypeError("vmap: fn must return tensors")
        ev.graph.insert(YieldOp(*[o.ssa for o in outs]))
        return out_template, outs

    return branch.run(body)


def trace_vmap(ev: Any, call: Callable[[Any, list], Any], vf: VmapFunction, args: list) -> Any:
    """Emit a `mindir.vmap` for `vf(*args)` in the graph being traced; `call(fn, args)`
    traces a call of `fn` (the evaluator's call_value)."""

    template, leaves, size = vf.batched_leaves(tuple(args))
    inputs = [ev.graph.as_value(x) for x, _ in leaves]
    in_axes = [NOT_BATCHED if axis is None else axis for _, axis in leaves]
    arg_types = [example_type(v.type, a) for v, a in zip(inputs, in_axes)]
    branch = Branch(ev, arg_types)
    out_template, outs = trace_example(ev, call, vf.fn, template, branch)
    axes = vf.output_axes(unflatten(out_template, outs), len(outs))
    result_types: list[TensorType] = []
    for k, (o, axis) in enumerate(zip(outs, axes)):
        if axis is None:
            axes[k] = NOT_BATCHED
            result_types.append(o.ssa.type)
            continue
        rank = len(o.shape)
        if not -(rank + 1) <= axis <= rank:
            raise ValueError(f"vmap: out_axes {axis} is out of range for a rank-{rank} output")
        axes[k] = axis % (rank + 1)
        result_types.append(batched_type(o.ssa.type, axes[k], size))
    op = VmapOp(inputs, in_axes, axes, result_types, Region(branch.block))
    ev.graph.insert(op)
    return unflatten(out_template, [GraphValue(r) for r in op.results])


__all__ = ["VmapFunction", "vmap"]
