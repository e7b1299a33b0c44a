"""BiDense, CentralCrop, ImageGradients (issue 38, round 2): MindSpore 2.10's
results for the same inputs (summaries: dtype, shape, first 12 values, sum) in
PyNative and GRAPH_MODE, gradients by finite differences, MindSpore's errors."""

from __future__ import annotations

import grad_check
import numpy as np
import pytest
from ms_inputs import g

import mindjit as ms
from mindjit import Tensor, nn

MODES = [ms.PYNATIVE_MODE, ms.GRAPH_MODE]


# printed by MindSpore 2.10 (CPU, PyNative): dtype, shape, first 12 values, sum
MS = {
    "bidense": (
        "float32",
        (5, 2),
        [
            1.8664519,
            4.5725293,
            1.3392098,
            -1.4610347,
            4.7251945,
            -5.9114037,
            -9.3683214,
            5.3331571,
            1.7949548,
            0.8997604,
        ],
        3.790498,
    ),
    "bidense3": (
        "float32",
        (2, 5, 2),
        [
            1.6773984,
            5.0952778,
            1.1501564,
            -0.9382862,
            4.5361409,
            -5.3886552,
            -9.557375,
            5.8559055,
            1.6059014,
            1.4225088,
            -0.2448663,
            -0.3155918,
        ],
        1.751355,
    ),
    "crop": (
        "float32",
        (2, 3, 5, 5),
        [
            -1.2333287,
            -0.9582652,
            1.6000191,
            0.2028824,
            -1.7321348,
            -0.7133134,
            0.5533784,
            -0.063086,
            -0.5894313,
            0.4096378,
            -0.1731552,
            -1.2894187,
        ],
        -26.47872,
    ),
    "crop3": (
        "float32",
        (3, 4, 3),
        [
            1.2923867,
            1.7987862,
            -0.0260738,
            -0.8163148,
            0.081303,
            0.2814308,
            0.3550784,
            -0.8621881,
            1.2083571,
            0.2084426,
            0.8954751,
            -0.1530462,
        ],
        1.431856,
    ),
    "crop1": (
        "float32",
        (3, 4, 5),
        [
            1.0531157,
            1.7764912,
            -2.5532918,
            -0.1379651,
            1.0137194,
            1.3521419,
            0.6537884,
            1.4971179,
            0.2899576,
            0.5512672,
            0.1787377,
            -1.0738587,
        ],
        7.807818,
    ),
    "imgrad[0]": (
        "float32",
        (2, 2, 4, 5),
        [
            -0.9928767,
            -0.238602,
            1.6143531,
            0.3983854,
            -0.1658041,
            1.4814886,
            0.2967434,
            -1.2348009,
            -0.4382615,
            0.591223,
            0.2054612,
            -1.7011015,
        ],
        4.116118,
    ),
    "imgrad[1]": (
        "float32",
        (2, 2, 4, 5),
        [
            0.2975154,
            -0.5728834,
            -0.616454,
            0.435921,
            0.0,
            1.0517901,
            1.2800716,
            -1.8324218,
            -0.1282684,
            0.0,
            -0.132955,
            -0.2514728,
        ],
        5.546585,
    ),
    "imgrad1[0]": ("float32", (1, 2, 1, 3), [0.0, 0.0, 0.0, 0.0, 0.0, 0.0], 0),
    "imgrad1[1]": (
        "float32",
        (1, 2, 1, 3),
        [0.2975154, -0.5728834, 0.0, 0.435921, -0.5369758, 0.0],
        -0.3764226,
    ),
    "imgrad_i[0]": (
        "int32",
        (1, 1, 3, 4),
        [4.0, 4.0, 4.0, 4.0, 4.0, 4.0, 4.0, 4.0, 0.0, 0.0, 0.0, 0.0],
        32,
    ),
    "imgrad_i[1]": (
        "int32",
        (1, 1, 3, 4),
        [1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 0.0],
        9,
    ),
}

CASES = {
    "bidense": (
        lambda: nn.BiDense(3, 4, 2, weight_init=Tensor(g(1, 2, 3, 4)), bias_init=Tensor(g(2, 2))),
        [g(3, 5, 3), g(4, 5, 4)],
    ),
    "bidense3": (
        lambda: nn.BiDense(3, 4, 2, weight_init=Tensor(g(1, 2, 3, 4)), has_bias=False),
        [g(3, 2, 5, 3), g(4, 2, 5, 4)],
    ),
    "crop": (lambda: nn.CentralCrop(0.5), [g(5, 2, 3, 7, 9)]),
    "crop3": (lambda: nn.CentralCrop(0.3), [g(6, 3, 10, 5)]),
    "crop1": (lambda: nn.CentralCrop(1.0), [g(6, 3, 4, 5)]),
    "imgrad": (nn.ImageGradients, [g(7, 2, 2, 4, 5)]),
    "imgrad1": (nn.ImageGradients, [g(7, 1, 2, 1, 3)]),
    "imgrad_i": (nn.ImageGradients, [np.arange(12, dtype=np.int32).reshape(1, 1, 3, 4)]),
}


def check(got: np.ndarray, name: str) -> None:
    dtype, shape, first, total = MS[name]
    assert got.dtype == np.dtype(dtype) and got.shape == shape
    np.testing.assert_allclose(got.reshape(-1)[: len(first)], first, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got.astype(np.float64).sum(), total, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", sorted(CASES))
def test_equals_mindspore(name, mode):
    make, arrays = CASES[name]
    ms.set_context(mode=mode)
    out = make()(*[Tensor(a) for a in arrays])
    ms.set_context(mode=ms.PYNATIVE_MODE)
    if isinstance(out, tuple):
        for i, o in enumerate(out):
            check(o.asnumpy(), f"{name}[{i}]")
    else:
        check(out.asnumpy(), name)


def test_bidense_defaults():
    b = nn.BiDense(3, 4, 2)
    assert [(p.name, p.shape) for p in b.get_parameters()] == [
        ("weight", (2, 3, 4)),
        ("bias", (2,)),
    ]
    assert b.extend_repr() == "in1_channels=3, in2_channels=4, output_channels=2, has_bias=True"
    bound = 1 / np.sqrt(3)
    assert np.abs(b.weight.asnumpy()).max() <= bound and np.abs(b.bias.asnumpy()).max() <= bound


def g64(seed: int, *shape: int) -> np.ndarray:
    return np.random.default_rng(seed).normal(size=shape)


@pytest.mark.parametrize(
    "fn, shapes",
    [
        (
            nn.BiDense(3, 2, 2, weight_init=Tensor(g64(0, 2, 3, 2)), dtype=ms.float64),
            [(4, 3), (4, 2)],
        ),
        (nn.CentralCrop(0.5), [(1, 4, 4)]),
        (lambda x: nn.ImageGradients()(x)[0], [(1, 1, 3, 3)]),
        (lambda x: nn.ImageGradients()(x)[1], [(1, 1, 3, 3)]),
    ],
)
def test_gradients(fn, shapes):
    rng = np.random.default_rng(7)
    grad_check.assert_grads_match_finite_differences(fn, [rng.normal(size=s) for s in shapes], rng)


X3 = Tensor(g(3, 5, 3))
X4 = Tensor(g(4, 5, 4))


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda: nn.BiDense(0, 3, 2), ValueError, "'in1_channels' must be int and must > 0"),
        (lambda: nn.BiDense(3, 3, 2, has_bias=1), TypeError, "'has_bias' must be a bool"),
        (lambda: nn.BiDense(3, 4, 2, weight_init=Tensor(g(1, 2, 4, 3))), ValueError, "weight init"),
        (lambda: nn.BiDense(3, 4, 2, bias_init=Tensor(g(1, 3))), ValueError, "bias init"),
        (lambda: nn.BiDense(3, 4, 2)(X4, X4), ValueError, "got 4 of 'input1' and 3 of"),
        (lambda: nn.BiDense(3, 4, 2)(X3, X3), ValueError, "got 3 of 'input2' and 4 of"),
        (
            lambda: nn.BiDense(3, 4, 2)(X3, Tensor(g(4, 6, 4))),
            ValueError,
            r"got \(5, 3\) of 'input1' and \(6, 4\) of 'input2'",
        ),
        (lambda: nn.BiDense(3, 4, 2)(g(3, 5, 3), X4), TypeError, "'input1' must be a Tensor"),
        (lambda: nn.CentralCrop(1), TypeError, "'central_fraction' should be 'float'"),
        (lambda: nn.CentralCrop(0.0), ValueError, r"range of \(0.0, 1.0\], but got 0.0"),
        (lambda: nn.CentralCrop(1.5), ValueError, r"range of \(0.0, 1.0\]"),
        (lambda: nn.CentralCrop(0.5)(Tensor(g(1, 4, 4))), ValueError, "must be 3d or 4d"),
        (lambda: nn.ImageGradients()(Tensor(g(1, 3, 4, 4))), ValueError, "must be 4d, but got 3"),
    ],
)
def test_bad_arguments(call, error, match):
    with pytest.raises(error, match=match):
        call()
