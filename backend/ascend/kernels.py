"""Loading kernel code: MLIR text -> a numpy plan of the CPU executor.

A kernel's code is a module holding `func.func @kernel`; the simulator runs it
with the CPU executor's numpy kernels, so values equal the CPU executor's.
Loading checks the code against the manifest: it must parse, verify, and take
and give exactly the dtypes and shapes of the kernel's tensors; anything else
is a `ModelFormatError`. Loaded codes are cached by text, so a fuzzer (or a
cache) reading the same model again does not parse twice.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

from xdsl.dialects import func

from mindjit.backend.ascend.model import ModelFormatError, Tensor
from mindjit.backend.cpu import CpuExecutable
from mindjit.backend.cpu.types import dims_of, dtype_of
from mindjit.dialects.parsing import parse_module

KernelFn = Callable[[Sequence[Any]], tuple[Any, ...]]


class LoadedCode:
    """A parsed, planned kernel code and its signature."""

    def __init__(self, text: str):

        try:
            module = parse_module(text, "<kernel code>")
        except Exception as exc:  # noqa: BLE001 - any parse failure is a bad file
            raise ModelFormatError(f"kernel code does not parse: {_first_line(exc)}") from None
        fn = next(
            (
                op
                for op in module.body.block.ops
                if isinstance(op, func.FuncOp) and op.sym_name.data == "kernel"
            ),
            None,
        )
        if fn is None or not fn.body.blocks:
            raise ModelFormatError("kernel code has no 'func.func @kernel'")
        try:
            # (a loop's record has -1 for its capacity, as in the manifest)
            self.inputs = [(dtype_of(t).name, list(dims_of(t))) for t in fn.function_type.inputs]
            self.outputs = [(dtype_of(t).name, list(dims_of(t))) for t in fn.function_type.outputs]
            self.exe = CpuExecutable(module)
            self.plan = self.exe.plan_for("kernel")
        except Exception as exc:  # noqa: BLE001 - unplannable code is a bad file
            raise ModelFormatError(f"kernel code cannot run: {_first_line(exc)}") from None
        self.globals = [
            op.properties["sym_name"].data
            for op in module.body.block.ops
            if op.name == "ml_program.global"
        ]  # type: ignore[union-attr]
        # the globals the code stores (a control-flow kernel assigning Parameters)
        self.stored_globals = {
            op.properties["global"].root_reference.data  # type: ignore[union-attr]
            for op in module.walk()
            if op.name == "ml_program.global_store"
        }

    def check(self, name: str, ins: list[Tensor], outs: list[Tensor]) -> None:
        sig = lambda ts: [(t.dtype, t.shape) for t in ts]  # noqa: E731
        if self.inputs != sig(ins) or self.outputs != sig(outs):
            raise ModelFormatError(
                f"kernel '{name}': its code takes {self.inputs} -> {self.outputs}, the "
                f"manifest gives {sig(ins)} -> {sig(outs)}"
            )


def _first_line(exc: Exception) -> str:
    text = str(exc).strip().splitlines()
    return text[-1] if text else type(exc).__name__


@lru_cache(maxsize=4096)
def load_code(text: str) -> LoadedCode:
    return LoadedCode(text)
