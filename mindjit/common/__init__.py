"""`mindjit.common`, as `mindspore.common`: the initializer classes and the
`parameter` module; both are loaded with the package, so `ms.common.parameter`
is reachable without importing it first (as in MindSpore)."""

from mindjit.common import initializer, parameter

__all__ = ["initializer", "parameter"]
