"""A gradient function called in graph mode: one `mindir.grad` op.

The forward (the function's call, traced like any call) goes into the op's
region, whose arguments are the tensors of the call's arguments; `mindir-grad`
differentiates it after inlining. Parameters the forward reads are Loads in
the region, and the weights are named by their `mindir.parameter` symbols.

A gradient of a Cell with `set_grad()` called on the values that Cell was
just called on (TrainOneStepCell: `loss = net(*inputs)`, then
`grad(net, weights)(*inputs, sens)`) reuses that call: the region yields its
outputs, and mindir-grad differentiates the ops that computed them. The
forward runs once, as in MindSpore, so its side effects (BatchNorm's moving
statistics, the random counter a Dropout advances) happen once per step and
the gradient belongs to the loss that was returned.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from xdsl.ir import Region

from mindjit.dialects import mindir as M
from mindjit.frontend.grad_spec import Gradient, aux_of, check_sens, flat_outputs
from mindjit.frontend.graph.branches import Branch
from mindjit.frontend.graph_value import GraphValue
from mindjit.frontend.structure import flatten, unflatten


def trace_grad(ev: Any, call: Callable[[Any, list], Any], gf: Gradient, args: list) -> Any:
    """Emit `gf(*args)` as a `mindir.grad` in the graph being traced; `call(fn, args)`
    traces a call of `fn` (the evaluator's call_value)."""
    spec = gf.spec
    fn_args, sens = gf.split_args(tuple(args))
    differentiated = gf.differentiated_args(fn_args)  # bad positions fail before tracing
    template, leaves = flatten(fn_args)
    offsets, start = [], 0
    for a in fn_args:
        offsets.append(start)
        start += len(flatten(a)[1])
    inputs = [ev.graph.as_value(x) for x in leaves]
    branch = Branch(ev, [v.type for v in inputs])
    # the same Cell already ran on these values (set_grad): its outputs, defined
    # before the op, are the forward mindir-grad differentiates (no second run)
    reused = ev.compiler.reusable_forward(ev.graph, gf.fn, fn_args)

    def body() -> tuple[Any, list, int]:
        region_args = [GraphValue(a) for a in branch.block.args]
        if reused is not None:
            out = reused
        else:
            out = call(gf.fn, list(unflatten(template, region_args)))
        out_template, diff, aux = flat_outputs(spec, out)
        if not diff:
            raise TypeError("the function to differentiate must return a Tensor")
        values = [ev.graph.as_value(o) for o in [*diff, *aux]]
        ev.graph.insert(M.YieldOp(*values))
        return out_template, values, len(aux)

    out_template, outs, n_aux = branch.run(body)
    wrt: list[int] = []
    arg_templates = []
    for p, arg_template, arg_leaves in differentiated:
        wrt += range(offsets[p], offsets[p] + len(arg_leaves))
        arg_templates.append((arg_template, len(arg_leaves)))
    weights = list(spec.weights or ())
    symbols = [ev.graph.module.parameter_symbol(w) for w in weights]
    sens_values = []
    if sens is not None:
        _, sens_leaves = flatten(sens)
        n_diff = len(outs) - n_aux
        check_sens(sens_leaves, [GraphValue(v) for v in outs[:n_diff]])
        sens_values = [ev.graph.as_value(s) for s in sens_leaves]
    with_values = spec.return_value or spec.has_aux  # aux leaves the region as values
    types = [v.type for v in outs] if with_values else []
    types += [inputs[i].type for i in wrt]
    types += [ev.graph.module.declaration(w).properties["type"] for w in weights]
    op = M.GradOp(
        inputs,
        sens_values,
        wrt,
        symbols,
        n_aux,
        with_values,
        types,
        Region(branch.block),
    )
    ev.graph.insert(op)
    results = [GraphValue(r) for r in op.results]
    value = None
    if with_values:
        value = unflatten(out_template, results[: len(outs)])
        results = results[len(outs) :]
    input_grads = []
    for arg_template, n in arg_templates:
        input_grads.append(unflatten(arg_template, results[:n]))
        results = results[n:]
    aux = aux_of(spec, value)
    return spec.pack(value, aux, input_grads, results)
