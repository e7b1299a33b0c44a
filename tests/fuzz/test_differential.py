"""The differential fuzzer (fuzz/differential.py): a fixed-seed run on the fast
paths agrees with PyNative, and the machinery reports what it must (a
difference, a crash, a documented refusal, a hang, a dead worker)."""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "fuzz"))

import differential  # noqa: E402
from generator import generate  # noqa: E402
from outcomes import FAILURES, compared, failed  # noqa: E402
from paths import FAST, Call, Run, same_print  # noqa: E402
from worker import run_program  # noqa: E402

SEEDS = range(6)


@pytest.mark.parametrize("seed", SEEDS)
def test_fixed_seeds_agree_with_pynative_on_the_fast_paths(seed, tmp_path):
    outcomes = run_program(seed, FAST, str(tmp_path))
    assert [o.path for o in outcomes] == ["pynative", *FAST]
    bad = [f"{o.path}: {o.outcome}: {o.detail}" for o in outcomes if o.outcome in FAILURES]
    assert not bad, f"python fuzz/differential.py --seed {seed} --show\n" + "\n".join(bad)


def test_programs_are_valid_python_and_the_same_for_a_seed():
    for seed in range(1000):  # seed 513 once wrote a `for` with no body
        ast.parse(generate(seed), f"seed {seed}")
    for seed in range(30):
        assert generate(seed) == generate(seed)
    # what issue 29 asks the generator for appears in these programs
    joined = "".join(generate(seed) for seed in range(30))
    for feature in (
        "ops.matmul(",
        "ops.reduce_sum(",
        "[:, ::-1]",
        "while ops.reduce_sum(",
        ".sum() >",
        "ops.assign(",
        "ops.assign_add(",
        "] = ",
        "@ms.lazy_inline",
        "ms.grad(",
        "self.gop(",
        "ms.vmap(",
        "ops.conv2d(",
    ):
        assert feature in joined, feature


def _run(outputs, params, printed="") -> Run:
    return Run([Call([np.asarray(o) for o in outputs], params, printed)])


def test_differences_are_mismatches_and_level_3_warned_ones_documented():
    want = _run([np.float32([1.0, 2.0]), np.int32([3])], {"p": np.float32([0.5])}, "at 1.0\n")
    same = _run([np.float32([1.0, 2.0000001]), np.int32([3])], {"p": np.float32([0.5])}, "at 1.0\n")
    assert compared(0, "O1", same, want).outcome == "match"
    param = _run([np.float32([1.0, 2.0]), np.int32([3])], {"p": np.float32([0.6])}, "at 1.0\n")
    got = compared(0, "O1", param, want)
    assert got.outcome == "mismatch" and "Parameter p" in got.detail
    integer = _run([np.float32([1.0, 2.0]), np.int32([4])], {"p": np.float32([0.5])}, "at 1.0\n")
    assert "output 1" in compared(0, "O1", integer, want).detail
    printed = _run([np.float32([1.0, 2.0]), np.int32([3])], {"p": np.float32([0.5])}, "at 2.0\n")
    assert "printed" in compared(0, "O1", printed, want).detail
    assert compared(0, "load_elim_3", param, want).outcome == "mismatch"  # no warning
    param.warnings = ["LoadElimWarning: mindir-load-elim level 3 ... may be wrong"]
    assert compared(0, "load_elim_3", param, want).outcome == "documented"


def test_printed_tensors_compare_by_value_not_by_layout():
    """numpy picks fixed or scientific notation and column widths from the values: a
    tensor of zeros and one of 1e-36s print differently and agree to 1e-4."""
    zeros = "at\nTensor(shape=[2], dtype=Float32, value=\n[ 0.00000000e+00 -0.00000000e+00])\n"
    assert same_print(zeros, zeros.replace("-0.0", " 0.0"))
    assert same_print("[0. 0.]", "[ 1.2e-36  -3.0e-37]")
    assert not same_print("[0. 0.]", "[0.5 0.]")
    assert not same_print("at [0.]", "sub [0.]")
    assert not same_print("[0. 0.]", "[0. 0. 0.]")


def test_a_warm_cache_run_that_misses_is_a_mismatch():
    want = _run([np.float32([1.0])], {})
    miss = _run([np.float32([1.0])], {})
    miss.stderr = "Warning: Check the consistency of dependency files hash failed. Execute all\n"
    got = compared(0, "cache_warm", miss, want)
    assert got.outcome == "mismatch" and "did not hit" in got.detail
    miss.stderr = "Use the compilation cache and execute the backend actions only.\n"
    assert compared(0, "cache_warm", miss, want).outcome == "match"


def test_only_a_documented_located_error_is_a_refusal():
    grad = RuntimeError(
        "prog.py:80:21: error: mindir-grad: 'mindir.assign' inside a branch or inner loop of "
        "a while that is differentiated: ..."
    )
    assert failed(0, "O1", grad).outcome == "refused"
    carried = TypeError(
        "frontend error: prog.py:71: loop variable '_' is a tuple at the end of the body; "
        "a while on a tensor can only carry tensors and numbers"
    )
    assert failed(0, "O1", carried).outcome == "refused"
    unlocated = RuntimeError(
        "mindir-grad: 'mindir.assign' inside a branch or inner loop of a while that is "
        "differentiated: ..."
    )
    assert failed(0, "O1", unlocated).outcome == "crash"
    other = ValueError("prog.py:3: something graph mode does not say it refuses")
    crash = failed(0, "O1", other)
    assert crash.outcome == "crash" and crash.detail.startswith("ValueError: prog.py:3")


FAKE_WORKER = textwrap.dedent(
    """
    import json, os, sys, time
    out = os.fdopen(os.dup(1), "w", buffering=1)
    for line in sys.stdin:
        job = json.loads(line)
        seed = job["seed"]
        for path in ["pynative", *job["paths"]]:
            out.write(json.dumps({"start": path}) + "\\n")
            if seed == 1 and path == "O1":
                time.sleep(600)  # a hang
            if seed == 2 and path == "O2":
                os._exit(3)  # a crash of the process itself
            msg = {"seed": seed, "path": path, "outcome": "match"}
            out.write(json.dumps(msg) + "\\n")
        out.write(json.dumps({"done": seed}) + "\\n")
    """
)


def test_a_hang_and_a_dead_worker_are_reported_and_the_rest_still_runs(tmp_path):
    script = tmp_path / "fake_worker.py"
    script.write_text(FAKE_WORKER)
    pool = differential.Pool(2, str(tmp_path), timeout=2.0, command=[sys.executable, str(script)])
    jobs = [differential.Job(seed, ["O0", "O1", "O2"]) for seed in range(4)]
    try:
        outcomes = list(pool.run(jobs))
        got = {(o.seed, o.path): o.outcome for o in outcomes}
    finally:
        pool.close()
    assert got[(1, "O1")] == "hang"
    assert got[(2, "O2")] == "crash"
    # the paths after the hung one ran in a new worker, PyNative counted once per program
    assert [o.seed for o in outcomes if o.path == "pynative"].count(1) == 1
    for seed in range(4):
        for path in ("O0", "O1", "O2"):
            if (seed, path) not in {(1, "O1"), (2, "O2")}:
                assert got[(seed, path)] == "match", (seed, path)
    text = differential.report(
        [differential.Outcome(s, p, o) for (s, p), o in got.items()], ["O0", "O1", "O2"], 4, 1.0
    )
    assert "| O1 | 3 | 0 | 0 | 1 |" in text
    assert "seed 1 hang on O1" in text and "seed 2 crash on O2" in text


def test_show_prints_the_program_and_each_path():
    done = subprocess.run(
        [sys.executable, str(ROOT / "fuzz" / "differential.py"), "--seed", "3", "--show"]
        + ["--paths", "O0,cache_warm"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert generate(3) in done.stdout
    lines = done.stdout.splitlines()
    assert any(ln.startswith("O0 ") and ln.endswith("match") for ln in lines)
    assert any(ln.startswith("cache_warm ") and ln.endswith("match") for ln in lines)
