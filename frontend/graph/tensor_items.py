"""Tensor indexing in graph mode: `x[index]` reads and `x[index] = v` assignments.

The ops live in frontend/ops/advanced_indexing.py (shared with PyNative mode);
this module gives them graph-mode semantics and located errors of MindSpore's
types (IndexError, TypeError, ValueError carrying the user's file and line).

Item assignment is functional: `x[i] = v` computes a new tensor and rebinds
the target (a name, a list element, or recursively `x[0][1] = v`); other
readers of the old value are unchanged. PyNative's `Tensor.__setitem__` gives
the new value to the Tensor object itself, so `y = x; x[0] = 1` changes `y` in
PyNative mode (one Python object, as in MindSpore) but not in graph mode.
A Parameter attribute is never changed by item assignment in graph mode
(`self.p[0] = v` is refused: use `ops.assign` or `ops.scatter_update`).
"""

from __future__ import annotations

import ast
from typing import Any

from mindjit.frontend import dtype as D
from mindjit.frontend.graph.errors import FrontendError, FrontendValueError, located_class
from mindjit.frontend.ops.advanced_indexing import setitem
from mindjit.frontend.ops.array import reshape
from mindjit.frontend.ops.gather_ops import known
from mindjit.frontend.ops.math import select
from mindjit.frontend.ops.promotion import is_tensor

#: an IndexError (an index out of range, too many indices) at the user's line
FrontendIndexError = located_class(IndexError)
#: a TypeError (an index or value of the wrong type) at the user's line
FrontendTypeError = located_class(TypeError)


_TYPED = (
    (IndexError, FrontendIndexError),
    (TypeError, FrontendTypeError),
    (ValueError, FrontendValueError),
)


def is_item_target(obj: Any) -> bool:
    return is_tensor(obj)


def located(ev: Any, node: ast.AST, fn: Any, *args: Any) -> Any:
    """`fn(*args)`, its exception re-raised with the user's location and its type kept."""
    ev.at(node)
    try:
        return fn(*args)
    except FrontendError:
        raise
    except Exception as exc:
        for base, typed in _TYPED:
            if isinstance(exc, base):
                raise typed(str(exc), ev.source.file, getattr(node, "lineno", None)) from None
        raise ev.error(node, f"{type(exc).__name__}: {exc}") from None


def read(ev: Any, node: ast.AST, obj: Any, index: Any) -> Any:
    """`obj[index]` for a tensor `obj`."""
    return located(ev, node, lambda: obj[index])


def assign(ev: Any, target: ast.Subscript, obj: Any, index: Any, value: Any, env: Any) -> None:
    """`obj[index] = value` for a tensor `obj`: the new tensor rebinds the target."""
    holder = target.value
    if isinstance(holder, ast.Attribute):
        raise FrontendTypeError(
            f"item assignment to the attribute '{ast.unparse(holder)}' is not supported in "
            "graph mode: a Parameter is not changed in place by x[i] = v; compute the new "
            "value and use ops.assign (or ops.scatter_update)",
            ev.source.file,
            target.lineno,
        )
    new = located(ev, target, setitem, obj, index, value)
    ev.assign(holder, new, env)


def masked_aug_assign(ev: Any, node: ast.AugAssign, env: Any) -> bool:
    """`x[mask] op= y` with a mask computed in the graph: `x[mask]` alone has a
    data-dependent shape, so this is `x = select(mask, x op y, x)` (y a number or
    a tensor broadcastable to x). False when the statement is not of that form
    (the caller handles it)."""
    target = node.target
    if not isinstance(target, ast.Subscript):
        return False
    obj = ev.eval(target.value, env)
    if not is_item_target(obj):
        return False
    mask = ev.eval(target.slice, env)
    if not (is_tensor(mask) and mask.dtype == D.bool_ and known(mask) is None):
        return False
    if isinstance(target.value, ast.Attribute):
        assign(ev, target, obj, mask, None, env)  # refused, with the attribute's message
    combined = ev.binop(node, node.op, obj, ev.eval(node.value, env))
    shape, k = tuple(obj.shape), len(mask.shape)
    if tuple(combined.shape) != shape or tuple(mask.shape) != shape[:k]:
        raise FrontendValueError(
            f"x[mask] op= y with a mask of shape {tuple(mask.shape)} computed in the graph "
            f"needs the mask to match the leading axes of x {shape} and y to broadcast to x",
            ev.source.file,
            node.lineno,
        )
    cond = reshape(mask, tuple(mask.shape) + (1,) * (len(shape) - k))
    ev.assign(target.value, located(ev, node, select, cond, combined, obj), env)
    return True
