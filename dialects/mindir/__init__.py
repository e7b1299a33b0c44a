"""The mindir dialect: MindSpore's graph IR as an xDSL dialect.

This is the registry of mindir's ops: each module defines the ops of one kind
and lists them in a tuple, gathered here into the `MindIR` dialect, and every
name is re-exported (`from mindjit.dialects.mindir import AddOp, MindIR`). An op
added to a module and its tuple is known to the parser and to the completeness
test (tests/registry/test_op_registry.py), which then says what each stage of
the compiler still lacks for it (docs/op-registry.md).
"""

from xdsl.ir import Dialect

from mindjit.dialects.mindir.batch_norm import *  # noqa: F403
from mindjit.dialects.mindir.batch_norm import NORM_OPS, BatchNormGradOp
from mindjit.dialects.mindir.check import *  # noqa: F403
from mindjit.dialects.mindir.check import CHECK_OPS
from mindjit.dialects.mindir.collective import *  # noqa: F403
from mindjit.dialects.mindir.collective import COLLECTIVE_OPS
from mindjit.dialects.mindir.comm import *  # noqa: F403
from mindjit.dialects.mindir.comm import COMM_OPS, ReceiveOp, SendOp
from mindjit.dialects.mindir.constant import ConstantOp
from mindjit.dialects.mindir.control import *  # noqa: F403
from mindjit.dialects.mindir.control import CONTROL_OPS
from mindjit.dialects.mindir.conv import *  # noqa: F403
from mindjit.dialects.mindir.conv import CONV_OPS
from mindjit.dialects.mindir.data_movement import *  # noqa: F403
from mindjit.dialects.mindir.data_movement import DATA_MOVEMENT_OPS
from mindjit.dialects.mindir.device import *  # noqa: F403
from mindjit.dialects.mindir.device import DEVICE_OPS
from mindjit.dialects.mindir.effects import *  # noqa: F403
from mindjit.dialects.mindir.effects import EFFECT_OPS, TensorMoveOp, UpdateStateOp
from mindjit.dialects.mindir.elementwise import *  # noqa: F403
from mindjit.dialects.mindir.elementwise import ELEMENTWISE_OPS, SigmoidGradOp, TanhGradOp
from mindjit.dialects.mindir.gather import *  # noqa: F403
from mindjit.dialects.mindir.gather import GATHER_OPS
from mindjit.dialects.mindir.grad import *  # noqa: F403
from mindjit.dialects.mindir.grad import GRAD_OPS
from mindjit.dialects.mindir.index_reduce import *  # noqa: F403
from mindjit.dialects.mindir.index_reduce import INDEX_REDUCE_OPS
from mindjit.dialects.mindir.matmul import MatMulOp
from mindjit.dialects.mindir.random import *  # noqa: F403
from mindjit.dialects.mindir.random import RANDOM_OPS
from mindjit.dialects.mindir.reduce import *  # noqa: F403
from mindjit.dialects.mindir.reduce import REDUCE_OPS
from mindjit.dialects.mindir.scan import *  # noqa: F403
from mindjit.dialects.mindir.scan import SCAN_OPS
from mindjit.dialects.mindir.sort import *  # noqa: F403
from mindjit.dialects.mindir.sort import SORT_OPS
from mindjit.dialects.mindir.stack import *  # noqa: F403
from mindjit.dialects.mindir.stack import STACK_OPS, StackNewOp, StackPushOp, StackReadOp
from mindjit.dialects.mindir.tuples import *  # noqa: F403
from mindjit.dialects.mindir.tuples import TUPLE_OPS, TupleGetItemOp
from mindjit.dialects.mindir.types import MonadIOType, MonadUType, RefType, is_monad  # noqa: F401
from mindjit.dialects.mindir.vmap import *  # noqa: F403
from mindjit.dialects.mindir.vmap import VMAP_OPS
from mindjit.ir.compat import verify_memo

VALUE_OPS = (
    ConstantOp,
    *ELEMENTWISE_OPS,
    MatMulOp,
    *CONV_OPS,
    *REDUCE_OPS,
    *DATA_MOVEMENT_OPS,
    *TUPLE_OPS,
    *INDEX_REDUCE_OPS,
    *SORT_OPS,
    *NORM_OPS,
    *SCAN_OPS,
    *GATHER_OPS,
    *RANDOM_OPS,
    *STACK_OPS,
)

ALL_OPS = (
    *VALUE_OPS,
    *EFFECT_OPS,
    *COMM_OPS,
    *COLLECTIVE_OPS,
    *CONTROL_OPS,
    *VMAP_OPS,
    *GRAD_OPS,
    *DEVICE_OPS,
    *CHECK_OPS,
)

MindIR = Dialect("mindir", list(ALL_OPS), [MonadUType, MonadIOType, RefType])

#: The ops no public name of `mindjit.ops`, `mindjit.nn` or Tensor emits: passes
#: create them, with why. Every other op is built by the frontend
#: (tests/registry/test_frontend_reach.py checks both ways). Keyed by the exact
#: class: a subclass of an internal op is not internal by inheritance.
INTERNAL_OPS: dict[type, str] = {
    UpdateStateOp: "mindir-auto-monad threads the memory state with it",
    TensorMoveOp: "mindir-load-elim inserts the copies a Load needs",
    SendOp: "mindir-pipeline-split puts one at each cut between pipeline stages",
    ReceiveOp: "mindir-pipeline-split puts one at each cut between pipeline stages",
    SigmoidGradOp: "mindir-grad's adjoint of sigmoid (MindSpore's bprop emits SigmoidGrad)",
    TanhGradOp: "mindir-grad's adjoint of tanh (MindSpore's bprop emits TanhGrad)",
    BatchNormGradOp: "mindir-grad's adjoint of batch_norm (MindSpore's bprop emits BatchNormGrad)",
    StackNewOp: "mindir-grad records a while's iterations for its backward loop",
    StackPushOp: "mindir-grad records a while's iterations for its backward loop",
    StackReadOp: "mindir-grad's backward loop reads a while's record",
    TupleGetItemOp: "graph-mode tuples are Python values in the frontend (make_tuple "
    "only feeds addn); mindir-cf-to-select takes a selected tuple apart with it",
}

# Their verifiers read only the op's signature (types, properties, regions' block
# arguments): a verdict is remembered per signature (mindjit.ir.compat.verify_memo).
# Not: a constant (its value is its signature), the symbol users and declarations,
# and the ops whose verifiers read their regions' yields.
verify_memo.register(
    *(
        op
        for op in ALL_OPS
        if op.name
        not in (
            "mindir.constant",
            "mindir.get_parameter",
            "mindir.parameter",
            "mindir.if",
            "mindir.while",
            "mindir.grad",
            "mindir.vmap",
        )
    )
)
