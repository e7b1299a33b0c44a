"""Writes mindspore_2_10_names.json: MindSpore's public names, by category, with the
platforms each one's docstring lists (run once, in a venv with MindSpore):

    python -m venv /tmp/ms && /tmp/ms/bin/pip install mindspore==2.10.0 "numpy<2"
    /tmp/ms/bin/python benchmarks/data/gen_mindspore_names.py

benchmarks/api_coverage.py reads the file; nothing in mindjit imports MindSpore.
A name counts as runnable on CPU unless its docstring's "Supported Platforms"
leaves CPU out, or it belongs to communication/distributed training (one process
on a CPU has no peers), or it is an internal helper (a lower-case name in
`mindspore.nn` that is a module, or a name starting with `_`).
"""

from __future__ import annotations

import inspect
import json
import re
import sys
import types
from pathlib import Path

import mindspore
from mindspore import Tensor, amp, nn, ops

OUT = Path(__file__).with_name("mindspore_2_10_names.json")
_PLATFORMS = re.compile(r"Supported Platforms:\s*((?:``\w+``\s*)+)")
#: communication and distributed training: not runnable in one CPU process
_DISTRIBUTED = re.compile(
    r"^(All(Reduce|Gather|ToAll|toAll)|ReduceScatter|Broadcast|Send|Receive|Recv|"
    r"NeighborExchange|AlltoAll|BatchISendIRecv|CollectiveGather|CollectiveScatter|"
    r"DistributedGradReducer|PipelineCell|PipelineGradReducer|MicroBatchInterleaved|"
    r"GradAccumulationCell|Barrier|_)"
)


def platforms(obj: object) -> list[str]:
    doc = inspect.getdoc(obj) or ""
    found = _PLATFORMS.search(doc)
    return re.findall(r"``(\w+)``", found.group(1)) if found else []


def entry(name: str, obj: object) -> dict:
    where = platforms(obj)
    cpu = (not where or "CPU" in where) and not _DISTRIBUTED.match(name)
    return {"name": name, "platforms": where, "cpu": cpu}


def public(module: types.ModuleType) -> list[tuple[str, object]]:
    names = getattr(module, "__all__", None) or [n for n in dir(module) if not n.startswith("_")]
    out = []
    for n in sorted(set(names)):
        obj = getattr(module, n, None)
        if obj is None or isinstance(obj, types.ModuleType) or n.startswith("_"):
            continue
        out.append((n, obj))
    return out


def main() -> int:
    ops_items = public(ops)
    data = {
        "mindspore": mindspore.__version__,
        "nn": [entry(n, o) for n, o in public(nn)],
        "ops functions": [entry(n, o) for n, o in ops_items if not inspect.isclass(o)],
        "ops primitives": [entry(n, o) for n, o in ops_items if inspect.isclass(o)],
        "Tensor methods": [
            entry(n, getattr(Tensor, n))
            for n in sorted(dir(Tensor))
            if not n.startswith("_") and callable(getattr(Tensor, n, None))
        ],
        "amp": [entry(n, o) for n, o in public(amp)],
        "top level": [
            entry(n, o)
            for n, o in public(mindspore)
            if not (inspect.isclass(o) and issubclass(o, nn.Cell))
        ],
    }
    OUT.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    for k, v in data.items():
        if isinstance(v, list):
            print(f"{k}: {len(v)} names, {sum(e['cpu'] for e in v)} on CPU")
    return 0


if __name__ == "__main__":
    sys.exit(main())
