"""Which work of a pipeline each op of its stage graphs is: micro-batch m, forward or backward.

Found by dataflow over all the stage graphs of one pipeline together (the graphs
`mindir-pipeline-split` made), not by attributes the frontend would set: the facts
are already in the IR, and dataflow survives every pass before (inline, grad,
cse, the split) without each having to carry a new attribute; an attribute put
on the PipelineCell loop's ops would be lost or wrong on the adjoints mindir-grad
makes and on what cse merges across micro-batches. The rules:

- micro-batch: `nn.PipelineCell` slices each input along axis 0 with static
  bounds, `x[m*b:(m+1)*b]`: a `mindir.get_item` of a graph argument taking the
  m-th of Y equal slices of axis 0 seeds m (Y = the argument's rows / b; with no
  such slice, Y = 1 and the tensor arguments seed micro-batch 0). Labels flow
  from operands to results (state operands, `update_state` and a `depend`'s
  attaches carry none) and from a send to its receive (the same `sr_tag`), to a
  fixpoint over the stages. A lazy-inline call (of a shared Block graph) is one
  op and so one unit of work. An op with one label belongs to that micro-batch;
  one with several (gradient accumulation, the loss sum, the optimizer update)
  or none (Parameter loads, constants, the learning rate) to no work.
- forward or backward: the forward of a micro-batch is what its loss is made
  from: the ops the graph's results depend on (through operands, a depend's
  value, and from a receive to its send on another stage); the other ops of the
  micro-batch are its backward.

Used by mindir-pipeline-schedule (passes/mindir_pipeline_schedule.py).
"""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.dialects.builtin import IntegerAttr, TensorType
from xdsl.ir import Block, BlockArgument, Operation, OpResult, SSAValue
from xdsl.traits import IsTerminator

from mindjit.dialects import mindir
from mindjit.dialects.mindir.discardable import MICRO_BATCHES_ATTR
from mindjit.passes.analysis.effects import state_kind, values_from_outside


def micro_slice(op: Operation) -> tuple[int, int] | None:
    """(m, Y) when `op` takes the m-th of Y equal slices of axis 0 of a tensor."""
    if not isinstance(op, mindir.GetItemOp):
        return None
    t = op.operands[0].type
    if not isinstance(t, TensorType) or not t.get_shape() or list(op.squeeze.get_values()):
        return None
    shape = list(t.get_shape())
    starts = list(op.starts.get_values())
    limits = list(op.limits.get_values())
    strides = list(op.strides.get_values())
    if any(s != 1 for s in strides) or len(starts) != len(shape):
        return None
    if any(starts[i] != 0 or limits[i] != shape[i] for i in range(1, len(shape))):
        return None
    size = limits[0] - starts[0]
    if size <= 0 or shape[0] % size or starts[0] % size:
        return None
    return starts[0] // size, shape[0] // size


def producer_in(v: SSAValue, block: Block) -> Operation | None:
    if isinstance(v, OpResult) and v.op.parent is block:
        return v.op
    return None


def data_inputs(op: Operation, inputs: list[SSAValue]) -> list[SSAValue]:
    """The values an op computes from (no states, no update_state/depend attaches)."""
    if isinstance(op, mindir.UpdateStateOp):
        return []
    if isinstance(op, mindir.DependOp):
        return [op.operands[0]]
    return [v for v in inputs if state_kind(v.type) is None]


class PipelineWork:
    """The work of every top-level op of one pipeline's stage graphs (module doc)."""

    def __init__(self, fns: list[func.FuncOp]):
        self.fns = fns
        self.blocks = [f.body.block for f in fns]
        self.ops = [[o for o in b.ops if not o.has_trait(IsTerminator)] for b in self.blocks]
        self.returns = [b.last_op for b in self.blocks]
        self.inputs = {o: values_from_outside(o) for ops in self.ops for o in ops}
        self.stage = {o: k for k, ops in enumerate(self.ops) for o in ops}
        self.send: dict[int, mindir.SendOp] = {}
        self.recv: dict[int, mindir.ReceiveOp] = {}
        for ops in self.ops:
            for o in ops:
                if isinstance(o, mindir.SendOp):
                    self.send[o.sr_tag.value.data] = o
                elif isinstance(o, mindir.ReceiveOp):
                    self.recv[o.sr_tag.value.data] = o
        self.label: dict[Operation, frozenset[int]] = {}
        self.forward: set[Operation] = set()

    def find(self) -> int | None:
        """Label every op; the micro-batches (Y), or None when they cannot be told."""
        found = self.micro_batches()
        if found is None:
            return None
        y, seeds, args_seed = found
        self.find_labels(seeds, args_seed)
        self.find_forward()
        return y

    def producer(self, v: SSAValue, k: int) -> Operation | None:
        return producer_in(v, self.blocks[k])

    def micro_batches(self) -> tuple[int, dict[Operation, int], bool] | None:
        """(Y, the slices seeding each micro-batch, whether arguments seed 0), or None."""
        seeds: dict[Operation, int] = {}
        ys: set[int] = set()
        for k, ops in enumerate(self.ops):
            for o in ops:
                if isinstance(o.operands[0] if o.operands else None, BlockArgument):
                    got = micro_slice(o)
                    if got is not None and o.operands[0].owner is self.blocks[k]:
                        seeds[o] = got[0]
                        ys.add(got[1])
        given = self.fns[0].attributes.get(MICRO_BATCHES_ATTR)
        y_attr = given.value.data if isinstance(given, IntegerAttr) else None
        if len(ys) > 1:
            return None
        if not ys:
            return (1, {}, True) if y_attr in (None, 1) else None
        y = ys.pop()
        if y_attr is not None and y_attr != y:
            return None
        return y, seeds, False

    def find_labels(self, seeds: dict[Operation, int], args_seed: bool) -> None:
        changed = True
        order = list(range(len(self.ops)))
        sweep = 0
        while changed:
            changed = False
            for k in order if sweep % 2 == 0 else reversed(order):
                for o in self.ops[k]:
                    new = self._label_of(o, k, seeds, args_seed)
                    if new != self.label.get(o, frozenset()):
                        self.label[o] = new
                        changed = True
            sweep += 1

    def _label_of(
        self, o: Operation, k: int, seeds: dict[Operation, int], args_seed: bool
    ) -> frozenset[int]:
        if o in seeds:
            return frozenset({seeds[o]})
        if isinstance(o, mindir.ReceiveOp):
            send = self.send.get(o.sr_tag.value.data)
            return self.label.get(send, frozenset()) if send is not None else frozenset()
        found: set[int] = set()
        for v in data_inputs(o, self.inputs[o]):
            p = self.producer(v, k)
            if p is not None:
                found |= self.label.get(p, frozenset())
            elif args_seed and isinstance(v, BlockArgument) and v.owner is self.blocks[k]:
                found.add(0)
        return frozenset(found)

    def find_forward(self) -> None:
        """The ops the graph's results are made from (module doc)."""
        stack: list[Operation] = []
        for k, ret in enumerate(self.returns):
            assert ret is not None
            stack += [
                p
                for v in ret.operands
                if state_kind(v.type) is None and (p := self.producer(v, k)) is not None
            ]
        while stack:
            o = stack.pop()
            if o in self.forward:
                continue
            self.forward.add(o)
            k = self.stage[o]
            if isinstance(o, mindir.ReceiveOp):
                send = self.send.get(o.sr_tag.value.data)
                if send is not None:
                    stack.append(send)
                continue
            for v in data_inputs(o, self.inputs[o]):
                if (p := self.producer(v, k)) is not None:
                    stack.append(p)

    def work(self, o: Operation) -> tuple[str, int] | None:
        """("F" or "B", m) for an op of micro-batch m's forward or backward, else None."""
        lab = self.label.get(o, frozenset())
        if len(lab) != 1 or isinstance(o, mindir.UpdateStateOp):
            return None
        return ("F" if o in self.forward else "B", next(iter(lab)))

    # the order ---------------------------------------------------------------------------
