"""`TensorMethods`: Tensor's methods that are MindSpore's ops (`x.sum()`, `x.reshape`,
`x.transpose` ...), shared by Tensor and GraphValue through TensorOperators, so a
method computes eagerly on a Tensor and emits mindir on a GraphValue.
"""

from __future__ import annotations

from typing import Any

from mindjit.frontend.tensor_method_support import (
    axes_of,
    no_extras,
    ops_module,
)


class TensorMethods:
    __slots__ = ()

    # --- methods --------------------------------------------------------------------------
    @property
    def T(self) -> Any:  # noqa: N802 - numpy's name
        return self.transpose()

    def astype(self, dtype: Any, copy: bool = True) -> Any:
        return ops_module().cast(self, dtype)

    def float(self) -> Any:
        return self.astype("float32")

    def half(self) -> Any:
        return self.astype("float16")

    def double(self) -> Any:
        return self.astype("float64")

    def int(self) -> Any:
        return self.astype("int32")

    def long(self) -> Any:
        return self.astype("int64")

    def bool(self) -> Any:
        return self.astype("bool")

    def reshape(self, *shape: Any) -> Any:
        return ops_module().reshape(self, axes_of(shape))

    def view(self, *shape: Any) -> Any:
        return self.reshape(*shape)

    def transpose(self, *axes: Any) -> Any:
        perm = axes_of(axes)
        if not perm:
            perm = tuple(reversed(range(len(self.shape))))
        return ops_module().transpose(self, perm)

    def permute(self, *axis: Any) -> Any:
        return ops_module().transpose(self, axes_of(axis))

    def squeeze(self, axis: Any = None) -> Any:
        return ops_module().squeeze(self, axis)

    def expand_dims(self, axis: int) -> Any:
        return ops_module().expand_dims(self, axis)

    def unsqueeze(self, dim: int) -> Any:
        return ops_module().expand_dims(self, dim)

    def flatten(self, order: str = "C", *, start_dim: int = 0, end_dim: int = -1) -> Any:
        return ops_module().flatten(self, order, start_dim=start_dim, end_dim=end_dim)

    def broadcast_to(self, shape: Any) -> Any:
        return ops_module().broadcast_to(self, shape)

    def sum(
        self, axis: Any = None, dtype: Any = None, keepdims: bool = False, initial: Any = None
    ) -> Any:
        """MindSpore's `Tensor.sum(axis, dtype, keepdims, initial)`."""
        if isinstance(dtype, bool):  # `x.sum(0, True)`: a keepdims given positionally
            dtype, keepdims = None, dtype
        out = ops_module().sum(self, axis, keepdims, dtype=dtype)
        return out if initial is None else out + initial

    def mean(self, axis: Any = None, keep_dims: bool = False) -> Any:
        return ops_module().mean(self, axis, keep_dims)

    def max(self, axis: Any = None, keepdims: bool = False, **kwargs: Any) -> Any:
        no_extras("max", kwargs)
        return ops_module().amax(self, axis, keepdims)

    def min(self, axis: Any = None, keepdims: bool = False, **kwargs: Any) -> Any:
        no_extras("min", kwargs)
        return ops_module().amin(self, axis, keepdims)

    def all(self, axis: Any = (), keep_dims: bool = False) -> Any:
        return ops_module().reduce_all(self, axis, keep_dims)

    def any(self, axis: Any = (), keep_dims: bool = False) -> Any:
        return ops_module().reduce_any(self, axis, keep_dims)

    def abs(self) -> Any:
        return ops_module().abs(self)

    def neg(self) -> Any:
        return ops_module().neg(self)

    def exp(self) -> Any:
        return ops_module().exp(self)

    def log(self) -> Any:
        return ops_module().log(self)

    def sqrt(self) -> Any:
        return ops_module().sqrt(self)

    def tanh(self) -> Any:
        return ops_module().tanh(self)

    def erf(self) -> Any:
        return ops_module().erf(self)

    def floor(self) -> Any:
        return ops_module().floor(self)

    def ceil(self) -> Any:
        return ops_module().ceil(self)

    def round(self, decimals: int = 0) -> Any:
        return ops_module().round(self, decimals=decimals)

    def sin(self) -> Any:
        return ops_module().sin(self)

    def cos(self) -> Any:
        return ops_module().cos(self)

    def sigmoid(self) -> Any:
        return ops_module().sigmoid(self)

    def square(self) -> Any:
        return ops_module().square(self)

    def pow(self, exponent: Any) -> Any:
        return ops_module().pow(self, exponent)

    def add(self, other: Any) -> Any:
        return ops_module().add(self, other)

    def sub(self, other: Any) -> Any:
        return ops_module().sub(self, other)

    def mul(self, other: Any) -> Any:
        return ops_module().mul(self, other)

    def div(self, other: Any, *, rounding_mode: str | None = None) -> Any:
        return ops_module().div(self, other, rounding_mode=rounding_mode)

    def matmul(self, other: Any) -> Any:
        return ops_module().matmul(self, other)

    def maximum(self, other: Any) -> Any:
        return ops_module().maximum(self, other)

    def minimum(self, other: Any) -> Any:
        return ops_module().minimum(self, other)

    # --- array and statistics methods (frontend/ops/split.py, repeat.py, clip.py,
    # statistics.py) ------------------------------------------------------------------------
    def split(self, split_size_or_sections: Any, axis: int = 0) -> Any:
        return ops_module().split(self, split_size_or_sections, axis)

    def chunk(self, chunks: int, axis: int = 0) -> Any:
        return ops_module().chunk(self, chunks, axis)

    def tile(self, *dims: Any) -> Any:
        return ops_module().tile(self, axes_of(dims))

    def repeat(self, repeats: Any, axis: int | None = None) -> Any:
        """numpy.repeat, as MindSpore's Tensor.repeat."""
        from mindjit.frontend.ops.repeat import repeat  # function-level: ops import Tensor

        return repeat(self, repeats, axis)

    def repeat_interleave(self, repeats: Any, dim: int | None = None) -> Any:
        return ops_module().repeat_interleave(self, repeats, dim)

    def expand(self, *size: Any) -> Any:
        """`x.expand((2, 3))`, `x.expand(2, 3)` or `x.expand(Tensor([2, 3]))`."""
        if len(size) == 1 and hasattr(size[0], "shape"):
            return ops_module().expand(self, size[0])
        return ops_module().expand(self, axes_of(size))

    def expand_as(self, other: Any) -> Any:
        return ops_module().broadcast_to(self, tuple(other.shape))

    def ravel(self) -> Any:
        return ops_module().reshape(self, (-1,))

    def clip(self, min: Any = None, max: Any = None) -> Any:  # noqa: A002
        return ops_module().clip(self, min, max)

    def clamp(self, min: Any = None, max: Any = None) -> Any:  # noqa: A002
        return ops_module().clamp(self, min, max)

    def masked_fill(self, mask: Any, value: Any) -> Any:
        return ops_module().masked_fill(self, mask, value)

    def var(self, axis: Any = None, ddof: Any = 0, keepdims: bool = False) -> Any:
        return ops_module().var(self, axis, ddof, keepdims)

    def std(self, axis: Any = None, ddof: Any = 0, keepdims: bool = False) -> Any:
        return ops_module().std(self, axis, ddof, keepdims)

    def norm(
        self,
        ord: Any = None,  # noqa: A002
        dim: Any = None,
        keepdim: bool = False,
        *,
        dtype: Any = None,
    ) -> Any:
        return ops_module().norm(self, ord, dim, keepdim, dtype=dtype)

    # index reductions, sort and scans (frontend/ops/index_reduce.py ...)
    def argmax(self, axis: Any = None, keepdims: bool = False) -> Any:
        return ops_module().argmax(self, axis, keepdims)

    def argmin(self, axis: Any = None, keepdims: bool = False) -> Any:
        return ops_module().argmin(self, axis, keepdims)

    def sort(self, axis: int = -1, descending: bool = False) -> Any:
        return ops_module().sort(self, axis, descending)

    def topk(self, k: int, dim: Any = None, largest: bool = True, sorted: bool = True) -> Any:  # noqa: A002
        return ops_module().topk(self, k, dim, largest, sorted)

    def cumsum(self, axis: Any = None, dtype: Any = None) -> Any:
        """MindSpore's `Tensor.cumsum(axis=None, dtype=None)`: `axis=None` scans the
        flattened tensor."""
        x = self if axis is not None else self.reshape((-1,))
        return ops_module().cumsum(x, 0 if axis is None else axis, dtype)

    def cumprod(self, dim: int, dtype: Any = None) -> Any:
        return ops_module().cumprod(self, dim, dtype)

    def gather(self, input_indices: Any, axis: Any, batch_dims: int = 0) -> Any:
        return ops_module().gather(self, input_indices, axis, batch_dims)

    def gather_elements(self, dim: int, index: Any) -> Any:
        return ops_module().gather_elements(self, dim, index)

    def gather_nd(self, indices: Any) -> Any:
        return ops_module().gather_nd(self, indices)

    # --- triangles (frontend/ops/creation.py) ---------------------------------------
    def tril(self, diagonal: int = 0) -> Any:
        return ops_module().tril(self, diagonal)

    def triu(self, diagonal: int = 0) -> Any:
        return ops_module().triu(self, diagonal)

    # --- picking and rolling (frontend/ops/array_views.py) ---------------------------
    def index_select(self, axis: int, index: Any) -> Any:
        return ops_module().index_select(self, axis, index)

    def narrow(self, axis: int, start: int, length: int) -> Any:
        return ops_module().narrow(self, axis, start, length)

    def roll(self, shifts: Any, dims: Any = None) -> Any:
        return ops_module().roll(self, shifts, dims)

    # elementwise math and products (frontend/ops/math_functions.py, contract.py)

    def log1p(self) -> Any:
        return ops_module().log1p(self)

    def expm1(self) -> Any:
        return ops_module().expm1(self)

    def log2(self) -> Any:
        return ops_module().log2(self)

    def exp2(self) -> Any:
        return ops_module().exp2(self)

    def tan(self) -> Any:
        return ops_module().tan(self)

    def atan(self) -> Any:
        return ops_module().atan(self)

    def atan2(self, other: Any) -> Any:
        return ops_module().atan2(self, other)

    def asin(self) -> Any:
        return ops_module().asin(self)

    def acos(self) -> Any:
        return ops_module().acos(self)

    def sinh(self) -> Any:
        return ops_module().sinh(self)

    def cosh(self) -> Any:
        return ops_module().cosh(self)

    arctan, arctan2, arcsin, arccos = atan, atan2, asin, acos

    def isnan(self) -> Any:
        return ops_module().isnan(self)

    def isinf(self) -> Any:
        return ops_module().isinf(self)

    def isfinite(self) -> Any:
        return ops_module().isfinite(self)

    def sign(self) -> Any:
        return ops_module().sign(self)

    def nan_to_num(self, nan: float = 0.0, posinf: Any = None, neginf: Any = None) -> Any:
        return ops_module().nan_to_num(self, nan, posinf, neginf)

    def prod(self, axis: Any = None, keep_dims: bool = False, dtype: Any = None) -> Any:
        return ops_module().prod(self, axis, keep_dims, dtype)

    def outer(self, vec2: Any) -> Any:
        return ops_module().outer(self, vec2)
