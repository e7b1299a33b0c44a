"""One config source: every switch resolved in support/config.py with one precedence,
handed to passes as options; nothing else reads the environment."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

import mindjit as ms
from mindjit.frontend import context as C
from mindjit.passes.pipelines import jit_level_pipeline, parse_pipeline
from mindjit.support import config
from mindjit.support.errors import MindjitError

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _fresh_context():
    C.reset_context()
    yield
    C.reset_context()


def test_context_wins_over_environment_for_dumps(monkeypatch, tmp_path):
    """The bug this module fixed: MS_DEV_SAVE_GRAPHS=1 with set_context(save_graphs=False)
    wrote dumps although the context said they were off."""
    monkeypatch.setenv("MS_DEV_SAVE_GRAPHS", "1")
    monkeypatch.setenv("MS_DEV_SAVE_GRAPHS_PATH", str(tmp_path / "dumps"))
    ms.set_context(mode=ms.GRAPH_MODE, save_graphs=False)
    assert not config.save_graphs_enabled()

    @ms.jit
    def twice(x):
        return x * 2.0

    assert twice(ms.Tensor(np.ones(2, np.float32))).asnumpy().tolist() == [2.0, 2.0]
    assert not (tmp_path / "dumps").exists()


def test_the_call_wins_then_the_context_then_the_environment(monkeypatch):
    ms.set_context(jit_config={"jit_level": "O2"})
    assert config.compile_options().jit_level == "O2"
    assert config.compile_options("O0").jit_level == "O0"
    monkeypatch.setenv("MS_DEV_SIDE_EFFECT_LOAD_ELIM", "2")
    monkeypatch.setenv("MS_DEV_CELL_REUSE", "0")
    options = config.compile_options()
    assert (options.load_elim, options.cell_reuse) == (2, 0)
    assert parse_pipeline("mindir-load-elim")[0].level == 2  # type: ignore[attr-defined]
    assert parse_pipeline("mindir-load-elim{level=3}")[0].level == 3  # type: ignore[attr-defined]


def test_compile_pipelines_carry_the_resolved_values_as_options(monkeypatch):
    monkeypatch.setenv("MS_DEV_SIDE_EFFECT_LOAD_ELIM", "2")
    monkeypatch.setenv("MS_DEV_CELL_REUSE", "2")
    text = jit_level_pipeline("O1")
    assert "mindir-load-elim{level=2}" in text and "mindir-inline{cell-reuse=2}" in text
    # the late inline, then the order of the inlined Loads' readers (fuzzer seed 395)
    assert text.endswith(
        "mindir-load-elim{level=2},mindir-inline{cell-reuse=0},mindir-depend-order"
    )
    # given options are written as they are, whatever the environment says
    given = config.CompileOptions(
        "O0", cell_reuse=1, load_elim=0, cf_to_select=True, device_target="CPU"
    )
    text = jit_level_pipeline("O0", given)
    assert "mindir-load-elim{level=0}" in text and "mindir-inline{cell-reuse=1}" in text
    passes = parse_pipeline(text)
    levels = {p.name: vars(p) for p in passes}
    assert levels["mindir-load-elim"]["level"] == 0 and levels["mindir-inline"]["cell_reuse"] == 1


@pytest.mark.parametrize(
    ("name", "raw", "message"),
    [
        ("MS_DEV_CELL_REUSE", "3", "MS_DEV_CELL_REUSE must be 0, 1 or 2, got '3'"),
        ("MS_DEV_SIDE_EFFECT_LOAD_ELIM", "x", "MS_DEV_SIDE_EFFECT_LOAD_ELIM must be 0, 1, 2 or 3"),
        ("MINDJIT_CF_TO_SELECT", "yes", "MINDJIT_CF_TO_SELECT must be 0 or 1, got 'yes'"),
        ("MS_COMPILER_CACHE_ENABLE", "2", "MS_COMPILER_CACHE_ENABLE must be 0 or 1"),
    ],
)
def test_a_bad_value_is_one_error_type_naming_the_variable(monkeypatch, name, raw, message):
    monkeypatch.setenv(name, raw)
    with pytest.raises(config.ConfigError, match=message) as info:
        config.compile_options()
        config.compile_cache_enabled()
    assert isinstance(info.value, MindjitError) and isinstance(info.value, ValueError)


def test_only_the_config_module_reads_the_environment():
    """Passes take options; the frontend, backend and tools ask support/config.py."""
    found = []
    for layer in ("ir", "dialects", "passes", "backend", "driver", "frontend", "tools"):
        for path in (ROOT / layer).rglob("*.py"):
            tree = ast.parse(path.read_text())
            for node in ast.walk(tree):
                reads = (
                    isinstance(node, ast.Attribute)
                    and node.attr in ("environ", "getenv")
                    and isinstance(node.value, ast.Name)
                    and node.value.id == "os"
                )
                if reads:
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not found, "os.environ read outside support/config.py: " + ", ".join(found)
