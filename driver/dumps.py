"""`MS_DEV_SAVE_GRAPHS`: the IR after every stage of a compile, as .mlir files.

Names: `<compile>_<graph>_<stage number>_<stage>.mlir`, e.g.
`0003_Net_construct_09_mindir_depend_order.mlir`. `<compile>` counts the
process's compiles that dump (MindSpore numbers its graphs the same way), so a
second graph, or the same graph compiled again for another input signature,
never overwrites the first one's files. The stage number is the stage's place
in the fullest pipeline the compiler can run (every optional pass in: jit level
O2, cf-to-select, the pipeline split, cell reuse 2), so a stage keeps its
number whichever passes run: `MINDJIT_CF_TO_SELECT=0` leaves a gap, it does not
renumber what follows. What a backend was given (IREE's input) comes after.

Each file is self-contained MLIR: the blobs of its `dense_resource` Parameters
follow the module (`ir/resource_section.py`), so `iree-compile` or `ms-run` of a
saved stage runs with the weights the compile saw.

A dump that cannot be written (`save_graphs_path` names a file, an unwritable
directory) is said once and the program runs on: it is debug output
(`support/files.py` `write_dump`).
"""

from __future__ import annotations

import itertools
import os
import threading

from xdsl.dialects.builtin import ModuleOp

from mindjit.ir.resource_section import module_text
from mindjit.support.files import write_dump

_COMPILES = itertools.count()
_LOCK = threading.Lock()


class Dumps:
    """The files of one compile (nothing is written without a directory)."""

    def __init__(self, directory: str | None, graph: str, stages: list[str]):
        self.directory = directory
        self.stages = stages  # the fullest pipeline's stage names, in order
        self.position = 0
        self.extra = len(stages)  # numbers after every stage, for a backend's input
        if directory is None:
            self.prefix = ""
            return
        with _LOCK:
            compile_id = next(_COMPILES)
        self.prefix = f"{compile_id:04d}_{graph}"

    def number(self, stage: str) -> int:
        """The stage's number: its next occurrence in the fullest pipeline."""
        for i in range(self.position, len(self.stages)):
            if self.stages[i] == stage:
                self.position = i + 1
                return i
        self.extra += 1  # a pass the fullest pipeline does not have
        return self.extra - 1

    def stage(self, stage: str, module: ModuleOp) -> None:
        """The module after `stage`."""
        if self.directory is not None:
            self.text(self.number(stage), stage, module_text(module))

    def backend_text(self, stage: str, text: str) -> None:
        """MLIR a backend made (e.g. IREE's input), numbered after every stage."""
        if self.directory is not None:
            self.extra += 1
            self.text(self.extra - 1, stage, text)

    def text(self, number: int, stage: str, text: str) -> None:
        assert self.directory is not None
        name = stage.replace("-", "_")
        path = os.path.join(self.directory, f"{self.prefix}_{number:02d}_{name}.mlir")
        write_dump(path, text)  # debug output: a failure warns, the compile goes on
