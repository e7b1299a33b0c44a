"""From the `ascend` IR (after the device pipeline) to a `DeviceModel`.

Tensors get ids: Parameters and constants (with their data in the blob), each
graph's arguments (an entry graph's own inputs, a Parameter for an argument
bound to one, an argument bound at each call for a reused graph), kernel and
call results, and views (`alias` of the tensor whose memory they show). A
kernel's code is its region as a standalone `func.func @kernel` in MLIR text,
with SSA names dropped so equal kernels share one code entry (like one kernel
binary launched many times); the float-status kernels and Send / Receive (unit
comm, with the channel their `ascend.channel` names) are builtins of the device.
Each kernel's cost inputs (flops, bytes moved) are estimated here from its ops
and shapes; a Send's or Receive's bytes are those of the tensor it moves.
"""

from __future__ import annotations

import io
import math
from importlib.metadata import PackageNotFoundError, version

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    DenseArrayBase,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    SymbolRefAttr,
    TensorType,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.printer import Printer

from mindjit.backend.ascend.model import DYNAMIC_OFFSET, DeviceModel, Graph, Step, Tensor
from mindjit.backend.ascend.model import Blob as BlobEntry
from mindjit.backend.ascend.passes.ascend_plan_memory import called_graphs
from mindjit.backend.ascend.passes.graph import (
    FLOAT_STATUS_KERNELS,
    bound_param,
    graphs_of,
    is_dynamic,
    value_bytes,
)
from mindjit.backend.ascend.passes.kernel_table import (
    CHANNEL_ATTR,
    COMM_KERNELS,
    COMM_UNIT,
    is_segment_sum,
)
from mindjit.backend.cpu.types import dense_array, dims_of, dtype_of, static_shape
from mindjit.dialects.ascend import (
    OFFSETS_ATTR,
    STREAM_ATTR,
    WORKSPACE_ATTR,
    KernelOp,
    RecordEventOp,
    ViewOp,
    WaitEventOp,
)
from mindjit.ir.locations import op_error
from mindjit.support.errors import MindjitError


def _int_attr(op: Operation, name: str, default: int = 0) -> int:
    a = op.attributes.get(name)
    return a.value.data if isinstance(a, IntegerAttr) else default


def _ints(op: Operation, name: str) -> list[int]:
    a = op.attributes.get(name)
    return list(a.get_values()) if isinstance(a, DenseArrayBase) else []


class _Serializer:
    def __init__(self, module: ModuleOp):
        self.module = module
        self.tensors: list[Tensor] = []
        self.ids: dict[SSAValue, int] = {}
        self.params: dict[str, int] = {}
        self.blob = io.BytesIO()
        self.parameters: list[BlobEntry] = []
        self.constants: list[BlobEntry] = []
        self.codes: dict[str, int] = {}
        self.globals = {
            op.properties["sym_name"].data: op  # type: ignore[union-attr]
            for op in module.body.block.ops
            if op.name == "ml_program.global"
        }
        self.decls = {
            op.sym_name.data: op
            for op in module.body.block.ops
            if isinstance(op, func.FuncOp) and not op.body.blocks
        }

    def tensor(self, t: Attribute, offset: int, **kw: int | bool) -> int:
        dtype = dtype_of(t)
        self.tensors.append(
            Tensor(
                dtype.name,
                list(dims_of(t)),  # a loop's record: -1 for its capacity
                offset,
                scalar=not isinstance(t, TensorType),
                **kw,  # type: ignore[arg-type]
            )
        )
        return len(self.tensors) - 1

    def data(self, tid: int, array: np.ndarray) -> BlobEntry:
        t = self.tensors[tid]
        raw = np.ascontiguousarray(np.asarray(array, dtype=t.dtype).reshape(t.shape))
        start = self.blob.tell()
        self.blob.write(raw.astype(raw.dtype.newbyteorder("<"), copy=False).tobytes())
        return BlobEntry(tid, start, raw.nbytes)

    # -- the module ---------------------------------------------------------------------

    def run(self) -> DeviceModel:
        m = self.module
        if "ascend.memory_bytes" not in m.attributes:
            raise MindjitError(
                "the module has no memory plan: run the ascend pipeline (ms-translate "
                "--target=ascend-sim does) before serializing"
            )
        for name, glob in self.globals.items():
            t = glob.properties["type"]
            tid = self.tensor(t, _int_attr(glob, "ascend.offset", -1))
            self.params[name] = tid
            value = glob.properties.get("value")
            array = dense_array(value, t) if value is not None else np.zeros(static_shape(t))
            entry = self.data(tid, array)
            entry.name = name
            self.parameters.append(entry)
        graphs = graphs_of(m)
        index = {fn.sym_name.data: i for i, fn in enumerate(graphs)}
        called = called_graphs(m)
        out = [self.graph(fn, fn.sym_name.data not in called, index) for fn in graphs]
        return DeviceModel(
            memory_bytes=_int_attr(m, "ascend.memory_bytes"),
            persistent_bytes=_int_attr(m, "ascend.persistent_bytes"),
            align=_int_attr(m, "ascend.align", 1),
            events=_int_attr(m, "ascend.events"),
            tensors=self.tensors,
            parameters=self.parameters,
            constants=self.constants,
            codes=list(self.codes),
            graphs=out,
            blob=self.blob.getvalue(),
            producer=_producer(),
        )

    def graph(self, fn: func.FuncOp, entry: bool, index: dict[str, int]) -> Graph:
        arg_offsets = _ints(fn, "ascend.arg_offsets")
        inputs = []
        for i, arg in enumerate(fn.body.block.args):
            symbol = bound_param(arg)
            if symbol is not None and entry:
                self.ids[arg] = self.params[symbol]
                continue
            offset = arg_offsets[i] if i < len(arg_offsets) else -1
            tid = self.tensor(arg.type, offset if entry else -1, arg=-1 if entry else i)
            self.ids[arg] = tid
            inputs.append(tid)
        steps: list[Step] = []
        outputs: list[int] = []
        for op in fn.body.block.ops:
            if isinstance(op, func.ReturnOp):
                outputs = [self.id(v, op) for v in op.operands]
            elif isinstance(op, KernelOp):
                steps.append(self.kernel(op))
            elif isinstance(op, func.CallOp):
                name = op.callee.root_reference.data
                if name not in index:
                    raise op_error(op, f"call of @{name}, which is no graph of the module")
                steps.append(
                    Step(
                        "call",
                        graph=index[name],
                        stream=_int_attr(op, STREAM_ATTR),
                        inputs=[self.id(v, op) for v in op.operands],
                        outputs=self.results(op),
                    )
                )
            elif isinstance(op, RecordEventOp | WaitEventOp):
                kind = "record" if isinstance(op, RecordEventOp) else "wait"
                steps.append(Step(kind, event=op.event_id, stream=op.stream_id))
            elif isinstance(op, ViewOp):
                src = self.tensors[self.id(op.source, op)]
                self.ids[op.result] = self.tensor(
                    op.result.type, src.offset, arg=src.arg, alias=self.id(op.source, op)
                )
            elif op.name == "ml_program.global_load":
                self.ids[op.results[0]] = self.params[op.properties["global"].root_reference.data]  # type: ignore[union-attr]
            elif op.name in ("arith.constant", "ml_program.global_load_const"):
                self.constant(op)
            else:
                raise op_error(op, f"'{op.name}' is not part of a device program")
        return Graph(
            name=fn.sym_name.data,
            inputs=inputs,
            outputs=outputs,
            sequence=steps,
            base=_int_attr(fn, "ascend.base"),
            heap_bytes=_int_attr(fn, "ascend.heap_bytes"),
            lower_bound_bytes=_int_attr(fn, "ascend.lower_bound_bytes"),
            entry=entry,
        )

    def constant(self, op: Operation) -> None:
        offsets = _ints(op, OFFSETS_ATTR)
        if not offsets:
            raise op_error(op, "constant without an address: run ascend-plan-memory first")
        t = op.results[0].type
        tid = self.tensor(t, offsets[0])
        if op.name == "arith.constant":
            array = dense_array(op.properties["value"], t)  # type: ignore[arg-type]
        else:
            glob = self.globals[op.properties["global"].root_reference.data]  # type: ignore[union-attr]
            array = dense_array(glob.properties["value"], t)  # type: ignore[arg-type]
        self.constants.append(self.data(tid, array))
        self.ids[op.results[0]] = tid

    def id(self, v: SSAValue, user: Operation) -> int:
        tid = self.ids.get(v)
        if tid is None:
            raise op_error(user, "operand is not a device tensor (unsupported producer)")
        return tid

    def results(self, op: Operation) -> list[int]:
        offsets = _ints(op, OFFSETS_ATTR)
        if len(offsets) != len(op.results) or any(
            o < 0 and not (o == DYNAMIC_OFFSET and is_dynamic(r.type))
            for o, r in zip(offsets, op.results)
        ):
            raise op_error(op, "result without an address: run ascend-plan-memory first")
        out = []
        for r, off in zip(op.results, offsets):
            self.ids[r] = self.tensor(r.type, off)
            out.append(self.ids[r])
        return out

    def kernel(self, op: KernelOp) -> Step:
        channel = self.channel(op)
        builtin = op.kernel_name in FLOAT_STATUS_KERNELS or bool(channel)
        inputs = [self.id(v, op) for v in op.inputs]
        if op.writes_symbol is not None and op.writes_symbol not in self.params:
            raise op_error(op, f"kernel writes @{op.writes_symbol}, which is no Parameter")
        writes = self.params[op.writes_symbol] if op.writes_symbol is not None else -1
        nbytes = sum(value_bytes(v.type) for v in [*op.inputs, *op.outputs])
        if writes != -1 and not channel:
            nbytes *= 2  # an Assign reads and writes; a Send's bytes are those it moves
        return Step(
            "kernel",
            name=op.kernel_name,
            unit=op.unit_name,
            dtype=dtype_of(op.dtype).name,  # type: ignore[arg-type]
            stream=_int_attr(op, STREAM_ATTR),
            code=-1 if builtin else self.code(op),
            inputs=inputs,
            outputs=self.results(op) if op.outputs else [],
            writes=writes,
            workspace=_ints(op, WORKSPACE_ATTR),
            flops=float(kernel_flops(op)),
            bytes=float(nbytes),
            channel=channel,
        )

    def channel(self, op: KernelOp) -> str:
        """A Send's or Receive's channel (its `ascend.channel`); "" for other kernels."""
        comm = op.unit_name == COMM_UNIT
        if comm != (op.kernel_name in COMM_KERNELS):
            raise op_error(op, "only Send and Receive kernels run on the comm unit, and there")
        if not comm:
            return ""
        attr = op.attributes.get(CHANNEL_ATTR)
        if not isinstance(attr, SymbolRefAttr):
            raise op_error(op, f"'{op.kernel_name}' kernel without its channel ({CHANNEL_ATTR})")
        name = attr.root_reference.data
        if name not in self.params:
            raise op_error(op, f"'{op.kernel_name}' uses channel @{name}, which is no global")
        send = op.kernel_name == "Send"
        if (send and (len(op.inputs), len(op.outputs), op.writes_symbol) != (1, 0, name)) or (
            not send and (len(op.inputs), len(op.outputs), op.writes_symbol) != (0, 1, None)
        ):
            raise op_error(
                op,
                "a Send takes one input and writes its channel; a Receive takes nothing "
                "and gives one result",
            )
        return name

    def code(self, op: KernelOp) -> int:
        text = code_text(op, self.decls, self.globals)
        return self.codes.setdefault(text, len(self.codes))


def code_text(op: KernelOp, decls: dict[str, func.FuncOp], globals_: dict[str, Operation]) -> str:
    """The kernel's region as a module with one `func.func @kernel`, names dropped."""
    body = op.body.block
    end = body.last_op
    assert end is not None
    block = Block(arg_types=body.arg_types)
    mapping: dict[SSAValue, SSAValue] = dict(zip(body.args, block.args))
    for inner in body.ops:
        if inner is end:
            break
        block.add_op(inner.clone(value_mapper=mapping))
    yielded = [mapping.get(v, v) for v in end.operands]
    block.add_op(func.ReturnOp(*yielded))
    fn = func.FuncOp("kernel", (list(body.arg_types), [v.type for v in yielded]), Region(block))
    module = ModuleOp([])
    used: set[tuple[str, str]] = set()  # ("f", declaration) or ("g", global)
    for inner in fn.walk():
        for r in inner.results:
            r.name_hint = None
        for region in inner.regions:
            for b in region.blocks:
                for a in b.args:
                    a.name_hint = None
        if isinstance(inner, func.CallOp):
            used.add(("f", inner.callee.root_reference.data))
        if inner.name.startswith("ml_program.global_"):
            used.add(("g", inner.properties["global"].root_reference.data))  # type: ignore[union-attr]
    for kind, name in sorted(used):
        if kind == "f" and name in decls:
            module.body.block.add_op(decls[name].clone())
        elif kind == "g" and name in globals_:
            glob = globals_[name].clone()
            glob.properties.pop("value", None)
            module.body.block.add_op(glob)
    module.body.block.add_op(fn)
    out = io.StringIO()
    Printer(stream=out, print_generic_format=False).print_op(module)
    return out.getvalue()


#: windowed named ops -> the first axis of operand 1 (filter or window) that is
#: summed over per output element (a filter's output-channel axes come before it)
_WINDOWED = {
    "linalg.conv_2d_nchw_fchw": 1,
    "linalg.conv_2d_ngchw_gfchw": 2,
    "linalg.pooling_nchw_max": 0,
    "linalg.pooling_nchw_sum": 0,
}


def kernel_flops(op: KernelOp) -> int:
    """Floating-point (or integer) operations one run of the kernel does, from
    its ops' shapes: 2*M*N*K for a contraction, 2 * outputs * taps for a
    convolution and one per tap for pooling, one per element and body op for
    elementwise code, one per input element for a reduction, none for moves."""
    total = 0
    for inner in op.body.walk():
        if inner is op:
            continue
        if inner.name in ("linalg.matmul", "linalg.batch_matmul"):
            a, b = (static_shape(v.type) for v in inner.operands[:2])
            total += 2 * math.prod(a) * b[-1]
        elif inner.name in _WINDOWED:
            out, window = static_shape(inner.results[0].type), static_shape(inner.operands[1].type)
            taps = math.prod(window[_WINDOWED[inner.name] :])
            total += (1 if inner.name.startswith("linalg.pooling") else 2) * math.prod(out) * taps
        elif getattr(inner, "library_call", None) is not None:
            total += _library_flops(inner)
        elif is_segment_sum(inner):  # one add per input element, not segments x inputs
            total += math.prod(static_shape(inner.operands[1].type))
        elif inner.name in ("linalg.generic", "linalg.reduce"):
            loops = _loop_count(inner)
            body_ops = sum(
                1
                for o in inner.regions[0].block.ops
                if o.name.split(".")[0] in ("arith", "math") and o.name != "arith.constant"
            )
            total += loops * max(1, body_ops)
    return total


def _library_flops(op: Operation) -> int:
    """A generic naming its kernel (sort's rank and place, the scans: quadratic as
    written): the kernel's own cost, n log2 n compares per row of n along the
    reduced dim for sort's, one op per element for a scan."""
    out = math.prod(static_shape(op.results[0].type))
    if "sort" not in op.library_call.data:  # type: ignore[attr-defined]
        return out
    n = max(1, _loop_count(op) // max(1, out))
    return out * max(1, math.ceil(math.log2(n))) if n > 1 else out


def _loop_count(op: Operation) -> int:
    """The iteration count of a linalg.generic / linalg.reduce: its largest operand."""
    sizes = [math.prod(static_shape(v.type)) for v in op.operands if isinstance(v.type, TensorType)]
    if op.name == "linalg.generic":
        maps = getattr(op, "indexing_maps", None)
        if maps is not None:
            dims: dict[int, int] = {}
            for v, m in zip(op.operands, maps.data):
                shape = static_shape(v.type)
                for k, expr in enumerate(m.data.results):
                    pos = getattr(expr, "position", None)
                    if pos is not None and k < len(shape):
                        dims[pos] = shape[k]
            if dims:
                return math.prod(dims.values())
    return max(sizes, default=1)


def _producer() -> str:

    try:
        return f"mindjit {version('mindjit')}"
    except PackageNotFoundError:
        return "mindjit"


def serialize(module: ModuleOp) -> DeviceModel:
    """The device model of a module the ascend pipeline compiled."""
    return _Serializer(module).run()


_ = StringAttr
