"""backend/cpu/optional_libs.py: finding a wheel's shared library, and the timed
trial gemm.py and kernels_conv.py choose their kernels by."""

from __future__ import annotations

import time

from mindjit.backend.cpu import optional_libs


def _sleeper(seconds: float):
    def way() -> None:
        time.sleep(seconds)

    return way


def test_a_clearly_faster_way_is_chosen_and_a_close_one_is_not():
    pick, spent = optional_libs.fastest([_sleeper(0.004), _sleeper(0.0)], 2, 1.0, 0.8)
    assert pick == 1 and spent > 0.004 * 3
    pick, _ = optional_libs.fastest([_sleeper(0.0), _sleeper(0.002)], 2, 1.0, 0.8)
    assert pick is None  # the reference stays unless another beats it by the margin


def test_a_failing_way_is_never_chosen_and_runs_once():
    calls = []

    def failing() -> None:
        calls.append(1)
        raise RuntimeError("no kernel")

    pick, _ = optional_libs.fastest(
        [_sleeper(0.003), failing, _sleeper(0.0)], 3, 1.0, 0.9, (RuntimeError,)
    )
    assert pick == 2 and len(calls) == 1


def test_the_budget_stops_the_rounds():
    count = []

    def way() -> None:
        count.append(1)
        time.sleep(0.003)

    optional_libs.fastest([way, _sleeper(0.0)], 50, 0.001, 0.9)
    assert len(count) == 2  # the warm-up and one timed round


def test_a_distribution_that_is_not_installed_has_no_library():
    assert optional_libs.wheel_library("no-such-distribution-mindjit", "lib") is None
    assert optional_libs.wheel_library("numpy", "no-such-file-prefix") is None
