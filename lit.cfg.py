"""lit configuration: run as `lit tests/filecheck` (RUN lines: `ms-opt %s ... | filecheck %s`)."""

import os
import sys

import lit.formats

config.name = "mindjit"  # noqa: F821 - `config` is injected by lit
config.test_format = lit.formats.ShTest()  # noqa: F821
config.suffixes = [".mlir"]  # noqa: F821
config.test_source_root = os.path.dirname(os.path.abspath(__file__))  # noqa: F821
config.excludes = [".venv", "build", "examples", "benchmarks", "Inputs"]  # noqa: F821

# The tools come from the environment lit runs in (the project's .venv).
bin_dir = os.path.dirname(sys.executable)
config.environment["PATH"] = os.pathsep.join([bin_dir, os.environ.get("PATH", "")])  # noqa: F821
