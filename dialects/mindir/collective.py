"""Collective communication between data-parallel replicas: MindSpore's AllReduce,
AllGather, ReduceScatter and Broadcast.

    %s = mindir.all_reduce %g {op = "sum"} : tensor<10x4xf32>
    %a = mindir.all_gather %x {rank_size = 2 : i64} : (tensor<3x4xf32>) -> tensor<6x4xf32>
    %r = mindir.reduce_scatter %a {op = "sum", rank_size = 2 : i64}
           : (tensor<6x4xf32>) -> tensor<3x4xf32>
    %b = mindir.broadcast %x {root_rank = 0 : i64} : tensor<3x4xf32>

Every replica of a data-parallel program runs the same compiled graph; a
collective combines the value each replica gives with the others' (in rank
order, see backend/cpu/collectives.py). With one replica (MindSpore's
stand-alone mode, PyNative) each is the identity (all_gather and reduce_scatter
with `rank_size = 1`).

- `op` is MindSpore's `ReduceOp`: "sum", "max", "min" or "prod" (reduce_scatter
  takes "sum" only, as its gradient needs).
- `rank_size` is N, the group's size, fixed when the graph is traced (MindSpore's
  AllGather reads `get_group_size()` in its constructor too): the result's first
  dimension is N times the input's (all_gather) or the input's divided by N
  (reduce_scatter).
- Why no `!mindir.io` state, where send/receive have one: MindSpore marks its
  collectives `no_eliminate`, not side-effecting, and mindjit matches the k-th
  collective a replica runs in a step with every other replica's k-th. All
  replicas run one compiled program, so whatever order the compiler gives the
  collectives is the same on every replica; what must not happen is that one is
  dropped or merged, and an op without a memory-effect trait is neither (xDSL's
  DCE and CSE leave it). Their gradients are collectives too, which mindir-grad
  emits like any value op (an IO state would have to be threaded through the
  backward graph after mindir-auto-monad has run).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import IntegerAttr, StringAttr, TensorType, i64
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import irdl_op_definition, operand_def, prop_def, result_def
from xdsl.utils.exceptions import VerifyException

from mindjit.dialects.mindir import shapes as S
from mindjit.dialects.mindir.format import TypedOp

#: MindSpore's ReduceOp values, in the order its docs list them.
REDUCE_OPS_NAMES = ("sum", "max", "min", "prod")


def _tensor(t: Attribute, name: str) -> TensorType:
    x = S.tensor_of(t, "input")
    if not x.has_static_shape():
        raise VerifyException(f"{name} needs a static shape, got {x}")
    if S.is_bool(x.get_element_type()):
        raise VerifyException(f"{name} does not take bool elements (MindSpore's collectives)")
    return x


def _int(props: dict[str, Attribute], key: str, lowest: int) -> int:
    attr = props.get(key)
    if not isinstance(attr, IntegerAttr):
        raise VerifyException(f"property '{key}' must be an integer, got {attr}")
    if attr.value.data < lowest:
        raise VerifyException(f"property '{key}' must be >= {lowest}, got {attr.value.data}")
    return attr.value.data


def _reduction(props: dict[str, Attribute], allowed: Sequence[str]) -> str:
    attr = props.get("op")
    if not isinstance(attr, StringAttr) or attr.data not in allowed:
        got = attr.data if isinstance(attr, StringAttr) else attr
        raise VerifyException(f"property 'op' must be one of {', '.join(allowed)}; got {got}")
    return attr.data


class CollectiveOp(TypedOp):
    """One tensor in, one out; every replica of the group takes part."""

    input = operand_def(TensorType)
    result = result_def(TensorType)


@irdl_op_definition
class AllReduceOp(CollectiveOp):
    """Every replica gets the elementwise `op` of all replicas' inputs."""

    name = "mindir.all_reduce"
    op = prop_def(StringAttr)

    @classmethod
    def infer_result(cls, operand_types: Sequence[Attribute], props: dict[str, Attribute]):
        _reduction(props, REDUCE_OPS_NAMES)
        return _tensor(operand_types[0], cls.name)

    @classmethod
    def get(cls, x: SSAValue, op: str = "sum") -> AllReduceOp:
        return cls.make([x], {"op": StringAttr(op)})


@irdl_op_definition
class AllGatherOp(CollectiveOp):
    """The replicas' inputs concatenated along axis 0, in rank order."""

    name = "mindir.all_gather"
    rank_size = prop_def(IntegerAttr)

    @classmethod
    def infer_result(cls, operand_types: Sequence[Attribute], props: dict[str, Attribute]):
        x = _tensor(operand_types[0], cls.name)
        n = _int(props, "rank_size", 1)
        shape = x.get_shape()
        if not shape:
            raise VerifyException(f"{cls.name} needs an input of rank >= 1, got {x}")
        return S.tensor_type([shape[0] * n, *shape[1:]], x.get_element_type())

    @classmethod
    def get(cls, x: SSAValue, rank_size: int) -> AllGatherOp:
        return cls.make([x], {"rank_size": IntegerAttr(rank_size, i64)})


@irdl_op_definition
class ReduceScatterOp(CollectiveOp):
    """The sum over replicas, split along axis 0 in N blocks: rank r gets block r."""

    name = "mindir.reduce_scatter"
    op = prop_def(StringAttr)
    rank_size = prop_def(IntegerAttr)

    @classmethod
    def infer_result(cls, operand_types: Sequence[Attribute], props: dict[str, Attribute]):
        x = _tensor(operand_types[0], cls.name)
        _reduction(props, ("sum",))
        n = _int(props, "rank_size", 1)
        shape = x.get_shape()
        if not shape or shape[0] % n:
            raise VerifyException(
                f"{cls.name} needs a first dimension divisible by rank_size {n}, got {x}"
            )
        return S.tensor_type([shape[0] // n, *shape[1:]], x.get_element_type())

    @classmethod
    def get(cls, x: SSAValue, rank_size: int) -> ReduceScatterOp:
        return cls.make([x], {"op": StringAttr("sum"), "rank_size": IntegerAttr(rank_size, i64)})


@irdl_op_definition
class BroadcastOp(CollectiveOp):
    """Every replica gets replica `root_rank`'s input."""

    name = "mindir.broadcast"
    root_rank = prop_def(IntegerAttr)

    @classmethod
    def infer_result(cls, operand_types: Sequence[Attribute], props: dict[str, Attribute]):
        _int(props, "root_rank", 0)
        return _tensor(operand_types[0], cls.name)

    @classmethod
    def get(cls, x: SSAValue, root_rank: int) -> BroadcastOp:
        return cls.make([x], {"root_rank": IntegerAttr(root_rank, i64)})


COLLECTIVE_OPS = (AllReduceOp, AllGatherOp, ReduceScatterOp, BroadcastOp)
