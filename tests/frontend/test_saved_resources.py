"""Saved IR is self-contained: a dump (MS_DEV_SAVE_GRAPHS) of a program with a
large Parameter carries its blob, so ms-run, ms-opt and iree-compile of a saved
stage reproduce the run; a compile-cache hit in a new process binds that
process's weights."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import parameter_resource_programs as P
import pytest

import mindjit as ms
from mindjit.dialects.parsing import parse_module
from mindjit.frontend import context as C
from mindjit.frontend.graph import api
from mindjit.frontend.graph.program_cache import HIT, MISS
from mindjit.ir import resources
from mindjit.ir.resource_section import resource_uses

HERE = Path(__file__).resolve().parent
F32 = np.float32


@pytest.fixture(autouse=True)
def _context():
    C.reset_context()
    api.clear_cache()
    yield
    C.reset_context()
    api.clear_cache()


def weights() -> np.ndarray:
    return np.random.default_rng(7).standard_normal((40, 40)).astype(F32)


@pytest.fixture
def saved(tmp_path, monkeypatch):
    """Accumulate's stages (its 40x40 Parameter, 6400 bytes, is a dense_resource read
    by global_load), the input, the executor's result and the initial weights."""
    net = P.Accumulate()
    net.acc.set_data(ms.Tensor(weights()))
    assert net.acc.nbytes > resources.INLINE_LIMIT_BYTES
    x = np.random.default_rng(1).standard_normal((40, 40)).astype(F32)
    monkeypatch.setenv("MS_DEV_SAVE_GRAPHS", "1")
    monkeypatch.setenv("MS_DEV_SAVE_GRAPHS_PATH", str(tmp_path / "graphs"))
    ms.set_context(mode=ms.GRAPH_MODE)
    ours = net(ms.Tensor(x)).asnumpy()
    np.save(tmp_path / "x.npy", x)
    return sorted((tmp_path / "graphs").glob("*.mlir")), x, ours


def test_every_dump_carries_the_blob_once_after_the_module(saved):
    files, _, _ = saved
    assert files[0].name.endswith("_00_frontend.mlir")
    for path in files:
        text = path.read_text()
        assert text.count("{-#") == 1 and text.rstrip().endswith("#-}"), path.name
        module_end = text.index("{-#")
        assert "dense_resource<acc_" in text[:module_end]
    # read back in this process: the blob is the weight the compile saw
    module = parse_module(files[-1].read_text(), str(files[-1]))
    (handle,) = resource_uses(module)
    np.testing.assert_array_equal(resources.blob(handle), weights())


def ms_run(tool, path: Path, tmp_path: Path) -> np.ndarray:
    """`ms-run` of a saved file's entry on x.npy; its result."""
    out = tmp_path / f"{path.stem}.npy"
    done = tool(
        "ms-run",
        str(path),
        "--entry",
        "Accumulate_construct",
        "--input-npy",
        str(tmp_path / "x.npy"),
        "--output-npy",
        str(out),
    )
    assert done.returncode == 0, done.stderr
    return np.load(out)


def test_ms_run_of_a_saved_stage_reproduces_the_run(saved, tool, tmp_path):
    files, _, ours = saved
    for path in (files[0], files[-1]):  # mindir as the frontend wrote it, and lowered
        np.testing.assert_array_equal(ms_run(tool, path, tmp_path), ours)


def test_ms_opt_output_of_a_saved_stage_round_trips(saved, tool, tmp_path):
    files, _, ours = saved
    first = tool("ms-opt", str(files[-1]))
    assert first.returncode == 0, first.stderr
    assert first.stdout.count("{-#") == 1
    again = tmp_path / "again.mlir"
    again.write_text(first.stdout)
    assert tool("ms-opt", str(again)).stdout == first.stdout
    np.testing.assert_array_equal(ms_run(tool, again, tmp_path), ours)


def _iree(name: str) -> str | None:
    local = Path(sys.executable).parent / name
    return str(local) if local.exists() else shutil.which(name)


IREE_COMPILE, IREE_RUN = _iree("iree-compile"), _iree("iree-run-module")


@pytest.mark.skipif(IREE_COMPILE is None or IREE_RUN is None, reason="IREE is not installed")
def test_iree_compile_of_the_saved_tensor_stage_uses_the_real_weights(saved, tmp_path):
    files, x, ours = saved
    vmfb = tmp_path / "saved.vmfb"
    compiled = subprocess.run(
        [IREE_COMPILE, "--iree-hal-target-backends=llvm-cpu", "--iree-llvmcpu-target-cpu=host"]
        + [str(files[-1]), "-o", str(vmfb)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert compiled.returncode == 0, compiled.stderr
    # the entry's second argument is the Parameter the CPU executor binds
    # ({mindjit.global = @acc}); the program reads @acc's initial value, the blob
    np.save(tmp_path / "unused.npy", np.zeros((40, 40), F32))
    out = tmp_path / "iree.npy"
    ran = subprocess.run(
        [IREE_RUN, f"--module={vmfb}", "--function=Accumulate_construct"]
        + [f"--input=@{tmp_path / 'x.npy'}", f"--input=@{tmp_path / 'unused.npy'}"]
        + [f"--output=@{out}"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert ran.returncode == 0, ran.stderr
    np.testing.assert_allclose(np.load(out), ours, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(ours, 2 * (weights() + x), rtol=1e-6)


CHILD = """
import json, sys
import numpy as np
import mindjit as ms
import parameter_resource_programs as P
seed = int(sys.argv[1])
net = P.BigAndSmall()
big = np.random.default_rng(seed).standard_normal((64, 64)).astype(np.float32)
net.big.set_data(ms.Tensor(big))
x = np.ones((2, 64), np.float32)
ms.set_context(mode=ms.GRAPH_MODE)
out = net(ms.Tensor(x)).asnumpy()
want = x @ big + 6.0
print(json.dumps(float(np.abs(out - want).max())))
"""


def test_a_cache_hit_in_a_new_process_binds_that_process_weights(tmp_path):
    """The cached module keeps the handle by name (backend/cache/module_codec.py); a hit
    points each resource global at this process's Parameter (program_cache.py)."""
    env = dict(os.environ)
    env.update(
        MS_COMPILER_CACHE_ENABLE="1",
        MS_COMPILER_CACHE_PATH=str(tmp_path / "cache"),
        PYTHONPATH=os.pathsep.join([str(HERE), env.get("PYTHONPATH", "")]),
    )
    env.pop("MS_DEV_SAVE_GRAPHS", None)
    seen = []
    for seed in (1, 2):
        done = subprocess.run(
            [sys.executable, "-c", CHILD, str(seed)],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr
        seen.append((HIT in done.stderr, MISS in done.stderr))
        assert json.loads(done.stdout.splitlines()[-1]) < 1e-4, seed
    assert seen == [(False, True), (True, False)]
