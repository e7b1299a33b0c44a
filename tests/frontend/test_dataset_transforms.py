"""mindjit.dataset.transforms and .vision: each transform's values, shapes and
dtypes (MindSpore's), its argument errors (MindSpore's types and words), the
random ones seeded by the dataset seed inside and outside a pipeline, the
codec-bound ones a NotImplementedError, and the legacy 1.x module paths."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import mindjit as ms
import mindjit.dataset as ds
import mindjit.dataset.transforms as transforms
import mindjit.dataset.vision as vision
from mindjit.dataset.transforms import Relational
from mindjit.dataset.vision import Border, Inter

IMG = np.arange(3 * 4 * 3, dtype=np.uint8).reshape(3, 4, 3)  # <H, W, C>
GRAY = np.arange(12, dtype=np.uint8).reshape(3, 4)  # <H, W>


def _column(dataset, name="image"):
    return [row[name] for row in dataset.create_dict_iterator(output_numpy=True)]


# -- the tutorial's pipeline ---------------------------------------------------------------------


def test_the_mnist_tutorial_pipeline_gives_float_chw_images_and_int32_labels():
    images = np.random.default_rng(0).integers(0, 256, (6, 28, 28, 1)).astype(np.uint8)
    data = ds.NumpySlicesDataset({"image": images, "label": np.arange(6)}, shuffle=False)
    ops = [
        vision.Rescale(1.0 / 255.0, 0),
        vision.Normalize(mean=(0.1307,), std=(0.3081,)),
        vision.HWC2CHW(),
    ]
    data = data.map(operations=ops, input_columns="image")
    data = data.map(transforms.TypeCast(ms.int32), "label").batch(3)
    image, label = next(data.create_tuple_iterator())
    assert image.shape == (3, 1, 28, 28) and image.dtype == ms.float32
    assert label.dtype == ms.int32 and label.asnumpy().tolist() == [0, 1, 2]
    want = ((images[:3].astype(np.float64) / 255 - 0.1307) / 0.3081).transpose(0, 3, 1, 2)
    np.testing.assert_allclose(image.asnumpy(), want, rtol=1e-5, atol=1e-6)


# -- vision: values, layout, dtypes --------------------------------------------------------------


def test_rescale_normalize_hwc2chw_totensor():
    out = vision.Rescale(2.0, 1)(IMG)
    assert out.dtype == np.float32 and np.array_equal(out, IMG * 2.0 + 1)
    norm = vision.Normalize([10.0, 20, 30], [2.0, 4, 5])(IMG)
    assert norm.dtype == np.float32
    np.testing.assert_allclose(norm, (IMG - [10, 20, 30]) / np.array([2.0, 4, 5]), rtol=1e-6)
    chw = vision.Normalize([1.0, 2, 3], [1.0, 1, 1], is_hwc=False)(IMG.transpose(2, 0, 1))
    np.testing.assert_allclose(chw, IMG.transpose(2, 0, 1) - np.array([1.0, 2, 3])[:, None, None])
    assert vision.Normalize([5.0], [2.0])(GRAY).shape == (3, 4)  # no channel axis: one channel
    assert vision.HWC2CHW()(IMG).shape == (3, 3, 4)
    assert vision.HWC2CHW()(IMG).flags.c_contiguous
    assert vision.HWC2CHW()(GRAY) is GRAY  # <H, W> is left as it is
    tensor = vision.ToTensor()(IMG)
    assert tensor.shape == (3, 3, 4) and tensor.dtype == np.float32
    np.testing.assert_allclose(tensor, IMG.transpose(2, 0, 1) / 255.0, rtol=1e-6)
    assert vision.ToTensor(np.float64)(GRAY).shape == (1, 3, 4)
    assert vision.ToType(ms.float16)(IMG).dtype == np.float16


def test_shapes_a_transform_cannot_take_are_runtime_errors_naming_it():
    with pytest.raises(RuntimeError, match="Normalize: number of channels does not match"):
        vision.Normalize([1.0], [1.0])(IMG)
    with pytest.raises(RuntimeError, match=r"HWC2CHW: image shape is not <H,W,C> or <H,W>"):
        vision.HWC2CHW()(np.zeros((2, 2, 2, 2)))
    with pytest.raises(RuntimeError, match="Resize: the image shape should be"):
        vision.Resize(2)(np.zeros(4, np.uint8))
    with pytest.raises(TypeError, match="Input should be NumPy or PIL image, got"):
        vision.HWC2CHW()([[1, 2]])
    with pytest.raises(TypeError, match="img dimension should be 2 or 3"):
        vision.ToTensor()(np.zeros((1, 2, 2, 3)))


def test_resize_bilinear_and_nearest_as_opencv():
    row = np.array([[0, 255]], np.uint8)[..., None]
    # pixel centres aligned: the two middle pixels sample at 0.25 and 0.75
    assert vision.Resize((1, 4))(row)[0, :, 0].tolist() == [0, 64, 191, 255]
    np.testing.assert_allclose(
        vision.Resize((1, 4))(row.astype(np.float32))[0, :, 0], [0, 63.75, 191.25, 255]
    )
    assert vision.Resize((1, 4), Inter.NEAREST)(row)[0, :, 0].tolist() == [0, 0, 255, 255]
    # an int is the shorter edge, the other kept in proportion (floored)
    assert vision.Resize(2)(np.zeros((4, 7, 3), np.uint8)).shape == (2, 3, 3)
    assert vision.Resize(3)(np.zeros((8, 4), np.float32)).shape == (6, 3)
    # same size: the image back; a constant image stays constant; dtype kept
    big = np.random.default_rng(0).integers(0, 256, (5, 6, 3)).astype(np.uint8)
    assert np.array_equal(vision.Resize((5, 6))(big), big)
    flat = np.full((5, 6), 77, np.uint8)
    assert np.all(vision.Resize((9, 2))(flat) == 77)
    # halving averages pairs of pixels
    half = vision.Resize((1, 2))(np.array([[10.0, 20, 30, 50]], np.float32))
    np.testing.assert_allclose(half, [[15, 40]])
    with pytest.raises(NotImplementedError, match="Inter.NEAREST and Inter.BILINEAR"):
        vision.Resize(4, Inter.BICUBIC)


def test_crops_pads_and_flips():
    assert np.array_equal(vision.Crop((1, 2), 2)(GRAY), GRAY[1:3, 2:4])
    assert np.array_equal(vision.CenterCrop((2, 2))(GRAY), GRAY[0:2, 1:3])  # floor of the offset
    padded = vision.CenterCrop((5, 6))(GRAY)  # smaller image: zeros around it, odd pixel on top
    assert padded.shape == (5, 6) and np.array_equal(padded[1:4, 1:5], GRAY)
    assert padded.sum() == GRAY.sum()
    assert vision.CenterCrop(2)(np.zeros((4, 5, 6, 3))).shape == (4, 2, 2, 3)  # a batch
    with pytest.raises(RuntimeError, match="Crop: the crop region"):
        vision.Crop((2, 0), 2)(GRAY)
    p = vision.Pad([1, 2], fill_value=(1, 2, 3))(IMG)  # (left/right, top/bottom)
    assert p.shape == (7, 6, 3) and p[0, 0].tolist() == [1, 2, 3]
    assert np.array_equal(p[2:5, 1:5], IMG)
    assert vision.Pad(1, padding_mode=Border.EDGE)(GRAY)[0].tolist() == [0, 0, 1, 2, 3, 3]
    assert vision.Pad((1, 0, 0, 0), padding_mode=Border.REFLECT)(GRAY)[0].tolist() == [
        1,
        0,
        1,
        2,
        3,
    ]
    assert vision.Pad((1, 0, 0, 0), padding_mode=Border.SYMMETRIC)(GRAY)[0].tolist() == [
        0,
        0,
        1,
        2,
        3,
    ]
    assert np.array_equal(vision.HorizontalFlip()(IMG), IMG[:, ::-1])
    assert np.array_equal(vision.VerticalFlip()(GRAY), GRAY[::-1])
    assert np.array_equal(vision.RandomHorizontalFlip(1.0)(IMG), IMG[:, ::-1])
    assert np.array_equal(vision.RandomVerticalFlip(0.0)(IMG), IMG)


def test_grayscale_is_pil_luma():
    rgb = np.array([[[255, 0, 0], [0, 255, 0], [0, 0, 255], [10, 20, 30]]], np.uint8)
    assert vision.Grayscale()(rgb).tolist() == [[76, 150, 29, 18]]  # PIL's "L" values
    three = vision.Grayscale(3)(rgb)
    assert three.shape == (1, 4, 3) and np.all(three == three[..., :1])
    with pytest.raises(ValueError, match="should be either 1 or 3. Got 2"):
        vision.Grayscale(2)


# -- random transforms: seeded ---------------------------------------------------------------------


def _random_pipeline():
    images = np.arange(8 * 6 * 6, dtype=np.uint8).reshape(8, 6, 6, 1)
    data = ds.NumpySlicesDataset({"image": images}, shuffle=False)
    ops = [
        vision.RandomCrop(4, padding=1),
        vision.RandomHorizontalFlip(),
        transforms.RandomApply([vision.VerticalFlip()]),
        vision.RandomResizedCrop(3, scale=(0.3, 1.0)),
    ]
    return data.map(ops, input_columns="image")


def test_random_transforms_follow_the_dataset_seed():
    ds.config.set_seed(7)
    first = _column(_random_pipeline())
    second = _column(_random_pipeline())
    ds.config.set_seed(8)
    other = _column(_random_pipeline())
    assert all(a.shape == (3, 3, 1) for a in first)
    assert all(np.array_equal(a, b) for a, b in zip(first, second))
    assert not all(np.array_equal(a, b) for a, b in zip(first, other))
    ms.set_seed(7)  # ms.set_seed sets the dataset seed too
    assert all(np.array_equal(a, b) for a, b in zip(first, _column(_random_pipeline())))


def test_eager_random_transforms_restart_with_set_seed():
    crop = vision.RandomCrop(2)
    ds.config.set_seed(3)
    a = [crop(GRAY) for _ in range(5)]
    ds.config.set_seed(3)
    b = [crop(GRAY) for _ in range(5)]
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert len({x.tobytes() for x in a}) > 1  # the draws differ from call to call


def test_random_crop_pads_if_needed_and_random_resized_crop_falls_back():
    out = vision.RandomCrop((5, 6), pad_if_needed=True)(GRAY)
    assert out.shape == (5, 6)
    with pytest.raises(RuntimeError, match="crop size is bigger than the image"):
        vision.RandomCrop(5)(GRAY)
    # no area fits scale (4, 5) of the image: the centre crop clamped to the ratio range
    square = np.arange(36, dtype=np.float32).reshape(6, 6)
    out = vision.RandomResizedCrop(6, scale=(4.0, 5.0), max_attempts=1)(square)
    assert np.array_equal(out, square)


# -- transforms ------------------------------------------------------------------------------------


def test_type_cast_one_hot_fill_mask():
    assert transforms.TypeCast(ms.int32)(np.array([1.7, -2.2])).tolist() == [1, -2]
    assert transforms.TypeCast(np.float16)(np.array([1])).dtype == np.float16
    hot = transforms.OneHot(3)(np.array([0, 2], np.int32))
    assert hot.dtype == np.int32 and hot.tolist() == [[1, 0, 0], [0, 0, 1]]
    assert transforms.OneHot(3)(np.array(1)).tolist() == [0, 1, 0]
    smooth = transforms.OneHot(4, smoothing_rate=0.2)(np.array(1))
    assert smooth.dtype == np.float32
    np.testing.assert_allclose(smooth, [0.05, 0.85, 0.05, 0.05], rtol=1e-6)
    with pytest.raises(RuntimeError, match="OneHot index values are not in range"):
        transforms.OneHot(2)(np.array([2]))
    with pytest.raises(RuntimeError, match="does not support input of this type"):
        transforms.OneHot(2)(np.array([1.0]))
    filled = transforms.Fill(3)(np.array([1.5, 2.5]))
    assert filled.dtype == np.float64 and filled.tolist() == [3.0, 3.0]
    mask = transforms.Mask(Relational.GE, 2)(np.array([1, 2, 3]))
    assert mask.dtype == np.bool_ and mask.tolist() == [False, True, True]
    assert transforms.Mask(Relational.EQ, 2, ms.int32)(np.array([2, 3])).tolist() == [1, 0]


def test_concatenate_duplicate_unique_slice_pad_end():
    cat = transforms.Concatenate(0, np.array([9]), np.array([8]))
    assert cat(np.array([1, 2]), np.array([3])).tolist() == [9, 1, 2, 3, 8]
    with pytest.raises(RuntimeError, match="Only 1D input"):
        cat(np.zeros((2, 2), np.int64))
    a, b = transforms.Duplicate()(np.array([1, 2]))
    assert a.tolist() == b.tolist() == [1, 2] and a is not b
    values, index, counts = transforms.Unique()(np.array([[0, 1, 2], [1, 2, 3]]))
    assert values.tolist() == [0, 1, 2, 3] and index.tolist() == [0, 1, 2, 1, 2, 3]
    assert counts.tolist() == [1, 2, 2, 1] and index.dtype == counts.dtype == np.int32
    assert transforms.Unique()(np.array([5, 3, 5]))[0].tolist() == [5, 3]  # first-seen order
    x = np.array([1, 2, 3])
    assert transforms.Slice(slice(1, 3))(x).tolist() == [2, 3]
    assert transforms.Slice([0, -1])(x).tolist() == [1, 3]
    assert transforms.Slice(1)(x).tolist() == [2] and transforms.Slice(...)(x).tolist() == [1, 2, 3]
    assert transforms.PadEnd([4], 10)(x).tolist() == [1, 2, 3, 10]
    assert transforms.PadEnd([2, None])(np.ones((1, 2))).tolist() == [[1, 1], [0, 0]]
    assert transforms.PadEnd([2])(x).tolist() == [1, 2]  # a shorter dimension cuts
    with pytest.raises(RuntimeError, match="PadEnd: invalid pad shape"):
        transforms.PadEnd([2, 2])(x)


def test_compose_and_the_random_choices_in_a_pipeline():
    data = ds.NumpySlicesDataset({"x": np.arange(4).reshape(4, 1)}, shuffle=False)
    out = data.map(
        transforms.Compose([transforms.Duplicate(), lambda a, b: a + b]),
        input_columns="x",
    )
    assert [v.tolist() for v in _column(out, "x")] == [[0], [2], [4], [6]]
    two = data.map(transforms.Duplicate(), input_columns="x", output_columns=["x", "y"])
    assert two.get_col_names() == ["x", "y"]
    nested = transforms.Compose([transforms.Compose([transforms.TypeCast(np.float32)]), np.sqrt])
    assert len(nested.transforms) == 2 and nested(np.array([4]))[0] == 2
    ds.config.set_seed(0)
    choice = transforms.RandomChoice([lambda a: a + 1, lambda a: a + 100])
    picks = {int(choice(np.array(0))) for _ in range(20)}
    assert picks == {1, 100}
    order = transforms.RandomOrder([lambda a: a * 2, lambda a: a + 1])
    assert {int(order(np.array(1))) for _ in range(20)} == {3, 4}
    assert transforms.RandomApply([lambda a: a + 1], prob=0.0)(np.array(1)) == 1
    with pytest.raises(TypeError, match="Compose was called without an image"):
        transforms.Compose([np.sqrt])()


@pytest.mark.parametrize(
    ("make", "error", "message"),
    [
        (lambda: transforms.TypeCast("nope"), TypeError, "Argument data_type with value 'nope'"),
        (lambda: transforms.OneHot(0), ValueError, "must be greater than 0"),
        (
            lambda: transforms.OneHot(2, 1.5),
            ValueError,
            r"smoothing_rate is not within .*\[0.0, 1.0\]",
        ),
        (lambda: transforms.OneHot(True), TypeError, "Argument num_classes"),
        (lambda: transforms.Fill([1]), TypeError, "Argument fill_value"),
        (lambda: transforms.Mask(0, 1), TypeError, "Argument operator"),
        (lambda: transforms.Concatenate(1), ValueError, "only 1D concatenation supported"),
        (lambda: transforms.PadEnd([0]), ValueError, "is not within the required interval"),
        (lambda: transforms.PadEnd([1.5]), TypeError, "a value in the list is not an integer"),
        (lambda: transforms.Compose([]), ValueError, "op_list can not be empty"),
        (lambda: transforms.Compose(np.sqrt), TypeError, "Argument op_list"),
        (lambda: transforms.Compose([1]), TypeError, r"op_list\[0\] is neither a transforms op"),
        (lambda: transforms.RandomApply([np.sqrt], 2), ValueError, "Input prob is not within"),
        (lambda: transforms.Slice("a"), TypeError, "Argument slice"),
        (lambda: vision.Rescale("a", 0), TypeError, "Argument rescale"),
        (
            lambda: vision.Normalize([1.0], [0.0]),
            ValueError,
            r"std\[0\] is not within .*\(0, 255\]",
        ),
        (lambda: vision.Normalize([300.0], [1.0]), ValueError, r"mean\[0\] is not within"),
        (lambda: vision.Normalize([1.0, 2.0], [1.0]), ValueError, "Length of mean and std"),
        (lambda: vision.Normalize((1.0,), (1.0,), is_hwc=1), TypeError, "Argument is_hwc"),
        (lambda: vision.Resize(0), ValueError, "is not within the required interval"),
        (lambda: vision.Resize((1, 2, 3)), TypeError, "Size should be a single integer"),
        (lambda: vision.Resize(4, "bilinear"), TypeError, "Argument interpolation"),
        (lambda: vision.CenterCrop(-1), ValueError, "is not within the required interval"),
        (lambda: vision.Crop((0,), 2), TypeError, "Coordinates should be a list/tuple"),
        (lambda: vision.RandomCrop(2, padding=-1), ValueError, "Input padding is not within"),
        (lambda: vision.RandomCrop(2, fill_value=256), ValueError, "fill_value is not within"),
        (lambda: vision.Pad(1, padding_mode="edge"), TypeError, "Argument padding_mode"),
        (lambda: vision.Pad([1, 2, 3]), ValueError, "should be 2 or 4"),
        (lambda: vision.RandomHorizontalFlip(1.5), ValueError, "Input prob is not within"),
        (lambda: vision.RandomResizedCrop(2, scale=(1.0, 0.5)), ValueError, r"\(min,max\) format"),
        (
            lambda: vision.RandomResizedCrop(2, ratio=(0, 1)),
            ValueError,
            r"ratio\[0\] is not within",
        ),
        (lambda: vision.ToTensor(None), TypeError, "Argument output_type"),
    ],
)
def test_bad_arguments_are_mindspore_errors(make, error, message):
    with pytest.raises(error, match=message):
        make()


def test_codec_transforms_and_missing_names_say_so():
    for name in ("Decode", "RandomCropDecodeResize", "ToPIL"):
        with pytest.raises(NotImplementedError, match=f"vision.{name} is not implemented"):
            getattr(vision, name)()
    with pytest.raises(NotImplementedError, match="Plugin is not implemented"):
        transforms.Plugin("lib.so", "f")
    with pytest.raises(AttributeError, match="does not implement mindspore.dataset.vision.Rotate"):
        vision.Rotate  # noqa: B018


def test_the_legacy_modules_warn_and_give_the_same_transforms():
    import mindjit.dataset.transforms.c_transforms as c_transforms
    import mindjit.dataset.transforms.py_transforms as py_transforms
    import mindjit.dataset.vision.c_transforms as c_vision
    from mindjit.dataset.vision import utils

    assert ds.transforms is transforms and ds.vision is vision and vision.utils is utils
    assert c_vision.Inter is Inter and c_transforms.Relational is Relational
    with pytest.warns(FutureWarning, match="'HWC2CHW' from mindjit.dataset.vision.c_transforms"):
        op = c_vision.HWC2CHW()
    assert isinstance(op, vision.HWC2CHW) and op(IMG).shape == (3, 3, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        assert c_transforms.TypeCast(ms.int32)(np.array([1.5])).tolist() == [1]
        assert py_transforms.OneHotOp(2)(np.array(1)).tolist() == [0, 1]
        with pytest.raises(NotImplementedError, match="Decode"):
            c_vision.Decode()
