"""The device model file (backend/ascend/model_file.py): round trip, atomic write,
every rejection with its message, and fuzzing (raw bytes and manifest structure):
a damaged file is rejected with ModelFormatError / MindjitError, or it runs;
no other exception type ever escapes."""

from __future__ import annotations

import copy
import hashlib
import json
import math
import os
import random
import re
import signal
import traceback
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from ascend_programs import REUSE, SCF_WHILE, STATE, STATUS

from mindjit.backend.ascend.compile import compile_for_device
from mindjit.backend.ascend.device import DeviceConfig
from mindjit.backend.ascend.model import DeviceModel, ModelFormatError
from mindjit.backend.ascend.model_file import (
    FORMAT_VERSION,
    HEADER,
    MAGIC,
    decode,
    encode,
    read_model,
    write_model,
)
from mindjit.backend.ascend.simulator import SimulationError, Simulator
from mindjit.support.errors import MindjitError
from mindjit.tools.ms_run import load_module

ROOT = Path(__file__).resolve().parents[2]

# -- programs -------------------------------------------------------------------------


# Independent branches on two streams: events recorded and waited for.
BRANCHES = """
func.func @branches(%a: tensor<8x16xf32>, %b: tensor<16xf32>, %w: tensor<4x16xf32>)
    -> (tensor<8x4xf32>, tensor<8xf32>) {
  %x = mindir.add %a, %b : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  %z = mindir.sigmoid %x : tensor<8x16xf32>
  %mm = mindir.matmul %z, %w {transpose_b = true}
      : (tensor<8x16xf32>, tensor<4x16xf32>) -> tensor<8x4xf32>
  %r = mindir.reduce_mean %z {axis = array<i64: 1>} : (tensor<8x16xf32>) -> tensor<8xf32>
  %t = mindir.tanh %r : tensor<8xf32>
  func.return %mm, %t : tensor<8x4xf32>, tensor<8xf32>
}
"""

PROGRAMS = {
    "state": STATE,
    "reuse": REUSE,
    "while": SCF_WHILE,
    "status": STATUS,
    "branches": BRANCHES,
}


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, DeviceModel]:
    """Each program compiled once for the device (mlp from examples/)."""
    out = {"mlp": compile_for_device(load_module(str(ROOT / "examples" / "mlp.mlir")))}
    folder = tmp_path_factory.mktemp("programs")
    for name, text in PROGRAMS.items():
        path = folder / f"{name}.mlir"
        path.write_text(text)
        out[name] = compile_for_device(load_module(str(path)))
    return out


@pytest.fixture(scope="module")
def files(models: dict[str, DeviceModel]) -> dict[str, bytes]:
    return {name: encode(model) for name, model in models.items()}


# -- helpers ----------------------------------------------------------------------------


def pack(
    manifest: bytes,
    blob: bytes,
    *,
    magic: bytes = MAGIC,
    version: int = FORMAT_VERSION,
    flags: int = 0,
) -> bytes:
    """A file around these manifest bytes and blob, with lengths and checksum right."""
    digest = hashlib.sha256(manifest + blob).digest()
    return HEADER.pack(magic, version, flags, len(manifest), len(blob), digest) + manifest + blob


def split(data: bytes) -> tuple[dict[str, Any], bytes]:
    """The manifest (as a dict) and the blob of a well-formed file."""
    _, _, _, m_len, _, _ = HEADER.unpack_from(data)
    body = data[HEADER.size :]
    return json.loads(body[:m_len]), body[m_len:]


def repack(manifest: dict[str, Any], blob: bytes) -> bytes:
    return pack(json.dumps(manifest, separators=(",", ":")).encode(), blob)


def edited(data: bytes, edit: Callable[[dict[str, Any]], Any]) -> bytes:
    """The file with its manifest changed by `edit` (in place), checksum recomputed."""
    manifest, blob = split(data)
    edit(manifest)
    return repack(manifest, blob)


def steps(manifest: dict[str, Any], graph: int = 0) -> list[dict[str, Any]]:
    return manifest["graphs"][graph]["sequence"]


def rejected(data: bytes, pattern: str, source: str = "<model>") -> ModelFormatError:
    with pytest.raises(ModelFormatError) as info:
        decode(data, source)
    err = info.value
    assert isinstance(err, MindjitError)
    assert err.message.startswith("invalid model file: "), err.message
    assert re.search(pattern, err.message), err.message
    assert str(err) == f"{source}: error: {err.message}"
    return err


def refused_by_simulator(data: bytes, pattern: str) -> None:
    """Decodes (the manifest is consistent), but loading the kernels' code fails."""
    model = decode(data)
    with pytest.raises(ModelFormatError) as info:
        Simulator(model)
    assert re.search(pattern, info.value.message), info.value.message
    assert str(info.value).endswith(f"error: {info.value.message}")


# -- round trip -------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["mlp", *PROGRAMS])
def test_round_trip(name: str, models: dict[str, DeviceModel], files: dict[str, bytes]) -> None:
    model, data = models[name], files[name]
    back = decode(data)
    assert back.manifest() == model.manifest()
    assert back.blob == model.blob
    assert encode(back) == data  # byte-identical: the encoding is canonical
    magic, version, flags, m_len, b_len, digest = HEADER.unpack_from(data)
    assert (magic, version, flags) == (MAGIC, FORMAT_VERSION, 0)
    assert HEADER.size == 64 and len(data) == 64 + m_len + b_len
    assert digest == hashlib.sha256(data[64:]).digest()
    assert json.loads(data[64 : 64 + m_len])["format"] == "mindjit-ascend-sim"


def test_blob_holds_parameters_and_constants(models: dict[str, DeviceModel]) -> None:
    model = decode(encode(models["state"]))
    (param,) = model.parameters
    (const,) = model.constants
    assert param.name == "w"
    w = np.frombuffer(model.blob, "<f4", count=3, offset=param.start)
    k = np.frombuffer(model.blob, "<f4", count=3, offset=const.start)
    np.testing.assert_array_equal(w, [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(k, [0.5, -1.0, 2.0])


def test_write_model_is_atomic_and_readable(
    tmp_path: Path, models: dict[str, DeviceModel], files: dict[str, bytes]
) -> None:
    path = tmp_path / "net.msmodel"
    write_model(models["mlp"], str(path))
    assert sorted(os.listdir(tmp_path)) == ["net.msmodel"]  # no temporary file left
    assert path.read_bytes() == files["mlp"]
    assert read_model(str(path)).manifest() == models["mlp"].manifest()
    # Overwriting replaces the whole file, still without a leftover.
    write_model(models["state"], str(path))
    assert sorted(os.listdir(tmp_path)) == ["net.msmodel"]
    assert read_model(str(path)).manifest() == models["state"].manifest()


def test_write_and_read_errors_are_mindjit_errors(
    tmp_path: Path, models: dict[str, DeviceModel]
) -> None:
    with pytest.raises(MindjitError, match="cannot write file"):
        write_model(models["mlp"], str(tmp_path / "missing" / "net.msmodel"))
    assert not (tmp_path / "missing").exists()
    with pytest.raises(MindjitError, match="cannot read model file: No such file"):
        read_model(str(tmp_path / "absent.msmodel"))
    bad = tmp_path / "bad.msmodel"
    bad.write_bytes(b"MSMODEL\0 and not much more")
    with pytest.raises(ModelFormatError) as info:
        read_model(str(bad))
    assert str(info.value).startswith(f"{bad}: error: invalid model file: truncated")


def test_model_format_error_is_a_mindjit_error() -> None:
    assert issubclass(ModelFormatError, MindjitError)


# -- the container ----------------------------------------------------------------------


def test_empty_file() -> None:
    rejected(b"", r"^invalid model file: truncated: 0 bytes, shorter than the header$")


def test_truncated_file(files: dict[str, bytes]) -> None:
    data = files["state"]
    for cut in (1, 8, 12, 32, 63):
        rejected(data[:cut], rf"truncated: {cut} bytes, shorter than the header")
    for cut in (64, 65, 100, len(data) // 2, len(data) - 25, len(data) - 1):
        rejected(
            data[:cut],
            rf"truncated or padded: the header announces {len(data)} bytes, the file has {cut}$",
        )


def test_padded_file(files: dict[str, bytes]) -> None:
    data = files["mlp"]
    for pad in (b"\0", b"garbage" * 10):
        rejected(
            data + pad,
            rf"truncated or padded: the header announces {len(data)} bytes, "
            rf"the file has {len(data) + len(pad)}",
        )


def test_bad_magic(files: dict[str, bytes]) -> None:
    data = files["mlp"]
    for magic in (b"MSMODEL\1", b"\0" * 8, b"PK\3\4xxxx"):
        rejected(magic + data[8:], r"not a mindjit device model \(bad magic\)")
    rejected(b"\x89PNG\r\n\x1a\n" + bytes(100), "bad magic")


def test_wrong_version_comes_before_the_checksum(files: dict[str, bytes]) -> None:
    data = files["mlp"]
    for version in (0, FORMAT_VERSION - 1, FORMAT_VERSION + 1, 0xFFFFFFFF):
        changed = data[:8] + version.to_bytes(4, "little") + data[12:]
        rejected(changed, rf"format version {version}, this reader reads version {FORMAT_VERSION}$")
        # A corrupted body too: still the version error (checked first).
        body = bytearray(changed)
        body[-1] ^= 0xFF
        rejected(bytes(body), rf"format version {version}, this reader")


def test_unknown_flags(files: dict[str, bytes]) -> None:
    data = files["mlp"]
    rejected(data[:12] + (1).to_bytes(4, "little") + data[16:], r"unknown flags 0x1$")


def test_checksum_mismatch(files: dict[str, bytes]) -> None:
    data = files["state"]
    _, _, _, m_len, b_len, _ = HEADER.unpack_from(data)
    assert b_len > 0
    for where in (64, 64 + m_len // 2, 64 + m_len - 1, 64 + m_len, len(data) - 1, 40):
        changed = bytearray(data)
        changed[where] ^= 0x01  # a byte of the manifest, of the blob, of the digest
        rejected(bytes(changed), r"checksum mismatch: the file is corrupted$")


def test_manifest_not_json(files: dict[str, bytes]) -> None:
    _, blob = split(files["state"])
    for text in (b"", b"{not json", b'{"format": "mindjit-ascend-sim",', b"\xff\xfe{}", b"nan"):
        rejected(pack(text, blob), r"the manifest is not valid JSON \(")
    rejected(pack(b"[" * 100_000 + b"]" * 100_000, b""), "the manifest is not valid JSON")
    for text in (b"[]", b"42", b'"model"', b"null"):
        rejected(pack(text, blob), r"manifest must be an object$")


def test_a_right_file_under_another_name(files: dict[str, bytes]) -> None:
    err = rejected(files["mlp"][:10], "truncated", source="net.msmodel")
    assert str(err).startswith("net.msmodel: error: invalid model file: truncated")


# -- the manifest's consistency -----------------------------------------------------------


def _set(*path: Any) -> Callable[[dict[str, Any]], None]:
    """An edit setting manifest[path[0]][path[1]]... to path[-1]."""

    def edit(m: dict[str, Any]) -> None:
        obj = m
        for key in path[:-2]:
            obj = obj[key]
        obj[path[-2]] = path[-1]

    return edit


def _tensor_past_memory(m: dict[str, Any]) -> None:
    m["tensors"][5][2] = m["memory_bytes"] - 16  # a 4x16xf32 tensor: 256 bytes


def _read_before_write(m: dict[str, Any]) -> None:
    seq = steps(m)
    seq.append(seq.pop(0))  # the first MatMul now runs last: Add reads its result first


def _wait_unrecorded(m: dict[str, Any]) -> None:
    m["events"] = 1
    steps(m).insert(0, {"op": "wait", "event": 0, "stream": 0})


def _record_after_wait(m: dict[str, Any]) -> None:
    m["events"] = 1
    steps(m).insert(0, {"op": "wait", "event": 0, "stream": 1})
    steps(m).insert(1, {"op": "record", "event": 0, "stream": 0})


def _event_out_of_range(m: dict[str, Any]) -> None:
    steps(m).insert(0, {"op": "record", "event": 3, "stream": 0})


def _self_call(m: dict[str, Any]) -> None:
    steps(m, 0).insert(0, {"op": "call", "graph": 0, "stream": 0, "inputs": [2, 3], "outputs": [4]})


def _mutual_calls(m: dict[str, Any]) -> None:
    twin = copy.deepcopy(m["graphs"][0])
    twin["name"] = "Twin"
    m["graphs"].append(twin)  # graph 2
    call = {"op": "call", "stream": 0, "inputs": [2, 3], "outputs": [4]}
    steps(m, 0).insert(0, dict(call, graph=2))
    steps(m, 2).insert(0, dict(call, graph=0))


def _call_missing_graph(m: dict[str, Any]) -> None:
    steps(m, 1)[0]["graph"] = 7


def _call_wrong_signature(m: dict[str, Any]) -> None:
    steps(m, 1)[0]["inputs"] = [6]


def _blob_past_end(m: dict[str, Any]) -> None:
    m["parameters"][0][2] = 20  # 12 bytes from offset 20 of a 24-byte blob


def _input_bound_to_another_argument(m: dict[str, Any]) -> None:
    m["tensors"][2][3] = 1  # Block_construct's input 0 claims argument 1


def _assign_to_non_parameter(m: dict[str, Any]) -> None:
    steps(m)[3]["writes"] = 5


def _writes_a_parameter_as_output(m: dict[str, Any]) -> None:
    steps(m)[0]["outputs"] = [0]


def _alias_of_later(m: dict[str, Any]) -> None:
    m["tensors"][11][4] = 12


def _alias_other_memory(m: dict[str, Any]) -> None:
    m["tensors"][11][4] = 5


def _no_entry(m: dict[str, Any]) -> None:
    m["graphs"][0]["entry"] = False


def _heap_past_memory(m: dict[str, Any]) -> None:
    m["graphs"][0]["heap_bytes"] = m["memory_bytes"] + 1


def _returns_unwritten(m: dict[str, Any]) -> None:
    m["graphs"][0]["outputs"] = [5]
    m["graphs"][0]["sequence"] = []


def _workspace_past_memory(m: dict[str, Any]) -> None:
    steps(m)[0]["workspace"] = [m["memory_bytes"] - 4, 8]


def _missing(key: str) -> Callable[[dict[str, Any]], None]:
    return lambda m: m.pop(key)


DECODE_ERRORS = [
    ("mlp", _tensor_past_memory, r"tensor 5 at offset 3056 \(256 bytes\) lies past the device memory \(3072 bytes\)"),
    ("mlp", _read_before_write, r"graph 'Net_construct' step 0: 'Add' reads tensor 5, which no one wrote"),
    ("mlp", _wait_unrecorded, r"graph 'Net_construct' step 0: waits for event 0, never recorded"),
    ("branches", lambda m: steps(m).pop(1), r"graph 'branches' step 3: waits for event 0, never recorded"),
    ("mlp", _record_after_wait, r"step 0: waits for event 0, never recorded"),
    ("mlp", _event_out_of_range, r"step 0: event 3 is out of range"),
    ("mlp", lambda m: steps(m)[0].update(code=len(m["codes"])), r"kernel code 12 is out of range"),
    ("mlp", lambda m: steps(m)[0].update(code=-2), r"kernel code -2 is out of range"),
    ("mlp", lambda m: steps(m)[0].update(unit="tpu"), r"kernel has unknown unit 'tpu'"),
    ("mlp", lambda m: steps(m)[0].update(dtype="bfloat16"), r"kernel has unknown dtype 'bfloat16'"),
    ("mlp", _set("tensors", 0, 0, "complex64"), r"tensor 0 has unknown dtype 'complex64'"),
    ("mlp", _set("tensors", 0, 1, [4, -8]), r"tensor 0 has a bad shape \[4, -8\]"),
    ("mlp", _set("tensors", 0, 1, [1] * 17), r"tensor 0 has a bad shape"),
    ("mlp", _set("tensors", 0, 1, [4, 8.0]), r"expected an integer, got 8.0"),
    ("mlp", _set("tensors", 0, 5, True), r"tensor 0 has a bad scalar flag"),
    ("mlp", _set("tensors", 0, [0]), r"a tensor entry must have 6 items"),
    ("mlp", _set("tensors", 0, 2, -1), r"tensor 0 has neither an address nor an argument"),
    ("mlp", _alias_of_later, r"tensor 11 views tensor 12, not an earlier one"),
    ("mlp", _alias_other_memory, r"tensor 11 views tensor 5 but not its memory"),
    ("mlp", lambda m: steps(m)[0].update(op="jump"), r"unknown sequence entry 'jump'"),
    ("mlp", lambda m: steps(m)[0].update(stream=64), r"field 'stream' must be an integer in \[0, 63\]"),
    ("mlp", lambda m: steps(m)[0].update(inputs=[0, 99]), r"kernel input 99 is out of range \(0\.\.17\)"),
    ("mlp", lambda m: steps(m)[0].update(flops=float("nan")), r"kernel cost nan is not a non-negative number"),
    ("mlp", lambda m: steps(m)[0].update(flops=-1), r"kernel cost -1 is not a non-negative number"),
    ("mlp", lambda m: steps(m)[0].update(workspace=[0]), r"a kernel workspace is \[offset, bytes\]"),
    ("mlp", _workspace_past_memory, r"step 0: workspace lies past the device memory"),
    ("mlp", _no_entry, r"the model has no entry graph"),
    ("mlp", _set("graphs", []), r"the model has no entry graph"),
    ("mlp", _heap_past_memory, r"graph 'Net_construct' has its heap past the device memory"),
    ("mlp", _returns_unwritten, r"graph 'Net_construct' returns tensor 5, which no one wrote"),
    ("mlp", _set("graphs", 0, "entry", 1), r"graph field 'entry' must be a boolean"),
    ("mlp", _set("format", "onnx"), r"not a mindjit-ascend-sim model \(format 'onnx'\)"),
    ("mlp", _set("memory_bytes", 0), r"field 'memory_bytes' must be an integer in \[1, "),
    ("mlp", _set("memory_bytes", "3072"), r"field 'memory_bytes' must be an integer"),
    ("mlp", _set("align", True), r"field 'align' must be an integer"),
    ("mlp", _set("persistent_bytes", 4096), r"field 'persistent_bytes' must be an integer in \[0, 3072\]"),
    ("mlp", _set("codes", [1]), r"codes\[\] must be a string"),
    ("mlp", _set("producer", None), r"producer must be a string"),
    ("mlp", _missing("tensors"), r"field 'tensors' must be a list"),
    ("mlp", _missing("graphs"), r"field 'graphs' must be a list"),
    ("mlp", _set("graphs", 0, "name", 3), r"graph name must be a string"),
    ("state", _blob_past_end, r"data of tensor 0 lies outside the blob"),
    ("state", _set("parameters", 0, 3, 16), r"data of tensor 0 lies outside the blob"),
    ("state", _set("constants", 0, 0, 40), r"blob tensor 40 is out of range \(0\.\.7\)"),
    ("state", _set("constants", 0, [2, 12]), r"a constant entry must have 3 items"),
    ("state", _assign_to_non_parameter, r"step 3: Assign writes tensor 5, not a Parameter"),
    ("state", _writes_a_parameter_as_output, r"step 0: writes tensor 0, which it may not"),
    ("reuse", _self_call, r"graph 'Block_construct' calls itself"),
    ("reuse", _mutual_calls, r"graph '(Block_construct|Twin)' calls itself"),
    ("reuse", _call_missing_graph, r"calls graph 7, which does not exist"),
    ("reuse", _call_wrong_signature, r"call inputs do not match the callee's signature"),
    ("reuse", _input_bound_to_another_argument, r"graph 'Block_construct' input 0 is bound to another argument"),
    ("reuse", _set("tensors", 4, ["float32", [2], -1, 0, -1, False]), r"step 0: writes tensor 4, which it may not"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "edit", "pattern"),
    DECODE_ERRORS,
    ids=[f"{n}-{i}" for i, (n, _, _) in enumerate(DECODE_ERRORS)],
)
def test_inconsistent_manifest(
    name: str, edit: Callable[[dict[str, Any]], Any], pattern: str, files: dict[str, bytes]
) -> None:
    rejected(edited(files[name], edit), pattern)


def test_truncated_blob(files: dict[str, bytes]) -> None:
    manifest, blob = split(files["state"])
    rejected(repack(manifest, blob[:-1]), r"data of tensor 2 lies outside the blob")
    rejected(repack(manifest, b""), r"data of tensor 0 lies outside the blob")


def _code(index: int, text: str) -> Callable[[dict[str, Any]], None]:
    return lambda m: m["codes"].__setitem__(index, text)


def _swap_codes(m: dict[str, Any]) -> None:
    m["codes"][0], m["codes"][1] = m["codes"][1], m["codes"][0]


def _shape_changed(m: dict[str, Any]) -> None:
    # x: 4x8 -> 8x4 (same bytes, same address): the MatMul code takes 4x8.
    m["tensors"][0][1] = [8, 4]


def _dtype_changed(m: dict[str, Any]) -> None:
    m["tensors"][0][0] = "int32"


SIMULATOR_ERRORS = [
    ("mlp", _code(0, "this is not MLIR"), r"^kernel code does not parse: "),
    ("mlp", _code(0, 'builtin.module {\n  "test.op"() : () -> ()\n'), r"^kernel code does not parse: "),
    ("mlp", _code(0, "builtin.module {\n}"), r"^kernel code has no 'func.func @kernel'"),
    ("mlp", _code(0, "func.func private @kernel(tensor<2xf32>) -> tensor<2xf32>"), r"has no 'func.func @kernel'"),
    ("mlp", _swap_codes, r"^kernel 'MatMul': its code takes \[\('float32', \[4, 16\]\), \('float32', \[16\]\)\] -> "),
    ("mlp", _shape_changed, r"^kernel 'MatMul': its code takes .* the manifest gives \[\('float32', \[8, 4\]\)"),
    ("mlp", _dtype_changed, r"^kernel 'MatMul': its code takes .* the manifest gives \[\('int32', \[4, 8\]\)"),
    ("mlp", lambda m: steps(m)[0].update(code=-1), r"^kernel 'MatMul' has no code and is no builtin"),
    ("mlp", lambda m: steps(m)[0].update(outputs=[5, 6]), r"^kernel 'MatMul': its code takes .* -> \[\('float32', \[4, 16\]\)\], the manifest gives .* -> \[\('float32', \[4, 16\]\), \('float32', \[4, 16\]\)\]$"),
    ("status", lambda m: steps(m)[1].update(inputs=[]), r"^builtin 'NPUClearFloatStatus' has a bad signature"),
    ("state", lambda m: steps(m)[3].update(outputs=[6]), r"^kernel 'Assign' both writes a Parameter and gives results"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "edit", "pattern"),
    SIMULATOR_ERRORS,
    ids=[f"{n}-{i}" for i, (n, _, _) in enumerate(SIMULATOR_ERRORS)],
)
def test_kernel_code_checked_when_loaded(
    name: str, edit: Callable[[dict[str, Any]], Any], pattern: str, files: dict[str, bytes]
) -> None:
    refused_by_simulator(edited(files[name], edit), pattern)


# -- bugs the fuzzing found: regression tests


def test_entry_graph_with_call_bound_inputs(files: dict[str, bytes]) -> None:
    # Block_construct (only ever called) marked as an entry graph too.
    data = edited(files["reuse"], _set("graphs", 0, "entry", True))
    try:
        sim = Simulator(decode(data))
    except MindjitError:
        return  # rejecting the file would be right
    x = np.ones(2, np.float32)
    try:
        sim.run([x, x], entry="Block_construct")
    except MindjitError:
        return  # so would a clean error when running it


def _call_chain(depth: int) -> dict[str, Any]:
    """`main` calls g0, which calls g1, ... g{depth-1}, which returns its argument."""

    def graph(name: str, entry: bool, inputs: list[int], outputs: list[int], seq: list[Any]):
        return {
            "name": name,
            "entry": entry,
            "inputs": inputs,
            "outputs": outputs,
            "base": 0,
            "heap_bytes": 0,
            "lower_bound_bytes": 0,
            "sequence": seq,
        }

    def call(g: int, arg: int) -> dict[str, Any]:
        return {"op": "call", "graph": g, "stream": 0, "inputs": [arg], "outputs": [1]}

    graphs = [graph(f"g{i}", False, [0], [1], [call(i + 1, 0)]) for i in range(depth - 1)]
    graphs.append(graph(f"g{depth - 1}", False, [0], [0], []))
    graphs.append(graph("main", True, [2], [1], [call(0, 2)]))
    return {
        "format": "mindjit-ascend-sim",
        "producer": "test",
        "memory_bytes": 1024,
        "persistent_bytes": 0,
        "align": 512,
        "events": 0,
        "tensors": [
            ["float32", [2], -1, 0, -1, False],  # a graph's argument 0
            ["float32", [2], 0, -1, -1, False],
            ["float32", [2], 512, -1, -1, False],
        ],
        "parameters": [],
        "constants": [],
        "codes": [],
        "graphs": graphs,
    }


def test_short_call_chain_runs() -> None:
    sim = Simulator(decode(repack(_call_chain(5), b"")))
    (out,) = sim.run([np.array([1.0, 2.0], np.float32)])
    np.testing.assert_array_equal(out, [1.0, 2.0])


def test_deep_call_chain_is_rejected_or_decoded() -> None:
    try:
        decode(repack(_call_chain(2000), b""))
    except ModelFormatError:
        pass


def test_deep_call_chain_runs_or_fails_cleanly() -> None:
    try:
        sim = Simulator(decode(repack(_call_chain(600), b"")))
        sim.run([np.array([1.0, 2.0], np.float32)])
    except MindjitError:
        pass


def test_model_larger_than_the_host() -> None:
    manifest = _call_chain(1)
    manifest["memory_bytes"] = 1 << 50  # the largest memory_bytes the reader accepts
    model = decode(repack(manifest, b""))
    try:
        Simulator(model, DeviceConfig(memory_bytes=1 << 50))
    except MindjitError:
        pass


# A kernel code that parses, verifies and has the right signature, but whose
# linalg.generic yields nothing: the CPU executor returns an empty float64 array for
# the declared tensor<3xf32>.
YIELDS_NOTHING = """builtin.module {
  func.func @kernel(%0: tensor<3xf32>, %1: tensor<3xf32>) -> tensor<3xf32> {
    %2 = tensor.empty() : tensor<3xf32>
    %3 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>,
                                          affine_map<(d0) -> (d0)>],
                         iterator_types = ["parallel"]}
        ins(%0, %1 : tensor<3xf32>, tensor<3xf32>) outs(%2 : tensor<3xf32>) {
    ^bb0(%4: f32, %5: f32, %6: f32):
      linalg.yield
    } -> tensor<3xf32>
    func.return %3 : tensor<3xf32>
  }
}"""


def test_kernel_code_yielding_nothing_is_rejected(files: dict[str, bytes]) -> None:
    # found by the fuzzer: it ran and gave an empty float64 array for a tensor<3xf32>
    data = edited(files["state"], _code(0, YIELDS_NOTHING))  # code 0: Mul, 3xf32 x 3xf32
    with pytest.raises(ModelFormatError, match="body yields 0 values for 1 outputs"):
        Simulator(decode(data))


def test_kernel_result_of_the_wrong_shape_is_a_simulation_error(files: dict[str, bytes]) -> None:
    sim = Simulator(decode(files["state"]))
    code = sim.codes[0]

    class WrongShape:
        def invoke(self, args: list[Any]) -> tuple[np.ndarray, ...]:
            return (np.zeros(0, np.float32),)

    real = code.plan
    code.plan = WrongShape()  # type: ignore[assignment]
    try:
        with pytest.raises(SimulationError, match=r"gave a float32 result of shape \(0,\) for"):
            sim.run([np.ones(3, np.float32)])
    finally:
        code.plan = real  # the loaded code is shared (cached by its text)


def test_tensor_at_an_address_the_host_cannot_hold() -> None:
    manifest = _call_chain(1)
    manifest["memory_bytes"] = 1 << 50
    manifest["tensors"][1][2] = (1 << 50) - 512  # main's result, at the top of memory
    model = decode(repack(manifest, b""))
    with pytest.raises(MindjitError, match="the host cannot hold"):
        Simulator(model, DeviceConfig(memory_bytes=1 << 50))


class _Timeout(BaseException):
    """Raised by SIGALRM; a BaseException so no `except Exception` swallows it."""


def _alarm(signum: int, frame: Any) -> None:
    raise _Timeout()


needs_alarm = pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="needs SIGALRM")


@needs_alarm
def test_unterminated_string_in_kernel_code_is_rejected_quickly(files: dict[str, bytes]) -> None:
    code = 'builtin.module attributes {a = "' + "x" * 60 + "\n}"
    data = edited(files["mlp"], _code(0, code))
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, 2.0)
    try:
        with pytest.raises(ModelFormatError, match="kernel code does not parse"):
            Simulator(decode(data))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


# -- fuzzing ------------------------------------------------------------------------------

FUZZ_DEVICE = DeviceConfig(memory_bytes=1 << 24)  # mutated sizes past this: a clean refusal
CASE_SECONDS = 2.0


def _inputs(model: DeviceModel, graph: int, rng: np.random.Generator) -> list[Any] | None:
    values: list[Any] = []
    for tid in model.graphs[graph].inputs:
        t = model.tensors[tid]
        if t.nbytes > 1 << 20:
            return None
        dtype = np.dtype(t.dtype)
        if dtype.kind == "b":
            a = rng.random(t.shape) < 0.5
        elif dtype.kind in "iu":
            a = rng.integers(0, 6, t.shape).astype(dtype)
        else:
            a = rng.standard_normal(t.shape).astype(dtype)
        values.append(a[()] if t.scalar else a)
    return values


def _outcome(data: bytes, rng: np.random.Generator) -> str:
    """'rejected' / 'ran' / a skip; any exception but MindjitError escapes."""
    try:
        model = decode(data, "<fuzz>")
    except ModelFormatError:
        return "rejected by decode"
    try:
        sim = Simulator(model, FUZZ_DEVICE)
    except MindjitError:
        return "rejected by Simulator()"
    graph = next(iter(sim.entries.values()))
    inputs = _inputs(model, graph, rng)
    if inputs is None:
        return "skipped: inputs too large"
    try:
        sim.run(inputs)
    except _Timeout:
        return "ran: still running after the time limit"  # a model may loop forever
    except MindjitError:
        return "failed cleanly when run"
    return "ran"


def _check_all(
    cases: list[tuple[str, bytes]], seed: int
) -> tuple[Counter[str], list[tuple[str, str]]]:
    rng = np.random.default_rng(seed)
    outcomes: Counter[str] = Counter()
    failures: list[tuple[str, str]] = []
    use_alarm = hasattr(signal, "setitimer")
    old = signal.signal(signal.SIGALRM, _alarm) if use_alarm else None
    try:
        with np.errstate(all="ignore"):
            for what, data in cases:
                if use_alarm:
                    signal.setitimer(signal.ITIMER_REAL, CASE_SECONDS)
                try:
                    outcomes[_outcome(data, rng)] += 1
                except _Timeout:
                    failures.append((what, "hangs outside run (decode or Simulator())"))
                except Exception as exc:  # noqa: BLE001 - what we look for
                    where = traceback.extract_tb(exc.__traceback__)[-1]
                    failures.append(
                        (what, f"{type(exc).__name__}: {exc} [{where.filename}:{where.lineno}]")
                    )
                finally:
                    if use_alarm:
                        signal.setitimer(signal.ITIMER_REAL, 0)
    finally:
        if use_alarm:
            signal.signal(signal.SIGALRM, old)
    return outcomes, failures


def _report(failures: list[tuple[str, str]], outcomes: Counter[str]) -> str:
    lines = [f"{len(failures)} mutation(s) raised something else than MindjitError:"]
    lines += [f"  {what}\n    -> {error}" for what, error in failures[:8]]
    lines.append(f"outcomes: {dict(outcomes)}")
    return "\n".join(lines)


def _byte_mutation(data: bytes, r: random.Random) -> tuple[str, bytes]:
    b = bytearray(data)
    kind = r.randrange(5)
    if kind == 0:
        flips = [(r.randrange(len(b)), r.randrange(8)) for _ in range(r.randint(1, 4))]
        for i, bit in flips:
            b[i] ^= 1 << bit
        return f"flip bits {flips}", bytes(b)
    if kind == 1:
        i, new = r.randrange(len(b) + 1), bytes(r.randrange(256) for _ in range(r.randint(1, 8)))
        b[i:i] = new
        return f"insert {new!r} at {i}", bytes(b)
    if kind == 2:
        i, n = r.randrange(len(b)), r.randint(1, 16)
        del b[i : i + n]
        return f"delete {n} at {i}", bytes(b)
    if kind == 3:
        i = r.randrange(len(b))
        return f"truncate at {i}", bytes(b[:i])
    i, n = r.randrange(len(b)), r.randint(1, 8)
    new = bytes(r.choice([0, 0xFF, r.randrange(256)]) for _ in range(n))
    b[i : i + n] = new
    return f"overwrite {new!r} at {i}", bytes(b)


BYTE_MUTATIONS = 12_000


def test_fuzz_byte_mutations(files: dict[str, bytes]) -> None:
    """Random byte damage. Even cases mutate the raw file (caught by the header and
    checksum); odd cases mutate the manifest bytes and re-seal the file with right
    lengths and checksum, so the JSON reader and the manifest checks see the damage."""
    r = random.Random(20240611)
    names = sorted(files)
    cases = []
    for n in range(BYTE_MUTATIONS):
        name = names[n % len(names)]
        data = files[name]
        if n % 2 == 0:
            what, mutated = _byte_mutation(data, r)
            cases.append((f"#{n} {name} raw: {what}", mutated))
        else:
            _, _, _, m_len, _, _ = HEADER.unpack_from(data)
            manifest, blob = data[64 : 64 + m_len], data[64 + m_len :]
            what, mutated = _byte_mutation(manifest, r)
            cases.append((f"#{n} {name} manifest bytes, re-sealed: {what}", pack(mutated, blob)))
    outcomes, failures = _check_all(cases, seed=1)
    assert not failures, _report(failures, outcomes)
    assert sum(outcomes.values()) == BYTE_MUTATIONS
    # The fuzzing reaches every stage, not only the checksum.
    assert outcomes["rejected by decode"] > BYTE_MUTATIONS // 2
    assert outcomes["rejected by Simulator()"] > 0
    assert outcomes["ran"] > 0


_KERNEL_OPS = [
    "arith.addf", "arith.subf", "arith.mulf", "arith.divf", "arith.maximumf", "arith.addi",
    "arith.muli", "arith.divsi", "arith.remsi", "arith.shli", "arith.cmpi", "arith.cmpf",
    "arith.select", "arith.sitofp", "arith.fptosi", "arith.truncf", "arith.extf",
    "arith.constant", "math.exp", "math.log", "math.tanh", "math.sqrt", "linalg.matmul",
    "linalg.fill", "linalg.reduce", "linalg.generic", "linalg.transpose", "linalg.yield",
    "tensor.empty", "tensor.extract", "tensor.expand_shape", "scf.yield", "scf.while",
    "scf.condition", "func.return",
]  # fmt: skip

_STRINGS = [
    "", "float16", "int64", "bool", "uint8", "cube", "aicpu", "kernel", "call", "record",
    "wait", "NPUGetFloatStatus", "NPUClearFloatStatus", "mindjit-ascend-sim", "w", "Assign",
]  # fmt: skip


def _mutate_value(v: Any, r: random.Random) -> Any:
    if isinstance(v, bool) or r.random() < 0.1:  # a value of another type
        return r.choice([None, True, False, 0, -1, 1.5, "x", [], {}, [0], 2**63, -(2**40)])
    if isinstance(v, int):
        return r.choice(
            [-1, 0, 1, v + 1, v - 1, 2 * v, -v, 2**31, 2**53, 2**64, 10**30,
             r.randrange(-10, 4096), float(v)]
        )  # fmt: skip
    if isinstance(v, float):
        return r.choice(
            [
                -1.0,
                0.0,
                1e300,
                float("nan"),
                float("inf"),
                v * 1e6,
                round(v) if math.isfinite(v) else 0,
            ]
        )
    if isinstance(v, str):
        if "@kernel" in v and r.random() < 0.6:  # kernel code: another op of the dialects
            ops = re.findall(r"\b(?:arith|math|linalg|tensor|scf|func)\.[a-z_]+", v)
            if ops:
                return v.replace(r.choice(ops), r.choice(_KERNEL_OPS), r.choice([1, -1]))
        if v and r.random() < 0.7:
            i = r.randrange(len(v))
            j = min(len(v), i + r.randint(1, 20))
            extra = r.choice(['"', "\\", "}", "%", "0", "f16", "i64", "\n", "tensor<2xf32>"])
            return r.choice(
                [v[:i] + v[j:], v[:i] + v[i:j][::-1] + v[j:], v[:i] + extra + v[i:], v[:i]]
            )
        return r.choice([*_STRINGS, v + v])
    if isinstance(v, list):
        if not v:
            return r.choice([[0], [None], [[]], [-1]])
        kind = r.randrange(5)
        if kind == 0:
            return v[: r.randrange(len(v))]  # truncated
        if kind == 1:
            return v + copy.deepcopy(v)  # duplicated
        if kind == 2:
            i = r.randrange(len(v))
            return v[:i] + [copy.deepcopy(v[i])] + v[i:]  # one item twice
        if kind == 3:
            return v[::-1]
        return [copy.deepcopy(v[r.randrange(len(v))]) for _ in v]  # shuffled with repeats
    if isinstance(v, dict):
        if v and r.random() < 0.5:
            d = dict(v)
            d.pop(r.choice(sorted(d)))  # a missing field
            return d
        return {**v, r.choice(["extra", "op", "entry", "graph"]): r.choice([1, "call", None])}
    return v


def _locations(obj: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [path]
    if isinstance(obj, dict):
        for k, v in obj.items():
            out += _locations(v, (*path, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            out += _locations(v, (*path, i))
    return out


def _structure_mutation(data: bytes, r: random.Random) -> tuple[str, bytes]:
    manifest, blob = split(data)
    done = []
    for _ in range(r.choice([1, 1, 1, 2, 3])):
        path = r.choice(_locations(manifest)[1:])
        parent = manifest
        for key in path[:-1]:
            parent = parent[key]
        old = parent[path[-1]]
        parent[path[-1]] = new = _mutate_value(old, r)
        done.append(f"{'/'.join(map(str, path))}: {str(old)[:50]!r} -> {str(new)[:50]!r}")
    if r.random() < 0.03:
        blob = blob[: r.randrange(len(blob) + 1)]
        done.append(f"blob cut to {len(blob)} bytes")
    return "; ".join(done), repack(manifest, blob)


STRUCTURE_MUTATIONS = 4_000


def test_fuzz_structure_mutations(files: dict[str, bytes]) -> None:
    """Mutations of the manifest's JSON values (numbers, lists, strings, kernel code,
    types), re-encoded with a valid checksum."""
    r = random.Random(7)
    names = sorted(files)
    cases = []
    for n in range(STRUCTURE_MUTATIONS):
        name = names[n % len(names)]
        what, mutated = _structure_mutation(files[name], r)
        cases.append((f"#{n} {name}: {what}", mutated))
    outcomes, failures = _check_all(cases, seed=2)
    assert not failures, _report(failures, outcomes)
    assert sum(outcomes.values()) == STRUCTURE_MUTATIONS
    assert outcomes["rejected by decode"] > 0
    assert outcomes["rejected by Simulator()"] > 0
    assert outcomes["ran"] > STRUCTURE_MUTATIONS // 10


def test_unmutated_files_run(files: dict[str, bytes]) -> None:
    """The fuzzing's starting points are all runnable (so 'ran' is reachable)."""
    outcomes, failures = _check_all([(name, data) for name, data in files.items()], seed=3)
    assert not failures
    assert outcomes == Counter({"ran": len(files)})
