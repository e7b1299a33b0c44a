"""Pipeline channels on IREE (backend/iree/channels.py, pipeline_executable.py):
sends and receives are host imports called in program order, the stage
functions run at once in threads, a receive nothing sends is an error (never a
hang), and a stage compiled alone runs against a hub of the caller's."""

from __future__ import annotations

import re
import threading
import time

import numpy as np
import pytest

pytest.importorskip("iree.runtime")

from mindjit.backend.cpu import CpuExecutable, RuntimeCheckError  # noqa: E402
from mindjit.backend.cpu.errors import ExecutionError  # noqa: E402
from mindjit.backend.cpu.pipeline_run import ChannelHub  # noqa: E402
from mindjit.backend.iree.channels import HOST_MODULE  # noqa: E402
from mindjit.backend.iree.executable import IreeExecutable  # noqa: E402
from mindjit.backend.iree.pipeline_executable import (  # noqa: E402
    IreePipelineExecutable,
    iree_executable,
    stage_executable,
)
from mindjit.backend.iree.prepare import prepare  # noqa: E402
from mindjit.dialects.parsing import parse_module  # noqa: E402

T = "tensor<3xf32>"
_MAP = "affine_map<(d0) -> (d0)>"


def _binary(out: str, a: str, b: str, op: str) -> str:
    return f"""
    %e_{out} = tensor.empty() : {T}
    %{out} = linalg.generic {{indexing_maps = [{_MAP}, {_MAP}, {_MAP}], iterator_types = ["parallel"]}} ins(%{a}, %{b} : {T}, {T}) outs(%e_{out} : {T}) {{
    ^bb0(%p: f32, %q: f32, %o: f32):
      %r = arith.{op} %p, %q : f32
      linalg.yield %r : f32
    }} -> {T}"""


def _stage(k: int, results: str) -> str:
    return (
        f'mindir.pipeline_stage = {k} : i64, mindir.pipeline_of = "g", '
        f"mindir.pipeline_results = array<i64{results}>"
    )


# Stage 0 sends Parameter @w's value, then updates @w, then waits for stage 1's
# answer (computed from what it sent) and sends a product back; stage 1 returns it.
# A receive hoisted above the send before it deadlocks; a send that saw the update
# (or a load that did not) gives another value.
ORDERED = f"""
ml_program.global private mutable @w(dense<[1.0, 2.0, 3.0]> : {T}) : {T}
ml_program.global private mutable @__mindjit_channel_1(dense<0.0> : {T}) : {T}
ml_program.global private mutable @__mindjit_channel_2(dense<0.0> : {T}) : {T}
ml_program.global private mutable @__mindjit_channel_3(dense<0.0> : {T}) : {T}
func.func @g_stage0(%x: {T}) attributes {{{_stage(0, "")}}} {{
  %w0 = ml_program.global_load @w : {T}
  ml_program.global_store @__mindjit_channel_1 = %w0 : {T}
  {_binary("w1", "w0", "x", "addf")}
  ml_program.global_store @w = %w1 : {T}
  %got = ml_program.global_load @__mindjit_channel_2 : {T}
  %w2 = ml_program.global_load @w : {T}
  {_binary("s", "w2", "got", "mulf")}
  ml_program.global_store @__mindjit_channel_3 = %s : {T}
  ml_program.global_store @w = %s : {T}
  func.return
}}
func.func @g_stage1(%x: {T}) -> {T} attributes {{{_stage(1, ": 0")}}} {{
  %a = ml_program.global_load @__mindjit_channel_1 : {T}
  {_binary("b", "a", "a", "addf")}
  ml_program.global_store @__mindjit_channel_2 = %b : {T}
  %c = ml_program.global_load @__mindjit_channel_3 : {T}
  {_binary("d", "c", "x", "subf")}
  func.return %d : {T}
}}
"""

X = np.array([0.5, -1.0, 2.0], np.float32)


def _expected(w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    s = (w + X) * (w + w)
    return s - X, s


class RecordingHub(ChannelHub):
    """The hub, logging each put and get by thread (in the order they start)."""

    def __init__(self, stages: int):
        super().__init__(stages)
        self.log: dict[int, list[str]] = {}

    def put(self, name, value):
        self.log.setdefault(threading.get_ident(), []).append(f"send {name[-1]}")
        super().put(name, value)

    def get(self, name):
        self.log.setdefault(threading.get_ident(), []).append(f"receive {name[-1]}")
        return super().get(name)


def test_channels_become_host_imports_and_leave_the_state() -> None:
    prepared = prepare(parse_module(ORDERED, "<ordered>"))
    assert set(prepared.globals) == {"w"}  # channels are not Parameters
    assert prepared.entries["g_stage1"].state == ()
    assert prepared.entries["g_stage0"].written == ("w",)
    text = prepared.text
    assert f"func.func private @{HOST_MODULE}.send_1({T}, i32) -> i32" in text
    assert f"func.func private @{HOST_MODULE}.receive_2(i32) -> ({T}, i32)" in text
    assert "__mindjit_channel" not in text
    # in block order, each call taking the token the one before gave
    # (token out, callee, token in); a receive's first result is its tensor
    calls = re.findall(r"(%\w+) = func.call @mindjit\.(\w+)\((?:%\w+, )?(%\w+)\)", text)
    assert [c[1] for c in calls[:3]] == ["send_1", "receive_2", "send_3"]
    for before, after in zip(calls[:2], calls[1:3]):
        assert after[2] == before[0], (before, after)


def test_sends_receives_and_parameter_updates_keep_their_order(monkeypatch) -> None:
    module = parse_module(ORDERED, "<ordered>")
    exe = iree_executable(module, "g")
    assert isinstance(exe, IreePipelineExecutable)
    hubs: list[RecordingHub] = []

    def recording(stages: int) -> RecordingHub:
        hubs.append(RecordingHub(stages))
        return hubs[-1]

    monkeypatch.setattr("mindjit.backend.cpu.pipeline_run.ChannelHub", recording)
    w = np.array([1.0, 2.0, 3.0], np.float32)
    for _ in range(2):  # the second call starts from the first one's @w
        (got,) = exe.run("g", X)
        out, w = _expected(w)
        np.testing.assert_allclose(got, out, rtol=1e-6)
        np.testing.assert_allclose(exe.get_global("w"), w, rtol=1e-6)
    assert sorted(hubs[0].log.values()) == [
        ["receive 1", "send 2", "receive 3"],
        ["send 1", "receive 2", "send 3"],
    ]
    # the numpy executor agrees
    cpu = CpuExecutable(parse_module(ORDERED, "<ordered>"))
    cpu.run("g", X)
    (again,) = cpu.run("g", X)
    np.testing.assert_allclose(again, got, rtol=1e-6)


def test_a_receive_nothing_sends_is_an_error_not_a_hang() -> None:
    lost = ORDERED.replace(f"ml_program.global_store @__mindjit_channel_3 = %s : {T}", "")
    exe = iree_executable(parse_module(lost, "<lost>"), "g")
    caught: list[BaseException] = []

    def call() -> None:
        try:
            exe.run("g", X)
        except BaseException as exc:  # noqa: BLE001 - checked below
            caught.append(exc)

    runner = threading.Thread(target=call, daemon=True)
    runner.start()
    runner.join(timeout=60)
    assert not runner.is_alive(), "the pipelined call hangs"
    assert len(caught) == 1 and isinstance(caught[0], ExecutionError)
    assert "nothing sends channel @__mindjit_channel_3" in str(caught[0])
    # the executable still works: the stage that failed left no error behind
    (got,) = iree_executable(parse_module(ORDERED, "<ordered>"), "g").run("g", X)
    np.testing.assert_allclose(got, _expected(np.array([1.0, 2.0, 3.0], np.float32))[0])


def test_outside_a_pipelined_call_a_channel_keeps_the_last_value_sent() -> None:
    exe = IreeExecutable(parse_module(ORDERED, "<ordered>"))
    exe.channel_values["__mindjit_channel_3"] = np.ones(3, np.float32)
    (got,) = exe.run("g_stage1", X)  # nothing sent on tag 1 yet: its initial zeros
    np.testing.assert_allclose(got, 1 - X)
    assert exe.channel_values["__mindjit_channel_2"].tolist() == [0, 0, 0]


class QueueHub:
    """A hub of the caller's own (as a Ray-backed one would be): one queue per tag."""

    def __init__(self):
        self.cond = threading.Condition()
        self.values: dict[str, np.ndarray] = {}

    def put(self, name, value):
        with self.cond:
            self.values[name] = np.array(value)
            self.cond.notify_all()

    def get(self, name):
        with self.cond:
            if not self.cond.wait_for(lambda: name in self.values, timeout=30):
                raise TimeoutError(name)
            return self.values.pop(name)


def test_a_stage_compiled_alone_runs_against_a_hub_of_the_callers() -> None:
    module = parse_module(ORDERED, "<ordered>")
    stages = [stage_executable(module, f"g_stage{k}") for k in (0, 1)]
    assert set(stages[1].prepared.globals) == set()  # stage 1 holds no Parameter
    hub = QueueHub()
    results: dict[int, tuple] = {}
    for exe in stages:
        exe.channels = hub
    threads = [
        threading.Thread(target=lambda k=k: results.update({k: stages[k].run(f"g_stage{k}", X)}))
        for k in (0, 1)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    out, w = _expected(np.array([1.0, 2.0, 3.0], np.float32))
    np.testing.assert_allclose(results[1][0], out, rtol=1e-6)
    np.testing.assert_allclose(stages[0].get_global("w"), w, rtol=1e-6)


def test_a_received_tensor_of_the_wrong_type_is_a_clear_error() -> None:
    exe = stage_executable(parse_module(ORDERED, "<ordered>"), "g_stage1")
    hub = QueueHub()
    hub.values["__mindjit_channel_1"] = np.zeros((2, 3), np.float32)
    exe.channels = hub
    with pytest.raises(ExecutionError, match=r"channel @__mindjit_channel_1 received a float32"):
        exe.run("g_stage1", X)


def test_iree_releases_the_gil_while_it_runs() -> None:
    """A blocked receive waits in Python (the GIL released by the hub's condition);
    a running IREE call must let the other stages' Python run too."""
    n = 384
    t = f"tensor<{n}x{n}xf32>"
    chain = "\n".join(
        f"""  %e{i} = tensor.empty() : {t}
  %z{i} = linalg.fill ins(%zero : f32) outs(%e{i} : {t}) -> {t}
  %m{i + 1} = linalg.matmul ins(%m{i}, %x : {t}, {t}) outs(%z{i} : {t}) -> {t}"""
        for i in range(8)
    )
    text = f"""func.func @heavy(%x: {t}) -> {t} {{
  %zero = arith.constant 0.0 : f32
  %m0 = arith.constant dense<0.01> : {t}
{chain}
  func.return %m8 : {t}
}}"""
    exe = IreeExecutable(parse_module(text, "<heavy>"))
    x = np.full((n, n), 0.01, np.float32)
    exe.run("heavy", x)
    spins, stop = [0], threading.Event()

    def spin() -> None:
        while not stop.is_set():
            spins[0] += 1

    spinner = threading.Thread(target=spin)
    spinner.start()
    time.sleep(0.05)
    before = spins[0]
    start = time.perf_counter()
    for _ in range(3):
        exe.run("heavy", x)
    took = time.perf_counter() - start
    during = spins[0] - before
    time.sleep(took)
    after = spins[0] - before - during
    stop.set()
    spinner.join()
    # with the GIL held the spinner would only run between calls (a few switches)
    assert during > 0.2 * after, (during, after)


def test_ms_run_runs_a_split_module_by_the_graphs_name_on_iree(tmp_path, tool) -> None:
    path = tmp_path / "ordered.mlir"
    path.write_text(ORDERED)
    outputs = {}
    for backend in ("numpy", "iree"):
        result = tool(
            "ms-run", str(path), "--entry", "g", "--backend", backend, "--input",
            f"{T}=[0.5,-1,2]",
        )  # fmt: skip
        assert result.returncode == 0, result.stderr
        outputs[backend] = result.stdout
    assert outputs["iree"] == outputs["numpy"]
    assert outputs["iree"].strip() == repr(_expected(np.array([1, 2, 3], np.float32))[0])


class BrokenHub(QueueHub):
    """A hub whose transport fails (a Ray actor gone, say)."""

    def get(self, name):
        raise ConnectionError(f"peer of {name} is gone")


def test_a_hubs_own_error_comes_out_of_run_unchanged() -> None:
    exe = stage_executable(parse_module(ORDERED, "<ordered>"), "g_stage1")
    exe.channels = BrokenHub()
    with pytest.raises(ConnectionError, match="peer of __mindjit_channel_1 is gone"):
        exe.run("g_stage1", X)
    exe.channels = QueueHub()  # the executable is still usable
    exe.channels.values.update(
        __mindjit_channel_1=np.ones(3, np.float32), __mindjit_channel_3=np.ones(3, np.float32)
    )
    (got,) = exe.run("g_stage1", X)
    np.testing.assert_allclose(got, 1 - X)


def test_a_stage_that_fails_stops_the_stage_waiting_for_it() -> None:
    """Stage 1's check fails before it sends; stage 0, blocked in a receive inside
    its IREE call, is stopped, and the call raises stage 1's error."""
    check = f"""
  %i0 = arith.constant 0 : index
  %x0 = tensor.extract %x[%i0] : {T}
  %big = arith.constant 100.0 : f32
  %ok = arith.cmpf ogt, %x0, %big : f32
  cf.assert %ok, "x[0] must be large"
  ml_program.global_store @__mindjit_channel_2"""
    failing = ORDERED.replace("\n  ml_program.global_store @__mindjit_channel_2", check)
    exe = iree_executable(parse_module(failing, "<failing>"), "g")
    with pytest.raises(RuntimeCheckError, match="x\\[0\\] must be large"):
        exe.run("g", X)
    # it runs again, from the Parameter the failed call left unchanged
    x, w = np.full(3, 200.0, np.float32), np.array([1, 2, 3], np.float32)
    (got,) = exe.run("g", x)
    np.testing.assert_allclose(got, (w + x) * (w + w) - x, rtol=1e-6)


# @w written by stage 0 and read by stage 1 (each stage module holds a copy);
# @unused used by no stage (no stage module holds it)
SHARED = f"""
ml_program.global private mutable @w(dense<[1.0, 2.0, 3.0]> : {T}) : {T}
ml_program.global private mutable @unused(dense<7.0> : {T}) : {T}
func.func @g_stage0(%x: {T}) attributes {{{_stage(0, "")}}} {{
  %w0 = ml_program.global_load @w : {T}
  {_binary("w1", "w0", "x", "addf")}
  ml_program.global_store @w = %w1 : {T}
  func.return
}}
func.func @g_stage1(%x: {T}) -> {T} attributes {{{_stage(1, ": 0")}}} {{
  %r = ml_program.global_load @w : {T}
  func.return %r : {T}
}}
"""


def test_a_global_of_two_stages_gets_the_writers_value_after_each_call() -> None:
    exe = iree_executable(parse_module(SHARED, "<shared>"), "g")
    assert exe.entry_names() == ["g", "g_stage0", "g_stage1"]
    assert [[str(t) for t in types] for types in exe.signature("g")] == [[T], [T]]
    w = np.array([1, 2, 3], np.float32)
    (first,) = exe.run("g", X)  # stage 1 reads @w as the call starts
    np.testing.assert_allclose(first, w)
    (second,) = exe.run("g", X)
    np.testing.assert_allclose(second, w + X)
    np.testing.assert_allclose(exe.get_global("w"), w + 2 * X)
    exe.set_global("w", np.zeros(3, np.float32))  # set in both stages
    (third,) = exe.run("g", X)
    np.testing.assert_allclose(third, 0)
    np.testing.assert_allclose(exe.get_global("unused"), 7)
    exe.set_global("unused", np.ones(3, np.float32))
    np.testing.assert_allclose(exe.get_global("unused"), 1)
    with pytest.raises(ExecutionError, match="no global @nope"):
        exe.get_global("nope")
