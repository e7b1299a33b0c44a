"""The safetensors file (`format="safetensors"` of save/load_checkpoint), by hand.

    8 bytes      N, the header's length (little-endian u64)
    N bytes      a JSON object: "__metadata__": {str: str} and, per tensor,
                 name: {"dtype": "F32", "shape": [2, 3], "data_offsets": [begin, end]}
    the rest     the tensors' bytes (C order, little-endian), offsets counted from here

As MindSpore writes it: tensors in name order, metadata {"format": "ms"} (plus
"crc_num" with crc_check: the CRC-32 over each name's UTF-8 then its bytes, in
name order). The header is padded with spaces to 8 bytes, as the safetensors
library pads it. The reader checks what that library checks: the header is a
JSON object, every dtype known, every tensor's bytes its shape's size, and the
offsets tile the data exactly (a truncated or padded file fails), naming the file.
"""

from __future__ import annotations

import binascii
import json
import math
import struct

import numpy as np

from mindjit.frontend.checkpoint_proto import CheckpointError

#: safetensors' dtype names of the dtypes mindjit has (numpy, little-endian)
DTYPES = {
    "BOOL": np.dtype(np.bool_),
    "I8": np.dtype("<i1"),
    "I16": np.dtype("<i2"),
    "I32": np.dtype("<i4"),
    "I64": np.dtype("<i8"),
    "U8": np.dtype("<u1"),
    "U16": np.dtype("<u2"),
    "U32": np.dtype("<u4"),
    "U64": np.dtype("<u8"),
    "F16": np.dtype("<f2"),
    "F32": np.dtype("<f4"),
    "F64": np.dtype("<f8"),
}
_NAMES = {dt.newbyteorder("="): name for name, dt in DTYPES.items()}
_FOREIGN = ("BF16", "F8_E4M3", "F8_E5M2", "C64")


def crc(arrays: dict[str, np.ndarray]) -> int:
    """MindSpore's crc_num: over each name then its bytes, in name order."""
    value = 0
    for name in sorted(arrays):
        arr = arrays[name]
        raw = np.ascontiguousarray(arr, dtype=arr.dtype.newbyteorder("<")).tobytes()
        value = binascii.crc32(raw, binascii.crc32(name.encode(), value))
    return value


def encode(arrays: dict[str, np.ndarray], metadata: dict[str, str] | None) -> bytes:
    header: dict[str, object] = {"__metadata__": metadata} if metadata else {}
    blobs, offset = [], 0
    for name in sorted(arrays):
        arr = arrays[name]
        raw = np.ascontiguousarray(arr, dtype=arr.dtype.newbyteorder("<")).tobytes()
        header[name] = {
            "dtype": _NAMES[arr.dtype.newbyteorder("=")],
            "shape": list(arr.shape),
            "data_offsets": [offset, offset + len(raw)],
        }
        blobs.append(raw)
        offset += len(raw)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + b"".join(blobs)


def decode(data: bytes, path: str) -> tuple[dict[str, str], dict[str, np.ndarray]]:
    """(metadata, name -> array) of a safetensors file's bytes."""

    def bad(message: str) -> CheckpointError:
        return CheckpointError(f"not a valid safetensors file: {message}", path)

    if len(data) < 8:
        raise bad(f"{len(data)} bytes, shorter than the 8-byte header length")
    (size,) = struct.unpack_from("<Q", data)
    if size > len(data) - 8:
        raise bad(f"the header announces {size} bytes, {len(data) - 8} follow")
    try:
        header = json.loads(data[8 : 8 + size].decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise bad(f"the header is not JSON ({exc})") from None
    if not isinstance(header, dict):
        raise bad("the header is not a JSON object")
    metadata = header.pop("__metadata__", None) or {}
    if not isinstance(metadata, dict) or not all(isinstance(v, str) for v in metadata.values()):
        raise bad("__metadata__ is not an object of strings")
    body = memoryview(data)[8 + size :]
    arrays, spans = {}, []
    for name, info in header.items():
        try:
            kind, shape, (begin, end) = info["dtype"], info["shape"], info["data_offsets"]
            dims = [int(d) for d in shape]
        except (TypeError, KeyError, ValueError):
            raise bad(f"the entry of '{name}' is not a dtype, shape and data_offsets") from None
        if kind not in DTYPES:
            what = "a dtype mindjit has no dtype for" if kind in _FOREIGN else "an unknown dtype"
            raise CheckpointError(f"'{name}' has dtype '{kind}', {what}", path)
        need = math.prod(dims) * DTYPES[kind].itemsize
        bounded = 0 <= begin <= end <= len(body)
        if min(dims, default=0) < 0 or not bounded or end - begin != need:
            raise bad(
                f"'{name}' spans bytes [{begin}, {end}), its shape {tuple(dims)} needs {need}"
            )
        spans.append((begin, end))
        raw = bytes(body[begin:end])
        if kind == "BOOL":
            arr = np.frombuffer(raw, np.uint8) != 0
        else:
            arr = np.frombuffer(raw, DTYPES[kind]).astype(DTYPES[kind].newbyteorder("="))
        arrays[name] = arr.reshape(dims)
    covered = 0
    for begin, end in sorted(spans):
        if begin != covered:
            raise bad(f"the tensors' bytes do not tile the data (a gap or overlap at {begin})")
        covered = end
    if covered != len(body):
        raise bad(f"the tensors hold {covered} bytes of data, the file has {len(body)}")
    return metadata, arrays
