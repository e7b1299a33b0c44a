"""The op functions' common plumbing: call `apply_op`, turn verifier errors into
Python errors a user expects (`ValueError` for bad shapes, `TypeError` for bad
dtypes), and check the small things every op checks (axes, dtype kinds)."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any

from xdsl.ir import Operation, SSAValue
from xdsl.utils.exceptions import VerifyException

from mindjit.frontend.dispatch import apply_op
from mindjit.frontend.emitter import Emitter


def run(key: Hashable, build: Callable[[Emitter, list[SSAValue]], Any], *inputs: Any) -> Any:
    """`apply_op` with the verifier's message raised as a `ValueError` naming the op:
    the op functions check dtypes first (TypeError, as MindSpore), so what the
    verifier still rejects is a shape (MindSpore's ValueError); a plain ValueError,
    so no class of ours is the type a user sees."""
    try:
        return apply_op(key, build, *inputs)
    except VerifyException as e:
        name = key[0] if isinstance(key, tuple) and key else key
        raise ValueError(f"For '{name}', {e}") from None


def one(op_cls: Any, **props: Any) -> Callable[[Emitter, list[SSAValue]], SSAValue]:
    """A builder inserting `op_cls.get(*inputs, **props)` and returning its result."""

    def build(e: Emitter, v: list[SSAValue]) -> SSAValue:
        op: Operation = op_cls.get(*v, **props)
        return e.value(op)

    return build


def normalize_axis(axis: int, rank: int, name: str) -> int:
    if isinstance(axis, bool) or not isinstance(axis, int):
        raise TypeError(f"For '{name}', axis must be an int, got {type(axis).__name__}")
    if not -max(rank, 1) <= axis < max(rank, 1):
        raise ValueError(f"For '{name}', axis {axis} is out of range for a rank-{rank} tensor")
    return axis % rank if rank else 0


def normalize_axes(axis: Any, rank: int, name: str) -> tuple[int, ...]:
    """None/()/[] -> () (meaning all axes); int or sequence -> sorted distinct axes."""
    if axis is None:
        return ()
    axes: Sequence[int] = (axis,) if isinstance(axis, int) else tuple(axis)
    norm = [normalize_axis(a, rank, name) for a in axes]
    if len(set(norm)) != len(norm):
        raise ValueError(f"For '{name}', axis {list(axes)} names an axis twice")
    return tuple(sorted(norm))


def require_numeric(x: Any, name: str) -> None:
    if x.dtype.is_bool:
        raise TypeError(f"For '{name}', the input must be a number tensor, got a Bool tensor")
