"""The pipeline schedules (backend/ascend/pipeline_schedule.py) against the theory."""

from __future__ import annotations

import pytest

from mindjit.backend.ascend.pipeline_schedule import (
    Link,
    StageCost,
    device_order,
    simulate,
)


@pytest.mark.parametrize("schedule", ["1f1b", "gpipe"])
@pytest.mark.parametrize("stages, micro", [(2, 1), (2, 4), (4, 1), (4, 4), (4, 8), (8, 3)])
def test_equal_stages_give_the_textbook_bubble(schedule, stages, micro):
    f, b = 1.0, 2.0
    t = simulate([StageCost(f, b)] * stages, micro, schedule=schedule)
    assert t.step_us == pytest.approx((micro + stages - 1) * (f + b))
    assert t.bubble_fraction() == pytest.approx(t.theoretical_bubble())
    assert t.theoretical_bubble() == pytest.approx((stages - 1) / (micro + stages - 1))
    assert len(t.slots) == 2 * stages * micro


def test_one_f_one_b_holds_fewer_micro_batches_than_gpipe():
    stages, micro = 4, 8
    one_f = simulate([StageCost(1, 2)] * stages, micro, schedule="1f1b")
    gpipe = simulate([StageCost(1, 2)] * stages, micro, schedule="gpipe")
    assert [one_f.max_in_flight(d) for d in range(stages)] == [4, 3, 2, 1]
    assert [gpipe.max_in_flight(d) for d in range(stages)] == [micro] * stages


def test_every_dependency_is_respected_with_a_slow_link():
    link = Link(latency_us=5.0, bytes_per_us=100.0)
    costs = [StageCost(3, 4, activation_bytes=200, gradient_bytes=300)] * 3
    t = simulate(costs, 4, link)
    end = {(s.kind, s.device, s.micro): s.end_us for s in t.slots}
    start = {(s.kind, s.device, s.micro): s.start_us for s in t.slots}
    for (kind, d, m), begin in start.items():
        if kind == "F" and d > 0:
            assert begin >= end[("F", d - 1, m)] + 5 + 2  # latency + 200 / 100
        if kind == "B":
            assert begin >= end[("F", d, m)]
            if d < 2:
                assert begin >= end[("B", d + 1, m)] + 5 + 3
    free = simulate(costs, 4)
    assert t.step_us > free.step_us  # the link costs time


def test_one_f_one_b_order_per_stage():
    assert device_order(0, 3, 4, "1f1b") == [
        ("F", 0), ("F", 1), ("F", 2), ("B", 0), ("F", 3), ("B", 1), ("B", 2), ("B", 3)
    ]  # fmt: skip
    assert device_order(2, 3, 4, "1f1b")[:4] == [("F", 0), ("B", 0), ("F", 1), ("B", 1)]
    assert device_order(0, 2, 2, "gpipe") == [("F", 0), ("F", 1), ("B", 1), ("B", 0)]


@pytest.mark.parametrize(
    "costs, micro, schedule, message",
    [
        ([], 4, "1f1b", "at least one stage"),
        ([StageCost(1, 1)], 0, "1f1b", "micro_batches must be at least 1"),
        ([StageCost(1, 1)], 2, "zb", "schedule must be one of"),
    ],
)
def test_bad_set_ups_are_value_errors(costs, micro, schedule, message):
    with pytest.raises(ValueError, match=message):
        simulate(costs, micro, schedule=schedule)
