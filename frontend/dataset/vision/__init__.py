"""`mindjit.dataset.vision` (`import mindjit.dataset.vision as vision`): MindSpore's
image transforms on numpy HWC arrays, run in `Dataset.map` or called directly.

    data = data.map([vision.Rescale(1.0 / 255.0, 0), vision.Normalize((0.1307,), (0.3081,)),
                     vision.HWC2CHW()], input_columns="image")

pixels.py changes values and layout, geometry.py moves pixels (resize.py is
the numpy resampling, image.py what they share), utils.py the enums,
unsupported.py the transforms that need a codec or PIL (a NotImplementedError
naming them), c_transforms the deprecated 1.x module. A MindSpore vision name
mindjit does not have is an AttributeError saying so.
"""

from mindjit.frontend.dataset.vision import c_transforms, utils
from mindjit.frontend.dataset.vision.geometry import (
    CenterCrop,
    Crop,
    HorizontalFlip,
    Pad,
    RandomCrop,
    RandomHorizontalFlip,
    RandomResizedCrop,
    RandomVerticalFlip,
    Resize,
    VerticalFlip,
)
from mindjit.frontend.dataset.vision.image import ImageTensorOperation
from mindjit.frontend.dataset.vision.pixels import (
    HWC2CHW,
    Grayscale,
    Normalize,
    Rescale,
    ToTensor,
    ToType,
)
from mindjit.frontend.dataset.vision.unsupported import Decode, RandomCropDecodeResize, ToPIL
from mindjit.frontend.dataset.vision.utils import Border, ImageBatchFormat, Inter

__all__ = [
    "HWC2CHW",
    "Border",
    "CenterCrop",
    "Crop",
    "Decode",
    "Grayscale",
    "HorizontalFlip",
    "ImageBatchFormat",
    "ImageTensorOperation",
    "Inter",
    "Normalize",
    "Pad",
    "RandomCrop",
    "RandomCropDecodeResize",
    "RandomHorizontalFlip",
    "RandomResizedCrop",
    "RandomVerticalFlip",
    "Rescale",
    "Resize",
    "ToPIL",
    "ToTensor",
    "ToType",
    "VerticalFlip",
    "c_transforms",
    "utils",
]

#: MindSpore 2.x's other vision names, for a clear error (the list of its API pages)
_MINDSPORE_ONLY = frozenset(
    """AdjustBrightness AdjustContrast AdjustGamma AdjustHue AdjustSaturation AdjustSharpness
    Affine AutoAugment AutoContrast BoundingBoxAugment ConvertColor CutMixBatch CutOut
    DecodeVideo Equalize Erase FiveCrop GaussianBlur HsvToRgb Invert LinearTransformation MixUp
    MixUpBatch NormalizePad PadToSize Perspective Posterize RandAugment RandomAdjustSharpness
    RandomAffine RandomAutoContrast RandomColor RandomColorAdjust RandomCropWithBBox
    RandomEqualize RandomErasing RandomGrayscale RandomHorizontalFlipWithBBox RandomInvert
    RandomLighting RandomPerspective RandomPosterize RandomResizedCropWithBBox RandomResize
    RandomResizeWithBBox RandomRotation RandomSelectSubpolicy RandomSharpness RandomSolarize
    RandomVerticalFlipWithBBox ResizedCrop ResizeWithBBox RgbToHsv Rotate SlicePatches Solarize
    TenCrop ToNumpy TrivialAugmentWide UniformAugment ConvertMode SliceMode AutoAugmentPolicy
    read_file read_image read_video write_file write_jpeg write_png encode_jpeg encode_png
    get_image_num_channels get_image_size""".split()
)


def __getattr__(name: str):
    if name in _MINDSPORE_ONLY:
        raise AttributeError(
            f"mindjit does not implement mindspore.dataset.vision.{name}; mindjit.dataset.vision "
            f"has {', '.join(sorted(n for n in __all__ if n[0].isupper()))}"
        )
    raise AttributeError(f"module 'mindjit.dataset.vision' has no attribute {name!r}")
