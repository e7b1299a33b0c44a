"""Graph mode from threads (issue 29 §3): first calls of one Cell from 8 threads
compile it once; a call that updates Parameters is atomic with respect to every
other call touching them (other input shapes of the Cell, another Cell sharing
them); overlapping compiles leave the garbage collector as they found it."""

from __future__ import annotations

import gc
import sys
import threading

import numpy as np
import pytest

import mindjit as ms
from mindjit import Parameter, Tensor, nn, ops
from mindjit.frontend.graph import api

THREADS = 8


class Counter(nn.Cell):
    """Adds 1 to `count` per call, with matmuls (which let other threads run) between
    the read of it and the write."""

    def __init__(self, count: Parameter | None = None):
        super().__init__()
        self.count = count if count is not None else Parameter(Tensor(np.zeros(4, np.float32)))
        self.w = Parameter(Tensor(np.eye(128, dtype=np.float32)), name="w")

    def construct(self, x):
        read = self.count + 1.0
        y = ops.reduce_sum(ops.matmul(ops.matmul(x * read[0], self.w), self.w))
        ops.assign(self.count, read + y * 0.0)
        return y + self.count


@pytest.fixture(autouse=True)
def graph_mode():
    """Graph mode, with threads switched every 10 µs so races show in a short run."""
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    ms.set_context(mode=ms.GRAPH_MODE)
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)
    sys.setswitchinterval(interval)


def in_threads(work, calls: int) -> list[BaseException]:
    """`work(thread, call)` from THREADS threads started together; the errors raised."""
    errors: list[BaseException] = []
    start = threading.Barrier(THREADS)

    def body(i: int) -> None:
        start.wait()
        try:
            for k in range(calls):
                work(i, k)
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            errors.append(exc)

    threads = [threading.Thread(target=body, args=(i,)) for i in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return errors


def compiled_for(cell: nn.Cell) -> list:
    return [e.program for e in api._PROGRAMS.values() if e.owner() is cell]  # noqa: SLF001


def programs_of(cell: nn.Cell) -> int:
    return len(compiled_for(cell))


@pytest.mark.parametrize("round_", range(3))
def test_first_calls_from_threads_compile_once_and_lose_no_update(round_):
    saved = gc.get_threshold()
    net = Counter()
    x = Tensor(np.ones((64, 128), np.float32))
    errors = in_threads(lambda i, k: net(x), calls=20)
    assert errors == []
    assert programs_of(net) == 1
    np.testing.assert_array_equal(net.count.asnumpy(), np.full(4, THREADS * 20, np.float32))
    assert gc.get_threshold() == saved


def test_calls_of_other_shapes_and_other_cells_sharing_a_parameter_are_atomic():
    shared = Parameter(Tensor(np.zeros(4, np.float32)), name="shared")
    nets = [Counter(shared), Counter(shared)]
    shapes = [(64, 128), (96, 128)]
    inputs = [Tensor(np.ones(s, np.float32)) for s in shapes]
    calls = 40
    errors = in_threads(lambda i, k: nets[i % 2](inputs[(i // 2 + k) % 2]), calls)
    assert errors == []
    assert programs_of(nets[0]) == programs_of(nets[1]) == 2
    np.testing.assert_array_equal(shared.asnumpy(), np.full(4, THREADS * calls, np.float32))


@pytest.mark.parametrize(
    "where",
    [{"device_target": "Ascend"}, {"jit_config": {"backend": "iree"}}],
    ids=["device", "iree"],
)
def test_first_calls_from_threads_on_the_device_and_on_iree(where):
    ms.set_context(**where)
    try:
        net = Counter()
        x = Tensor(np.ones((64, 128), np.float32))
        errors = in_threads(lambda i, k: net(x), calls=5)
    finally:
        ms.set_context(device_target="CPU", jit_config={"backend": "numpy"})
    assert errors == []
    (program,) = compiled_for(net)
    options = program.options
    assert (options.device_target, options.backend) == (
        where.get("device_target", "CPU"),
        where.get("jit_config", {}).get("backend", "numpy"),
    )
    np.testing.assert_array_equal(net.count.asnumpy(), np.full(4, THREADS * 5, np.float32))


def test_compiles_in_threads_of_different_cells_restore_the_gc_thresholds():
    saved = gc.get_threshold()
    nets = [Counter() for _ in range(THREADS)]
    x = Tensor(np.ones((64, 128), np.float32))
    errors = in_threads(lambda i, k: nets[i](x), calls=2)
    assert errors == []
    assert [float(n.count.asnumpy()[0]) for n in nets] == [2.0] * THREADS
    assert gc.get_threshold() == saved
