"""Unsupported Python in graph mode: one error naming the file, the line and the construct."""

from __future__ import annotations

import inspect
import linecache
import pickle
import re
from pathlib import Path

import graph_errors_cases as cases
import numpy as np
import pytest

import mindjit as ms
import mindjit.frontend
from mindjit.frontend.graph.errors import FrontendError

#: a frame in mindjit's own code
LIBRARY = str(Path(mindjit.frontend.__file__).resolve().parent) + "/"


def line_of(fn, marker: str) -> int:
    lines, start = inspect.getsourcelines(fn)
    for offset, text in enumerate(lines):
        if f"LINE: {marker}" in text:
            return start + offset
    raise AssertionError(marker)


CASES = [
    (cases.uses_try, "try", r"'try' is not supported in graph mode", (1.0,)),
    (cases.uses_with, "with", r"'with' is not supported in graph mode", (1.0,)),
    (cases.uses_global, "global", r"'global' is not supported in graph mode", (1.0,)),
    (cases.uses_undefined, "undefined", r"name 'not_defined_anywhere' is not defined", (1.0,)),
    # a raise on constants raises the user's ValueError at its line (issue 24)
    (cases.uses_raise, "raise", r": no\n", (1.0,)),
    (
        cases.branch_types_differ,
        "branches",
        r"'y' has type tensor<3xf32> in one branch and tensor<1x3xf32>",
        ([1.0, 2.0, 3.0],),
    ),
    (cases.creates_jit_class_from_tensor, "jit_class_args", r"must be\s+constants", (1.0,)),
    (
        cases.ambiguous_condition,
        "ambiguous",
        r"truth value of a tensor of shape \[3\] is ambiguous",
        ([1.0, 2.0, 3.0],),
    ),
]


@pytest.mark.parametrize(("fn", "marker", "pattern", "data"), CASES, ids=[c[1] for c in CASES])
def test_located_error(fn, marker, pattern, data):
    inputs = [ms.Tensor(d, ms.float32) for d in data]
    with pytest.raises(FrontendError) as info:
        ms.jit(fn)(*inputs)
    text = str(info.value)
    expected_prefix = f"frontend error: {cases.__file__}:{line_of(fn, marker)}: "
    assert text.startswith(expected_prefix), text
    assert re.search(pattern, text), text


def test_tensor_index_out_of_range_is_located():
    """A tensor index reads with gather since issue 24; a known index out of range is
    MindSpore's IndexError at the user's line."""
    out = ms.jit(cases.uses_tensor_index)(ms.Tensor([1.0, 2.0]), ms.Tensor(1, ms.int32))
    assert out.asnumpy() == 2.0
    with pytest.raises(IndexError) as info:
        ms.jit(cases.uses_tensor_index)(ms.Tensor([1.0, 2.0]), 5)
    assert f"{cases.__file__}:{line_of(cases.uses_tensor_index, 'index')}:" in str(info.value)
    assert type(info.value).__name__ == "IndexError"  # shown as MindSpore's type, not ours


def f32(*shape):
    return ms.Tensor(np.ones(shape, np.float32))


def run_mutual():
    cases.MUTUAL[:] = [cases.MutualFirst()]
    return cases.MUTUAL[0](f32(2))


#: (marker, call in GRAPH_MODE, type, message, mindjit's file the chain goes into)
LIBRARY_CASES = [
    ("dense", lambda: cases.DenseWrongFeatures()(f32(2, 3)), ValueError, r"For 'matmul'", "nn/"),
    ("dense_jit", lambda: cases.dense_in_jit(f32(2, 3)), ValueError, r"3 .*5", "nn/"),
    ("layer_norm", lambda: cases.LayerNormWrongShape()(f32(2, 5)), ValueError, "2x5", "nn/"),
    ("conv", lambda: cases.ConvWrongChannels()(f32(1, 4, 8, 8)), ValueError, "channels", "nn/"),
    (
        "conv_dtype",
        lambda: cases.ConvIntInput()(ms.Tensor(np.ones((1, 3, 8, 8), np.int32))),
        TypeError,
        "must be a float tensor",
        "nn/",
    ),
    (
        "grad_position",
        lambda: cases.grad_position_out_of_range(f32(2), f32(2)),
        ValueError,
        "grad_position 2 is out of range",
        None,
    ),
    (
        "grad_position_top",
        lambda: cases.grad_position_at_top_level(f32(2), f32(2)),
        ValueError,
        "grad_position 2 is out of range",
        "grad.py",
    ),
    (
        "recursive",
        lambda: cases.RecursiveConstruct()(f32(2)),
        RuntimeError,
        "recursive call of 'RecursiveConstruct_construct'",
        None,
    ),
    (
        "no_base_case",
        lambda: cases.RecursionWithoutBaseCase()(f32(2), 0),
        RuntimeError,
        "reached no base case",
        None,
    ),
    ("mutual_first", run_mutual, RuntimeError, "recursive call of 'MutualSecond", None),
    (
        "recursive_fn",
        lambda: cases.recursive_function(f32(2)),
        RuntimeError,
        "recursive call of 'recursive_function'",
        None,
    ),
]


@pytest.fixture
def graph_mode():
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        yield
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


@pytest.mark.parametrize(
    ("marker", "call", "kind", "pattern", "into"), LIBRARY_CASES, ids=[c[0] for c in LIBRARY_CASES]
)
def test_an_error_inside_mindjit_code_names_the_users_line(
    graph_mode, marker, call, kind, pattern, into
):
    """The user's file:line heads the message and comes before any of mindjit's
    frames, with its source line; the type is MindSpore's, shown by its own name."""
    with pytest.raises(kind, match=pattern) as info:
        call()
    text = str(info.value)
    line = line_of_marker(marker)
    user = f"{cases.__file__}:{line}"
    assert user in text.splitlines()[0], text
    mindjit_at = text.find(LIBRARY)
    assert mindjit_at == -1 or text.index(user) < mindjit_at, text
    assert linecache.getline(cases.__file__, line).strip() in text, text
    if into is not None:  # the chain goes on down into the library's line
        assert f"{LIBRARY}{into}" in text[text.index(user) :], text
    assert "OpError" not in text and "GraphValue" not in text
    # shown by MindSpore's name (a refusal: mindjit's documented FrontendError, a RuntimeError)
    assert type(info.value).__name__ in (kind.__name__, "FrontendError"), type(info.value)


def line_of_marker(marker: str) -> int:
    for number, text in enumerate(open(cases.__file__), 1):
        if f"LINE: {marker}" in text:
            return number
    raise AssertionError(marker)


def test_the_chain_lists_frames_outermost_first_with_a_caret_under_each_call(graph_mode):
    with pytest.raises(ValueError) as info:
        cases.DenseWrongFeatures()(f32(2, 3))
    text = str(info.value)
    assert "- The Traceback of Net Construct Code:" in text
    frames = re.findall(r"# (\d+) In file (\S+):(\d+)\n(.*)\n( *)\^(~*)", text)
    assert [f[0] for f in frames] == ["0", "1"], text
    (_, file0, line0, source0, pad0, tildes0), (_, file1, _, source1, pad1, tildes1) = frames
    assert (file0, int(line0)) == (cases.__file__, line_of_marker("dense"))
    assert file1.startswith(LIBRARY)
    # the caret underlines the call in the file as written (a method is indented)
    assert source0[len(pad0) : len(pad0) + 1 + len(tildes0)] == "self.dense(x)"
    assert source1[len(pad1) :].startswith("self.matmul(")


def test_a_recursion_without_base_case_shows_its_cycle_once(graph_mode):
    with pytest.raises(RuntimeError) as info:
        cases.RecursionWithoutBaseCase()(f32(2), 0)
    text = str(info.value)
    assert "RecursionError" not in text and "maximum recursion depth" not in text
    assert re.search(r"\[the call above repeated \d+ more times\]", text), text
    assert len(text.splitlines()) < 20, text


def test_a_recursion_with_a_base_case_on_constants_compiles(graph_mode):
    out = cases.RecursionWithBaseCase()(f32(2), 5)
    assert out.asnumpy().tolist() == [6.0, 6.0]


def test_pynative_errors_are_plain_builtin_types():
    """PyNative mode raises the op's ValueError itself (no class of mindjit's)."""
    with pytest.raises(ValueError, match="For 'matmul'") as info:
        cases.DenseWrongFeatures()(f32(2, 3))
    assert type(info.value) is ValueError


def test_a_located_error_pickles_as_its_type(graph_mode):
    with pytest.raises(ValueError) as info:
        cases.DenseWrongFeatures()(f32(2, 3))
    again = pickle.loads(pickle.dumps(info.value))
    assert type(again) is type(info.value) and str(again) == str(info.value)
