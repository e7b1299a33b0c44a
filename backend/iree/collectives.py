"""Collectives on IREE: each call of the communication runtime is a host import.

The lowering gives `mindir.all_reduce` and the other collectives as calls of
runtime declarations (`func.call @__mindjit_all_reduce_sum(%g)`, the
declaration marked `mindjit.runtime = "all_reduce_sum"`,
passes/mindir_to_tensor/collective.py); the numpy executor runs them with its
communication object `exe.comm` (backend/cpu/kernels_collective.py). On IREE
each call site becomes a call of its own import of the Python module `mindjit`,
as a print site does,

    %s = func.call @__mindjit_all_reduce_sum(%g)  ->  %s = func.call @mindjit.all_reduce_sum_0(%g)

(a broadcast's root rank and each site's types stay Python-side), and the
executable implements it with its `comm` (a `Communicator`: `all_reduce`,
`all_gather`, `broadcast`, `group_size`, `rank`; None outside a replicated
call, where every collective is the identity, a group of one), computing what
the numpy kernel computes, so both engines give bit-identical results.

Order: replicas meet collective by collective (the k-th of a step on one
replica with the k-th on the others). Every replica runs the same vmfb, so
IREE's order of the calls is the same on all of them, whatever it is; IREE never
drops an import call. (Pipeline channels need more, a fixed order against the
other stage's program: channels.py chains them with a token.)
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, StringAttr, SymbolRefAttr
from xdsl.ir import Attribute

from mindjit.backend.cpu.errors import ExecutionError
from mindjit.backend.cpu.types import static_shape
from mindjit.backend.iree.channels import HOST_MODULE, HostCallFailed
from mindjit.ir.walk import walk_ops
from mindjit.passes.mindir_to_tensor.collective import ROOT_RANK_ATTR
from mindjit.passes.mindir_to_tensor.state import RUNTIME_ATTR

REDUCE_OPS = ("sum", "max", "min", "prod")
KINDS = frozenset(
    [*(f"all_reduce_{r}" for r in REDUCE_OPS), "all_gather", "reduce_scatter_sum", "broadcast"]
)


@dataclass(frozen=True)
class CollectiveSite:
    """One collective call: its import's name, kind, types and broadcast root."""

    name: str  # the import's function name in module `mindjit`
    kind: str
    input: Attribute
    output: Attribute
    root: int = 0


def _decls(module: ModuleOp) -> dict[str, str]:
    """Collective declarations: name -> runtime kind."""
    return {
        op.sym_name.data: kind.data
        for op in module.body.block.ops
        if isinstance(op, func.FuncOp)
        and isinstance(kind := op.attributes.get(RUNTIME_ATTR), StringAttr)
        and kind.data in KINDS
    }


def collective_sites(module: ModuleOp) -> list[tuple[func.CallOp, CollectiveSite]]:
    """Every collective call, in walk order (their numbering), with its site."""
    decls = _decls(module)
    found = []
    for op in walk_ops(module):
        if isinstance(op, func.CallOp) and op.callee.root_reference.data in decls:
            kind = decls[op.callee.root_reference.data]
            root = op.attributes.get(ROOT_RANK_ATTR)
            site = CollectiveSite(
                f"{kind}_{len(found)}",
                kind,
                op.operands[0].type,
                op.results[0].type,
                root.value.data if isinstance(root, IntegerAttr) else 0,
            )
            found.append((op, site))
    return found


def collectives_to_imports(module: ModuleOp) -> None:
    """Each collective call calls its own import; the runtime declarations go."""
    decls = _decls(module)
    if not decls:
        return
    body = module.body.block
    first = next(iter(body.ops))
    for call, site in collective_sites(module):
        call.properties["callee"] = SymbolRefAttr(f"{HOST_MODULE}.{site.name}")
        decl = func.FuncOp.external(f"{HOST_MODULE}.{site.name}", [site.input], [site.output])
        body.insert_op_before(decl, first)
    for op in list(body.ops):
        if isinstance(op, func.FuncOp) and op.sym_name.data in decls:
            body.erase_op(op)


def collective_export(exe: Any, site: CollectiveSite) -> tuple[str, str, Callable[..., Any]]:
    """(name, calling convention, function) of the site's import; the executable
    (held weakly) gives `comm`, `to_numpy`, `buffer_view` and `errors`."""
    owner = weakref.ref(exe)
    rt = exe._rt  # noqa: SLF001 - the executable's runtime module
    kind, t_in, t_out = site.kind, site.input, site.output
    a, b = static_shape(t_in), static_shape(t_out)
    size = b[0] // a[0] if kind == "all_gather" and a and a[0] else None
    if kind == "reduce_scatter_sum" and b and b[0]:
        size = a[0] // b[0]

    def run(comm: Any, x: np.ndarray) -> np.ndarray:
        if size is not None:
            n = 1 if comm is None else comm.group_size
            if size != n:
                op_name = kind.removesuffix("_sum")
                raise ExecutionError(
                    f"{op_name} was compiled for a group of {size} replicas but runs in a "
                    f"group of {n}"
                )
        if comm is None:  # a group of one
            return x
        if kind.startswith("all_reduce_"):
            return comm.all_reduce(kind, x, kind.removeprefix("all_reduce_"))
        if kind == "all_gather":
            return comm.all_gather(kind, x)
        if kind == "broadcast":
            return comm.broadcast(kind, x, site.root)
        total = comm.all_reduce(kind, x, "sum")  # reduce_scatter: this rank's block
        block = total.shape[0] // comm.group_size
        return np.ascontiguousarray(total[comm.rank * block : (comm.rank + 1) * block])

    def collective(_state: Any, ref: Any) -> Any:
        exe = owner()
        if exe is None:
            raise HostCallFailed(f"{site.name} after its executable was freed")
        try:
            x = exe.to_numpy(ref.deref(rt.HalBufferView), t_in).copy()  # IREE reuses its memory
            return exe.buffer_view(np.asarray(run(exe.comm, x))).ref
        except BaseException as exc:  # noqa: BLE001 - raised by the executable after IREE
            exe.errors.keep(exc)
            raise HostCallFailed(f"{site.name} failed") from None

    return site.name, "0r_r", collective
