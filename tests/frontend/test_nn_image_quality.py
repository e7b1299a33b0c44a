"""nn.PSNR and nn.SSIM in both modes against the values MindSpore 2.10 printed
(graph mode; its PyNative path fails) for the same seeded images, their errors,
and their gradients by finite differences."""

from __future__ import annotations

import numpy as np
import pytest
from grad_check import assert_grads_match_finite_differences
from modes import run

import mindjit as ms
from mindjit import Tensor, nn

RNG = np.random.default_rng(0)
A = RNG.random((2, 3, 16, 16)).astype(np.float32)
B = np.clip(A + 0.1 * RNG.standard_normal((2, 3, 16, 16)), 0, 1).astype(np.float32)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_values_match_mindspore(mode):
    a, b = Tensor(A), Tensor(B)
    au, bu = Tensor((A * 255).astype(np.uint8)), Tensor((B * 255).astype(np.uint8))
    ssim2 = nn.SSIM(max_val=2.0, filter_size=5, filter_sigma=1.0, k1=0.02, k2=0.04)
    got = run(
        lambda: (nn.PSNR()(a, b), nn.PSNR(max_val=2)(a, b), nn.PSNR(255)(au, bu)),
        mode,
    )
    np.testing.assert_allclose(got[0].asnumpy(), [20.284103, 20.579197], rtol=1e-6)
    np.testing.assert_allclose(got[1].asnumpy(), [26.304703, 26.599798], rtol=1e-6)
    np.testing.assert_allclose(got[2].asnumpy(), [20.28205, 20.568714], rtol=1e-6)
    ssim = nn.SSIM()
    out = ssim(a, b) if mode == ms.PYNATIVE_MODE else ms.jit(lambda x, y: ssim(x, y))(a, b)
    np.testing.assert_allclose(out.asnumpy(), [0.93689156, 0.95418763], atol=5e-7)
    np.testing.assert_allclose(ssim2(a, b).asnumpy(), [0.9404261, 0.9432686], atol=5e-7)
    assert [p.name for p in ssim.get_parameters()] == ["conv.weight"]


def test_errors():
    a = Tensor(A)
    with pytest.raises(ValueError):
        nn.SSIM()(Tensor(A[:, :, :8]), Tensor(B[:, :, :8]))
    with pytest.raises(TypeError):
        nn.SSIM()(Tensor((A * 255).astype(np.uint8)), Tensor((B * 255).astype(np.uint8)))
    with pytest.raises(ValueError):
        nn.PSNR()(Tensor(A[0]), Tensor(B[0]))
    with pytest.raises(ValueError):
        nn.PSNR()(a, Tensor(B[:1]))
    with pytest.raises(ValueError):
        nn.PSNR(0)
    with pytest.raises(TypeError):
        nn.SSIM(k1=1)
    with pytest.raises(TypeError):
        nn.PSNR("1")


def test_gradients():
    rng = np.random.default_rng(1)
    x = rng.random((1, 1, 5, 5)).astype(np.float32)
    y = rng.random((1, 1, 5, 5)).astype(np.float32)
    kwargs = {"eps": 1e-2, "rtol": 2e-2, "atol": 2e-3}
    assert_grads_match_finite_differences(nn.PSNR(), [x, y], rng, **kwargs)
    assert_grads_match_finite_differences(nn.SSIM(filter_size=3), [x, y], rng, **kwargs)
