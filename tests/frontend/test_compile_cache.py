"""The compile cache: switches, what the key covers, hits that run the same, and
entries that cannot be trusted (checked, reported, compiled again)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import cache_programs as P
import numpy as np
import pytest

import mindjit as ms
from mindjit.backend.cache.store import MAGIC, CompileCache
from mindjit.backend.container import pack, unpack
from mindjit.frontend import context as C
from mindjit.frontend.graph import api, program_cache
from mindjit.frontend.graph.program_cache import HIT, MISS
from mindjit.support.errors import MindjitError

HERE = Path(__file__).resolve().parent


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    for var in ("MS_COMPILER_CACHE_ENABLE", "MS_COMPILER_CACHE_PATH", "MS_DEV_SAVE_GRAPHS"):
        monkeypatch.delenv(var, raising=False)
    C.reset_context()
    api.clear_cache()
    path = tmp_path / "cache"
    ms.set_context(mode=ms.GRAPH_MODE, enable_compile_cache=True, compile_cache_path=str(path))
    yield path
    C.reset_context()
    api.clear_cache()


def outcome(capsys) -> str:
    """What the last compile did, from its stderr lines."""
    err = capsys.readouterr().err
    if HIT in err:
        return "hit"
    if MISS in err:
        return "miss" if "unusable" not in err else "unusable"
    return "none: " + err


def call(fn, *args):
    api.clear_cache()  # as a new process would: nothing compiled in memory
    return fn(*args)


def x3():
    return ms.Tensor(np.array([1.0, 2.0, 3.0], np.float32))


def entries(path: Path) -> list[Path]:
    return sorted(path.glob("*.mjc"))


# -- switches and messages ----------------------------------------------------------------


def test_second_compile_is_a_hit_with_the_same_result(cache_dir, capsys):
    x, y = ms.Tensor([1], ms.float32), ms.Tensor([2], ms.float32)
    cold = call(P.docs_func, x, y).asnumpy()
    assert outcome(capsys) == "miss"
    assert len(entries(cache_dir)) == 1
    warm = call(P.docs_func, x, y).asnumpy()
    assert outcome(capsys) == "hit"
    np.testing.assert_array_equal(cold, warm)
    assert warm.tolist() == [601.0]
    (program,) = api.cached_programs()
    assert program.from_cache
    assert [s.name for s in program.report.stages] == ["cache-load", "cpu-plan"]


def test_disabled_cache_prints_nothing_and_writes_nothing(cache_dir, capsys):
    ms.set_context(enable_compile_cache=False)
    call(P.uses_global, x3())
    assert capsys.readouterr().err == ""
    assert not cache_dir.exists()


def _child(name, cwd, **env):
    full = {k: v for k, v in os.environ.items() if not k.startswith("MS_COMPILER_CACHE")}
    full.update(env)
    full["PYTHONPATH"] = str(HERE) + os.pathsep + full.get("PYTHONPATH", "")
    done = subprocess.run(
        [sys.executable, str(HERE / "cache_programs.py"), name],
        cwd=cwd,
        env=full,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1]), done.stderr


def test_environment_switches_and_default_path(tmp_path):
    out1, err1 = _child("docs", tmp_path, MS_COMPILER_CACHE_ENABLE="1")
    assert MISS in err1
    assert len(entries(tmp_path / "mindjit_cache")) == 1  # the default path, created
    out2, err2 = _child("docs", tmp_path, MS_COMPILER_CACHE_ENABLE="1")
    assert HIT in err2 and MISS not in err2
    assert out1 == out2 == [601.0]
    custom = tmp_path / "elsewhere"
    _, err3 = _child(
        "docs", tmp_path, MS_COMPILER_CACHE_ENABLE="1", MS_COMPILER_CACHE_PATH=str(custom)
    )
    assert MISS in err3 and len(entries(custom)) == 1
    _, err4 = _child("docs", tmp_path, MS_COMPILER_CACHE_ENABLE="0")
    assert HIT not in err4 and MISS not in err4


@pytest.mark.parametrize("name", ["lazy_object", "lazy_dataclass", "lazy_slots"])
def test_lazy_inline_blocks_built_from_a_config_object_hit_in_another_process(tmp_path, name):
    """Issue 29: lazy_inline recorded the config's repr (its address) and keyed the
    shared graph by the config's id, so every process compiled anew."""
    out1, err1 = _child(name, tmp_path, MS_COMPILER_CACHE_ENABLE="1")
    out2, err2 = _child(name, tmp_path, MS_COMPILER_CACHE_ENABLE="1")
    assert MISS in err1
    assert HIT in err2 and MISS not in err2, err2
    assert out1 == out2
    assert len(entries(tmp_path / "mindjit_cache")) == 1


def test_a_lazy_inline_config_with_nothing_to_key_is_named_and_not_cached(tmp_path):
    """An init argument with no fields and no hash stands for itself: the key walk
    names it and stores nothing, rather than keying its address (a silent miss in
    every process)."""
    out1, err1 = _child("lazy_opaque", tmp_path, MS_COMPILER_CACHE_ENABLE="1")
    out2, err2 = _child("lazy_opaque", tmp_path, MS_COMPILER_CACHE_ENABLE="1")
    for err in (err1, err2):
        assert "not using the compilation cache" in err and "LazyOpaqueConfig" in err, err
        assert HIT not in err and MISS not in err
    assert out1 == out2
    assert entries(tmp_path / "mindjit_cache") == []


def test_a_hit_binds_this_process_parameters(tmp_path):
    cold, _ = _child("accumulate", tmp_path, MS_COMPILER_CACHE_ENABLE="1")
    warm, err = _child("accumulate", tmp_path, MS_COMPILER_CACHE_ENABLE="1")
    assert HIT in err
    assert cold == warm == [[2.0, 4.0, 6.0], [2.0, 4.0, 6.0]]


def test_two_processes_compiling_at_once_leave_one_valid_entry(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("MS_COMPILER_CACHE")}
    env.update(MS_COMPILER_CACHE_ENABLE="1", PYTHONPATH=str(HERE))
    procs = [
        subprocess.Popen(
            [sys.executable, str(HERE / "cache_programs.py"), "scale"],
            cwd=tmp_path,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    outs = [p.communicate(timeout=300) for p in procs]
    assert all(p.returncode == 0 for p in procs), outs
    assert json.loads(outs[0][0]) == json.loads(outs[1][0])
    cache = tmp_path / "mindjit_cache"
    assert len(entries(cache)) == 1
    assert not list(cache.glob(".*.tmp-*"))  # support/files.py names temps after their file
    _, err = _child("scale", tmp_path, MS_COMPILER_CACHE_ENABLE="1")
    assert HIT in err


# -- what the key covers: each change compiles again ----------------------------------------


def test_attribute_change_compiles_again(cache_dir, capsys):
    assert call(P.ScaleNet(scale=3.0), x3()).asnumpy().tolist() == [15.0, 31.0, 47.0]
    assert outcome(capsys) == "miss"
    assert call(P.ScaleNet(scale=3.0), x3()).asnumpy().tolist() == [15.0, 31.0, 47.0]
    assert outcome(capsys) == "hit"
    assert call(P.ScaleNet(scale=4.0), x3()).asnumpy().tolist() == [20.0, 41.0, 62.0]
    assert outcome(capsys) == "miss"


def test_jit_class_attribute_change_compiles_again(cache_dir, capsys):
    call(P.ScaleNet(k=5.0), x3())
    assert outcome(capsys) == "miss"
    assert call(P.ScaleNet(k=6.0), x3()).asnumpy().tolist() == [18.0, 37.0, 56.0]
    assert outcome(capsys) == "miss"


def test_parameter_value_is_an_input_not_part_of_the_key(cache_dir, capsys):
    call(P.ScaleNet(), x3())
    assert outcome(capsys) == "miss"
    net = P.ScaleNet()
    net.w.set_data(ms.Tensor(np.full(3, 10.0, np.float32)))
    assert call(net, x3()).asnumpy().tolist() == [25.0, 40.0, 55.0]
    assert outcome(capsys) == "hit"


def test_global_change_compiles_again(cache_dir, capsys, monkeypatch):
    assert call(P.uses_global, x3()).asnumpy().tolist() == [3.0, 5.0, 7.0]
    assert outcome(capsys) == "miss"
    call(P.uses_global, x3())
    assert outcome(capsys) == "hit"
    monkeypatch.setattr(P, "K", 10.0)
    assert call(P.uses_global, x3()).asnumpy().tolist() == [11.0, 21.0, 31.0]
    assert outcome(capsys) == "miss"


def test_closure_value_change_compiles_again(cache_dir, capsys):
    assert call(P.make_adder(1), x3()).asnumpy().tolist() == [2.0, 3.0, 4.0]
    assert outcome(capsys) == "miss"
    call(P.make_adder(1), x3())
    assert outcome(capsys) == "hit"
    assert call(P.make_adder(5), x3()).asnumpy().tolist() == [6.0, 7.0, 8.0]
    assert outcome(capsys) == "miss"


def test_function_source_change_compiles_again(cache_dir, capsys, tmp_path, monkeypatch):
    module = tmp_path / "edited_program.py"
    source = "import mindjit as ms\n\n@ms.jit\ndef f(x):\n    return x * 2\n"
    module.write_text(source)
    monkeypatch.syspath_prepend(str(tmp_path))
    import importlib

    mod = importlib.import_module("edited_program")
    assert call(mod.f, x3()).asnumpy().tolist() == [2.0, 4.0, 6.0]
    assert outcome(capsys) == "miss"
    module.write_text(source.replace("x * 2", "x * 3"))
    os.utime(module, ns=(1, 1))  # a different stamp even within the same second
    mod = importlib.reload(mod)
    assert call(mod.f, x3()).asnumpy().tolist() == [3.0, 6.0, 9.0]
    assert outcome(capsys) == "miss"
    sys.modules.pop("edited_program", None)


@pytest.mark.parametrize(
    "shape, dtype", [((3,), np.float32), ((4,), np.float32), ((3,), np.float16)]
)
def test_input_signature_is_part_of_the_key(cache_dir, capsys, shape, dtype):
    call(P.uses_global, x3())
    assert outcome(capsys) == "miss"
    x = ms.Tensor(np.ones(shape, dtype))
    call(P.uses_global, x)
    same = shape == (3,) and dtype == np.float32
    assert outcome(capsys) == ("hit" if same else "miss")


@pytest.mark.parametrize(
    "change",
    [
        lambda mp: ms.set_context(jit_config={"jit_level": "O0"}),
        lambda mp: mp.setenv("MS_DEV_CELL_REUSE", "2"),
        lambda mp: mp.setenv("MS_DEV_SIDE_EFFECT_LOAD_ELIM", "2"),
        lambda mp: mp.setenv("MINDJIT_CF_TO_SELECT", "0"),
        lambda mp: ms.set_context(device_target="Ascend"),
        lambda mp: mp.setattr(program_cache, "versions", lambda: ("mindjit 9.9",)),
    ],
    ids=["jit_level", "cell_reuse", "load_elim", "cf_to_select", "device_target", "versions"],
)
def test_options_and_versions_are_part_of_the_key(cache_dir, capsys, monkeypatch, change):
    net = P.Accumulate()
    call(net, x3())
    assert outcome(capsys) == "miss"
    change(monkeypatch)
    out = call(P.Accumulate(), x3())
    assert outcome(capsys) == "miss"
    assert out.asnumpy().tolist() == [1.0, 2.0, 3.0]
    call(P.Accumulate(), x3())
    assert outcome(capsys) == "hit"  # and that setting's own entry is reused


# -- entries that cannot be trusted -------------------------------------------------------


def _one_entry(cache_dir) -> Path:
    (entry,) = entries(cache_dir)
    return entry


def _damage_and_rerun(cache_dir, capsys, damage, net=P.ScaleNet) -> None:
    x = x3()
    expected = call(net(), x).asnumpy()
    assert outcome(capsys) == "miss"
    entry = _one_entry(cache_dir)
    entry.write_bytes(damage(entry.read_bytes()))
    out = call(net(), x).asnumpy()
    err = capsys.readouterr().err
    assert "is unusable" in err and MISS in err, err
    np.testing.assert_array_equal(out, expected)
    call(net(), x)
    assert outcome(capsys) == "hit"  # the recompile stored a good entry again


@pytest.mark.parametrize(
    "damage",
    [
        lambda b: b[: len(b) // 2],  # truncated
        lambda b: b[:200] + bytes([b[200] ^ 0xFF]) + b[201:],  # a flipped byte
        lambda b: b"\0" * len(b),  # foreign
        lambda b: b"",  # empty
        lambda b: b + b"junk",  # padded
    ],
    ids=["truncated", "flipped", "foreign", "empty", "padded"],
)
def test_damaged_entry_is_reported_and_compiled_again(cache_dir, capsys, damage):
    _damage_and_rerun(cache_dir, capsys, damage)


def _rewrite(data: bytes, edit) -> bytes:
    manifest, blob = unpack(data, MAGIC, 1, "entry")
    manifest, blob = edit(manifest, blob)
    return pack(MAGIC, 1, manifest, blob)


def _edited(path: str, change):
    """An edit replacing manifest[a][b]... (path "a/b/...") with change(old value)."""

    def edit(m, b):
        *parents, last = path.split("/")
        inner = m
        for k in parents:
            inner = inner[int(k)] if k.isdigit() else inner[k]
        inner[last] = change(inner[last])
        return m, b

    return edit


def _shorter(where):
    return [where[0], where[1] - 8]


#: edits every entry can get
_COMMON = {
    "params": _edited("parameters", lambda _: [["w", 99]]),
    "entry": _edited("entry", lambda _: "nope"),
    "result": _edited("result", lambda _: {"what": 1}),
    "format": _edited("format", lambda _: "other"),
    "key": _edited("key", lambda _: "0" * 64),
}


@pytest.mark.parametrize(
    "edit",
    [
        *_COMMON.values(),
        _edited("plan/declared/attributes", lambda a: a[:3]),
        _edited("plan/declared/ops", _shorter),
        _edited("plan/kernels/attributes", lambda a: [["t", "tensor<3x"]] * len(a)),
        _edited("plan/kernels/ops", _shorter),
        _edited("plan/bytes", lambda w: [w[0], 10**9]),
        _edited("plan/data/functions/0/steps", _shorter),
        _edited("plan/data/kernel_counts", lambda c: [n + 1 for n in c]),
        _edited("plan/data/functions/0/results", lambda r: [10**6 for _ in r]),
        _edited("plan/data/functions/0/constants", lambda c: [{"dtype": "O"} for _ in c]),
        _edited("plan/data/origins", lambda _: []),
    ],
    ids=[
        *_COMMON,
        "declared-attrs",
        "declared-ops",
        "kernel-attr-text",
        "kernel-ops",
        "plan-bytes",
        "steps",
        "kernel-counts",
        "result-slots",
        "constants",
        "origins",
    ],
)
def test_entry_with_a_valid_checksum_but_bad_contents_is_rejected(cache_dir, capsys, edit):
    _damage_and_rerun(cache_dir, capsys, lambda data: _rewrite(data, edit))


@pytest.mark.parametrize(
    "edit",
    [
        *_COMMON.values(),
        _edited("module/attributes", lambda a: a[:3]),
        _edited("module/ops", _shorter),
        _edited("module/attributes", lambda a: [["t", "tensor<3x"]] * len(a)),
    ],
    ids=[*_COMMON, "attrs", "ops", "attr-text"],
)
def test_entry_without_a_plan_with_bad_contents_is_rejected(cache_dir, capsys, edit):
    _damage_and_rerun(cache_dir, capsys, lambda data: _rewrite(data, edit), P.HalveUntilSmall)


def test_control_flow_is_not_captured_and_hits_plan_the_module(cache_dir, capsys):
    x = x3()
    cold = call(P.HalveUntilSmall(), x).asnumpy()
    manifest, _ = unpack(_one_entry(cache_dir).read_bytes(), MAGIC, 1, "entry")
    assert manifest["plan"] is None
    warm = call(P.HalveUntilSmall(), x).asnumpy()
    assert outcome(capsys).endswith("hit")
    np.testing.assert_array_equal(cold, warm)


def test_a_hit_with_a_plan_reads_the_module_only_when_asked(cache_dir, capsys):
    net, x = P.ScaleNet(), x3()
    call(net, x)
    (cold,) = api.cached_programs()
    text = str(cold.module)
    warm_out = call(net, x).asnumpy()
    assert outcome(capsys).endswith("hit")
    (warm,) = api.cached_programs()
    assert warm._module is None  # noqa: SLF001 - not decoded: the plan came from the entry
    exe = warm.executable
    exe.trace_enabled = True  # plans are made again, from the module
    np.testing.assert_array_equal(call_program(warm, x), warm_out)
    # (x * k) * scale + w: one fused generic (convert-mindir-to-tensor{fuse-elementwise})
    assert exe.trace == ["linalg.generic[arith.mulf,arith.mulf,arith.addf]"]
    assert warm._module is not None  # noqa: SLF001
    assert str(warm.module) == text


def test_a_hit_whose_module_is_unreadable_says_so_when_it_is_read(cache_dir, capsys):
    net, x = P.ScaleNet(), x3()
    call(net, x)
    entry = _one_entry(cache_dir)
    edit = _edited("module/ops", _shorter)
    entry.write_bytes(_rewrite(entry.read_bytes(), edit))
    call(net, x)  # the plan is whole: a hit
    assert outcome(capsys).endswith("hit")
    (warm,) = api.cached_programs()
    with pytest.raises(MindjitError, match=r"holds an unreadable module .*delete it"):
        _ = warm.module


def call_program(program, x):
    (out,) = [program((x,), {})]
    return out.asnumpy()


def test_cache_size_is_bounded_oldest_first(cache_dir, capsys):
    call(P.uses_global, x3())
    first = _one_entry(cache_dir)
    size = first.stat().st_size
    os.utime(first, (1, 1))  # long unused
    ms.set_context(compile_cache_max_bytes=int(size * 1.5))
    call(P.uses_global, ms.Tensor(np.ones(5, np.float32)))  # a second entry: over the bound
    remaining = entries(cache_dir)
    assert first not in remaining and len(remaining) == 1
    ms.set_context(compile_cache_max_bytes=10)  # smaller than any entry: none is kept
    call(P.uses_global, ms.Tensor(np.ones(6, np.float32)))
    assert len(entries(cache_dir)) == 1


def test_value_the_walk_cannot_describe_compiles_without_the_cache(cache_dir, capsys):
    net = P.ScaleNet()
    net.handle = object()  # no deterministic description
    call(net, x3())
    err = capsys.readouterr().err
    assert "not using the compilation cache" in err
    assert not cache_dir.exists()


def test_save_graphs_compiles_for_its_dumps(cache_dir, capsys, tmp_path):
    call(P.uses_global, x3())
    capsys.readouterr()
    ms.set_context(save_graphs=True, save_graphs_path=str(tmp_path / "graphs"))
    call(P.uses_global, x3())
    assert capsys.readouterr().err == ""
    assert list((tmp_path / "graphs").glob("*.mlir"))


def test_store_keeps_entries_whole(tmp_path):
    store = CompileCache(str(tmp_path), 1 << 20)
    store.store("k", {"a": 1}, b"blob")
    manifest, blob = store.load("k")
    assert manifest == {"a": 1, "key": "k"} and blob == b"blob"
    assert store.load("missing") is None
    assert [p.name for p in tmp_path.iterdir()] == ["k.mjc"]


def test_store_removes_temps_of_writers_that_died(tmp_path):
    """A writer killed before its rename (issue 29 §5): its temp goes at the next
    store, whichever key it was for; a live writer's stays."""
    from mindjit.support.files import _host_tag

    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()  # reaped: its pid names no process
    dead = tmp_path / f".other.mjc.tmp-{_host_tag()}-{proc.pid}-0a0a"
    live = tmp_path / f".other.mjc.tmp-{_host_tag()}-{os.getpid()}-0b0b"
    dead.write_bytes(b"half")
    live.write_bytes(b"half")
    CompileCache(str(tmp_path), 1 << 20).store("k", {}, b"blob")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["k.mjc", live.name])


def test_unwritable_cache_warns_and_still_runs(cache_dir, capsys):
    cache_dir.parent.mkdir(exist_ok=True)
    cache_dir.write_text("a file where the directory should be")
    assert call(P.uses_global, x3()).asnumpy().tolist() == [3.0, 5.0, 7.0]
    assert "cannot write the compilation cache" in capsys.readouterr().err


def test_a_hit_gives_the_warnings_its_compile_gave(cache_dir, capsys, monkeypatch):
    from mindjit.passes.mindir_load_elim import LoadElimWarning

    monkeypatch.setenv("MS_DEV_SIDE_EFFECT_LOAD_ELIM", "3")  # warns: Loads are left
    net, x = P.ScaleNet(), x3()
    with pytest.warns(LoadElimWarning) as cold:
        call(net, x)
    assert outcome(capsys) == "miss"
    with pytest.warns(LoadElimWarning) as warm:
        call(net, x)
    assert outcome(capsys) == "hit"
    assert [str(w.message) for w in warm] == [str(w.message) for w in cold]
