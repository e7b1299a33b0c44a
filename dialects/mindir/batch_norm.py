"""mindir's training-mode batch normalization, one op as MindSpore's BatchNorm primitive.

    %y, %mean, %var = mindir.batch_norm %x, %gamma, %beta {epsilon = 1.0e-05 : f64}
        : (tensor<8x16x32x32xf32>, tensor<16xf32>, tensor<16xf32>)
        -> (tensor<8x16x32x32xf32>, tensor<16xf32>, tensor<16xf32>)

Channels are axis 1 of an input of rank >= 2. `mean` and `variance` are the
batch's, per channel, over every other axis (the variance biased: divided by
the elements per channel), and y = (x - mean) * rsqrt(variance + epsilon) *
gamma + beta. The running statistics are the frontend's business (ordinary
Assigns of the op's mean and variance, ops/nn_functional.py).

Why one op and not the dozen elementwise ops and reductions it is made of: the
gradient of the written-out form is some fifty ops per layer, and ResNet-18's
train step spent 0.4 of its 1.36 s compile on its 20 batch normalizations
(mindir nodes 2200 -> 1480 and lowered ops 4331 -> 2449 without them, issue 41).
As one op its adjoint is one `batch_norm_grad` (MindSpore's BatchNormGrad:
passes/mindir_grad/rules_norm.py), and each lowers to two reductions and a few
loop nests (passes/mindir_to_tensor/batch_norm.py).
"""

from __future__ import annotations

from xdsl.dialects.builtin import FloatAttr, TensorType, f64
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from mindjit.dialects.mindir import shapes as S


class _PerChannel:
    """What a batch norm op's input says: the axes its statistics are taken over and
    the elements per channel (`input` has its channels on axis 1). No annotations:
    IRDL reads a class's annotations as its op's fields."""

    def reduced_axes(self) -> tuple[int, ...]:
        """Every axis but the channels' (1)."""
        rank = len(S.tensor_of(self.input.type).get_shape())  # type: ignore[attr-defined]
        return (0, *range(2, rank))

    def count(self) -> int:
        """The elements per channel."""
        shape = S.tensor_of(self.input.type).get_shape()  # type: ignore[attr-defined]
        n = 1
        for a in self.reduced_axes():
            n *= shape[a]
        return n

    def eps(self) -> float:
        return float(self.epsilon.value.data)  # type: ignore[attr-defined]

    def _verify_epsilon(self) -> None:
        eps = self.epsilon  # type: ignore[attr-defined]
        if eps.type != f64 or not eps.value.data >= 0.0:
            raise VerifyException(f"{self.name} epsilon must be a non-negative f64, got {eps}")  # type: ignore[attr-defined]


def _input_and_stat(op: str, x: Attribute) -> tuple[TensorType, TensorType]:
    """x's type (rank >= 2, float) and the (C,) type of its per-channel values."""
    t = S.tensor_of(x, "input")
    shape, element = t.get_shape(), t.get_element_type()
    if len(shape) < 2:
        raise VerifyException(f"{op} needs an input of rank >= 2, got {t}")
    if not S.is_float(element):
        raise VerifyException(f"{op} needs float elements, got {element}")
    return t, S.tensor_type((shape[1],), element)


def _check(op: str, what: str, given: Attribute, want: TensorType, why: str) -> None:
    if S.tensor_of(given, what) != want:
        raise VerifyException(f"{op} {what} must be {want} ({why}), got {given}")


def _check_results(op: IRDLOperation, expected: tuple[Attribute, ...]) -> None:
    actual = tuple(r.type for r in op.results)
    if expected != actual:
        raise VerifyException(
            f"result types ({', '.join(map(str, actual))}) do not match the inferred "
            f"types ({', '.join(map(str, expected))})"
        )


@irdl_op_definition
class BatchNormOp(_PerChannel, IRDLOperation):
    """`batch_norm {epsilon}` of x (channels on axis 1) -> (y, batch mean, biased
    batch variance), the statistics of shape (C,)."""

    name = "mindir.batch_norm"
    input = operand_def(TensorType)
    gamma = operand_def(TensorType)
    beta = operand_def(TensorType)
    output = result_def(TensorType)
    mean = result_def(TensorType)
    variance = result_def(TensorType)
    epsilon = prop_def(FloatAttr)
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = (
        "$input `,` $gamma `,` $beta attr-dict `:` `(` type($input) `,` type($gamma) `,` "
        "type($beta) `)` `->` `(` type($output) `,` type($mean) `,` type($variance) `)`"
    )

    @staticmethod
    def infer_types(
        x: Attribute, gamma: Attribute, beta: Attribute
    ) -> tuple[TensorType, TensorType, TensorType]:
        t, stat = _input_and_stat(BatchNormOp.name, x)
        for what, given in (("gamma", gamma), ("beta", beta)):
            _check(BatchNormOp.name, what, given, stat, "the input's channels, axis 1")
        return t, stat, stat

    @classmethod
    def get(cls, x: SSAValue, gamma: SSAValue, beta: SSAValue, epsilon: float) -> BatchNormOp:
        types = cls.infer_types(x.type, gamma.type, beta.type)
        return cls.create(
            operands=[x, gamma, beta],
            result_types=list(types),
            properties={"epsilon": FloatAttr(float(epsilon), f64)},
        )

    def verify_(self) -> None:
        self._verify_epsilon()
        _check_results(self, self.infer_types(self.input.type, self.gamma.type, self.beta.type))


@irdl_op_definition
class BatchNormGradOp(_PerChannel, IRDLOperation):
    """`batch_norm_grad {epsilon}` (dy, x, batch mean, batch variance, gamma) ->
    (dx, d gamma, d beta): the adjoint of `batch_norm` for its output's gradient
    dy (MindSpore's BatchNormGrad), passes/mindir_grad/rules_norm.py's formula."""

    name = "mindir.batch_norm_grad"
    dy = operand_def(TensorType)
    input = operand_def(TensorType)
    mean = operand_def(TensorType)
    variance = operand_def(TensorType)
    gamma = operand_def(TensorType)
    dx = result_def(TensorType)
    dgamma = result_def(TensorType)
    dbeta = result_def(TensorType)
    epsilon = prop_def(FloatAttr)
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = (
        "$dy `,` $input `,` $mean `,` $variance `,` $gamma attr-dict `:` `(` type($dy) `,` "
        "type($input) `,` type($mean) `,` type($variance) `,` type($gamma) `)` `->` `(` "
        "type($dx) `,` type($dgamma) `,` type($dbeta) `)`"
    )

    @staticmethod
    def infer_types(
        dy: Attribute, x: Attribute, mean: Attribute, variance: Attribute, gamma: Attribute
    ) -> tuple[TensorType, TensorType, TensorType]:
        name = BatchNormGradOp.name
        t, stat = _input_and_stat(name, x)
        _check(name, "dy", dy, t, "the input's type")
        for what, given in (("mean", mean), ("variance", variance), ("gamma", gamma)):
            _check(name, what, given, stat, "the input's channels, axis 1")
        return t, stat, stat

    @classmethod
    def get(
        cls,
        dy: SSAValue,
        x: SSAValue,
        mean: SSAValue,
        variance: SSAValue,
        gamma: SSAValue,
        epsilon: float,
    ) -> BatchNormGradOp:
        operands = [dy, x, mean, variance, gamma]
        types = cls.infer_types(*(v.type for v in operands))
        return cls.create(
            operands=operands,
            result_types=list(types),
            properties={"epsilon": FloatAttr(float(epsilon), f64)},
        )

    def verify_(self) -> None:
        self._verify_epsilon()
        _check_results(self, self.infer_types(*(o.type for o in self.operands)))


NORM_OPS = (BatchNormOp, BatchNormGradOp)
