"""Imports flow one way through the layers (docs/architecture.md):

    support -> ir -> dialects -> passes -> backend -> driver -> frontend -> tools -> mindjit

A module may import its own layer and the layers below it, at module level or
inside a function, with two narrowings: the frontend reaches the compiler only
through the driver (it emits mindir; it neither runs passes nor plans kernels),
and a few packages inside a layer are below the rest of it (`ir.compat` under
`ir`, `passes.analysis` under the passes). The test reads every module's AST.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ORDER = ["support", "ir", "dialects", "passes", "backend", "driver", "frontend", "tools", "mindjit"]
#: layer -> layers it may not import although they are below it
NARROWED = {"frontend": {"passes", "backend"}}
#: package -> the only mindjit packages it may import (a bottom part of its layer)
INNER = {
    "ir.compat": ("support", "ir.compat"),
    "passes.analysis": ("support", "ir", "dialects", "passes.analysis"),
}


def _modules() -> list[tuple[str, Path]]:
    found = []
    for layer in ORDER:
        for path in sorted((ROOT / layer).rglob("*.py")):
            parts = path.relative_to(ROOT / layer).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            name = ".".join(([] if layer == "mindjit" else [layer]) + list(parts))
            found.append((name or "mindjit", path))
    return found


def _imported(path: Path) -> list[tuple[int, str]]:
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            out += [(node.lineno, n) for n in names if n.startswith("mindjit")]
        elif isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names if a.name.startswith("mindjit")]
    return out


def _target(name: str) -> str | None:
    """`mindjit.passes.x` -> `passes.x`; the API package -> `mindjit`."""
    rest = name.removeprefix("mindjit").removeprefix(".")
    if not rest or rest.split(".")[0] not in ORDER:
        return "mindjit" if not rest else None  # a name imported from the API package
    return rest


def _layer(module: str) -> str:
    return module.split(".")[0] if module.split(".")[0] in ORDER else "mindjit"


def _violations() -> list[str]:
    bad = []
    for module, path in _modules():
        layer = _layer(module)
        allowed = set(ORDER[: ORDER.index(layer) + 1]) - NARROWED.get(layer, set())
        inner = next(
            (v for k, v in INNER.items() if module == k or module.startswith(k + ".")), None
        )
        for line, name in _imported(path):
            target = _target(name)
            if target is None:
                continue
            where = f"{path.relative_to(ROOT)}:{line}: {module} imports {name}"
            if _layer(target) not in allowed:
                bad.append(where)
            elif inner is not None and not any(
                target == p or target.startswith(p + ".") for p in inner
            ):
                bad.append(where + " (outside the part of its layer it sits on)")
    return sorted(set(bad))


def test_imports_flow_one_way() -> None:
    bad = _violations()
    assert not bad, "imports against the layers:\n" + "\n".join(bad)


@pytest.mark.parametrize("layer", ORDER)
def test_every_layer_exists(layer: str) -> None:
    assert (ROOT / layer / "__init__.py").exists()


def test_the_check_sees_an_upward_import(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The AST reading finds imports at module level and inside functions."""
    source = "import os\n\ndef f():\n    from mindjit.frontend.tensor import Tensor\n"
    path = tmp_path / "x.py"
    path.write_text(source)
    assert _imported(path) == [
        (4, "mindjit.frontend.tensor"),
        (4, "mindjit.frontend.tensor.Tensor"),
    ]
    assert _layer(_target("mindjit.frontend.tensor") or "") == "frontend"


def test_function_level_imports_say_why() -> None:
    """An import inside a function hides the import graph: each of the few that must
    be there (a cycle, a lazy registration) carries a comment saying why."""
    silent = []
    for _, path in _modules():
        source = path.read_text()
        lines = source.splitlines()
        for node in ast.walk(ast.parse(source)):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for inner in ast.walk(node):
                if isinstance(inner, ast.Import | ast.ImportFrom):
                    text = lines[inner.lineno - 1 : inner.end_lineno]
                    if not any("#" in line for line in text):
                        silent.append(f"{path.relative_to(ROOT)}:{inner.lineno}")
    assert not silent, "function-level imports without a reason: " + ", ".join(sorted(set(silent)))
