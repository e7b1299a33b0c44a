"""Discardable attributes the frontend writes and the passes read (MLIR's
`dialect.name` convention: any op may carry them, and dropping one loses a
fact, never correctness)."""

from __future__ import annotations

#: On a `func.func`: lazy inline keeps this graph as a call (the value is the reuse key).
LAZY_INLINE_ATTR = "mindir.lazy_inline"

#: On any op, or on a call (then on every op mindir-inline copies from it): the
#: pipeline stage (`Cell.pipeline_stage`) the op belongs to, an i64.
PIPELINE_STAGE_ATTR = "mindir.pipeline_stage"
