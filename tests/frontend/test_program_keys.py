"""The in-process program cache tells apart functions whose code is equal but whose
globals differ (code objects compare by value, not by file)."""

from __future__ import annotations

import importlib.util

import numpy as np

import mindjit as ms

SOURCE = """\
def f(x):
    return x * {factor}

def hf(x):
    return f(x)
"""


def load(path, name):  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_equal_functions_of_two_modules_are_two_programs(tmp_path):
    modules = []
    for factor in (2.0, 3.0):
        path = tmp_path / f"keys_{int(factor)}.py"
        path.write_text(SOURCE.format(factor=factor))
        modules.append(load(path, path.stem))
    x = ms.Tensor(np.ones(2, np.float32))
    got = [ms.jit(m.hf)(x).asnumpy().tolist() for m in modules]
    assert got == [[2.0, 2.0], [3.0, 3.0]]


def test_one_source_executed_in_two_namespaces_is_two_programs(tmp_path):
    path = tmp_path / "shared.py"
    path.write_text(SOURCE.format(factor="FACTOR"))
    namespaces = []
    for factor in (2.0, 5.0):
        namespace = {"FACTOR": factor}
        exec(compile(path.read_text(), str(path), "exec"), namespace)
        namespaces.append(namespace)
    x = ms.Tensor(np.ones(2, np.float32))
    got = [ms.jit(n["hf"])(x).asnumpy().tolist() for n in namespaces]
    assert got == [[2.0, 2.0], [5.0, 5.0]]
