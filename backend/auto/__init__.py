"""`backend="auto"`: the numpy executor at once, IREE once compiled, if it measures faster."""

from mindjit.backend.auto.executable import AutoExecutable

__all__ = ["AutoExecutable"]
