"""Random ops: mindir.uniform_real against a numpy reference of its hash, ops.dropout,
ops.Dropout and nn.Dropout (statistics, determinism under ms.set_seed, graph mode
== PyNative over several calls, the gradient using the forward's mask, eval
mode), and the seeded initializers."""

from __future__ import annotations

import numpy as np
import pytest

import mindjit as ms
from mindjit import Tensor, nn, ops
from mindjit.dialects.mindir import random as R
from mindjit.frontend.nn import init
from mindjit.frontend.ops.random import generator_state, uniform_real

RNG = np.random.default_rng(11)


def _fmix32(h: np.ndarray) -> np.ndarray:
    h = h ^ (h >> np.uint32(16))
    h = h * np.uint32(R.FMIX_MUL1)
    h = h ^ (h >> np.uint32(13))
    h = h * np.uint32(R.FMIX_MUL2)
    return h ^ (h >> np.uint32(16))


def uniform_reference(key: int, offset: int, shape, seed=0, seed2=0) -> np.ndarray:
    """The hash of mindjit.dialects.mindir.random, in numpy uint32 arithmetic."""
    s1, s2 = R.seed_keys(seed, seed2)
    with np.errstate(over="ignore"):
        kk = _fmix32(np.uint32(key & R.MASK32) ^ np.uint32(s1))
        oo = _fmix32(np.uint32(offset & R.MASK32) ^ np.uint32(s2))
        i = np.arange(int(np.prod(shape)), dtype=np.uint32) * np.uint32(R.GOLDEN)
        h = _fmix32(_fmix32(i ^ kk) ^ oo)
    return ((h >> np.uint32(8)).astype(np.float32) * np.float32(R.UNIT)).reshape(shape)


@pytest.fixture(params=[ms.PYNATIVE_MODE, ms.GRAPH_MODE], ids=["pynative", "graph"])
def mode(request):
    ms.set_context(mode=request.param)
    yield request.param
    ms.set_context(mode=ms.PYNATIVE_MODE)


def _maybe_jit(fn, mode):
    """`fn` compiled as a graph in graph mode (through a plain Python function)."""
    if mode != ms.GRAPH_MODE:
        return fn

    def graph(*args):
        return fn(*args)

    return ms.jit(graph)


@pytest.mark.parametrize("shape, seed, seed2", [((3, 5, 7), 0, 0), ((), 4, 9), ((1000,), 7, 0)])
def test_uniform_real_is_the_documented_hash(shape, seed, seed2):
    ms.set_seed(123)
    got = [uniform_real(shape, seed, seed2).asnumpy() for _ in range(2)]
    for offset, u in enumerate(got):
        np.testing.assert_array_equal(u, uniform_reference(123, offset, shape, seed, seed2))
    assert generator_state() == (123, 2)


def test_uniform_real_statistics():
    ms.set_seed(0)
    u = uniform_real((200_000,)).asnumpy()
    assert u.dtype == np.float32 and u.min() >= 0.0 and u.max() < 1.0
    assert abs(u.mean() - 0.5) < 0.005 and abs(u.var() - 1 / 12) < 0.002
    hist = np.histogram(u, bins=10, range=(0, 1))[0] / u.size
    np.testing.assert_allclose(hist, 0.1, atol=0.005)
    v = uniform_real((200_000,)).asnumpy()  # the next offset: uncorrelated
    assert abs(np.corrcoef(u, v)[0, 1]) < 0.01


@pytest.mark.parametrize("p", [0.1, 0.5, 0.8])
def test_dropout_drops_a_fraction_p_and_scales_the_rest(p):
    x = RNG.standard_normal((400, 500)).astype(np.float32) + 3.0  # never zero
    out = ops.dropout(Tensor(x), p=p).asnumpy()
    dropped = out == 0
    assert abs(dropped.mean() - p) < 0.01
    np.testing.assert_allclose(out[~dropped], x[~dropped] / (1 - p), rtol=1e-6)


def test_dropout_is_deterministic_under_set_seed_and_new_at_every_call(mode):
    x = Tensor(np.ones((8, 16), np.float32))

    def drop(t):
        return ops.dropout(t, 0.5)

    fn = _maybe_jit(drop, mode)
    ms.set_seed(5)
    first = [fn(x).asnumpy() for _ in range(3)]
    ms.set_seed(5)
    again = [fn(x).asnumpy() for _ in range(3)]
    for a, b in zip(first, again):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(first[0], first[1]) and not np.array_equal(first[1], first[2])
    ms.set_seed(6)
    assert not np.array_equal(fn(x).asnumpy(), first[0])


def _two_dropouts(x):
    a = ops.dropout(x, 0.5)
    b = ops.dropout(x, 0.25, seed=3)
    return a + 2 * b


def test_graph_mode_draws_the_same_masks_as_pynative():
    x = Tensor(RNG.standard_normal((6, 10)).astype(np.float32))
    ms.set_seed(42)
    eager = [_two_dropouts(x).asnumpy() for _ in range(3)]
    eager_state = generator_state()
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        ms.set_seed(42)
        graph_fn = ms.jit(_two_dropouts)
        graph = [graph_fn(x).asnumpy() for _ in range(3)]
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    for a, b in zip(eager, graph):
        np.testing.assert_array_equal(a, b)
    assert generator_state() == eager_state == (42, 6)


class DropNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(6, 5)
        self.drop = nn.Dropout(p=0.4)
        self.drop2 = nn.Dropout(keep_prob=0.7)

    def construct(self, x):
        return self.drop2(ops.relu(self.fc(self.drop(x))))


def _train(mode, steps=3):
    ms.set_context(mode=mode)
    try:
        ms.set_seed(3)
        net = DropNet().set_train()
        opt = nn.SGD(net.trainable_params(), 0.1)
        loss_fn = nn.MSELoss()

        def forward(x, y):
            return loss_fn(net(x), y)

        grad_fn = ms.value_and_grad(forward, None, opt.parameters)

        def step(x, y):
            loss, grads = grad_fn(x, y)
            opt(grads)
            return loss

        step = _maybe_jit(step, mode)
        rng = np.random.default_rng(0)
        x = Tensor(rng.standard_normal((4, 6)).astype(np.float32))
        y = Tensor(rng.standard_normal((4, 5)).astype(np.float32))
        losses = [float(step(x, y).asnumpy()) for _ in range(steps)]
        return losses, {n: p.asnumpy() for n, p in net.parameters_and_names()}
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_train_step_with_dropout_graph_equals_pynative():
    g_losses, g_params = _train(ms.GRAPH_MODE)
    e_losses, e_params = _train(ms.PYNATIVE_MODE)
    np.testing.assert_allclose(g_losses, e_losses, rtol=1e-5)
    assert len(set(g_losses)) == 3  # a new mask (and new weights) every step
    assert set(g_params) == {"fc.weight", "fc.bias"}  # Dropout adds no Parameter
    for name in g_params:
        np.testing.assert_allclose(g_params[name], e_params[name], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("p", [0.3, 0.75])
def test_gradient_uses_the_forward_mask(mode, p):
    x = Tensor(RNG.standard_normal((5, 7)).astype(np.float32) + 4.0)  # never zero
    c = Tensor(RNG.standard_normal((5, 7)).astype(np.float32))

    def forward(t):
        out = ops.dropout(t, p)
        return ops.reduce_sum(out * c), out

    fn = _maybe_jit(ms.value_and_grad(forward, 0, has_aux=True), mode)
    (_, out), dx = fn(x)
    kept = out.asnumpy() != 0
    assert 0 < kept.mean() < 1
    want = np.where(kept, c.asnumpy() / (1 - p), 0).astype(np.float32)
    np.testing.assert_allclose(dx.asnumpy(), want, rtol=1e-6)


def test_nn_dropout_modes_and_identities(mode):
    x = Tensor(RNG.standard_normal((3, 4)).astype(np.float32))
    drop = nn.Dropout(p=0.5)
    assert not drop.training
    np.testing.assert_array_equal(drop(x).asnumpy(), x.asnumpy())  # eval: identity
    drop.set_train()
    out = drop(x).asnumpy()
    assert set(np.unique(np.round(out / x.asnumpy(), 5))) <= {0.0, 2.0}
    np.testing.assert_array_equal(nn.Dropout(p=0.0).set_train()(x).asnumpy(), x.asnumpy())
    np.testing.assert_array_equal(nn.Dropout(keep_prob=1.0).set_train()(x).asnumpy(), x.asnumpy())
    assert nn.Dropout(keep_prob=0.9, p=0.2).p == 0.2  # p wins, as in MindSpore
    assert nn.Dropout().p == 0.5
    assert "p=0.2" in repr(nn.Dropout(p=0.2))


def test_ops_dropout_edge_cases(mode):
    x = Tensor(RNG.standard_normal((3, 4)).astype(np.float32))
    np.testing.assert_array_equal(ops.dropout(x, 0.7, training=False).asnumpy(), x.asnumpy())
    np.testing.assert_array_equal(ops.dropout(x, 0.0).asnumpy(), x.asnumpy())
    np.testing.assert_array_equal(ops.dropout(x, 1.0).asnumpy(), np.zeros((3, 4), np.float32))
    h = ops.dropout(Tensor(np.ones((64,), np.float16)), 0.5)
    assert h.dtype == ms.float16 and set(np.unique(h.asnumpy())) <= {0.0, 2.0}


def test_dropout_primitive_returns_output_and_mask():
    x = Tensor(RNG.standard_normal((2, 3, 4)).astype(np.float32))
    out, mask = ops.Dropout(keep_prob=0.6, Seed0=1, Seed1=2)(x)
    m = mask.asnumpy()
    assert mask.shape == x.shape and mask.dtype == x.dtype and set(np.unique(m)) <= {0.0, 1.0}
    np.testing.assert_allclose(out.asnumpy(), x.asnumpy() * m / 0.6, rtol=1e-6)
    out1, mask1 = ops.Dropout(keep_prob=1.0)(x)
    np.testing.assert_array_equal(out1.asnumpy(), x.asnumpy())
    np.testing.assert_array_equal(mask1.asnumpy(), np.ones((2, 3, 4), np.float32))


def test_dropout_errors():
    x = Tensor(np.ones((2, 2), np.float32))
    with pytest.raises(TypeError, match="'p' must be a float"):
        ops.dropout(x, "0.5")
    with pytest.raises(ValueError, match=r"range \[0, 1\]"):
        ops.dropout(x, 1.5)
    with pytest.raises(TypeError, match="float16, float32 or float64"):
        ops.dropout(Tensor(np.ones(3, np.int32)))
    with pytest.raises(TypeError, match="must be a Tensor"):
        ops.dropout(np.ones(3, np.float32))
    with pytest.raises(ValueError, match="non-negative"):
        ops.dropout(x, seed=-1)
    with pytest.raises(ValueError, match=r"range \[0, 1\)"):
        nn.Dropout(p=1.0)
    with pytest.raises(ValueError, match=r"range \(0, 1\]"):
        nn.Dropout(keep_prob=0.0)
    with pytest.raises(TypeError, match="'keep_prob' must be a float"):
        nn.Dropout(keep_prob="a")
    with pytest.raises(TypeError, match="float16 or float32"):
        nn.Dropout().set_train()(Tensor(np.ones(3, np.int32)))
    with pytest.raises(ValueError, match="rank"):
        nn.Dropout().set_train()(Tensor(np.float32(1.0)))
    with pytest.raises(ValueError, match=r"range \(0, 1\]"):
        ops.Dropout(keep_prob=0.0)(x)
    with pytest.raises(TypeError, match="seed"):
        ms.set_seed(1.5)


def test_dropout_inside_vmap_is_refused_with_a_reason():
    def per_example(t):
        return ops.dropout(t, 0.5)

    def batched(t):
        return ms.vmap(per_example)(t)

    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        with pytest.raises(Exception, match="assign|side effect|random"):
            ms.jit(batched)(Tensor(np.ones((3, 4), np.float32)))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


@pytest.mark.parametrize(
    "make",
    [
        lambda: init.Normal(0.5),
        lambda: init.HeNormal(),
        lambda: init.XavierUniform(),
        lambda: init.TruncatedNormal(0.2),
    ],
    ids=["Normal", "HeNormal", "XavierUniform", "TruncatedNormal"],
)
def test_initializers_are_deterministic_under_set_seed(make):
    ms.set_seed(9)
    a = init.initializer(make(), (16, 8)).asnumpy()
    b = init.initializer(make(), (16, 8)).asnumpy()
    ms.set_seed(9)
    c = init.initializer(make(), (16, 8)).asnumpy()
    np.testing.assert_array_equal(a, c)
    assert not np.array_equal(a, b)
    ms.set_seed(9)
    w1 = nn.Dense(8, 4, weight_init="he_normal").weight.asnumpy()
    ms.set_seed(9)
    np.testing.assert_array_equal(nn.Dense(8, 4, weight_init="he_normal").weight.asnumpy(), w1)


class Block(nn.Cell):
    @ms.lazy_inline
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(8, 8)
        self.drop = nn.Dropout(p=0.5)

    def construct(self, x):
        return self.drop(ops.relu(self.fc(x)))


class Stack(nn.Cell):
    def __init__(self):
        super().__init__()
        self.blocks = nn.CellList([Block() for _ in range(3)])

    def construct(self, x):
        for b in self.blocks:
            x = b(x) + x
        return x


@pytest.mark.parametrize("reuse", ["0", "1", "2"])
def test_lazy_inline_shared_graph_draws_new_masks_per_block(reuse, monkeypatch):
    """One graph shared by the three Blocks still draws three masks (the state, not
    the traced instance, decides the mask), equal to PyNative's."""
    from mindjit.frontend.graph import api

    monkeypatch.setenv("MS_DEV_CELL_REUSE", reuse)
    ms.set_seed(2)
    net = Stack().set_train()
    x = Tensor(np.ones((2, 8), np.float32))
    ms.set_seed(2)
    eager = net(x).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    api.clear_cache()
    try:
        ms.set_seed(2)
        graph = net(x).asnumpy()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_array_equal(graph, eager)
    assert generator_state() == (2, 3)


def test_dropout_on_the_simulated_device_equals_the_cpu():
    from mindjit.frontend.graph import api

    x = Tensor(RNG.standard_normal((16, 6)).astype(np.float32))
    net = DropNet().set_train()
    results = {}
    for target in ("CPU", "Ascend"):
        ms.set_context(mode=ms.GRAPH_MODE, device_target=target)
        api.clear_cache()
        try:
            ms.set_seed(8)
            results[target] = [net(x).asnumpy() for _ in range(2)]
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
            api.clear_cache()
    for a, b in zip(results["CPU"], results["Ascend"]):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(*results["CPU"])


def test_vmap_of_a_shared_draw_copies_it_and_a_batched_offset_is_refused():
    from mindjit.dialects.parsing import parse_module
    from mindjit.passes.mindir_vmap import vmap_module
    from mindjit.support.errors import MindjitError

    shared = """
func.func @f(%x: tensor<3x4xf32>, %k: tensor<i32>, %o: tensor<i32>) -> tensor<3x4xf32> {
  %r = mindir.vmap (%a = %x) in_axes [0] out_axes [0] : (tensor<3x4xf32>) -> tensor<3x4xf32> {
    %u = mindir.uniform_real %k, %o {seed = 0 : i64, seed2 = 0 : i64, shape = array<i64: 4>} : (tensor<i32>, tensor<i32>) -> tensor<4xf32>
    %m = mindir.mul %a, %u : tensor<4xf32>
    mindir.yield %m : tensor<4xf32>
  }
  func.return %r : tensor<3x4xf32>
}
"""
    module = parse_module(shared)
    vmap_module(module)
    text = str(module)
    assert "mindir.vmap" not in text and text.count("mindir.uniform_real") == 1
    batched = """
func.func @f(%k: tensor<i32>, %o: tensor<3xi32>) -> tensor<3x4xf32> {
  %r = mindir.vmap (%b = %o) in_axes [0] out_axes [0] : (tensor<3xi32>) -> tensor<3x4xf32> {
    %u = mindir.uniform_real %k, %b {seed = 0 : i64, seed2 = 0 : i64, shape = array<i64: 4>} : (tensor<i32>, tensor<i32>) -> tensor<4xf32>
    mindir.yield %u : tensor<4xf32>
  }
  func.return %r : tensor<3x4xf32>
}
"""
    with pytest.raises(MindjitError, match="batched key or offset"):
        vmap_module(parse_module(batched))


def _cached_drop(x):
    return ops.dropout(x, 0.5)


def test_compile_cache_hit_binds_the_generator_state(tmp_path, capsys):
    """A graph reaches the generator's Parameters through library code only; the
    cache key lists them, so a dropout graph is cached and a hit draws the same
    masks from this process's state."""
    from mindjit.frontend import context as C
    from mindjit.frontend.graph import api
    from mindjit.frontend.graph.program_cache import HIT

    x = Tensor(np.ones((4, 6), np.float32))
    C.reset_context()
    ms.set_context(mode=ms.GRAPH_MODE, enable_compile_cache=True, compile_cache_path=str(tmp_path))
    try:
        runs = []
        for _ in range(2):
            api.clear_cache()  # as a new process would
            ms.set_seed(4)
            fn = ms.jit(_cached_drop)
            runs.append([fn(x).asnumpy() for _ in range(2)])
        assert HIT in capsys.readouterr().err
    finally:
        C.reset_context()
        api.clear_cache()
    assert len(list(tmp_path.glob("*.mjc"))) == 1
    for a, b in zip(*runs):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(*runs[0])
