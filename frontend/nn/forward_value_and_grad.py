"""`nn.ForwardValueAndGrad(network, weights=None, get_all=False, get_by_list=False,
sens_param=False)`: a Cell whose call returns (the network's output, its
gradients), MindSpore's training building block:

    train = nn.ForwardValueAndGrad(net, weights=net.trainable_params(), get_by_list=True)
    loss, grads = train(x, y)

The gradients are `GradOperation(get_all, get_by_list, sens_param)` of the
network, with respect to the inputs (the first, or all with get_all), the
`weights` (get_by_list), or both; with sens_param the last input is the output's
gradient, and the forward pass gets the other inputs. MindSpore's checks: the
network is a Cell or a function; get_all and get_by_list are bools;
get_by_list needs weights. The construct is MindSpore's, so it compiles as one
graph in GRAPH_MODE and runs eagerly in PyNative mode.
"""

from __future__ import annotations

import types
from typing import Any

from mindjit.frontend.grad import GradOperation
from mindjit.frontend.nn.cell import Cell


class ForwardValueAndGrad(Cell):
    """`nn.ForwardValueAndGrad(network, weights=None, get_all=False, get_by_list=False,
    sens_param=False)` (see the module doc)."""

    def __init__(
        self,
        network: Any,
        weights: Any = None,
        get_all: bool = False,
        get_by_list: bool = False,
        sens_param: bool = False,
    ):
        super().__init__(auto_prefix=False)
        name = "ForwardValueAndGrad"
        if not isinstance(network, Cell | types.FunctionType | types.MethodType):
            raise TypeError(
                f"For '{name}', the argument 'network' must be cell, function type or method "
                f"type, but got '{type(network).__name__}'"
            )
        for what, v in (("get_all", get_all), ("get_by_list", get_by_list)):
            if not isinstance(v, bool):
                raise TypeError(f"For '{name}', the type of '{what}' must be bool, but got {v!r}")
        if get_by_list and not weights:
            raise TypeError(
                'When get_by_list is set to True, the parameters "weights" requires to be set.'
            )
        self.network = network
        if isinstance(network, Cell):
            network.set_grad()
        self.weights = weights
        self.get_all = get_all
        self.get_by_list = get_by_list
        self.sens_param = bool(sens_param)
        self.grad = GradOperation(
            get_all=get_all, get_by_list=get_by_list, sens_param=self.sens_param
        )

    def construct(self, *inputs):
        grad_inputs = inputs
        if self.sens_param:
            inputs = inputs[:-1]
        loss = self.network(*inputs)
        if self.get_by_list:
            grads = self.grad(self.network, self.weights)(*grad_inputs)
        else:
            grads = self.grad(self.network)(*grad_inputs)
        return loss, grads
