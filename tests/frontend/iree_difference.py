"""Run one graph-mode program on the numpy executor and on IREE and compare.

A case is `make() -> (call, params)`: fresh objects (a Cell, an optimizer ...)
built after `ms.set_seed(0)`, `call()` runs the program once and `params` are the
Parameters to compare (a Cell, a list of Parameters, or None). Each backend runs
its own objects `CALLS` times; after every call the outputs and every Parameter
are compared (floats within IREE's last-ulp differences, integers and bools
exactly), and so is the printed text. Inputs are made once by the test and
shared, so both backends see the same values.

A program IREE cannot run falls back to the numpy executor with a line on
stderr: the test says which ones may (`FALLBACKS`), so a program that silently
starts falling back fails instead of passing on numpy twice.
"""

from __future__ import annotations

import contextlib
import io
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import mindjit as ms
from mindjit import nn

FALLBACK_LINE = "running this graph on the numpy executor"
CALLS = 2
RTOL, ATOL = 1e-5, 1e-6
#: programs whose float32 results cancel: IREE sums a reduction in another order
#: than numpy, so the difference is the terms' rounding, not the result's (gather_lookups:
#: 19 of 150 random inputs differed by up to 7e-5 on results near 0.1 from terms near
#: 5, with or without fused elementwise generics)
ATOLS: dict[str, float] = {"gather_lookups": 1e-4}

#: Programs IREE does not run (they fall back to numpy), with why: a change that
#: makes one of them run on IREE, or another fall back, must update this list.
FALLBACKS: dict[str, str] = {
    "seed_float_status_depend": "float-status",
    "seed_float_status_overflow": "float-status",
    # float64 tanh: IREE's CPU code has none (backend/iree/prepare.py NO_F64)
    "fd_matmul_tanh_mean": "no float64 'math.tanh'",
    "fd_reshape_transpose": "no float64 'math.tanh'",
    "fd_tensor_if_else": "no float64 'math.tanh'",
    # the same graph as fd_tensor_if_else (its other branch runs): it passed only
    # while every ms.jit wrapper of one function shared one program
    "fd_tensor_if_then": "no float64 'math.tanh'",
}

Case = Callable[[], tuple[Callable[[], Any], Any]]


@dataclass
class Run:
    outputs: list[list[Any]] = field(default_factory=list)  # per call: the leaves
    params: list[dict[str, np.ndarray]] = field(default_factory=list)  # per call
    printed: str = ""
    fallbacks: list[str] = field(default_factory=list)


def leaves(value: Any) -> list[Any]:
    if isinstance(value, tuple | list):
        return [leaf for v in value for leaf in leaves(v)]
    if isinstance(value, dict):
        return [leaf for k in sorted(value) for leaf in leaves(value[k])]
    if isinstance(value, ms.Tensor):
        return [value.asnumpy().copy()]
    return [value]


def named_params(params: Any) -> list[tuple[str, Any]]:
    if params is None:
        return []
    if isinstance(params, nn.Cell):
        return list(params.parameters_and_names())
    return [(f"{i}:{p.name}", p) for i, p in enumerate(params)]


def run_case(make: Case, backend: str, calls: int = CALLS) -> Run:
    """The program's outputs and Parameters after each of `calls` calls on `backend`."""
    ms.set_context(mode=ms.GRAPH_MODE, jit_config={"backend": backend})
    run = Run()
    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            ms.set_seed(0)  # initializers and random ops draw the same values on both
            call, params = make()
            for _ in range(calls):
                run.outputs.append(leaves(call()))
                run.params.append({n: p.asnumpy().copy() for n, p in named_params(params)})
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE, jit_config={"backend": ""})
    run.printed = out.getvalue()
    run.fallbacks = [line for line in err.getvalue().splitlines() if FALLBACK_LINE in line]
    return run


def assert_same_value(want: Any, got: Any, what: str, atol: float = ATOL) -> None:
    if isinstance(want, np.ndarray):
        assert isinstance(got, np.ndarray), f"{what}: {got!r} is not an array"
        assert (want.dtype, want.shape) == (got.dtype, got.shape), (
            f"{what}: {got.dtype}{list(got.shape)} instead of {want.dtype}{list(want.shape)}"
        )
        if want.dtype.kind in "fc":
            np.testing.assert_allclose(got, want, rtol=RTOL, atol=atol, err_msg=what)
        else:
            np.testing.assert_array_equal(got, want, err_msg=what)
    else:
        assert type(want) is type(got) and want == got, f"{what}: {got!r} instead of {want!r}"


def assert_same_run(want: Run, got: Run, atol: float = ATOL) -> None:
    assert len(want.outputs) == len(got.outputs)
    for k, (a, b) in enumerate(zip(want.outputs, got.outputs)):
        assert len(a) == len(b), f"call {k}: {len(b)} outputs instead of {len(a)}"
        for i, (x, y) in enumerate(zip(a, b)):
            assert_same_value(x, y, f"call {k}, output {i}", atol)
    for k, (a, b) in enumerate(zip(want.params, got.params)):
        assert a.keys() == b.keys()
        for name in a:
            assert_same_value(a[name], b[name], f"call {k}, Parameter {name}", atol)
    assert_same_printed(want.printed, got.printed)


NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|nan|inf")


def assert_same_printed(want: str, got: str) -> None:
    """The same text, numbers within the tolerance (a printed float may differ in
    its last digits as the values do)."""
    assert NUMBER.sub("#", got) == NUMBER.sub("#", want), f"printed:\n{got}\ninstead of:\n{want}"
    a = np.array([float(v) for v in NUMBER.findall(want)])
    b = np.array([float(v) for v in NUMBER.findall(got)])
    np.testing.assert_allclose(b, a, rtol=RTOL, atol=ATOL, err_msg="printed numbers")


def check_backends(name: str, make: Case, calls: int = CALLS) -> Run:
    """Run `make`'s program on both backends: same results; falls back iff listed."""
    want = run_case(make, "numpy", calls)
    got = run_case(make, "iree", calls)
    assert want.fallbacks == []
    assert_same_run(want, got, ATOLS.get(name, ATOL))
    if name in FALLBACKS:
        assert got.fallbacks and all(FALLBACKS[name] in line for line in got.fallbacks), (
            f"{name} is listed as falling back ({FALLBACKS[name]}) but printed {got.fallbacks}"
        )
    else:
        assert got.fallbacks == [], f"{name} fell back to the numpy executor"
    return got


def function_case(fn: Callable[..., Any], *inputs: Any) -> Case:
    """`ms.jit(fn)(*inputs)` (no Parameters of its own)."""
    return lambda: ((lambda: ms.jit(fn)(*inputs)), None)


def cell_case(make_cell: Callable[[], Any], *inputs: Any) -> Case:
    """A Cell made fresh, called on `inputs`; its Parameters compared."""

    def make():
        net = make_cell()
        return (lambda: net(*inputs)), net

    return make


def names_of(cases: Iterable[tuple[str, Any]]) -> list[str]:
    return [name for name, _ in cases]
