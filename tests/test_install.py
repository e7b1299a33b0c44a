"""mindjit installs as a user installs it (issue 37): the README's install lines,
run in a fresh venv outside the checkout, give a package that imports, whose
`ms-opt` runs and whose graph mode compiles and runs a Cell.

`make` and CI install editable, which finds modules in the checkout whatever the
package list says; a non-editable install once lacked two subpackages and could not
import mindjit. The fresh venv sees the test venv's dependencies (xdsl, numpy, IREE)
through a folder of links that leaves out mindjit itself, so nothing is downloaded
and nothing of the checkout is importable there.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sysconfig
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SKIP = shutil.ignore_patterns(
    ".venv", ".git", "build", "dist", "*.egg-info", "__pycache__", "Output", ".pytest_cache"
)

SMALL_MLIR = """\
func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {
  %b = mindir.add %a, %a : tensor<2xf32>
  func.return %b : tensor<2xf32>
}
"""

GRAPH_PROGRAM = """\
import numpy as np
import mindjit as ms
from mindjit import nn, ops

ms.set_context(mode=ms.GRAPH_MODE)


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(3, 2, weight_init="ones", bias_init="zeros")

    def construct(self, x):
        y = self.dense(x)
        if y.sum() > 0:
            y = ops.relu(y) * 2
        return y


x = np.arange(6, dtype=np.float32).reshape(2, 3)
out = Net()(ms.Tensor(x)).asnumpy()
np.testing.assert_allclose(out, np.maximum(x.sum(1, keepdims=True).repeat(2, 1), 0) * 2)
print("graph", ms.__file__, out.tolist())
"""


def readme_install_lines() -> list[str]:
    """The commands of the README's install block (the one that builds a wheel)."""
    readme = (ROOT / "README.md").read_text()
    for block in re.findall(r"^```sh\n(.*?)^```$", readme, re.S | re.M):
        if "pip wheel" in block:
            return [line.split("#")[0].strip() for line in block.splitlines() if line.strip()]
    raise AssertionError("the README has no install block with `pip wheel`")


def alternatives() -> dict[str, list[str]]:
    """Each way the block offers: `pip install .`, and the wheel's two lines."""
    lines = readme_install_lines()
    assert lines[0] == "pip install .", lines
    return {"install": lines[:1], "wheel": lines[1:]}


def fresh_venv(where: Path) -> Path:
    """A venv with pip whose only other packages are the test venv's dependencies."""
    venv.create(where / "venv", with_pip=True)
    python = where / "venv" / "bin" / "python"
    deps = where / "deps"
    deps.mkdir()
    site = Path(sysconfig.get_paths()["purelib"])
    for entry in site.iterdir():
        if entry.name.startswith(("mindjit", "__editable__", "_mindjit")):
            continue
        (deps / entry.name).symlink_to(entry)
    purelib = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    Path(purelib, "test-dependencies.pth").write_text(f"{deps}\n")
    return python


def run(argv: list[str | Path], cwd: Path, env: dict[str, str]) -> str:
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{argv}\n{done.stdout}\n{done.stderr}"
    return done.stdout


def test_the_readme_offers_both_ways() -> None:
    ways = alternatives()
    assert ways["wheel"][0].startswith("pip wheel --no-deps -w dist"), ways
    assert ways["wheel"][1].startswith("pip install dist/mindjit-"), ways


@pytest.mark.parametrize("way", ["install", "wheel"])
def test_installed_package_imports_and_runs(way: str, tmp_path: Path) -> None:
    checkout = tmp_path / "checkout"
    shutil.copytree(ROOT, checkout, ignore=SKIP, symlinks=True)
    python = fresh_venv(tmp_path)
    bin_dir = python.parent
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    for line in alternatives()[way]:
        argv = shlex.split(line)
        assert argv[0] == "pip", line
        run([python, "-m", "pip", *argv[1:]], cwd=checkout, env=env)

    # outside the checkout: the package is the venv's, with its data files
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    where = run(
        [
            python,
            "-c",
            "import mindjit, mindjit.frontend.dataset.vision as v, mindjit.backend.ascend as a, "
            "pathlib; print(mindjit.__file__); "
            "assert (pathlib.Path(a.__file__).parent / 'DEVICE.md').is_file()",
        ],
        cwd=elsewhere,
        env=env,
    )
    assert where.startswith(str(tmp_path / "venv")), where
    assert str(ROOT) not in where and str(checkout) not in where, where

    (elsewhere / "small.mlir").write_text(SMALL_MLIR)
    printed = run([bin_dir / "ms-opt", "small.mlir"], cwd=elsewhere, env=env)
    assert "mindir.add %a, %a : tensor<2xf32>" in printed, printed

    (elsewhere / "program.py").write_text(GRAPH_PROGRAM)
    out = run([python, "program.py"], cwd=elsewhere, env=env)
    assert out.startswith(f"graph {tmp_path / 'venv'}"), out
