"""The package's layout: each layer folder is a subpackage of `mindjit`.

The layers (docs/architecture.md) are top-level folders mapped into the package
(`passes/` is `mindjit.passes`, ...). Their subpackages are found from the
folders, every directory holding Python files (a namespace package like
`backend/iree` too), so a new subpackage needs no hand-kept list: one was
missing before, and a non-editable install could not import mindjit.
Everything else about the project is in pyproject.toml.
"""

from __future__ import annotations

from pathlib import Path

from setuptools import setup

ROOT = Path(__file__).resolve().parent

#: package -> folder, bottom layer to top (tests/test_layers.py checks the imports)
LAYERS = {
    "mindjit": "mindjit",
    "mindjit.support": "support",
    "mindjit.ir": "ir",
    "mindjit.dialects": "dialects",
    "mindjit.passes": "passes",
    "mindjit.backend": "backend",
    "mindjit.driver": "driver",
    "mindjit.frontend": "frontend",
    "mindjit.tools": "tools",
}


def packages() -> list[str]:
    """Every package under the layer folders: each directory with a .py file."""
    found: list[str] = []
    for package, folder in LAYERS.items():
        base = ROOT / folder
        for directory in sorted({p.parent for p in base.rglob("*.py")}):
            parts = directory.relative_to(base).parts
            if any(part == "__pycache__" or part.startswith(".") for part in parts):
                continue
            found.append(".".join((package, *parts)))
    return found


setup(
    packages=packages(),
    package_dir=LAYERS,
    # the device's figures and their sources, beside the code that uses them
    package_data={"mindjit.backend.ascend": ["DEVICE.md"]},
)
