"""How much of MindSpore 2.10's API mindjit has, over the names MindSpore runs on CPU.

MindSpore's names are in benchmarks/data/mindspore_2_10_names.json, generated
once from MindSpore itself (benchmarks/data/gen_mindspore_names.py says how):
each with the platforms its docstring lists. A name counts when MindSpore runs
it on CPU (its "Supported Platforms" include CPU or say nothing) and it is not
communication or distributed training. mindjit's names are read from the code:
`mindjit.nn`, `mindjit.ops` (functions and primitive classes apart), Tensor's
public methods, `mindjit.amp` and the top-level package.

Prints one row per category (MindSpore's CPU names, how many mindjit has, the
coverage, the target of issue 38 and whether it is met); `--missing CATEGORY`
lists what mindjit lacks there.

    .venv/bin/python benchmarks/api_coverage.py [--missing "Tensor methods"]
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import json
import sys
import types
from pathlib import Path

import mindjit as ms

DATA = Path(__file__).resolve().parent / "data" / "mindspore_2_10_names.json"
#: issue 38's targets over MindSpore's CPU-runnable names (None: reported only)
TARGETS = {
    "nn": 0.90,
    "ops functions": 0.75,
    "ops primitives": None,
    "Tensor methods": 0.80,
    "amp": 1.00,
    "top level": None,
}


def _public(module: types.ModuleType) -> dict[str, object]:
    names = getattr(module, "__all__", None) or [n for n in dir(module) if not n.startswith("_")]
    out = {}
    for n in names:
        try:
            value = getattr(module, n)
        except AttributeError:
            continue
        if not n.startswith("_") and not isinstance(value, types.ModuleType):
            out[n] = value
    return out


def _amp() -> dict[str, object]:
    try:
        return _public(importlib.import_module("mindjit.amp"))
    except ImportError:
        return {}


def mindjit_names() -> dict[str, set[str]]:
    ops = _public(ms.ops)
    tensor = {n for n in dir(ms.Tensor) if not n.startswith("_")}
    return {
        "nn": set(_public(ms.nn)),
        "ops functions": {n for n, v in ops.items() if not inspect.isclass(v)},
        "ops primitives": {n for n, v in ops.items() if inspect.isclass(v)},
        "Tensor methods": tensor,
        "amp": set(_amp()),
        "top level": set(_public(ms)),
    }


def coverage() -> list[dict]:
    data = json.loads(DATA.read_text())
    have = mindjit_names()
    rows = []
    for category, target in TARGETS.items():
        wanted = sorted(e["name"] for e in data[category] if e["cpu"])
        present = [n for n in wanted if n in have[category]]
        rows.append(
            {
                "category": category,
                "mindspore": len(wanted),
                "mindjit": len(present),
                "coverage": len(present) / len(wanted) if wanted else 1.0,
                "target": target,
                "missing": [n for n in wanted if n not in have[category]],
            }
        )
    return rows


def table(rows: list[dict]) -> str:
    data = json.loads(DATA.read_text())
    lines = [
        f"MindSpore {data['mindspore']} names that run on CPU, and mindjit's:",
        "",
        "| category | MindSpore (CPU) | mindjit has | coverage | target | met |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        target = "-" if r["target"] is None else f"{r['target']:.0%}"
        met = "-" if r["target"] is None else ("yes" if r["coverage"] >= r["target"] else "no")
        lines.append(
            f"| {r['category']} | {r['mindspore']} | {r['mindjit']} | "
            f"{r['coverage']:.1%} | {target} | {met} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--missing", metavar="CATEGORY", help="list what mindjit lacks there")
    args = parser.parse_args(argv)
    rows = coverage()
    if args.missing is not None:
        found = [r for r in rows if r["category"] == args.missing]
        if not found:
            print(f"error: no category {args.missing!r}; one of {list(TARGETS)}", file=sys.stderr)
            return 2
        print("\n".join(found[0]["missing"]))
        return 0
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
