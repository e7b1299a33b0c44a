"""Random ops: `ops.dropout`, `ops.dropout2d`, `ops.Dropout`'s function, and the generator state.

Every draw is a `mindir.uniform_real` (a pure, counter-based hash: the same bits
on the CPU executor, IREE and the device) of two int32 scalars kept in global
Parameters, the *default generator*:

- `key`: the global seed (`ms.set_seed(s)` writes it, and clears `offset`);
- `offset`: how many draws were made; each draw reads it and assigns `offset + 1`.

Reading and advancing the state are an ordinary Load and Assign, so auto-monad
orders them in program order in graph mode exactly as PyNative runs them: the
same seed gives the same sequence of masks in both modes, a new mask at every
call, and the state survives between calls of a compiled graph (it is a
Parameter, not a constant baked into the graph, so `set_seed` needs no
recompilation). The mask is an SSA value of the forward graph, so the gradient
of a dropout multiplies by that same mask.

Why one shared counter and not a Parameter per Dropout Cell (MindSpore keeps the
state inside each kernel): a Cell gains no Parameter (checkpoints keep
MindSpore's names), and a graph shared between Cells by lazy inline, which is
traced once for one instance, still draws a new mask per call. The op-level
seeds (`seed` of ops.dropout, Seed0/Seed1 of ops.Dropout) are the op's
`seed`/`seed2` properties: they choose another stream for the same state.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindjit.dialects import mindir as M
from mindjit.frontend import dtype as D
from mindjit.frontend.ops.array import cast, zeros_like
from mindjit.frontend.ops.core import run
from mindjit.frontend.ops.effects import assign
from mindjit.frontend.ops.math import add, greater_equal, mul
from mindjit.frontend.ops.promotion import is_tensor
from mindjit.frontend.tensor import Parameter, Tensor

_KEY = Parameter(Tensor(np.array(0, np.int32)), name="random_key", requires_grad=False)
_OFFSET = Parameter(Tensor(np.array(0, np.int32)), name="random_offset", requires_grad=False)


def reset_generator(seed: int) -> None:
    """The default generator restarts from `seed` (what `ms.set_seed` does)."""
    _KEY.set_data(np.array(np.uint32(seed & 0xFFFFFFFF).view(np.int32)))
    _OFFSET.set_data(np.array(0, np.int32))


def generator_parameters() -> tuple[Parameter, Parameter]:
    """The default generator's Parameters (key, offset): the compile cache lists them,
    since graphs reach them through library code the dependency walk does not follow."""
    return _KEY, _OFFSET


def generator_state() -> tuple[int, int]:
    """(key, offset) of the default generator, as Python ints."""
    return int(_KEY.asnumpy()), int(_OFFSET.asnumpy())


def _check_seed(seed: Any, what: str, name: str) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"For '{name}', '{what}' must be an int, but got {type(seed).__name__}")
    if seed < 0:
        raise ValueError(f"For '{name}', '{what}' must be non-negative, but got {seed}")
    return seed


def uniform_real(shape: tuple[int, ...], seed: int = 0, seed2: int = 0) -> Any:
    """float32 uniform in [0, 1) of `shape` from the default generator (advanced by one)."""
    shape = tuple(int(d) for d in shape)

    def build(e, v):
        return e.value(M.UniformRealOp.get(v[0], v[1], shape, seed, seed2))

    u = run(("uniform_real", shape, seed, seed2), build, _KEY, _OFFSET)
    assign(_OFFSET, add(_OFFSET, 1))
    return u


def _dropout_input(x: Any, name: str) -> Any:
    if not is_tensor(x):
        raise TypeError(f"For '{name}', the 'input' must be a Tensor, but got {type(x).__name__}")
    if x.dtype not in (D.float16, D.float32, D.float64):
        raise TypeError(
            f"For '{name}', the dtype of 'input' must be float16, float32 or float64, "
            f"but got {x.dtype}"
        )
    return x


def _keep_mask(x: Any, p: float, seed: int, seed2: int) -> Any:
    """1 where an element is kept (probability 1 - p), 0 where dropped, in x's dtype."""
    u = uniform_real(tuple(x.shape), seed, seed2)
    return cast(greater_equal(u, float(p)), x.dtype)


def dropout(input: Any, p: float = 0.5, training: bool = True, seed: int | None = None) -> Any:
    """`ops.dropout(input, p=0.5, training=True, seed=None)`: in training, each element
    is zeroed with probability `p` and the kept ones are scaled by 1 / (1 - p);
    otherwise (or with p = 0) `input` itself. p = 1 drops everything."""
    x = _dropout_input(input, "dropout")
    if isinstance(p, bool) or not isinstance(p, float | int):
        raise TypeError(f"For 'dropout', the 'p' must be a float, but got {type(p).__name__}")
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"For 'dropout', the 'p' must be in range [0, 1], but got {p}")
    op_seed = 0 if seed is None else _check_seed(seed, "seed", "dropout")
    if not training or p == 0:
        return x
    if p == 1:
        return zeros_like(x)
    return mul(x, mul(_keep_mask(x, p, op_seed, 0), 1.0 / (1.0 - float(p))))


def dropout2d(input: Any, p: float = 0.5, training: bool = True) -> Any:
    """`ops.dropout2d(input, p=0.5, training=True)`: in training, each channel (an
    (H, W) plane of an (N, C, H, W) input) is zeroed with probability `p`, one draw
    per channel, and the kept ones are scaled by 1 / (1 - p); integer inputs keep
    their dtype (scaled in float32, then cast back)."""
    name = "dropout2d"
    if not is_tensor(input):
        raise TypeError(
            f"For '{name}', the 'input' must be a Tensor, but got {type(input).__name__}"
        )
    if input.dtype.is_bool:
        raise TypeError(f"For '{name}', the dtype of 'input' must be a number type, got Bool")
    if isinstance(p, bool) or not isinstance(p, float | int):
        raise TypeError(f"For '{name}', the 'p' must be a float, but got {type(p).__name__}")
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"For '{name}', the 'p' must be in range [0, 1], but got {p}")
    if len(input.shape) != 4:
        raise ValueError(
            f"For '{name}', the dimension of 'input' must be 4, but got {len(input.shape)}"
        )
    if not training or p == 0:
        return input
    if p == 1:
        return zeros_like(input)
    u = uniform_real(tuple(input.shape[:2]) + (1, 1))
    dtype = input.dtype if input.dtype.is_float else D.float32
    scale = mul(cast(greater_equal(u, float(p)), dtype), 1.0 / (1.0 - float(p)))
    if input.dtype.is_float:
        return mul(input, scale)
    return cast(mul(cast(input, dtype), scale), input.dtype)


def dropout_with_mask(x: Any, keep_prob: float, seed0: int = 0, seed1: int = 0) -> tuple[Any, Any]:
    """`ops.Dropout(keep_prob, Seed0, Seed1)(x)`: (output, mask), the mask of x's shape
    and dtype (MindSpore's CPU/GPU form; 1 = kept), the output scaled by 1/keep_prob."""
    x = _dropout_input(x, "Dropout")
    if isinstance(keep_prob, bool) or not isinstance(keep_prob, float | int):
        raise TypeError(
            f"For 'Dropout', the 'keep_prob' must be a float, but got {type(keep_prob).__name__}"
        )
    if not 0.0 < keep_prob <= 1.0:
        raise ValueError(
            f"For 'Dropout', the 'keep_prob' must be in range (0, 1], but got {keep_prob}"
        )
    seed0 = _check_seed(seed0, "Seed0", "Dropout")
    seed1 = _check_seed(seed1, "Seed1", "Dropout")
    if keep_prob >= 1.0:
        return x, cast(add(zeros_like(x), 1), x.dtype)
    mask = _keep_mask(x, 1.0 - keep_prob, seed0, seed1)
    return mul(x, mul(mask, 1.0 / float(keep_prob))), mask


__all__ = [
    "dropout",
    "dropout2d",
    "dropout_with_mask",
    "generator_parameters",
    "generator_state",
    "reset_generator",
    "uniform_real",
]
