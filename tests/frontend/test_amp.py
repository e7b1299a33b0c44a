"""mindjit.amp and Cell.to_float against MindSpore 2.10.

The reference values were printed by MindSpore 2.10 on the CPU (the probe
scripts ran `mindspore.amp` on the same network, weights and inputs) and are
pasted here as constants. Float16 results are compared with a tolerance: a
float16 result is rounded at every op (eps16 = 2**-10), and MindSpore itself
gives PyNative and graph-mode results that differ by up to 2 float16 ulps of
the output (0.0078 on 6.47 below), as IREE's float16 kernels do against
numpy's. `_close16` allows 4 ulps of the output's magnitude. Dtypes are
compared exactly; float32 results (O0) within float32 rounding.
"""

from __future__ import annotations

import logging

import numpy as np
import pytest

import mindjit as ms
from mindjit import Tensor, amp, nn
from mindjit.frontend.graph import api

EPS16 = 2.0**-10

W1 = (np.arange(12, dtype=np.float32).reshape(4, 3) / 7 - 0.6).astype(np.float32)
B1 = np.array([0.1, -0.2, 0.3, -0.4], np.float32)
W2 = (np.arange(8, dtype=np.float32).reshape(2, 4) / 5 - 0.7).astype(np.float32)
B2 = np.array([0.05, -0.15], np.float32)
X = (np.arange(15, dtype=np.float32).reshape(5, 3) / 3 - 2.2).astype(np.float32)
Y = (np.arange(10, dtype=np.float32).reshape(5, 2) / 4 - 1).astype(np.float32)


class Net(nn.Cell):
    """Dense - BatchNorm1d - Dense, plus a float32 term (MindSpore's probe network)."""

    def __init__(self):
        super().__init__()
        self.d = nn.Dense(3, 4, weight_init=Tensor(W1), bias_init=Tensor(B1))
        self.bn = nn.BatchNorm1d(4)
        self.d2 = nn.Dense(4, 2, weight_init=Tensor(W2), bias_init=Tensor(B2))

    def construct(self, x):
        h = self.d(x)
        h = self.bn(h)
        return self.d2(h) + x.sum()


# MindSpore 2.10, eval mode, output of Net at each level (PyNative; graph mode within 2 ulps)
MS_EVAL = {
    "O0": [
        [1.1416228, -2.241599],
        [1.5359066, -0.06446731],
        [1.9301904, 2.1126647],
        [2.3244743, 4.2897964],
        [2.7187586, 6.4669285],
    ],
    "O1": [
        [1.141601, -2.2382817],
        [1.5353998, -0.06445372],
        [1.9301142, 2.1126704],
        [2.3251948, 4.289062],
        [2.7187495, 6.472656],
    ],
    "O2": [
        [1.1416016, -2.2382812],
        [1.5351562, -0.064453125],
        [1.9296875, 2.1132812],
        [2.3242188, 4.2890625],
        [2.71875, 6.4726562],
    ],
}
MS_EVAL["O3"] = MS_EVAL["O2"]
# MindSpore graph mode's last row at O2/O3 (PyNative: 6.4726562): 2 ulps apart
MS_GRAPH_O2_LAST = [2.71875, 6.4648438]
# Dense(3, 4).to_float(float16) on X (PyNative)
MS_DENSE16 = [
    [2.754, 0.05518, -1.845, -4.94],
    [1.384, -0.0304, -0.6445, -2.459],
    [0.01245, -0.1162, 0.555, 0.02661],
    [-1.359, -0.2018, 1.755, 2.512],
    [-2.73, -0.2876, 2.955, 5.0],
]
# Dense(3, 4).to_float(float32) on X as float16: a float32 result
MS_DENSE32_ON16 = [
    [2.75452, 0.05510609, -1.8443079, -4.943722],
    [1.3839008, -0.03042686, -0.64475447, -2.4590821],
    [0.012402341, -0.11621094, 0.5551758, 0.026562482],
    [-1.3591797, -0.20186944, 1.755441, 2.5127509],
    [-2.7301621, -0.28755587, 2.9550502, 4.997656],
]
# O2, training mode: last output row and BatchNorm's moving_mean after one call (PyNative)
MS_O2_TRAIN_LAST = [3.1816406, 2.9824219]
MS_O2_MOVING_MEAN = [0.001206055, -0.01161621, 0.05551758, 0.002758789]


@pytest.fixture(autouse=True)
def _restore():
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    api.clear_cache()


@pytest.fixture(params=[ms.PYNATIVE_MODE, ms.GRAPH_MODE], ids=["pynative", "graph"])
def mode(request):
    ms.set_context(mode=request.param)
    return request.param


def _close16(got, want) -> None:
    want = np.asarray(want, np.float32)
    atol = 4 * EPS16 * max(1.0, float(np.abs(want).max()))
    np.testing.assert_allclose(np.asarray(got, np.float32), want, rtol=0, atol=atol)


# --- levels ------------------------------------------------------------------------------------
@pytest.mark.parametrize("level", ["O0", "O1", "O2", "O3"])
def test_levels_match_mindspore(mode, level):
    net = amp.auto_mixed_precision(Net(), level)
    net.set_train(False)
    out = net(Tensor(X))
    assert out.dtype == ms.float32
    if level == "O0":
        np.testing.assert_allclose(out.asnumpy(), MS_EVAL["O0"], rtol=1e-6, atol=1e-6)
        assert type(net) is Net
    else:
        _close16(out.asnumpy(), MS_EVAL[level])
        if level in ("O2", "O3"):
            _close16(out.asnumpy()[-1], MS_GRAPH_O2_LAST)
            assert type(net).__name__ == "_OutputTo32"
        # not float32: float16 rounding is visible (the O0 value is 6.4669285)
        assert abs(float(out.asnumpy()[-1, 1]) - MS_EVAL["O0"][-1][1]) > 1e-3
    assert net._amp_level == level if level != "O0" else True


def test_levels_agree_between_modes():
    outs = {}
    for m in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=m)
        for level in ("O1", "O2", "O3"):
            net = amp.auto_mixed_precision(Net(), level)
            net.set_train(False)
            outs[m, level] = net(Tensor(X)).asnumpy()
    for level in ("O1", "O2", "O3"):
        np.testing.assert_array_equal(outs[ms.PYNATIVE_MODE, level], outs[ms.GRAPH_MODE, level])


def test_o2_structure_and_names_as_mindspore():
    net = amp.auto_mixed_precision(Net(), "O2")
    assert [(k, type(c).__name__) for k, c in net.cells_and_names()] == [
        ("", "_OutputTo32"),
        ("_backbone", "Net"),
        ("_backbone.d", "Dense"),
        ("_backbone.bn", "_OutputTo16"),
        ("_backbone.bn._backbone", "BatchNorm1d"),
        ("_backbone.d2", "Dense"),
    ]
    assert {p.name for p in net.get_parameters()} == {
        "d.weight",
        "d.bias",
        "bn.moving_mean",
        "bn.moving_variance",
        "bn.gamma",
        "bn.beta",
        "d2.weight",
        "d2.bias",
    }
    bn = net._backbone.bn._backbone
    assert bn._flags["fp32"] and net._backbone.d._flags["fp16"]
    # Parameters stay float32: only their reads are cast
    assert all(p.dtype == ms.float32 for p in net.get_parameters())


def test_o1_wraps_white_list_cells():
    net = amp.auto_mixed_precision(Net(), "O1")
    kinds = {k: type(c).__name__ for k, c in net.cells_and_names()}
    assert kinds["d"] == "_CastTo32" and kinds["d._backbone"] == "Dense"
    assert kinds["bn"] == "BatchNorm1d" and kinds["d2"] == "_CastTo32"


@pytest.mark.parametrize("level", ["O2", "O3"])
def test_training_batchnorm_statistics(mode, level):
    net = amp.auto_mixed_precision(Net(), level)
    net.set_train(True)
    out = net(Tensor(X))
    bn = next(c for _, c in net.cells_and_names() if isinstance(c, nn.BatchNorm1d))
    _close16(out.asnumpy()[-1], MS_O2_TRAIN_LAST)
    assert bn.moving_mean.dtype == ms.float32  # the statistics stay float32, as in MindSpore
    np.testing.assert_allclose(
        bn.moving_mean.asnumpy(), MS_O2_MOVING_MEAN, rtol=0, atol=4 * EPS16 * 0.06
    )


# --- to_float -----------------------------------------------------------------------------------
def test_to_float16(mode):
    dense = nn.Dense(3, 4, weight_init=Tensor(W1), bias_init=Tensor(B1))
    assert dense.to_float(ms.float16) is dense
    out = dense(Tensor(X))
    assert out.dtype == ms.float16
    _close16(out.asnumpy(), MS_DENSE16)
    assert dense.weight.dtype == ms.float32  # the Parameter itself is not changed


def test_to_float32_on_float16_input(mode):
    dense = nn.Dense(3, 4, weight_init=Tensor(W1), bias_init=Tensor(B1)).to_float(ms.float32)
    out = dense(Tensor(X, ms.float16))
    assert out.dtype == ms.float32
    np.testing.assert_allclose(out.asnumpy(), MS_DENSE32_ON16, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("bad", [ms.int32, ms.float64, "float16"])
def test_to_float_bad_type(bad):
    with pytest.raises(ValueError, match="For 'to_float', the argument 'dst_type' must be"):
        nn.Dense(3, 4).to_float(bad)


def test_precision_is_part_of_the_program_key():
    """The same Cell compiled in float32, then to_float(float16): a new program."""
    ms.set_context(mode=ms.GRAPH_MODE)
    dense = nn.Dense(3, 4, weight_init=Tensor(W1), bias_init=Tensor(B1))
    assert dense(Tensor(X)).dtype == ms.float32
    dense.to_float(ms.float16)
    assert dense(Tensor(X)).dtype == ms.float16
    dense.to_float(ms.float32)
    assert dense(Tensor(X)).dtype == ms.float32


class _Twice(nn.Cell):
    """One helper function called from a float16 and a float32 sub-Cell."""

    def __init__(self):
        super().__init__()
        self.a = _Scaled()
        self.b = _Scaled()

    def construct(self, x):
        return self.a(x), self.b(x)


def _double(x):
    return x * 2


class _Scaled(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(Tensor(np.float32(1.0009765625)), name="w")

    def construct(self, x):
        return _double(x * self.w)


def test_a_graph_is_not_shared_across_precisions(mode):
    net = _Twice()
    net.a.to_float(ms.float16)
    a, b = net(Tensor(np.array([1.5], np.float32)))
    assert a.dtype == ms.float16 and b.dtype == ms.float32
    assert float(b.asnumpy()[0]) == pytest.approx(3.0029296875)


def test_gradient_through_to_float_reaches_the_float32_parameters(mode):
    dense = nn.Dense(3, 4, weight_init=Tensor(W1), bias_init=Tensor(B1)).to_float(ms.float16)
    grad = ms.grad(lambda x: dense(x).sum(), grad_position=None, weights=dense.trainable_params())
    if mode == ms.GRAPH_MODE:
        grad = ms.jit(grad)
    gw, gb = grad(Tensor(X))
    assert gw.dtype == ms.float32 and gb.dtype == ms.float32
    np.testing.assert_allclose(gb.asnumpy(), [5.0] * 4)
    _close16(gw.asnumpy(), np.tile(X.sum(0), (4, 1)))


# --- custom_mixed_precision, lists --------------------------------------------------------------
def test_lists():
    white, black = amp.get_white_list(), amp.get_black_list()
    assert nn.Dense in white and nn.Conv2d in white and nn.LSTMCell in white
    assert ms.ops.MatMul in white
    assert black == [
        nn.BatchNorm1d,
        nn.BatchNorm2d,
        nn.BatchNorm3d,
        nn.LayerNorm,
    ]  # MindSpore's list
    white.append(nn.Flatten)
    assert nn.Flatten not in amp.get_white_list()  # a copy


def test_custom_black_list_is_o2(mode, caplog):
    with caplog.at_level(logging.WARNING, logger="mindjit.amp"):
        net = amp.custom_mixed_precision(Net(), black_list=[nn.BatchNorm1d])
    assert "LayerNorm" in caplog.text  # removed from the internal black list
    net.set_train(False)
    _close16(net(Tensor(X)).asnumpy(), MS_EVAL["O2"])


def test_custom_white_list_is_o1(mode):
    net = amp.custom_mixed_precision(Net(), white_list=amp.get_white_list())
    net.set_train(False)
    _close16(net(Tensor(X)).asnumpy(), MS_EVAL["O1"])


def _raises(exc, message, fn):
    with pytest.raises(exc) as info:
        fn()
    assert str(info.value) == message


def test_bad_arguments_as_mindspore():
    net = nn.Dense(3, 2)
    _raises(
        TypeError,
        "For amp_level 'O1', the network type should be Cell.",
        lambda: amp.auto_mixed_precision(lambda x: x, "O1"),
    )
    _raises(
        ValueError,
        "The dtype should be one of (mstype.float16, mstype.bfloat16), but got Float32.",
        lambda: amp.auto_mixed_precision(net, "O1", ms.float32),
    )
    _raises(
        ValueError,
        "The amp level O5 is not supported",
        lambda: amp.auto_mixed_precision(net, "O5"),
    )
    with pytest.raises(NotImplementedError, match="'auto'"):
        amp.auto_mixed_precision(net, "auto")
    _raises(
        TypeError,
        "The network type should be Cell.",
        lambda: amp.custom_mixed_precision(3, white_list=[]),
    )
    _raises(
        ValueError,
        "For custom_mixed_precision, one of white_list and black_list must be provided.",
        lambda: amp.custom_mixed_precision(net),
    )
    _raises(
        TypeError,
        "The type of white_list should be list, but got <class 'tuple'>",
        lambda: amp.custom_mixed_precision(net, white_list=(nn.Dense,)),
    )
    _raises(
        TypeError,
        "The element in white_list should be a class, but got 3",
        lambda: amp.custom_mixed_precision(net, white_list=[3]),
    )
    with pytest.raises(TypeError, match="should be one of 'Cell' and 'Primitive'"):
        amp.custom_mixed_precision(net, white_list=[int])
    with pytest.raises(TypeError, match="black_list should be one of 'Cell', but got"):
        amp.custom_mixed_precision(net, black_list=[ms.ops.MatMul])


# --- loss scalers -------------------------------------------------------------------------------
# MindSpore: DynamicLossScaler(1024, 2, 3).adjust(finite) -> (scale_value, counter)
MS_DYNAMIC = [
    (True, 1024.0, 1),
    (True, 1024.0, 2),
    (True, 2048.0, 0),
    (False, 1024.0, 0),
    (True, 1024.0, 1),
    (True, 1024.0, 2),
    (True, 2048.0, 0),
    (True, 2048.0, 1),
    (False, 1024.0, 0),
    (False, 512.0, 0),
]


def test_dynamic_loss_scaler_sequence():
    s = amp.DynamicLossScaler(1024, 2, 3)
    assert isinstance(s.scale_value, ms.Parameter) and s.scale_value.name == "scale_value"
    assert s.counter.name == "counter" and s.counter.dtype == ms.int32
    for finite, scale, counter in MS_DYNAMIC:
        assert s.adjust(Tensor(finite)) is True
        assert float(s.scale_value.asnumpy()) == scale
        assert int(s.counter.asnumpy()) == counter
        assert s.scale_value.dtype == ms.float32


def test_dynamic_loss_scaler_in_a_graph():
    ms.set_context(mode=ms.GRAPH_MODE)
    s = amp.DynamicLossScaler(1024, 2, 3)

    @ms.jit
    def step(finite):
        s.adjust(finite)
        return s.scale_value * 1

    for finite, scale, counter in MS_DYNAMIC:
        assert float(step(Tensor(finite)).asnumpy()) == scale
        assert int(s.counter.asnumpy()) == counter


def test_scale_and_unscale():
    s = amp.DynamicLossScaler(1024, 2, 1)
    out = s.scale(Tensor(np.array([1.5, 2.0], np.float32)))
    np.testing.assert_array_equal(out.asnumpy(), [1536.0, 2048.0])
    a, b = s.scale((Tensor(np.array([1.5], np.float16)), Tensor(np.array([3.0], np.float32))))
    assert a.dtype == ms.float16 and b.dtype == ms.float32
    assert float(a.asnumpy()[0]) == 1536.0 and float(b.asnumpy()[0]) == 3072.0
    u = amp.StaticLossScaler(2**10).unscale(
        (Tensor(np.array([1.5, 1.0]), ms.float16), Tensor(np.array([1.2]), ms.float16))
    )
    # MindSpore: [1.4648e-03, 9.7656e-04], [1.1721e-03] (float16)
    assert u[0].dtype == ms.float16
    np.testing.assert_allclose(u[0].asnumpy(), [1.4648e-03, 9.7656e-04], rtol=1e-3)
    np.testing.assert_allclose(u[1].asnumpy(), [1.1721e-03], rtol=1e-3)
    st = amp.StaticLossScaler(8)
    assert float(st.scale(Tensor(1.0)).asnumpy()) == 8.0
    assert float(st.unscale(Tensor(8.0)).asnumpy()) == 1.0
    assert st.adjust(Tensor(False)) is False


def test_all_finite():
    r = amp.all_finite((Tensor([1.0, np.inf]),))
    assert r.dtype == ms.bool_ and r.shape == () and not bool(r.asnumpy())
    assert bool(amp.all_finite([Tensor([1.0]), Tensor([2, 3])]).asnumpy())
    assert not bool(amp.all_finite((Tensor([np.nan]),)).asnumpy())


def test_loss_scaler_arguments_as_mindspore():
    _raises(
        ValueError,
        "The argument 'scale_value' must be > 1, but got 0.5",
        lambda: amp.DynamicLossScaler(0.5, 2, 1),
    )
    _raises(
        TypeError,
        "The type of 'scale_value' should be one of '['float', 'int']', but got type 'str'.",
        lambda: amp.DynamicLossScaler("a", 2, 1),
    )
    _raises(
        TypeError,
        "The type of 'scale_value' should be one of '['float', 'int']', but got type 'bool'.",
        lambda: amp.StaticLossScaler(True),
    )
    _raises(
        ValueError,
        "The 'scale_window' must be int and must > 0, but got '0' with type 'int'.",
        lambda: amp.DynamicLossScaler(4, 2, 0),
    )
    _raises(
        TypeError,
        "The 'scale_factor' must be int, but got 'float'",
        lambda: amp.DynamicLossScaler(4, 2.5, 1),
    )


# --- loss scale managers --------------------------------------------------------------------------
def test_managers_as_mindspore():
    m = amp.DynamicLossScaleManager()
    assert (m.get_loss_scale(), m.scale_factor, m.scale_window) == (2**24, 2, 2000)
    assert m.get_drop_overflow_update() is True
    assert type(m.get_update_cell()) is nn.DynamicLossScaleUpdateCell
    m = amp.DynamicLossScaleManager(16, 2, 2)
    seen = []
    for overflow in (False, False, True, False, False, False):
        m.update_loss_scale(overflow)
        seen.append((m.get_loss_scale(), m.cur_iter, m.last_overflow_iter))
    # MindSpore's sequence
    assert seen == [(16, 2, 0), (32, 3, 0), (16.0, 4, 3), (16.0, 5, 3), (32.0, 6, 3), (32.0, 7, 3)]
    f = amp.FixedLossScaleManager()
    assert (f.get_loss_scale(), f.get_drop_overflow_update()) == (128.0, True)
    assert type(f.get_update_cell()) is nn.FixedLossScaleUpdateCell
    assert amp.FixedLossScaleManager(4, False).get_update_cell() is None
    _raises(
        ValueError,
        "The argument 'loss_scale' must be >= 1, but got 0.5",
        lambda: amp.FixedLossScaleManager(0.5),
    )
    _raises(
        ValueError,
        "For 'DynamicLossScaleManager', the 'scale_window' must be int and must > 0, but got "
        "'0' with type 'int'.",
        lambda: amp.DynamicLossScaleManager(4, 2, 0),
    )


# --- training ------------------------------------------------------------------------------------
def test_loss_scale_cell_overflow_halves_the_scale(mode):
    net = amp.auto_mixed_precision(Net(), "O2")
    train = nn.TrainOneStepWithLossScaleCell(
        nn.WithLossCell(net, nn.MSELoss()),
        nn.Momentum(net.trainable_params(), 0.1, 0.9),
        nn.DynamicLossScaleUpdateCell(1024.0, 2, 1000),
    )
    train.set_train()
    before = [p.asnumpy().copy() for p in net.trainable_params()]
    with np.errstate(all="ignore"):
        _, overflow, scale = train(Tensor(X * 300), Tensor(Y))  # float16 overflows
    assert bool(overflow.asnumpy()) and float(scale.asnumpy()) == 1024.0
    assert float(train.scale_sense.asnumpy()) == 512.0
    for b, p in zip(before, net.trainable_params()):
        np.testing.assert_array_equal(b, p.asnumpy())
    _, overflow, _ = train(Tensor(X), Tensor(Y))
    assert not bool(overflow.asnumpy())
    assert not np.array_equal(before[-1], net.trainable_params()[-1].asnumpy())


# MindSpore: build_train_network(level="O2", FixedLossScaleManager(1024, False)), Momentum(0.1,
# 0.9, loss_scale=1024), MSELoss: the losses of two steps (PyNative; graph mode 3.3893523,
# 2.505575) and d2.bias after them
MS_O2_LOSSES = [3.3899407, 2.5057664]
MS_O2_D2_BIAS = [-0.51425785, -0.59376955]


def _o2_train_two_steps():
    net = Net()
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9, loss_scale=1024.0)
    step = amp.build_train_network(
        net,
        opt,
        nn.MSELoss(),
        level="O2",
        loss_scale_manager=amp.FixedLossScaleManager(1024.0, False),
    )
    losses = [float(step(Tensor(X), Tensor(Y)).asnumpy()) for _ in range(2)]
    return step, net, losses


def test_build_train_network_o2_step(mode):
    step, net, losses = _o2_train_two_steps()
    assert type(step) is nn.TrainOneStepCell
    assert type(net.bn).__name__ == "_OutputTo16"
    np.testing.assert_allclose(losses, MS_O2_LOSSES, rtol=4 * EPS16)
    _close16(net.d2.bias.asnumpy(), MS_O2_D2_BIAS)


def test_o2_step_on_the_device_and_iree_gives_the_cpus_values():
    ms.set_context(mode=ms.GRAPH_MODE)
    _, cpu_net, cpu = _o2_train_two_steps()
    ms.set_context(device_target="Ascend")
    _, dev_net, dev = _o2_train_two_steps()
    assert dev == cpu  # the simulated device computes float16 as the CPU executor does
    np.testing.assert_array_equal(dev_net.d2.bias.asnumpy(), cpu_net.d2.bias.asnumpy())
    ms.set_context(device_target="CPU")
    pytest.importorskip("iree.runtime")
    ms.set_context(jit_config={"backend": "iree"})
    _, iree_net, on_iree = _o2_train_two_steps()
    assert api.cached_programs()[-1].executable.backend == "iree"
    # IREE's float16 kernels round differently (1 ulp per op): a few ulps of the output
    np.testing.assert_allclose(on_iree, cpu, rtol=8 * EPS16)
    _close16(iree_net.d2.bias.asnumpy(), cpu_net.d2.bias.asnumpy())


def test_build_train_network_update_cell_needs_the_device():
    net = Net()
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    with pytest.raises(ValueError, match="are supported on device `CPU`"):
        amp.build_train_network(net, opt, nn.MSELoss(), level="O2")
    ms.set_context(device_target="Ascend")
    step = amp.build_train_network(Net(), opt, nn.MSELoss(), level="O2")
    assert type(step) is nn.TrainOneStepWithLossScaleCell
    assert float(step.scale_sense.asnumpy()) == 2.0**24


def test_build_train_network_arguments_as_mindspore():
    net = nn.Dense(3, 2)
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    _raises(
        TypeError,
        "The type of 'optimizer' should be one of '['Optimizer', 'FreezeOpt', "
        "'AdaSumByGradWrapCell', 'AdaSumByDeltaWeightWrapCell']', but got type 'int'.",
        lambda: amp.build_train_network(net, 3),
    )
    _raises(
        TypeError,
        "The argument `level` must be a string in ['O0', 'O1', 'O2', 'O3', 'auto'],but got "
        "type <class 'int'>.",
        lambda: amp.build_train_network(net, opt, level=2),
    )
    _raises(
        ValueError,
        "The 'level' should be in : ['O0', 'O1', 'O2', 'O3', 'auto'], but got O7.",
        lambda: amp.build_train_network(net, opt, level="O7"),
    )
    _raises(ValueError, "Unsupported arg 'foo'", lambda: amp.build_train_network(net, opt, foo=1))
    _raises(
        TypeError,
        "The 'cast_model_type' should be one of [mindspore.float16, mindspore.float32], but "
        "got 'mindspore.int32'.",
        lambda: amp.build_train_network(net, opt, cast_model_type=ms.int32),
    )
    _raises(
        TypeError,
        "The type of 'keep_batchnorm_fp32' should be 'bool', but got type 'int'.",
        lambda: amp.build_train_network(net, opt, keep_batchnorm_fp32=1),
    )
    _raises(
        TypeError,
        "The type of 'loss_fn' should be 'Cell', but got type 'int'.",
        lambda: amp.build_train_network(net, opt, loss_fn=3),
    )
