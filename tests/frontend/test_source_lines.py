"""Graph mode reads a function's source lines from its file directly (source.py);
they must equal what `inspect.getsourcelines` gives."""

from __future__ import annotations

import functools
import inspect

import pytest

from mindjit.frontend.graph.source import _source_lines


def _decorated(fn):  # type: ignore[no-untyped-def]
    @functools.wraps(fn)
    def wrapper(*a):  # type: ignore[no-untyped-def]
        return fn(*a)

    return wrapper


def plain(x):  # type: ignore[no-untyped-def]
    return x + 1


@_decorated
@functools.cache  # noqa: B019 - a second decorator line
def decorated(x):  # type: ignore[no-untyped-def]
    return x * 2


class Holder:
    def method(self, x):  # type: ignore[no-untyped-def]
        def nested(y):  # type: ignore[no-untyped-def]
            return (
                y  # a continuation line
                + 1
            )

        return nested(x)


def _nested_code():  # type: ignore[no-untyped-def]
    return next(c for c in Holder.method.__code__.co_consts if inspect.iscode(c))


@pytest.mark.parametrize(
    "code",
    [
        plain.__code__,
        decorated.__wrapped__.__wrapped__.__code__,
        Holder.method.__code__,
        _nested_code(),
        (lambda v: v).__code__,
    ],
    ids=["plain", "decorated", "method", "nested", "lambda"],
)
def test_source_lines_equal_inspect(code):  # type: ignore[no-untyped-def]
    assert _source_lines(code) == inspect.getsourcelines(code)
