"""`TensorMethodsInPlace`: Tensor's in-place arithmetic (`add_`, `sub_`, `div_`,
`exp_`, `floor_`, `log_`, `sigmoid_`, `sign_`, `clamp_`, `masked_fill_`, `addmm_`)
and memory methods (`to`, `new_empty`, `contiguous`, `is_contiguous`, `stride`,
`storage_offset`, `data_ptr`), a mixin of TensorOperators.

The in-place methods follow `fill_` (tensor_methods_more.py's `_in_place`): in
PyNative this Tensor takes the new value (cast to its dtype) and is returned; in
a graph a Parameter takes it by ops.assign, and any other value is a TypeError.
(MindSpore 2.10's CPU build has no kernel for most of them, and its add_/sub_/
div_/exp_ there return a new tensor and leave self unchanged; mindjit does what
MindSpore documents.)

The memory methods describe mindjit's own storage, a numpy array per Tensor:
strides in elements (a list, as MindSpore's `stride()`), C-contiguity, the offset
in a viewed array, the address. A value in a graph is contiguous, at offset 0,
and has no address.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindjit.frontend.tensor_method_support import ops_module, size_of


def _c_strides(shape: tuple[int, ...]) -> list[int]:
    strides, step = [], 1
    for d in reversed(shape):
        strides.append(step)
        step *= max(d, 1)
    return list(reversed(strides))


class TensorMethodsInPlace:
    __slots__ = ()

    def _like_self(self, new: Any) -> Any:
        ops = ops_module()
        return new if new.dtype == self.dtype else ops.cast(new, self.dtype)

    # --- in place --------------------------------------------------------------------------
    def add_(self, other: Any, *, alpha: Any = 1) -> Any:
        ops = ops_module()
        step = other if alpha == 1 else ops.mul(other, alpha)
        return self._in_place("add_", self._like_self(ops.add(self, step)))

    def sub_(self, other: Any, *, alpha: Any = 1) -> Any:
        ops = ops_module()
        step = other if alpha == 1 else ops.mul(other, alpha)
        return self._in_place("sub_", self._like_self(ops.sub(self, step)))

    def div_(self, other: Any, *, rounding_mode: Any = None) -> Any:
        new = ops_module().div(self, other, rounding_mode=rounding_mode)
        return self._in_place("div_", self._like_self(new))

    def exp_(self) -> Any:
        return self._in_place("exp_", self._like_self(ops_module().exp(self)))

    def floor_(self) -> Any:
        return self._in_place("floor_", self._like_self(ops_module().floor(self)))

    def log_(self) -> Any:
        return self._in_place("log_", self._like_self(ops_module().log(self)))

    def sigmoid_(self) -> Any:
        return self._in_place("sigmoid_", self._like_self(ops_module().sigmoid(self)))

    def sign_(self) -> Any:
        return self._in_place("sign_", self._like_self(ops_module().sign(self)))

    def clamp_(self, min: Any = None, max: Any = None) -> Any:  # noqa: A002 - MindSpore's names
        return self._in_place("clamp_", self._like_self(ops_module().clamp(self, min, max)))

    def masked_fill_(self, mask: Any, value: Any) -> Any:
        new = ops_module().masked_fill(self, mask, value)
        return self._in_place("masked_fill_", self._like_self(new))

    def addmm_(self, mat1: Any, mat2: Any, *, beta: Any = 1, alpha: Any = 1) -> Any:
        new = ops_module().addmm(self, mat1, mat2, beta=beta, alpha=alpha)
        return self._in_place("addmm_", self._like_self(new))

    # --- conversions and memory ----------------------------------------------------------
    def to(self, dtype: Any = None, non_blocking: bool = False, copy: bool = False) -> Any:
        """`Tensor.to(dtype=None, non_blocking=False, copy=False)`: a new tensor of
        `dtype` (a device name such as 'cpu' keeps the tensor as it is)."""
        if dtype is None or isinstance(dtype, str) and dtype.lower() in ("cpu", "ascend", "npu"):
            return self.copy() if copy and hasattr(self, "copy") else self
        out = ops_module().cast(self, dtype)
        return out.copy() if out is self and hasattr(self, "copy") else out

    def new_empty(self, size: Any, *, dtype: Any = None, device: Any = None) -> Any:
        """`Tensor.new_empty(size, *, dtype=None, device=None)`: a tensor of `size`
        (self's dtype by default) whose values are unspecified: here zeros."""
        shape = size_of(size, "new_empty")
        return ops_module().zeros(shape, self.dtype if dtype is None else dtype)

    def _array(self) -> np.ndarray | None:
        data = getattr(self, "_data", None)
        return data if isinstance(data, np.ndarray) else None

    def contiguous(self) -> Any:
        arr = self._array()
        if arr is None or arr.flags.c_contiguous:
            return self
        return self.copy()  # ndarray.copy is C-ordered

    def is_contiguous(self) -> bool:
        arr = self._array()
        return True if arr is None else bool(arr.flags.c_contiguous)

    def stride(self, dim: Any = None) -> Any:
        """The step in elements along each axis (a list), or along `dim`."""
        arr = self._array()
        if arr is None:
            strides = _c_strides(tuple(self.shape))
        else:
            strides = [s // arr.itemsize for s in arr.strides]
        if dim is None:
            return strides
        if isinstance(dim, bool) or not isinstance(dim, int):
            raise TypeError(f"stride(): argument 'dim' must be int, not {type(dim).__name__}")
        if not -len(strides) <= dim < len(strides):
            raise IndexError(f"Dimension out of range (got {dim}, rank {len(strides)})")
        return strides[dim]

    def storage_offset(self) -> int:
        arr = self._array()
        if arr is None or not isinstance(arr.base, np.ndarray):
            return 0
        start = arr.__array_interface__["data"][0]
        base = arr.base.__array_interface__["data"][0]
        return (start - base) // arr.itemsize

    def data_ptr(self) -> int:
        arr = self._array()
        if arr is None:
            raise TypeError("Tensor.data_ptr: a value in a graph has no address")
        return int(arr.__array_interface__["data"][0])
