"""MindSpore's functional transforms over mindjit's gradients: `ops.vjp`,
`ops.jvp`, `ops.linearize`, `ops.jacrev` and `ops.jacfwd`.

- vjp(fn, *inputs, weights=None, has_aux=False) -> (fn(*inputs), vjp_fn[, aux]):
  vjp_fn(*v) is v^T J for every input (a tuple, as GradOperation(get_all=True)
  packs it), and for `weights` too (then (input grads, weight grads)).
- jvp(fn, inputs, v, has_aux=False) -> (fn(*inputs), J v[, aux]): forward mode
  as MindSpore computes it, the gradient with respect to the cotangent u of
  <vjp(u), v> (a gradient of a gradient: compiled as one graph, also in PyNative).
- linearize(fn, inputs) -> (fn(*inputs), jvp_fn): jvp_fn(v) is J v at `inputs`.
- jacrev / jacfwd(fn, grad_position=0, has_aux=False) -> jac_fn: jac_fn(*inputs)
  is the Jacobian, shape output.shape + input.shape, per output (a tuple for a
  tuple of outputs) and per position (a tuple for a tuple of positions). Both are
  computed row by row in reverse mode (one vjp per output element, with a one-hot
  cotangent): the same values forward mode gives, at the cost of an output-sized
  loop (unrolled in a graph).

The functions that take gradients are marked `__ms_graph_source__`: inside a graph
being traced the compiler follows their source as it follows a user's function
(a library function is otherwise called as Python, and a gradient needs the
compiler)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from mindjit.frontend import ops
from mindjit.frontend.dispatch import current_graph
from mindjit.frontend.grad import GradOperation
from mindjit.frontend.graph_value import GraphValue
from mindjit.frontend.jit import jit
from mindjit.frontend.tensor import Tensor

_grad_single = GradOperation(sens_param=True)
_grad_all = GradOperation(get_all=True, sens_param=True)


def _traced(fn: Callable[..., Any]) -> Callable[..., Any]:
    fn.__ms_graph_source__ = True  # type: ignore[attr-defined]
    return fn


def _check_has_aux(has_aux: Any) -> None:
    if not isinstance(has_aux, bool):
        raise TypeError(f"The 'has_aux' must be bool type, but got {type(has_aux)}")


def _check_aux_outputs(outputs: Any) -> None:
    if not isinstance(outputs, tuple) or len(outputs) < 2:
        raise ValueError("When 'has_aux' is True, origin 'fn' requires more than one outputs.")


def _first_output(fn: Callable[..., Any]) -> Callable[..., Any]:
    """fn's first output (fn returns (output, aux...) with has_aux)."""

    @_traced
    def first(*args):
        outputs = fn(*args)
        _check_aux_outputs(outputs)
        return outputs[0]

    return first


def _aux(outputs: tuple) -> Any:
    return outputs[1] if len(outputs) == 2 else outputs[1:]


def _ones_like(output: Any) -> Any:
    if isinstance(output, tuple):
        return tuple(ops.ones_like(o) for o in output)
    return ops.ones_like(output)


def _check_tensors(values: tuple) -> None:
    for item in values:
        if not isinstance(item, Tensor | GraphValue | tuple | list):
            raise TypeError("The inputs type must be Tensor.")


def _sens(v: tuple) -> Any:
    _check_tensors(v)
    return v[0] if len(v) == 1 else v


def vjp(fn: Callable[..., Any], *inputs: Any, weights: Any = None, has_aux: bool = False) -> Any:
    _check_tensors(inputs)
    _check_has_aux(has_aux)
    target = _first_output(fn) if has_aux else fn
    grad_op = GradOperation(get_all=True, get_by_list=weights is not None, sens_param=True)
    result = fn(*inputs)

    @_traced
    def vjp_fn(*v):
        if weights is None:
            return grad_op(target)(*inputs, _sens(v))
        return grad_op(target, weights)(*inputs, _sens(v))

    if has_aux:
        _check_aux_outputs(result)
        return result[0], vjp_fn, _aux(result)
    return result, vjp_fn


def _jvp_graph(fn: Callable[..., Any], has_aux: bool) -> Callable[..., Any]:
    """(vectors, *primals) -> (output, J v[, aux]), traced as one graph."""
    target = _first_output(fn) if has_aux else fn

    @_traced
    def first_single(u, primals):
        return _grad_single(target)(*primals, u)

    @_traced
    def first_all(u, primals):
        return _grad_all(target)(*primals, u)

    @_traced
    def jvp_graph(vectors, *primals):
        outputs = target(*primals)
        u = _ones_like(outputs)
        if len(primals) == 1:
            gradients = _grad_single(first_single)(u, primals, vectors)
        else:
            gradients = _grad_single(first_all)(u, primals, vectors)
        if has_aux:
            return _with_aux(outputs, gradients, fn(*primals))
        return outputs, gradients

    return jvp_graph


def _with_aux(output: Any, gradients: Any, results: tuple) -> tuple:
    return output, gradients, _aux(results)


def _as_tuple(value: Any, what: str) -> tuple[Any, ...]:
    if not isinstance(value, Tensor | GraphValue | tuple | list):
        raise TypeError(
            f"The inputs type of '{what}' should be Tensor, tuple or list of Tensor, but got "
            f"{type(value)}."
        )
    return tuple(value) if isinstance(value, tuple | list) else (value,)


def _jvp_args(inputs: Any, v: Any) -> tuple[Any, tuple[Any, ...]]:
    """(the vectors as the graph takes them, the primals), checked."""
    primals, vectors = _as_tuple(inputs, "inputs"), _as_tuple(v, "v")
    if len(primals) != len(vectors):
        raise ValueError(f"v has invalid length: should be {len(primals)}, but got {len(vectors)}")
    return (vectors if isinstance(v, tuple | list) else vectors[0]), primals


@_traced
def jvp(fn: Callable[..., Any], inputs: Any, v: Any, has_aux: bool = False) -> Any:
    _check_has_aux(has_aux)
    vectors, primals = _jvp_args(inputs, v)
    graph = _jvp_graph(fn, has_aux)
    if current_graph() is not None:  # called in a graph being traced: part of it
        return graph(vectors, *primals)
    return jit(graph)(vectors, *primals)


def linearize(fn: Callable[..., Any], inputs: Any) -> Any:
    primals = _as_tuple(inputs, "inputs")
    output = fn(*primals)

    @_traced
    def jvp_fn(v):
        return jvp(fn, primals, v)[1]

    return output, jvp_fn


def _positions(grad_position: Any, count: int) -> tuple[tuple[int, ...], bool]:
    single = isinstance(grad_position, int) and not isinstance(grad_position, bool)
    positions = (grad_position,) if single else grad_position
    if not isinstance(positions, tuple) or not all(
        isinstance(p, int) and not isinstance(p, bool) for p in positions
    ):
        raise TypeError(
            "The 'grad_position' should be int or tuple of int, but got "
            f"{type(grad_position).__name__}."
        )
    for p in positions:
        if not -count <= p < count:
            raise ValueError(
                f"The 'grad_position' should be in range [{-count}, {count}), but got {p}."
            )
    return tuple(p % count for p in positions), single


def _one_hot_cotangents(outputs: Any) -> tuple[Any, ...]:
    """Per output element (outputs in order, elements in C order): the cotangent of
    the whole output structure, one there and zeros elsewhere (constants)."""
    outs = outputs if isinstance(outputs, tuple) else (outputs,)
    shapes = [tuple(o.shape) for o in outs]
    out = []
    for i, o in enumerate(outs):
        for k in range(int(np.prod(shapes[i], dtype=np.int64))):
            parts = [Tensor(np.zeros(s, o2.dtype.numpy)) for s, o2 in zip(shapes, outs)]
            basis = np.zeros(shapes[i], o.dtype.numpy).reshape(-1)
            basis[k] = 1
            parts[i] = Tensor(basis.reshape(shapes[i]))
            out.append(tuple(parts) if isinstance(outputs, tuple) else parts[0])
    return tuple(out)


def _assemble(rows: tuple, outputs: Any, inputs: tuple, positions: tuple, single: bool) -> Any:
    """The Jacobians from the rows (one tuple of input gradients per output element)."""
    outs = outputs if isinstance(outputs, tuple) else (outputs,)
    jacobians, start = [], 0
    for o in outs:
        n = int(np.prod(tuple(o.shape), dtype=np.int64))
        per_position = tuple(
            ops.reshape(
                ops.stack([rows[start + k][p] for k in range(n)]),
                tuple(o.shape) + tuple(inputs[p].shape),
            )
            for p in positions
        )
        jacobians.append(per_position[0] if single else per_position)
        start += n
    return tuple(jacobians) if isinstance(outputs, tuple) else jacobians[0]


def _jacobian(fn: Callable[..., Any], grad_position: Any, has_aux: bool) -> Any:
    _check_has_aux(has_aux)
    target = _first_output(fn) if has_aux else fn

    @_traced
    def jac_fn(*inputs):
        positions, single = _positions(grad_position, len(inputs))
        outputs = target(*inputs)
        rows = ()
        for sens in _one_hot_cotangents(outputs):
            rows = rows + (_grad_all(target)(*inputs, sens),)
        jac = _assemble(rows, outputs, inputs, positions, single)
        if has_aux:
            return jac, _aux(fn(*inputs))
        return jac

    return jac_fn


def jacrev(fn: Callable[..., Any], grad_position: Any = 0, has_aux: bool = False) -> Any:
    return _jacobian(fn, grad_position, has_aux)


def jacfwd(fn: Callable[..., Any], grad_position: Any = 0, has_aux: bool = False) -> Any:
    return _jacobian(fn, grad_position, has_aux)
