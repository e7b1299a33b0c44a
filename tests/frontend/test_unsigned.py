"""Unsigned integer dtypes (ms.uint8, uint16, uint32, uint64): creation, printing,
MindSpore's promotion, casts, and the ops where the sign matters (compares,
division, max/min, reductions), alike in PyNative and graph mode."""

from __future__ import annotations

import numpy as np
import pytest

import mindjit as ms
import mindjit.dataset as ds
from mindjit import nn, ops
from mindjit.backend.ascend.executable import AscendExecutable
from mindjit.frontend import context as C
from mindjit.frontend.graph import api
from mindjit.frontend.graph.program_cache import HIT, MISS
from mindjit.frontend.ops.promotion import promote_types


def u8(*values):
    return ms.Tensor(np.array(values, np.uint8))


def run(mode, fn, *args):
    ms.set_context(mode=mode)
    return ms.jit(fn)(*args) if mode == ms.GRAPH_MODE else fn(*args)


def test_creation_printing_and_asnumpy():
    x = ms.Tensor(np.array([1, 2, 3], np.uint8))
    assert x.dtype == ms.uint8 and ms.uint8 is ms.dtype.uint8
    assert repr(x) == "Tensor(shape=[3], dtype=UInt8, value= [1, 2, 3])"
    assert x.asnumpy().dtype == np.uint8
    for dt, np_dt in ((ms.uint16, np.uint16), (ms.uint32, np.uint32), (ms.uint64, np.uint64)):
        t = ms.Tensor([1, 2], dtype=dt)
        assert t.dtype == dt and t.asnumpy().dtype == np_dt
    assert ms.Tensor([255], dtype=ms.uint8).asnumpy()[0] == 255
    assert repr(ms.uint16) == "UInt16" and ms.dtype.ubyte is ms.uint8


@pytest.mark.parametrize(
    "a, b, want",
    [
        (ms.uint8, ms.int8, ms.int16),
        (ms.uint8, ms.int16, ms.int16),
        (ms.uint8, ms.float16, ms.float16),
        (ms.uint8, ms.bool_, ms.uint8),
        (ms.uint8, ms.uint16, ms.uint16),
        (ms.uint16, ms.int16, ms.int32),
        (ms.uint32, ms.int8, ms.int64),
        (ms.uint32, ms.int64, ms.int64),
        (ms.uint64, ms.float32, ms.float32),
    ],
)
def test_promotion_table(a, b, want):
    assert promote_types(a, b) == want and promote_types(b, a) == want


def _add(a, b):
    return a + b


def test_uint64_with_a_signed_integer_has_no_common_type(mode):
    with pytest.raises(TypeError, match="uint64"):
        promote_types(ms.uint64, ms.int8)
    a, b = ms.Tensor(np.array([1], np.uint64)), ms.Tensor(np.array([1], np.int8))
    with pytest.raises(TypeError, match="UInt64 and Int8 have no common type") as info:
        run(mode, _add, a, b)
    if mode == ms.GRAPH_MODE:  # located at the user's line
        assert "test_unsigned.py" in str(info.value)


def test_promotion_with_numbers_and_tensors(mode):
    x = u8(200, 7)
    assert run(mode, lambda a: a + 1, x).dtype == ms.uint8
    assert run(mode, lambda a: a * 0.5, x).dtype == ms.float32
    y = run(mode, lambda a, b: a + b, x, ms.Tensor(np.array([-1, 1], np.int8)))
    assert y.dtype == ms.int16
    np.testing.assert_array_equal(y.asnumpy(), [199, 8])
    z = run(mode, lambda a, b: a + b, x, ms.Tensor(np.array([1, 1], np.float16)))
    assert z.dtype == ms.float16
    np.testing.assert_array_equal(z.asnumpy(), [201, 8])
    w = run(mode, lambda a: a + 100, x)  # wraps as uint8
    np.testing.assert_array_equal(w.asnumpy(), [44, 107])


def _sign_matters(a, b):
    return (
        a > b,
        a < b,
        a >= b,
        a // b,
        a % b,
        a / b,
        ops.maximum(a, b),
        ops.minimum(a, b),
        a - b,
        ops.abs(a),
        a.max(),
        a.min(),
        ops.argmax(a),
        ops.argmin(a),
        ops.sort(a)[0],
    )


def _expected(a: np.ndarray, b: np.ndarray):
    return (
        a > b,
        a < b,
        a >= b,
        a // b,
        a % b,
        (a / b).astype(np.float32),
        np.maximum(a, b),
        np.minimum(a, b),
        a - b,
        a,
        a.max(),
        a.min(),
        a.argmax(),
        a.argmin(),
        np.sort(a),
    )


def test_ops_where_the_sign_matters(mode):
    a = np.array([200, 7, 255, 128], np.uint8)
    b = np.array([100, 3, 1, 129], np.uint8)
    got = run(mode, _sign_matters, ms.Tensor(a), ms.Tensor(b))
    for i, (g, w) in enumerate(zip(got, _expected(a, b), strict=True)):
        np.testing.assert_array_equal(g.asnumpy(), w, err_msg=f"output {i}")
    assert got[5].dtype == ms.float32  # division of integers is float32
    assert got[3].dtype == ms.uint8 and got[6].dtype == ms.uint8


def test_pynative_and_graph_agree():
    a, b = u8(200, 7, 255, 128), u8(100, 3, 1, 129)
    eager = run(ms.PYNATIVE_MODE, _sign_matters, a, b)
    graph = run(ms.GRAPH_MODE, _sign_matters, a, b)
    for e, g in zip(eager, graph, strict=True):
        assert e.dtype == g.dtype
        np.testing.assert_array_equal(e.asnumpy(), g.asnumpy())


def _casts(x, f):
    return (
        ops.cast(x, ms.float32),
        ops.cast(x, ms.int8),
        ops.cast(x, ms.int32),
        ops.cast(x, ms.uint16),
        ops.cast(f, ms.uint8),
        ops.cast(ops.cast(x, ms.int8), ms.uint8),
        ops.cast(ms.Tensor(np.array([-1, 300], np.int32)), ms.uint8),
        ops.cast(ms.Tensor(np.array([-1, 2], np.int8)), ms.uint16),
    )


def test_casts_wrap_as_numpy(mode):
    x = np.array([0, 127, 128, 255], np.uint8)
    f = np.array([0.0, 2.7, 127.5, 255.0], np.float32)
    got = run(mode, _casts, ms.Tensor(x), ms.Tensor(f))
    want = (
        x.astype(np.float32),
        x.astype(np.int8),
        x.astype(np.int32),
        x.astype(np.uint16),
        f.astype(np.uint8),
        x,
        np.array([-1, 300], np.int32).astype(np.uint8),
        np.array([-1, 2], np.int8).astype(np.uint16),
    )
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        assert g.asnumpy().dtype == w.dtype, i
        np.testing.assert_array_equal(g.asnumpy(), w, err_msg=f"output {i}")


def test_sums_and_other_widths(mode):
    for np_dt in (np.uint16, np.uint32, np.uint64):
        big = np.iinfo(np_dt).max
        a = np.array([big, 1, 2], np_dt)
        b = np.array([1, 2, big], np_dt)
        got = run(
            mode,
            lambda p, q: (p > q, ops.maximum(p, q), p // q, p.sum()),
            ms.Tensor(a),
            ms.Tensor(b),
        )
        np.testing.assert_array_equal(got[0].asnumpy(), a > b)
        np.testing.assert_array_equal(got[1].asnumpy(), np.maximum(a, b))
        np.testing.assert_array_equal(got[2].asnumpy(), a // b)
        assert got[3].asnumpy() == a.sum(dtype=np_dt)


def _cast_mul_sum(x, w):
    return (ops.cast(x, ms.float32) * w).sum()


def test_gradients_through_a_uint8_input_as_int8(mode):
    """An integer input's gradient is the cast's adjoint cast back, as for int8."""
    ms.set_context(mode=mode)
    w = ms.Tensor(np.ones(3, np.float32))
    grad = ms.grad(_cast_mul_sum, grad_position=(0, 1))
    gx, gw = grad(u8(1, 2, 3), w)
    gx8, _ = grad(ms.Tensor(np.array([1, 2, 3], np.int8)), w)
    np.testing.assert_array_equal(gw.asnumpy(), [1, 2, 3])
    assert gx.dtype == ms.uint8 and gx8.dtype == ms.int8
    np.testing.assert_array_equal(gx.asnumpy(), gx8.asnumpy())
    api.clear_cache()


@pytest.fixture
def graph_cleanup():
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    api.clear_cache()


def test_on_the_device_as_on_the_cpu(graph_cleanup):
    """The simulated device: uint8 kernels on the vector unit, uint16 on AI CPU, same results."""
    a, b = u8(200, 7, 255, 128), u8(100, 3, 1, 129)
    cpu = run(ms.GRAPH_MODE, _sign_matters, a, b)
    ms.set_context(mode=ms.GRAPH_MODE, device_target="Ascend")
    device = ms.jit(_sign_matters)(a, b)
    assert isinstance(api.cached_programs()[-1].executable, AscendExecutable)
    for c, d in zip(cpu, device, strict=True):
        assert c.dtype == d.dtype
        np.testing.assert_array_equal(c.asnumpy(), d.asnumpy())
    wide = np.array([65535, 1], np.uint16)
    got = ms.jit(_casts_wide)(ms.Tensor(wide))
    np.testing.assert_array_equal(got[0].asnumpy(), [True, False])
    np.testing.assert_array_equal(got[1].asnumpy(), wide.astype(np.float32))


def _casts_wide(x):
    return x > 1, ops.cast(x, ms.float32)


def test_on_iree_as_on_the_cpu(graph_cleanup):
    """IREE takes signless integers: the module is made signless (backend/iree/signless.py),
    the ops already read the bits as unsigned, inputs and results keep uint8."""
    pytest.importorskip("iree.runtime")
    a, b = u8(200, 7, 255, 128), u8(100, 3, 1, 129)
    cpu = run(ms.GRAPH_MODE, _sign_matters, a, b)
    iree = ms.jit(_sign_matters, backend="iree")(a, b)
    assert api.cached_programs()[-1].executable.backend == "iree"
    for c, d in zip(cpu, iree, strict=True):
        assert c.dtype == d.dtype
        np.testing.assert_array_equal(c.asnumpy(), d.asnumpy())


def _less(a, b):
    return a < b


def test_int8_and_uint8_inputs_are_different_programs(graph_cleanup):
    """The same bits compare differently: the compiled program's key has the dtype."""
    ms.set_context(mode=ms.GRAPH_MODE)
    fn = ms.jit(_less)
    bits = np.array([200, 100], np.uint8)
    signed = fn(ms.Tensor(bits.view(np.int8)), ms.Tensor(np.array([0, 0], np.int8)))
    unsigned = fn(ms.Tensor(bits), ms.Tensor(np.array([0, 0], np.uint8)))
    np.testing.assert_array_equal(signed.asnumpy(), [True, False])
    np.testing.assert_array_equal(unsigned.asnumpy(), [False, False])


class _ImageNet(nn.Cell):
    """uint8 images scaled in the graph (cast, / 255), as the tutorials' networks."""

    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(12, 2)

    def construct(self, image):
        x = ops.cast(image, ms.float32) / 255
        return self.dense(x.reshape((x.shape[0], -1)))


def test_uint8_dataset_into_a_graph_mode_train_step(graph_cleanup):
    rng = np.random.default_rng(0)
    images = rng.integers(0, 256, (8, 2, 2, 3)).astype(np.uint8)
    labels = (images.reshape(8, -1).mean(1) > 127).astype(np.int32)
    data = ds.NumpySlicesDataset((images, labels), ["image", "label"], shuffle=False).batch(4)
    batches = list(data.create_tuple_iterator())
    assert all(image.dtype == ms.uint8 for image, _ in batches)
    np.testing.assert_array_equal(batches[0][0].asnumpy(), images[:4])

    ms.set_context(mode=ms.GRAPH_MODE)
    ms.set_seed(1)
    net = _ImageNet()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.SGD(net.trainable_params(), 0.5))
    losses = [float(step(image, label).asnumpy()) for _ in range(15) for image, label in batches]
    assert losses[-1] < losses[0]
    scaled = images[:4].astype(np.float32).reshape(4, -1) / 255
    w, b = net.dense.weight.asnumpy(), net.dense.bias.asnumpy()
    np.testing.assert_allclose(net(batches[0][0]).asnumpy(), scaled @ w.T + b, rtol=1e-5, atol=1e-6)


class _Counter(nn.Cell):
    def __init__(self):
        super().__init__()
        self.seen = ms.Parameter(ms.Tensor(np.array([250, 0], np.uint8)), name="seen")

    def construct(self, x):
        ops.assign(self.seen, self.seen + x)
        return self.seen


@pytest.mark.parametrize("fmt", ["ckpt", "safetensors"])
def test_uint8_parameters_update_save_and_load(mode, fmt, tmp_path):
    net = _Counter()
    ms.set_context(mode=mode)
    out = net(u8(10, 1))  # 250 + 10 wraps
    np.testing.assert_array_equal(out.asnumpy(), [4, 1])
    path = str(tmp_path / f"u.{fmt}")
    ms.save_checkpoint(net, path, format=fmt)
    loaded = ms.load_checkpoint(path, format=fmt)
    assert loaded["seen"].dtype == ms.uint8
    np.testing.assert_array_equal(loaded["seen"].asnumpy(), [4, 1])
    api.clear_cache()


def test_the_compile_cache_keeps_unsigned_programs_apart(tmp_path, capsys, graph_cleanup):
    """A warm hit gives the uint8 program's results; the int8 program is its own entry."""
    ms.set_context(mode=ms.GRAPH_MODE, enable_compile_cache=True, compile_cache_path=str(tmp_path))
    a, b = u8(200, 7, 255, 128), u8(100, 3, 1, 129)
    results = []
    for _ in range(2):
        api.clear_cache()  # as a new process would: nothing compiled in memory
        results.append(ms.jit(_sign_matters)(a, b))
        results.append(
            ms.jit(_less)(
                ms.Tensor(np.array([200], np.uint8).view(np.int8)),
                ms.Tensor(np.array([0], np.int8)),
            )
        )
    err = capsys.readouterr().err
    assert err.count(MISS) == 2 and err.count(HIT) == 2
    for c, w in zip(results[0], results[2], strict=True):
        assert c.dtype == w.dtype
        np.testing.assert_array_equal(c.asnumpy(), w.asnumpy())
    np.testing.assert_array_equal(results[3].asnumpy(), [True])
    C.reset_context()


def _wide(p, q):
    return p > q, ops.maximum(p, q), p // q, p.sum(), ops.cast(p, ms.float32), ops.argmax(p)


@pytest.mark.parametrize("np_dt", [np.uint16, np.uint32, np.uint64])
def test_wide_unsigned_on_iree_and_the_device(np_dt, graph_cleanup):
    """Values above the signed maximum: the device's AI CPU kernels and IREE's
    signless code read them unsigned, as the CPU executor does."""
    pytest.importorskip("iree.runtime")
    big = np.iinfo(np_dt).max
    a, b = ms.Tensor(np.array([big, 1, 2], np_dt)), ms.Tensor(np.array([1, 2, big], np_dt))
    ms.set_context(mode=ms.GRAPH_MODE)
    cpu = ms.jit(_wide)(a, b)
    np.testing.assert_array_equal(cpu[0].asnumpy(), [True, False, False])
    iree = ms.jit(_wide, backend="iree")(a, b)
    assert api.cached_programs()[-1].executable.backend == "iree"
    ms.set_context(device_target="Ascend")
    device = ms.jit(_wide)(a, b)
    for c, i, d in zip(cpu, iree, device, strict=True):
        assert c.dtype == i.dtype == d.dtype
        np.testing.assert_array_equal(i.asnumpy(), c.asnumpy())
        np.testing.assert_array_equal(d.asnumpy(), c.asnumpy())
