"""`SummaryCollector`, named so that a script using it fails at once with a clear
message: it writes MindInsight summary files, which mindjit does not."""

from __future__ import annotations

from typing import Any

from mindjit.frontend.train.callback.callback import Callback


class SummaryCollector(Callback):
    def __init__(self, summary_dir: Any = None, *args: Any, **kwargs: Any):
        raise NotImplementedError(
            "mindjit.train.SummaryCollector is not implemented: it writes MindInsight summary "
            "files, which mindjit does not write; record what you need with a Callback (History, "
            "LambdaCallback) instead"
        )
