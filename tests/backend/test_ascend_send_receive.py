"""Send and Receive on the simulated device (backend/ascend/DEVICE.md, "Send and
receive"): kernels on the comm unit that name their channel, in the model file
(round trip, validation), with the link's cost, passing values on one device
(the channel global) and through a `channels` object (several simulators)."""

from __future__ import annotations

import json
import random
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from test_ascend_model_file import _check_all, _report, _structure_mutation, edited, split
from test_send_receive import _PROGRAM, _T  # noqa: E402

from mindjit.backend.ascend.compile import compile_for_device
from mindjit.backend.ascend.device import DeviceConfig, configured
from mindjit.backend.ascend.model import DeviceModel, ModelFormatError
from mindjit.backend.ascend.model_file import (
    FORMAT_VERSION,
    decode,
    encode,
    read_model,
    write_model,
)
from mindjit.backend.ascend.passes.kernel_table import CHANNEL_ATTR
from mindjit.backend.ascend.passes.registry import passes_with_device
from mindjit.backend.ascend.report import format_report
from mindjit.backend.ascend.serialize import serialize
from mindjit.backend.ascend.simulator import SimulationError, Simulator
from mindjit.backend.cpu import CpuExecutable
from mindjit.backend.cpu.pipeline_run import ChannelHub
from mindjit.dialects.ascend import KernelOp
from mindjit.dialects.context import make_context
from mindjit.dialects.parsing import parse_module
from mindjit.passes.pipelines import compile_to_tensor, parse_pipeline, run_passes
from mindjit.support.errors import MindjitError
from mindjit.tools import ms_sim

CHANNEL = "__mindjit_channel_5"

# Two stages of a pipeline: stage0 sends x * x under tag 5, stage1 receives it.
STAGES = _PROGRAM  # the two stages of test_send_receive.py

# One graph sends x, receives it, sends x + x on the same tag and receives again:
# each Receive gives a tensor of its own, so the first keeps x.
LOOPBACK = f"""
func.func @loopback(%x: {_T}, %io0: !mindir.io) -> ({_T}, {_T}, !mindir.io) {{
  %io1 = mindir.send %x, %io0 {{sr_tag = 1 : i64, dest_rank = 0 : i64}} : {_T}
  %y, %io2 = mindir.receive %io1 {{sr_tag = 1 : i64, src_rank = 0 : i64}} : {_T}
  %x2 = mindir.add %x, %x : {_T}
  %io3 = mindir.send %x2, %io2 {{sr_tag = 1 : i64, dest_rank = 0 : i64}} : {_T}
  %z, %io4 = mindir.receive %io3 {{sr_tag = 1 : i64, src_rank = 0 : i64}} : {_T}
  func.return %y, %z, %io4 : {_T}, {_T}, !mindir.io
}}
"""

# A Send of N = 256 * 256 * 4 bytes, for the link's cost.
_BIG = "tensor<256x256xf32>"
BIG_SEND = f"""
func.func @big(%x: {_BIG}, %io0: !mindir.io) -> !mindir.io {{
  %io1 = mindir.send %x, %io0 {{sr_tag = 9 : i64, dest_rank = 1 : i64}} : {_BIG}
  func.return %io1 : !mindir.io
}}
"""
BIG_BYTES = 256 * 256 * 4

# Two channels of different types (tag 3: 2xf32, tag 4: 4xi32).
TWO_CHANNELS = """
func.func @two(%x: tensor<2xf32>, %n: tensor<4xi32>, %io0: !mindir.io)
    -> (tensor<2xf32>, tensor<4xi32>, !mindir.io) {
  %io1 = mindir.send %x, %io0 {sr_tag = 3 : i64, dest_rank = 0 : i64} : tensor<2xf32>
  %io2 = mindir.send %n, %io1 {sr_tag = 4 : i64, dest_rank = 0 : i64} : tensor<4xi32>
  %y, %io3 = mindir.receive %io2 {sr_tag = 3 : i64, src_rank = 0 : i64} : tensor<2xf32>
  %m, %io4 = mindir.receive %io3 {sr_tag = 4 : i64, src_rank = 0 : i64} : tensor<4xi32>
  func.return %y, %m, %io4 : tensor<2xf32>, tensor<4xi32>, !mindir.io
}
"""


def tensor_level(text: str) -> Any:
    return compile_to_tensor(parse_module(text, "<send_receive>"))


def device_model(text: str) -> DeviceModel:
    return compile_for_device(tensor_level(text))


@pytest.fixture(scope="module")
def stages() -> bytes:
    return encode(device_model(STAGES))


@pytest.fixture(scope="module")
def two_channels() -> bytes:
    return encode(device_model(TWO_CHANNELS))


def comm_steps(model: DeviceModel) -> list[Any]:
    return [s for g in model.graphs for s in g.sequence if s.op == "kernel" and s.unit == "comm"]


def manifest_step(m: dict[str, Any], name: str, nth: int = 0) -> dict[str, Any]:
    found = [s for g in m["graphs"] for s in g["sequence"] if s.get("name") == name]
    return found[nth]


def x_value() -> np.ndarray:
    return np.arange(6, dtype=np.float32).reshape(2, 3)


# -- the kernels in the model file --------------------------------------------------------


def test_send_and_receive_are_comm_kernels_naming_their_channel(stages: bytes) -> None:
    model = decode(stages)
    send, receive = comm_steps(model)
    channel = next(p.tensor for p in model.parameters if p.name == CHANNEL)
    assert (send.name, send.unit, send.channel, send.code) == ("Send", "comm", CHANNEL, -1)
    assert (send.writes, send.outputs, len(send.inputs)) == (channel, [], 1)
    assert (receive.name, receive.unit, receive.channel, receive.code) == (
        "Receive",
        "comm",
        CHANNEL,
        -1,
    )
    assert (receive.writes, receive.inputs, len(receive.outputs)) == (-1, [], 1)
    assert send.bytes == receive.bytes == 2 * 3 * 4  # the tensor moved, once
    # A Receive's tensor has its own memory, not the channel's.
    assert model.tensors[receive.outputs[0]].offset != model.tensors[channel].offset
    # Every other kernel names no channel.
    others = [s for g in model.graphs for s in g.sequence if s.op == "kernel" and s.unit != "comm"]
    assert others and all(s.channel == "" for s in others)


def test_model_file_round_trip_of_send_and_receive(stages: bytes, tmp_path: Path) -> None:
    assert FORMAT_VERSION == 2
    back = decode(stages)
    assert encode(back) == stages  # byte-identical
    manifest, _ = split(stages)
    send = manifest_step(manifest, "Send")
    assert (send["unit"], send["channel"], send["bytes"]) == ("comm", CHANNEL, 24.0)
    assert manifest_step(manifest, "Mul")["channel"] == ""
    path = tmp_path / "stages.msmodel"
    write_model(back, str(path))
    again = read_model(str(path))
    assert again.manifest() == back.manifest()
    assert [(s.name, s.channel) for s in comm_steps(again)] == [
        ("Send", CHANNEL),
        ("Receive", CHANNEL),
    ]


def _step_edit(kernel: str, **changes: Any) -> Any:
    return lambda m: manifest_step(m, kernel).update(changes)


def _drop_channel(m: dict[str, Any]) -> None:
    del manifest_step(m, "Mul")["channel"]  # a version-1 step


CORRUPT = [
    (_step_edit("Send", channel=123), r"kernel channel must be a string$"),
    (_drop_channel, r"kernel channel must be a string$"),
    (_step_edit("Send", channel=""), r"kernel 'Send' on the comm unit names no channel$"),
    (
        _step_edit("Receive", channel="__mindjit_channel_6"),
        r"step 0: 'Receive' uses channel @__mindjit_channel_6, which is no Parameter of the model$",
    ),
    (
        _step_edit("Send", unit="vector"),
        r"kernel 'Send' on the vector unit names a channel; only comm kernels do$",
    ),
    (
        _step_edit("Mul", channel=CHANNEL),
        r"kernel 'Mul' on the vector unit names a channel; only comm kernels do$",
    ),
    (
        _step_edit("Send", name="AllReduce"),
        r"kernel 'AllReduce' on the comm unit is neither Send nor Receive$",
    ),
    (_step_edit("Send", code=0), r"kernel 'Send' is a builtin of the device, not code$"),
    (
        _step_edit("Send", writes=-1),
        r"step 1: a Send takes one input, gives nothing and writes its channel$",
    ),
    (
        _step_edit("Send", outputs=[0]),
        r"a Send takes one input, gives nothing and writes its channel$",
    ),
    (
        _step_edit("Receive", inputs=[0]),  # the channel itself
        r"a Receive takes nothing, gives one output and writes no Parameter$",
    ),
    (_step_edit("Receive", unit="cube"), r"kernel 'Receive' on the cube unit names a channel"),
    (_step_edit("Send", unit="hccs"), r"kernel has unknown unit 'hccs'$"),
]


@pytest.mark.parametrize(("edit", "pattern"), CORRUPT, ids=[p for _, p in CORRUPT])
def test_corrupt_comm_fields_are_clear_errors(stages: bytes, edit: Any, pattern: str) -> None:
    with pytest.raises(ModelFormatError, match=pattern) as info:
        decode(edited(stages, edit), "stages.msmodel")
    assert str(info.value).startswith("stages.msmodel: error: invalid model file: ")


def test_a_receive_of_another_channel_type_is_refused(two_channels: bytes) -> None:
    edit = _step_edit("Receive", channel="__mindjit_channel_4")  # the first Receive: 2xf32
    with pytest.raises(ModelFormatError) as info:
        decode(edited(two_channels, edit))
    assert info.value.message.endswith(
        "'Receive' moves a float32 [2] but channel @__mindjit_channel_4 holds a int32 [4]"
    ), info.value.message


def test_a_version_1_file_is_refused(stages: bytes) -> None:
    old = stages[:8] + (1).to_bytes(4, "little") + stages[12:]
    with pytest.raises(ModelFormatError, match=r"format version 1, this reader reads version 2$"):
        decode(old)


def test_a_comm_kernel_without_its_channel_is_a_located_error() -> None:
    module = tensor_level(STAGES)
    spec = "ascend-select-kernels,ascend-execution-order,ascend-plan-memory,ascend-assign-streams"
    run_passes(parse_pipeline(spec, passes_with_device()), module, make_context())
    send = next(op for op in module.walk() if isinstance(op, KernelOp) and op.unit_name == "comm")
    del send.attributes[CHANNEL_ATTR]
    with pytest.raises(MindjitError, match=r"'Send' kernel without its channel \(ascend.channel\)"):
        serialize(module)


FUZZ_CASES = 1_500


def test_fuzz_structure_mutations_of_send_and_receive(stages: bytes, two_channels: bytes) -> None:
    """Damage anywhere in models with Send / Receive (the new fields included):
    rejected or run, never another exception than MindjitError."""
    r = random.Random(26)
    files = {"stages": stages, "two": two_channels}
    cases = []
    for n in range(FUZZ_CASES):
        name = sorted(files)[n % 2]
        what, mutated = _structure_mutation(files[name], r)
        cases.append((f"#{n} {name}: {what}", mutated))
    outcomes, failures = _check_all(cases, seed=26)
    assert not failures, _report(failures, outcomes)
    assert outcomes["rejected by decode"] > 0 and outcomes["ran"] > 0


# -- the link's cost ------------------------------------------------------------------------


def _kernel(report: dict[str, Any], name: str) -> dict[str, Any]:
    (k,) = [k for k in report["kernels"] if k["name"] == name]
    return k


def test_default_link_is_the_documented_hccs_link() -> None:
    cfg = DeviceConfig()
    assert cfg.link_latency_us == 2.0
    assert cfg.link_bytes_per_us == 30000.0  # 240 Gbit/s
    assert cfg.link_us(30000.0) == 3.0
    assert cfg.kernel_us("comm", "float32", 0.0, 30000.0) == 3.0  # no kernel_start_us


def test_a_send_of_n_bytes_takes_latency_plus_n_over_bandwidth() -> None:
    model = device_model(BIG_SEND)
    x = np.ones((256, 256), np.float32)
    sim = Simulator(model)
    sim.run([x])
    send = _kernel(sim.report, "Send")
    cfg = DeviceConfig()
    assert send["unit"] == "comm"
    assert send["duration_us"] == pytest.approx(
        cfg.link_latency_us + BIG_BYTES / cfg.link_bytes_per_us
    )
    assert sim.report["link_bytes"] == BIG_BYTES
    assert "Send/Receive moved 262144 B over the link" in format_report(sim.report)
    (row,) = [r for r in sim.report["kernel_table"] if r["kernel"] == "Send"]
    assert row["unit"] == "comm"

    # Overriding the link (as ms-sim --device name=value does) changes it.
    slow = configured(DeviceConfig(), {"link_latency_us": "10", "link_bytes_per_us": "1000"})
    sim = Simulator(model, slow)
    sim.run([x])
    assert _kernel(sim.report, "Send")["duration_us"] == pytest.approx(10 + BIG_BYTES / 1000)
    with pytest.raises(MindjitError, match="device setting 'link_bytes_per_us' must be positive"):
        configured(DeviceConfig(), {"link_bytes_per_us": 0})


def test_a_receive_is_charged_the_link_too(stages: bytes) -> None:
    cfg = configured(DeviceConfig(), {"link_latency_us": 7, "link_bytes_per_us": 4})
    sim = Simulator(decode(stages), cfg)
    sim.run([np.ones((2, 3), np.float32)], "stage1")
    assert _kernel(sim.report, "Receive")["duration_us"] == pytest.approx(7 + 24 / 4)
    assert _kernel(sim.report, "Receive")["unit"] == "comm"


# -- values on one device --------------------------------------------------------------------


def test_send_then_receive_on_one_device_gives_the_sent_value() -> None:
    sim = Simulator(decode(encode(device_model(LOOPBACK))))
    x = x_value()
    y, z = sim.run([x])
    # A Receive is a kernel with a tensor of its own (MindSpore's Receive), so the
    # second Send on the same tag does not change what the first Receive gave.
    # (The CPU executor reads a channel in place like a Load: it gives x + x for y.)
    np.testing.assert_array_equal(y, x)
    np.testing.assert_array_equal(z, x + x)
    assert [k["name"] for k in sim.report["kernels"] if k["unit"] == "comm"] == [
        "Send",
        "Receive",
        "Send",
        "Receive",
    ]


def test_stages_in_turn_on_one_simulator_as_on_the_cpu(stages: bytes) -> None:
    sim = Simulator(decode(stages))
    cpu = CpuExecutable(tensor_level(STAGES))
    rng = np.random.default_rng(26)
    b = rng.standard_normal((2, 3)).astype(np.float32)
    (before,) = sim.run([b], "stage1")
    np.testing.assert_array_equal(before, b)  # nothing sent yet: the channel is zero
    np.testing.assert_array_equal(before, cpu.run("stage1", b)[0])
    for _ in range(2):
        x = rng.standard_normal((2, 3)).astype(np.float32)
        sim.run([x], "stage0")
        cpu.run("stage0", x)
        np.testing.assert_array_equal(sim.view(sim.parameter_tensors[CHANNEL]), x * x)
        (got,) = sim.run([b], "stage1")
        np.testing.assert_allclose(got, x * x + b, rtol=1e-6)
        np.testing.assert_array_equal(got, cpu.run("stage1", b)[0])


# -- the channels hook -------------------------------------------------------------------------


class FakeChannels:
    """Records what is put; gives what it was fed."""

    def __init__(self, feed: dict[str, np.ndarray] | None = None):
        self.puts: list[tuple[str, np.ndarray]] = []
        self.gets: list[str] = []
        self.feed = feed or {}

    def put(self, name: str, value: np.ndarray) -> None:
        self.puts.append((name, value))

    def get(self, name: str) -> np.ndarray:
        self.gets.append(name)
        return self.feed[name]


def test_a_send_puts_its_value_on_the_channels(stages: bytes) -> None:
    sim = Simulator(decode(stages))
    assert sim.channels is None
    fake = FakeChannels()
    sim.channels = fake
    x = x_value()
    sim.run([x], "stage0")
    ((name, value),) = fake.puts
    assert name == CHANNEL
    np.testing.assert_array_equal(value, x * x)
    assert value.dtype == np.float32 and value.shape == (2, 3)
    # a copy: later kernels reusing that memory do not change what was sent
    assert not np.shares_memory(value, sim.memory)
    # the channel global is not used
    np.testing.assert_array_equal(sim.view(sim.parameter_tensors[CHANNEL]), np.zeros((2, 3)))
    assert _kernel(sim.report, "Send")["duration_us"] == pytest.approx(DeviceConfig().link_us(24))
    assert fake.gets == []


def test_a_receive_takes_its_value_from_the_channels(stages: bytes) -> None:
    sim = Simulator(decode(stages))
    sent = np.full((2, 3), 5.0, np.float32)
    fake = FakeChannels({CHANNEL: sent})
    sim.channels = fake
    b = np.ones((2, 3), np.float32)
    (got,) = sim.run([b], "stage1")
    assert fake.gets == [CHANNEL] and fake.puts == []
    np.testing.assert_array_equal(got, sent + b)
    assert _kernel(sim.report, "Receive")["duration_us"] == pytest.approx(
        DeviceConfig().link_us(24)
    )


@pytest.mark.parametrize(
    "value",
    [np.zeros((3, 2), np.float32), np.zeros((2, 3), np.float64)],
    ids=["shape", "dtype"],
)
def test_a_received_value_of_another_type_is_a_simulation_error(
    stages: bytes, value: np.ndarray
) -> None:
    sim = Simulator(decode(stages))
    sim.channels = FakeChannels({CHANNEL: value})
    with pytest.raises(SimulationError, match=f"kernel 'Receive' got a .* from channel @{CHANNEL}"):
        sim.run([np.ones((2, 3), np.float32)], "stage1")


def test_two_simulators_in_threads_meet_in_a_channel_hub(stages: bytes) -> None:
    """The pipeline's use: one simulator per stage, each in a thread, sharing the
    CPU pipeline runner's ChannelHub; the receiving stage starts first and waits."""
    hub = ChannelHub(2)
    sims = [Simulator(decode(stages)), Simulator(decode(stages))]
    for sim in sims:
        sim.channels = hub
    b = np.ones((2, 3), np.float32)
    results: dict[str, Any] = {}

    def run(k: int, entry: str, args: list[np.ndarray]) -> None:
        failed = True
        try:
            results[entry] = sims[k].run(args, entry)
            failed = False
        except BaseException as exc:  # noqa: BLE001 - checked below
            results[entry] = exc
        finally:
            hub.finished(failed)

    threads = [
        threading.Thread(target=run, args=(1, "stage1", [b])),
        threading.Thread(target=run, args=(0, "stage0", [x_value()])),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not any(t.is_alive() for t in threads)
    (got,) = results["stage1"]
    np.testing.assert_array_equal(got, x_value() ** 2 + b)
    assert results["stage0"] == []
    for sim in sims:  # both devices were charged their link time
        assert sum(k["unit"] == "comm" for k in sim.report["kernels"]) == 1


def test_report_json_has_the_comm_unit(stages: bytes) -> None:
    sim = Simulator(decode(stages))
    sim.run([x_value()], "stage0")
    report = json.loads(json.dumps(sim.report))
    assert {"name": "Send", "unit": "comm"}.items() <= _kernel(report, "Send").items()
    assert report["link_bytes"] == 24


def test_ms_sim_overrides_the_link(tmp_path: Path) -> None:
    path = tmp_path / "stages.msmodel"
    write_model(device_model(STAGES), str(path))
    reports = []
    for device in ([], ["--device", "link_latency_us=10", "--device", "link_bytes_per_us=2"]):
        out = tmp_path / f"report{len(reports)}.json"
        args = [str(path), "--entry", "stage0", "--input", "tensor<2x3xf32>=[[1,2,3],[4,5,6]]"]
        assert ms_sim.main([*args, *device, "--report-json", str(out)]) == 0
        reports.append(json.loads(out.read_text()))
    default, slow = (_kernel(r, "Send")["duration_us"] for r in reports)
    assert default == pytest.approx(DeviceConfig().link_us(24))
    assert slow == pytest.approx(10 + 24 / 2)
