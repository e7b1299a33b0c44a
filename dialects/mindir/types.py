"""mindir's own types: the two state monads and a reference to a mutable Parameter."""

from __future__ import annotations

import functools

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition, param_def
from xdsl.utils.exceptions import VerifyException


@irdl_attr_definition
class MonadUType(ParametrizedAttribute, TypeAttribute):
    """`!mindir.u`: the memory-state monad that orders Loads and Assigns."""

    name = "mindir.u"


@irdl_attr_definition
class MonadIOType(ParametrizedAttribute, TypeAttribute):
    """`!mindir.io`: the IO-state monad that orders prints."""

    name = "mindir.io"


@irdl_attr_definition
class RefType(ParametrizedAttribute, TypeAttribute):
    """`!mindir.ref<tensor<...>>`: a reference to a Parameter's mutable memory."""

    name = "mindir.ref"
    tensor: TensorType = param_def(TensorType)

    def __init__(self, tensor: TensorType):
        super().__init__(tensor)

    def verify(self) -> None:
        if any(d < 0 for d in self.tensor.get_shape()):
            raise VerifyException("!mindir.ref needs a statically shaped tensor")


def is_monad(t: Attribute) -> bool:
    return type(t) in _MONADS  # exact classes (no subclasses): cheaper than isinstance


_MONADS = frozenset({MonadUType, MonadIOType})


@functools.lru_cache(maxsize=1 << 16)
def ref_type(tensor: TensorType) -> RefType:
    """`!mindir.ref<tensor>`, interned: xDSL verifies every attribute it builds
    (~6 us), and a model names each of its thousands of Parameters several times
    (see `mindjit.ir.interned`)."""
    return RefType(tensor)
