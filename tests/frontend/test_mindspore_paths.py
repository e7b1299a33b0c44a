"""MindSpore's import paths and the small APIs model-zoo code uses: `operations as P`,
`composite as C`, `functional as F`, `common.dtype`, `ParameterTuple`, `constexpr`,
the nn submodule paths; programs written the zoo's way give the same results in
PyNative mode, GRAPH_MODE and under @ms.jit; what mindjit lacks is an error naming it."""

from __future__ import annotations

import re
import subprocess
import sys
import warnings

import numpy as np
import pytest

import mindjit as ms
from mindjit import Parameter, ParameterTuple, Tensor, nn
from mindjit.common import dtype as mstype
from mindjit.common.initializer import Normal, initializer
from mindjit.ops import composite as C
from mindjit.ops import constexpr
from mindjit.ops import functional as F
from mindjit.ops import operations as P

# --- the import statements ----------------------------------------------------------

IMPORTS = [
    "from mindjit.ops import operations as P; P.MatMul(); P.ReduceMean(keep_dims=True); P.Cast()",
    "from mindjit.ops import composite as C; C.GradOperation(get_by_list=True); C.HyperMap(); "
    "C.MultitypeFuncGraph('m')",
    "from mindjit.ops import functional as F; F.cast, F.depend, F.reshape, F.shape",
    "from mindjit.common import dtype as mstype; mstype.float32",
    "from mindjit.common.tensor import Tensor",
    "from mindjit.common.parameter import Parameter, ParameterTuple",
    "from mindjit import ParameterTuple",
    "from mindjit.ops import constexpr",
    "from mindjit.ops.primitive import constexpr, Primitive",
    "from mindjit.nn.wrap.cell_wrapper import WithLossCell, TrainOneStepCell, WithEvalCell",
    "from mindjit.nn.wrap.loss_scale import TrainOneStepWithLossScaleCell",
    "from mindjit.nn.wrap import WithLossCell",
    "from mindjit.nn.layer.basic import Dense, Dropout, Flatten",
    "from mindjit.nn.layer.activation import get_activation, ReLU",
    "from mindjit.nn.layer import Conv2d",
    "from mindjit.nn.loss.loss import LossBase",
    "from mindjit.nn.loss import SoftmaxCrossEntropyWithLogits",
    "from mindjit.nn.optim.momentum import Momentum",
    "from mindjit.nn.optim.optimizer import Optimizer",
    "from mindjit.nn.optim.adam import Adam, AdamWeightDecay",
    "from mindjit.nn.optim import Momentum",
    "from mindjit.nn.optim.ftrl import FTRL; from mindjit.nn.optim.rprop import Rprop",
    "from mindjit.nn.utils import no_init_parameters; from mindjit.nn.grad import Jvp, Vjp",
    "from mindjit.train.metrics import Fbeta, ROC, auc, HausdorffDistance, get_metrics",
    "from mindjit.nn.cell import Cell",
    "from mindjit.nn.learning_rate_schedule import LearningRateSchedule, WarmUpLR",
    "from mindjit.common.api import jit, jit_class",
    "import mindjit.nn.wrap.cell_wrapper",
    "import mindjit.ops.operations",
    "import mindjit as ms; ms.nn.wrap.cell_wrapper.WithLossCell; ms.ops.operations.MatMul",
    "import mindjit as ms; ms.common.dtype.float32; ms.common.parameter.ParameterTuple",
    "import mindjit as ms; ms.Tensor.from_numpy; ms.get_seed; ms.ms_function; ms.ms_class",
    "import mindjit as ms; ms.constexpr; ms.ops.constexpr; ms.ops.primitive.constexpr",
]


@pytest.mark.parametrize("statement", IMPORTS)
def test_mindspore_import_path(statement):
    exec(statement, {})


def test_attribute_paths_need_no_earlier_import():
    """`ms.common.parameter` and the like are reachable right after `import mindjit`:
    in this process another test may have imported them first (it once hid a miss)."""
    statements = [s for s in IMPORTS if s.startswith("import mindjit as ms;")]
    for statement in statements:
        run = subprocess.run([sys.executable, "-c", statement], capture_output=True, text=True)
        assert run.returncode == 0, (statement, run.stderr[-500:])


def test_paths_are_mindjit_own_objects():
    import mindjit.frontend.nn.optim as optim
    import mindjit.frontend.ops as frontend_ops

    assert mstype is ms.dtype
    assert P.MatMul is ms.ops.MatMul and P.BiasAdd is ms.ops.BiasAdd
    assert P.TensorAdd is ms.ops.Add and P.Pack is ms.ops.Stack  # MindSpore's old names
    assert C.GradOperation is ms.ops.GradOperation and C.HyperMap is ms.ops.HyperMap
    assert F.cast is ms.ops.cast and F.depend is ms.ops.depend and F.shape is ms.ops.shape
    assert F.tensor_mul is ms.ops.mul
    assert ms.ops.operations is frontend_ops.operations
    # one module per file: `import mindjit.nn.optim` is not a second copy of the package
    assert sys.modules["mindjit.nn.optim"] is optim
    assert sys.modules["mindjit.ops.operations"] is frontend_ops.operations


def test_operations_holds_the_primitive_classes_only():
    names = dir(P)
    assert {"MatMul", "BiasAdd", "ReduceMean", "Softmax", "TensorAdd"} <= set(names)
    assert "matmul" not in names and "Primitive" not in names and "GradOperation" not in names
    star: dict = {}
    exec("from mindjit.ops.operations import *", star)
    assert star["MatMul"] is ms.ops.MatMul and "matmul" not in star
    assert "matmul" in dir(F) and "MatMul" not in dir(F)
    assert P.ReduceMean().keep_dims is False and P.Softmax().axis == -1
    assert P.Concat().axis == 0


MISSING = [
    ("from mindjit.ops import operations as P; P.ApplyAdaMax", "ops.operations.ApplyAdaMax"),
    ("from mindjit.ops import composite as C; C.env_get", "ops.composite.env_get"),
    ("from mindjit.ops import functional as F; F.no_such_op", "ops.functional.no_such_op"),
    ("from mindjit.ops import functional as F; F.Cast", "ops.functional.Cast"),
    (
        "import mindjit as ms; ms.ops.primitive.prim_arg_register",
        "ops.primitive.prim_arg_register",
    ),
    ("import mindjit as ms; ms.nn.layer.basic.Dense3D", "nn.layer.basic.Dense3D"),
]


@pytest.mark.parametrize(("statement", "path"), MISSING)
def test_missing_name_is_an_attribute_error_naming_it(statement, path):
    with pytest.raises(
        AttributeError, match=re.escape(f"mindjit does not implement mindspore.{path}")
    ):
        exec(statement, {})


def test_missing_name_in_from_import_keeps_the_message():
    with pytest.raises(ImportError, match="does not implement mindspore.ops.operations.Conv3D"):
        exec("from mindjit.ops.operations import Conv3D", {})
    with pytest.raises(ImportError, match="mindspore.nn.wrap.grad_reducer.PipelineGradReducer"):
        exec("from mindjit.nn.wrap.grad_reducer import PipelineGradReducer", {})
    exec("from mindjit.nn.wrap.grad_reducer import DistributedGradReducer", {})  # issue 39


def test_missing_name_hint_and_hasattr():
    with pytest.raises(AttributeError, match=r"Matmul \(mindjit has ops.operations.MatMul\)"):
        P.Matmul  # noqa: B018
    assert not hasattr(P, "ApplyAdaMax") and hasattr(P, "MatMul")
    assert not hasattr(P, "__path__")  # a module, not a package, to the import system


# --- programs in the zoo's style, in both modes -------------------------------------


class PrimNet(nn.Cell):
    """A network of primitive instances made in __init__ and called in construct."""

    def __init__(self):
        super().__init__()
        self.w = Parameter(initializer(Normal(0.5), (6, 4), mstype.float32), name="w")
        self.b = Parameter(initializer(Normal(0.5), (4,), mstype.float32), name="b")
        self.matmul = P.MatMul()
        self.bias_add = P.BiasAdd()
        self.relu = P.ReLU()
        self.reshape = P.Reshape()
        self.shape = P.Shape()
        self.transpose = P.Transpose()
        self.softmax = P.Softmax(axis=-1)
        self.cast = P.Cast()
        self.concat = P.Concat(axis=1)
        self.mean = P.ReduceMean(keep_dims=True)

    def construct(self, x):
        n = self.shape(x)[0]
        h = self.relu(self.bias_add(self.matmul(self.reshape(x, (n, -1)), self.w), self.b))
        t = self.reshape(self.transpose(self.reshape(h, (n, 2, 2)), (0, 2, 1)), (n, 4))
        low = self.cast(self.cast(h, mstype.float16), mstype.float32)
        return self.mean(self.concat((self.softmax(t), low)), 1)


def _prim_net_numpy(net: PrimNet, x: np.ndarray) -> np.ndarray:
    n = x.shape[0]
    h = np.maximum(x.reshape(n, -1) @ net.w.asnumpy() + net.b.asnumpy(), 0)
    t = h.reshape(n, 2, 2).transpose(0, 2, 1).reshape(n, 4)
    e = np.exp(t - t.max(-1, keepdims=True))
    both = np.concatenate([e / e.sum(-1, keepdims=True), h.astype(np.float16)], axis=1)
    return both.astype(np.float32).mean(1, keepdims=True)


def _x() -> Tensor:
    return Tensor(np.linspace(-1, 1, 12, dtype=np.float32).reshape(2, 2, 3))


def _in_mode(mode, fn, *args):
    ms.set_context(mode=mode)
    try:
        return fn(*args)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_primitive_network_matches_numpy(mode):
    ms.set_seed(2)
    net = PrimNet()
    got = _in_mode(mode, net, _x()).asnumpy()
    assert got.shape == (2, 1)
    np.testing.assert_allclose(got, _prim_net_numpy(net, _x().asnumpy()), rtol=1e-5)


class TrainOneStep(nn.Cell):
    """The training wrapper as model-zoo code writes it."""

    def __init__(self, network, optimizer):
        super().__init__(auto_prefix=False)
        self.network = network
        self.weights = ParameterTuple(network.trainable_params())
        self.optimizer = optimizer
        self.grad = C.GradOperation(get_by_list=True)

    def construct(self, x, y):
        loss = self.network(x, y)
        grads = self.grad(self.network, self.weights)(x, y)
        return F.depend(loss, self.optimizer(grads))


class JitTrainOneStep(TrainOneStep):
    @ms.jit
    def construct(self, x, y):
        loss = self.network(x, y)
        grads = self.grad(self.network, self.weights)(x, y)
        return F.depend(loss, self.optimizer(grads))


def _train(mode, wrapper=TrainOneStep, steps=4):
    ms.set_seed(2)
    net = PrimNet()
    loss_net = nn.WithLossCell(net, nn.MSELoss())
    step = wrapper(loss_net, nn.Momentum(net.trainable_params(), 0.5, 0.9))
    y = Tensor(np.array([[0.9], [0.1]], np.float32))
    losses = _in_mode(mode, lambda: [float(step(_x(), y).asnumpy()) for _ in range(steps)])
    return losses, [p.asnumpy().copy() for p in net.trainable_params()]


def test_train_one_step_the_old_way_same_in_every_mode():
    want_losses, want_params = _train(ms.PYNATIVE_MODE)
    assert want_losses[-1] < want_losses[0]
    for mode, wrapper in [(ms.GRAPH_MODE, TrainOneStep), (ms.PYNATIVE_MODE, JitTrainOneStep)]:
        losses, params = _train(mode, wrapper)
        np.testing.assert_allclose(losses, want_losses, rtol=1e-5)
        for got, want in zip(params, want_params, strict=True):
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


_grad_scale = C.MultitypeFuncGraph("grad_scale")


@_grad_scale.register("Number", "Tensor")
def _scale_grad(scale, grad):
    return grad * F.cast(scale, F.dtype(grad))


class ScaledGrads(nn.Cell):
    """Gradients by GradOperation over a ParameterTuple, scaled with HyperMap and
    F.partial over a MultitypeFuncGraph (the zoo's loss-scale and clipping pattern)."""

    def __init__(self, network):
        super().__init__(auto_prefix=False)
        self.network = network
        self.weights = ParameterTuple(network.trainable_params())
        self.grad = C.GradOperation(get_by_list=True, sens_param=True)
        self.hyper_map = C.HyperMap()

    def construct(self, x, sens):
        grads = self.grad(self.network, self.weights)(x, sens)
        return self.hyper_map(F.partial(_grad_scale, 0.5), grads)


def test_hyper_map_partial_over_parameter_tuple_grads(mode):
    ms.set_seed(2)
    net = PrimNet()
    sens = Tensor(np.ones((2, 1), np.float32))
    got = _in_mode(mode, ScaledGrads(net), _x(), sens)
    want = C.GradOperation(get_by_list=True, sens_param=True)(net, ParameterTuple([net.w, net.b]))(
        _x(), sens
    )
    assert isinstance(got, tuple) and len(got) == 2
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g.asnumpy(), 0.5 * w.asnumpy(), rtol=1e-5, atol=1e-7)


# --- constexpr ----------------------------------------------------------------------


@constexpr
def _flat_size(shape):
    size = 1
    for d in shape:
        size *= d
    return size


class Flatten(nn.Cell):
    def construct(self, x):
        return F.reshape(x, (_flat_size(F.shape(x)),)) * 2


def test_constexpr_computes_a_constant(mode):
    got = _in_mode(mode, Flatten(), _x())
    np.testing.assert_allclose(got.asnumpy(), _x().asnumpy().reshape(-1) * 2)


SEEN: list = []


@constexpr
def _is_known(value):
    SEEN.append(value)
    return 1.0 if value is None else 2.0


class Known(nn.Cell):
    def construct(self, x):
        return x * _is_known(x) + _is_known(F.shape(x)[0])


def test_constexpr_gets_none_for_a_graph_tensor_with_a_warning():
    x = Tensor(np.array([3.0, 3.0], np.float32))
    SEEN.clear()
    np.testing.assert_array_equal(_in_mode(ms.PYNATIVE_MODE, Known(), x).asnumpy(), [8.0, 8.0])
    assert isinstance(SEEN[0], Tensor) and SEEN[1] == 2  # PyNative: a plain call
    SEEN.clear()
    with pytest.warns(RuntimeWarning, match='"_is_known" is a constexpr function'):
        got = _in_mode(ms.GRAPH_MODE, Known(), x)
    np.testing.assert_array_equal(got.asnumpy(), [5.0, 5.0])
    assert SEEN == [None, 2]  # the graph's tensor is None, its static shape a constant


def test_constexpr_options():
    calls = []

    @constexpr(get_instance=False, name="TupleLen")
    def tuple_len(x):
        calls.append(x)
        return len(x)

    op = tuple_len()
    assert isinstance(op, ms.ops.primitive.Primitive) and op.name == "TupleLen"
    assert op((1, 2, 3)) == 3

    @ms.jit
    def twice(x):
        return x * op(x.shape) + x * op(x.shape)

    calls.clear()
    np.testing.assert_allclose(twice(Tensor(np.ones((2, 5), np.float32))).asnumpy(), 4.0)
    assert calls == [(2, 5)]  # reuse_result: one run for the same constant arguments

    @constexpr(reuse_result=False, check=False)
    def again(x):
        calls.append(x)
        return 1

    @ms.jit
    def both(x):
        return x * again(3) + x * again(3) + x * again(x)

    calls.clear()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # check=False: no warning
        both(Tensor([1.0]))
    assert calls == [3, 3, None]


# --- ParameterTuple, Parameter.clone, Tensor.from_numpy, seeds, old names -------------


def test_parameter_tuple_checks_and_clone():
    a = Parameter(Tensor([1.0, 2.0]), name="a")
    b = Parameter(Tensor([3.0]), name="b")
    pt = ParameterTuple([a, b])
    assert isinstance(pt, tuple) and pt == (a, b)
    assert ParameterTuple([a, a]) == (a, a)  # one Parameter twice is kept
    with pytest.raises(ValueError, match="its name 'a' already exists"):
        ParameterTuple([a, Parameter(Tensor([0.0]), name="a")])
    with pytest.raises(TypeError, match="should be 'Parameter' collection"):
        ParameterTuple([a, Tensor([1.0])])
    zeros = pt.clone("moments", init="zeros")
    assert isinstance(zeros, ParameterTuple) and [p.name for p in zeros] == [
        "moments.a",
        "moments.b",
    ]
    np.testing.assert_array_equal(zeros[0].asnumpy(), [0.0, 0.0])
    same = pt.clone(prefix="copy")
    np.testing.assert_array_equal(same[0].asnumpy(), [1.0, 2.0])
    assert same[0] is not a and a.name == "a"
    np.testing.assert_array_equal(a.clone(init=0.5).asnumpy(), [0.5, 0.5])


def test_tensor_from_numpy_shares_memory():
    array = np.arange(6, dtype=np.float32).reshape(2, 3)
    t = Tensor.from_numpy(array)
    array[0, 0] = 7.0
    assert t.asnumpy()[0, 0] == 7.0 and t.dtype == ms.float32
    assert Tensor.from_numpy(array.T).shape == (3, 2)  # not contiguous: a contiguous copy
    with pytest.raises(TypeError, match="numpy.ndarray"):
        Tensor.from_numpy([1.0])


def test_get_seed_is_the_seed_set():
    ms.set_seed(123)
    assert ms.get_seed() == 123


def test_ms_function_and_ms_class_are_deprecated_jit_and_jit_class():
    with pytest.warns(DeprecationWarning, match="Please use 'mindspore.jit' instead"):
        double = ms.ms_function(lambda x: x * 2)
    np.testing.assert_allclose(double(Tensor([1.5])).asnumpy(), [3.0])
    with pytest.warns(DeprecationWarning, match="Please use 'mindspore.jit_class' instead"):

        @ms.ms_class
        class Config:
            pass

    assert Config.__ms_class__
