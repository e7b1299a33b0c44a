"""`MS_DEV_SAVE_GRAPHS`: the IR after every stage of a compile, as .mlir files.

Each file is self-contained MLIR: the blobs of its `dense_resource` Parameters
follow the module (`ir/resource_section.py`), so `iree-compile` or `ms-run` of a
saved stage runs with the weights the compile saw.
"""

from __future__ import annotations

import os

from xdsl.dialects.builtin import ModuleOp

from mindjit.ir.resource_section import module_text
from mindjit.support.files import write_atomic


def dump_stage(directory: str | None, index: int, stage: str, module: ModuleOp) -> None:
    """Write `module` as `<directory>/<index>_<stage>.mlir` (nothing without a directory)."""
    if directory is not None:
        dump_text(directory, index, stage, module_text(module))


def dump_text(directory: str, index: int, stage: str, text: str) -> None:
    """Write MLIR text a backend made (e.g. IREE's input) as `<index>_<stage>.mlir`."""
    os.makedirs(directory, exist_ok=True)
    name = stage.replace("-", "_")
    write_atomic(os.path.join(directory, f"{index:02d}_{name}.mlir"), text)
