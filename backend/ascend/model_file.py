"""The model file: a versioned binary container, checked before anything runs.

    offset  size  field
    0       8     magic b"MSMODEL\\0"
    8       4     format version (little-endian u32), FORMAT_VERSION
    12      4     flags (0)
    16      8     manifest length M (u64)
    24      8     blob length B (u64)
    32      32    SHA-256 of the M + B bytes that follow
    64      M     manifest: UTF-8 JSON (backend/ascend/model.py says what is in it)
    64+M    B     blob: Parameter initial values and constants, raw little-endian

No pickle: reading never runs code from the file. `read_model` rejects a
truncated, corrupted (checksum), foreign (magic) or newer (version) file and
every inconsistency `DeviceModel.from_manifest` finds, with `ModelFormatError`.
`write_model` writes a temporary file and renames it.
"""

from __future__ import annotations

import hashlib
import json
import struct

from mindjit.backend.ascend.model import DeviceModel, ModelFormatError
from mindjit.tools.files import write_atomic

MAGIC = b"MSMODEL\0"
FORMAT_VERSION = 1
HEADER = struct.Struct("<8sIIQQ32s")


def encode(model: DeviceModel) -> bytes:
    manifest = json.dumps(model.manifest(), separators=(",", ":")).encode()
    digest = hashlib.sha256(manifest + model.blob).digest()
    return HEADER.pack(MAGIC, FORMAT_VERSION, 0, len(manifest), len(model.blob), digest) + (
        manifest + model.blob
    )


def decode(data: bytes, source: str = "<model>") -> DeviceModel:
    try:
        return _decode(data)
    except ModelFormatError as err:
        raise ModelFormatError(f"invalid model file: {err.message}", source) from None


def _decode(data: bytes) -> DeviceModel:
    if len(data) < HEADER.size:
        raise ModelFormatError(f"truncated: {len(data)} bytes, shorter than the header")
    magic, version, flags, m_len, b_len, digest = HEADER.unpack_from(data)
    if magic != MAGIC:
        raise ModelFormatError("not a mindjit device model (bad magic)")
    if version != FORMAT_VERSION:
        raise ModelFormatError(
            f"format version {version}, this reader reads version {FORMAT_VERSION}"
        )
    if flags != 0:
        raise ModelFormatError(f"unknown flags {flags:#x}")
    if HEADER.size + m_len + b_len != len(data):
        raise ModelFormatError(
            f"truncated or padded: the header announces {HEADER.size + m_len + b_len} "
            f"bytes, the file has {len(data)}"
        )
    body = memoryview(data)[HEADER.size :]
    if hashlib.sha256(body).digest() != digest:
        raise ModelFormatError("checksum mismatch: the file is corrupted")
    try:
        manifest = json.loads(bytes(body[:m_len]).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise ModelFormatError(f"the manifest is not valid JSON ({exc})") from None
    return DeviceModel.from_manifest(manifest, bytes(body[m_len:]))


def write_model(model: DeviceModel, path: str) -> None:
    write_atomic(path, encode(model))


def read_model(path: str) -> DeviceModel:
    from mindjit.dialects.diagnostics import MindjitError

    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as exc:
        raise MindjitError(f"cannot read model file: {exc.strerror}", path) from None
    return decode(data, path)
