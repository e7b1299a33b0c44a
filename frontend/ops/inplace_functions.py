"""MindSpore's functional in-place ops: `ops.tanh_`, `ops.inplace_sigmoid`,
`ops.zero_`, `ops.uniform_`, `ops.exponential_`, `ops.bernoulli_`, `ops.put_`.

They follow `Tensor.fill_` (tensor_methods_more.py's `_in_place`): in PyNative
the input Tensor takes the new value (cast to its dtype) and is returned; in a
graph a Parameter takes it by ops.assign, ordered as written, and any other
value is a TypeError. MindSpore 2.10 documents them for Ascend and its CPU build
has no kernel for them (InplaceTanh, InplaceZero, InplacePut ... unregistered);
mindjit computes what MindSpore documents, composing ops.tanh, sigmoid, the
default generator's uniform numbers (exponential by inversion: -log(1 - u) /
lambd), ops.bernoulli and a scatter on the flattened input.

`generator` (a mindspore.Generator) is not supported: mindjit has one default
generator (`ms.set_seed`), so only generator=None is accepted.
"""

from __future__ import annotations

from typing import Any

from mindjit.frontend import dtype as D
from mindjit.frontend.ops import array
from mindjit.frontend.ops import math as fmath
from mindjit.frontend.ops.promotion import is_tensor
from mindjit.frontend.ops.random import uniform_real
from mindjit.frontend.ops.random_more import bernoulli
from mindjit.frontend.ops.scatter_ops import tensor_scatter_add, tensor_scatter_update


def _input(input: Any, name: str) -> Any:  # noqa: A002 - MindSpore's name
    if not is_tensor(input):
        raise TypeError(f"For '{name}', the 'input' must be a Tensor, but got {type(input)}.")
    return input


def _store(input: Any, name: str, new: Any) -> Any:  # noqa: A002
    if new.dtype != input.dtype:
        new = array.cast(new, input.dtype)
    return input._in_place(name, new)


def _no_generator(generator: Any, name: str) -> None:
    if generator is not None:
        raise TypeError(
            f"For '{name}', mindjit has one default generator (ms.set_seed): 'generator' must "
            f"be None, but got {generator!r}."
        )


def tanh_(input: Any) -> Any:  # noqa: A002
    """`ops.tanh_(input)`: input = tanh(input), returned."""
    x = _input(input, "tanh_")
    return _store(x, "tanh_", fmath.tanh(x))


def inplace_sigmoid(input: Any) -> Any:  # noqa: A002
    """`ops.inplace_sigmoid(input)`: input = sigmoid(input), returned."""
    x = _input(input, "inplace_sigmoid")
    return _store(x, "inplace_sigmoid", fmath.sigmoid(x))


def zero_(input: Any) -> Any:  # noqa: A002
    """`ops.zero_(input)`: input filled with zeros, returned."""
    x = _input(input, "zero_")
    return _store(x, "zero_", array.zeros_like(x))


def _bound(value: Any, name: str, what: str) -> Any:
    if is_tensor(value):
        if value.size != 1:
            raise ValueError(
                f"For '{name}', '{what}' must have one element, got shape {value.shape}"
            )
        return array.reshape(array.cast(value, D.float32), ())
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"For '{name}', '{what}' must be a number or a Tensor, but got {value!r}")
    return float(value)


def _uniform(x: Any) -> Any:
    return uniform_real(tuple(x.shape))


def uniform_(input: Any, from_: Any = 0, to: Any = 1, *, generator: Any = None) -> Any:  # noqa: A002
    """`ops.uniform_(input, from_=0, to=1, *, generator=None)`: input filled with
    uniform numbers in [from_, to), returned."""
    name = "uniform_"
    x = _input(input, name)
    _no_generator(generator, name)
    low, high = _bound(from_, name, "from_"), _bound(to, name, "to")
    return _store(x, name, _uniform(x) * (high - low) + low)


def exponential_(input: Any, lambd: Any = 1, *, generator: Any = None) -> Any:  # noqa: A002
    """`ops.exponential_(input, lambd=1, *, generator=None)`: input filled with
    exponential numbers of rate lambd, returned."""
    name = "exponential_"
    x = _input(input, name)
    _no_generator(generator, name)
    if isinstance(lambd, bool) or not isinstance(lambd, int | float):
        raise TypeError(f"For '{name}', 'lambd' must be a float, but got {lambd!r}")
    if lambd <= 0:
        raise ValueError(f"For '{name}', 'lambd' must be greater than 0, but got {lambd}")
    sample = fmath.neg(fmath.log(1.0 - _uniform(x))) / float(lambd)
    return _store(x, name, sample)


def bernoulli_(input: Any, p: Any = 0.5, *, generator: Any = None) -> Any:  # noqa: A002
    """`ops.bernoulli_(input, p=0.5, *, generator=None)`: input filled with 1 with
    probability p and 0 otherwise, returned."""
    name = "bernoulli_"
    x = _input(input, name)
    _no_generator(generator, name)
    if is_tensor(p) and not p.dtype.is_float:
        raise TypeError(f"For '{name}', a Tensor 'p' must be a float tensor, but got {p.dtype}")
    return _store(x, name, bernoulli(x, p))


def put_(input: Any, index: Any, source: Any, accumulate: bool = False) -> Any:  # noqa: A002
    """`ops.put_(input, index, source, accumulate=False)`: source's elements written
    (or added, with accumulate) at `index` of the flattened input, returned."""
    name = "put_"
    x = _input(input, name)
    if not is_tensor(index) or index.dtype != D.int64:
        raise TypeError(f"For '{name}', the 'index' must be an int64 Tensor, but got {index!r}")
    if not is_tensor(source) or source.dtype != x.dtype:
        raise TypeError(f"For '{name}', 'input' and 'source' must have the same dtype.")
    if index.size != source.size:
        raise ValueError(
            f"For '{name}', 'index' and 'source' must have the same number of elements, but "
            f"got {index.size} and {source.size}."
        )
    n = x.size
    flat = array.reshape(x, (n,))
    where = array.reshape(index, (index.size, 1))
    where = fmath.select(where < 0, where + n, where)
    values = array.reshape(source, (source.size,))
    scatter = tensor_scatter_add if accumulate else tensor_scatter_update
    return _store(x, name, array.reshape(scatter(flat, where, values), tuple(x.shape)))


__all__ = [
    "bernoulli_",
    "exponential_",
    "inplace_sigmoid",
    "put_",
    "tanh_",
    "uniform_",
    "zero_",
]
