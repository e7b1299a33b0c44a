"""`TensorMethodsMath`: MindSpore 2.10's Tensor methods for linear algebra, special
functions and bitwise ops (issue 38), each calling its functional op in
frontend/ops (math_aliases.py, ...): one mixin of its own so the family's methods
sit together and the other mixins keep their size.
"""

from __future__ import annotations

from typing import Any

from mindjit.frontend.tensor_method_support import ops_module


class TensorMethodsMath:
    __slots__ = ()

    # --- other names (frontend/ops/math_aliases.py, other_names.py)
    def inv(self) -> Any:
        return ops_module().inv(self)

    def approximate_equal(self, other: Any, tolerance: float = 1e-5) -> Any:
        return ops_module().approximate_equal(self, other, tolerance)

    def ldexp(self, other: Any) -> Any:
        return ops_module().ldexp(self, other)
