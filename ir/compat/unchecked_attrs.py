"""Private construction: an attribute built without running xDSL's verifier.

xDSL verifies every attribute it constructs (a `SymbolRefAttr` costs ~9 us, a
dense literal's verifier re-checks its bytes). A model names each of its
thousands of Parameters in a declaration, a getter and, after lowering, a
global and a load; `unchecked` fills the frozen dataclass's fields directly,
for attributes whose parameters are valid by construction (a symbol reference
to a name, a dense literal whose bytes numpy packed for its type, a resource
handle, a dictionary of valid attributes).
"""

from __future__ import annotations

from typing import Any, TypeVar

from xdsl.ir import Data, ParametrizedAttribute

from mindjit.ir.compat.touchpoint import Touchpoint

TOUCHPOINT = Touchpoint(
    name="unchecked-attributes",
    kind="private",
    reason="xDSL verifies every attribute it builds; a model's thousands of Parameter "
    "names, dense literals and argument dictionaries are valid by construction",
    cost="measured in docs/xdsl-compat.md (benchmarks/compat_costs.py)",
    upstream="no unverified constructor in xDSL",
    delete_when="xDSL builds these attributes without re-verifying valid parameters",
    xdsl_sources={
        "xdsl.ir.core.Attribute.__post_init__": "d92dfdd76e05",
        "xdsl.ir.core.ParametrizedAttribute.__init__": "1ac367a6afb0",
    },
)

_A = TypeVar("_A", bound=ParametrizedAttribute | Data[Any])


def unchecked(cls: type[_A], **parameters: Any) -> _A:
    """`cls` with these parameters (all of them, by field name: `data` for a Data
    attribute), not verified: only for parameters valid by construction (see the
    module doc)."""
    attr = cls.__new__(cls)
    for name, value in parameters.items():
        object.__setattr__(attr, name, value)
    return attr
