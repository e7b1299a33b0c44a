"""`Tensor` and `Parameter`: numpy-backed tensors with MindSpore 2.x behaviour.

Dtype inference follows MindSpore: Python ints -> int64, floats -> float32,
bools -> bool; numpy arrays keep their dtype (float64 stays float64); lists of
Python floats are float32. `str(t)` is numpy's text (what `print(t)` shows in
PyNative mode), `repr(t)` is MindSpore's `Tensor(shape=[3], dtype=Int64, value= [1, 2, 3])`.

Operators and methods come from `TensorOperators` and run through the ops, so a
Tensor behaves exactly like a graph value does in a compiled graph.
"""

from __future__ import annotations

import itertools
import numbers
from typing import Any

import numpy as np

from mindjit.frontend import dtype as D
from mindjit.frontend.printing import format_repr
from mindjit.frontend.tensor_operators import TensorOperators


def _infer_array(data: Any) -> np.ndarray:
    """The array of `Tensor(data)` with MindSpore's default dtype rules."""
    if isinstance(data, Tensor):
        return data.asnumpy().copy()
    if isinstance(data, np.ndarray | np.generic):
        return np.array(data)
    if isinstance(data, bool):
        return np.array(data, dtype=np.bool_)
    if isinstance(data, numbers.Integral):
        return np.array(int(data), dtype=np.int64)
    if isinstance(data, numbers.Real):
        return np.array(float(data), dtype=np.float32)
    if isinstance(data, list | tuple):
        arr = np.array(data)
        if arr.dtype == np.float64 and not _has_numpy_float64(data):
            arr = arr.astype(np.float32)
        elif arr.dtype.kind in "iu" and arr.dtype != np.int64 and not _has_numpy(data):
            arr = arr.astype(np.int64)
        elif arr.dtype == object or arr.dtype.kind in "USc":
            raise TypeError(f"Tensor data must be numbers, got {arr.dtype} elements")
        return arr
    raise TypeError(
        "Tensor input_data must be a Tensor, numpy array, number, list or tuple, "
        f"got {type(data).__name__}"
    )


def _leaves(data: Any) -> Any:
    if isinstance(data, list | tuple):
        for d in data:
            yield from _leaves(d)
    else:
        yield data


def _has_numpy(data: Any) -> bool:
    return any(isinstance(x, np.ndarray | np.generic | Tensor) for x in _leaves(data))


def _has_numpy_float64(data: Any) -> bool:
    """Lists holding float64 arrays keep float64; Python floats become float32."""
    for x in _leaves(data):
        if isinstance(x, np.ndarray | np.generic) and x.dtype == np.float64:
            return True
        if isinstance(x, Tensor) and x.dtype == D.float64:
            return True
    return False


class Tensor(TensorOperators):
    """A tensor holding a numpy array (`Tensor(data, dtype=None)`)."""

    _data: np.ndarray

    def __init__(
        self,
        input_data: Any = None,
        dtype: Any = None,
        shape: Any = None,
        init: Any = None,
        const_arg: bool = False,
    ):
        if input_data is None:
            if shape is None:
                raise ValueError("Tensor needs input_data, or a shape (and dtype)")
            dims = (shape,) if isinstance(shape, int) else tuple(shape)
            fill = 1 if init in ("ones", "One") else 0
            if init not in (None, "zeros", "Zero", "ones", "One"):
                raise ValueError(f"Tensor init {init!r} is not supported (zeros or ones)")
            target = D.to_dtype(dtype) if dtype is not None else D.float32
            arr = np.full(dims, fill, dtype=target.numpy)
        else:
            arr = _infer_array(input_data)
            if dtype is not None:
                arr = arr.astype(D.to_dtype(dtype).numpy)
            else:
                D.from_numpy(arr.dtype)  # reject unsupported dtypes early
            if shape is not None and tuple(arr.shape) != tuple(shape):
                raise ValueError(f"Tensor data has shape {arr.shape}, not {tuple(shape)}")
        self._data = arr
        self.const_arg = const_arg

    @classmethod
    def _wrap(cls, arr: np.ndarray) -> Tensor:
        """A Tensor around `arr` itself (no copy, no checks): the ops' results."""
        t = object.__new__(Tensor)
        t._data = arr if isinstance(arr, np.ndarray) else np.asarray(arr)
        t.const_arg = False
        return t

    @staticmethod
    def from_numpy(array: np.ndarray) -> Tensor:
        """`Tensor.from_numpy(array)`: a Tensor on the array's own memory, as in
        MindSpore (a C-contiguous copy when the array is not contiguous)."""
        if not isinstance(array, np.ndarray):
            raise TypeError(
                "For 'Tensor.from_numpy', the input must be a numpy.ndarray, "
                f"but got {type(array).__name__}"
            )
        D.from_numpy(array.dtype)  # reject unsupported dtypes
        return Tensor._wrap(array if array.flags.c_contiguous else np.ascontiguousarray(array))

    # --- facts -------------------------------------------------------------------------
    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self._data.shape)

    @property
    def dtype(self) -> D.DType:
        return D.from_numpy(self._data.dtype)

    @property
    def ndim(self) -> int:
        return self._data.ndim

    @property
    def size(self) -> int:
        return int(self._data.size)

    @property
    def itemsize(self) -> int:
        return self._data.itemsize

    @property
    def nbytes(self) -> int:
        return self._data.nbytes

    def dim(self) -> int:
        return self._data.ndim

    # --- numpy ---------------------------------------------------------------------------
    def asnumpy(self) -> np.ndarray:
        """The array itself (shares memory, like MindSpore's `asnumpy`)."""
        return self._data

    def numpy(self) -> np.ndarray:
        return self._data

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        if dtype is not None and np.dtype(dtype) != self._data.dtype:
            return self._data.astype(dtype)
        return self._data.copy() if copy else self._data

    def tolist(self) -> Any:
        return self._data.tolist()

    def item(self, index: Any = None) -> Any:
        if index is not None:
            return self._data.item(index)
        if self._data.size != 1:
            raise ValueError(
                f"only a tensor with one element can be converted to a Python scalar, "
                f"got shape {self.shape}"
            )
        return self._data.item()

    def copy(self) -> Tensor:
        return Tensor._wrap(self._data.copy())

    def __getitem__(self, index: Any) -> Any:
        out = TensorOperators.__getitem__(self, index)
        if out is not self and isinstance(out, Tensor):  # (a value in a graph has no parent)
            # as MindSpore's Tensor: `x[0][1] = v` (and `y = x[0]; y[1] = v`) writes
            # through to x
            out._parent = (self, index)
        return out

    def __setitem__(self, index: Any, value: Any) -> None:
        # PyNative: this Tensor object takes the new value, as MindSpore's does;
        # graph mode rebinds the name instead (frontend/graph/tensor_items.py)
        from mindjit.frontend.ops.advanced_indexing import (
            setitem,
        )  # function-level: ops import Tensor

        self._set_value(setitem(self, index, value))

    def _set_value(self, new: Any) -> None:
        """`x[i] = v` in PyNative mode: this Tensor takes the new value (a new array),
        and the tensor it was read from (`x[0][1] = v`) takes it at its index."""
        from mindjit.frontend.grad_tape import active_tape  # function-level: it imports Tensor

        if new is self:  # nothing selected (an all-False mask): no new value, the tape as is
            return
        tape = active_tape()
        if tape is not None:
            tape.rebind(self, Tensor._wrap(self._data), new)
        self._data = np.asarray(new.asnumpy(), dtype=self._data.dtype)
        parent = self.__dict__.get("_parent")
        if parent is not None:
            parent[0][parent[1]] = self

    def init_data(self) -> Tensor:
        return self

    # --- Python protocols --------------------------------------------------------------------
    def __len__(self) -> int:
        if not self._data.shape:
            raise TypeError("Not support len of a 0-D tensor")
        return self._data.shape[0]

    def __bool__(self) -> bool:
        if self._data.size != 1:
            raise ValueError("The truth value of a Tensor with more than one element is ambiguous")
        return bool(self._data.reshape(-1)[0])

    def __int__(self) -> int:
        return int(self.item())

    def __float__(self) -> float:
        return float(self.item())

    def __index__(self) -> int:
        if self._data.dtype.kind not in "iub" or self._data.size != 1:
            raise TypeError("only integer tensors of one element can be converted to an index")
        return int(self.item())

    def __format__(self, spec: str) -> str:
        if spec and self._data.size == 1:
            return format(self.item(), spec)
        return format(str(self), spec)

    def __str__(self) -> str:
        return str(self._data)

    def __repr__(self) -> str:

        return format_repr(self._data)

    __hash__ = TensorOperators.__hash__


def tensor(input_data: Any = None, dtype: Any = None, **kwargs: Any) -> Tensor:
    """`ms.tensor(data, dtype)`: the function spelling of `Tensor(...)`."""
    return Tensor(input_data, dtype, **kwargs)


# --- Parameter -----------------------------------------------------------------------------

_AUTO_NAMES = itertools.count(1)


class Parameter(Tensor):
    """A named, mutable tensor owned by a network (`mindir.parameter` in graphs).

    `name=None` gives a unique `Parameter_N`; assigning the Parameter to a Cell
    attribute renames it to the attribute path (`w`, `fc.weight`), as MindSpore does.
    """

    def __init__(
        self,
        default_input: Any,
        name: str | None = None,
        requires_grad: bool = True,
        layerwise_parallel: bool = False,
        parallel_optimizer: bool = True,
    ):
        super().__init__(default_input)
        self._name = ""
        self.auto_named = True
        self.name = name  # type: ignore[assignment]
        self.requires_grad = bool(requires_grad)
        self.layerwise_parallel = layerwise_parallel
        self.parallel_optimizer = parallel_optimizer

    @property
    def name(self) -> str:
        return self._name

    @name.setter
    def name(self, value: str | None) -> None:
        if value is None:
            self._name = f"Parameter_{next(_AUTO_NAMES)}"
            self.auto_named = True
            return
        if not isinstance(value, str) or not value:
            raise ValueError(f"Parameter name must be a non-empty str, got {value!r}")
        self._name = value
        self.auto_named = False

    def _rename(self, name: str) -> None:
        """Renaming by the Cell that owns the Parameter (keeps `auto_named`)."""
        self._name = name

    @property
    def data(self) -> Parameter:
        return self

    def set_data(self, data: Any, slice_shape: bool = False) -> Parameter:
        """Replace the value; the Parameter object (and its name) stays the same."""
        arr = data.asnumpy() if isinstance(data, Tensor) else np.asarray(data)
        if tuple(arr.shape) != self.shape and not slice_shape:
            raise ValueError(
                f"Can not change the shape of Parameter '{self.name}' which has been "
                f"initialized. Current shape is {self.shape}, and incoming is {tuple(arr.shape)}."
            )
        self._data = np.array(arr, dtype=self._data.dtype)
        return self

    def _adopt(self, arr: np.ndarray) -> None:
        """A graph's run wrote this Parameter: its new value is the executor's own
        buffer (the right dtype and shape, owned by nothing else), taken without a copy."""
        self._data = arr

    def _assign_array(self, arr: np.ndarray) -> None:
        """`ops.assign` in PyNative mode: write into the existing memory."""
        if self._data.flags.writeable and self._data.shape == arr.shape:
            np.copyto(self._data, arr)
        else:
            self._data = np.array(arr, dtype=self._data.dtype)

    def value(self) -> Tensor:
        """The current value as a plain Tensor (a snapshot)."""
        return Tensor._wrap(self._data.copy())

    def clone(self, init: Any = "same") -> Parameter:
        """A new Parameter of the same name, shape and dtype: the same value, or one
        filled as `init` says (a Tensor, a number, an initializer name such as 'zeros')."""
        p = Parameter(self._data.copy(), self.name, self.requires_grad)
        p.auto_named = self.auto_named
        if not (isinstance(init, str) and init == "same"):
            from mindjit.frontend.nn.init import initializer  # nn.init imports this module

            p.set_data(initializer(init, self.shape, self.dtype))
        return p

    def __str__(self) -> str:
        return (
            f"Parameter (name={self.name}, shape={self.shape}, dtype={self.dtype}, "
            f"requires_grad={self.requires_grad})"
        )

    __repr__ = __str__
    __hash__ = Tensor.__hash__
