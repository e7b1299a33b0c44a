"""Differential test of the IREE backend (issue 25): every program of the graph
corpus and the seed documents' programs give the numpy executor's results
(outputs, Parameters after each of two calls, printed text) on IREE."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("iree.runtime")
pytest.importorskip("iree.compiler")

from graph_corpus import CELLS, FUNCTIONS, seeded  # noqa: E402
from iree_difference import (  # noqa: E402
    FALLBACKS,
    cell_case,
    check_backends,
    function_case,
)

import mindjit as ms  # noqa: E402
from mindjit import Parameter, Tensor, nn, ops  # noqa: E402
from mindjit import dtype as mstype  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "seeds"))
import docs_programs as D  # noqa: E402
from test_static_graph_examples import FloatStatusNet  # noqa: E402 - doc 003's Depend example


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_corpus_function(name):
    fn, make_inputs = FUNCTIONS[name]
    seeded(name)
    check_backends(name, function_case(fn, *make_inputs()))


@pytest.mark.parametrize("name", sorted(CELLS))
def test_corpus_cell(name):
    cls, make_inputs = CELLS[name]
    seeded(name)
    check_backends(name, cell_case(cls, *make_inputs()))


# --- the seed documents' programs --------------------------------------------------------


def _compile_cache_func(input_x, input_y):
    """Doc 000's compile-cache example."""
    output = input_x
    for _ in range(200):
        output = input_x + input_x * input_y + output
    return output


def _mul(x, y):
    return x * y


class Network(nn.Cell):
    """Doc 004's Network with print (fixed weights instead of np.random.randn)."""

    def __init__(self):
        super().__init__()
        rng = np.random.default_rng(4)
        self.w = Parameter(Tensor(rng.standard_normal((5, 3)), ms.float32), name="w")
        self.b = Parameter(Tensor(rng.standard_normal(3), ms.float32), name="b")

    def construct(self, x):
        out = ops.matmul(x, self.w)
        print("matmul: ", out)
        out = out + self.b
        print("add bias: ", out)
        return out


class Overflow(nn.Cell):
    def __init__(self):
        super().__init__()
        self.alloc_status = ops.NPUAllocFloatStatus()
        self.get_status = ops.NPUGetFloatStatus()
        self.clear_status = ops.NPUClearFloatStatus()

    def construct(self, x):
        init = self.alloc_status()
        x = ops.depend(x, self.clear_status(init))
        res = x * x
        init = ops.depend(init, res)
        return res, self.get_status(init)


def _f16(value):
    return Tensor(np.full((2, 3), value, np.float16))


SEEDS = {
    "seed_hyper_map_net": lambda: function_case(D.hyper_map_net),
    "seed_for_loop_net": lambda: function_case(D.for_loop_net),
    "seed_if_net": lambda: function_case(D.if_net, ms.Tensor([0]), ms.Tensor([1])),
    "seed_select_net": lambda: function_case(D.select_net, ms.Tensor([0]), ms.Tensor([1])),
    "seed_manually_batched": lambda: function_case(
        D.manually_batched, ms.Tensor(np.linspace(-4, 4, 24, dtype=np.float32).reshape(4, 6))
    ),
    "seed_vmap_batched": lambda: function_case(
        D.vmap_batched, ms.Tensor(np.linspace(-4, 4, 24, dtype=np.float32).reshape(4, 6))
    ),
    "seed_compile_cache_func": lambda: function_case(
        _compile_cache_func, Tensor([1], mstype.float32), Tensor([2], mstype.float32)
    ),
    "seed_mul": lambda: function_case(_mul, Tensor([1.0, 2.0]), Tensor([3.0, 4.0])),
    "seed_network_print": lambda: cell_case(Network, ops.ones(5, ms.float32)),
    "seed_float_status_depend": lambda: cell_case(FloatStatusNet, _f16(5)),
    "seed_float_status_overflow": lambda: cell_case(Overflow, _f16(300.0)),
}


@pytest.mark.parametrize("name", sorted(SEEDS))
def test_seed_program(name):
    check_backends(name, SEEDS[name]())


def test_fallback_list_names_known_programs():
    """Every listed fallback is a program these tests run (each test asserts that a
    listed program falls back with its reason and that no other one does)."""
    from test_iree_backend_training import PROGRAMS as TRAINING

    known = set(FUNCTIONS) | set(CELLS) | set(SEEDS) | set(TRAINING)
    assert set(FALLBACKS) <= known, set(FALLBACKS) - known
    assert sorted(FALLBACKS) == [
        "fd_matmul_tanh_mean",
        "fd_reshape_transpose",
        "fd_tensor_if_else",
        "fd_tensor_if_then",
        "seed_float_status_depend",
        "seed_float_status_overflow",
    ]
