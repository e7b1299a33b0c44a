"""Data parallelism (issue 39): N in-process replicas, each on 1/N of the batch with
its gradients all-reduced, train exactly like one process on the whole batch;
the collectives in a user's graph; `mindjit.communication`; bad input."""

from __future__ import annotations

import numpy as np
import pytest

import mindjit as ms
from mindjit import Tensor, nn, ops
from mindjit.backend.cpu.replica_run import ReplicaExecutable
from mindjit.communication import GlobalComm, get_group_size, get_rank, init, release
from mindjit.frontend import context as C
from mindjit.frontend.graph import api

BATCH = 8


@pytest.fixture(autouse=True)
def _fresh_context():
    C.reset_context()
    ms.reset_auto_parallel_context()
    release()
    yield
    C.reset_context()
    ms.reset_auto_parallel_context()
    release()


def data_parallel(n: int) -> None:
    ms.set_context(mode=ms.GRAPH_MODE)
    if n > 1:
        ms.set_auto_parallel_context(
            parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True, device_num=n
        )
        init()


def mlp() -> nn.Cell:
    return nn.SequentialCell(nn.Dense(6, 10), nn.ReLU(), nn.Dense(10, 4))


class LeNetLike(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, 3, pad_mode="valid")
        self.conv2 = nn.Conv2d(4, 6, 3, pad_mode="valid")
        self.relu = nn.ReLU()
        self.pool = nn.MaxPool2d(kernel_size=2, stride=2)
        self.flatten = nn.Flatten()
        self.fc = nn.Dense(6 * 2 * 2, 4)

    def construct(self, x):
        x = self.pool(self.relu(self.conv1(x)))
        x = self.relu(self.conv2(x))
        x = self.pool(x)
        return self.fc(self.flatten(x))


class UserReducerStep(nn.Cell):
    """A train step written with nn.DistributedGradReducer, as MindSpore's docs do."""

    def __init__(self, network, optimizer):
        super().__init__(auto_prefix=False)
        self.network = network
        self.optimizer = optimizer
        self.weights = optimizer.parameters
        self.grad = ops.GradOperation(get_by_list=True)
        self.grad_reducer = nn.DistributedGradReducer(self.weights)

    def construct(self, x, label):
        loss = self.network(x, label)
        grads = self.grad(self.network, self.weights)(x, label)
        grads = self.grad_reducer(grads)
        return ops.depend(loss, self.optimizer(grads))


def batch(kind: str) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(7)
    shape = (BATCH, 6) if kind == "mlp" else (BATCH, 1, 14, 14)
    x = rng.standard_normal(shape).astype(np.float32)
    return x, rng.integers(0, 4, BATCH).astype(np.int32)


def train(kind: str, n: int, step_kind: str = "auto", steps: int = 3):
    """Losses of `steps` steps and the Parameters after them; the step's program."""
    data_parallel(n)
    ms.set_seed(3)
    net = mlp() if kind == "mlp" else LeNetLike()
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    with_loss = nn.WithLossCell(net, loss_fn)
    step = (
        nn.TrainOneStepCell(with_loss, opt)
        if step_kind == "auto"
        else UserReducerStep(with_loss, opt)
    )
    x, y = batch(kind)
    losses = [float(step(Tensor(x), Tensor(y)).asnumpy()) for _ in range(steps)]
    params = {p.name: p.asnumpy().copy() for p in net.trainable_params()}
    return losses, params, api.compile_cell(step, (Tensor(x), Tensor(y)))


def all_reduce_calls(program) -> int:
    """The calls of the all-reduce runtime in a compiled program."""
    decls = {
        op.sym_name.data
        for op in program.module.ops
        if op.attributes.get("mindjit.runtime") is not None
        and op.attributes["mindjit.runtime"].data == "all_reduce_sum"
    }
    return sum(
        1
        for op in program.module.walk()
        if op.name == "func.call" and op.callee.root_reference.data in decls
    )


@pytest.mark.parametrize(
    ("kind", "n", "step_kind"),
    [("mlp", 2, "auto"), ("mlp", 4, "user"), ("lenet", 2, "user"), ("lenet", 4, "auto")],
)
def test_replicas_train_like_one_process_on_the_whole_batch(kind, n, step_kind):
    want_losses, want_params, single = train(kind, 1, step_kind)
    assert not isinstance(single.executable, ReplicaExecutable)
    losses, params, program = train(kind, n, step_kind)
    exe = program.executable
    assert isinstance(exe, ReplicaExecutable) and exe.group_size == n
    # each replica ran 1/N of the batch, with its gradients all-reduced in one fused
    # buffer (fusion_type=1, the default)
    assert all_reduce_calls(program) == 1
    np.testing.assert_allclose(losses, want_losses, rtol=1e-5, atol=1e-6)
    for name, value in want_params.items():
        np.testing.assert_allclose(params[name], value, rtol=1e-5, atol=1e-6, err_msg=name)
    # every replica holds the same Parameters after the steps
    for symbol, _ in program.parameters:
        first, *others = exe.replica_globals(symbol)
        for other in others:
            np.testing.assert_array_equal(other, first)


def test_losses_change_and_differ_from_a_replica_without_the_reducer():
    """The equality above is not trivial: without the all-reduce, replica 0 alone
    would train on its own half of the batch."""
    losses, _, _ = train("mlp", 1)
    assert losses[0] != losses[2]
    half_x, half_y = (a[: BATCH // 2] for a in batch("mlp"))
    data_parallel(1)
    ms.set_seed(3)
    net = mlp()
    step = nn.TrainOneStepCell(
        nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")),
        nn.Momentum(net.trainable_params(), 0.1, 0.9),
    )
    alone = [float(step(Tensor(half_x), Tensor(half_y)).asnumpy()) for _ in range(3)]
    assert abs(alone[2] - losses[2]) > 1e-4


class Collectives(nn.Cell):
    def __init__(self):
        super().__init__()
        self.sum = ops.AllReduce()
        self.max = ops.AllReduce(ops.ReduceOp.MAX)
        self.gather = ops.AllGather()
        self.scatter = ops.ReduceScatter()
        self.broadcast = ops.Broadcast(1)

    def construct(self, x):
        (b,) = self.broadcast((x,))
        return self.sum(x), self.max(x), self.gather(x), self.scatter(x), b


def test_collectives_in_a_users_graph_with_two_replicas():
    data_parallel(2)
    x = np.arange(24, dtype=np.float32).reshape(4, 6) * np.float32(0.5) - 3
    s, m, g, r, b = Collectives()(Tensor(x))
    halves = [x[:2], x[2:]]
    # per-replica results of rank >= 1 come back concatenated in rank order
    np.testing.assert_array_equal(s.asnumpy(), np.concatenate([halves[0] + halves[1]] * 2))
    np.testing.assert_array_equal(
        m.asnumpy(), np.concatenate([np.maximum(halves[0], halves[1])] * 2)
    )
    np.testing.assert_array_equal(g.asnumpy(), np.concatenate([x, x]))
    total = halves[0] + halves[1]
    np.testing.assert_array_equal(r.asnumpy(), total)  # rank 0 row 0, rank 1 row 1
    np.testing.assert_array_equal(b.asnumpy(), np.concatenate([halves[1], halves[1]]))


def test_collectives_are_the_identity_in_pynative_and_with_one_replica():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    net = Collectives.__new__(Collectives)
    nn.Cell.__init__(net)
    net.sum, net.max = ops.AllReduce(), ops.AllReduce(ops.ReduceOp.MAX)
    net.gather, net.scatter = ops.AllGather(), ops.ReduceScatter()
    net.broadcast = ops.Broadcast(0)
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        for out in net(Tensor(x)):
            np.testing.assert_array_equal(out.asnumpy(), x)


class GatherLoss(nn.Cell):
    def __init__(self):
        super().__init__()
        self.gather = ops.AllGather()
        self.sum = ops.AllReduce()

    def construct(self, x):
        return (self.gather(x) ** 2).sum() + self.sum(x * 3.0).sum()


def test_gradients_through_collectives_are_mindspores_bprops():
    """d/dx_r of sum(AllGather(x)^2) + sum(AllReduce(3x)): AllGather's bprop is a
    ReduceScatter of the N replicas' equal output gradients (2 N x_r), AllReduce's
    an AllReduce (3 N)."""
    data_parallel(2)
    x = np.linspace(-1, 1, 8, dtype=np.float32).reshape(4, 2)
    grad = ms.jit(ops.grad(GatherLoss()))(Tensor(x))
    np.testing.assert_allclose(grad.asnumpy(), 2 * 2 * x + 3 * 2, rtol=1e-6)


def test_communication_api():
    assert get_group_size() == 1 and get_rank() == 0  # MindSpore's stand-alone answers
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, device_num=4)
    assert get_group_size() == 1
    init()
    assert GlobalComm.INITED and GlobalComm.WORLD_COMM_GROUP == "mccl_world_group"
    assert get_group_size() == 4 and get_group_size("hccl_world_group") == 4
    assert get_rank() == 0
    reducer = nn.DistributedGradReducer([])
    assert reducer.degree == 4 and reducer.mean is False
    from mindjit.communication.management import get_group_size as same

    assert same is get_group_size


def test_bad_input():
    data_parallel(2)
    net = mlp()
    with pytest.raises(ValueError, match="device_num=2.*batch of 5, not divisible by 2"):
        net(Tensor(np.ones((5, 6), np.float32)))
    with pytest.raises(ValueError, match="group 'my_group' does not exist"):
        ops.AllReduce(group="my_group")
    with pytest.raises(ValueError, match="group 'g' does not exist"):
        get_group_size("g")
    with pytest.raises(TypeError, match="'group' must be type of string"):
        get_rank(3)
    with pytest.raises(ValueError, match="must be one of ReduceOp's"):
        ops.AllReduce(op="avg")
    with pytest.raises(TypeError, match="'op' must be str, but got int"):
        ops.AllReduce(op=3)
    with pytest.raises(TypeError, match="'root_rank' should be 'int'"):
        ops.Broadcast(1.5)
    with pytest.raises(ValueError, match="'degree' in DistributedGradReducer should large than 0"):
        nn.DistributedGradReducer([], degree=0)
    with pytest.raises(RuntimeError, match="should be 'mccl' to init 'CPU', but got 'hccl'"):
        init("hccl")
    with pytest.raises(RuntimeError, match="must be one of 'hccl', 'nccl' and 'mccl'"):
        init("gloo")
    with pytest.raises(ValueError, match="'root_rank' 2 is not a rank of the group of 2"):
        ms.jit(lambda x: ops.Broadcast(2)((x,)))(Tensor(np.ones((2, 2), np.float32)))


def test_pynative_with_data_parallel_set_trains_like_one_process():
    """PyNative runs no replicas: one process on the whole batch, the reducer's
    all-reduce the identity and its mean not taken."""
    want, want_params, _ = train("mlp", 1)
    ms.set_auto_parallel_context(
        parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True, device_num=2
    )
    ms.set_context(mode=ms.PYNATIVE_MODE)
    ms.set_seed(3)
    net = mlp()
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    step = nn.TrainOneStepCell(
        nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")), opt
    )
    x, y = batch("mlp")
    losses = [float(step(Tensor(x), Tensor(y)).asnumpy()) for _ in range(3)]
    np.testing.assert_allclose(losses, want, rtol=1e-5, atol=1e-6)
    for p in net.trainable_params():
        np.testing.assert_allclose(p.asnumpy(), want_params[p.name], rtol=1e-5, atol=1e-6)


class ReduceLoss(nn.Cell):
    def __init__(self, op):
        super().__init__()
        self.reduce = ops.AllReduce(op)

    def construct(self, x, c):
        return (self.reduce(x) * c).sum()


@pytest.mark.parametrize("op", ["max", "prod", "sum"])
def test_all_reduce_gradients_with_two_replicas(op):
    """MindSpore's bprops, with each replica's output gradient c: max gives
    AllReduce_sum(c) where x is the maximum, prod AllReduce_sum(c * out) / x."""
    data_parallel(2)
    rng = np.random.default_rng(1)
    x = rng.uniform(0.5, 1.5, (4, 3)).astype(np.float32)
    c = rng.uniform(-1, 1, (4, 3)).astype(np.float32)
    grad = ms.jit(ops.grad(ReduceLoss(op)))(Tensor(x), Tensor(c)).asnumpy()
    halves, cs = [x[:2], x[2:]], [c[:2], c[2:]]
    c_sum = cs[0] + cs[1]
    want = []
    for h in halves:
        if op == "max":
            out = np.maximum(*halves)
            want.append(c_sum * (h == out))
        elif op == "prod":
            out = halves[0] * halves[1]
            want.append((cs[0] * out + cs[1] * out) / h)
        else:
            want.append(c_sum)
    np.testing.assert_allclose(grad, np.concatenate(want), rtol=1e-5)


def test_collective_gradients_in_pynative_are_the_identity_rules():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    x = Tensor(np.array([[1.0, 2.0]], np.float32))
    c = Tensor(np.array([[3.0, -1.0]], np.float32))
    for op in ("sum", "max", "prod"):
        np.testing.assert_allclose(ops.grad(ReduceLoss(op))(x, c).asnumpy(), [[3.0, -1.0]])


class Diverging(nn.Cell):
    def __init__(self):
        super().__init__()
        self.reduce = ops.AllReduce()

    def construct(self, x):
        if x.sum() > 0:
            x = self.reduce(x)
        return x * 2


def test_replicas_whose_collectives_diverge_fail_located_never_hang():
    data_parallel(2)
    net = Diverging()
    np.testing.assert_array_equal(
        net(Tensor(np.array([[1.0], [2.0]], np.float32))).asnumpy(), [[6], [6]]
    )
    with pytest.raises(
        Exception,
        match=r"test_data_parallel.py:\d+:\d+: error: data-parallel replica 1 ended its step without reaching collective 0 \(all_reduce_sum\)",
    ):
        net(Tensor(np.array([[1.0], [-1.0]], np.float32)))


class GatherTwice(nn.Cell):
    def __init__(self):
        super().__init__()
        self.reduce = ops.AllReduce()
        self.gather = ops.AllGather()

    def construct(self, x):
        return self.gather(self.reduce(x) * 2.0)


def test_the_simulated_device_runs_one_replica_with_hccl_kernels():
    """On the Ascend target DATA_PARALLEL runs no replicas: the device is a group of
    one, its collectives HCCL's kernels (on the AI CPU unit: a cost by bytes)."""
    ms.set_context(mode=ms.GRAPH_MODE, device_target="Ascend")
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, device_num=2)
    net = GatherTwice()
    x = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    np.testing.assert_array_equal(net(x).asnumpy(), x.asnumpy() * 2)
    exe = api.compile_cell(net, (x,)).executable
    kernels = [op.kernel_name for op in exe.device_module.walk() if hasattr(op, "kernel_name")]
    assert kernels == ["HcomAllReduce", "Mul", "HcomAllGather"]


@pytest.mark.parametrize("n", [1, 2])
def test_loss_scaled_steps_reduce_the_gradients_too(n):
    """TrainOneStepWithLossScaleCell all-reduces the unscaled gradients before its
    overflow check, as MindSpore's, so N replicas train like one process."""

    def run(replicas):
        data_parallel(replicas)
        ms.set_seed(3)
        net = mlp()
        loss = nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"))
        manager = nn.DynamicLossScaleUpdateCell(
            loss_scale_value=2.0**10, scale_factor=2, scale_window=2
        )
        step = nn.TrainOneStepWithLossScaleCell(
            loss, nn.Momentum(net.trainable_params(), 0.1, 0.9), manager
        )
        x, y = batch("mlp")
        out = [step(Tensor(x), Tensor(y)) for _ in range(3)]
        return [float(o[0].asnumpy()) for o in out], [
            p.asnumpy().copy() for p in net.trainable_params()
        ]

    want_losses, want_params = run(1)
    ms.reset_auto_parallel_context()
    losses, params = run(2 * n)
    np.testing.assert_allclose(losses, want_losses, rtol=1e-5, atol=1e-6)
    for got, want in zip(params, want_params):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


class UnfusedReducerStep(UserReducerStep):
    def __init__(self, network, optimizer):
        super().__init__(network, optimizer)
        self.grad_reducer = nn.DistributedGradReducer(self.weights, fusion_type=0)


def test_fusion_type_0_reduces_each_gradient_alone_with_the_same_result():
    fused_losses, fused_params, fused = train("mlp", 2, "user")
    data_parallel(2)
    ms.set_seed(3)
    net = mlp()
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = UnfusedReducerStep(nn.WithLossCell(net, loss_fn), opt)
    x, y = batch("mlp")
    losses = [float(step(Tensor(x), Tensor(y)).asnumpy()) for _ in range(3)]
    program = api.compile_cell(step, (Tensor(x), Tensor(y)))
    assert all_reduce_calls(program) == len(fused_params) and all_reduce_calls(fused) == 1
    np.testing.assert_array_equal(losses, fused_losses)
    for p in net.trainable_params():
        np.testing.assert_array_equal(p.asnumpy(), fused_params[p.name])
