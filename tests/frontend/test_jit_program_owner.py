"""One compiled program per `ms.jit` wrapper, as MindSpore compiles once per jit object.

A graph reads the globals of its function when it is compiled. Two wrappers of two
lambdas made by the same line (a loop over functions) were one program, keyed by
their shared code: the second silently ran the first one's function. The values
below are what MindSpore 2.10 printed for the same program (the same wrapper
called again keeps its program, a new wrapper of the same function compiles again).
"""

from __future__ import annotations

import numpy as np

import mindjit as ms
from mindjit import ops

X = np.array([1.0, 2.0], np.float32)
EXP = [2.7182798, 7.38906]
NEG = [-1.0, -2.0]


_f = ops.exp


def test_lambdas_made_by_one_line_are_two_programs(mode) -> None:
    """The lambdas read the global `_f` (no closure): one code object, two wrappers."""
    global _f
    ms.set_context(mode=mode)  # ms.jit compiles in both modes
    got = []
    try:
        for _f in [ops.exp, ops.neg]:  # noqa: B007 - the global the lambda reads
            fn = lambda a: _f(a)  # noqa: E731, B023 - the pattern under test
            got.append(ms.jit(fn)(ms.Tensor(X)).asnumpy())
    finally:
        _f = ops.exp
    np.testing.assert_allclose(got[0], EXP, rtol=1e-6)
    np.testing.assert_allclose(got[1], NEG)


_g = ops.exp


def _h(a):
    return _g(a)


def test_a_wrapper_keeps_its_program_and_a_new_one_reads_globals_again(mode) -> None:
    global _g
    ms.set_context(mode=mode)
    _g = ops.exp
    jh = ms.jit(_h)
    np.testing.assert_allclose(jh(ms.Tensor(X)).asnumpy(), EXP, rtol=1e-6)
    _g = ops.neg
    try:
        np.testing.assert_allclose(jh(ms.Tensor(X)).asnumpy(), EXP, rtol=1e-6)
        np.testing.assert_allclose(ms.jit(_h)(ms.Tensor(X)).asnumpy(), NEG)
    finally:
        _g = ops.exp
