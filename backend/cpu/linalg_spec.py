"""linalg structured ops in one normal form, and their operands laid out in the
iteration space.

Every structured op (generic, named elementwise ops, matmul, transpose,
broadcast, reduce) becomes a `Spec`: operands + indexing maps + reduction dims
+ a scalar body.  Each operand gets a view transform (constant index,
transpose, reshape with unit dims), decided here once, that puts its axes on
the loop dims they map to, so numpy broadcasting lines all operands up.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from xdsl.ir import Block, Operation, SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineMap

from mindjit.backend.cpu.errors import unsupported
from mindjit.backend.cpu.types import is_tensor, static_shape

Shape = tuple[int, ...]
Fn = Callable[..., Any]
MapResult = int | tuple[str, int]  # a loop dim, or ("const", index)


def identity(x: Any) -> Any:
    """Stand-in for a missing transform when closures are composed."""
    return x


@dataclass
class Spec:
    """A structured op in one normal form: ins/outs with per-operand maps."""

    op: Operation
    ins: list[SSAValue]
    outs: list[SSAValue]
    maps: list[list[MapResult]]
    num_dims: int
    reductions: list[int]
    block: Block


@dataclass
class Operand:
    """One operand laid out in the iteration space."""

    value: SSAValue
    dims: tuple[int, ...]  # loop dim of each non-constant axis, in axis order
    pure: bool  # no constant map results
    prep: Fn | None  # raw array -> iteration-space view (None: as is)
    shape: Shape  # run-time shape after `prep`


# -- ops -> Spec ------------------------------------------------------------------


def _map_results(op: Operation, amap: AffineMap) -> list[MapResult]:
    out: list[MapResult] = []
    for expr in amap.results:
        if isinstance(expr, AffineDimExpr):
            out.append(expr.position)
        elif isinstance(expr, AffineConstantExpr):
            out.append(("const", expr.value))
        else:
            raise unsupported(op, f"indexing map {amap} is not a projected permutation")
    return out


def _iterators(op: Operation, attrs: Sequence[Any]) -> list[int]:
    reductions = []
    for d, it in enumerate(attrs):
        kind = getattr(it, "data", it)
        kind = getattr(kind, "value", kind)
        if kind == "reduction":
            reductions.append(d)
        elif kind != "parallel":
            raise unsupported(op, f"iterator type {kind}")
    return reductions


def structured_spec(op: Operation) -> Spec:
    maps = [m.data for m in op.get_indexing_maps().data]
    if not maps:
        raise unsupported(op, "no indexing maps")
    return Spec(
        op,
        list(op.inputs),
        list(op.outputs),
        [_map_results(op, m) for m in maps],
        maps[0].num_dims,
        _iterators(op, op.get_iterator_types().data),
        op.body.block,
    )


def reduce_spec(op: Operation) -> Spec:
    n = len(static_shape(op.input.type, op))
    dims = set(op.dimensions.get_values())
    return Spec(
        op,
        [op.input],
        [op.init],
        [list(range(n)), [d for d in range(n) if d not in dims]],
        n,
        sorted(dims),
        op.region.block,
    )


def broadcast_spec(op: Operation) -> Spec:
    n = len(static_shape(op.init.type, op))
    added = set(op.dimensions.get_values())
    return Spec(
        op,
        [op.input],
        [op.init],
        [[d for d in range(n) if d not in added], list(range(n))],
        n,
        [],
        op.hidden_region.block,
    )


# -- operand layout -------------------------------------------------------------------


def loop_shape(spec: Spec) -> Shape:
    extents: dict[int, int] = {}
    for value, amap in zip([*spec.ins, *spec.outs], spec.maps):
        shape = static_shape(value.type, spec.op)
        if len(shape) != len(amap):
            raise unsupported(
                spec.op, f"indexing map rank does not match operand type {value.type}"
            )
        for axis, r in enumerate(amap):
            if isinstance(r, int):
                # a size-1 operand axis broadcasts against the others, also against 0
                # (an empty tensor's loop is empty: `y[mask] *= 2` with no element set)
                prev, d = extents.get(r), shape[axis]
                extents[r] = d if prev is None or prev == 1 else (prev if d == 1 else max(prev, d))
    if set(extents) != set(range(spec.num_dims)):
        raise unsupported(spec.op, "some loop dimension is not used by any operand")
    return tuple(extents[d] for d in range(spec.num_dims))


def layout(spec: Spec, value: SSAValue, amap: list[MapResult]) -> Operand:
    """The view transform putting `value`'s axes on the loop dims they map to."""
    n = spec.num_dims
    if not is_tensor(value.type):
        return Operand(value, (), True, None, ())
    shape = static_shape(value.type, spec.op)
    dims = tuple(r for r in amap if isinstance(r, int))
    if len(set(dims)) != len(dims):
        raise unsupported(spec.op, "an indexing map uses a loop dimension twice")
    pure = len(dims) == len(amap)
    index = None if pure else tuple(slice(None) if isinstance(r, int) else r[1] for r in amap)
    kept = [shape[a] for a, r in enumerate(amap) if isinstance(r, int)]
    perm = tuple(sorted(range(len(dims)), key=lambda a: dims[a]))
    full = [1] * n
    for a in perm:
        full[dims[a]] = kept[a]
    trans = tuple(kept[a] for a in perm)
    stripped = tuple(full[next((i for i, e in enumerate(full) if e != 1), n) :])
    if trans == tuple(full) or trans == stripped:
        aligned, reshape = trans, None
    else:
        aligned, reshape = tuple(full), tuple(full)
    return Operand(value, dims, pure, _chain(index, perm, reshape), aligned)


def _chain(
    index: tuple[Any, ...] | None, perm: tuple[int, ...], reshape: Shape | None
) -> Fn | None:
    """index, then transpose, then reshape: only the steps that do something."""
    parts: list[Fn] = []
    if index is not None:
        parts.append(lambda x: x[index])
    if perm != tuple(range(len(perm))):
        parts.append(lambda x: x.transpose(perm))
    if reshape is not None:
        parts.append(lambda x: x.reshape(reshape))
    if not parts:
        return None
    if len(parts) == 1:
        return parts[0]

    def chained(x: Any) -> Any:
        for p in parts:
            x = p(x)
        return x

    return chained


# -- composing run-time functions ---------------------------------------------------


def with_preps(fn: Fn, preps: Sequence[Fn | None]) -> Fn:
    """`fn` applied to inputs after their layout views (no wrapper if none)."""
    if all(p is None for p in preps):
        return fn
    ps = [p or identity for p in preps]
    if len(ps) == 1:
        (p0,) = ps
        return lambda a: fn(p0(a))
    if len(ps) == 2:
        p0, p1 = ps
        return lambda a, b: fn(p0(a), p1(b))
    return lambda *v: fn(*[p(x) for p, x in zip(ps, v)])


def then(fn: Fn, posts: Sequence[Fn | None]) -> Fn:
    """`fn` followed by one transform per result (no wrapper if none)."""
    if len(posts) == 1:
        post = posts[0]
        if post is None:
            return fn
        return lambda *a: post(fn(*a))
    ps = [p or identity for p in posts]
    return lambda *a: tuple([p(v) for p, v in zip(ps, fn(*a))])


def seq(parts: Sequence[Fn]) -> Fn | None:
    """The composition of `parts` in order; None when there are none."""
    if not parts:
        return None
    if len(parts) == 1:
        return parts[0]
    if len(parts) == 2:
        p0, p1 = parts
        return lambda x: p1(p0(x))

    def run(x: Any) -> Any:
        for p in parts:
            x = p(x)
        return x

    return run
