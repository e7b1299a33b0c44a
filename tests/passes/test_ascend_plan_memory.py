"""The memory planner on random lifetimes: never overlaps live tensors, never
below the lower bound, and close to it."""

from __future__ import annotations

import numpy as np
import pytest

from mindjit.backend.ascend.passes.ascend_plan_memory import Buffer, lower_bound, place


def _random_buffers(rng: np.random.Generator, n: int, positions: int) -> list[Buffer]:
    out = []
    for k in range(n):
        start = int(rng.integers(-1, positions))
        end = int(min(positions, start + rng.geometric(0.2)))
        size = int(rng.choice([512, 1024, 4096, 512 * int(rng.integers(1, 64))]))
        out.append(Buffer(k, size, start, end))
    return out


@pytest.mark.parametrize("seed", range(20))
def test_live_buffers_never_share_memory(seed):
    rng = np.random.default_rng(seed)
    buffers = _random_buffers(rng, 60, 40)
    heap = place(buffers)
    for i, a in enumerate(buffers):
        assert a.offset >= 0 and a.offset + a.size <= heap
        for b in buffers[i + 1 :]:
            live_together = a.start <= b.end and b.start <= a.end
            apart = a.offset + a.size <= b.offset or b.offset + b.size <= a.offset
            assert apart or not live_together, (a, b)
    bound = lower_bound(buffers, 41)
    assert bound <= heap


def test_plan_is_close_to_the_bound_on_average():
    ratios = []
    for seed in range(20):
        buffers = _random_buffers(np.random.default_rng(100 + seed), 80, 60)
        heap = place(buffers)
        ratios.append(heap / lower_bound(buffers, 61))
    assert float(np.mean(ratios)) < 1.25, ratios


def test_a_chain_reuses_memory():
    """a -> b -> c -> d, each read only by the next: two buffers suffice."""
    buffers = [Buffer(k, 1024, k, k + 1) for k in range(4)]
    assert place(buffers) == 2048 == lower_bound(buffers, 5)
    assert buffers[0].offset == buffers[2].offset
