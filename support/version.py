"""mindjit's version (also in pyproject.toml); compile-cache keys include it."""

__version__ = "0.1.0"
