"""Every mindir op is built by the frontend or marked internal, and every public name
of `mindjit.ops`, `mindjit.nn` and `Tensor` is in the generated docs/api-index.md.

Reachability is static: an op counts as built by the frontend when a module under
frontend/ names its class (`M.AddOp`, or imports it from mindjit.dialects.mindir).
An op no frontend module names is one only passes create: it is listed, with why,
in `INTERNAL_OPS` (dialects/mindir/__init__.py). docs/gen_api_index.py writes
the index and holds the scan.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import mindjit
from mindjit import nn, ops
from mindjit.dialects.mindir import INTERNAL_OPS, MindIR

ROOT = Path(__file__).resolve().parents[2]


def _generator():
    spec = importlib.util.spec_from_file_location("gen_api_index", ROOT / "docs/gen_api_index.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


GEN = _generator()


def test_every_mindir_op_is_built_by_the_frontend_or_marked_internal() -> None:
    refs = GEN.frontend_references()
    unreached = sorted(
        cls.name
        for cls in MindIR.operations
        if cls.__name__ not in refs and cls not in INTERNAL_OPS
    )
    assert not unreached, (
        f"mindir ops no frontend module builds: {unreached}; give each a public "
        "ops/nn/Tensor name, or list it with the reason in INTERNAL_OPS "
        "(dialects/mindir/__init__.py)"
    )


def test_an_internal_op_is_one_the_frontend_does_not_build() -> None:
    refs = GEN.frontend_references()
    both = sorted(
        f"{cls.name} ({', '.join(sorted(refs[cls.__name__]))})"
        for cls in INTERNAL_OPS
        if cls.__name__ in refs
    )
    assert not both, (
        f"marked internal but built by the frontend: {both}; drop them from INTERNAL_OPS"
    )
    stray = sorted(cls.__name__ for cls in INTERNAL_OPS if cls not in MindIR.operations)
    assert not stray, f"INTERNAL_OPS names classes the MindIR dialect does not register: {stray}"


def test_the_api_index_is_current() -> None:
    current = (ROOT / "docs/api-index.md").read_text()
    assert current == GEN.render(), "docs/api-index.md is stale: run python docs/gen_api_index.py"


def test_every_public_name_is_in_the_api_index() -> None:
    text = (ROOT / "docs/api-index.md").read_text()
    sections = {
        "mindjit.ops": GEN.public_names(ops),
        "mindjit.nn": GEN.public_names(nn),
        "mindjit.Tensor": [n for n in dir(mindjit.Tensor) if not n.startswith("_")],
    }
    for title, names in sections.items():
        start = text.index(f"## `{title}`")
        end = text.find("\n## ", start + 1)
        body = text[start:end]
        missing = [n for n in names if f"| `{n}` |" not in body]
        assert not missing, f"{title}: public names missing from docs/api-index.md: {missing}"
