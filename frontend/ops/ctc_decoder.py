"""`ops.ctc_greedy_decoder(inputs, sequence_length, merge_repeated=True)`: the best path
of each sequence (the argmax class per step), repeats merged, blanks (the last
class) removed, as a sparse tensor: (decoded_indices (K, 2) int64, decoded_values
(K,) int64, decoded_shape (2,) int64 = (batch, longest), log_probability
(batch, 1) = -sum of the steps' maxima), as MindSpore's CTCGreedyDecoder.

The number of decoded labels K depends on the values, so, as ops.unique and
ops.nonzero (frontend/ops/value_shapes.py), it runs on concrete inputs: any
Tensor in PyNative, a constant in a graph (folded while the graph is traced);
a computed input in GRAPH_MODE is a ValueError. No gradient (integer outputs;
MindSpore defines none either).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindjit.frontend import dtype as D
from mindjit.frontend.ops.promotion import is_tensor
from mindjit.frontend.ops.value_shapes import _check_constant
from mindjit.frontend.tensor import Tensor


def ctc_greedy_decoder(
    inputs: Any, sequence_length: Any, merge_repeated: bool = True
) -> tuple[Any, Any, Any, Any]:
    """(decoded_indices, decoded_values, decoded_shape, log_probability)."""
    name = "CTCGreedyDecoder"
    for what, v in (("inputs", inputs), ("sequence_length", sequence_length)):
        if not is_tensor(v):
            raise TypeError(f"For '{name}', '{what}' must be a Tensor, got {type(v).__name__}")
    if not isinstance(merge_repeated, bool):
        raise TypeError(f"For '{name}', 'merge_repeated' must be a bool, got {merge_repeated!r}")
    if len(inputs.shape) != 3:
        raise ValueError(f"For '{name}', inputs's dim must be 3, but got: {len(inputs.shape)}.")
    if inputs.dtype not in (D.float32, D.float64):
        raise TypeError(f"For '{name}', 'inputs' must be float32 or float64, got {inputs.dtype}")
    if sequence_length.dtype != D.int32:
        raise TypeError(
            f"For primitive[{name}], the input argument[sequence length dtype] must be a type of "
            f"{{Tensor[Int32]}}, but got Tensor[{sequence_length.dtype}]."
        )
    steps, batch, classes = inputs.shape
    if tuple(sequence_length.shape) != (batch,):
        raise ValueError(f"For '{name}', 'sequence_length' must have shape ({batch},)")
    _check_constant(inputs, name)
    _check_constant(sequence_length, name)
    x, lengths = inputs.asnumpy(), sequence_length.asnumpy()
    blank = classes - 1
    indices, values, logp = [], [], np.zeros((batch, 1), x.dtype)
    longest = 0
    for b in range(batch):
        n = int(lengths[b])
        if n > steps:
            raise RuntimeError(
                f"For '{name}', sequence_length[{b}] {n} should be less than {steps}."
            )
        best = x[:n, b].argmax(1)
        logp[b, 0] = -x[:n, b].max(1).sum() if n else 0
        decoded = []
        for t, k in enumerate(best):
            if k == blank or (merge_repeated and t > 0 and k == best[t - 1]):
                continue
            decoded.append(int(k))
        indices += [[b, i] for i in range(len(decoded))]
        values += decoded
        longest = max(longest, len(decoded))
    return (
        Tensor(np.array(indices, np.int64).reshape(-1, 2)),
        Tensor(np.array(values, np.int64)),
        Tensor(np.array([batch, longest], np.int64)),
        Tensor(logp),
    )
