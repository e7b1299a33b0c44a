"""Collectives on IREE (backend/iree/collectives.py): each call site is a host
import run with the executable's communication object; N IREE executables as
replicas give the numpy executor's results, bit for bit, and a group of one is
the identity (or the numpy executor's error for a gathering collective)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("iree.runtime")

from test_replica_run import PROGRAM, lowered  # noqa: E402

from mindjit.backend.cpu import CpuExecutable  # noqa: E402
from mindjit.backend.cpu.errors import ExecutionError  # noqa: E402
from mindjit.backend.cpu.replica_run import ReplicaExecutable  # noqa: E402
from mindjit.backend.iree.executable import IreeExecutable  # noqa: E402
from mindjit.backend.iree.prepare import prepare  # noqa: E402


def test_each_collective_site_is_its_own_import() -> None:
    prepared = prepare(lowered(PROGRAM))
    assert [(s.name, s.kind, s.root) for s in prepared.collectives] == [
        ("all_reduce_sum_0", "all_reduce_sum", 0),
        ("all_gather_1", "all_gather", 0),
        ("reduce_scatter_sum_2", "reduce_scatter_sum", 0),
        ("broadcast_3", "broadcast", 1),
        ("all_reduce_prod_4", "all_reduce_prod", 0),
    ]
    assert "func.call @mindjit.broadcast_3(" in prepared.text
    assert "__mindjit_all_reduce" not in prepared.text  # the runtime declarations went


@pytest.mark.parametrize("n", [2, 4])
def test_iree_replicas_equal_the_numpy_executors(n) -> None:
    text = PROGRAM.replace("rank_size = 2", f"rank_size = {n}").replace(
        "tensor<4x3xf32>", f"tensor<{2 * n}x3xf32>"
    )
    if n == 4:  # reduce_scatter of 2 rows over 4 ranks does not divide: 4 rows
        text = text.replace(
            '%r = mindir.reduce_scatter %x {op = "sum", rank_size = 4 : i64} : '
            "(tensor<2x3xf32>) -> tensor<1x3xf32>",
            '%r = mindir.all_reduce %x {op = "max"} : tensor<2x3xf32>',
        ).replace("tensor<1x3xf32>", "tensor<2x3xf32>")
    module = lowered(text)
    x = np.random.default_rng(n).standard_normal((2 * n, 3)).astype(np.float32)
    cpu = ReplicaExecutable(lambda: CpuExecutable(module), n).run("f", x)
    iree = ReplicaExecutable(lambda: IreeExecutable(module), n)
    got = iree.run("f", x)
    assert all(isinstance(r, IreeExecutable) for r in iree.replicas)
    for a, b in zip(got, cpu):
        np.testing.assert_array_equal(a, b)


def test_one_iree_executable_is_a_group_of_one() -> None:
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    single = PROGRAM.replace("rank_size = 2", "rank_size = 1")
    single = single.replace("tensor<4x3xf32>", "tensor<2x3xf32>").replace(
        "tensor<1x3xf32>", "tensor<2x3xf32>"
    )
    for out in IreeExecutable(lowered(single)).run("f", x)[:5]:
        np.testing.assert_array_equal(out, x)
    with pytest.raises(
        ExecutionError, match="compiled for a group of 2 replicas but runs in a group of 1"
    ):
        IreeExecutable(lowered(PROGRAM)).run("f", x)
