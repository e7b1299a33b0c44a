"""MindSpore 2.10's matrix and vector products, composed of matmul, mul and
reductions (so both modes and gradients follow): `ops.mm`, `ops.mv`, `ops.dot`,
`ops.ger`, `ops.addr`, `ops.addmv`, `ops.addbmm`, `ops.vecdot`, `ops.dist`.

MindSpore 2.10's rules, which mindjit follows: `mm` and `mv` want 2-D (and 1-D)
operands, `dot` wants both of rank >= 2 and float16/float32, `dist` wants a float
tensor and an int `p` (0 counts the differing elements).
"""

from __future__ import annotations

from typing import Any

from mindjit.frontend import dtype as D
from mindjit.frontend.ops.array import reshape, transpose
from mindjit.frontend.ops.cast import cast_to, promote
from mindjit.frontend.ops.math import abs, add, matmul, mul, not_equal, pow, sqrt, sub
from mindjit.frontend.ops.promotion import is_tensor
from mindjit.frontend.ops.reduce import reduce_sum

_HALF_OR_SINGLE = (D.float16, D.float32)


def _tensors(name: str, *xs: Any) -> None:
    for x in xs:
        if not is_tensor(x):
            raise TypeError(f"For '{name}', the inputs must be Tensors, but got {type(x)}")


def _inner_match(name: str, k1: int, k2: int) -> None:
    if k1 != k2:
        raise ValueError(
            f"For '{name}' the input dimensions must be equal, but got 'x1_col': {k1} and "
            f"'x2_row': {k2}."
        )


def mm(input: Any, mat2: Any) -> Any:  # noqa: A002 - MindSpore's name
    """`ops.mm(input, mat2)`: the product of two 2-D tensors."""
    _tensors("mm", input, mat2)
    if len(input.shape) != 2 or len(mat2.shape) != 2:
        raise ValueError("MatMul inputs should have the same dimension size and equal to 2.")
    _inner_match("MatMul", input.shape[1], mat2.shape[0])
    return matmul(input, mat2)


def mv(mat: Any, vec: Any) -> Any:
    """`ops.mv(mat, vec)`: a 2-D tensor times a 1-D one."""
    _tensors("mv", mat, vec)
    if len(mat.shape) != 2 or len(vec.shape) != 1:
        raise ValueError("MatMul inputs should have the same dimension size and equal to 2.")
    _inner_match("MatMul", mat.shape[1], vec.shape[0])
    return reshape(matmul(mat, reshape(vec, (-1, 1))), (mat.shape[0],))


def dot(input: Any, other: Any) -> Any:  # noqa: A002 - MindSpore's name
    """`ops.dot(input, other)`: numpy's dot for tensors of rank >= 2: the last axis of
    `input` against the second-to-last of `other`."""
    _tensors("dot", input, other)
    for t, what in ((input, "x1"), (other, "x2")):
        if t.dtype not in _HALF_OR_SINGLE:
            raise TypeError(
                f"The '{what}' doesn't support '{t.dtype}' and expect to receive "
                "[mindspore.float16, mindspore.float32]."
            )
    if len(input.shape) < 2 or len(other.shape) < 2:
        raise ValueError(
            "For 'dot', the inputs x1, x2 should have 'dimension >= 2',but got "
            f"'len(x1_shape)': ({len(input.shape)}) and 'len(x2_shape)': ({len(other.shape)})."
        )
    k = input.shape[-1]
    _inner_match("dot", k, other.shape[-2])
    a, b = promote(input, other, what="dot")
    lead_b = tuple(b.shape[:-2]) + (b.shape[-1],)
    moved = reshape(_last_two_swapped(b), (-1, k))  # (prod(lead_b), k)
    out = matmul(reshape(a, (-1, k)), moved, transpose_b=True)
    return reshape(out, tuple(a.shape[:-1]) + lead_b)


def _last_two_swapped(b: Any) -> Any:
    rank = len(b.shape)
    return transpose(b, (*range(rank - 2), rank - 1, rank - 2))


def ger(input: Any, vec2: Any) -> Any:  # noqa: A002 - MindSpore's name
    """`ops.ger(input, vec2)`: the outer product of two 1-D tensors."""
    _tensors("ger", input, vec2)
    for t, what in ((input, "x1"), (vec2, "x2")):
        if len(t.shape) != 1:
            raise ValueError(
                f"For primitive[Ger], the {what} rank must be equal to 1, but got {len(t.shape)}."
            )
    a, b = promote(input, vec2, what="ger")
    return mul(reshape(a, (-1, 1)), reshape(b, (1, -1)))


def _scaled(x: Any, beta: Any, product: Any, alpha: Any) -> Any:
    if alpha != 1:
        product = mul(product, alpha)
    if beta == 0:
        return product
    return add(x if beta == 1 else mul(x, beta), product)


def addr(x: Any, vec1: Any, vec2: Any, *, beta: Any = 1, alpha: Any = 1) -> Any:
    """`ops.addr(x, vec1, vec2, *, beta=1, alpha=1)`: beta * x + alpha * outer(vec1, vec2)."""
    _tensors("addr", x)
    return _scaled(x, beta, ger(vec1, vec2), alpha)


def addmv(input: Any, mat: Any, vec: Any, *, beta: Any = 1, alpha: Any = 1) -> Any:  # noqa: A002
    """`ops.addmv(input, mat, vec, *, beta=1, alpha=1)`: beta * input + alpha * mat @ vec."""
    _tensors("addmv", input)
    return _scaled(input, beta, mv(mat, vec), alpha)


def addbmm(input: Any, batch1: Any, batch2: Any, *, beta: Any = 1, alpha: Any = 1) -> Any:  # noqa: A002
    """`ops.addbmm(input, batch1, batch2, *, beta=1, alpha=1)`: beta * input + alpha *
    the sum over the batch of batch1[i] @ batch2[i]."""
    _tensors("addbmm", input, batch1, batch2)
    for t in (batch1, batch2):
        if len(t.shape) != 3:
            raise ValueError(f"For 'addbmm', the batches must be 3-D, but got {tuple(t.shape)}")
    _inner_match("addbmm", batch1.shape[2], batch2.shape[1])
    products = matmul(batch1, batch2)
    return _scaled(input, beta, reduce_sum(products, 0), alpha)


def vecdot(x: Any, y: Any, *, axis: int = -1) -> Any:
    """`ops.vecdot(x, y, *, axis=-1)`: sum(x * y) along `axis` (x and y broadcast)."""
    _tensors("vecdot", x, y)
    return reduce_sum(mul(x, y), axis)


def dist(input: Any, other: Any, p: int = 2) -> Any:  # noqa: A002 - MindSpore's name
    """`ops.dist(input, other, p=2)`: the p-norm of input - other (broadcast), over
    every element; p=0 counts the elements that differ."""
    _tensors("dist", input, other)
    if isinstance(p, bool) or not isinstance(p, int):
        raise TypeError(
            f"For 'LpNorm', the type of 'p' should be 'int', but got type '{type(p).__name__}'."
        )
    if input.dtype not in _HALF_OR_SINGLE or other.dtype not in _HALF_OR_SINGLE:
        raise TypeError(
            "For primitive[LpNorm], the input argument[input] must be a type of "
            f"{{Tensor[Float16], Tensor[Float32]}}, but got {input.dtype} and {other.dtype}."
        )
    d = sub(input, other)
    if p == 0:
        return reduce_sum(cast_to(not_equal(d, 0), d.dtype))
    if p == 1:
        return reduce_sum(abs(d))
    if p == 2:
        return sqrt(reduce_sum(mul(d, d)))
    return pow(reduce_sum(pow(abs(d), p)), 1.0 / p)
