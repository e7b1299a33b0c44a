"""Fixtures the frontend tests share."""

from __future__ import annotations

import pytest

import mindjit as ms


@pytest.fixture(params=[ms.PYNATIVE_MODE, ms.GRAPH_MODE], ids=["pynative", "graph"])
def mode(request):
    """The test runs twice, in PyNative and in graph mode (see modes.run)."""
    yield request.param
