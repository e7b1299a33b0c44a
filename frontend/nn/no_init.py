"""`nn.no_init_parameters()`: MindSpore's context manager that marks the
Parameters created inside it `init_param=False` (the class attribute
`Parameter.init_param` is False within the block, True again after it, even
when the block raises). MindSpore then defers filling initializer-created
Parameters until a checkpoint load or the first run; mindjit's initializers are
eager, so the values are the same either way and the block only sets the flag."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from mindjit.frontend.tensor import Parameter


@contextmanager
def no_init_parameters() -> Iterator[None]:
    Parameter.init_param = False  # type: ignore[attr-defined]
    try:
        yield
    finally:
        Parameter.init_param = True  # type: ignore[attr-defined]
