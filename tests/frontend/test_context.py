"""set_context/get_context validation, JitConfig, and the environment switches."""

from __future__ import annotations

import pytest

import mindjit as ms
from mindjit.frontend import context as C
from mindjit.support import config


@pytest.fixture(autouse=True)
def _fresh_context():
    C.reset_context()
    yield
    C.reset_context()


def test_mode_constants_and_default():
    assert ms.GRAPH_MODE == 0 and ms.PYNATIVE_MODE == 1
    assert ms.get_context("mode") == ms.PYNATIVE_MODE
    assert ms.get_context("device_target") == "CPU"


def test_set_and_get():
    ms.set_context(mode=ms.GRAPH_MODE, device_target="Ascend", jit_config={"jit_level": "O2"})
    assert ms.get_context("mode") == ms.GRAPH_MODE
    assert ms.get_context("device_target") == "Ascend"
    assert ms.get_context("jit_config") == {"jit_level": "O2"}
    assert config.jit_level() == "O2"
    ms.context.set_context(mode=ms.context.PYNATIVE_MODE)
    assert ms.context.get_context("mode") == ms.PYNATIVE_MODE


def test_jit_config_copy_is_returned():
    ms.set_context(jit_config={"jit_level": "O0"})
    ms.get_context("jit_config")["jit_level"] = "O2"
    assert ms.get_context("jit_config") == {"jit_level": "O0"}


@pytest.mark.parametrize(
    "kwargs, error, text",
    [
        ({"mode": 3}, ValueError, "'mode'"),
        ({"mode": True}, ValueError, "'mode'"),
        ({"device_target": "TPU"}, ValueError, "device_target"),
        ({"jit_config": {"jit_level": "O3"}}, ValueError, "jit_level"),
        ({"jit_config": "O1"}, TypeError, "jit_config"),
        ({"enable_compile_cache": 1}, TypeError, "enable_compile_cache"),
        ({"compile_cache_path": 3}, TypeError, "compile_cache_path"),
        ({"save_graphs": 7}, ValueError, "save_graphs"),
        ({"no_such_key": 1}, ValueError, "no_such_key"),
    ],
)
def test_bad_values_are_rejected(kwargs, error, text):
    with pytest.raises(error, match=text):
        ms.set_context(**kwargs)


def test_nothing_applied_when_one_key_is_bad():
    with pytest.raises(ValueError):
        ms.set_context(mode=ms.GRAPH_MODE, bogus=1)
    assert ms.get_context("mode") == ms.PYNATIVE_MODE


def test_get_context_unknown_key():
    with pytest.raises(ValueError, match="nope"):
        ms.get_context("nope")


def test_compile_cache_and_save_graphs(monkeypatch):
    monkeypatch.delenv("MS_COMPILER_CACHE_ENABLE", raising=False)
    monkeypatch.delenv("MS_DEV_SAVE_GRAPHS", raising=False)
    monkeypatch.delenv("MS_DEV_SAVE_GRAPHS_PATH", raising=False)
    assert not config.compile_cache_enabled()
    assert not config.save_graphs_enabled()
    assert config.save_graphs_path() == "./graphs"
    monkeypatch.setenv("MS_DEV_SAVE_GRAPHS", "1")
    monkeypatch.setenv("MS_DEV_SAVE_GRAPHS_PATH", "/tmp/g")
    monkeypatch.setenv("MS_COMPILER_CACHE_ENABLE", "1")
    monkeypatch.setenv("MS_COMPILER_CACHE_PATH", "/tmp/c")
    assert config.save_graphs_enabled() and config.save_graphs_path() == "/tmp/g"
    assert config.compile_cache_enabled() and config.compile_cache_path() == "/tmp/c"
    # the context wins over the environment
    ms.set_context(
        save_graphs=False,
        save_graphs_path="here",
        enable_compile_cache=False,
        compile_cache_path="my_compile_cache",
    )
    assert not config.save_graphs_enabled() and config.save_graphs_path() == "here"
    assert not config.compile_cache_enabled() and config.compile_cache_path() == "my_compile_cache"


def test_env_levels(monkeypatch):
    monkeypatch.delenv("MS_DEV_CELL_REUSE", raising=False)
    monkeypatch.delenv("MS_DEV_SIDE_EFFECT_LOAD_ELIM", raising=False)
    assert config.cell_reuse_level() == 1
    assert config.load_elim_level() == 1
    monkeypatch.setenv("MS_DEV_CELL_REUSE", "2")
    monkeypatch.setenv("MS_DEV_SIDE_EFFECT_LOAD_ELIM", "3")
    assert config.cell_reuse_level() == 2
    assert config.load_elim_level() == 3
    monkeypatch.setenv("MS_DEV_SIDE_EFFECT_LOAD_ELIM", "4")
    with pytest.raises(ValueError, match="MS_DEV_SIDE_EFFECT_LOAD_ELIM"):
        config.load_elim_level()
    monkeypatch.setenv("MS_DEV_CELL_REUSE", "yes")
    with pytest.raises(ValueError, match="MS_DEV_CELL_REUSE"):
        config.cell_reuse_level()


def test_env_int_default_when_empty(monkeypatch):
    monkeypatch.setenv("MINDJIT_TEST_INT", "")
    assert config.env_int("MINDJIT_TEST_INT", 7) == 7
    monkeypatch.setenv("MINDJIT_TEST_INT", " 5 ")
    assert config.env_int("MINDJIT_TEST_INT", 7) == 5


def test_jit_config():
    cfg = ms.JitConfig()
    assert cfg.jit_config_dict["jit_level"] == "O1"
    assert cfg.jit_config_dict["exec_mode"] == "auto"
    assert cfg.jit_config_dict["jit_syntax_level"] == ""
    cfg = ms.JitConfig(jit_level="O0", extra="x")
    assert cfg.jit_level == "O0" and cfg.jit_config_dict["extra"] == "x"
    with pytest.raises(ValueError, match="jit_level"):
        ms.JitConfig(jit_level="O9")
    with pytest.raises(ValueError, match="exec_mode"):
        ms.JitConfig(exec_mode="fast")
