"""Seed examples run as users run them: fresh context per test."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def fresh_context():
    import mindjit as ms

    saved = ms.get_context("mode")
    yield
    ms.set_context(mode=saved)
