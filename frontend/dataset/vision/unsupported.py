"""The vision transforms that need an image codec or PIL (`Decode`,
`RandomCropDecodeResize`, `ToPIL`), named so that a script using one fails at
once with a clear message: mindjit decodes no image files (give the pipeline
decoded uint8 HWC arrays instead)."""

from __future__ import annotations

from typing import Any


def _unsupported(name: str, needs: str) -> type:
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError(
            f"mindjit.dataset.vision.{name} is not implemented: it needs {needs}, which mindjit "
            "does not have; decode the images beforehand and give the pipeline uint8 arrays of "
            "shape (H, W, C)"
        )

    return type(name, (), {"__init__": __init__, "__doc__": f"Not implemented: {name}."})


Decode = _unsupported("Decode", "an image codec (JPEG, PNG ...)")
RandomCropDecodeResize = _unsupported("RandomCropDecodeResize", "an image codec (JPEG, PNG ...)")
ToPIL = _unsupported("ToPIL", "PIL (Pillow)")
