"""MindSpore's file-format datasets, named so that a script using one fails at
once with a clear message: mindjit reads no dataset files (the data of a test
or an example is made in memory and given to NumpySlicesDataset or
GeneratorDataset)."""

from __future__ import annotations

from typing import Any


def _reader(name: str) -> type:
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError(
            f"mindjit.dataset.{name} is not implemented: mindjit reads no dataset files; load "
            "the data into numpy arrays and use NumpySlicesDataset or GeneratorDataset"
        )

    return type(name, (), {"__init__": __init__, "__doc__": f"Not implemented: {name}."})


MnistDataset = _reader("MnistDataset")
FashionMnistDataset = _reader("FashionMnistDataset")
Cifar10Dataset = _reader("Cifar10Dataset")
Cifar100Dataset = _reader("Cifar100Dataset")
ImageFolderDataset = _reader("ImageFolderDataset")
CocoDataset = _reader("CocoDataset")
VOCDataset = _reader("VOCDataset")
CelebADataset = _reader("CelebADataset")
MindDataset = _reader("MindDataset")
TFRecordDataset = _reader("TFRecordDataset")
CSVDataset = _reader("CSVDataset")
TextFileDataset = _reader("TextFileDataset")
