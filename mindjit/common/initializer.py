"""`mindjit.common.initializer`, as `mindspore.common.initializer`: weight
initializers (`Normal(0.02)`, `HeUniform()` ...) and `initializer(init, shape, dtype)`."""

from mindjit.frontend.nn.init import (
    Constant,
    HeNormal,
    HeUniform,
    Initializer,
    Normal,
    One,
    TruncatedNormal,
    Uniform,
    XavierNormal,
    XavierUniform,
    Zero,
    initializer,
)

__all__ = [
    "Constant",
    "HeNormal",
    "HeUniform",
    "Initializer",
    "Normal",
    "One",
    "TruncatedNormal",
    "Uniform",
    "XavierNormal",
    "XavierUniform",
    "Zero",
    "initializer",
]
