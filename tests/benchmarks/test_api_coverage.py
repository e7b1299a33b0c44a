"""benchmarks/api_coverage.py counts mindjit's names against MindSpore 2.10's
CPU-runnable ones (issue 38): its table, its `--missing` list, and that a name
mindjit gains is counted (the count is read from the code, not kept by hand)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import api_coverage  # noqa: E402


def test_the_table_has_every_category_and_its_target(capsys) -> None:
    assert api_coverage.main([]) == 0
    out = capsys.readouterr().out
    for category in api_coverage.TARGETS:
        assert f"| {category} |" in out
    assert "| nn |" in out and "| 90% |" in out


def test_counts_come_from_the_code(monkeypatch) -> None:
    rows = {r["category"]: r for r in api_coverage.coverage()}
    missing = rows["Tensor methods"]["missing"]
    assert missing, "every Tensor method is covered: pick another category for this test"
    have = api_coverage.mindjit_names()
    have["Tensor methods"].add(missing[0])
    monkeypatch.setattr(api_coverage, "mindjit_names", lambda: have)
    again = {r["category"]: r for r in api_coverage.coverage()}
    assert again["Tensor methods"]["mindjit"] == rows["Tensor methods"]["mindjit"] + 1


def test_only_cpu_names_count() -> None:
    data = json.loads(api_coverage.DATA.read_text())
    rows = {r["category"]: r for r in api_coverage.coverage()}
    for category in api_coverage.TARGETS:
        cpu = [e for e in data[category] if e["cpu"]]
        assert rows[category]["mindspore"] == len(cpu) < len(data[category]) or not data[category]
    assert all(not e["cpu"] for e in data["nn"] if e["name"] == "DistributedGradReducer")


def test_missing_lists_names_and_a_bad_category_is_an_error(capsys) -> None:
    assert api_coverage.main(["--missing", "amp"]) == 0
    listed = capsys.readouterr().out.split()
    assert set(listed) <= {e["name"] for e in json.loads(api_coverage.DATA.read_text())["amp"]}
    assert api_coverage.main(["--missing", "nope"]) == 2
    assert "no category 'nope'" in capsys.readouterr().err


@pytest.mark.parametrize("category", list(api_coverage.TARGETS))
def test_coverage_is_a_fraction(category) -> None:
    row = next(r for r in api_coverage.coverage() if r["category"] == category)
    assert 0.0 <= row["coverage"] <= 1.0
