"""`mindjit.common`, as `mindspore.common`: the initializer classes."""

from mindjit.common import initializer

__all__ = ["initializer"]
