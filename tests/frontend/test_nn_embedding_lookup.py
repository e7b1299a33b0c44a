"""nn.EmbeddingLookup in both modes: MindSpore 2.10's printed lookups (CPU target,
an out-of-range index is a row of zeros), max_norm clipping per vector (a numpy
reference: MindSpore's CPU ClipByNorm with an axis does not clip per vector), the
table's gradient (dense: the output gradient summed into the rows), the errors."""

from __future__ import annotations

import numpy as np
import pytest
from modes import run

import mindjit as ms
from mindjit import Tensor, nn

TABLE = np.arange(12, dtype=np.float32).reshape(4, 3)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_lookup_and_max_norm(mode):
    lookup = nn.EmbeddingLookup(4, 3, param_init=Tensor(TABLE))
    ids = Tensor(np.array([[1, 3], [0, 5]], np.int32))
    out = run(lookup, mode, ids)
    # MindSpore 2.10 printed these (CPU target)
    np.testing.assert_array_equal(out.asnumpy(), [[[3, 4, 5], [9, 10, 11]], [[0, 1, 2], [0, 0, 0]]])
    clipped = nn.EmbeddingLookup(4, 3, param_init=Tensor(TABLE), max_norm=5.0)
    got = run(clipped, mode, Tensor(np.array([[1, 3], [0, -1]], np.int32))).asnumpy()
    rows = np.array([[TABLE[1], TABLE[3]], [TABLE[0], np.zeros(3)]], np.float32)
    norms = np.linalg.norm(rows, axis=-1, keepdims=True)
    np.testing.assert_allclose(got, rows * 5.0 / np.maximum(norms, 5.0), rtol=1e-6)
    assert [p.name for p in lookup.get_parameters()] == ["embedding_table"]


def test_table_gradient():
    lookup = nn.EmbeddingLookup(4, 3, param_init=Tensor(TABLE))
    weights = Tensor(np.arange(12, dtype=np.float32).reshape(2, 2, 3))

    def loss(ids):
        return (lookup(ids) * weights).sum()

    ids = Tensor(np.array([[1, 3], [1, 2]], np.int32))
    (grad,) = ms.grad(loss, None, lookup.trainable_params())(ids)
    want = np.zeros((4, 3), np.float32)
    np.add.at(want, [1, 3, 1, 2], np.arange(12, dtype=np.float32).reshape(4, 3))
    np.testing.assert_array_equal(grad.asnumpy(), want)


def test_errors():
    with pytest.raises(ValueError):
        nn.EmbeddingLookup(4, 3, sparse=False)
    with pytest.raises(ValueError):
        nn.EmbeddingLookup(4, 3, target="GPU")
    with pytest.raises(ValueError):
        nn.EmbeddingLookup(0, 3)
    with pytest.raises(TypeError):
        nn.EmbeddingLookup(4, 3, max_norm=1)
    assert nn.EmbeddingLookup(4, 3, target="DEVICE", sparse=False).embedding_table.shape == (4, 3)


def test_no_init_parameters():
    # MindSpore's context manager: the flag is False inside the block, True after it
    assert getattr(ms.Parameter, "init_param", True)
    with nn.no_init_parameters():
        assert ms.Parameter.init_param is False
        dense = nn.Dense(3, 2)
    assert ms.Parameter.init_param is True
    with pytest.raises(RuntimeError), nn.no_init_parameters():
        raise RuntimeError
    assert ms.Parameter.init_param is True
    out = dense(Tensor(np.ones((1, 3), np.float32)))
    assert out.shape == (1, 2)
