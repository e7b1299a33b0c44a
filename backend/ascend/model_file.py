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

from mindjit.backend.ascend.model import DeviceModel, ModelFormatError
from mindjit.backend.container import HEADER, pack, unpack
from mindjit.support.errors import MindjitError
from mindjit.support.files import write_atomic

MAGIC = b"MSMODEL\0"
#: 2: the comm unit and each kernel's `channel` (Send / Receive), see model.py.
FORMAT_VERSION = 2
__all__ = ["HEADER", "MAGIC", "FORMAT_VERSION", "encode", "decode", "read_model", "write_model"]


def encode(model: DeviceModel) -> bytes:
    return pack(MAGIC, FORMAT_VERSION, model.manifest(), model.blob)


def decode(data: bytes, source: str = "<model>") -> DeviceModel:
    try:
        manifest, blob = unpack(
            data, MAGIC, FORMAT_VERSION, "mindjit device model", ModelFormatError
        )
        return DeviceModel.from_manifest(manifest, blob)
    except ModelFormatError as err:
        raise ModelFormatError(f"invalid model file: {err.message}", source) from None


def write_model(model: DeviceModel, path: str) -> None:
    write_atomic(path, encode(model))


def read_model(path: str) -> DeviceModel:

    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as exc:
        raise MindjitError(f"cannot read model file: {exc.strerror}", path) from None
    return decode(data, path)
