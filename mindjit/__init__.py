"""mindjit: MindSpore's static-graph compiler techniques as xDSL passes.

The public Python API (`import mindjit as ms`) lives here and re-exports the
frontend; the compiler itself is in `mindjit.dialects`, `mindjit.passes`,
`mindjit.backend` and `mindjit.tools`.
"""

__version__ = "0.1.0"
