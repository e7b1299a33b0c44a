"""The training wrappers of MindSpore 2.x: `nn.WithLossCell`, `nn.TrainOneStepCell`,
`nn.WithEvalCell`.

They are plain Cells whose `construct` is ordinary graph-mode Python: the
backbone, the loss, `GradOperation(get_by_list=True, sens_param=True)` over the
loss network and the optimizer's update, ordered with `ops.depend` exactly as
MindSpore writes them. So a whole train step (forward, mindir-grad's backward,
the Parameter assigns) is one compiled program in graph mode and the same
calls eagerly in PyNative mode; nothing here is special-cased by the compiler.
"""

from __future__ import annotations

from typing import Any

from mindjit.frontend import dtype as D
from mindjit.frontend import ops
from mindjit.frontend.grad import GradOperation
from mindjit.frontend.nn.cell import Cell
from mindjit.frontend.nn.grad_reducer import DistributedGradReducer
from mindjit.frontend.nn.optim.optimizer import Optimizer
from mindjit.support import config
from mindjit.support.config import ParallelMode


def _cell(value: Any, owner: str, arg: str) -> Cell:
    if not isinstance(value, Cell):
        raise TypeError(f"For '{owner}', '{arg}' must be a Cell, got {type(value).__name__}")
    return value


class WithLossCell(Cell):
    """`nn.WithLossCell(backbone, loss_fn)`: `loss_fn(backbone(data), label)`."""

    def __init__(self, backbone: Cell, loss_fn: Cell):
        super().__init__(auto_prefix=False)
        self._backbone = _cell(backbone, "WithLossCell", "backbone")
        self._loss_fn = _cell(loss_fn, "WithLossCell", "loss_fn")

    def construct(self, data, label):
        out = self._backbone(data)
        return self._loss_fn(out, label)

    @property
    def backbone_network(self) -> Cell:
        return self._backbone


class WithEvalCell(Cell):
    """`nn.WithEvalCell(network, loss_fn, add_cast_fp32=False)`: returns
    (loss, outputs, label), the outputs and label cast to float32 first if asked."""

    def __init__(self, network: Cell, loss_fn: Cell, add_cast_fp32: bool = False):
        super().__init__(auto_prefix=False)
        self._network = _cell(network, "WithEvalCell", "network")
        self._loss_fn = _cell(loss_fn, "WithEvalCell", "loss_fn")
        if not isinstance(add_cast_fp32, bool):
            raise TypeError(
                f"For 'WithEvalCell', 'add_cast_fp32' must be a bool, got {add_cast_fp32!r}"
            )
        self.add_cast_fp32 = add_cast_fp32

    def construct(self, data, label):
        outputs = self._network(data)
        if self.add_cast_fp32:
            label = ops.cast(label, D.float32)
            outputs = ops.cast(outputs, D.float32)
        loss = self._loss_fn(outputs, label)
        return loss, outputs, label


class TrainOneStepCell(Cell):
    """`nn.TrainOneStepCell(network, optimizer, sens=None, return_grad=False)`.

    One step: the loss, the gradients of the optimizer's Parameters with the
    output gradient `sens` (1.0 by default, as MindSpore 2.x), the update; it
    returns the loss (and the gradients with `return_grad=True`).
    """

    def __init__(self, network: Cell, optimizer: Cell, sens: Any = None, return_grad: bool = False):
        super().__init__(auto_prefix=False)
        self.network = _cell(network, "TrainOneStepCell", "network")
        self.network.set_grad()
        if not isinstance(optimizer, Optimizer):
            raise TypeError(
                "For 'TrainOneStepCell', 'optimizer' must be an nn.Optimizer (nn.SGD, "
                f"nn.Momentum, nn.Adam ...), got {type(optimizer).__name__}"
            )
        self.optimizer = optimizer
        self.weights = optimizer.parameters
        self.grad = GradOperation(get_by_list=True, sens_param=True)
        if sens is None:
            sens = 1.0
        if isinstance(sens, bool) or not isinstance(sens, int | float):
            raise TypeError(f"For 'TrainOneStepCell', 'sens' must be a number, got {sens!r}")
        self.sens = float(sens)
        if not isinstance(return_grad, bool):
            raise TypeError(
                f"For 'TrainOneStepCell', 'return_grad' must be a bool, got {return_grad!r}"
            )
        self.return_grad = return_grad
        # MindSpore's: in data-parallel mode the gradients are all-reduced (mean by
        # gradients_mean, degree device_num) before the optimizer
        self.reducer_flag = config.parallel_mode() in (
            ParallelMode.DATA_PARALLEL,
            ParallelMode.HYBRID_PARALLEL,
        )
        self.grad_reducer = None
        if self.reducer_flag:
            self.mean = config.gradients_mean()
            self.degree = config.device_num()
            self.grad_reducer = DistributedGradReducer(self.weights, self.mean, self.degree)

    def construct(self, *inputs):
        loss = self.network(*inputs)
        sens = ops.fill(loss.dtype, loss.shape, self.sens)
        grads = self.grad(self.network, self.weights)(*inputs, sens)
        if self.reducer_flag:
            grads = self.grad_reducer(grads)
        loss = ops.depend(loss, self.optimizer(grads))
        if self.return_grad:
            return loss, grads
        return loss
