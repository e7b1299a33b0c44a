"""Symbols the frontend derives from Parameter paths and function names."""

from __future__ import annotations

import pytest

from mindjit.frontend.graph.module_builder import ModuleBuilder


@pytest.mark.parametrize(
    ("name", "symbol"),
    [
        ("blocks.0.attn.q.weight", "blocks_0_attn_q_weight"),
        ("w", "w"),
        ("0.weight", "_0_weight"),
        ("layer-norm.gamma", "layer_norm_gamma"),
        ("Blöck.w", "Bl_ck_w"),
        ("", "graph"),
        ("...", "___"),
    ],
)
def test_names_become_identifiers(name: str, symbol: str) -> None:
    assert ModuleBuilder().unique_name(name) == symbol


def test_repeated_names_get_numbered() -> None:
    names = ModuleBuilder()
    got = [names.unique_name(n) for n in ("a.b", "a_b", "a.b", "a_b_1")]
    assert got == ["a_b", "a_b_1", "a_b_2", "a_b_1_1"]
