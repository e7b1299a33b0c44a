"""Differential test of the IREE backend on autodiff, training, cf-to-select, lazy
inline, HyperMap and vmap programs: outputs and every Parameter after each of two
calls are the numpy executor's."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("iree.runtime")
pytest.importorskip("iree.compiler")

import cf_select_programs as CF  # noqa: E402
import grad_fd_programs as FD  # noqa: E402
import grad_programs as G  # noqa: E402
import hyper_map_batch_programs as HB  # noqa: E402
import hyper_map_programs as H  # noqa: E402
import lazy_inline_programs as L  # noqa: E402
import nn_train_programs as NT  # noqa: E402
import train_programs as T  # noqa: E402
import vmap_programs as V  # noqa: E402
from iree_difference import cell_case, check_backends, function_case  # noqa: E402

from mindjit import Tensor, nn  # noqa: E402


def f32(*shape, seed=0):
    return Tensor(np.random.default_rng(seed).standard_normal(shape).astype(np.float32))


X, Y = f32(3, 4, seed=1), f32(4, seed=2)


def _weights_only():
    net = G.Linear()
    x, t = f32(4, 3, seed=9), f32(4, 2, seed=10)
    return (lambda: G.weights_only(net, x, t)), net


def _train_step(kind, optimizer):
    def make():
        if kind == "mlp":
            network, loss_fn = T.MLP(8, 32, 1), nn.MSELoss()
        else:
            network, loss_fn = T.Logistic(4), nn.BCELoss()
        params = network.trainable_params()
        opt = nn.SGD(params, 0.1) if optimizer == "sgd" else nn.Adam(params, 0.01)
        step, _ = T.make_train_step(network, loss_fn, opt)
        data = f32(16, 8 if kind == "mlp" else 4, seed=5)
        label = Tensor((f32(16, 1, seed=6).asnumpy() > 0).astype(np.float32))
        return (lambda: step(data, label)), [*network.trainable_params(), *opt.parameters]

    return make


def _nn_train_step(make_loss, make_net, labels):
    def make():
        network = make_net()
        opt = nn.Adam(network.trainable_params(), 0.05)
        train = NT.TrainStep(network, make_loss(), opt)
        data = f32(8, 4, seed=7)
        return (lambda: train(data, labels)), train

    return make


def _optimizer_step():
    net = nn.Dense(4, 3)
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    step = NT.OptimizerStep(opt)
    grads = tuple(f32(*p.shape, seed=i) for i, p in enumerate(net.trainable_params()))
    return (lambda: step(grads)), step


def _accumulate(reverse):
    return cell_case(lambda: HB.Accumulate(reverse), f32(3, 2, seed=3))


BINARY = Tensor((np.arange(8) % 2).reshape(8, 1).astype(np.float32))
CLASSES = Tensor(np.arange(8, dtype=np.int32) % 3)

PROGRAMS = {
    # autodiff (grad_programs.py, grad_fd_programs.py)
    "grad_first": lambda: function_case(G.grad_first, X, Y),
    "grad_both": lambda: function_case(G.grad_both, X, Y),
    "grad_outputs_summed": lambda: function_case(G.grad_outputs_summed, f32(3), f32(3, seed=4)),
    "trainer": lambda: cell_case(lambda: G.Trainer(G.Linear()), f32(5, 3), f32(5, 2, seed=6)),
    "weights_only": lambda: _weights_only,
    "sens_net": lambda: cell_case(G.SensNet, f32(3), f32(3, seed=1), f32(3, seed=2)),
    "by_list": lambda: cell_case(lambda: G.ByList(G.Linear()), f32(2, 3, seed=14)),
    "second_order": lambda: function_case(G.second_order, Tensor([1.0, 2.0, -3.0])),
    **{
        f"fd_{name}": (
            lambda p=p, name=name: function_case(p.graph_grad, *FD.tensors(FD.inputs_of(name)))
        )
        for name, p in FD.PROGRAMS.items()
    },
    # training (train_programs.py, nn_train_programs.py)
    **{
        f"train_{k}_{o}": (lambda k=k, o=o: _train_step(k, o))
        for k in ("mlp", "logistic")
        for o in ("sgd", "adam")
    },
    "loss_of_bce": lambda: cell_case(lambda: NT.LossOf(nn.BCEWithLogitsLoss()), f32(8, 1), BINARY),
    "net_with_loss": lambda: cell_case(
        lambda: NT.NetWithLoss(nn.Dense(4, 1), nn.MSELoss()), f32(8, 4), BINARY
    ),
    "optimizer_step_momentum": lambda: _optimizer_step,
    "train_step_bce": lambda: _nn_train_step(
        nn.BCELoss, lambda: nn.SequentialCell([nn.Dense(4, 1), nn.Sigmoid()]), BINARY
    ),
    "train_step_sparse_ce": lambda: _nn_train_step(
        lambda: nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
        lambda: nn.Dense(4, 3),
        CLASSES,
    ),
    # control flow to select (cf_select_programs.py)
    "clipper": lambda: cell_case(CF.Clipper, Tensor([1.0, 2.0, 3.0])),
    "clipper_else": lambda: cell_case(CF.Clipper, Tensor([-1.0, -2.0, 0.5])),
    "counter": lambda: cell_case(CF.Counter, Tensor([1.0])),
    # lazy inline (lazy_inline_programs.py)
    "lazy_gpt": lambda: cell_case(lambda: L.GPT(3), f32(2, 8)),
    "lazy_pipeline": lambda: cell_case(
        lambda: L.PipelineCell(L.Block(L.Config(8), 3), 4), f32(2, 8)
    ),
    "lazy_nested": lambda: cell_case(L.Nested, f32(2, 4)),
    "lazy_two_scaled": lambda: cell_case(L.TwoScaled, f32(2)),
    "lazy_assign_twice": lambda: cell_case(L.AssignTwice, f32(2)),
    # HyperMap and vmap (hyper_map_programs.py, hyper_map_batch_programs.py, vmap_programs.py)
    "hyper_map_net": lambda: function_case(H.hyper_map_net),
    "hyper_map_nested": lambda: function_case(H.nested_net, f32(2), f32(2, seed=1)),
    "hyper_map_dispatch": lambda: function_case(H.dispatch_net, f32(3)),
    "batch_mixed_shapes": lambda: function_case(HB.mixed_shapes_net, f32(2), f32(3), f32(2, 2)),
    "batch_tuple_results": lambda: function_case(
        HB.tuple_results_net, (f32(2), f32(2, seed=1)), (f32(2, seed=2), f32(2, seed=3))
    ),
    "batch_chained": lambda: function_case(HB.chained_net, f32(3, 4)),
    "batch_used_in_graph": lambda: function_case(HB.used_in_graph_net, f32(3, 4)),
    "batch_shared_column": lambda: function_case(HB.shared_column_net, f32(3, 4), f32(4)),
    "batch_print": lambda: function_case(HB.print_net, f32(2, 3)),
    "batch_loop": lambda: function_case(HB.loop_net, Tensor(np.full((3, 2), 0.7, np.float32))),
    "batch_accumulate": lambda: _accumulate(False),
    "batch_accumulate_reverse": lambda: _accumulate(True),
    "batch_parameter_map": lambda: cell_case(HB.ParameterMap, f32(2)),
    "batch_random_map": lambda: function_case(
        HB.random_map, (f32(3), f32(3, seed=1)), (f32(3, seed=2), f32(3, seed=3)), (2, 3.0)
    ),
    "vmap_affine": lambda: function_case(V.vm_affine, f32(3, 5), f32(3, 4), f32(5, 4)),
    "vmap_two_outputs": lambda: function_case(V.vm_two_outputs, f32(4, 3)),
    "vmap_nested": lambda: function_case(V.vm_nested, f32(4, 3)),
    "vmap_negative_out_axis": lambda: function_case(V.vm_negative_out_axis, f32(4, 3)),
    "vmap_scaled_cell": lambda: cell_case(V.Scaled, f32(4, 3)),
    "vmap_with_if": lambda: function_case(V.with_if, f32(4, 3)),
    "vmap_out_axes_none": lambda: function_case(V.vm_out_axes_none, f32(4, 3), f32(3)),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program(name):
    check_backends(name, PROGRAMS[name]())


def test_every_corpus_is_covered():
    assert len([n for n in PROGRAMS if n.startswith("fd_")]) == len(FD.PROGRAMS)
