"""`mindir.uniform_real`: counter-based random numbers, the same bits on every engine.

    %u = mindir.uniform_real %key, %offset {seed = 1 : i64, seed2 = 2 : i64,
                                           shape = array<i64: 4, 5>}
           : (tensor<i32>, tensor<i32>) -> tensor<4x5xf32>

MindSpore's `UniformReal` (seed, seed2 attributes) draws from a generator kept
inside the kernel. Here the generator's state is explicit instead: the op is a
*pure function* of (seed, seed2, key, offset, element index), so

- the CPU executor, IREE and the device simulator compute the same bits (the
  lowering is 32-bit integer arithmetic with wrap-around: `arith.muli`, `xori`,
  `shrui`, in a `linalg.generic` that numbers its elements with `linalg.index`);
- the mask of a dropout is an SSA value, so its gradient reuses it;
- graph mode and PyNative give the same sequence: the frontend keeps `key` (the
  global seed, `ms.set_seed`) and `offset` (a counter bumped by every draw) in
  Parameters, read and advanced with ordinary Load/Assign, which auto-monad
  orders in program order in both modes.

Each element is `hash(...) >> 8` times 2**-24: a float32 in [0, 1) with 24
random bits, exactly representable, so no engine rounds it differently. The hash
is murmur3's 32-bit finalizer (`fmix32`, a bijection with full avalanche),
applied in three rounds:

    kk = fmix32(key ^ S1)            S1 = fmix32(seed ^ 0x3C6EF372)       (lo 32 bits)
    oo = fmix32(offset ^ S2)         S2 = fmix32(seed2 ^ 0xA54FF53A ^ S1)
    h  = fmix32(fmix32(i * 0x9E3779B9 ^ kk) ^ oo)      i: the row-major element index

For one (key, offset), `h` is a permutation of the index (every step is a
bijection), so two elements never collide. `S1`/`S2` are folded here, at compile
time; `kk`/`oo` are per call (one element each), `h` per element.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, TensorType, f32, i32, i64
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import irdl_op_definition, operand_def, prop_def, result_def, traits_def
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from mindjit.dialects.mindir import shapes as S
from mindjit.dialects.mindir.format import TypedOp, ints_prop
from mindjit.dialects.mindir.reduce import i64_array

MASK32 = 0xFFFFFFFF
GOLDEN = 0x9E3779B9  # the index multiplier (odd: a bijection mod 2**32)
FMIX_MUL1 = 0x85EBCA6B
FMIX_MUL2 = 0xC2B2AE35
SEED_SALT = 0x3C6EF372
SEED2_SALT = 0xA54FF53A
#: 2**-24: the weight of the lowest of the 24 bits kept.
UNIT = 2.0**-24


def fmix32(h: int) -> int:
    """murmur3's finalizer on a Python int (the compile-time half of the hash)."""
    h &= MASK32
    h ^= h >> 16
    h = (h * FMIX_MUL1) & MASK32
    h ^= h >> 13
    h = (h * FMIX_MUL2) & MASK32
    return h ^ (h >> 16)


def seed_keys(seed: int, seed2: int) -> tuple[int, int]:
    """(S1, S2): the op's two seeds folded into 32-bit keys."""
    s1 = fmix32((seed & MASK32) ^ SEED_SALT)
    s2 = fmix32((seed2 & MASK32) ^ SEED2_SALT ^ s1)
    return s1, s2


def _seed_prop(props: dict[str, Attribute], name: str) -> int:
    attr = props.get(name)
    if attr is None:
        return 0
    if not isinstance(attr, IntegerAttr) or attr.type != i64:
        raise VerifyException(f"property '{name}' must be an i64 integer, got {attr}")
    value = attr.value.data
    if value < 0:
        raise VerifyException(f"property '{name}' must be >= 0, got {value}")
    return value


@irdl_op_definition
class UniformRealOp(TypedOp):
    """`%u = mindir.uniform_real %key, %offset {seed, seed2, shape}`: float32 in [0, 1)
    of a static shape, a pure function of the seeds, the two i32 scalars and the
    element's index (see the module docstring for the hash)."""

    name = "mindir.uniform_real"
    key = operand_def(TensorType)
    offset = operand_def(TensorType)
    result = result_def(TensorType)
    seed = prop_def(IntegerAttr)
    seed2 = prop_def(IntegerAttr)
    shape = prop_def(DenseArrayBase.constr(i64))
    traits = traits_def(Pure())

    @classmethod
    def infer_result(cls, operand_types: Sequence[Attribute], props: dict[str, Attribute]):
        for what, t in zip(("key", "offset"), operand_types):
            tt = S.tensor_of(t, what)
            if tt.get_shape() or tt.get_element_type() != i32:
                raise VerifyException(f"{cls.name} {what} must be a tensor<i32> scalar, got {t}")
        _seed_prop(props, "seed")
        _seed_prop(props, "seed2")
        if "shape" not in props:
            raise VerifyException(f"{cls.name} needs a 'shape' property")
        shape = ints_prop(props, "shape")
        if any(d < 0 for d in shape):
            raise VerifyException(f"{cls.name} shape must not be negative, got {list(shape)}")
        return S.tensor_type(shape, f32)

    @classmethod
    def get(
        cls, key: SSAValue, offset: SSAValue, shape: Sequence[int], seed: int = 0, seed2: int = 0
    ) -> UniformRealOp:
        return cls.make(
            [key, offset],
            {
                "seed": IntegerAttr(int(seed), i64),
                "seed2": IntegerAttr(int(seed2), i64),
                "shape": i64_array(list(shape)),
            },
        )

    @property
    def seeds(self) -> tuple[int, int]:
        return self.seed.value.data, self.seed2.value.data

    @property
    def static_shape(self) -> tuple[int, ...]:
        return tuple(self.results[0].type.get_shape())  # type: ignore[union-attr]


RANDOM_OPS = (UniformRealOp,)
