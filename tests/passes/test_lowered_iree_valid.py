"""Everything `lower_to_tensor` produces from the FileCheck inputs is valid MLIR.

Every chunk (split on `// -----`) of every .mlir under tests/filecheck/ that parses
and lowers is printed and handed to IREE's `iree-opt`, which must accept it. Files
run with --verify-diagnostics are made of invalid programs and are skipped, as
are chunks that do not parse or do not lower (their errors are other tests' job).
Functions using the Ascend float-status ops (which only the device backend
implements) are left out of a chunk, so the rest of it, e.g. the state ops of
the dialect's ops.mlir, is still checked. Unsigned element types are made
signless first, as IREE's input is (backend/iree/signless.py: the lowering keeps
`ui8` and reads it with the unsigned ops, arith takes signless integers only).
One iree-opt call per file
(`--split-input-file`); a failure is retried chunk by chunk to name the one MLIR
rejects.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

from mindjit.backend.iree.signless import make_signless
from mindjit.dialects.parsing import parse_module
from mindjit.passes.mindir_grad.mindir_grad import grad_module
from mindjit.passes.mindir_to_tensor.effects import DEVICE_OPS
from mindjit.passes.mindir_vmap import vmap_module
from mindjit.passes.pipelines import contains_mindir, lower_to_tensor
from mindjit.support.errors import MindjitError

FILECHECK_DIR = Path(__file__).resolve().parents[1] / "filecheck"
SPLIT = "// -----"


def _iree_opt() -> str | None:
    local = Path(sys.executable).parent / "iree-opt"
    if local.exists():
        return str(local)
    return shutil.which("iree-opt")


def _inputs() -> list[Path]:
    files = []
    for path in sorted(FILECHECK_DIR.rglob("*.mlir")):
        if "Output" in path.parts:
            continue
        run_lines = [ln for ln in path.read_text(encoding="utf-8").splitlines() if "RUN:" in ln]
        if any("--verify-diagnostics" in ln or "-verify-diagnostics" in ln for ln in run_lines):
            continue
        files.append(path)
    return files


def _drop_device_functions(module: ModuleOp) -> None:
    """Remove the functions that use Ascend-only ops and are not called."""
    called = {op.callee.root_reference.data for op in module.walk() if isinstance(op, func.CallOp)}
    for op in list(module.ops):
        if (
            isinstance(op, func.FuncOp)
            and op.sym_name.data not in called
            and any(isinstance(inner, tuple(DEVICE_OPS)) for inner in op.walk())
        ):
            op.detach()
            op.erase()


def _lowered_chunks(path: Path) -> list[tuple[int, str]]:
    """(first line, lowered text) of each chunk of `path` that parses and lowers."""
    out: list[tuple[int, str]] = []
    line = 1
    for chunk in path.read_text(encoding="utf-8").split(SPLIT):
        first = line
        line += chunk.count("\n")
        try:
            module = parse_module(chunk, str(path))
            if not contains_mindir(module):
                continue
            _drop_device_functions(module)
            grad_module(module)  # nothing lowers a mindir.grad or a mindir.vmap:
            vmap_module(module)  # expand and batch them first
            lower_to_tensor(module)
        except MindjitError:
            continue
        make_signless(module)
        out.append((first, str(module)))
    return out


def _run(iree_opt: str, text: str, split: bool) -> subprocess.CompletedProcess:
    args = [iree_opt, "-", "-o", "/dev/null"] + (["--split-input-file"] if split else [])
    return subprocess.run(args, input=text, capture_output=True, text=True, timeout=120)


INPUTS = _inputs()


@pytest.mark.parametrize("path", INPUTS, ids=[str(p.relative_to(FILECHECK_DIR)) for p in INPUTS])
def test_lowered_filecheck_inputs_are_valid_mlir(path: Path) -> None:
    iree_opt = _iree_opt()
    if iree_opt is None:
        pytest.skip("iree-opt is not installed")
    chunks = _lowered_chunks(path)
    if not chunks:
        pytest.skip("no chunk of this file lowers")
    joined = f"\n{SPLIT}\n".join(text for _, text in chunks)
    if _run(iree_opt, joined, split=True).returncode == 0:
        return
    for first_line, text in chunks:
        result = _run(iree_opt, text, split=False)
        assert result.returncode == 0, (
            f"iree-opt rejects the lowering of {path}:{first_line}:\n{result.stderr}\n--- lowered IR ---\n{text}"
        )
    pytest.fail(f"iree-opt rejects the lowered chunks of {path} together but accepts each alone")


def test_some_inputs_exist() -> None:
    assert any(FILECHECK_DIR.rglob("*.mlir")), "no FileCheck inputs found"
