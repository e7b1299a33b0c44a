"""`mindjit.dataset` (`import mindjit.dataset as ds`): MindSpore's in-memory
dataset pipeline, enough for the tutorials' training loops and `Model.train`.

    data = ds.NumpySlicesDataset({"image": x, "label": y}, shuffle=True)
    data = data.map(lambda x: x / 255.0, input_columns="image").batch(32)
    for image, label in data.create_tuple_iterator(): ...

Sources (sources.py) and operations (nodes.py) follow MindSpore's rules and
messages; the pipeline runs in the calling thread (`num_parallel_workers` and
`python_multiprocessing` are checked and then have no effect), and the
file-format readers raise NotImplementedError (readers.py). `transforms` and
`vision` are MindSpore's transforms for `map`, numpy functions.
"""

from mindjit.frontend.dataset import config, transforms, vision
from mindjit.frontend.dataset.dataset import Dataset
from mindjit.frontend.dataset.iterators import DatasetIterator
from mindjit.frontend.dataset.readers import (
    CelebADataset,
    Cifar10Dataset,
    Cifar100Dataset,
    CocoDataset,
    CSVDataset,
    FashionMnistDataset,
    ImageFolderDataset,
    MindDataset,
    MnistDataset,
    TextFileDataset,
    TFRecordDataset,
    VOCDataset,
)
from mindjit.frontend.dataset.sources import GeneratorDataset, NumpySlicesDataset

__all__ = [
    "CSVDataset",
    "CelebADataset",
    "Cifar100Dataset",
    "Cifar10Dataset",
    "CocoDataset",
    "Dataset",
    "DatasetIterator",
    "FashionMnistDataset",
    "GeneratorDataset",
    "ImageFolderDataset",
    "MindDataset",
    "MnistDataset",
    "NumpySlicesDataset",
    "TFRecordDataset",
    "TextFileDataset",
    "VOCDataset",
    "config",
    "transforms",
    "vision",
]
