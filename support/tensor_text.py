"""How a Tensor prints, as MindSpore prints it: the text `mindir.print` writes in
graph mode (the CPU executor's print runtime) and `print(tensor)` in PyNative mode.

    Tensor(shape=[3], dtype=Float32, value=[-4.01971531e+00 -5.79053342e-01  3.41115999e+00])
    Tensor(shape=[], dtype=Int64, value=5)
    Tensor(shape=[2, 2], dtype=Int32, value=
    [[1 2]
     [3 4]])

The layout is MindSpore's `Tensor::ToStringNoLimit` / `TensorStringifier`, in
one place for both modes (frontend/printing.py adds what only the frontend
needs): floats in a right-aligned `%15.8e` field (`%11.4e` for float16), ints
right-aligned to the widest printed value, bools in a 5-wide field, 0-d values
plain (`%g` for floats), a line feed every 12 floats / 24 ints / 12 bools of a
1-D tensor, only the first and last 3 entries of an axis longer than 6 when
rank > 1 (of a 1-D tensor longer than 1000), and the value of a tensor of rank 2
or more on a new line.

`format_tensor` and `format_data` are pure functions of the array;
`default_print_hook` is what `CpuExecutable.print_hook` starts as.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

THRESHOLD = 6  # kThreshold: rank > 1 axes longer than this are summarized
THRESHOLD_1D = 1000  # kThreshold1D: 1-D tensors longer than this are summarized
_LINE_FEED = {"f": THRESHOLD * 2, "b": THRESHOLD * 2}  # every other kind: THRESHOLD * 4

_MS_NAMES = {
    "bool": "Bool",
    "int8": "Int8",
    "int16": "Int16",
    "int32": "Int32",
    "int64": "Int64",
    "uint8": "UInt8",
    "uint16": "UInt16",
    "uint32": "UInt32",
    "uint64": "UInt64",
    "float16": "Float16",
    "float32": "Float32",
    "float64": "Float64",
}


def dtype_name(dtype: Any) -> str:
    """MindSpore's name of a numpy dtype (`Float32`, `Int64`, `Bool`, ...)."""
    np_dtype = np.dtype(dtype)
    return _MS_NAMES.get(np_dtype.name, np_dtype.name)


def shape_string(shape: Iterable[int]) -> str:
    return "[" + ", ".join(str(int(d)) for d in shape) + "]"


def format_tensor(arr: np.ndarray, name: str | None = None) -> str:
    """`Tensor(shape=[...], dtype=Name, value=...)` as graph-mode print shows it;
    `name` overrides the dtype name taken from the array."""
    arr = np.asarray(arr)
    sep = "\n" if arr.ndim > 1 else ""
    return (
        f"Tensor(shape={shape_string(arr.shape)}, dtype={name or dtype_name(arr.dtype)}, "
        f"value={sep}{format_data(arr, use_comma=False)})"
    )


def format_data(arr: np.ndarray, use_comma: bool = False) -> str:
    """The `value=` part (MindSpore's `TensorStringifier::ToString`); `use_comma`
    gives the `repr(Tensor)` flavour."""
    arr = np.asarray(arr)
    if arr.size == 0:
        return ""
    if arr.ndim == 0:
        return _scalar_text(arr[()])
    return _Stringifier(arr, use_comma).run()


def _scalar_text(value: Any) -> str:
    if isinstance(value, np.bool_ | bool):
        return "True" if value else "False"
    if isinstance(value, np.floating | float):
        v = float(value)
        return "nan" if np.isnan(v) else f"{v:g}"  # C++ `ostream << double`
    return str(int(value))


class _Pad(str):
    """An int's text, right-aligned to the widest int once all are known."""


class _Stringifier:
    """One pass over the flat data in C order, writing the nested bracket layout."""

    def __init__(self, arr: np.ndarray, use_comma: bool):
        self.shape = arr.shape
        self.ndim = arr.ndim
        self.flat = arr.reshape(-1)
        self.kind = arr.dtype.kind
        self.use_comma = use_comma
        self.line_feed = _LINE_FEED.get(self.kind, THRESHOLD * 4)
        self.out: list[str] = []
        self.cursor = 0
        self.int_width = 0
        if self.kind == "f":
            width, precision = (11, 4) if arr.dtype == np.float16 else (15, 8)
            self.float_fmt = f"%{width}.{precision}e"

    def run(self) -> str:
        self.recurse(0)
        width = self.int_width
        return "".join(p.rjust(width) if isinstance(p, _Pad) else p for p in self.out)

    def element(self, value: Any) -> None:
        if self.kind == "f":
            self.out.append(self.float_fmt % float(value))
        elif self.kind == "b":
            self.out.append(f"{'True' if value else 'False':>5}")
        else:
            text = str(int(value))
            self.int_width = max(self.int_width, len(text))
            self.out.append(_Pad(text))

    def data(self, start: int, end: int) -> None:
        """`OutputDataString`: elements [start, end) of the row at `cursor`."""
        for i in range(start, end):
            if self.cursor + i >= self.flat.size:
                break
            self.element(self.flat[self.cursor + i])
            if i != end - 1:
                self.out.append(", " if self.use_comma else " ")
            if self.ndim == 1 and end - start > (THRESHOLD >> 1) and (i + 1) % self.line_feed == 0:
                self.out.append("\n ")

    def newline(self, depth: int, comma: bool) -> None:
        self.out.append(("," if comma else "") + "\n" + " " * (depth + 1))

    def recurse(self, depth: int) -> None:
        self.out.append("[")
        num = self.shape[depth]
        half = THRESHOLD >> 1
        if depth == self.ndim - 1:
            if (num > THRESHOLD and self.ndim > 1) or (num > THRESHOLD_1D and self.ndim == 1):
                self.data(0, half)
                self.out.append(" ... ")
                self.data(num - half, num)
            else:
                self.data(0, num)
            self.cursor += num
        else:
            for i in range(min(half, num)):
                if i > 0:
                    self.newline(depth, self.use_comma)
                self.recurse(depth + 1)
            if num > THRESHOLD:
                self.newline(depth, self.use_comma)
                self.out.append("...")
                inner = int(np.prod(self.shape[depth + 1 :]))
                self.cursor += inner * (num - THRESHOLD)
            if num > half:
                for i in range(min(num - half, half)):
                    comma = self.use_comma and (i != 0 or num <= THRESHOLD)
                    self.newline(depth, comma)
                    self.recurse(depth + 1)
        self.out.append("]")


def format_item(item: str | np.ndarray) -> str:
    """A print item as a line: strings as they are, arrays by `format_tensor`."""
    return item if isinstance(item, str) else format_tensor(item)


def default_print_hook(items: Sequence[str | np.ndarray]) -> None:
    """Write each item on its own line to stdout, then flush."""
    out = sys.stdout
    out.write("".join(format_item(item) + "\n" for item in items))
    out.flush()
