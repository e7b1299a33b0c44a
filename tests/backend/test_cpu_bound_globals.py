"""Entry arguments bound to globals ({mindjit.global = @w}): `run` fills them with the
global's buffer, the caller gives only the other inputs, and a bad binding is a
located error. The mindir form ({mindir.parameter = @w}) gives the same results as
the same program written with get_parameter, with and without writes."""

from __future__ import annotations

import numpy as np
import pytest

from mindjit.backend.cpu import CpuExecutable, ExecutionError
from mindjit.dialects.parsing import parse_module
from mindjit.passes.pipelines import lower_to_tensor

TENSOR_LEVEL = """
ml_program.global private mutable @w(dense<[1.0, 2.0]> : tensor<2xf32>) : tensor<2xf32>
func.func @f(%x: tensor<2xf32>, %w: tensor<2xf32> {mindjit.global = @w}) -> tensor<2xf32> {
  %e = tensor.empty() : tensor<2xf32>
  %r = linalg.add ins(%x, %w : tensor<2xf32>, tensor<2xf32>) outs(%e : tensor<2xf32>) -> tensor<2xf32>
  func.return %r : tensor<2xf32>
}
"""


def executable(src: str, lower: bool = False) -> CpuExecutable:
    module = parse_module(src, "prog.mlir")
    if lower:
        lower_to_tensor(module)
    return CpuExecutable(module)


def test_run_fills_bound_arguments_from_globals() -> None:
    exe = executable(TENSOR_LEVEL)
    ins, outs = exe.signature("f")
    assert [str(t) for t in ins] == ["tensor<2xf32>"]  # the caller's inputs only
    x = np.array([10.0, 20.0], np.float32)
    np.testing.assert_array_equal(exe.run("f", x), [np.array([11.0, 22.0], np.float32)])
    exe.set_global("w", np.array([5.0, 6.0], np.float32))
    np.testing.assert_array_equal(exe.run("f", x), [np.array([15.0, 26.0], np.float32)])


def test_caller_gives_only_the_unbound_inputs() -> None:
    exe = executable(TENSOR_LEVEL)
    x = np.ones(2, np.float32)
    with pytest.raises(ExecutionError, match="entry @f expects 1 inputs, got 2"):
        exe.run("f", x, x)


@pytest.mark.parametrize(
    ("binding", "message"),
    [
        ("@nope", "no global @nope; available: @v, @w"),
        ("@v", "argument 1 of @f is tensor<2xf32> but is bound to global @v of type tensor<3xf32>"),
    ],
)
def test_bad_binding_is_a_located_error(binding: str, message: str) -> None:
    src = TENSOR_LEVEL.replace("{mindjit.global = @w}", f"{{mindjit.global = {binding}}}")
    src = "ml_program.global private mutable @v(dense<0.0> : tensor<3xf32>) : tensor<3xf32>\n" + src
    exe = executable(src)
    with pytest.raises(ExecutionError, match=message) as info:
        exe.run("f", np.ones(2, np.float32))
    assert str(info.value).startswith("prog.mlir:")


BOUND = """
mindir.parameter @w = dense<[1.0, 2.0]> : tensor<2xf32>
mindir.parameter @c = dense<0.0> : tensor<2xf32>
func.func @Block(%x: tensor<2xf32>, %p: !mindir.ref<tensor<2xf32>>, %u: !mindir.u) -> (tensor<2xf32>, !mindir.u) {
  %l = mindir.load %p, %u : tensor<2xf32>
  %y = mindir.mul %x, %l : tensor<2xf32>
  func.return %y, %u : tensor<2xf32>, !mindir.u
}
func.func @step(%x: tensor<2xf32>, %w: !mindir.ref<tensor<2xf32>> {mindir.parameter = @w}, %c: !mindir.ref<tensor<2xf32>> {mindir.parameter = @c}, %u: !mindir.u) -> (tensor<2xf32>, tensor<2xf32>, !mindir.u) {
  %a, %u1 = func.call @Block(%x, %w, %u) : (tensor<2xf32>, !mindir.ref<tensor<2xf32>>, !mindir.u) -> (tensor<2xf32>, !mindir.u)
  %old = mindir.load %c, %u1 : tensor<2xf32>
  %kept = mindir.tensor_move %old : tensor<2xf32>
  %new = mindir.add %old, %a : tensor<2xf32>
  %n = mindir.assign %c, %new, %u1 : tensor<2xf32>
  %u2 = mindir.update_state %u1, %n : tensor<2xf32>
  %b, %u3 = func.call @Block(%new, %c, %u2) : (tensor<2xf32>, !mindir.ref<tensor<2xf32>>, !mindir.u) -> (tensor<2xf32>, !mindir.u)
  func.return %b, %kept, %u3 : tensor<2xf32>, tensor<2xf32>, !mindir.u
}
"""

# The same program with get_parameter instead of bound arguments.
GETTERS = BOUND.replace(
    ", %w: !mindir.ref<tensor<2xf32>> {mindir.parameter = @w}, "
    "%c: !mindir.ref<tensor<2xf32>> {mindir.parameter = @c}, %u: !mindir.u)",
    ", %u: !mindir.u)",
).replace(
    "  %a, %u1 = func.call @Block(%x, %w, %u)",
    "  %w = mindir.get_parameter @w : !mindir.ref<tensor<2xf32>>\n"
    "  %c = mindir.get_parameter @c : !mindir.ref<tensor<2xf32>>\n"
    "  %a, %u1 = func.call @Block(%x, %w, %u)",
)


def test_bound_arguments_equal_get_parameter_on_random_inputs() -> None:
    assert GETTERS != BOUND and "{mindir.parameter" not in GETTERS
    bound, getters = executable(BOUND, lower=True), executable(GETTERS, lower=True)
    rng = np.random.default_rng(0)
    for _ in range(5):  # the state (@c) carries over from run to run
        x = rng.standard_normal(2).astype(np.float32)
        for got, want in zip(bound.run("step", x), getters.run("step", x)):
            np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(bound.get_global("c"), getters.get_global("c"))
    np.testing.assert_array_equal(bound.get_global("w"), [1.0, 2.0])


def test_a_bound_global_without_a_value_is_named() -> None:
    src = TENSOR_LEVEL.replace(
        "ml_program.global private mutable @w(dense<[1.0, 2.0]> : tensor<2xf32>) : tensor<2xf32>",
        "ml_program.global private mutable @w : tensor<2xf32>",
    )
    exe = executable(src)
    with pytest.raises(ExecutionError, match="global @w has no value yet"):
        exe.run("f", np.ones(2, np.float32))
    exe.set_global("w", np.array([1.0, 1.0], np.float32))
    np.testing.assert_array_equal(
        exe.run("f", np.ones(2, np.float32)), [np.full(2, 2.0, np.float32)]
    )
