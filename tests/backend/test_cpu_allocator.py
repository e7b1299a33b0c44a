"""backend/cpu/allocator.py: the first CPU executable raises glibc's malloc
thresholds once per process, unless MINDJIT_KEEP_FREED_MEMORY=0."""

from __future__ import annotations

import os
import platform
import subprocess
import sys

import pytest

from mindjit.support.config import ConfigError, cpu_keep_memory

PROBE = """
from mindjit.backend.cpu import allocator
from mindjit.backend.cpu import CpuExecutable
from xdsl.dialects.builtin import ModuleOp
assert allocator._done == []
CpuExecutable(ModuleOp([]))
CpuExecutable(ModuleOp([]))
print(allocator._done)
"""


def _probe(value: str) -> str:
    env = {**os.environ, "MINDJIT_KEEP_FREED_MEMORY": value}
    out = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, env=env, check=True
    )
    return out.stdout.strip()


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="mallopt is glibc's")
def test_the_first_executable_raises_the_thresholds_once() -> None:
    assert _probe("1") == "[True]"


def test_zero_leaves_malloc_alone() -> None:
    assert _probe("0") == "[]"


def test_a_bad_value_is_a_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MINDJIT_KEEP_FREED_MEMORY", "yes")
    with pytest.raises(ConfigError, match="MINDJIT_KEEP_FREED_MEMORY must be 0 or 1"):
        cpu_keep_memory()
