"""`TensorOperators`: Python operators and tensor methods for Tensor and GraphValue.

Each operator calls the functional op from `mindjit.frontend.ops`, so `x + 1`
computes eagerly on a Tensor and emits `mindir.add` on a GraphValue, with the
same promotion and checks. Subclasses provide `shape` and `dtype`.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from mindjit.frontend import dtype as D


def _ops() -> Any:
    from mindjit.frontend import ops  # function-level: ops import Tensor, which has these operators

    return ops


def _is_operand(x: Any) -> bool:
    """What `==`/`!=` compare elementwise; anything else is simply unequal."""
    from mindjit.frontend.ops.promotion import is_tensor  # function-level: ops import Tensor

    return is_tensor(x) or isinstance(x, numbers.Number | np.bool_ | np.ndarray | list | tuple)


def _axes(args: tuple[Any, ...]) -> Any:
    """`f(1, 2)`, `f((1, 2))` and `f([1, 2])` alike."""
    if len(args) == 1 and isinstance(args[0], tuple | list):
        return tuple(args[0])
    return tuple(args)


class TensorOperators:
    __slots__ = ()
    # numpy defers `ndarray + tensor` to our reflected methods
    __array_priority__ = 1000

    shape: Any
    dtype: Any

    # --- arithmetic ------------------------------------------------------------------
    def __add__(self, other: Any) -> Any:
        return _ops().add(self, other)

    def __radd__(self, other: Any) -> Any:
        return _ops().add(other, self)

    def __sub__(self, other: Any) -> Any:
        return _ops().sub(self, other)

    def __rsub__(self, other: Any) -> Any:
        return _ops().sub(other, self)

    def __mul__(self, other: Any) -> Any:
        return _ops().mul(self, other)

    def __rmul__(self, other: Any) -> Any:
        return _ops().mul(other, self)

    def __truediv__(self, other: Any) -> Any:
        return _ops().div(self, other)

    def __rtruediv__(self, other: Any) -> Any:
        return _ops().div(other, self)

    def __floordiv__(self, other: Any) -> Any:
        return _ops().floor_divide(self, other)

    def __rfloordiv__(self, other: Any) -> Any:
        return _ops().floor_divide(other, self)

    def __mod__(self, other: Any) -> Any:
        return _ops().remainder(self, other)

    def __rmod__(self, other: Any) -> Any:
        return _ops().remainder(other, self)

    def __pow__(self, other: Any) -> Any:
        return _ops().pow(self, other)

    def __rpow__(self, other: Any) -> Any:
        return _ops().pow(other, self)

    def __matmul__(self, other: Any) -> Any:
        return _ops().matmul(self, other)

    def __rmatmul__(self, other: Any) -> Any:
        return _ops().matmul(other, self)

    def __neg__(self) -> Any:
        return _ops().neg(self)

    def __pos__(self) -> Any:
        return self

    def __abs__(self) -> Any:
        return _ops().abs(self)

    # --- logical (bool tensors) --------------------------------------------------------
    def _logical(self, other: Any, name: str, reflected: bool = False) -> Any:
        from mindjit.frontend.ops.promotion import result_dtype  # function-level: ops import Tensor

        if not result_dtype(self, other).is_bool:
            raise TypeError(
                f"'{name}' is only supported on bool tensors (bitwise ops are not supported)"
            )
        ops = _ops()
        fn = {"&": ops.logical_and, "|": ops.logical_or, "^": ops.logical_xor}[name]
        return fn(other, self) if reflected else fn(self, other)

    def __and__(self, other: Any) -> Any:
        return self._logical(other, "&")

    def __rand__(self, other: Any) -> Any:
        return self._logical(other, "&", True)

    def __or__(self, other: Any) -> Any:
        return self._logical(other, "|")

    def __ror__(self, other: Any) -> Any:
        return self._logical(other, "|", True)

    def __xor__(self, other: Any) -> Any:
        return self._logical(other, "^")

    def __rxor__(self, other: Any) -> Any:
        return self._logical(other, "^", True)

    def __invert__(self) -> Any:
        if not self.dtype.is_bool:
            raise TypeError("'~' is only supported on bool tensors (bitwise not is not supported)")
        return _ops().logical_not(self)

    # --- comparison -------------------------------------------------------------------
    def __lt__(self, other: Any) -> Any:
        return _ops().less(self, other)

    def __le__(self, other: Any) -> Any:
        return _ops().less_equal(self, other)

    def __gt__(self, other: Any) -> Any:
        return _ops().greater(self, other)

    def __ge__(self, other: Any) -> Any:
        return _ops().greater_equal(self, other)

    def __eq__(self, other: Any) -> Any:  # type: ignore[override]
        if not _is_operand(other):
            return False
        return _ops().equal(self, other)

    def __ne__(self, other: Any) -> Any:  # type: ignore[override]
        if not _is_operand(other):
            return True
        return _ops().not_equal(self, other)

    def __hash__(self) -> int:
        return id(self)

    # --- indexing -----------------------------------------------------------------------
    def __getitem__(self, index: Any) -> Any:
        return _ops().getitem(self, index)

    def __iter__(self) -> Any:
        if not self.shape:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self.shape[0]))

    # --- methods --------------------------------------------------------------------------
    @property
    def T(self) -> Any:  # noqa: N802 - numpy's name
        return self.transpose()

    def astype(self, dtype: Any, copy: bool = True) -> Any:
        return _ops().cast(self, dtype)

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
        return _ops().reshape(self, _axes(shape))

    def view(self, *shape: Any) -> Any:
        return self.reshape(*shape)

    def transpose(self, *axes: Any) -> Any:
        perm = _axes(axes)
        if not perm:
            perm = tuple(reversed(range(len(self.shape))))
        return _ops().transpose(self, perm)

    def permute(self, *axis: Any) -> Any:
        return _ops().transpose(self, _axes(axis))

    def squeeze(self, axis: Any = None) -> Any:
        return _ops().squeeze(self, axis)

    def expand_dims(self, axis: int) -> Any:
        return _ops().expand_dims(self, axis)

    def unsqueeze(self, dim: int) -> Any:
        return _ops().expand_dims(self, dim)

    def flatten(self, order: str = "C", *, start_dim: int = 0, end_dim: int = -1) -> Any:
        return _ops().flatten(self, order, start_dim=start_dim, end_dim=end_dim)

    def broadcast_to(self, shape: Any) -> Any:
        return _ops().broadcast_to(self, shape)

    def sum(
        self, axis: Any = None, dtype: Any = None, keepdims: bool = False, initial: Any = None
    ) -> Any:
        """MindSpore's `Tensor.sum(axis, dtype, keepdims, initial)`."""
        if isinstance(dtype, bool):  # `x.sum(0, True)`: a keepdims given positionally
            dtype, keepdims = None, dtype
        out = _ops().sum(self, axis, keepdims, dtype=dtype)
        return out if initial is None else out + initial

    def mean(self, axis: Any = None, keep_dims: bool = False) -> Any:
        return _ops().mean(self, axis, keep_dims)

    def max(self, axis: Any = None, keepdims: bool = False, **kwargs: Any) -> Any:
        _no_extras("max", kwargs)
        return _ops().amax(self, axis, keepdims)

    def min(self, axis: Any = None, keepdims: bool = False, **kwargs: Any) -> Any:
        _no_extras("min", kwargs)
        return _ops().amin(self, axis, keepdims)

    def all(self, axis: Any = (), keep_dims: bool = False) -> Any:
        return _ops().reduce_all(self, axis, keep_dims)

    def any(self, axis: Any = (), keep_dims: bool = False) -> Any:
        return _ops().reduce_any(self, axis, keep_dims)

    def abs(self) -> Any:
        return _ops().abs(self)

    def neg(self) -> Any:
        return _ops().neg(self)

    def exp(self) -> Any:
        return _ops().exp(self)

    def log(self) -> Any:
        return _ops().log(self)

    def sqrt(self) -> Any:
        return _ops().sqrt(self)

    def tanh(self) -> Any:
        return _ops().tanh(self)

    def erf(self) -> Any:
        return _ops().erf(self)

    def floor(self) -> Any:
        return _ops().floor(self)

    def ceil(self) -> Any:
        return _ops().ceil(self)

    def round(self, decimals: int = 0) -> Any:
        return _ops().round(self, decimals=decimals)

    def sin(self) -> Any:
        return _ops().sin(self)

    def cos(self) -> Any:
        return _ops().cos(self)

    def sigmoid(self) -> Any:
        return _ops().sigmoid(self)

    def square(self) -> Any:
        return _ops().square(self)

    def pow(self, exponent: Any) -> Any:
        return _ops().pow(self, exponent)

    def add(self, other: Any) -> Any:
        return _ops().add(self, other)

    def sub(self, other: Any) -> Any:
        return _ops().sub(self, other)

    def mul(self, other: Any) -> Any:
        return _ops().mul(self, other)

    def div(self, other: Any, *, rounding_mode: str | None = None) -> Any:
        return _ops().div(self, other, rounding_mode=rounding_mode)

    def matmul(self, other: Any) -> Any:
        return _ops().matmul(self, other)

    def maximum(self, other: Any) -> Any:
        return _ops().maximum(self, other)

    def minimum(self, other: Any) -> Any:
        return _ops().minimum(self, other)

    # --- array and statistics methods (frontend/ops/split.py, repeat.py, clip.py,
    # statistics.py) ------------------------------------------------------------------------
    def split(self, split_size_or_sections: Any, axis: int = 0) -> Any:
        return _ops().split(self, split_size_or_sections, axis)

    def chunk(self, chunks: int, axis: int = 0) -> Any:
        return _ops().chunk(self, chunks, axis)

    def tile(self, *dims: Any) -> Any:
        return _ops().tile(self, _axes(dims))

    def repeat(self, repeats: Any, axis: int | None = None) -> Any:
        """numpy.repeat, as MindSpore's Tensor.repeat."""
        from mindjit.frontend.ops.repeat import repeat  # function-level: ops import Tensor

        return repeat(self, repeats, axis)

    def repeat_interleave(self, repeats: Any, dim: int | None = None) -> Any:
        return _ops().repeat_interleave(self, repeats, dim)

    def expand(self, *size: Any) -> Any:
        """`x.expand((2, 3))`, `x.expand(2, 3)` or `x.expand(Tensor([2, 3]))`."""
        if len(size) == 1 and hasattr(size[0], "shape"):
            return _ops().expand(self, size[0])
        return _ops().expand(self, _axes(size))

    def expand_as(self, other: Any) -> Any:
        return _ops().broadcast_to(self, tuple(other.shape))

    def ravel(self) -> Any:
        return _ops().reshape(self, (-1,))

    def clip(self, min: Any = None, max: Any = None) -> Any:  # noqa: A002
        return _ops().clip(self, min, max)

    def clamp(self, min: Any = None, max: Any = None) -> Any:  # noqa: A002
        return _ops().clamp(self, min, max)

    def masked_fill(self, mask: Any, value: Any) -> Any:
        return _ops().masked_fill(self, mask, value)

    def var(self, axis: Any = None, ddof: Any = 0, keepdims: bool = False) -> Any:
        return _ops().var(self, axis, ddof, keepdims)

    def std(self, axis: Any = None, ddof: Any = 0, keepdims: bool = False) -> Any:
        return _ops().std(self, axis, ddof, keepdims)

    def norm(
        self,
        ord: Any = None,  # noqa: A002
        dim: Any = None,
        keepdim: bool = False,
        *,
        dtype: Any = None,
    ) -> Any:
        return _ops().norm(self, ord, dim, keepdim, dtype=dtype)

    # index reductions, sort and scans (frontend/ops/index_reduce.py ...)
    def argmax(self, axis: Any = None, keepdims: bool = False) -> Any:
        return _ops().argmax(self, axis, keepdims)

    def argmin(self, axis: Any = None, keepdims: bool = False) -> Any:
        return _ops().argmin(self, axis, keepdims)

    def sort(self, axis: int = -1, descending: bool = False) -> Any:
        return _ops().sort(self, axis, descending)

    def topk(self, k: int, dim: Any = None, largest: bool = True, sorted: bool = True) -> Any:  # noqa: A002
        return _ops().topk(self, k, dim, largest, sorted)

    def cumsum(self, axis: Any = None, dtype: Any = None) -> Any:
        """MindSpore's `Tensor.cumsum(axis=None, dtype=None)`: `axis=None` scans the
        flattened tensor."""
        x = self if axis is not None else self.reshape((-1,))
        return _ops().cumsum(x, 0 if axis is None else axis, dtype)

    def cumprod(self, dim: int, dtype: Any = None) -> Any:
        return _ops().cumprod(self, dim, dtype)

    def gather(self, input_indices: Any, axis: Any, batch_dims: int = 0) -> Any:
        return _ops().gather(self, input_indices, axis, batch_dims)

    def gather_elements(self, dim: int, index: Any) -> Any:
        return _ops().gather_elements(self, dim, index)

    def gather_nd(self, indices: Any) -> Any:
        return _ops().gather_nd(self, indices)

    # --- triangles (frontend/ops/creation.py) ---------------------------------------
    def tril(self, diagonal: int = 0) -> Any:
        return _ops().tril(self, diagonal)

    def triu(self, diagonal: int = 0) -> Any:
        return _ops().triu(self, diagonal)

    # --- picking and rolling (frontend/ops/array_views.py) ---------------------------
    def index_select(self, axis: int, index: Any) -> Any:
        return _ops().index_select(self, axis, index)

    def narrow(self, axis: int, start: int, length: int) -> Any:
        return _ops().narrow(self, axis, start, length)

    def roll(self, shifts: Any, dims: Any = None) -> Any:
        return _ops().roll(self, shifts, dims)

    # elementwise math and products (frontend/ops/math_functions.py, contract.py)

    def log1p(self) -> Any:
        return _ops().log1p(self)

    def expm1(self) -> Any:
        return _ops().expm1(self)

    def log2(self) -> Any:
        return _ops().log2(self)

    def exp2(self) -> Any:
        return _ops().exp2(self)

    def tan(self) -> Any:
        return _ops().tan(self)

    def atan(self) -> Any:
        return _ops().atan(self)

    def atan2(self, other: Any) -> Any:
        return _ops().atan2(self, other)

    def asin(self) -> Any:
        return _ops().asin(self)

    def acos(self) -> Any:
        return _ops().acos(self)

    def sinh(self) -> Any:
        return _ops().sinh(self)

    def cosh(self) -> Any:
        return _ops().cosh(self)

    arctan, arctan2, arcsin, arccos = atan, atan2, asin, acos

    def isnan(self) -> Any:
        return _ops().isnan(self)

    def isinf(self) -> Any:
        return _ops().isinf(self)

    def isfinite(self) -> Any:
        return _ops().isfinite(self)

    def sign(self) -> Any:
        return _ops().sign(self)

    def nan_to_num(self, nan: float = 0.0, posinf: Any = None, neginf: Any = None) -> Any:
        return _ops().nan_to_num(self, nan, posinf, neginf)

    def prod(self, axis: Any = None, keep_dims: bool = False, dtype: Any = None) -> Any:
        return _ops().prod(self, axis, keep_dims, dtype)

    def outer(self, vec2: Any) -> Any:
        return _ops().outer(self, vec2)

    # --- MindSpore 2.10's other Tensor methods (frontend/ops/axes.py, math_extras.py ...)
    def swapaxes(self, axis0: int, axis1: int) -> Any:
        return _ops().swapaxes(self, axis0, axis1)

    def swapdims(self, dim0: int, dim1: int) -> Any:
        return _ops().swapaxes(self, dim0, dim1)

    def moveaxis(self, source: Any, destination: Any) -> Any:
        return _ops().moveaxis(self, source, destination)

    def movedim(self, source: Any, destination: Any) -> Any:
        return _ops().moveaxis(self, source, destination)

    def t(self) -> Any:
        return _ops().t(self)

    @property
    def mT(self) -> Any:  # noqa: N802 - MindSpore's name
        from mindjit.frontend.ops.axes import matrix_transpose  # function-level: ops import Tensor

        return matrix_transpose(self)

    mH = mT  # (real tensors: the conjugate transpose is the transpose)

    def diagonal(self, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Any:
        return _ops().diagonal(self, offset, axis1, axis2)

    def trace(self, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype: Any = None) -> Any:
        """numpy's trace: integer tensors are summed in int64 (`ops.trace` keeps the dtype)."""
        from mindjit.frontend.ops.axes import tensor_trace  # function-level: ops import Tensor

        return tensor_trace(self, offset, axis1, axis2, dtype)

    def argsort(
        self, axis: int = -1, descending: bool = False, *, dim: Any = None, stable: bool = False
    ) -> Any:
        """`x.argsort(axis=-1, descending=False)` or `x.argsort(dim=..., stable=...)`: the
        int32 indices (always a stable sort)."""
        return _ops().argsort(self, axis if dim is None else dim, descending)

    def msort(self) -> Any:
        return _ops().sort(self, 0)[0]

    def top_k(self, k: int, sorted: bool = True) -> Any:  # noqa: A002
        return _ops().topk(self, k, None, True, sorted)

    def softmax(self, axis: int, dtype: Any = None) -> Any:
        """`x.softmax(axis, dtype=None)`: `axis` is required (MindSpore's Tensor method)."""
        if not self.dtype.is_float:
            raise TypeError(
                "For primitive[Softmax], the input argument[x] must be a type of {Float16, "
                f"Float32, Float64}}, but got {self.dtype}."
            )
        return _ops().softmax(self, axis, dtype=dtype)

    def logsumexp(self, dim: Any, keepdim: bool = False) -> Any:
        if not self.dtype.is_float:
            raise TypeError(
                f"For 'logsumexp', the input must be a float tensor, but got {self.dtype}"
            )
        return _ops().logsumexp(self, dim, keepdim)

    def amax(self, axis: Any = None, keepdims: bool = False, **kwargs: Any) -> Any:
        _no_extras("amax", kwargs)
        return _ops().amax(self, axis, keepdims)

    def amin(self, axis: Any = None, keepdims: bool = False, **kwargs: Any) -> Any:
        _no_extras("amin", kwargs)
        return _ops().amin(self, axis, keepdims)

    def ptp(self, axis: Any = None, keepdims: bool = False) -> Any:
        ops = _ops()
        return ops.amax(self, axis, keepdims) - ops.amin(self, axis, keepdims)

    def count_nonzero(self, axis: Any = (), keep_dims: bool = False, dtype: Any = None) -> Any:
        ops = _ops()
        return ops.count_nonzero(self, axis, keep_dims, dtype or "int32")

    def new_ones(self, size: Any, dtype: Any = None) -> Any:
        return _ops().fill(dtype or self.dtype, _size(size, "new_ones"), 1)

    def new_zeros(self, size: Any, dtype: Any = None) -> Any:
        return _ops().fill(dtype or self.dtype, _size(size, "new_zeros"), 0)

    def new_full(self, size: Any, fill_value: Any, *, dtype: Any = None) -> Any:
        return _ops().fill(dtype or self.dtype, _size(size, "new_full"), fill_value)

    def fill(self, value: Any) -> Any:
        """A tensor of this shape and dtype filled with `value` (not in place)."""
        return _ops().full_like(self, value)

    def type(self, dtype: Any = None) -> Any:
        """Without `dtype`, the dtype's name (`'Float32'`); with one, the tensor cast."""
        if dtype is None:
            return str(self.dtype)
        return self.astype(_cast_target(dtype))

    def type_as(self, other: Any) -> Any:
        return self.astype(other.dtype)

    def view_as(self, other: Any) -> Any:
        return self.reshape(tuple(other.shape))

    def reshape_as(self, other: Any) -> Any:
        return self.reshape(tuple(other.shape))

    def flip(self, dims: Any) -> Any:
        if not isinstance(dims, tuple | list):
            raise TypeError(f"Tensor.flip: 'dims' must be a tuple or list of ints, got {dims!r}")
        return _ops().flip(self, dims)

    def fliplr(self) -> Any:
        return _ops().flip(self, (1,))

    def flipud(self) -> Any:
        return _ops().flip(self, (0,))

    def where(self, condition: Any, y: Any) -> Any:
        """`x.where(condition, y)`: x where condition, else y."""
        return _ops().where(condition, self, y)

    def isclose(
        self, other: Any, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False
    ) -> Any:
        return _ops().isclose(self, other, rtol, atol, equal_nan)

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
        return _ops().unstack(self, dim)

    def take(self, indices: Any) -> Any:
        """The elements of the flattened tensor at `indices` (in the indices' shape)."""
        return _ops().gather(self.reshape((-1,)), indices, 0)

    def short(self) -> Any:
        return self.astype("int16")

    def byte(self) -> Any:
        return self.astype("uint8")

    # comparisons and arithmetic under their function names
    def eq(self, other: Any) -> Any:
        return _ops().equal(self, other)

    def ne(self, other: Any) -> Any:
        return _ops().not_equal(self, other)

    def gt(self, other: Any) -> Any:
        return _ops().greater(self, other)

    def ge(self, other: Any) -> Any:
        return _ops().greater_equal(self, other)

    def lt(self, other: Any) -> Any:
        return _ops().less(self, other)

    def le(self, other: Any) -> Any:
        return _ops().less_equal(self, other)

    equal, not_equal, greater, greater_equal, less, less_equal = eq, ne, gt, ge, lt, le

    def logical_and(self, other: Any) -> Any:
        return _ops().logical_and(self, other)

    def logical_or(self, other: Any) -> Any:
        return _ops().logical_or(self, other)

    def logical_xor(self, other: Any) -> Any:
        return _ops().logical_xor(self, other)

    def logical_not(self) -> Any:
        return _ops().logical_not(self)

    def subtract(self, other: Any, *, alpha: Any = 1) -> Any:
        return _ops().sub(self, other if alpha == 1 else other * alpha)

    def multiply(self, value: Any) -> Any:
        return _ops().mul(self, value)

    def divide(self, other: Any, *, rounding_mode: str | None = None) -> Any:
        return _ops().div(self, other, rounding_mode=rounding_mode)

    def true_divide(self, other: Any) -> Any:
        return _ops().div(self, other)

    def floor_divide(self, other: Any) -> Any:
        return _ops().floor_divide(self, other)

    def remainder(self, other: Any) -> Any:
        return _ops().remainder(self, other)

    def fmod(self, other: Any) -> Any:
        return _ops().fmod(self, other)

    def float_power(self, other: Any) -> Any:
        return _ops().float_power(self, other)

    def hypot(self, other: Any) -> Any:
        return _ops().hypot(self, other)

    def logaddexp(self, other: Any) -> Any:
        return _ops().logaddexp(self, other)

    def logaddexp2(self, other: Any) -> Any:
        return _ops().logaddexp2(self, other)

    def xlogy(self, other: Any) -> Any:
        return _ops().xlogy(self, other)

    def lerp(self, end: Any, weight: Any) -> Any:
        return _ops().lerp(self, end, weight)

    def addcmul(self, tensor1: Any, tensor2: Any, value: Any = 1) -> Any:
        return _ops().addcmul(self, tensor1, tensor2, value)

    def addcdiv(self, tensor1: Any, tensor2: Any, value: Any = 1) -> Any:
        return _ops().addcdiv(self, tensor1, tensor2, value)

    def absolute(self) -> Any:
        return _ops().abs(self)

    def negative(self) -> Any:
        return _ops().neg(self)

    def positive(self) -> Any:
        return _ops().positive(self)

    def reciprocal(self) -> Any:
        return _ops().reciprocal(self)

    def rsqrt(self) -> Any:
        return _ops().rsqrt(self)

    def log10(self) -> Any:
        return _ops().log10(self)

    def trunc(self) -> Any:
        return _ops().trunc(self)

    def frac(self) -> Any:
        return _ops().frac(self)

    def sgn(self) -> Any:
        return _ops().sign(self)

    def logit(self, eps: Any = None) -> Any:
        return _ops().logit(self, eps)

    def sinc(self) -> Any:
        return _ops().sinc(self)

    def deg2rad(self) -> Any:
        return _ops().deg2rad(self)

    def rad2deg(self) -> Any:
        return _ops().rad2deg(self)

    def asinh(self) -> Any:
        return _ops().asinh(self)

    def acosh(self) -> Any:
        return _ops().acosh(self)

    def atanh(self) -> Any:
        return _ops().atanh(self)

    arcsinh, arccosh, arctanh = asinh, acosh, atanh

    def lgamma(self) -> Any:
        return _ops().lgamma(self)

    def mm(self, mat2: Any) -> Any:
        return _ops().matmul(self, mat2)

    def bmm(self, mat2: Any) -> Any:
        return _ops().bmm(self, mat2)

    def ger(self, vec2: Any) -> Any:
        return _ops().outer(self, vec2)

    def nonzero(self, *, as_tuple: bool = False) -> Any:
        return _ops().nonzero(self, as_tuple=as_tuple)

    def argwhere(self) -> Any:
        return _ops().nonzero(self)

    # --- in place (PyNative: this Tensor takes the new value, as MindSpore's does) ---
    def _in_place(self, name: str, new: Any) -> Any:
        set_value = getattr(self, "_set_value", None)
        if set_value is None:
            raise TypeError(
                f"Tensor.{name} changes a tensor in place, which mindjit supports in "
                f"PyNative mode only; in a graph use the out-of-place form"
            )
        set_value(new)
        return self

    def fill_(self, value: Any) -> Any:
        return self._in_place("fill_", _ops().full_like(self, value))

    def zero_(self) -> Any:
        return self._in_place("zero_", _ops().zeros_like(self))

    def copy_(self, src: Any) -> Any:
        ops = _ops()
        return self._in_place("copy_", ops.broadcast_to(ops.cast(src, self.dtype), self.shape))

    # --- NaN-aware and sign math (frontend/ops/elementwise_nan.py)
    def fmax(self, other: Any) -> Any:
        return _ops().fmax(self, other)

    def fmin(self, other: Any) -> Any:
        return _ops().fmin(self, other)

    def copysign(self, other: Any) -> Any:
        return _ops().copysign(self, other)

    def heaviside(self, values: Any) -> Any:
        return _ops().heaviside(self, values)

    def signbit(self) -> Any:
        return _ops().signbit(self)

    def erfc(self) -> Any:
        return _ops().erfc(self)

    def xdivy(self, y: Any) -> Any:
        return _ops().xdivy(self, y)

    def nanmean(self, axis: Any = None, keepdims: bool = False, *, dtype: Any = None) -> Any:
        return _ops().nanmean(self, axis, keepdims, dtype=dtype)

    def nansum(self, axis: Any = None, keepdims: bool = False, *, dtype: Any = None) -> Any:
        return _ops().nansum(self, axis, keepdims, dtype=dtype)

    # --- running extrema and order statistics (frontend/ops/cumulative.py)
    def cummax(self, axis: int) -> Any:
        return _ops().cummax(self, axis)

    def cummin(self, axis: int) -> Any:
        return _ops().cummin(self, axis)

    def median(self, axis: int = -1, keepdims: bool = False) -> Any:
        return _ops().median(self, axis, keepdims)

    def nanmedian(self, axis: int = -1, keepdims: bool = False) -> Any:
        return _ops().nanmedian(self, axis, keepdims)

    def aminmax(self, *, axis: int = 0, keepdims: bool = False) -> Any:
        return _ops().aminmax(self, axis=axis, keepdims=keepdims)

    def argmax_with_value(self, axis: int = 0, keep_dims: bool = False) -> Any:
        """(the maximum values, their int64 indices), as MindSpore 2.10's method returns them."""
        from mindjit.frontend.ops import cumulative  # function-level: ops import Tensor

        return cumulative.argmax_with_value(self, axis, keep_dims)

    def argmin_with_value(self, axis: int = 0, keep_dims: bool = False) -> Any:
        from mindjit.frontend.ops import cumulative  # function-level: ops import Tensor

        return cumulative.argmin_with_value(self, axis, keep_dims)

    # --- products (frontend/ops/products.py)
    def cross(self, other: Any, dim: Any = None) -> Any:
        return _ops().cross(self, other, dim)

    def inner(self, other: Any) -> Any:
        return _ops().inner(self, other)

    # --- writes into slices and index sets (frontend/ops/scatter_slices.py)
    def index_fill(self, axis: Any, index: Any, value: Any) -> Any:
        return _ops().index_fill(self, axis, index, value)

    def index_add(
        self, indices: Any, y: Any, axis: int, use_lock: bool = True, check_index_bound: bool = True
    ) -> Any:
        return _ops().index_add(self, indices, y, axis, use_lock, check_index_bound)

    def select_scatter(self, src: Any, axis: int, index: int) -> Any:
        return _ops().select_scatter(self, src, axis, index)

    def slice_scatter(
        self, src: Any, axis: int = 0, start: Any = None, end: Any = None, step: int = 1
    ) -> Any:
        return _ops().slice_scatter(self, src, axis, start, end, step)

    def masked_select(self, mask: Any) -> Any:
        return _ops().masked_select(self, mask)

    # --- binning and covariance (frontend/ops/binning.py, distances.py)
    def searchsorted(self, v: Any, side: str = "left", sorter: Any = None) -> Any:
        """int32 positions (MindSpore 2.10's method; `ops.searchsorted` gives int64)."""
        return _ops().searchsorted(self, v, out_int32=True, side=side, sorter=sorter)

    def histc(self, bins: int = 100, min: float = 0.0, max: float = 0.0) -> Any:  # noqa: A002
        return _ops().histc(self, bins, min, max)

    def cov(self, *, correction: int = 1, fweights: Any = None, aweights: Any = None) -> Any:
        return _ops().cov(self, correction=correction, fweights=fweights, aweights=aweights)

    # --- more products and diagonals (frontend/ops/matrix_products.py, linear.py, diagonals.py)
    def addr(self, vec1: Any, vec2: Any, beta: Any = 1, alpha: Any = 1) -> Any:
        return _ops().addr(self, vec1, vec2, beta=beta, alpha=alpha)

    def addmm(self, mat1: Any, mat2: Any, *, beta: Any = 1, alpha: Any = 1) -> Any:
        return _ops().addmm(self, mat1, mat2, beta=beta, alpha=alpha)

    def addbmm(self, batch1: Any, batch2: Any, *, beta: Any = 1, alpha: Any = 1) -> Any:
        return _ops().addbmm(self, batch1, batch2, beta=beta, alpha=alpha)

    def baddbmm(self, batch1: Any, batch2: Any, *, beta: Any = 1, alpha: Any = 1) -> Any:
        return _ops().baddbmm(self, batch1, batch2, beta, alpha)

    def diagflat(self, offset: int = 0) -> Any:
        return _ops().diagflat(self, offset)

    def isneginf(self) -> Any:
        return _ops().isneginf(self)

    def isposinf(self) -> Any:
        return _ops().isposinf(self)

    def isreal(self) -> Any:
        return _ops().isreal(self)

    def logcumsumexp(self, axis: int) -> Any:
        return _ops().logcumsumexp(self, axis)

    # --- value-shaped and other names (frontend/ops/value_shapes_more.py, other_names.py)
    def bincount(self, weights: Any = None, minlength: int = 0) -> Any:
        return _ops().bincount(self, weights, minlength)

    def unique_consecutive(
        self, return_inverse: bool = False, return_counts: bool = False, dim: Any = None
    ) -> Any:
        return _ops().unique_consecutive(self, return_inverse, return_counts, dim)

    def soft_shrink(self, lambd: float = 0.5) -> Any:
        return _ops().soft_shrink(self, lambd)

    def hardshrink(self, lambd: float = 0.5) -> Any:
        return _ops().hardshrink(self, lambd)

    def matrix_power(self, n: int) -> Any:
        return _ops().matrix_power(self, n)

    def reverse(self, axis: Any) -> Any:
        return _ops().reverse(self, axis)

    def sum_to_size(self, *size: Any) -> Any:
        """The sum over the axes that `size` (trailing-aligned) has as 1 or lacks,
        to `size`'s shape: `x.sum_to_size(1, 3)` or `x.sum_to_size((1, 3))`."""
        target = _axes(size)
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
        out = _ops().reduce_sum(self, tuple(ones), True) if ones else self
        return _ops().reduce_sum(out, tuple(range(lead))) if lead else out

    def diagonal_scatter(self, src: Any, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Any:
        return _ops().diagonal_scatter(self, src, offset, dim1, dim2)

    def renorm(self, p: int, axis: int, maxnorm: float) -> Any:
        return _ops().renorm(self, p, axis, maxnorm)

    # --- splitting and rearranging (frontend/ops/stacking.py)
    def tensor_split(self, indices_or_sections: Any, axis: int = 0) -> Any:
        return _ops().tensor_split(self, indices_or_sections, axis)

    def hsplit(self, indices_or_sections: Any) -> Any:
        return _ops().hsplit(self, indices_or_sections)

    def vsplit(self, indices_or_sections: Any) -> Any:
        return _ops().vsplit(self, indices_or_sections)

    def dsplit(self, indices_or_sections: Any) -> Any:
        return _ops().dsplit(self, indices_or_sections)

    def rot90(self, k: int, dims: Any) -> Any:
        return _ops().rot90(self, k, dims)

    def diff(self, n: int = 1, axis: int = -1, prepend: Any = None, append: Any = None) -> Any:
        return _ops().diff(self, n, axis, prepend, append)


def _no_extras(name: str, kwargs: dict[str, Any]) -> None:
    extra = {k: v for k, v in kwargs.items() if v not in (None, False)}
    if extra:
        raise NotImplementedError(f"Tensor.{name}: {', '.join(extra)} are not supported")


def _size(size: Any, name: str) -> tuple[int, ...]:
    """`new_ones(3)` or `new_ones((2, 3))`, as MindSpore takes the size."""
    if isinstance(size, int) and not isinstance(size, bool):
        return (size,)
    if isinstance(size, tuple | list) and all(
        isinstance(d, int) and not isinstance(d, bool) for d in size
    ):
        return tuple(size)
    raise TypeError(
        f"{name}(): argument 'size' (position 1) must be tuple of int, not {type(size).__name__}."
    )


def _cast_target(dtype: Any) -> Any:
    """What `Tensor.type(dtype)` casts to: a dtype or its name; anything else is the
    TypeError MindSpore's astype raises."""
    try:
        return D.to_dtype(dtype)
    except (TypeError, ValueError, KeyError):
        raise TypeError(
            "For Tensor.astype, the input type must be one of [mindspore.int8, mindspore.int16, "
            "mindspore.int32, mindspore.int64, mindspore.uint8, mindspore.uint16, mindspore.uint32, "
            f"mindspore.uint64, mindspore.float16, mindspore.float32, mindspore.float64, "
            f"mindspore.bool_], but got {dtype!r}."
        ) from None
