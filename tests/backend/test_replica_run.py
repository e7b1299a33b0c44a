"""The in-process replica runner and its communication hub (backend/cpu/replica_run.py,
backend/cpu/collectives.py): N executables of one lowered module, one thread each;
results combined in rank order, bit-identical on every rank; a failing replica
ends the step for all, never a hang; replicas that disagree are an error."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from xdsl.parser import Parser

from mindjit.backend.cpu import CpuExecutable
from mindjit.backend.cpu.collectives import ReplicaAborted, ReplicaHub
from mindjit.backend.cpu.errors import ExecutionError
from mindjit.backend.cpu.replica_run import ReplicaExecutable, combine_outputs, split_batch
from mindjit.dialects.context import make_context
from mindjit.passes.pipelines import compile_to_tensor

PROGRAM = """
func.func @f(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<4x3xf32>, tensor<1x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<f32>) {
  %s = mindir.all_reduce %x {op = "sum"} : tensor<2x3xf32>
  %a = mindir.all_gather %x {rank_size = 2 : i64} : (tensor<2x3xf32>) -> tensor<4x3xf32>
  %r = mindir.reduce_scatter %x {op = "sum", rank_size = 2 : i64} : (tensor<2x3xf32>) -> tensor<1x3xf32>
  %b = mindir.broadcast %x {root_rank = 1 : i64} : tensor<2x3xf32>
  %p = mindir.all_reduce %x {op = "prod"} : tensor<2x3xf32>
  %m = mindir.reduce_sum %x {axis = array<i64: 0, 1>, keep_dims = false} : (tensor<2x3xf32>) -> tensor<f32>
  func.return %s, %a, %r, %b, %p, %m : tensor<2x3xf32>, tensor<4x3xf32>, tensor<1x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<f32>
}
"""


def lowered(text: str):
    return compile_to_tensor(Parser(make_context(), text).parse_module())


def test_two_replicas_compute_the_collectives_and_combine_outputs():
    exe = ReplicaExecutable(lambda: CpuExecutable(lowered(PROGRAM)), 2)
    x = np.arange(12, dtype=np.float32).reshape(4, 3) - 5
    s, a, r, b, p, m = exe.run("f", x)
    h0, h1 = x[:2], x[2:]
    np.testing.assert_array_equal(s, np.concatenate([h0 + h1, h0 + h1]))
    np.testing.assert_array_equal(a, np.concatenate([x, x]))
    np.testing.assert_array_equal(r, h0 + h1)  # rank 0's row 0, rank 1's row 1
    np.testing.assert_array_equal(b, np.concatenate([h1, h1]))
    np.testing.assert_array_equal(p, np.concatenate([h0 * h1, h0 * h1]))
    assert m.shape == () and m == np.float32((h0.sum() + h1.sum()) / 2)  # the mean
    inputs, outputs = exe.signature("f")
    assert inputs[0].get_shape() == (4, 3) and outputs[1].get_shape() == (8, 3)


def test_the_executor_alone_is_a_group_of_one():
    exe = CpuExecutable(
        lowered(
            PROGRAM.replace("rank_size = 2", "rank_size = 1")
            .replace("tensor<4x3xf32>", "tensor<2x3xf32>")
            .replace("tensor<1x3xf32>", "tensor<2x3xf32>")
        )
    )
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    for out in exe.run("f", x)[:5]:
        np.testing.assert_array_equal(out, x)
    # a module traced for two replicas run by one executor: a clear error, not a wrong shape
    with pytest.raises(
        ExecutionError, match="compiled for a group of 2 replicas but runs in a group of 1"
    ):
        CpuExecutable(lowered(PROGRAM)).run("f", x)


def test_sums_are_in_rank_order_and_bit_identical_on_every_rank():
    hub, n = ReplicaHub(3), 3
    values = [np.float32([1e8]), np.float32([1.0]), np.float32([-1e8])]
    got: list = [None] * n

    def rank(k: int) -> None:
        got[k] = hub.comm(k).all_reduce("all_reduce_sum", values[k], "sum")
        hub.finished(k, False)

    threads = [threading.Thread(target=rank, args=(k,)) for k in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    expected = (values[0] + values[1]) + values[2]  # ((x0 + x1) + x2): 0 in float32
    for g in got:
        np.testing.assert_array_equal(g, expected)
    assert got[0] is not got[1]  # each rank its own copy


def _run_ranks(n: int, body) -> list:
    hub = ReplicaHub(n)
    errors: list = [None] * n

    def rank(k: int) -> None:
        failed = True
        try:
            body(hub.comm(k), k)
            failed = False
        except BaseException as exc:  # noqa: BLE001
            errors[k] = exc
        finally:
            hub.finished(k, failed)

    threads = [threading.Thread(target=rank, args=(k,)) for k in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=10)
        assert not t.is_alive(), "a replica hangs"
    return errors


def test_a_failing_replica_aborts_the_others():
    def body(comm, k):
        if k == 1:
            raise RuntimeError("replica 1 broke")
        comm.all_reduce("all_reduce_sum", np.ones(2), "sum")

    errors = _run_ranks(3, body)
    assert isinstance(errors[1], RuntimeError)
    assert isinstance(errors[0], ReplicaAborted) and isinstance(errors[2], ReplicaAborted)


def test_replicas_that_disagree_or_skip_a_collective_are_errors():
    def mismatch(comm, k):
        if k == 0:
            comm.all_gather("all_gather", np.ones(2))
        else:
            comm.all_reduce("all_reduce_sum", np.ones(2), "sum")

    errors = _run_ranks(2, mismatch)
    messages = " ".join(str(e) for e in errors)
    assert "disagree at collective 0" in messages

    def shapes(comm, k):
        comm.all_reduce("all_reduce_sum", np.ones(2 + k), "sum")

    errors = _run_ranks(2, shapes)
    assert "float64[3]" in " ".join(str(e) for e in errors)

    def skip(comm, k):
        if k == 0:
            comm.broadcast("broadcast", np.ones(2), 0)

    errors = _run_ranks(2, skip)
    assert "replica 1 ended its step without reaching collective 0 (broadcast)" in str(errors[0])


def test_a_failing_replica_fails_the_run_naming_its_rank():
    text = PROGRAM.replace(
        "%m = mindir.reduce_sum",
        '%c = mindir.check_range %x {min = -100.0 : f64, max = 0.5 : f64, message = "too big"} : tensor<2x3xf32>\n  %m = mindir.reduce_sum',
    ).replace("func.return %s, %a, %r, %b, %p, %m", "func.return %s, %a, %r, %b, %c, %m")
    exe = ReplicaExecutable(lambda: CpuExecutable(lowered(text)), 2)
    x = np.zeros((4, 3), np.float32)
    x[3, 0] = 1.0  # only replica 1's slice fails the check
    with pytest.raises(Exception, match="too big") as info:
        exe.run("f", x)
    assert "(in data-parallel replica 1 of 2)" in info.value.__notes__


def test_split_batch_and_combine_outputs():
    a, s = np.arange(12).reshape(6, 2), np.float32(3)
    per = split_batch([a, s], 3)
    assert [p[0].tolist() for p in per] == [[[0, 1], [2, 3]], [[4, 5], [6, 7]], [[8, 9], [10, 11]]]
    assert all(p[1] is s for p in per)
    with pytest.raises(ValueError, match="device_num=4 .* batch of 6, not divisible by 4"):
        split_batch([a], 4)
    out = combine_outputs(
        [
            (np.float32(1), np.int32(7), np.ones((1, 2))),
            (np.float32(2), np.int32(9), np.zeros((1, 2))),
        ]
    )
    assert out[0] == np.float32(1.5) and out[0].dtype == np.float32
    assert out[1] == 7
    np.testing.assert_array_equal(out[2], [[1, 1], [0, 0]])


def test_globals_are_per_replica():
    text = """
    mindir.parameter @w = dense<1.0> : tensor<2xf32>
    func.func @f(%x: tensor<2xf32>, %u0: !mindir.u) -> tensor<2xf32> {
      %p = mindir.get_parameter @w : !mindir.ref<tensor<2xf32>>
      %v = mindir.load %p, %u0 : tensor<2xf32>
      %s = mindir.all_reduce %x {op = "sum"} : tensor<2xf32>
      %n = mindir.add %v, %s : tensor<2xf32>
      %a = mindir.assign %p, %n, %u0 : tensor<2xf32>
      func.return %a : tensor<2xf32>
    }
    """
    exe = ReplicaExecutable(lambda: CpuExecutable(lowered(text)), 2)
    mine = np.array([1.0, 2.0], np.float32)
    exe.set_global("w", mine)
    out = exe.run("f", np.array([1.0, 2.0, 3.0, 4.0], np.float32))
    np.testing.assert_array_equal(out[0], [5, 8, 5, 8])  # [1, 2] + ([1, 2] + [3, 4]), twice
    w0, w1 = exe.replica_globals("w")
    assert w0 is not w1  # the caller's array is replica 0's buffer, replica 1 has a copy
    assert exe.get_global("w") is w0 is mine
    np.testing.assert_array_equal(w1, [5, 8])


def test_every_replica_prints_through_the_hook():
    text = """
    func.func @f(%x: tensor<2xf32>, %io0: !mindir.io) -> tensor<2xf32> {
      %s = mindir.all_reduce %x {op = "min"} : tensor<2xf32>
      %io1 = mindir.print %s, %io0 : tensor<2xf32>
      func.return %s : tensor<2xf32>
    }
    """
    exe = ReplicaExecutable(lambda: CpuExecutable(lowered(text)), 2)
    seen: list = []
    exe.print_hook = lambda items: seen.append(np.array(items[0]))
    out = exe.run("f", np.array([4.0, 1.0, 2.0, 3.0], np.float32))
    np.testing.assert_array_equal(out[0], [2, 1, 2, 1])
    assert len(seen) == 2 and all(list(v) == [2.0, 1.0] for v in seen)
