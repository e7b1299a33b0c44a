"""The segmentation surface distances, MindSpore's metrics computed without
scipy: `HausdorffDistance` (the largest, or a percentile, of the distances from
one mask's edge to the other's), `MeanSurfaceDistance` (their mean) and
`RootMeanSquareDistance` (MindSpore's: the mean of their squares, its square root
only when symmetric). Each `update(y_pred, y, label_idx)` takes the masks
`== label_idx`; an edge is a mask minus its erosion by the cross-shaped element
(scipy's `binary_erosion`, outside counted as background); distances are exact
euclidean, chessboard (L-inf) or taxicab (L1) distances between edge voxels,
what scipy's `distance_transform_edt`/`distance_transform_cdt` give there (the
latter as int32). The distances are computed pairwise between edge voxels, in
chunks: exact, and quadratic in the number of edge voxels."""

from __future__ import annotations

import numpy as np

from mindjit.frontend.train.metrics.metric import (
    Metric,
    check_choice,
    check_type,
    not_updated,
    rearrange_inputs,
)

DISTANCES = ["euclidean", "chessboard", "taxicab"]


def erode(mask: np.ndarray) -> np.ndarray:
    """scipy.ndimage.binary_erosion(mask): a voxel stays if it and its 2*ndim face
    neighbours are set (outside the array is unset)."""
    mask = np.asarray(mask, bool)
    if mask.ndim == 0:
        return mask.copy()
    padded = np.pad(mask, 1, constant_values=False)
    out = mask.copy()
    centre = tuple(slice(1, -1) for _ in range(mask.ndim))
    for axis in range(mask.ndim):
        for shift in (0, 2):
            window = list(centre)
            window[axis] = slice(shift, shift + mask.shape[axis])
            out &= padded[tuple(window)]
    return out


def edges(mask: np.ndarray) -> np.ndarray:
    mask = np.asarray(mask, bool)
    return erode(mask) ^ mask


def surface_distance(from_edges: np.ndarray, to_edges: np.ndarray, metric: str) -> np.ndarray:
    """The distance from each set voxel of `from_edges` (in C order) to the nearest set
    voxel of `to_edges`; empty if `from_edges` has none, inf if `to_edges` has none."""
    sources = np.argwhere(from_edges)
    if sources.shape[0] == 0:
        return np.array([])
    targets = np.argwhere(to_edges)
    if targets.shape[0] == 0:
        return np.full(sources.shape[0], np.inf)
    out = []
    chunk = max(1, 4_000_000 // max(1, targets.shape[0] * max(1, sources.shape[1])))
    for start in range(0, sources.shape[0], chunk):
        diff = np.abs(sources[start : start + chunk, None, :] - targets[None, :, :])
        if metric == "euclidean":
            out.append(np.sqrt((diff.astype(np.float64) ** 2).sum(-1)).min(1))
        elif metric == "chessboard":
            out.append(diff.max(-1).min(1).astype(np.int32))
        else:
            out.append(diff.sum(-1).min(1).astype(np.int32))
    return np.concatenate(out)


def _check_update(owner: str, inputs: tuple, convert, label_type_error: type) -> tuple:
    if len(inputs) != 3:
        raise ValueError(
            f"For '{owner}.update', it needs 3 inputs (predicted value, true value, label index), "
            f"but got {len(inputs)}."
        )
    y_pred, y, label_idx = convert(inputs[0]), convert(inputs[1]), inputs[2]
    if not isinstance(label_idx, int | float):
        raise label_type_error(
            f"For '{owner}.update', the label index (input[2]) must be int or float, but got "
            f"{type(label_idx)}."
        )
    if label_idx not in y_pred and label_idx not in y:
        raise ValueError(
            f"For '{owner}.update', the label index (input[2]) must be in predicted value "
            f"(input[0]) or true value (input[1]), but {label_idx} is not."
        )
    if y_pred.size == 0 or y_pred.shape != y.shape:
        raise ValueError(
            f"For '{owner}.update', the size of predicted value (input[0]) and true value "
            "(input[1]) must be greater than 0, in addition to that, predicted value and true "
            f"value must have the same shape, but got predicted value size: {y_pred.size}, "
            f"shape: {y_pred.shape}, true value size: {y.size}, shape: {y.shape}."
        )
    return y_pred, y, label_idx


def _bounding_box(mask: np.ndarray) -> tuple[list[int], list[int]]:
    nonzero = np.nonzero(mask)
    start, end = [], []
    for i in range(mask.ndim):
        if nonzero[i].size <= 0:
            raise ValueError(f"Did not find nonzero index at the spatial dim {i}")
        start.append(max(0, int(np.min(nonzero[i]))))
        end.append(min(mask.shape[i], int(np.max(nonzero[i])) + 1))
    return start, end


class HausdorffDistance(Metric):
    def __init__(self, distance_metric="euclidean", percentile=None, directed=False, crop=True):
        super().__init__()
        metric = check_type(distance_metric, "distance_metric", (str,))
        self.distance_metric = check_choice(metric, DISTANCES, "distance_metric")
        self.percentile = (
            None if percentile is None else check_type(percentile, "percentile", (float,))
        )
        self.directed = directed if directed is None else check_type(directed, "directed", (bool,))
        self.crop = crop if crop is None else check_type(crop, "crop", (bool,))
        self.clear()

    def clear(self) -> None:
        self.y_pred_edges, self.y_edges = 0, 0
        self._is_update = False

    @rearrange_inputs
    def update(self, *inputs) -> None:
        self._is_update = True
        y_pred, y, label_idx = _check_update(
            "HausdorffDistance", inputs, self._convert_data, ValueError
        )
        y_pred, y = y_pred == label_idx, y == label_idx  # MindSpore compares bool masks too
        if self.crop:
            if not np.any(y_pred | y):
                self.y_pred_edges, self.y_edges = np.zeros_like(y_pred), np.zeros_like(y)
                return
            start, end = _bounding_box(y_pred | y)
            box = tuple(slice(s, e) for s, e in zip(start, end))
            y_pred, y = np.squeeze(y_pred[box]), np.squeeze(y[box])
        self.y_pred_edges, self.y_edges = edges(y_pred), edges(y)

    def _distance(self, from_edges: np.ndarray, to_edges: np.ndarray):
        distances = surface_distance(from_edges, to_edges, self.distance_metric)
        if distances.shape == (0,):
            return np.inf
        if not self.percentile:
            return distances.max()
        if 0 <= self.percentile <= 100:
            return np.percentile(distances, self.percentile)
        raise ValueError(
            "For 'HausdorffDistance', the value of the argument 'percentile' must be [0, 100], "
            f"but got {self.percentile}."
        )

    def eval(self):
        if not self._is_update:
            raise not_updated()
        hd = self._distance(self.y_pred_edges, self.y_edges)
        if self.directed:
            return hd
        return max(hd, self._distance(self.y_edges, self.y_pred_edges))


class _SurfaceMean(Metric):
    _name = ""

    def __init__(self, symmetric=False, distance_metric="euclidean"):
        super().__init__()
        metric = check_type(distance_metric, "distance_metric", (str,))
        self.distance_metric = check_choice(metric, DISTANCES, "distance_metric")
        self.symmetric = check_type(symmetric, "symmetric", (bool,))
        self.clear()

    def clear(self) -> None:
        self._y_pred_edges, self._y_edges = 0, 0
        self._is_update = False

    @rearrange_inputs
    def update(self, *inputs) -> None:
        error = TypeError if self._name == "RootMeanSquareDistance" else ValueError
        y_pred, y, label_idx = _check_update(self._name, inputs, self._convert_data, error)
        if y_pred.dtype != bool:
            y_pred = y_pred == label_idx
        if y.dtype != bool:
            y = y == label_idx
        self._y_pred_edges, self._y_edges = edges(y_pred), edges(y)
        self._is_update = True

    def eval(self):
        if not self._is_update:
            raise not_updated()
        forward = surface_distance(self._y_pred_edges, self._y_edges, self.distance_metric)
        if forward.shape == (0,):
            return np.inf
        if not self.symmetric:
            return self._reduce(forward)
        backward = surface_distance(self._y_edges, self._y_pred_edges, self.distance_metric)
        if backward.shape == (0,):
            return np.inf
        return self._combine(self._reduce(forward), self._reduce(backward))


class MeanSurfaceDistance(_SurfaceMean):
    _name = "MeanSurfaceDistance"

    @staticmethod
    def _reduce(d):
        return d.mean()

    @staticmethod
    def _combine(a, b):
        return np.mean((a, b))


class RootMeanSquareDistance(_SurfaceMean):
    _name = "RootMeanSquareDistance"

    @staticmethod
    def _reduce(d):
        return (d**2).mean()

    @staticmethod
    def _combine(a, b):
        return np.sqrt(np.mean((a, b)))
