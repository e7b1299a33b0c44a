"""The mindir dialect: MindSpore's graph IR as an xDSL dialect.

Op and type definitions live in mindir_*.py by kind; this module gathers them into
the `MindIR` dialect and re-exports every name, so users write
`from mindjit.dialects.mindir import AddOp, MindIR`.
"""

from xdsl.ir import Dialect

from mindjit.dialects.mindir_check_op import *  # noqa: F403
from mindjit.dialects.mindir_check_op import CHECK_OPS
from mindjit.dialects.mindir_control_ops import *  # noqa: F403
from mindjit.dialects.mindir_control_ops import CONTROL_OPS
from mindjit.dialects.mindir_device_ops import *  # noqa: F403
from mindjit.dialects.mindir_device_ops import DEVICE_OPS
from mindjit.dialects.mindir_effect_ops import *  # noqa: F403
from mindjit.dialects.mindir_effect_ops import EFFECT_OPS
from mindjit.dialects.mindir_grad_op import *  # noqa: F403
from mindjit.dialects.mindir_grad_op import GRAD_OPS
from mindjit.dialects.mindir_types import MonadIOType, MonadUType, RefType, is_monad  # noqa: F401
from mindjit.dialects.mindir_value_ops import *  # noqa: F403
from mindjit.dialects.mindir_value_ops import VALUE_OPS
from mindjit.dialects.mindir_vmap_op import *  # noqa: F403
from mindjit.dialects.mindir_vmap_op import VMAP_OPS

ALL_OPS = (*VALUE_OPS, *EFFECT_OPS, *CONTROL_OPS, *VMAP_OPS, *GRAD_OPS, *DEVICE_OPS, *CHECK_OPS)

MindIR = Dialect("mindir", list(ALL_OPS), [MonadUType, MonadIOType, RefType])
