"""Pipeline stages and data-parallel replicas on Ray actors (backend/ray): the same
training as one process, and every fault case of issue 39 a bounded, clear error. One local Ray cluster
(2 CPUs) serves the whole module (xdist keeps the module on one worker: group
"ray")."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

ray = pytest.importorskip("ray")

import mindjit as ms  # noqa: E402
from mindjit import nn, ops  # noqa: E402
from mindjit.backend.ray import cluster  # noqa: E402
from mindjit.backend.ray.errors import DistributedError  # noqa: E402
from mindjit.backend.ray.pipeline_executable import RayPipelineExecutable  # noqa: E402
from mindjit.backend.ray.replica_executable import RayReplicaExecutable  # noqa: E402
from mindjit.frontend.graph import api  # noqa: E402
from mindjit.support import config  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import distributed_programs as dp  # noqa: E402

pytestmark = pytest.mark.xdist_group("ray")


@pytest.fixture(scope="module", autouse=True)
def local_cluster():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield
    ray.shutdown()


@pytest.fixture(autouse=True)
def _engine():
    """Each test resets the engine; none may hang the suite (a bounded time is
    what these tests are about): SIGALRM fails a test still running after 120 s."""

    def hung(signum, frame):
        raise TimeoutError("a Ray test ran over 120 s")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(120)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)
    config.reset_distributed()
    ms.reset_auto_parallel_context()


def _local(stages: int, micro: int, scheduler: str = "1f1b"):
    ms.set_distributed(engine="local")
    return dp.train(stages, micro, scheduler=scheduler)


def _on_ray(stages: int, micro: int, scheduler: str = "1f1b"):
    ms.set_distributed(engine="ray")
    return dp.train(stages, micro, scheduler=scheduler)


def _executable(step, kind: type = RayPipelineExecutable):
    """The newest compiled program's actor group of `kind`."""
    found = [p.executable for p in api.cached_programs() if isinstance(p.executable, kind)]
    assert found, f"no program runs on Ray actors as {kind.__name__}"
    return found[-1]


@pytest.mark.parametrize(("stages", "micro"), [(2, 1), (2, 4), (4, 8)])
def test_stages_on_actors_train_like_one_process(stages: int, micro: int) -> None:
    want = _local(stages, micro)
    got = _on_ray(stages, micro)
    dp.assert_same_training(got, want)
    exe = _executable(got[2])
    assert len(exe.pids) == stages and os.getpid() not in exe.pids


def test_parameters_changed_between_steps_reach_the_actors() -> None:
    ms.set_distributed(engine="ray")
    net, step = dp.train_step(2, 2)
    x, y = dp.data()
    step(x, y)
    head = net.head.weight
    head.set_data(ms.Tensor(np.zeros(head.shape, np.float32)))
    ray_loss = float(step(x, y).asnumpy())
    ms.set_distributed(engine="local")
    net2, step2 = dp.train_step(2, 2)
    step2(x, y)
    net2.head.weight.set_data(ms.Tensor(np.zeros(head.shape, np.float32)))
    assert ray_loss == pytest.approx(float(step2(x, y).asnumpy()), rel=1e-6)


def test_an_unchanged_training_loop_ships_no_parameters() -> None:
    ms.set_distributed(engine="ray")
    net, step = dp.train_step(2, 2)
    x, y = dp.data()
    step(x, y)
    exe = _executable(step)
    shipped = []
    original = exe.set_global

    def spy(name, value):
        original(name, value)
        shipped.extend(exe._updates)  # noqa: SLF001 - what the next step would send

    exe.set_global = spy
    step(x, y)
    assert shipped == []


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_a_stage_killed_mid_step_fails_the_step_and_the_next_step_recovers() -> None:
    ms.set_distributed(engine="ray")
    net, step = dp.train_step(4, 8)
    x, y = dp.data()
    step(x, y)
    exe = _executable(step)
    before = {n: p.asnumpy().copy() for n, p in step.parameters_and_names()}
    pids = list(exe.pids)
    victim = pids[2]
    killer = threading.Timer(0.05, os.kill, (victim, signal.SIGKILL))
    started = time.perf_counter()
    killer.start()
    with pytest.raises(DistributedError, match=r"pipeline stage 2 \(@\w+\), .* died mid-step"):
        for _ in range(50):  # the kill lands in one of these steps
            before = {n: p.asnumpy().copy() for n, p in step.parameters_and_names()}
            step(x, y)
    assert time.perf_counter() - started < 30
    after = {n: p.asnumpy() for n, p in step.parameters_and_names()}
    for name in before:  # the failed step changed nothing the user reads
        np.testing.assert_array_equal(after[name], before[name], err_msg=name)
    deadline = time.time() + 15
    while any(map(_alive, pids)) and time.time() < deadline:
        time.sleep(0.2)
    assert not any(map(_alive, pids)), "orphan stage processes"
    # the next step starts new actors from the Parameters of the last completed step
    got = float(step(x, y).asnumpy())
    ms.set_distributed(engine="local")
    net2, step2 = dp.train_step(4, 8)
    for (_, p2), (name, _) in zip(step2.parameters_and_names(), step.parameters_and_names()):
        p2.set_data(ms.Tensor(before[name]))
    assert got == pytest.approx(float(step2(x, y).asnumpy()), rel=1e-5)
    assert not set(_executable(step).pids) & set(pids)


def test_actors_the_cluster_cannot_place_are_a_bounded_clear_error() -> None:
    ms.set_distributed(engine="ray", cpus_per_actor=3, start_timeout=2)
    started = time.perf_counter()
    with pytest.raises(DistributedError, match=r"did not start the 2 pipeline stage actors"):
        dp.train(2, 2, steps=1)
    assert time.perf_counter() - started < 30


def test_four_stages_share_two_cores() -> None:
    ms.set_distributed(engine="ray", cpus_per_actor=0.5)
    losses, _, step = dp.train(4, 4, steps=1)
    assert np.isfinite(losses).all()


def test_a_cluster_address_that_does_not_answer_is_refused_in_seconds() -> None:
    started = time.perf_counter()
    with pytest.raises(DistributedError, match=r"does not answer"):
        cluster.probe("127.0.0.1:9")
    assert time.perf_counter() - started < 5
    with pytest.raises(DistributedError, match=r"is not host:port"):
        cluster.probe("somewhere:port")


def test_ray_missing_is_an_error_naming_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None)
    with pytest.raises(ValueError, match=r"pip install 'mindjit\[ray\]'"):
        ms.set_distributed(engine="ray")
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(DistributedError, match=r"mindjit\[ray\]"):
        cluster.import_ray()


def test_the_engine_switch(monkeypatch: pytest.MonkeyPatch) -> None:
    assert config.compile_options().distributed == "local"
    monkeypatch.setenv("MINDJIT_DISTRIBUTED", "ray")
    assert config.compile_options().distributed == "ray"
    ms.set_distributed(engine="local")
    assert config.compile_options().distributed == "local"
    config.reset_distributed()
    monkeypatch.setenv("MINDJIT_DISTRIBUTED", "spark")
    with pytest.raises(ValueError, match="MINDJIT_DISTRIBUTED must be local or ray"):
        config.compile_options()
    with pytest.raises(ValueError, match="'engine' must be local or ray"):
        ms.set_distributed(engine="mpi")
    with pytest.raises(ValueError, match="'cpus_per_actor' must be a positive number"):
        ms.set_distributed(cpus_per_actor=0)


# -- data-parallel replicas on actors ---------------------------------------------------------

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "frontend"))
import test_data_parallel as dpt  # noqa: E402


@pytest.mark.parametrize(("kind", "n", "step_kind"), [("mlp", 2, "auto"), ("lenet", 4, "user")])
def test_replicas_on_actors_train_like_one_process(kind: str, n: int, step_kind: str) -> None:
    from mindjit.communication import release

    want = dpt.train(kind, 1, step_kind)
    release()
    ms.set_distributed(engine="ray")
    got = dpt.train(kind, n, step_kind)
    release()
    exe = _executable(None, RayReplicaExecutable)
    assert len(exe.pids) == n
    np.testing.assert_allclose(got[0], want[0], rtol=1e-5, atol=1e-6)
    for name, value in want[1].items():
        np.testing.assert_allclose(got[1][name], value, rtol=1e-5, atol=1e-6, err_msg=name)


def test_collectives_on_actors_equal_the_in_process_ones() -> None:
    from mindjit.communication import release

    ms.set_distributed(engine="ray")
    dpt.data_parallel(2)
    x = np.arange(24, dtype=np.float32).reshape(4, 6) * np.float32(0.5) - 3
    s, m, g, r, b = dpt.Collectives()(ms.Tensor(x))
    release()
    halves = [x[:2], x[2:]]
    np.testing.assert_array_equal(s.asnumpy(), np.concatenate([halves[0] + halves[1]] * 2))
    np.testing.assert_array_equal(m.asnumpy(), np.concatenate([np.maximum(*halves)] * 2))
    np.testing.assert_array_equal(g.asnumpy(), np.concatenate([x, x]))
    np.testing.assert_array_equal(r.asnumpy(), halves[0] + halves[1])
    np.testing.assert_array_equal(b.asnumpy(), np.concatenate([halves[1], halves[1]]))


class _LargeAllReduce(nn.Cell):
    def __init__(self):
        super().__init__()
        self.sum = ops.AllReduce()
        self.max = ops.AllReduce(ops.ReduceOp.MAX)

    def construct(self, x):
        return self.sum(x), self.max(x)


def test_a_large_all_reduce_is_scattered_and_gives_the_same_bits() -> None:
    """At or above SCATTER_MIN_BYTES each of 3 ranks combines an (uneven) third."""
    from mindjit.backend.ray.comm import SCATTER_MIN_BYTES
    from mindjit.communication import release

    ms.set_distributed(engine="ray")
    dpt.data_parallel(3)
    rng = np.random.default_rng(3)
    x = rng.standard_normal((6, 9001)).astype(np.float32)
    assert x[:2].nbytes >= SCATTER_MIN_BYTES and x[:2].size % 3 != 0
    s, m = _LargeAllReduce()(ms.Tensor(x))
    release()
    thirds = [x[:2], x[2:4], x[4:]]
    np.testing.assert_array_equal(
        s.asnumpy(), np.concatenate([thirds[0] + thirds[1] + thirds[2]] * 3)
    )
    np.testing.assert_array_equal(m.asnumpy(), np.concatenate([np.maximum.reduce(thirds)] * 3))


def test_a_replica_killed_mid_step_names_its_rank() -> None:
    from mindjit.communication import release

    ms.set_distributed(engine="ray")
    dpt.data_parallel(2)
    net = dpt.mlp()
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt)
    x, y = (ms.Tensor(a) for a in dpt.batch("mlp"))
    step(x, y)
    exe = _executable(None, RayReplicaExecutable)
    os.kill(exe.pids[1], signal.SIGKILL)
    started = time.perf_counter()
    with pytest.raises(DistributedError, match=r"data-parallel replica 1, .* died mid-step"):
        step(x, y)
    assert time.perf_counter() - started < 30
    step(x, y)  # new actors
    release()


def test_a_batch_replicas_cannot_split_is_a_value_error_before_any_actor_runs() -> None:
    from mindjit.communication import release

    ms.set_distributed(engine="ray")
    dpt.data_parallel(4)
    net = dpt.mlp()
    step = nn.TrainOneStepCell(
        nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")),
        nn.Momentum(net.trainable_params(), 0.1, 0.9),
    )
    x, y = dpt.batch("mlp")
    step(ms.Tensor(x), ms.Tensor(y))
    with pytest.raises(ValueError, match="device_num=4"):
        step(ms.Tensor(x[:6]), ms.Tensor(y[:6]))
    release()


# -- what a user sees: measured spans, memory, the simulated schedule --------------------------


def test_a_metered_step_gives_the_measured_timeline_and_each_stages_memory(tmp_path) -> None:
    from mindjit.backend.ray.measured import measure, timeline_html

    ms.set_distributed(engine="ray")
    net, step = dp.train_step(2, 4)
    x, y = dp.data()
    step(x, y)
    exe = _executable(step)
    with pytest.raises(ValueError, match="not metered"):
        measure(exe.last_step, 4, "1f1b")
    exe.meter_memory()
    step(x, y)
    memory = exe.memory()
    assert len(memory) == 2 and all(m["held_activation_bytes"] > 0 for m in memory)
    # 1F1B: stage 0 holds at most X - 0 = 2 of the 4 micro-batches, stage 1 one
    m = measure(exe.last_step, 4, "1f1b")
    slots = {(s.device, s.kind, s.micro) for s in m.measured.slots}
    assert slots == {(d, k, i) for d in range(2) for k in "FB" for i in range(4)}
    assert m.measured.max_in_flight(0) <= 2 and m.measured.max_in_flight(1) <= 1
    assert m.predicted.step_us > 0 and m.ratio > 0
    page = timeline_html(m, "two stages")
    assert page.count("<svg") == 2 and "measured on Ray actors" in page


def test_the_report_of_a_step() -> None:
    ms.set_distributed(engine="ray")
    net, step = dp.train_step(2, 4)
    x, y = dp.data()
    step(x, y)
    report = _executable(step).report()
    assert report["step_s"] > 0 and len(report["stages"]) == 2
    for stage in report["stages"]:
        assert stage["busy_s"] >= 0 and stage["wait_s"] >= 0
        assert stage["busy_s"] + stage["wait_s"] == pytest.approx(stage["span_s"])


def test_stages_on_actors_run_on_iree_when_the_backend_says_so() -> None:
    ms.set_distributed(engine="local")
    want = dp.train(2, 2)
    ms.set_distributed(engine="ray")
    ms.set_context(jit_config={"backend": "iree"})
    try:
        got = dp.train(2, 2)
    finally:
        ms.set_context(jit_config={})
    exe = _executable(got[2])
    assert exe.stage_backend == "iree"
    assert all(f is None for f in exe.fallbacks), exe.fallbacks  # no numpy fallback
    dp.assert_same_training(got, want)


def test_a_compile_cache_hit_runs_the_stages_on_actors(tmp_path) -> None:
    ms.set_context(enable_compile_cache=True, compile_cache_path=str(tmp_path / "cache"))
    try:
        ms.set_distributed(engine="ray")
        api.clear_cache()
        cold = dp.train(2, 4)
        api.clear_cache()  # as a new process would: nothing compiled in memory
        warm = dp.train(2, 4)
        program = [
            p for p in api.cached_programs() if isinstance(p.executable, RayPipelineExecutable)
        ]
        assert program and program[-1].from_cache
        dp.assert_same_training(warm, cold)
    finally:
        api.clear_cache()
