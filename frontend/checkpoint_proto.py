"""MindSpore's `.ckpt` file: its protobuf message, encoded and decoded by hand.

The schema (mindspore/ccsrc/utils/checkpoint.proto, proto2):

    message Checkpoint {
      message Value {
        required string tag = 1;
        oneof value { TensorProto tensor = 2; MapTensorProto maptensor = 3; }
      }
      repeated Value value = 1;
    }
    message TensorProto {
      repeated int64 dims = 1;            // proto2, not [packed]: one key per dim
      required string tensor_type = 2;    // "Float32", "Int32", "Bool", ... or "str"
      required bytes tensor_content = 3;  // the elements in C order, little-endian
    }

What MindSpore writes, and so what `encode` writes byte for byte (a golden test
pins it): per parameter one serialized `Checkpoint` holding one `Value`,
appended to the file (concatenated messages merge their repeated field, so the
file is one Checkpoint), fields in field-number order. A 0-d tensor has no dims
(MindSpore 1.x wrote [0]; its reader and this one take [0] with one element's
bytes as 0-d). Content of more than 512 MiB is split over several Values with
one tag, joined again by the reader. `crc_check` appends b"crc_num" and the
CRC-32 of all the bytes before it (10 bytes, big-endian); readers strip that
trailer whether or not they check it.

No protobuf dependency: the format needs varints and length-delimited fields.
The decoder rejects what protobuf's parser rejects (a truncated field, an
overlong varint, a missing required field, a wire type 6 or 7) and groups,
which the format never uses (the trailer's b"c" is a group's start key: that is
how an unstripped trailer shows), each with its byte offset; unknown fields are
skipped, as protobuf does.
"""

from __future__ import annotations

import binascii
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from mindjit.support.errors import MindjitError

#: content above this is split over several Values (MindSpore's 1024 * SLICE_SIZE)
CHUNK = 512 << 20
CRC_MARK = b"crc_num"
_CRC_LEN = 10  # bytes of the big-endian CRC after the mark


class CheckpointError(MindjitError, ValueError):
    """A checkpoint file that cannot be read, located at the file (a ValueError,
    as MindSpore raises for a bad checkpoint)."""


@dataclass
class Entry:
    """One tensor (or str) of a checkpoint: its Values' content joined."""

    tag: str
    dims: list[int]
    tensor_type: str
    content: bytes
    map_tensor: bool = False  # a MapParameter's Value (maptensor), not read further


# -- encoding -----------------------------------------------------------------------------


def _varint(n: int) -> bytes:
    n &= (1 << 64) - 1  # int64 as protobuf writes it: two's complement, 10 bytes if negative
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _field(number: int, payload: bytes) -> bytes:
    """A length-delimited field (wire type 2)."""
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def encode_value(tag: str, dims: Sequence[int], tensor_type: str, content: bytes) -> bytes:
    """One `Checkpoint` holding one `Value` (what MindSpore appends per chunk)."""
    tensor = b"".join(_varint(1 << 3) + _varint(d) for d in dims)
    tensor += _field(2, tensor_type.encode()) + _field(3, content)
    return _field(1, _field(1, tag.encode()) + _field(2, tensor))


def encode(
    entries: Iterable[tuple[str, Sequence[int], str, bytes]],
    crc_check: bool = False,
    chunk: int = CHUNK,
) -> bytes:
    """The file's bytes: each entry's content in chunks of at most `chunk` bytes
    (an empty content is one Value), then the CRC trailer if asked for."""
    parts = []
    for tag, dims, tensor_type, content in entries:
        view = memoryview(content)
        for start in range(0, max(len(view), 1), chunk):
            parts.append(encode_value(tag, dims, tensor_type, bytes(view[start : start + chunk])))
    body = b"".join(parts)
    if crc_check:
        body += CRC_MARK + binascii.crc32(body).to_bytes(_CRC_LEN, "big")
    return body


# -- decoding -----------------------------------------------------------------------------


class _Malformed(Exception):
    def __init__(self, offset: int, message: str):
        super().__init__(message)
        self.offset, self.message = offset, message


def _read_varint(buf: memoryview, pos: int, end: int) -> tuple[int, int]:
    start, result, shift = pos, 0, 0
    while True:
        if pos >= end:
            raise _Malformed(start, "truncated varint")
        byte = buf[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result & ((1 << 64) - 1), pos
        shift += 7
        if shift >= 70:
            raise _Malformed(start, "varint longer than 10 bytes")


def _fields(buf: memoryview, pos: int, end: int) -> Iterator[tuple[int, int, int, object]]:
    """(offset, field number, wire type, value) of each field in buf[pos:end]; a
    length-delimited value is its (start, end)."""
    while pos < end:
        at = pos
        key, pos = _read_varint(buf, pos, end)
        number, wire = key >> 3, key & 7
        if number == 0:
            raise _Malformed(at, "field number 0")
        if wire == 0:
            value, pos = _read_varint(buf, pos, end)
        elif wire in (1, 5):
            size = 8 if wire == 1 else 4
            if end - pos < size:
                raise _Malformed(at, f"truncated {size}-byte field {number}")
            value, pos = None, pos + size
        elif wire == 2:
            length, pos = _read_varint(buf, pos, end)
            if length > end - pos:
                raise _Malformed(at, f"field {number} announces {length} bytes, {end - pos} left")
            value, pos = (pos, pos + length), pos + length
        else:
            what = "a group (never in a checkpoint)" if wire in (3, 4) else "invalid"
            raise _Malformed(at, f"field {number} has wire type {wire}: {what}")
        yield at, number, wire, value


def _text(buf: memoryview, span: tuple[int, int], at: int, what: str) -> str:
    try:
        return bytes(buf[span[0] : span[1]]).decode("utf-8")
    except UnicodeDecodeError:
        raise _Malformed(at, f"{what} is not UTF-8") from None


def _expect(wire: int, want: int, at: int, what: str) -> None:
    if wire != want:
        raise _Malformed(at, f"{what} has wire type {wire}, not {want}")


def _tensor(buf: memoryview, start: int, end: int, entry: Entry) -> None:
    seen = set()
    for at, number, wire, value in _fields(buf, start, end):
        if number == 1 and wire == 0:
            dim = value if value < 1 << 63 else value - (1 << 64)  # type: ignore[operator]
            if dim < 0:
                raise _Malformed(at, f"'{entry.tag}' has a negative dimension {dim}")
            entry.dims.append(dim)
        elif number == 1 and wire == 2:  # packed dims: parsers accept them too
            pos, stop = value  # type: ignore[misc]
            while pos < stop:
                dim, pos = _read_varint(buf, pos, stop)
                if dim >= 1 << 63:
                    raise _Malformed(at, f"'{entry.tag}' has a negative dimension")
                entry.dims.append(dim)
        elif number == 2:
            _expect(wire, 2, at, "tensor_type")
            entry.tensor_type = _text(buf, value, at, "tensor_type")  # type: ignore[arg-type]
        elif number == 3:
            _expect(wire, 2, at, "tensor_content")
            entry.content = bytes(buf[value[0] : value[1]])  # type: ignore[index]
        else:
            continue
        seen.add(number)
    for number, name in ((2, "tensor_type"), (3, "tensor_content")):
        if number not in seen:
            raise _Malformed(start, f"the tensor of '{entry.tag}' has no {name}")


def _value(buf: memoryview, start: int, end: int) -> Entry:
    entry = Entry("", [], "", b"")
    tag_seen, body = False, None
    for at, number, wire, value in _fields(buf, start, end):
        if number == 1:
            _expect(wire, 2, at, "a Value's tag")
            entry.tag, tag_seen = _text(buf, value, at, "a Value's tag"), True  # type: ignore[arg-type]
        elif number in (2, 3):
            _expect(wire, 2, at, "a Value's tensor")
            body, entry.map_tensor = value, number == 3
    if not tag_seen:
        raise _Malformed(start, "a Value has no tag")
    if body is None:
        raise _Malformed(start, f"the Value '{entry.tag}' has no tensor")
    if not entry.map_tensor:
        _tensor(buf, body[0], body[1], entry)
    return entry


def strip_crc(data: bytes) -> tuple[bytes, int | None]:
    """(the protobuf bytes, the CRC the trailer records or None)."""
    if data[-(len(CRC_MARK) + _CRC_LEN) : -_CRC_LEN] == CRC_MARK:
        cut = len(data) - len(CRC_MARK) - _CRC_LEN
        return data[:cut], int.from_bytes(data[-_CRC_LEN:], "big")
    return data, None


def crc_matches(body: bytes, crc: int) -> bool:
    return binascii.crc32(body) == crc


def decode(body: bytes, path: str) -> list[Entry]:
    """The entries of a checkpoint's protobuf bytes (trailer stripped), consecutive
    Values of one tag joined; malformed bytes raise CheckpointError at `path`."""
    buf = memoryview(body)
    out: list[Entry] = []
    try:
        for at, number, wire, value in _fields(buf, 0, len(buf)):
            if number != 1:
                continue
            _expect(wire, 2, at, "a Checkpoint's value")
            entry = _value(buf, value[0], value[1])  # type: ignore[index]
            last = out[-1] if out else None
            if last is not None and last.tag == entry.tag and not entry.map_tensor:
                last.content += entry.content  # a chunk of the same tensor
            else:
                out.append(entry)
    except _Malformed as err:
        raise CheckpointError(
            f"not a valid MindSpore checkpoint (byte {err.offset}: {err.message}); "
            "the file may be truncated or corrupted",
            path,
        ) from None
    return out
