"""MindSpore's module paths under `mindjit`, for code written against MindSpore's layout.

    from mindjit.ops import operations as P
    from mindjit.common import dtype as mstype
    from mindjit.nn.wrap.cell_wrapper import WithLossCell
    from mindjit.nn.optim.momentum import Momentum

Every path is registered in `sys.modules` (so `import mindjit.nn.wrap.cell_wrapper`
finds it and never loads a file a second time under another name) and as an
attribute of its parent where the parent has none (so `from ... import` and
`ms.nn.wrap.cell_wrapper` reach it). `_ALIASES` are paths where a mindjit module
holds exactly what MindSpore's does: the same module object (`mstype is
ms.dtype`). `_VIEWS` are MindSpore modules mindjit's files are split
differently from (nn.layer.basic, nn.wrap.cell_wrapper, nn.optim.adam ...): a
view of the mindjit package that holds their names (frontend/ms_modules.py),
where a name mindjit lacks is an AttributeError naming its MindSpore path.
"""

from __future__ import annotations

import importlib
import sys

from mindjit.frontend.ms_modules import view

#: MindSpore path -> the mindjit module that is it
_ALIASES = {
    "ops.operations": "mindjit.frontend.ops.operations",
    "ops.composite": "mindjit.frontend.ops.composite",
    "ops.functional": "mindjit.frontend.ops.functional",
    "ops.primitive": "mindjit.frontend.ops.primitive",
    "common.dtype": "mindjit.frontend.dtype",
    "common.tensor": "mindjit.frontend.tensor",
    "common.api": "mindjit.frontend.jit",
    "nn.cell": "mindjit.frontend.nn.cell",
    "nn.loss": "mindjit.frontend.nn.loss",
    "nn.optim": "mindjit.frontend.nn.optim",
    "nn.learning_rate_schedule": "mindjit.frontend.nn.learning_rate_schedule",
    "nn.dynamic_lr": "mindjit.frontend.nn.dynamic_lr",
    "communication.management": "mindjit.frontend.communication",
}

_LAYER_MODULES = (
    "activation basic channel_shuffle combined container conv embedding image math "
    "normalization padding pooling rnn_cells rnns timedistributed transformer"
).split()
_OPTIM_MODULES = "ada_grad adam ftrl lamb lazyadam momentum optimizer proximal_ada_grad rmsprop rprop sgd".split()

#: MindSpore path -> the mindjit package whose names its view shows
_VIEWS = {
    "nn.layer": "mindjit.frontend.nn",
    **{f"nn.layer.{m}": "mindjit.frontend.nn" for m in _LAYER_MODULES},
    "nn.wrap": "mindjit.frontend.nn",
    "nn.wrap.cell_wrapper": "mindjit.frontend.nn",
    "nn.wrap.loss_scale": "mindjit.frontend.nn",
    "nn.wrap.grad_reducer": "mindjit.frontend.nn",
    "nn.loss.loss": "mindjit.frontend.nn.loss",
    **{f"nn.optim.{m}": "mindjit.frontend.nn.optim" for m in _OPTIM_MODULES},
    "nn.utils": "mindjit.frontend.nn",  # no_init_parameters
    "nn.grad": "mindjit.frontend.nn",  # Jvp, Vjp
    "nn.grad.cell_grad": "mindjit.frontend.nn",
}


def _register(path: str, module: object) -> None:
    name = f"mindjit.{path}"
    sys.modules[name] = module  # type: ignore[assignment]
    parent_name, _, leaf = name.rpartition(".")
    parent = importlib.import_module(parent_name)  # mindjit.common is loaded here
    if not hasattr(parent, leaf):
        setattr(parent, leaf, module)


def register() -> None:
    """Register every path (parents first); the API package calls it once."""
    modules = {path: importlib.import_module(m) for path, m in _ALIASES.items()}
    modules |= {path: view(path, importlib.import_module(m)) for path, m in _VIEWS.items()}
    for path in sorted(modules, key=lambda p: p.count(".")):
        _register(path, modules[path])


__all__ = ["register"]
