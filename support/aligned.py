"""Arrays whose memory starts on a 64-byte boundary.

IREE's CPU code assumes every buffer it is given is 64-byte aligned (an imported
numpy array at a 16-byte boundary crashed a run), and numpy's allocator only
promises 16. A Tensor's array is made aligned when the Tensor copies its input
anyway, so that the IREE backend can import inputs and Parameters in place
instead of copying them at every call (4 MB per call for the 16-block MLP
benchmark's weights).
"""

from __future__ import annotations

import numpy as np

ALIGNMENT = 64


def is_aligned(array: np.ndarray) -> bool:
    """C-contiguous, not empty, and starting on an `ALIGNMENT` boundary."""
    return (
        array.flags.c_contiguous
        and array.nbytes > 0
        and array.__array_interface__["data"][0] % ALIGNMENT == 0
    )


def aligned_copy(array: np.ndarray) -> np.ndarray:
    """A C-contiguous copy of `array` whose memory is `ALIGNMENT`-aligned."""
    raw = np.empty(array.nbytes + ALIGNMENT, np.uint8)
    offset = -raw.__array_interface__["data"][0] % ALIGNMENT
    copy = raw[offset : offset + array.nbytes].view(array.dtype).reshape(array.shape)
    copy[...] = array
    return copy
