"""`TensorMethodsMore`: the rest of MindSpore 2.10's Tensor methods (issue 38's long
tail: axes, math extras, NaN-aware math, cumulative, products, scatters into
slices, binning, diagonals, stacking ...), each calling its functional op.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindjit.frontend.tensor_method_support import (
    axes_of,
    cast_target,
    no_extras,
    ops_module,
    size_of,
)


class TensorMethodsMore:
    __slots__ = ()

    # --- MindSpore 2.10's other Tensor methods (frontend/ops/axes.py, math_extras.py ...)
    def swapaxes(self, axis0: int, axis1: int) -> Any:
        return ops_module().swapaxes(self, axis0, axis1)

    def swapdims(self, dim0: int, dim1: int) -> Any:
        return ops_module().swapaxes(self, dim0, dim1)

    def moveaxis(self, source: Any, destination: Any) -> Any:
        return ops_module().moveaxis(self, source, destination)

    def movedim(self, source: Any, destination: Any) -> Any:
        return ops_module().moveaxis(self, source, destination)

    def t(self) -> Any:
        return ops_module().t(self)

    @property
    def mT(self) -> Any:  # noqa: N802 - MindSpore's name
        from mindjit.frontend.ops.axes import matrix_transpose  # function-level: ops import Tensor

        return matrix_transpose(self)

    mH = mT  # (real tensors: the conjugate transpose is the transpose)

    def diagonal(self, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Any:
        return ops_module().diagonal(self, offset, axis1, axis2)

    def trace(self, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype: Any = None) -> Any:
        """numpy's trace: integer tensors are summed in int64 (`ops.trace` keeps the dtype)."""
        from mindjit.frontend.ops.axes import tensor_trace  # function-level: ops import Tensor

        return tensor_trace(self, offset, axis1, axis2, dtype)

    def argsort(
        self, axis: int = -1, descending: bool = False, *, dim: Any = None, stable: bool = False
    ) -> Any:
        """`x.argsort(axis=-1, descending=False)` or `x.argsort(dim=..., stable=...)`: the
        int32 indices (always a stable sort)."""
        return ops_module().argsort(self, axis if dim is None else dim, descending)

    def msort(self) -> Any:
        return ops_module().sort(self, 0)[0]

    def top_k(self, k: int, sorted: bool = True) -> Any:  # noqa: A002
        return ops_module().topk(self, k, None, True, sorted)

    def softmax(self, axis: int, dtype: Any = None) -> Any:
        """`x.softmax(axis, dtype=None)`: `axis` is required (MindSpore's Tensor method)."""
        if not self.dtype.is_float:
            raise TypeError(
                "For primitive[Softmax], the input argument[x] must be a type of {Float16, "
                f"Float32, Float64}}, but got {self.dtype}."
            )
        return ops_module().softmax(self, axis, dtype=dtype)

    def logsumexp(self, dim: Any, keepdim: bool = False) -> Any:
        if not self.dtype.is_float:
            raise TypeError(
                f"For 'logsumexp', the input must be a float tensor, but got {self.dtype}"
            )
        return ops_module().logsumexp(self, dim, keepdim)

    def amax(self, axis: Any = None, keepdims: bool = False, **kwargs: Any) -> Any:
        no_extras("amax", kwargs)
        return ops_module().amax(self, axis, keepdims)

    def amin(self, axis: Any = None, keepdims: bool = False, **kwargs: Any) -> Any:
        no_extras("amin", kwargs)
        return ops_module().amin(self, axis, keepdims)

    def ptp(self, axis: Any = None, keepdims: bool = False) -> Any:
        ops = ops_module()
        return ops.amax(self, axis, keepdims) - ops.amin(self, axis, keepdims)

    def count_nonzero(self, axis: Any = (), keep_dims: bool = False, dtype: Any = None) -> Any:
        ops = ops_module()
        return ops.count_nonzero(self, axis, keep_dims, dtype or "int32")

    def new_ones(self, size: Any, dtype: Any = None) -> Any:
        return ops_module().fill(dtype or self.dtype, size_of(size, "new_ones"), 1)

    def new_zeros(self, size: Any, dtype: Any = None) -> Any:
        return ops_module().fill(dtype or self.dtype, size_of(size, "new_zeros"), 0)

    def new_full(self, size: Any, fill_value: Any, *, dtype: Any = None) -> Any:
        return ops_module().fill(dtype or self.dtype, size_of(size, "new_full"), fill_value)

    def fill(self, value: Any) -> Any:
        """A tensor of this shape and dtype filled with `value` (not in place)."""
        return ops_module().full_like(self, value)

    def type(self, dtype: Any = None) -> Any:
        """Without `dtype`, the dtype's name (`'Float32'`); with one, the tensor cast."""
        if dtype is None:
            return str(self.dtype)
        return self.astype(cast_target(dtype))

    def type_as(self, other: Any) -> Any:
        return self.astype(other.dtype)

    def view_as(self, other: Any) -> Any:
        return self.reshape(tuple(other.shape))

    def reshape_as(self, other: Any) -> Any:
        return self.reshape(tuple(other.shape))

    def flip(self, dims: Any) -> Any:
        if not isinstance(dims, tuple | list):
            raise TypeError(f"Tensor.flip: 'dims' must be a tuple or list of ints, got {dims!r}")
        return ops_module().flip(self, dims)

    def fliplr(self) -> Any:
        return ops_module().flip(self, (1,))

    def flipud(self) -> Any:
        return ops_module().flip(self, (0,))

    def where(self, condition: Any, y: Any) -> Any:
        """`x.where(condition, y)`: x where condition, else y."""
        return ops_module().where(condition, self, y)

    def isclose(
        self, other: Any, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False
    ) -> Any:
        return ops_module().isclose(self, other, rtol, atol, equal_nan)

    def allclose(
        self, other: Any, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False
    ) -> Any:
        """A Python bool in PyNative mode, a 0-d Bool tensor in a graph."""
        from mindjit.frontend.ops.math_extras import allclose  # function-level: ops import Tensor

        return allclose(self, other, rtol, atol, equal_nan)

    def numel(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    nelement = numel

    def ndimension(self) -> int:
        return len(self.shape)

    def is_floating_point(self) -> bool:
        return self.dtype.is_float

    def is_signed(self) -> bool:
        return not (self.dtype.is_unsigned or self.dtype.is_bool)

    def unbind(self, dim: int = 0) -> Any:
        return ops_module().unstack(self, dim)

    def take(self, indices: Any) -> Any:
        """The elements of the flattened tensor at `indices` (in the indices' shape)."""
        return ops_module().gather(self.reshape((-1,)), indices, 0)

    def short(self) -> Any:
        return self.astype("int16")

    def byte(self) -> Any:
        return self.astype("uint8")

    # comparisons and arithmetic under their function names
    def eq(self, other: Any) -> Any:
        return ops_module().equal(self, other)

    def ne(self, other: Any) -> Any:
        return ops_module().not_equal(self, other)

    def gt(self, other: Any) -> Any:
        return ops_module().greater(self, other)

    def ge(self, other: Any) -> Any:
        return ops_module().greater_equal(self, other)

    def lt(self, other: Any) -> Any:
        return ops_module().less(self, other)

    def le(self, other: Any) -> Any:
        return ops_module().less_equal(self, other)

    equal, not_equal, greater, greater_equal, less, less_equal = eq, ne, gt, ge, lt, le

    def logical_and(self, other: Any) -> Any:
        return ops_module().logical_and(self, other)

    def logical_or(self, other: Any) -> Any:
        return ops_module().logical_or(self, other)

    def logical_xor(self, other: Any) -> Any:
        return ops_module().logical_xor(self, other)

    def logical_not(self) -> Any:
        return ops_module().logical_not(self)

    def subtract(self, other: Any, *, alpha: Any = 1) -> Any:
        return ops_module().sub(self, other if alpha == 1 else other * alpha)

    def multiply(self, value: Any) -> Any:
        return ops_module().mul(self, value)

    def divide(self, other: Any, *, rounding_mode: str | None = None) -> Any:
        return ops_module().div(self, other, rounding_mode=rounding_mode)

    def true_divide(self, other: Any) -> Any:
        return ops_module().div(self, other)

    def floor_divide(self, other: Any) -> Any:
        return ops_module().floor_divide(self, other)

    def remainder(self, other: Any) -> Any:
        return ops_module().remainder(self, other)

    def fmod(self, other: Any) -> Any:
        return ops_module().fmod(self, other)

    def float_power(self, other: Any) -> Any:
        return ops_module().float_power(self, other)

    def hypot(self, other: Any) -> Any:
        return ops_module().hypot(self, other)

    def logaddexp(self, other: Any) -> Any:
        return ops_module().logaddexp(self, other)

    def logaddexp2(self, other: Any) -> Any:
        return ops_module().logaddexp2(self, other)

    def xlogy(self, other: Any) -> Any:
        return ops_module().xlogy(self, other)

    def lerp(self, end: Any, weight: Any) -> Any:
        return ops_module().lerp(self, end, weight)

    def addcmul(self, tensor1: Any, tensor2: Any, value: Any = 1) -> Any:
        return ops_module().addcmul(self, tensor1, tensor2, value)

    def addcdiv(self, tensor1: Any, tensor2: Any, value: Any = 1) -> Any:
        return ops_module().addcdiv(self, tensor1, tensor2, value)

    def absolute(self) -> Any:
        return ops_module().abs(self)

    def negative(self) -> Any:
        return ops_module().neg(self)

    def positive(self) -> Any:
        return ops_module().positive(self)

    def reciprocal(self) -> Any:
        return ops_module().reciprocal(self)

    def rsqrt(self) -> Any:
        return ops_module().rsqrt(self)

    def log10(self) -> Any:
        return ops_module().log10(self)

    def trunc(self) -> Any:
        return ops_module().trunc(self)

    def frac(self) -> Any:
        return ops_module().frac(self)

    def sgn(self) -> Any:
        return ops_module().sign(self)

    def logit(self, eps: Any = None) -> Any:
        return ops_module().logit(self, eps)

    def sinc(self) -> Any:
        return ops_module().sinc(self)

    def deg2rad(self) -> Any:
        return ops_module().deg2rad(self)

    def rad2deg(self) -> Any:
        return ops_module().rad2deg(self)

    def asinh(self) -> Any:
        return ops_module().asinh(self)

    def acosh(self) -> Any:
        return ops_module().acosh(self)

    def atanh(self) -> Any:
        return ops_module().atanh(self)

    arcsinh, arccosh, arctanh = asinh, acosh, atanh

    def lgamma(self) -> Any:
        return ops_module().lgamma(self)

    def mm(self, mat2: Any) -> Any:
        return ops_module().matmul(self, mat2)

    def bmm(self, mat2: Any) -> Any:
        return ops_module().bmm(self, mat2)

    def ger(self, vec2: Any) -> Any:
        return ops_module().outer(self, vec2)

    def nonzero(self, *, as_tuple: bool = False) -> Any:
        return ops_module().nonzero(self, as_tuple=as_tuple)

    def argwhere(self) -> Any:
        return ops_module().nonzero(self)

    # --- in place (PyNative: this Tensor takes the new value, as MindSpore's does;
    # in a graph a Parameter takes it by ops.assign, ordered as written) ---
    def _in_place(self, name: str, new: Any) -> Any:
        from mindjit.frontend.dispatch import current_graph  # function-level: it imports Tensor
        from mindjit.frontend.tensor import Parameter  # function-level: Tensor has these methods

        set_value = getattr(self, "_set_value", None)
        if current_graph() is not None:
            if isinstance(self, Parameter):
                ops_module().assign(self, new)
                return self
            set_value = None  # a value of the graph: it cannot change
        if set_value is None:
            raise TypeError(
                f"Tensor.{name} changes a tensor in place, which mindjit supports in "
                f"PyNative mode only; in a graph use the out-of-place form"
            )
        set_value(new)
        return self

    def fill_(self, value: Any) -> Any:
        return self._in_place("fill_", ops_module().full_like(self, value))

    def zero_(self) -> Any:
        return self._in_place("zero_", ops_module().zeros_like(self))

    def copy_(self, src: Any) -> Any:
        ops = ops_module()
        return self._in_place("copy_", ops.broadcast_to(ops.cast(src, self.dtype), self.shape))

    # --- NaN-aware and sign math (frontend/ops/elementwise_nan.py)
    def fmax(self, other: Any) -> Any:
        return ops_module().fmax(self, other)

    def fmin(self, other: Any) -> Any:
        return ops_module().fmin(self, other)

    def copysign(self, other: Any) -> Any:
        return ops_module().copysign(self, other)

    def heaviside(self, values: Any) -> Any:
        return ops_module().heaviside(self, values)

    def signbit(self) -> Any:
        return ops_module().signbit(self)

    def erfc(self) -> Any:
        return ops_module().erfc(self)

    def xdivy(self, y: Any) -> Any:
        return ops_module().xdivy(self, y)

    def nanmean(self, axis: Any = None, keepdims: bool = False, *, dtype: Any = None) -> Any:
        return ops_module().nanmean(self, axis, keepdims, dtype=dtype)

    def nansum(self, axis: Any = None, keepdims: bool = False, *, dtype: Any = None) -> Any:
        return ops_module().nansum(self, axis, keepdims, dtype=dtype)

    # --- running extrema and order statistics (frontend/ops/cumulative.py)
    def cummax(self, axis: int) -> Any:
        return ops_module().cummax(self, axis)

    def cummin(self, axis: int) -> Any:
        return ops_module().cummin(self, axis)

    def median(self, axis: int = -1, keepdims: bool = False) -> Any:
        return ops_module().median(self, axis, keepdims)

    def nanmedian(self, axis: int = -1, keepdims: bool = False) -> Any:
        return ops_module().nanmedian(self, axis, keepdims)

    def aminmax(self, *, axis: int = 0, keepdims: bool = False) -> Any:
        return ops_module().aminmax(self, axis=axis, keepdims=keepdims)

    def argmax_with_value(self, axis: int = 0, keep_dims: bool = False) -> Any:
        """(the maximum values, their int64 indices), as MindSpore 2.10's method returns them."""
        from mindjit.frontend.ops import cumulative  # function-level: ops import Tensor

        return cumulative.argmax_with_value(self, axis, keep_dims)

    def argmin_with_value(self, axis: int = 0, keep_dims: bool = False) -> Any:
        from mindjit.frontend.ops import cumulative  # function-level: ops import Tensor

        return cumulative.argmin_with_value(self, axis, keep_dims)

    # --- products (frontend/ops/products.py)
    def cross(self, other: Any, dim: Any = None) -> Any:
        return ops_module().cross(self, other, dim)

    def inner(self, other: Any) -> Any:
        return ops_module().inner(self, other)

    # --- writes into slices and index sets (frontend/ops/scatter_slices.py)
    def index_fill(self, axis: Any, index: Any, value: Any) -> Any:
        return ops_module().index_fill(self, axis, index, value)

    def index_add(
        self, indices: Any, y: Any, axis: int, use_lock: bool = True, check_index_bound: bool = True
    ) -> Any:
        return ops_module().index_add(self, indices, y, axis, use_lock, check_index_bound)

    def select_scatter(self, src: Any, axis: int, index: int) -> Any:
        return ops_module().select_scatter(self, src, axis, index)

    def slice_scatter(
        self, src: Any, axis: int = 0, start: Any = None, end: Any = None, step: int = 1
    ) -> Any:
        return ops_module().slice_scatter(self, src, axis, start, end, step)

    def masked_select(self, mask: Any) -> Any:
        return ops_module().masked_select(self, mask)

    # --- binning and covariance (frontend/ops/binning.py, distances.py)
    def searchsorted(self, v: Any, side: str = "left", sorter: Any = None) -> Any:
        """int32 positions (MindSpore 2.10's method; `ops.searchsorted` gives int64)."""
        return ops_module().searchsorted(self, v, out_int32=True, side=side, sorter=sorter)

    def histc(self, bins: int = 100, min: float = 0.0, max: float = 0.0) -> Any:  # noqa: A002
        return ops_module().histc(self, bins, min, max)

    def cov(self, *, correction: int = 1, fweights: Any = None, aweights: Any = None) -> Any:
        return ops_module().cov(self, correction=correction, fweights=fweights, aweights=aweights)

    # --- more products and diagonals (frontend/ops/matrix_products.py, linear.py, diagonals.py)
    def addr(self, vec1: Any, vec2: Any, beta: Any = 1, alpha: Any = 1) -> Any:
        return ops_module().addr(self, vec1, vec2, beta=beta, alpha=alpha)

    def addmm(self, mat1: Any, mat2: Any, *, beta: Any = 1, alpha: Any = 1) -> Any:
        return ops_module().addmm(self, mat1, mat2, beta=beta, alpha=alpha)

    def addbmm(self, batch1: Any, batch2: Any, *, beta: Any = 1, alpha: Any = 1) -> Any:
        return ops_module().addbmm(self, batch1, batch2, beta=beta, alpha=alpha)

    def baddbmm(self, batch1: Any, batch2: Any, *, beta: Any = 1, alpha: Any = 1) -> Any:
        return ops_module().baddbmm(self, batch1, batch2, beta, alpha)

    def diagflat(self, offset: int = 0) -> Any:
        return ops_module().diagflat(self, offset)

    def isneginf(self) -> Any:
        return ops_module().isneginf(self)

    def isposinf(self) -> Any:
        return ops_module().isposinf(self)

    def isreal(self) -> Any:
        return ops_module().isreal(self)

    def logcumsumexp(self, axis: int) -> Any:
        return ops_module().logcumsumexp(self, axis)

    # --- value-shaped and other names (frontend/ops/value_shapes_more.py, other_names.py)
    def bincount(self, weights: Any = None, minlength: int = 0) -> Any:
        return ops_module().bincount(self, weights, minlength)

    def unique_consecutive(
        self, return_inverse: bool = False, return_counts: bool = False, dim: Any = None
    ) -> Any:
        return ops_module().unique_consecutive(self, return_inverse, return_counts, dim)

    def soft_shrink(self, lambd: float = 0.5) -> Any:
        return ops_module().soft_shrink(self, lambd)

    def hardshrink(self, lambd: float = 0.5) -> Any:
        return ops_module().hardshrink(self, lambd)

    def matrix_power(self, n: int) -> Any:
        return ops_module().matrix_power(self, n)

    def reverse(self, axis: Any) -> Any:
        return ops_module().reverse(self, axis)

    def sum_to_size(self, *size: Any) -> Any:
        """The sum over the axes that `size` (trailing-aligned) has as 1 or lacks,
        to `size`'s shape: `x.sum_to_size(1, 3)` or `x.sum_to_size((1, 3))`."""
        target = axes_of(size)
        shape = tuple(self.shape)
        if len(target) > len(shape) or any(
            t not in (1, d) for t, d in zip(target, shape[len(shape) - len(target) :], strict=True)
        ):
            raise ValueError(f"For 'sum_to_size', size {target} is not expandable to {shape}")
        lead = len(shape) - len(target)
        ones = [
            lead + i
            for i, (t, d) in enumerate(zip(target, shape[lead:], strict=True))
            if t == 1 and d != 1
        ]
        out = ops_module().reduce_sum(self, tuple(ones), True) if ones else self
        return ops_module().reduce_sum(out, tuple(range(lead))) if lead else out

    def diagonal_scatter(self, src: Any, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Any:
        return ops_module().diagonal_scatter(self, src, offset, dim1, dim2)

    def renorm(self, p: int, axis: int, maxnorm: float) -> Any:
        return ops_module().renorm(self, p, axis, maxnorm)

    # --- splitting and rearranging (frontend/ops/stacking.py)
    def tensor_split(self, indices_or_sections: Any, axis: int = 0) -> Any:
        return ops_module().tensor_split(self, indices_or_sections, axis)

    def hsplit(self, indices_or_sections: Any) -> Any:
        return ops_module().hsplit(self, indices_or_sections)

    def vsplit(self, indices_or_sections: Any) -> Any:
        return ops_module().vsplit(self, indices_or_sections)

    def dsplit(self, indices_or_sections: Any) -> Any:
        return ops_module().dsplit(self, indices_or_sections)

    def rot90(self, k: int, dims: Any) -> Any:
        return ops_module().rot90(self, k, dims)

    def diff(self, n: int = 1, axis: int = -1, prepend: Any = None, append: Any = None) -> Any:
        return ops_module().diff(self, n, axis, prepend, append)

    # --- sliding blocks (frontend/ops/fold.py; issue 38, api-nn3d)
    def unfold(self, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1) -> Any:
        return ops_module().unfold(self, kernel_size, dilation, padding, stride)

    def fold(
        self, output_size: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0,
        stride: Any = 1,
    ) -> Any:  # fmt: skip
        return ops_module().fold(self, output_size, kernel_size, dilation, padding, stride)

    def col2im(
        self, output_size: Any, kernel_size: Any, dilation: Any, padding_value: Any, stride: Any
    ) -> Any:
        return ops_module().col2im(self, output_size, kernel_size, dilation, padding_value, stride)
