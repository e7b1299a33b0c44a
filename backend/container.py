"""The binary container of mindjit's files (device models, compile-cache entries).

    offset  size  field
    0       8     magic (8 bytes: says which kind of file this is)
    8       4     format version (little-endian u32)
    12      4     flags (0)
    16      8     manifest length M (u64)
    24      8     blob length B (u64)
    32      32    SHA-256 of the M + B bytes that follow
    64      M     manifest: UTF-8 JSON
    64+M    B     blob: raw bytes the manifest points into

No pickle: reading never runs code from the file. `unpack` rejects a truncated,
corrupted (checksum), foreign (magic) or newer (version) file before anything
in it is looked at.
"""

from __future__ import annotations

import hashlib
import json
import struct
from typing import Any

from mindjit.support.errors import MindjitError

HEADER = struct.Struct("<8sIIQQ32s")


class ContainerError(MindjitError):
    """A file that is not a well-formed container of the expected kind."""


def pack(magic: bytes, version: int, manifest: dict[str, Any], blob: bytes) -> bytes:
    text = json.dumps(manifest, separators=(",", ":")).encode()
    digest = hashlib.sha256(text + blob).digest()
    return HEADER.pack(magic, version, 0, len(text), len(blob), digest) + text + blob


def unpack(
    data: bytes,
    magic: bytes,
    version: int,
    kind: str,
    error: type[MindjitError] = ContainerError,
) -> tuple[Any, bytes]:
    """(manifest, blob) of a container of this `kind` (e.g. 'mindjit device model');
    anything else raises `error`."""
    if len(data) < HEADER.size:
        raise error(f"truncated: {len(data)} bytes, shorter than the header")
    found, found_version, flags, m_len, b_len, digest = HEADER.unpack_from(data)
    if found != magic:
        raise error(f"not a {kind} (bad magic)")
    if found_version != version:
        raise error(f"format version {found_version}, this reader reads version {version}")
    if flags != 0:
        raise error(f"unknown flags {flags:#x}")
    if HEADER.size + m_len + b_len != len(data):
        raise error(
            f"truncated or padded: the header announces {HEADER.size + m_len + b_len} "
            f"bytes, the file has {len(data)}"
        )
    body = memoryview(data)[HEADER.size :]
    if hashlib.sha256(body).digest() != digest:
        raise error("checksum mismatch: the file is corrupted")
    try:
        manifest = json.loads(bytes(body[:m_len]).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise error(f"the manifest is not valid JSON ({exc})") from None
    return manifest, bytes(body[m_len:])
