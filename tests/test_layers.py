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
import functools
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


@functools.cache
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


# -- the frontend's sub-layers, and no import cycle inside any layer ---------------------------

#: the frontend's sub-layers, bottom to top (docs/architecture.md): a frontend module
#: imports its own sub-layer and those before it. Every module is in exactly one.
#: core: Tensor, dtypes, dispatch, the tape, context, what the compiler knows of a Cell
#: and a gradient; ops: the functional ops and primitives (each runs through dispatch);
#: graph: Python source to mindir (the compiler, the evaluator, vmap's tracing);
#: api: what a user imports (nn, train, dataset, checkpoint, grad, jit, the `ops` face).
FRONTEND_SUBLAYERS: dict[str, tuple[str, ...]] = {
    "core": (
        "frontend.cell_base",
        "frontend.communication",
        "frontend.context",
        "frontend.dispatch",
        "frontend.dtype",
        "frontend.emitter",
        "frontend.grad_spec",
        "frontend.grad_tape",
        "frontend.graph_value",
        "frontend.lazy_inline",
        "frontend.mixed_precision",
        "frontend.ms_modules",
        "frontend.mutable",
        "frontend.parameter_tuple",
        "frontend.printing",
        "frontend.structure",
        "frontend.tensor",
        "frontend.tensor_method_support",
        "frontend.tensor_methods",
        "frontend.tensor_methods_inplace",
        "frontend.tensor_methods_more",
        "frontend.tensor_methods_scatter",
        "frontend.tensor_methods_math",
        "frontend.tensor_operators",
    ),
    "ops": ("frontend.ops.",),
    "graph": ("frontend.graph", "frontend.vmap"),
    "api": (
        "frontend",
        "frontend.amp",
        "frontend.amp_loss_scale",
        "frontend.checkpoint",
        "frontend.checkpoint_checks",
        "frontend.checkpoint_net",
        "frontend.checkpoint_proto",
        "frontend.checkpoint_safetensors",
        "frontend.dataset",
        "frontend.grad",
        "frontend.grad_functional",
        "frontend.taylor",
        "frontend.jit",
        "frontend.nn",
        "frontend.train",
        # the `ops` face and MindSpore's views of it (composite as C, ...): they name
        # the gradient API, which is above the graph compiler
        "frontend.ops",
        "frontend.ops.composite",
        "frontend.ops.functional",
        "frontend.ops.operations",
    ),
}
SUBLAYER_ORDER = list(FRONTEND_SUBLAYERS)
#: function-level imports that go up a sub-layer, each the one place an inversion is
#: resolved at call time (the import carries its reason as a comment too)
UPWARD_CALLS = {
    # Tensor's operators and methods are the ops (`x + y` is ops.add); Tensor is below them
    ("frontend.tensor", "frontend.ops.advanced_indexing"),
    ("frontend.tensor_method_support", "frontend.ops"),
    ("frontend.tensor_method_support", "frontend.ops.promotion"),
    ("frontend.tensor_operators", "frontend.ops.promotion"),
    ("frontend.tensor_methods", "frontend.ops.repeat"),
    ("frontend.tensor_methods_more", "frontend.ops.axes"),  # Tensor.mT, numpy's Tensor.trace
    ("frontend.tensor_methods_more", "frontend.ops.math_extras"),  # Tensor.allclose
    ("frontend.tensor_methods_more", "frontend.ops.cumulative"),  # Tensor.argmax_with_value
    ("frontend.tensor_methods_scatter", "frontend.ops.tensor_edits"),  # Tensor.index_put ...
    # `Parameter(init="normal", ...)` runs nn.init's initializers
    ("frontend.tensor", "frontend.nn.init"),
}


def sublayer_of(module: str) -> str:
    """The sub-layer of a frontend module: its longest matching entry."""
    best, length = None, -1
    for layer, entries in FRONTEND_SUBLAYERS.items():
        for entry in entries:
            prefix = entry.endswith(".")
            hit = (
                module.startswith(entry)
                if prefix
                else (module == entry or module.startswith(entry + "."))
            )
            if hit and len(entry) > length:
                best, length = layer, len(entry)
    assert best is not None, f"{module}: in no frontend sub-layer (tests/test_layers.py)"
    return best


@functools.cache
def _known() -> frozenset[str]:
    return frozenset(name for name, _ in _modules())


def _import_edges(path: Path, module_level: bool) -> list[tuple[int, str]]:
    """(line, imported module) of each mindjit import, at module level (run when the
    module loads, `if TYPE_CHECKING` left out) or inside functions."""
    tree = ast.parse(path.read_text())
    found: list[ast.Import | ast.ImportFrom] = []

    def visit(nodes: list[ast.stmt], in_function: bool) -> None:
        for node in nodes:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                if not module_level:
                    found.extend(
                        n for n in ast.walk(node) if isinstance(n, ast.Import | ast.ImportFrom)
                    )
                continue
            if isinstance(node, ast.Import | ast.ImportFrom):
                if module_level:
                    found.append(node)
                continue
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                continue
            for field in ("body", "orelse", "handlers", "finalbody"):
                visit(getattr(node, field, []) or [], in_function)

    visit(tree.body, False)
    known = _known()
    out = []
    for node in found:
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif node.module and node.level == 0:
            # `from package import module` imports the module; any other name, the package
            subs = [f"{node.module}.{a.name}" for a in node.names]
            modules = [s for s in subs if _target(s) in known]
            names = modules + ([node.module] if len(modules) < len(subs) else [])
        else:
            continue
        for name in names:
            target = _target(name) if name.startswith("mindjit") else None
            if target is not None and target in known:
                out.append((node.lineno, target))
    return out


def test_frontend_sublayers_flow_one_way() -> None:
    bad = []
    for module, path in _modules():
        if _layer(module) != "frontend":
            continue
        rank = SUBLAYER_ORDER.index(sublayer_of(module))
        for module_level in (True, False):
            for line, target in _import_edges(path, module_level):
                if _layer(target) != "frontend":
                    continue
                there = sublayer_of(target)
                if SUBLAYER_ORDER.index(there) <= rank:
                    continue
                if not module_level and (module, target) in UPWARD_CALLS:
                    continue
                bad.append(
                    f"{path.relative_to(ROOT)}:{line}: {module} ({sublayer_of(module)}) "
                    f"imports {target} ({there})"
                )
    assert not bad, "imports up the frontend's sub-layers:\n" + "\n".join(sorted(set(bad)))


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def module_level_edges() -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {}
    for module, path in _modules():
        edges[module] = {
            t
            for _, t in _import_edges(path, module_level=True)
            if t != module and _layer(t) == _layer(module)
        }
    return edges


@pytest.mark.parametrize("layer", ORDER)
def test_no_module_level_import_cycle_in_a_layer(layer: str) -> None:
    """A cycle of module-level imports works only in one import order (a formatter
    reordering imports broke one twice): none, inside any layer."""
    edges = {m: e for m, e in module_level_edges().items() if _layer(m) == layer}
    cycles = _cycles(edges)
    assert not cycles, f"module-level import cycles in {layer}/: " + "; ".join(
        " <-> ".join(c) for c in cycles
    )


def test_the_cycle_check_finds_a_cycle() -> None:
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(edges) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


# -- docs/architecture.md's directory map lists every source file ------------------------------


def _documented_map() -> dict[str, set[str]]:
    """folder -> the file names its entry in the map lists."""
    text = (ROOT / "docs" / "architecture.md").read_text()
    start = text.index("## Directory map")
    block = text[
        text.index("```\n", start) + 4 : text.index("```\n", text.index("```\n", start) + 4)
    ]
    listed: dict[str, set[str]] = {}
    folder = None
    for line in block.splitlines():
        if line and not line.startswith(" "):
            folder = line.split("/")[0] if "/  #" not in line else line.split("/  #")[0]
            listed.setdefault(folder, set())
        elif folder is not None:
            listed[folder].update(line.split())
    return listed


def test_the_directory_map_lists_every_source_file() -> None:
    listed = _documented_map()
    missing, stale = [], []
    for layer in ORDER:
        for path in sorted((ROOT / layer).rglob("*.py")):
            if "__pycache__" in path.parts or path.name == "__init__.py":
                continue
            folder = str(path.parent.relative_to(ROOT))
            if path.name not in listed.get(folder, set()):
                missing.append(str(path.relative_to(ROOT)))
    for folder, names in listed.items():
        for name in names:
            if name.endswith(".py") and not (ROOT / folder / name).exists():
                stale.append(f"{folder}/{name}")
    assert not missing and not stale, (
        f"docs/architecture.md's directory map: missing {missing}, stale {stale}"
    )
