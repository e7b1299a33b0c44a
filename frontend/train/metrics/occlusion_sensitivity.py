"""`OcclusionSensitivity(pad_val, margin, n_batch, b_box)`: how much a
classification model's score for the label drops when a (2*margin)-wide box of
the single input image, centred on each position (of the bounding box `b_box`),
is filled with `pad_val`; the occluded images run through the model `n_batch` at
a time. MindSpore's computation: `update(model, image, label)` calls the model
Cell on Tensors, `eval()` is baseline score - occluded scores, per position."""

from __future__ import annotations

import numpy as np

from mindjit.frontend.cell_base import CellBase
from mindjit.frontend.tensor import Tensor
from mindjit.frontend.train.metrics.metric import (
    Metric,
    check_type,
    not_updated,
    rearrange_inputs,
)


class OcclusionSensitivity(Metric):
    def __init__(self, pad_val=0.0, margin=2, n_batch=128, b_box=None):
        super().__init__()
        self.pad_val = check_type(pad_val, "pad_val", (float,))
        self.margin = check_type(margin, "margin", (int, list))
        self.n_batch = check_type(n_batch, "n_batch", (int,))
        self.b_box = b_box if b_box is None else check_type(b_box, "b_box", (list,))
        self.clear()

    def clear(self) -> None:
        self._baseline, self._sensitivity_im = 0, 0
        self._is_update = False

    @rearrange_inputs
    def update(self, *inputs) -> None:
        if len(inputs) != 3:
            raise ValueError(
                "For 'OcclusionSensitivity.update', it needs 3 inputs (classification model, "
                f"predicted value, label), but got {len(inputs)}."
            )
        model = inputs[0]
        if not isinstance(model, CellBase):  # nn.Cell's base: train.metrics loads before nn
            raise TypeError(
                f"The type of 'model' should be 'Cell', but got type '{type(model).__name__}'."
            )
        y_pred = self._convert_data(inputs[1])
        label = self._convert_data(inputs[2])
        if y_pred.shape[0] > 1:
            raise RuntimeError(
                "For 'OcclusionSensitivity.update', the shape at index 0 of the predicted value "
                f"(input[1]) must be 1, but got {y_pred.shape[0]}."
            )
        if np.prod(label.shape) != y_pred.shape[0]:
            raise RuntimeError(
                "For 'OcclusionSensitivity.update', the number of the label (input[2]) must be "
                f"same as the batches, but got the label number {np.prod(label.shape)}, and "
                f"batches {y_pred.shape[0]}."
            )
        shape = np.array(y_pred.shape[1:])
        box_min, box_max = _bounding_box(self.b_box, shape)
        label = label.reshape(()) if label.size == 1 else label  # (1,): as a 0-d label
        self._baseline = model(Tensor(y_pred)).asnumpy()[0, label].item()
        out_shape = shape if self.b_box is None else box_max - box_min + 1
        total = int(np.prod(out_shape))
        images, ids, scores = [], [], []
        for i in range(total):
            idx = np.unravel_index(i, out_shape)
            if box_min is not None:
                idx += box_min
            lo = [max(0, k - self.margin) for k in idx]
            hi = [min(n, k + self.margin) for k, n in zip(idx, shape)]
            occluded = y_pred.copy()
            occluded[(...,) + tuple(slice(a, b) for a, b in zip(lo, hi))] = self.pad_val
            images.append(occluded)
            ids.append(label)
            if len(images) == self.n_batch or i == total - 1:
                batch_ids = np.expand_dims(ids, 1)
                out = model(Tensor(np.vstack(images))).asnumpy()
                scores.append(out[np.arange(batch_ids.shape[0])[:, None], batch_ids])
                images, ids = [], []
        self._sensitivity_im = np.vstack(scores).reshape(out_shape)
        self._is_update = True

    def eval(self):
        if not self._is_update:
            raise not_updated()
        return self._baseline - np.squeeze(self._sensitivity_im)


def _bounding_box(b_box, shape: np.ndarray):
    if b_box is None:
        return None, None
    if len(b_box) != 2 * len(shape):
        raise ValueError(
            "For 'OcclusionSensitivity', the bounding box must contain upper and lower for all "
            "dimensions (except batch number), and the length of 'b_box' must be twice as long as "
            f"predicted value's (except batch number), but got 'b_box' length {len(b_box)}, "
            f"predicted value length (except batch number) {len(shape)}."
        )
    box_min, box_max = np.array(b_box[::2]), np.array(b_box[1::2])
    box_min[box_min < 0] = 0
    box_max[box_max < 0] = shape[box_max < 0] - 1
    if np.any(box_max >= shape):
        raise ValueError(
            "For 'OcclusionSensitivity', maximum bounding box must be smaller than image size for "
            "all values."
        )
    if np.any(box_min > box_max):
        raise ValueError(
            "For 'OcclusionSensitivity', minimum bounding box must be smaller than maximum "
            "bounding box for all values."
        )
    return box_min, box_max
