"""benchmarks/vs_pytorch.py (issue 41): the mindjit worker on a small workload (its
losses, timing and op-kind profile), the table when torch is not there, and, where
torch is importable, the torch replica's losses against mindjit's (skipped otherwise:
torch is never a dependency)."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = str(ROOT / "benchmarks" / "vs_pytorch.py")
TORCH_WORKER = str(ROOT / "benchmarks" / "torch_peers.py")
sys.path.insert(0, str(ROOT / "benchmarks"))

from fresh_workers import load_npz, rel_err  # noqa: E402

# BERT-style: the smallest train step of the script's workloads (about a second to compile)
WORKLOAD = "bert"


def _run(script: str, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if k != "MINDJIT_BACKEND"}
    env["OMP_NUM_THREADS"] = "1"  # the test's cores are shared with the rest of the suite
    done = subprocess.run(
        [sys.executable, script, *args], capture_output=True, text=True, timeout=300, env=env
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def _mindjit_losses(tmp_path: Path, *extra: str) -> tuple[dict, list[np.ndarray]]:
    out = str(tmp_path / "mindjit.npz")
    stdout = _run(
        SCRIPT, "--worker", WORKLOAD, "--row", "mindjit numpy", "--threads", "1",
        "--calls", "2", "--warmup", "0", "--recorded", "3", "--out", out, *extra,
    )  # fmt: skip
    return json.loads(stdout.splitlines()[-1]), load_npz(out)


def test_the_mindjit_worker_times_three_falling_losses_and_profiles_its_ops(tmp_path):
    result, losses = _mindjit_losses(tmp_path, "--profile")
    assert result["run_ms"] > 0 and result["first_s"] >= result["run_ms"] / 1e3
    values = [float(v) for v in losses]
    assert len(values) == 3 and values[0] > values[1] > values[2]  # Adam trains
    profile = result["profile"]
    kinds = {row[0].split(" ")[0].split("{")[0] for row in profile}
    assert "linalg.generic" in kinds and all(re.fullmatch(r"\w+\.\w+", k) for k in kinds)
    assert all(ms >= 0 and count >= 1 for _, ms, _, count in profile)
    assert 0 < sum(pct for _, _, pct, _ in profile) <= 100.0 + 1e-6


def test_without_torch_the_table_says_why_and_the_script_exits_0():
    stdout = _run(
        SCRIPT, "--quick", "--only", WORKLOAD, "--rows", "mindjit numpy,torch eager",
        "--torch-python", str(ROOT / "no-such-python"),
    )  # fmt: skip
    rows = {
        cells[1]: cells
        for line in stdout.splitlines()
        if line.startswith("| BERT")
        for cells in [[c.strip() for c in line.strip("|").split("|")]]
    }
    assert float(rows["mindjit numpy"][2]) > 0 and rows["mindjit numpy"][7] == "reference"
    # compile s: the first process's (it timed the kernel shapes), then the later ones'
    assert re.fullmatch(r"\d+\.\d\d / \d+\.\d\d", rows["mindjit numpy"][4])
    assert rows["torch eager"][2].startswith("n/a (cannot run --torch-python ")
    assert "### Targets (issue 41)" in stdout


def test_a_bad_workload_is_a_clear_error():
    done = subprocess.run(
        [sys.executable, SCRIPT, "--only", "lenet6"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert "unknown workload lenet6; choose from lenet5," in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch not importable")
def test_the_torch_replica_gives_mindjits_losses(tmp_path):
    weights = str(tmp_path / "weights.npz")
    _run(SCRIPT, "--export", WORKLOAD, "--out", weights)
    _, ours = _mindjit_losses(tmp_path)
    out = str(tmp_path / "torch.npz")
    _run(
        TORCH_WORKER, "--worker", WORKLOAD, "--row", "eager", "--threads", "1", "--calls", "1",
        "--warmup", "0", "--recorded", "3", "--weights", weights, "--out", out,
    )  # fmt: skip
    theirs = load_npz(out)
    assert rel_err(theirs, ours) <= 1e-5, (theirs, ours)
