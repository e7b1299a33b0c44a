"""Unsupported Python in graph mode: one error naming the file, the line and the construct."""

from __future__ import annotations

import inspect
import re

import graph_errors_cases as cases
import pytest

import mindjit as ms
from mindjit.frontend.graph.errors import FrontendError


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
    (cases.uses_raise, "raise", r": no$", (1.0,)),
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


def test_an_error_inside_a_layer_names_the_users_line():
    """A library Cell rejecting its input from inside the user's network: the
    message names the layer's line and lists the user's call site before it."""
    from mindjit import Tensor, nn

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 8, 3)

        def construct(self, x):
            return self.conv(x) * 2  # LINE: user

    ms.set_context(mode=ms.GRAPH_MODE)
    with pytest.raises(ValueError, match="expects 3 input channels") as info:
        Net()(Tensor([[[[1.0]]] * 4]))
    text = str(info.value)
    assert "The Traceback of Net Construct Code" in text
    user = text.index(f"line {line_of(Net.construct, 'user')}\n    return self.conv(x) * 2")
    assert user < text.index('frontend/nn/conv.py", line')  # outermost first
