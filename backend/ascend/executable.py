"""`AscendExecutable`: a tensor-level module compiled for and run on the simulated
device, with the CPU executable's interface (`run`, `set_global`, `get_global`),
so graph mode runs on it under `set_context(device_target="Ascend")`.

Compiling runs the device pipeline on a copy of the module, writes the model
file's bytes and reads them back (so every run goes through the validated
format); with MS_DEV_SAVE_GRAPHS the file is also saved as
`<save_graphs_path>/<entry>.msmodel` with the device IR as
`<entry>.ascend.mlir`. `report` is the last run's simulator report.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from mindjit.backend.ascend.compile import compile_for_device
from mindjit.backend.ascend.model_file import decode, encode
from mindjit.backend.ascend.simulator import Simulator
from mindjit.ir.resource_section import module_text
from mindjit.support.errors import MindjitError
from mindjit.support.files import write_dump


class AscendExecutable:
    def __init__(
        self,
        module: ModuleOp,
        entry: str,
        save_dir: str | None = None,
        cell_reuse: int | None = None,
    ):
        device_module = module.clone()
        model = compile_for_device(device_module, cell_reuse)
        self.model_bytes = encode(model)
        self.model_path: str | None = None
        if save_dir is not None:  # dumps: one that cannot be written warns, never stops
            path = os.path.join(save_dir, f"{entry}.msmodel")
            self.model_path = path if write_dump(path, self.model_bytes) else None
            write_dump(os.path.join(save_dir, f"{entry}.ascend.mlir"), module_text(device_module))
        self.device_module = device_module
        self.simulator = Simulator(decode(self.model_bytes, f"<{entry}.msmodel>"))
        self.entry = entry
        self.report: dict[str, Any] | None = None
        self._params = self.simulator.parameter_tensors
        # Parameters some kernel writes: only their values can change in a run
        self._written = {
            s.writes for g in self.simulator.model.graphs for s in g.sequence if s.writes != -1
        }
        # ... or its code stores (an Assign inside an `if` or `while` kernel)
        self._written |= {
            self._params[name]
            for code in self.simulator.codes.values()
            for name in code.stored_globals
            if name in self._params
        }
        self._sent: dict[str, Any] = {}

    def plan_for(self, name: str) -> None:  # the CPU executable's interface
        pass

    def set_global(self, name: str, value: Any) -> None:
        self.simulator.view(self._param(name))[...] = np.asarray(value)
        self._sent[name] = value

    def get_global(self, name: str) -> np.ndarray:
        """The Parameter's value: the array last given to `set_global` when no
        kernel writes it (so callers see nothing changed), else a copy."""
        tid = self._param(name)
        if tid not in self._written and name in self._sent:
            return self._sent[name]
        return np.array(self.simulator.view(tid))

    def _param(self, name: str) -> int:
        if name not in self._params:
            raise MindjitError(f"the device model has no Parameter @{name}")
        return self._params[name]

    def run(self, name: str, *args: Any) -> tuple[np.ndarray, ...]:
        outputs = self.simulator.run(args, name)
        self.report = self.simulator.report
        return tuple(outputs)
