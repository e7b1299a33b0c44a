"""`CosineSimilarity(similarity='cosine', reduction='none', zero_diagonal=True)`, the
metric MindSpore 2.10 exports as both `train.CosineSimilarity` and
`nn.CosineSimilarity`: update(x) with an (N, D) matrix keeps the (N, N) matrix of
row similarities (dot products, of the L2-normalised rows for 'cosine'); eval()
zeroes its diagonal (zero_diagonal) and returns it, or its row means / sums."""

from __future__ import annotations

import numpy as np

from mindjit.frontend.train.metrics.metric import Metric, rearrange_inputs


def _choice(value: object, what: str, allowed: list[str]) -> str:
    if not isinstance(value, str):
        raise TypeError(
            f"The type of '{what}' should be 'str', but got type '{type(value).__name__}'."
        )
    if value not in allowed:
        raise ValueError(f"The '{what}' must be str and must be in '{allowed}', but got '{value}'.")
    return value


class CosineSimilarity(Metric):
    def __init__(
        self, similarity: str = "cosine", reduction: str = "none", zero_diagonal: bool = True
    ) -> None:
        super().__init__()
        self.similarity = _choice(similarity, "similarity", ["dot", "cosine"])
        self.reduction = _choice(reduction, "reduction", ["none", "sum", "mean"])
        if not isinstance(zero_diagonal, bool):
            raise TypeError(
                "The type of 'zero_diagonal' should be 'bool', but got type "
                f"'{type(zero_diagonal).__name__}'."
            )
        self.zero_diagonal = zero_diagonal
        self.clear()

    def clear(self) -> None:
        self.sqr_mtx_res: np.ndarray | int = 0
        self._is_update = False

    @rearrange_inputs
    def update(self, inputs) -> None:
        data = self._convert_data(inputs)
        if self.similarity == "cosine":
            data = data / np.expand_dims(np.linalg.norm(data, ord=2, axis=1), 1)
        self.sqr_mtx_res = np.dot(data, data.transpose(1, 0))
        self._is_update = True

    def eval(self) -> np.ndarray:
        if not self._is_update:
            raise RuntimeError("Please call the 'update' method before calling 'eval' method.")
        if self.zero_diagonal:
            np.fill_diagonal(self.sqr_mtx_res, 0)
        if self.reduction == "mean":
            self.sqr_mtx_res = np.mean(self.sqr_mtx_res, axis=-1)
        if self.reduction == "sum":
            self.sqr_mtx_res = np.sum(self.sqr_mtx_res, axis=-1)
        return self.sqr_mtx_res
