"""MindSpore's primitive classes (`ops.Add()`, `ops.MatMul(transpose_b=True)` ...).

An instance holds the primitive's attributes; calling it calls the functional
op, so primitives work eagerly and while a graph is traced alike. The graph
compiler recognizes them as `Primitive` instances (plain callables otherwise).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mindjit.frontend.ops import array, effects, gather_ops, math, reduce, repeat, split
from mindjit.frontend.ops import losses as _losses
from mindjit.frontend.ops import random as _random


class Primitive:
    """Base of all primitive classes; `name` is MindSpore's primitive name."""

    def __init__(self, name: str | None = None):
        self.name = name or type(self).__name__
        self.attrs: dict[str, Any] = {}

    def add_prim_attr(self, name: str, value: Any) -> Primitive:
        """Record an attribute (also an attribute of the instance, as in MindSpore)."""
        self.attrs[name] = value
        self.__dict__[name] = value
        return self

    def del_prim_attr(self, name: str) -> Primitive:
        self.attrs.pop(name, None)
        return self

    def init_prim_io_names(self, inputs: Any, outputs: Any) -> None:
        """MindSpore's names of the inputs and outputs (kept as the attributes
        `input_names` / `output_names`, as MindSpore keeps them)."""
        self.add_prim_attr("input_names", inputs)
        self.add_prim_attr("output_names", outputs)

    def set_prim_instance_name(self, instance_name: str) -> Primitive:
        self.instance_name = instance_name
        return self

    def __call__(self, *args: Any) -> Any:
        raise NotImplementedError(f"primitive {self.name} cannot be called")

    def __repr__(self) -> str:
        return f"Prim[{self.name}]"


def _simple(name: str, fn: Callable[..., Any], doc: str) -> type[Primitive]:
    """A primitive without attributes whose call is `fn(*args)`."""

    def __call__(self: Primitive, *args: Any) -> Any:
        return fn(*args)

    return type(name, (Primitive,), {"__call__": __call__, "__doc__": doc})


Add = _simple("Add", math.add, "x + y")
AddN = _simple("AddN", math.addn, "the sum of a tuple of tensors")
Sub = _simple("Sub", math.sub, "x - y")
Mul = _simple("Mul", math.mul, "x * y")
Div = _simple("Div", math.div, "x / y (true division)")
RealDiv = _simple("RealDiv", math.div, "x / y")
FloorDiv = _simple("FloorDiv", math.floor_divide, "x // y")
Neg = _simple("Neg", math.neg, "-x")
Abs = _simple("Abs", math.abs, "|x|")
Pow = _simple("Pow", math.pow, "x ** y")
Maximum = _simple("Maximum", math.maximum, "elementwise max")
Minimum = _simple("Minimum", math.minimum, "elementwise min")
Square = _simple("Square", math.square, "x * x")
Exp = _simple("Exp", math.exp, "e ** x")
Log = _simple("Log", math.log, "natural log")
Tanh = _simple("Tanh", math.tanh, "tanh")
Sin = _simple("Sin", math.sin, "sin")
Erf = _simple("Erf", math.erf, "the Gauss error function")
Floor = _simple("Floor", math.floor, "round down")
Ceil = _simple("Ceil", math.ceil, "round up")
Round = _simple("Round", math.round, "round half to even")
Cos = _simple("Cos", math.cos, "cos")
ReLU = _simple("ReLU", math.relu, "max(x, 0)")
Sigmoid = _simple("Sigmoid", math.sigmoid, "1 / (1 + exp(-x))")
Sqrt = _simple("Sqrt", math.sqrt, "square root")
Rsqrt = _simple("Rsqrt", math.rsqrt, "1 / sqrt(x)")
Reciprocal = _simple("Reciprocal", math.reciprocal, "1 / x")
HSwish = _simple("HSwish", math.hswish, "x * relu6(x + 3) / 6")
Equal = _simple("Equal", math.equal, "x == y")
NotEqual = _simple("NotEqual", math.not_equal, "x != y")
Less = _simple("Less", math.less, "x < y")
LessEqual = _simple("LessEqual", math.less_equal, "x <= y")
Greater = _simple("Greater", math.greater, "x > y")
GreaterEqual = _simple("GreaterEqual", math.greater_equal, "x >= y")
LogicalAnd = _simple("LogicalAnd", math.logical_and, "x and y")
LogicalOr = _simple("LogicalOr", math.logical_or, "x or y")
LogicalNot = _simple("LogicalNot", math.logical_not, "not x")
Select = _simple("Select", math.select, "cond ? x : y")
Cast = _simple("Cast", array.cast, "Cast()(x, dtype)")
Reshape = _simple("Reshape", array.reshape, "Reshape()(x, shape)")
Transpose = _simple("Transpose", array.transpose, "Transpose()(x, perm)")
OnesLike = _simple("OnesLike", array.ones_like, "ones shaped like x")
ZerosLike = _simple("ZerosLike", array.zeros_like, "zeros shaped like x")
Fill = _simple("Fill", array.fill, "Fill()(dtype, shape, value)")
Ones = _simple("Ones", lambda shape, dtype=None: array.ones(shape, dtype), "Ones()(shape, dtype)")
Zeros = _simple(
    "Zeros", lambda shape, dtype=None: array.zeros(shape, dtype), "Zeros()(shape, dtype)"
)
ExpandDims = _simple("ExpandDims", array.expand_dims, "ExpandDims()(x, axis)")
Shape = _simple("Shape", array.shape, "the static shape as a tuple")
Rank = _simple("Rank", array.rank, "the rank as an int")
Depend = _simple("Depend", effects.depend, "Depend()(value, expr): value, after expr")
Assign = _simple("Assign", effects.assign, "Assign()(param, value)")
Print = _simple("Print", effects.print_, "print strings and tensors, one per line")
NPUAllocFloatStatus = _simple(
    "NPUAllocFloatStatus", effects.npu_alloc_float_status, "a new float status"
)
NPUClearFloatStatus = _simple(
    "NPUClearFloatStatus", effects.npu_clear_float_status, "clear the float status"
)
NPUGetFloatStatus = _simple(
    "NPUGetFloatStatus", effects.npu_get_float_status, "read the float status"
)


class MatMul(Primitive):
    """`MatMul(transpose_a=False, transpose_b=False)(a, b)`."""

    def __init__(self, transpose_a: bool = False, transpose_b: bool = False):
        super().__init__()
        self.transpose_a = bool(transpose_a)
        self.transpose_b = bool(transpose_b)

    def __call__(self, x: Any, y: Any) -> Any:
        return math.matmul(x, y, self.transpose_a, self.transpose_b)


class BatchMatMul(MatMul):
    """Batched MatMul (batch axes broadcast)."""


class _Reduce(Primitive):
    _fn: Callable[..., Any] = staticmethod(reduce.reduce_sum)

    def __init__(self, keep_dims: bool = False):
        super().__init__()
        self.keep_dims = bool(keep_dims)

    def __call__(self, x: Any, axis: Any = ()) -> Any:
        return type(self)._fn(x, axis, self.keep_dims)


class ReduceSum(_Reduce):
    """`ReduceSum(keep_dims=False)(x, axis=())`."""

    _fn = staticmethod(reduce.reduce_sum)


class ReduceMean(_Reduce):
    _fn = staticmethod(reduce.reduce_mean)


class ReduceMax(_Reduce):
    _fn = staticmethod(reduce.reduce_max)


class ReduceMin(_Reduce):
    _fn = staticmethod(reduce.reduce_min)


class _Axis(Primitive):
    def __init__(self, axis: int = 0):
        super().__init__()
        self.axis = axis


class Unstack(_Axis):
    """`Unstack(axis=0)(x)`: the slices of `x` along `axis`."""

    def __call__(self, x: Any) -> Any:
        return array.unstack(x, self.axis)


class Concat(_Axis):
    """`Concat(axis=0)(tensors)`."""

    def __call__(self, tensors: Any) -> Any:
        return array.concat(tensors, self.axis)


class Stack(_Axis):
    """`Stack(axis=0)(tensors)`."""

    def __call__(self, tensors: Any) -> Any:
        return array.stack(tensors, self.axis)


class Squeeze(Primitive):
    """`Squeeze(axis=())(x)`."""

    def __init__(self, axis: Any = ()):
        super().__init__()
        self.axis = axis

    def __call__(self, x: Any) -> Any:
        return array.squeeze(x, self.axis if self.axis != () else None)


class Split(Primitive):
    """`Split(axis=0, output_num=1)(x)`: `output_num` equal pieces along `axis`."""

    def __init__(self, axis: int = 0, output_num: int = 1):
        super().__init__()
        self.axis = axis
        self.output_num = output_num

    def __call__(self, x: Any) -> Any:
        return split.split_equal(x, self.axis, self.output_num)


Tile = _simple("Tile", repeat.tile, "Tile()(x, multiples)")


class Gather(Primitive):
    """`Gather(batch_dims=0)(input_params, input_indices, axis)`."""

    def __init__(self, batch_dims: int = 0):
        super().__init__()
        self.batch_dims = batch_dims

    def __call__(self, input_params: Any, input_indices: Any, axis: Any) -> Any:
        return gather_ops.gather(input_params, input_indices, axis, self.batch_dims)


class OneHot(Primitive):
    """`OneHot(axis=-1)(indices, depth, on_value, off_value)`."""

    def __init__(self, axis: int = -1):
        super().__init__()
        self.axis = axis

    def __call__(self, indices: Any, depth: Any, on_value: Any, off_value: Any) -> Any:
        return gather_ops.one_hot(indices, depth, on_value, off_value, self.axis)


GatherV2 = Gather
GatherD = _simple("GatherD", gather_ops.gather_elements, "GatherD()(x, dim, index)")
GatherNd = _simple("GatherNd", gather_ops.gather_nd, "GatherNd()(input_x, indices)")
UnsortedSegmentSum = _simple(
    "UnsortedSegmentSum",
    gather_ops.unsorted_segment_sum,
    "UnsortedSegmentSum()(input_x, segment_ids, num_segments)",
)

PRIMITIVES: tuple[type[Primitive], ...] = tuple(
    v for v in list(globals().values()) if isinstance(v, type) and issubclass(v, Primitive)
)


class Dropout(Primitive):
    """`Dropout(keep_prob=0.5, Seed0=0, Seed1=0)(x) -> (output, mask)`: the mask has
    x's shape and dtype (MindSpore's CPU/GPU form, 1 where kept); always drops
    (a primitive has no training switch)."""

    def __init__(self, keep_prob: float = 0.5, Seed0: int = 0, Seed1: int = 0):  # noqa: N803
        super().__init__()
        self.keep_prob = keep_prob
        self.seed0, self.seed1 = Seed0, Seed1

    def __call__(self, x: Any) -> Any:
        return _random.dropout_with_mask(x, self.keep_prob, self.seed0, self.seed1)


class SmoothL1Loss(Primitive):
    """`SmoothL1Loss(beta=1.0, reduction='none')(logits, labels)`."""

    def __init__(self, beta: float = 1.0, reduction: str = "none"):
        super().__init__()
        self.beta = _losses.check_beta(beta, "SmoothL1Loss")
        self.reduction = _losses.check_reduction(reduction, "SmoothL1Loss")

    def __call__(self, logits: Any, labels: Any) -> Any:
        return _losses.smooth_l1_loss(logits, labels, self.beta, self.reduction)
