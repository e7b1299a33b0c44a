"""The mindir dialect: MindSpore's graph IR as an xDSL dialect.

Op and type definitions live in mindir_*.py by kind; this module gathers them into
the `MindIR` dialect and re-exports every name, so users write
`from mindjit.dialects.mindir import AddOp, MindIR`.
"""

from xdsl.ir import Dialect

from mindjit.dialects.mindir.check import *  # noqa: F403
from mindjit.dialects.mindir.check import CHECK_OPS
from mindjit.dialects.mindir.control import *  # noqa: F403
from mindjit.dialects.mindir.control import CONTROL_OPS
from mindjit.dialects.mindir.device import *  # noqa: F403
from mindjit.dialects.mindir.device import DEVICE_OPS
from mindjit.dialects.mindir.effects import *  # noqa: F403
from mindjit.dialects.mindir.effects import EFFECT_OPS
from mindjit.dialects.mindir.grad import *  # noqa: F403
from mindjit.dialects.mindir.grad import GRAD_OPS
from mindjit.dialects.mindir.types import MonadIOType, MonadUType, RefType, is_monad  # noqa: F401
from mindjit.dialects.mindir.values import *  # noqa: F403
from mindjit.dialects.mindir.values import VALUE_OPS
from mindjit.dialects.mindir.vmap import *  # noqa: F403
from mindjit.dialects.mindir.vmap import VMAP_OPS

ALL_OPS = (*VALUE_OPS, *EFFECT_OPS, *CONTROL_OPS, *VMAP_OPS, *GRAD_OPS, *DEVICE_OPS, *CHECK_OPS)

MindIR = Dialect("mindir", list(ALL_OPS), [MonadUType, MonadIOType, RefType])
