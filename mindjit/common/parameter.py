"""`mindjit.common.parameter`, as `mindspore.common.parameter`: `Parameter` and
`ParameterTuple` (frontend/tensor.py, frontend/parameter_tuple.py)."""

from mindjit.frontend.parameter_tuple import ParameterTuple
from mindjit.frontend.tensor import Parameter

__all__ = ["Parameter", "ParameterTuple"]
