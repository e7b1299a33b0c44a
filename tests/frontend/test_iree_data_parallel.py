"""Data-parallel replicas on the IREE backend (backend/iree/collectives.py): the
gradients' all-reduce is a host import of each replica's IREE program, and N
replicas train like the numpy executor's N replicas (and one process on the
whole batch, tests/frontend/test_data_parallel.py) after 3 steps."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("iree.runtime")
pytest.importorskip("iree.compiler")

import test_data_parallel as D  # noqa: E402

import mindjit as ms  # noqa: E402
from mindjit.backend.iree.executable import IreeExecutable  # noqa: E402
from mindjit.communication import release  # noqa: E402
from mindjit.frontend import context as C  # noqa: E402


def _fresh() -> None:
    C.reset_context()
    ms.reset_auto_parallel_context()
    release()


@pytest.fixture(autouse=True)
def _fresh_context():
    _fresh()
    yield
    _fresh()


@pytest.mark.parametrize(("kind", "n", "step_kind"), [("mlp", 2, "auto"), ("lenet", 4, "user")])
def test_iree_replicas_train_like_the_numpy_executors(kind, n, step_kind, capfd):
    want_losses, want_params, _ = D.train(kind, n, step_kind)
    _fresh()
    ms.set_context(jit_config={"backend": "iree"})
    losses, params, program = D.train(kind, n, step_kind)
    replicas = program.executable.replicas
    assert len(replicas) == n and all(isinstance(r, IreeExecutable) for r in replicas)
    assert any(s.kind == "all_reduce_sum" for s in replicas[0].prepared.collectives)
    assert "numpy executor" not in capfd.readouterr().err  # no fallback
    np.testing.assert_allclose(losses, want_losses, rtol=1e-5, atol=1e-6)
    for name, value in want_params.items():
        np.testing.assert_allclose(params[name], value, rtol=1e-5, atol=1e-6, err_msg=name)
    assert losses[0] != losses[-1]
