"""ms.train.Model on mindjit.dataset pipelines: train / eval / predict / fit in both
modes, the callbacks' order, step numbers and printing, against a hand-written loop."""

from __future__ import annotations

import os
import re

import numpy as np
import pytest

import mindjit as ms
import mindjit.dataset as ds
import mindjit.dataset.transforms as transforms
import mindjit.dataset.vision as vision
from mindjit import Tensor, nn
from mindjit.frontend.graph.api import cached_programs, clear_cache
from mindjit.train import (
    Callback,
    CheckpointConfig,
    EarlyStopping,
    History,
    LambdaCallback,
    LossMonitor,
    Model,
    ModelCheckpoint,
    ReduceLROnPlateau,
    SummaryCollector,
    TimeMonitor,
)

CENTERS = np.array([[3, 0, 0, 0], [0, 3, 0, 0], [0, 0, 3, 0]], np.float32)


def _blobs(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Three separable classes around CENTERS."""
    rng = np.random.default_rng(seed)
    label = rng.integers(0, 3, n).astype(np.int32)
    return (CENTERS[label] + rng.normal(0, 0.5, (n, 4))).astype(np.float32), label


def _data(n=96, seed=0, batch=16, shuffle=False) -> ds.Dataset:
    x, y = _blobs(n, seed)
    return ds.NumpySlicesDataset({"image": x, "label": y}, shuffle=shuffle).batch(
        batch, drop_remainder=True
    )


def _model(metrics=None, lr=0.1, **kw) -> Model:
    ms.set_seed(1)
    net = nn.SequentialCell([nn.Dense(4, 16), nn.ReLU(), nn.Dense(16, 3)])
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    return Model(net, loss, nn.Momentum(net.trainable_params(), lr, 0.9), metrics=metrics, **kw)


@pytest.fixture
def in_mode(mode):
    ms.set_context(mode=mode)
    clear_cache()
    yield mode
    ms.set_context(mode=ms.PYNATIVE_MODE)


class Losses(Callback):
    def __init__(self):
        self.losses = []

    def on_train_step_end(self, run_context):
        self.losses.append(float(run_context.original_args().net_outputs.asnumpy()))


def test_an_mlp_learns_separable_data_and_graph_mode_compiles_the_step_once(in_mode):
    model = _model(metrics={"accuracy", "loss"})
    recorded = Losses()
    model.train(5, _data(shuffle=True), callbacks=[recorded])
    if in_mode == ms.GRAPH_MODE:  # 30 steps of one shape: one compiled train step
        assert len(cached_programs()) == 1
    result = model.eval(_data(64, seed=1))
    assert set(result) == {"accuracy", "loss"}
    assert result["accuracy"] >= 0.95
    assert recorded.losses[-1] < recorded.losses[0] / 4
    logits = model.predict(Tensor(CENTERS))
    assert logits.asnumpy().argmax(axis=1).tolist() == [0, 1, 2]


def test_losses_equal_a_hand_written_loop(in_mode):
    model = _model()
    recorded = Losses()
    model.train(2, _data(), callbacks=recorded)
    ms.set_seed(1)
    net = nn.SequentialCell([nn.Dense(4, 16), nn.ReLU(), nn.Dense(16, 3)])
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(
        nn.WithLossCell(net, loss), nn.Momentum(net.trainable_params(), 0.1, 0.9)
    )
    step.set_train()
    by_hand = []
    for _ in range(2):
        for image, label in _data().create_tuple_iterator():
            by_hand.append(float(step(image, label).asnumpy()))
    assert len(recorded.losses) == 12
    np.testing.assert_allclose(recorded.losses, by_hand, rtol=1e-6)
    for got, want in zip(model.predict_network.trainable_params(), net.trainable_params()):
        np.testing.assert_allclose(got.asnumpy(), want.asnumpy(), rtol=1e-6)


class Recorder(Callback):
    """The 2.x hooks, each logged with the epoch and step it sees."""

    def __init__(self):
        self.calls = []

    def _log(self, hook, run_context):
        args = run_context.original_args()
        self.calls.append((hook, args.get("cur_epoch_num"), args.get("cur_step_num")))

    def on_train_begin(self, rc):
        self._log("train_begin", rc)

    def on_train_epoch_begin(self, rc):
        self._log("epoch_begin", rc)

    def on_train_step_begin(self, rc):
        self._log("step_begin", rc)

    def on_train_step_end(self, rc):
        self._log("step_end", rc)

    def on_train_epoch_end(self, rc):
        self._log("epoch_end", rc)

    def on_train_end(self, rc):
        self._log("train_end", rc)


class OldNames(Callback):
    """The 1.x names, which the 2.x hooks call by default."""

    def __init__(self):
        self.calls = []

    def begin(self, rc):
        self.calls.append("begin")

    def epoch_begin(self, rc):
        self.calls.append("epoch_begin")

    def step_end(self, rc):
        args = rc.original_args()
        self.calls.append(f"step_end {args.cur_step_num}/{args.batch_num}")

    def epoch_end(self, rc):
        self.calls.append("epoch_end")

    def end(self, rc):
        self.calls.append("end")


def test_callbacks_run_in_order_with_the_step_numbers():
    model = _model()
    new, old = Recorder(), OldNames()
    model.train(2, _data(48), callbacks=[new, old])  # 3 steps an epoch
    expected = [("train_begin", None, 0)]
    for epoch, steps in ((1, (1, 2, 3)), (2, (4, 5, 6))):
        expected.append(("epoch_begin", epoch, steps[0] - 1))
        for s in steps:
            expected += [("step_begin", epoch, s), ("step_end", epoch, s)]
        expected.append(("epoch_end", epoch, steps[-1]))
    expected.append(("train_end", 2, 6))
    assert new.calls == expected
    assert old.calls == (
        ["begin"]
        + (["epoch_begin"] + [f"step_end {s}/3" for s in (1, 2, 3)] + ["epoch_end"])
        + (["epoch_begin"] + [f"step_end {s}/3" for s in (4, 5, 6)] + ["epoch_end"])
        + ["end"]
    )


def test_run_context_carries_the_model_and_request_stop_stops():
    model = _model()
    seen = {}

    class Stop(Callback):
        def on_train_step_end(self, rc):
            args = rc.original_args()
            seen.update(args)
            if args.cur_step_num == 4:
                rc.request_stop()

    model.train(3, _data(48), callbacks=Stop())
    assert seen["cur_step_num"] == 4 and seen["cur_epoch_num"] == 2
    assert seen["train_network"] is model.train_network
    assert isinstance(seen["train_network"], nn.TrainOneStepCell)
    assert seen["batch_num"] == 3 and seen["epoch_num"] == 3 and seen["mode"] == "train"
    assert isinstance(seen["net_outputs"], Tensor)
    assert [a.shape for a in seen["train_dataset_element"]] == [(16, 4), (16,)]


def test_loss_monitor_prints_as_mindspore(capsys):
    model = _model()
    recorded = Losses()
    model.train(2, _data(48), callbacks=[LossMonitor(), recorded])
    lines = capsys.readouterr().out.splitlines()
    assert [re.sub(r"loss is .*", "", line) for line in lines] == [
        f"epoch: {e} step: {s}, " for e in (1, 2) for s in (1, 2, 3)
    ]
    printed = [float(line.rsplit(" ", 1)[1]) for line in lines]
    assert printed == recorded.losses  # the step's loss, as a Python float
    model.train(2, _data(48), callbacks=LossMonitor(per_print_times=2))
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(",")[0] for line in lines] == [
        "epoch: 1 step: 2",
        "epoch: 2 step: 1",
        "epoch: 2 step: 3",
    ]
    with pytest.raises(ValueError, match="'per_print_times' must be int and >= 0"):
        LossMonitor(-1)


def test_loss_monitor_stops_on_a_nan_loss():
    model = _model(lr=1e30)
    with pytest.raises(ValueError, match=r"In epoch: 1 step: \d, loss is NAN or INF"):
        model.train(1, _data(), callbacks=LossMonitor(per_print_times=0))


def test_time_monitor_prints_each_epoch(capsys):
    _model().train(2, _data(48), callbacks=TimeMonitor())
    lines = capsys.readouterr().out.splitlines()
    pattern = r"Train epoch time: \d+\.\d{3} ms, per step time: \d+\.\d{3} ms"
    assert len(lines) == 2 and all(re.fullmatch(pattern, line) for line in lines)


def test_fit_evaluates_after_the_epochs_asked(capsys):
    model = _model(metrics={"acc": ms.train.Accuracy()})
    model.fit(2, _data(48), _data(32, seed=1), valid_frequency=2, callbacks=LossMonitor(3))
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(", loss is")[0] for line in lines[:2]] == [
        "epoch: 1 step: 3",
        "epoch: 2 step: 3",  # the evaluation's steps are not printed: LossMonitor sees no eval hook
    ]
    assert len(lines) == 3
    assert re.fullmatch(r"Eval result: epoch 2, metrics: \{'acc': .*\}", lines[2])


def test_initial_epoch_and_sink_mode():
    model = _model()
    new = Recorder()
    model.train(3, _data(32), callbacks=new, initial_epoch=1)
    assert [c[1] for c in new.calls if c[0] == "epoch_begin"] == [2, 3]
    with pytest.warns(UserWarning, match="CPU cannot support dataset sink mode"):
        model.train(1, _data(32), dataset_sink_mode=True, sink_size=2)


def test_eval_with_metric_objects_and_an_eval_network():
    model = _model(metrics={"acc": ms.nn.Accuracy(), "loss": ms.train.Loss()})
    model.train(5, _data(shuffle=True))
    result = model.eval(_data(64, seed=1))
    assert result["acc"] >= 0.9 and 0 < result["loss"] < 0.5
    net = model.predict_network
    evaluate = nn.WithEvalCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True))
    own = Model(net, eval_network=evaluate, eval_indexes=[0, 1, 2], metrics={"accuracy"})
    assert own.eval(_data(64, seed=1))["accuracy"] == result["acc"]


@pytest.mark.parametrize(
    "call,error,message",
    [
        (lambda m: m.train(2, _data(), initial_epoch=2), ValueError, "must bigger than"),
        (lambda m: m.train(1, [1, 2]), TypeError, "'train_dataset' must be a mindjit.dataset"),
        (lambda m: m.train(1, _data(), callbacks=[print]), TypeError, "must be Callback"),
        (lambda m: m.train(1, _data(), dataset_sink_mode=1), TypeError, "dataset_sink_mode"),
        (lambda m: m.train(1.0, _data()), TypeError, "'epoch' must be int"),
        (lambda m: m.eval(_data()), ValueError, "'metrics' can not be None"),
        (lambda m: m.train(1, _data(32).skip(5)), ValueError, "There is no valid data"),
        (lambda m: m.predict({"x": 1}), TypeError, "type of input data must be Tensor"),
    ],
)
def test_bad_calls_are_clear_errors(call, error, message):
    with pytest.raises(error, match=message):
        call(_model())


def test_bad_models_are_clear_errors():
    net = nn.Dense(4, 3)
    with pytest.raises(ValueError, match="`eval_network` must not be None"):
        Model(net, metrics={"accuracy"})
    with pytest.raises(NotImplementedError, match="amp_level='O2'"):
        Model(net, nn.MSELoss(), nn.SGD(net.trainable_params()), amp_level="O2")
    with pytest.raises(ValueError, match="The argument in 'kwargs' should be"):
        Model(net, unknown=1)
    with pytest.raises(TypeError, match="'network' must be a Cell"):
        Model(lambda x: x)
    with pytest.raises(KeyError, match="unsupported metric f2"):  # MindSpore's words
        Model(net, nn.MSELoss(), metrics={"f2"})
    with pytest.raises(TypeError, match="'optimizer' must be an nn.Optimizer"):
        Model(net, nn.MSELoss(), optimizer=nn.ReLU())


def test_model_checkpoint_saves_and_keeps_the_newest(tmp_path):
    model = _model()
    config = CheckpointConfig(
        save_checkpoint_steps=2, keep_checkpoint_max=2, append_info=["epoch_num"]
    )
    saver = ModelCheckpoint(prefix="mlp", directory=str(tmp_path), config=config)
    model.train(2, _data(48), callbacks=saver)  # steps 2, 4, 6 (and the end: 6 again, skipped)
    assert sorted(os.listdir(tmp_path)) == ["mlp-2_1.ckpt", "mlp-2_3.ckpt"]
    assert saver.latest_ckpt_file_name == str(tmp_path / "mlp-2_3.ckpt")
    loaded = ms.load_checkpoint(saver.latest_ckpt_file_name)
    assert int(loaded["epoch_num"].asnumpy()) == 2
    for p in model.train_network.trainable_params():
        np.testing.assert_array_equal(loaded[p.name].asnumpy(), p.asnumpy())
    again = ModelCheckpoint(prefix="mlp", directory=str(tmp_path), config=config)
    model.train(1, _data(32), callbacks=again)  # the prefix is taken: mlp_1
    assert os.path.basename(again.latest_ckpt_file_name) == "mlp_1-1_2.ckpt"
    with pytest.raises(ValueError, match="can't be all None or 0"):
        CheckpointConfig(0, 0, 0, 0)
    with pytest.raises(ValueError, match="does not contain '/'"):
        ModelCheckpoint(prefix="a/b")


def test_exception_save_writes_a_breakpoint_checkpoint(tmp_path):
    config = CheckpointConfig(save_checkpoint_steps=100, exception_save=True)
    saver = ModelCheckpoint(prefix="crash", directory=str(tmp_path), config=config)

    class Boom(Callback):
        def on_train_step_end(self, rc):
            if rc.original_args().cur_step_num == 2:
                raise KeyError("boom")

    with pytest.raises(KeyError, match="boom"):
        _model().train(1, _data(48), callbacks=[saver, Boom()])
    assert os.listdir(tmp_path) == ["crash-1_2_breakpoint.ckpt"]


def test_the_mindspore_import_paths():
    import mindjit.train.callback as callback

    assert callback.LossMonitor is LossMonitor and ms.train.Model is Model
    assert ms.nn.Accuracy is ms.train.Accuracy is ms.train.metrics.Accuracy
    assert ms.dataset is ds and ds.config is ms.dataset.config


# -- LambdaCallback, History, EarlyStopping, ReduceLROnPlateau, build -----------------------------


def test_lambda_callback_calls_the_functions_given_and_history_records_the_epochs():
    seen = []
    lam = LambdaCallback(
        on_train_epoch_end=lambda rc: seen.append(("epoch", rc.original_args().cur_epoch_num)),
        on_eval_end=lambda rc: seen.append(("eval", None)),
    )
    history = History()
    model = _model(metrics={"accuracy"})
    model.fit(2, _data(48), _data(32, seed=1), callbacks=[lam, history])
    assert seen == [("eval", None), ("epoch", 1), ("eval", None), ("epoch", 2)]
    assert history.epoch == {"epoch": [1, 2]}
    assert set(history.history) == {"net_output", "accuracy"}
    assert len(history.history["net_output"]) == 2
    assert isinstance(history.history["net_output"][0], float)
    with pytest.raises(TypeError, match="'on_train_end' must be callable"):
        LambdaCallback(on_train_end=3)


def _epochs_run(model, callback, epochs=6, data=None):
    history = History()
    model.train(epochs, data or _data(48), callbacks=[callback, history])
    return history.epoch["epoch"]


def test_early_stopping_waits_patience_epochs_without_improvement(capsys):
    # lr 0: the loss never changes, so it improves once (from inf) and then waits
    stop = EarlyStopping(monitor="loss", patience=2, verbose=True)
    assert _epochs_run(_model(lr=0.0), stop) == [1, 2, 3]
    assert stop.stopped_epoch == 3 and "Epoch 00003: early stopping" in capsys.readouterr().out
    assert _epochs_run(_model(), EarlyStopping(monitor="loss")) == [1]  # patience 0: MindSpore's
    assert _epochs_run(_model(), EarlyStopping(monitor="loss", patience=2)) == [1, 2, 3, 4, 5, 6]
    baseline = EarlyStopping(monitor="loss", patience=2, baseline=0.0)  # never reached
    assert _epochs_run(_model(), baseline) == [1, 2]
    with pytest.warns(UserWarning, match="'eval_loss', which is not available"):
        assert _epochs_run(_model(), EarlyStopping(), epochs=2) == [1, 2]


def test_early_stopping_restores_the_best_weights():
    # mode="max" on a falling loss: the first epoch stays the best
    model = _model()
    after_first = {}

    def keep(rc):
        if rc.original_args().cur_epoch_num == 1:
            for p in model.train_network.trainable_params():
                after_first[p.name] = p.asnumpy().copy()

    stop = EarlyStopping(monitor="loss", mode="max", patience=2, restore_best_weights=True)
    model.train(6, _data(48), callbacks=[LambdaCallback(on_train_epoch_end=keep), stop])
    assert stop.stopped_epoch == 3
    for p in model.train_network.trainable_params():
        np.testing.assert_array_equal(p.asnumpy(), after_first[p.name])


def test_reduce_lr_on_plateau_lowers_a_fixed_rate_that_the_next_steps_use(in_mode, capsys):
    # mode="max" on a falling loss: no improvement after the first epoch, so with
    # patience 1 the rate falls to 0.01 after epoch 2, and stays (min_lr)
    reduce = ReduceLROnPlateau(
        monitor="loss", mode="max", patience=1, factor=0.1, min_lr=0.01, verbose=True
    )
    model = _model()
    model.train(4, _data(48), callbacks=[reduce])
    assert model.train_network.optimizer.learning_rate == pytest.approx(0.01)
    assert (
        "Epoch 00002: ReduceLROnPlateau reducing learning rate to 0.01" in capsys.readouterr().out
    )
    # the same training with the rate as a per-step list: the same weights
    steps = 3  # 48 rows in batches of 16
    lrs = [0.1] * 2 * steps + [0.01] * 2 * steps
    ms.set_seed(1)
    net = nn.SequentialCell([nn.Dense(4, 16), nn.ReLU(), nn.Dense(16, 3)])
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    Model(net, loss, nn.Momentum(net.trainable_params(), lrs, 0.9)).train(4, _data(48))
    for got, want in zip(model.predict_network.trainable_params(), net.trainable_params()):
        np.testing.assert_allclose(got.asnumpy(), want.asnumpy(), rtol=1e-5, atol=1e-6)


def test_reduce_lr_on_plateau_assigns_a_parameter_rate_and_refuses_a_dynamic_one():
    model = _model()
    optimizer = model.train_network.optimizer
    reduce = ReduceLROnPlateau(monitor="loss", mode="max", patience=1)
    optimizer.learning_rate = ms.Parameter(Tensor(np.array(0.5, np.float32)), name="lr")
    facts = {"optimizer": optimizer, "net_outputs": Tensor(np.float32(1.0)), "cur_epoch_num": 1}
    run = ms.train.RunContext(ms.train.callback.InternalCallbackParam(facts))
    reduce.on_train_epoch_end(run)  # the first value is the best
    reduce.on_train_epoch_end(run)  # no improvement: patience 1 reached
    assert float(optimizer.learning_rate.asnumpy()) == pytest.approx(0.05)
    dynamic = _model(lr=[0.1, 0.05])
    with pytest.raises(ValueError, match="does not support dynamic learning rate"):
        dynamic.train(1, _data(48), callbacks=[ReduceLROnPlateau(monitor="loss")])


@pytest.mark.parametrize(
    ("make", "error", "message"),
    [
        (lambda: EarlyStopping(mode="up"), ValueError, "mode should be 'auto', 'min' or 'max'"),
        (lambda: EarlyStopping(patience=-1), ValueError, "'patience' must be >= 0"),
        (lambda: EarlyStopping(monitor=1), TypeError, "'monitor' must be str"),
        (
            lambda: ReduceLROnPlateau(factor=1.5),
            ValueError,
            r"'factor' must be in range of \(0.0, 1.0\)",
        ),
        (lambda: ReduceLROnPlateau(factor=1), TypeError, "'factor' must be float"),
        (lambda: ReduceLROnPlateau(verbose=1), TypeError, "'verbose' must be bool"),
        (lambda: SummaryCollector("./summary"), NotImplementedError, "SummaryCollector"),
    ],
)
def test_bad_callbacks_are_clear_errors(make, error, message):
    with pytest.raises(error, match=message):
        make()


def test_build_compiles_the_step_ahead_of_train():
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        clear_cache()
        model = _model(metrics={"accuracy"})
        model.build(_data(48), _data(32, seed=1))
        built = len(cached_programs())
        assert built == 2  # the train step and the eval network
        model.train(2, _data(48))
        model.eval(_data(32, seed=1))
        assert len(cached_programs()) == built  # train and eval compiled nothing more
        with pytest.raises(ValueError, match="can not both be None"):
            model.build()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    with pytest.raises(RuntimeError, match="only supports GRAPH MODE"):
        _model().build(_data(48))


def test_model_is_at_the_top_level():
    import mindjit.train.callback as callback

    assert ms.Model is Model
    assert callback.EarlyStopping is EarlyStopping and ms.train.History is History


# -- the tutorial: MNIST-shaped images through vision transforms, a LeNet, graph mode -----------


class LeNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, 5, pad_mode="valid")
        self.conv2 = nn.Conv2d(4, 8, 5, pad_mode="valid")
        self.relu = nn.ReLU()
        self.pool = nn.MaxPool2d(kernel_size=2, stride=2)
        self.flatten = nn.Flatten()
        self.fc = nn.Dense(8 * 4 * 4, 10)

    def construct(self, x):
        x = self.pool(self.relu(self.conv1(x)))
        x = self.pool(self.relu(self.conv2(x)))
        return self.fc(self.flatten(x))


def _mnist_like(n, seed):
    """28x28x1 uint8 digits: class k is a bright 6x6 block at the k-th place of a
    grid, on noise."""
    rng = np.random.default_rng(seed)
    label = rng.integers(0, 10, n)
    image = rng.integers(0, 60, (n, 28, 28, 1))
    for i, k in enumerate(label):
        top, left = 2 + (k // 5) * 12, 1 + (k % 5) * 5
        image[i, top : top + 6, left : left + 5] = 255
    return image.astype(np.uint8), label


def _mnist_pipeline(n, seed, shuffle):
    image, label = _mnist_like(n, seed)
    data = ds.NumpySlicesDataset({"image": image, "label": label}, shuffle=shuffle)
    ops = [
        vision.Rescale(1.0 / 255.0, 0),
        vision.Normalize(mean=(0.1307,), std=(0.3081,)),
        vision.HWC2CHW(),
    ]
    data = data.map(operations=ops, input_columns="image")
    data = data.map(operations=transforms.TypeCast(ms.int32), input_columns="label")
    return data.batch(32, drop_remainder=True)


def test_the_mnist_tutorial_trains_a_lenet_in_graph_mode(capsys):
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        clear_cache()
        ms.set_seed(0)
        net = LeNet()
        loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        model = Model(
            net, loss, nn.Momentum(net.trainable_params(), 0.05, 0.9), metrics={"accuracy"}
        )
        stop = EarlyStopping(monitor="loss", min_delta=0.5, patience=3)
        model.train(8, _mnist_pipeline(256, 0, True), callbacks=[LossMonitor(8), stop])
        printed = capsys.readouterr().out
        assert re.search(r"epoch: 1 step: 8, loss is \d", printed)
        assert len(cached_programs()) == 1  # every batch one shape: one compiled step
        accuracy = model.eval(_mnist_pipeline(128, 1, False))["accuracy"]
        assert accuracy >= 0.9
        assert stop.stopped_epoch > 0  # the loss flattens before the 8 epochs end
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
