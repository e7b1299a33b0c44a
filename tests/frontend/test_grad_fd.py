"""`ms.grad` from Python, in float64: PyNative (the tape) and graph mode (an @ms.jit
function around the same call, compiled through `mindir-grad`) against central
finite differences of the forward, and against each other.

The programs live in grad_fd_programs.py (graph mode reads their source). A
program's output is not a scalar: `ms.grad` seeds it with ones, so the
finite differences are those of the sum of its elements; each forward
multiplies by a random `r` so that every element weighs differently.
"""

from __future__ import annotations

import numpy as np
import pytest
from grad_fd_programs import PROGRAMS, grad_tensor_if, inputs_of, tensors

import mindjit as ms
from mindjit.frontend import context as C
from mindjit.frontend.graph.program import new_compiler
from mindjit.passes.pipelines import parse_pipeline, run_passes

EPS = 1e-6
RTOL = 1e-5
ATOL = 1e-6
NAMES = sorted(PROGRAMS)


@pytest.fixture(autouse=True)
def _context():
    C.reset_context()
    yield
    C.reset_context()


def objective(name: str, arrays: list[np.ndarray]) -> float:
    """sum(forward(inputs)), run op by op."""
    out = PROGRAMS[name].forward(*tensors(arrays))
    return float(out.asnumpy().sum())


def finite_differences(name: str, arrays: list[np.ndarray]) -> list[np.ndarray]:
    grads = []
    for p in PROGRAMS[name].positions:
        x = arrays[p]
        g = np.zeros(x.shape)
        for k in np.ndindex(*x.shape):
            plus = [a.copy() for a in arrays]
            minus = [a.copy() for a in arrays]
            plus[p][k] += EPS
            minus[p][k] -= EPS
            g[k] = (objective(name, plus) - objective(name, minus)) / (2 * EPS)
        grads.append(g)
    return grads


def as_arrays(grads, positions) -> list[np.ndarray]:
    grads = grads if isinstance(grads, tuple) else (grads,)
    assert len(grads) == len(positions)
    out = []
    for g in grads:
        assert isinstance(g, ms.Tensor)
        out.append(g.asnumpy())
    return out


def pynative_grads(name: str, arrays: list[np.ndarray]) -> list[np.ndarray]:
    ms.set_context(mode=ms.PYNATIVE_MODE)
    program = PROGRAMS[name]
    return as_arrays(
        ms.grad(program.forward, program.positions)(*tensors(arrays)), program.positions
    )


def graph_grads(name: str, arrays: list[np.ndarray]) -> list[np.ndarray]:
    ms.set_context(mode=ms.GRAPH_MODE)
    program = PROGRAMS[name]
    return as_arrays(program.graph_grad(*tensors(arrays)), program.positions)


def check_against_fd(name: str, arrays: list[np.ndarray], grads: list[np.ndarray]) -> None:
    fd = finite_differences(name, arrays)
    for p, g, want in zip(PROGRAMS[name].positions, grads, fd):
        assert g.dtype == np.float64 and g.shape == arrays[p].shape
        np.testing.assert_allclose(g, want, rtol=RTOL, atol=ATOL, err_msg=f"{name}: input {p}")


@pytest.mark.parametrize("name", NAMES)
def test_pynative_matches_finite_differences(name: str) -> None:
    arrays = inputs_of(name)
    check_against_fd(name, arrays, pynative_grads(name, arrays))


@pytest.mark.parametrize("name", NAMES)
def test_graph_mode_matches_finite_differences(name: str) -> None:
    arrays = inputs_of(name)
    check_against_fd(name, arrays, graph_grads(name, arrays))


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_graph_mode_matches_pynative(name: str, seed: int) -> None:
    arrays = inputs_of(name, seed)
    if name.startswith("tensor_if"):  # keep the branch the name promises
        arrays = inputs_of(name)
        arrays[-1] = np.random.default_rng(seed).standard_normal(arrays[-1].shape)
    eager = pynative_grads(name, arrays)
    graph = graph_grads(name, arrays)
    for a, b in zip(eager, graph):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("name", ["tensor_if_then", "tensor_if_else"])
def test_tensor_if_takes_the_named_branch(name: str) -> None:
    x = inputs_of(name)[0]
    assert (x.sum() > 0) == name.endswith("then")


def test_graph_mode_differentiates_a_mindir_if() -> None:
    """The Python `if` on a tensor is a mindir.if in the grad's region when
    mindir-grad runs (not a select: mindir-cf-to-select runs later)."""
    compiler = new_compiler()
    args = tuple(tensors(inputs_of("tensor_if_then")))
    compiler.entry(grad_tensor_if.__wrapped__, None, args, {}, "grad_tensor_if")
    module = compiler.module.module
    run_passes(parse_pipeline("mindir-auto-monad,mindir-inline"), module)
    ifs = [op for op in module.walk() if op.name == "mindir.if"]
    inside = []
    for op in ifs:
        parent = op.parent_op()
        while parent is not None and parent.name != "mindir.grad":
            parent = parent.parent_op()
        inside.append(parent is not None)
    assert any(inside), str(module)
