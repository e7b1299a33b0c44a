"""mindir's record of a loop: a stack of per-iteration values (what mindir-grad saves
in a `mindir.while` for its backward loop).

    %s0 = mindir.stack_new : tensor<?x3xf32>
    %s1 = mindir.stack_push %s0, %k, %x : (tensor<?x3xf32>, tensor<i64>, tensor<3xf32>) -> tensor<?x3xf32>
    %x2 = mindir.stack_read %s1, %k : (tensor<?x3xf32>, tensor<i64>) -> tensor<3xf32>

A stack is an ordinary value: a `tensor<?x...>` whose first dimension is its
capacity (not its depth: the loop's counter says how many slots are written).
`stack_push` writes slot `k` and returns the new stack, growing it (by a
sixteenth of its capacity plus 4 items, or to k + 1 when that is more) when `k`
is past the end, so a loop of n iterations copies O(n) items in all and the
capacity stays within about 6% of the slots written; `stack_read` reads slot `k`. With
value semantics the record needs nothing new from any engine: it lowers to
`tensor.empty` / `tensor.insert_slice` / `tensor.extract_slice` with a dynamic
first dimension and an `scf.if` for the growth (passes/mindir_to_tensor), which
the CPU executor, IREE and the device run like any other tensor. Why not a
`!mindir.stack` type: every later stage (load-elim, CSE, DCE, the lowering's
tuple and while rules) already handles tensors; a new type would need a case in
each. Why slots rather than push/pop: the backward loop reads slot k at its own
counter and never shrinks the stack, so one read op suffices and the forward's
record stays intact for a second backward (higher order, or two grads of one
forward).

Per example: mindir-vmap batches a record as `tensor<?xBx...>` (items with the
batch in front) and, when the slot differs per example (a loop whose trip count
does), gives push and read a `tensor<Bxi64>` index: example b writes or reads
slot index[b] of its own column (passes/vmap_loops.py).
"""

from __future__ import annotations

from xdsl.dialects.builtin import DYNAMIC_INDEX, TensorType
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from mindjit.dialects.mindir import shapes as S
from mindjit.dialects.mindir.format import TypedOp


def stack_type(item: Attribute) -> TensorType:
    """The stack of `item`s: `tensor<?x...>` with `item`'s shape after the `?`."""
    t = S.tensor_of(item, "item")
    if DYNAMIC_INDEX in t.get_shape():
        raise VerifyException(f"a stack item needs a static shape, got {t}")
    return TensorType(t.get_element_type(), [DYNAMIC_INDEX, *t.get_shape()])


def item_type(stack: Attribute) -> TensorType:
    """The item type of a stack type (the inverse of `stack_type`)."""
    if not isinstance(stack, TensorType):
        raise VerifyException(f"a stack must be a tensor, got {stack}")
    t = stack
    shape = list(t.get_shape())
    if not shape or shape[0] != DYNAMIC_INDEX or DYNAMIC_INDEX in shape[1:]:
        raise VerifyException(
            f"a stack is a tensor<?x...> with a static shape after the '?', got {t}"
        )
    return TensorType(t.get_element_type(), shape[1:])


def _check_index(t: Attribute, item: TensorType) -> None:
    """A 0-d integer tensor, or one slot per example: a `tensor<Bxi..>` when the items
    are batched (`B` their first dimension; mindir-vmap's form, see the module doc)."""
    index = S.tensor_of(t, "index")
    shape = list(index.get_shape())
    lanes = list(item.get_shape())[:1]
    if not S.is_int(index.get_element_type()) or (shape and shape != lanes):
        raise VerifyException(
            f"a stack index is a 0-d integer tensor (or one per example of the items' "
            f"first dimension), got {t} for items {item}"
        )


@irdl_op_definition
class StackNewOp(IRDLOperation):
    """An empty stack (capacity 0) of the items its type says."""

    name = "mindir.stack_new"
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = "attr-dict `:` type($result)"

    def verify_(self) -> None:
        item_type(self.result.type)

    @classmethod
    def get(cls, item: Attribute) -> StackNewOp:
        return cls.create(result_types=[stack_type(item)])


@irdl_op_definition
class StackPushOp(TypedOp):
    """The stack with slot `index` set to `value` (grown when `index` is past its end)."""

    name = "mindir.stack_push"
    stack = operand_def(TensorType)
    index = operand_def(TensorType)
    value = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())

    @classmethod
    def infer_result(cls, operand_types, props):
        stack, index, value = operand_types
        item = item_type(stack)
        _check_index(index, item)
        if value != item:
            raise VerifyException(f"pushing a {value} onto a stack of {item}")
        return stack

    @classmethod
    def get(cls, stack: SSAValue, index: SSAValue, value: SSAValue) -> StackPushOp:
        return cls.make([stack, index, value])


@irdl_op_definition
class StackReadOp(TypedOp):
    """Slot `index` of the stack (written by an earlier push: the record's contract)."""

    name = "mindir.stack_read"
    stack = operand_def(TensorType)
    index = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())

    @classmethod
    def infer_result(cls, operand_types, props):
        stack, index = operand_types
        item = item_type(stack)
        _check_index(index, item)
        return item

    @classmethod
    def get(cls, stack: SSAValue, index: SSAValue) -> StackReadOp:
        return cls.make([stack, index])


STACK_OPS = (StackNewOp, StackPushOp, StackReadOp)
