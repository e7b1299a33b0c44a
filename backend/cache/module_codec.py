"""A binary form of an xDSL module, for the compile cache's warm path.

Reading MLIR text back costs hundreds of microseconds per op in xDSL; this form
reads one in tens. Attributes and types are stored once each in a table (most
repeat thousands of times: tensor types, affine maps, locations): the common
builtin kinds as small JSON records built without parsing, the rest as MLIR text
parsed once. Dense literals keep their raw bytes. The ops are one flat integer
stream in pre-order:

    op     := name loc n_operands value* n_results attr* 2*n_props (key attr)*
              2*n_attrs (key attr)* n_successors block* n_regions region*
    region := n_blocks (n_args attr*)* (n_ops op*) per block

Values are numbered in definition order (a region's block arguments when the
region starts, an op's results after its regions). A use before its definition
(a graph region, a block listed before its dominator) refers to a placeholder
whose type the `forward` table gives; it is replaced when the value appears.

`decode` trusts nothing: every index is checked, and any inconsistency is a
`ModuleFormatError`, never an IndexError or a half-built module.
"""

from __future__ import annotations

import io
from array import array
from typing import Any

from xdsl.context import Context
from xdsl.dialects.builtin import (
    ArrayAttr,
    BFloat16Type,
    BytesAttr,
    DenseIntOrFPElementsAttr,
    DenseResourceAttr,
    DictionaryAttr,
    FileLineColLoc,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    FunctionType,
    IndexType,
    IntAttr,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    NoneAttr,
    Signedness,
    StringAttr,
    SymbolRefAttr,
    TensorType,
    UnitAttr,
    UnknownLoc,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.parser import Parser
from xdsl.parser.core import ForwardDeclaredValue
from xdsl.printer import Printer

from mindjit.dialects.parsing import at_end
from mindjit.ir import interned
from mindjit.ir.compat.unchecked_attrs import unchecked
from mindjit.support.errors import MindjitError

#: The float types stored by name (a tensor type's element is almost always one).
_FLOATS = {BFloat16Type: "bf16", Float16Type: "f16", Float32Type: "f32", Float64Type: "f64"}
_FLOAT_NAMES = {name: cls for cls, name in _FLOATS.items()}


class ModuleFormatError(MindjitError):
    """Bytes that are not a module this codec wrote."""


class Encoded:
    """A module as (attribute table, op stream, forward types, blob of dense bytes,
    value names: the `%x` spellings a printed module keeps)."""

    def __init__(
        self,
        attrs: list[Any],
        ops: bytes,
        forward: dict[str, int],
        blob: bytes,
        names: dict[str, str] | None = None,
    ):
        self.attrs, self.ops, self.forward, self.blob = attrs, ops, forward, blob
        self.names = names or {}


# -- encoding ------------------------------------------------------------------------


class _Encoder:
    def __init__(self) -> None:
        self.attrs: list[Any] = []
        self.by_id: dict[int, int] = {}
        self.by_value: dict[Attribute, int] = {}
        self.keep: list[Attribute] = []  # the ids in by_id stay these objects'
        self.blob = io.BytesIO()
        self.ints: list[int] = []
        self.values: dict[SSAValue, int] = {}
        self.forward: dict[str, int] = {}
        self.names: dict[str, int] = {}
        self.blocks: dict[Block, int] = {}
        self.defined = 0  # values numbered below this are defined where the stream is
        self.value_names: dict[str, str] = {}

    def attr(self, a: Attribute) -> int:
        found = self.by_id.get(id(a))
        if found is not None:
            return found
        found = self.by_value.get(a)
        if found is None:
            record = self._record(a)
            found = self.by_value[a] = len(self.attrs)
            self.attrs.append(record)
        self.by_id[id(a)] = found
        self.keep.append(a)
        return found

    def _record(self, a: Attribute) -> Any:
        cls = type(a)
        if cls is StringAttr:
            return ["s", a.data]
        if cls is IntAttr:
            return ["n", a.data]
        if cls is UnitAttr:
            return ["u"]
        if cls is UnknownLoc:
            return ["unk"]
        if cls is FileLineColLoc:
            return ["loc", a.filename.data, a.line.data, a.column.data]
        if cls is SymbolRefAttr:
            return ["sym", a.root_reference.data, [r.data for r in a.nested_references.data]]
        if cls is ArrayAttr:
            return ["a", [self.attr(x) for x in a.data]]
        if cls is DictionaryAttr:
            return ["d", [[k, self.attr(v)] for k, v in a.data.items()]]
        if cls is IntegerAttr:
            return ["i", a.value.data, self.attr(a.type)]
        if cls is FloatAttr:
            return ["f", float(a.value.data).hex(), self.attr(a.type)]
        if cls is DenseIntOrFPElementsAttr:
            start = self.blob.tell()
            self.blob.write(a.data.data)
            return ["dense", self.attr(a.type), start, len(a.data.data)]
        if cls is DenseResourceAttr:  # kept by name: parsing would rename the handle
            return ["res", a.resource_handle.data, self.attr(a.type)]
        if cls is TensorType and isinstance(a.encoding, NoneAttr):
            return ["tensor", [d.data for d in a.shape.data], self.attr(a.element_type)]
        if cls in _FLOATS:
            return ["float", _FLOATS[cls]]
        if cls is IntegerType:
            return ["int", a.width.data, a.signedness.data.value]
        if cls is IndexType:
            return ["index"]
        if cls is FunctionType:
            ins, outs = a.inputs.data, a.outputs.data
            return ["fn", [self.attr(x) for x in ins], [self.attr(x) for x in outs]]
        stream = io.StringIO()
        Printer(stream=stream).print_attribute(a)
        return ["t", stream.getvalue()]

    def name(self, text: str) -> int:
        found = self.names.get(text)
        if found is None:
            found = self.names[text] = self.attr(StringAttr(text))
        return found

    def number(self, op: Operation) -> None:
        """Number every value in the order `decode` defines them."""
        for region in op.regions:
            for block in region.blocks:
                for arg in block.args:
                    self._number(arg)
            for block in region.blocks:
                for inner in block.ops:
                    self.number(inner)
        for r in op.results:
            self._number(r)

    def _number(self, v: SSAValue) -> None:
        if v.name_hint is not None:
            self.value_names[str(len(self.values))] = v.name_hint
        self.values[v] = len(self.values)

    def value(self, v: SSAValue) -> int:
        found = self.values[v]
        if found >= self.defined:  # used before defined: typed in `forward`
            self.forward[str(found)] = self.attr(v.type)
        return found

    def op(self, op: Operation) -> None:
        out = self.ints
        out.append(self.name(op.name))
        out.append(self.attr(op.location))
        out.append(len(op.operands))
        out.extend(self.value(v) for v in op.operands)
        out.append(len(op.results))
        out.extend(self.attr(r.type) for r in op.results)
        for table in (op.properties, op.attributes):
            out.append(2 * len(table))
            for key, attr in table.items():
                out.append(self.name(key))
                out.append(self.attr(attr))
        out.append(len(op.successors))
        for block in op.successors:
            out.append(self.blocks[block])
        out.append(len(op.regions))
        for region in op.regions:
            self.region(region)
        self.defined += len(op.results)

    def region(self, region: Region) -> None:
        blocks = list(region.blocks)
        self.ints.append(len(blocks))
        for block in blocks:
            self.blocks[block] = len(self.blocks)
            self.ints.append(len(block.args))
            for arg in block.args:
                self.ints.append(self.attr(arg.type))
            self.defined += len(block.args)
        for block in blocks:
            ops = list(block.ops)
            self.ints.append(len(ops))
            for op in ops:
                self.op(op)


def encode(module: ModuleOp) -> Encoded:
    enc = _Encoder()
    enc.number(module)
    enc.op(module)
    ops = array("q", enc.ints).tobytes()
    return Encoded(enc.attrs, ops, enc.forward, enc.blob.getvalue(), enc.value_names)


# -- decoding ------------------------------------------------------------------------


def decode(encoded: Encoded, ctx: Context) -> ModuleOp:
    try:
        module = _Decoder(encoded, ctx).run()
    except ModuleFormatError:
        raise
    except MindjitError as err:
        raise ModuleFormatError(f"damaged module: {err.message}") from None
    except Exception as exc:  # noqa: BLE001 - damaged bytes can fail anywhere in xDSL
        raise ModuleFormatError(f"damaged module: {type(exc).__name__}: {exc}") from None
    if not isinstance(module, ModuleOp):
        raise ModuleFormatError("damaged module: the top op is not a builtin.module")
    return module


class _Decoder:
    def __init__(self, encoded: Encoded, ctx: Context):
        self.ctx = ctx
        self.records = encoded.attrs
        self.blob = encoded.blob
        if not isinstance(self.records, list) or not all(
            isinstance(t, dict) for t in (encoded.forward, encoded.names)
        ):
            raise ModuleFormatError("damaged module: bad tables")
        self.table: list[Attribute | None] = [None] * len(self.records)
        stream = array("q")
        if len(encoded.ops) % stream.itemsize:
            raise ModuleFormatError("damaged module: the op stream is cut")
        stream.frombytes(encoded.ops)
        self.ints = stream.tolist()
        self.pos = 0
        self.forward = {int(k): v for k, v in encoded.forward.items()}
        self.names = {int(k): checked_str(v) for k, v in encoded.names.items()}
        self.values: list[SSAValue | None] = []
        self.pending: dict[int, ForwardDeclaredValue] = {}
        self.blocks: list[Block] = []
        self.op_types: dict[int, type[Operation]] = {}
        self.depth = 0

    def run(self) -> Operation:
        op = self.op()
        if self.pos != len(self.ints):
            raise ModuleFormatError("damaged module: trailing data after the module")
        if self.pending:
            raise ModuleFormatError("damaged module: a value is used but never defined")
        return op

    def next(self) -> int:
        v = self.ints[self.pos]
        self.pos += 1
        return v

    def count(self) -> int:
        n = self.next()
        if n < 0 or n > len(self.ints):
            raise ModuleFormatError(f"damaged module: count {n}")
        return n

    def attr(self, i: int) -> Attribute:
        if i < 0:
            raise ModuleFormatError(f"damaged module: attribute {i}")
        a = self.table[i]
        if a is None:
            self.depth += 1
            if self.depth > 200:
                raise ModuleFormatError("damaged module: attributes nest too deeply")
            a = self.table[i] = self._build(self.records[i])
            self.depth -= 1
        return a

    def string(self, i: int) -> str:
        a = self.attr(i)
        if not isinstance(a, StringAttr):
            raise ModuleFormatError(f"damaged module: attribute {i} is not a name")
        return a.data

    def _build(self, r: list[Any]) -> Attribute:
        kind = r[0]
        if kind == "s":
            return interned.string(checked_str(r[1]))
        if kind == "n":
            return IntAttr(checked_int(r[1]))
        if kind == "u":
            return UnitAttr()
        if kind == "unk":
            return UnknownLoc()
        if kind == "loc":
            return FileLineColLoc(
                interned.string(checked_str(r[1])),
                IntAttr(checked_int(r[2])),
                IntAttr(checked_int(r[3])),
            )
        if kind == "sym":
            return SymbolRefAttr(checked_str(r[1]), [checked_str(x) for x in r[2]])
        if kind == "a":
            return ArrayAttr([self.attr(checked_int(x)) for x in r[1]])
        if kind == "d":
            return DictionaryAttr({checked_str(k): self.attr(checked_int(v)) for k, v in r[1]})
        if kind == "i":
            value = r[1] if type(r[1]) is bool else checked_int(r[1])  # i1 literals keep their bool
            return IntegerAttr(value, self.attr(checked_int(r[2])))  # type: ignore[arg-type]
        if kind == "f":
            return FloatAttr(float.fromhex(checked_str(r[1])), self.attr(checked_int(r[2])))  # type: ignore[arg-type]
        if kind == "dense":
            start, size = checked_int(r[2]), checked_int(r[3])
            if start < 0 or size < 0 or start + size > len(self.blob):
                raise ModuleFormatError("damaged module: a dense literal lies outside the blob")
            data = self.blob[start : start + size]
            return DenseIntOrFPElementsAttr(self.attr(checked_int(r[1])), BytesAttr(data))  # type: ignore[arg-type]
        if kind == "res":
            t = self.attr(checked_int(r[2]))
            if not isinstance(t, TensorType):
                raise ModuleFormatError("damaged module: a resource's type is not a tensor")
            return unchecked(
                DenseResourceAttr, resource_handle=interned.string(checked_str(r[1])), type=t
            )
        if kind == "tensor":
            shape = tuple(checked_int(d) for d in r[1])
            return interned.tensor_type(self.attr(checked_int(r[2])), shape)
        if kind == "float":
            float_type = _FLOAT_NAMES.get(checked_str(r[1]))
            if float_type is None:
                raise ModuleFormatError(f"damaged module: unknown float type {r[1]!r}")
            return float_type()
        if kind == "int":
            if checked_int(r[2]) not in (s.value for s in Signedness):
                raise ModuleFormatError("damaged module: unknown signedness")
            return IntegerType(checked_int(r[1]), Signedness(r[2]))
        if kind == "index":
            return IndexType()
        if kind == "fn":
            return FunctionType.from_lists(
                [self.attr(checked_int(x)) for x in r[1]], [self.attr(checked_int(x)) for x in r[2]]
            )
        if kind == "t":
            parser = Parser(self.ctx, checked_str(r[1]), "<cached attribute>")
            attr = parser.parse_attribute()
            if not at_end(parser):
                raise ModuleFormatError("damaged module: trailing text after an attribute")
            return attr
        raise ModuleFormatError(f"damaged module: unknown attribute kind {kind!r}")

    def value(self, i: int) -> SSAValue:
        if 0 <= i < len(self.values):
            v = self.values[i]
            if v is not None:
                return v
        if i < 0 or i > len(self.ints):
            raise ModuleFormatError(f"damaged module: value {i}")
        placeholder = self.pending.get(i)
        if placeholder is None:
            if i not in self.forward:
                raise ModuleFormatError(f"damaged module: value {i} is used before it is defined")
            placeholder = ForwardDeclaredValue(self.attr(self.forward[i]))
            self.pending[i] = placeholder
        return placeholder

    def define(self, v: SSAValue) -> None:
        i = len(self.values)
        self.values.append(v)
        if self.names:
            name = self.names.get(i)
            if name is not None:
                v.name_hint = name
        placeholder = self.pending.pop(i, None)
        if placeholder is not None:
            if placeholder.type != v.type:
                raise ModuleFormatError(f"damaged module: value {i} changes type")
            placeholder.replace_all_uses_with(v)

    def take(self) -> list[int]:
        """The next count and that many integers after it (checked, then skipped)."""
        ints, pos = self.ints, self.pos
        n = ints[pos]
        if n < 0 or pos + 1 + n > len(ints):
            raise ModuleFormatError(f"damaged module: count {n}")
        self.pos = pos + 1 + n
        return ints[pos + 1 : pos + 1 + n] if n else []

    def attrs(self, indices: list[int]) -> list[Attribute]:
        table = self.table
        out = []
        for i in indices:
            a = table[i] if i >= 0 else None
            out.append(a if a is not None else self.attr(i))
        return out

    def op(self) -> Operation:
        name_index = self.next()
        op_type = self.op_types.get(name_index)
        if op_type is None:
            name = self.string(name_index)
            found = self.ctx.get_optional_op(name)
            if found is None:
                raise ModuleFormatError(f"damaged module: unknown op '{name}'")
            op_type = self.op_types[name_index] = found
        location = self.attr(self.next())
        values, count = self.values, len(self.values)
        operands = []
        for i in self.take():
            v = values[i] if 0 <= i < count else None
            operands.append(v if v is not None else self.value(i))
        result_types = self.attrs(self.take())
        properties = self.table_of(self.take())
        attributes = self.table_of(self.take())
        successors = [self.block(i) for i in self.take()]
        n = self.count()
        regions = [self.region() for _ in range(n)] if n else []
        op = op_type.create(
            operands=operands,
            result_types=result_types,
            properties=properties,
            attributes=attributes,
            location=location,  # type: ignore[arg-type]
            successors=successors,
            regions=regions,
        )
        for r in op.results:
            self.define(r)
        return op

    def table_of(self, pairs: list[int]) -> dict[str, Attribute]:
        """A properties or attributes dict from its (name, attribute) index pairs."""
        if not pairs:
            return {}
        if len(pairs) % 2:
            raise ModuleFormatError("damaged module: an odd attribute list")
        values = self.attrs(pairs[1::2])
        return {self.string(k): v for k, v in zip(pairs[0::2], values)}

    def block(self, i: int) -> Block:
        if not 0 <= i < len(self.blocks):
            raise ModuleFormatError(f"damaged module: block {i}")
        return self.blocks[i]

    def region(self) -> Region:
        blocks = []
        for _ in range(self.count()):
            block = Block(arg_types=[self.attr(self.next()) for _ in range(self.count())])
            for arg in block.args:
                self.define(arg)
            self.blocks.append(block)
            blocks.append(block)
        for block in blocks:
            block.add_ops([self.op() for _ in range(self.count())])
        return Region(blocks)


def checked_int(x: Any) -> int:
    """`x` if it is an int (JSON read back), else a ModuleFormatError."""
    if type(x) is not int:
        raise ModuleFormatError(f"damaged module: expected an integer, got {x!r}")
    return x


def checked_str(x: Any) -> str:
    """`x` if it is a str (JSON read back), else a ModuleFormatError."""
    if type(x) is not str:
        raise ModuleFormatError(f"damaged module: expected a string, got {x!r}")
    return x


def append_chunk(blob: io.BytesIO, data: bytes) -> list[int]:
    """Append `data` to a growing blob, 8-byte aligned (so arrays can be read in
    place); its [offset, length], as an entry's manifest records it."""
    blob.write(b"\0" * (-blob.tell() % 8))
    start = blob.tell()
    blob.write(data)
    return [start, len(data)]


def read_chunk(blob: bytes, where: Any) -> memoryview:
    """The bytes an [offset, length] from `append_chunk` names, checked."""
    if not (isinstance(where, list) and len(where) == 2):
        raise ModuleFormatError("bad byte range")
    start, length = checked_int(where[0]), checked_int(where[1])
    if not 0 <= start <= start + length <= len(blob):
        raise ModuleFormatError("a byte range lies outside the entry")
    return memoryview(blob)[start : start + length]
