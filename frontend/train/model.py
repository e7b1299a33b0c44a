"""`mindjit.train.Model`: MindSpore's high-level train / eval / predict.

`Model(network, loss_fn, optimizer, metrics)` builds what MindSpore's
`amp.build_train_network` builds at amp_level "O0":
`nn.TrainOneStepCell(nn.WithLossCell(network, loss_fn), optimizer)` (the
wrappers of frontend/nn/wrappers.py), and `nn.WithEvalCell(network, loss_fn)`
for `eval`. `train` runs the step on each batch of the dataset in the current
mode: in GRAPH_MODE the step is a Cell call, so it compiles once per input
shape and each later batch runs the cached program (a smaller last batch is
one more compile; `drop_remainder=True` avoids it). There is no device queue
on the CPU, so `dataset_sink_mode=True` trains as `False` does, after one
warning, as MindSpore does on CPU. The loops, the callback hooks and the
RunContext fields follow MindSpore 2.x's `train/model.py`. `build` compiles the
train step (and the eval network) for the first batch's shapes ahead of
`train`, in graph mode.
"""

from __future__ import annotations

import warnings
from typing import Any

from mindjit.frontend.context import GRAPH_MODE, get_context
from mindjit.frontend.dataset.dataset import Dataset
from mindjit.frontend.graph.api import compile_cell
from mindjit.frontend.nn.cell import Cell
from mindjit.frontend.nn.wrappers import TrainOneStepCell, WithEvalCell, WithLossCell
from mindjit.frontend.tensor import Tensor
from mindjit.frontend.train.callback.callback import (
    CallbackManager,
    InternalCallbackParam,
    RunContext,
    as_callback_list,
)
from mindjit.frontend.train.callback.checkpoint import ModelCheckpoint
from mindjit.frontend.train.callback.loss_monitor import LossMonitor
from mindjit.frontend.train.metrics import Loss, get_metric_fn, get_metrics

_KWARGS = ("loss_scale_manager", "keep_batchnorm_fp32", "boost_config_dict")
_AMP_LEVELS = ("O0", "O1", "O2", "O3", "auto")
SINK_NOTE = (
    "The CPU cannot support dataset sink mode currently. So the {} process will be "
    "performed with dataset not sink."
)


def _int(value: Any, name: str, api: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(
            f"For 'Model.{api}', the argument '{name}' must be int, but got {type(value).__name__}."
        )
    if value < minimum:
        raise ValueError(
            f"For 'Model.{api}', the argument '{name}' must be >= {minimum}, but got {value}."
        )
    return value


def _bool(value: Any, name: str, api: str) -> bool:
    if not isinstance(value, bool):
        raise TypeError(
            f"For 'Model.{api}', the type of '{name}' should be bool, but got "
            f"{type(value).__name__}."
        )
    return value


def _dataset(value: Any, name: str, api: str) -> Dataset:
    if not isinstance(value, Dataset):
        raise TypeError(
            f"For 'Model.{api}', '{name}' must be a mindjit.dataset Dataset (NumpySlicesDataset, "
            f"GeneratorDataset, or one made from them by batch, map ...), but got "
            f"{type(value).__name__}."
        )
    return value


def _first_batch(dataset: Dataset, name: str) -> list[Any]:
    for element in dataset.create_tuple_iterator(num_epochs=1):
        return element
    raise ValueError(f"There is no valid data in {name}, please check dataset file firstly.")


def _should_eval(epoch: int, frequency: int | list[int]) -> bool:
    return epoch % frequency == 0 if isinstance(frequency, int) else epoch in frequency


class Model:
    """`Model(network, loss_fn=None, optimizer=None, metrics=None, eval_network=None,
    eval_indexes=None, amp_level="O0", boost_level="O0", **kwargs)`."""

    def __init__(
        self,
        network: Cell,
        loss_fn: Cell | None = None,
        optimizer: Cell | None = None,
        metrics: dict | set | None = None,
        eval_network: Cell | None = None,
        eval_indexes: list[int] | None = None,
        amp_level: str = "O0",
        boost_level: str = "O0",
        **kwargs: Any,
    ):
        for name, value in (
            ("network", network),
            ("loss_fn", loss_fn),
            ("eval_network", eval_network),
        ):
            if value is not None and not isinstance(value, Cell):
                raise TypeError(
                    f"For 'Model', the argument '{name}' must be a Cell, but got "
                    f"{type(value).__name__}."
                )
        if network is None:
            raise TypeError("For 'Model', the argument 'network' must be a Cell, but got None.")
        self._check_options(optimizer, amp_level, boost_level, kwargs)
        self._network, self._loss_fn, self._optimizer = network, loss_fn, optimizer
        self._amp_level, self._boost_level = amp_level, boost_level
        self._metric_fns = get_metrics(metrics)
        self._train_network = self._build_train_network()
        self._eval_network, self._eval_indexes = self._build_eval_network(
            eval_network, eval_indexes
        )
        self._predict_network = network
        self._current_epoch_num = self._current_step_num = 0

    @staticmethod
    def _check_options(optimizer: Any, amp_level: Any, boost_level: Any, kwargs: dict) -> None:
        for arg in kwargs:
            if arg not in _KWARGS:
                raise ValueError(
                    "The argument in 'kwargs' should be 'loss_scale_manager' or "
                    f"'keep_batchnorm_fp32' or 'boost_config_dict', but got '{arg}'."
                )
        if amp_level not in _AMP_LEVELS:
            raise ValueError(
                f"For 'Model', 'amp_level' must be one of {list(_AMP_LEVELS)}, but got {amp_level!r}."
            )
        if optimizer is None and amp_level != "O0":
            raise ValueError(
                "Auto mixed precision will not work because 'optimizer' is None.Please set "
                "amp_level='O0' to disable auto mixed precision or set 'optimizer' not be None "
                "to use auto mixed precision."
            )
        if amp_level != "O0":
            raise NotImplementedError(
                f"Model: amp_level={amp_level!r} (mixed precision) is not supported by mindjit; "
                "use amp_level='O0'"
            )
        if boost_level != "O0":
            raise NotImplementedError(
                f"Model: boost_level={boost_level!r} is not supported by mindjit; use 'O0'"
            )
        if kwargs.get("loss_scale_manager") is not None:
            raise NotImplementedError(
                "Model: 'loss_scale_manager' is not supported by mindjit; train with "
                "nn.TrainOneStepWithLossScaleCell and give it to Model as the network"
            )

    def _build_train_network(self) -> Cell:
        network = self._network
        if self._loss_fn is not None:
            network = WithLossCell(network, self._loss_fn)
        if self._optimizer is not None:
            network = TrainOneStepCell(network, self._optimizer)
        return network

    def _build_eval_network(
        self, eval_network: Cell | None, eval_indexes: Any
    ) -> tuple[Cell | None, list[int] | None]:
        if not self._metric_fns:
            return eval_network, eval_indexes
        if eval_network is not None:
            if eval_indexes is not None and not (
                isinstance(eval_indexes, list) and len(eval_indexes) == 3
            ):
                raise ValueError(
                    "The argument 'eval_indexes' must be a list or None. If 'eval_indexes' is a "
                    f"list, length of it must be three. But got 'eval_indexes' {eval_indexes}"
                )
            return eval_network, eval_indexes
        if self._loss_fn is None:
            raise ValueError(
                "If `metrics` is set, `eval_network` must not be None. Do not set `metrics` if "
                "you don't want an evaluation. For the simple scenarios with one data, one label "
                "and one logits, give `loss_fn` instead: Model then evaluates "
                "nn.WithEvalCell(network, loss_fn)."
            )
        return WithEvalCell(self._network, self._loss_fn), [0, 1, 2]

    # --- the networks -----------------------------------------------------------------------
    @property
    def train_network(self) -> Cell:
        return self._train_network

    @property
    def predict_network(self) -> Cell:
        return self._predict_network

    @property
    def eval_network(self) -> Cell | None:
        return self._eval_network

    # --- build ------------------------------------------------------------------------------
    def build(
        self,
        train_dataset: Dataset | None = None,
        valid_dataset: Dataset | None = None,
        sink_size: int = -1,
        epoch: int = 1,
    ) -> None:
        """Compile the train network for `train_dataset`'s first batch (and the eval
        network for `valid_dataset`'s) now, so `train` / `eval` only run: the
        programs are the ones their calls look up. GRAPH_MODE only, as MindSpore's
        pre-build (which also wants Ascend and sink mode; mindjit builds on any
        device, not sinking)."""
        if get_context("mode") != GRAPH_MODE:
            raise RuntimeError(
                "Pre-init process only supports GRAPH MODE: Model.build compiles the graphs "
                "ahead of Model.train; in PYNATIVE_MODE there is nothing to compile "
                "(set_context(mode=GRAPH_MODE) first)"
            )
        if train_dataset is None and valid_dataset is None:
            raise ValueError(
                "The argument 'train_dataset' and 'valid_dataset' can not both be None or empty."
            )
        _int(sink_size, "sink_size", "build", -1)
        _int(epoch, "epoch", "build", 1)
        if train_dataset is not None:
            first = _first_batch(_dataset(train_dataset, "train_dataset", "build"), "train_dataset")
            self._train_network.set_train(True)
            compile_cell(self._train_network, first)
        if valid_dataset is not None:
            if not self._metric_fns:
                raise ValueError(
                    "For 'Model.build', if valid_dataset is not None, the model argument "
                    "'metrics' can not be None or empty, you should set the argument 'metrics' "
                    "for model."
                )
            first = _first_batch(_dataset(valid_dataset, "valid_dataset", "build"), "valid_dataset")
            self._eval_network.set_train(False)
            compile_cell(self._eval_network, first)

    # --- train ------------------------------------------------------------------------------
    def train(
        self,
        epoch: int,
        train_dataset: Dataset,
        callbacks: Any = None,
        dataset_sink_mode: bool = False,
        sink_size: int = -1,
        initial_epoch: int = 0,
    ) -> None:
        """Train `epoch - initial_epoch` epochs over `train_dataset` (epochs are
        numbered from `initial_epoch + 1`)."""
        self._train_checked(
            "train",
            epoch,
            train_dataset,
            callbacks,
            dataset_sink_mode,
            sink_size,
            initial_epoch,
            None,
        )

    def fit(
        self,
        epoch: int,
        train_dataset: Dataset,
        valid_dataset: Dataset | None = None,
        valid_frequency: int | list[int] = 1,
        callbacks: Any = None,
        dataset_sink_mode: bool = False,
        valid_dataset_sink_mode: bool = False,
        sink_size: int = -1,
        initial_epoch: int = 0,
    ) -> None:
        """`train`, evaluating `valid_dataset` after every `valid_frequency`-th epoch
        (or the epochs a list names); LossMonitor prints each evaluation."""
        _bool(valid_dataset_sink_mode, "valid_dataset_sink_mode", "fit")
        if isinstance(valid_frequency, bool) or not isinstance(valid_frequency, int | list):
            raise TypeError(
                "For 'Model.fit', the type of 'valid_frequency' must be a list or an integer, but "
                f"got type {type(valid_frequency)}."
            )
        valid = None
        if valid_dataset is not None:
            _dataset(valid_dataset, "valid_dataset", "fit")
            if not self._metric_fns:
                raise ValueError(
                    "For 'Model.fit', if valid_dataset is not None, the model argument 'metrics' "
                    "can not be None or empty, you should set the argument 'metrics' for model."
                )
            valid = (valid_dataset, valid_frequency)
        self._train_checked(
            "fit",
            epoch,
            train_dataset,
            callbacks,
            dataset_sink_mode,
            sink_size,
            initial_epoch,
            valid,
        )

    def _train_checked(
        self, api, epoch, train_dataset, callbacks, sink, sink_size, initial_epoch, valid
    ) -> None:
        _bool(sink, "dataset_sink_mode", api)
        _int(sink_size, "sink_size", api, -1)
        _int(epoch, "epoch", api, 0)
        _int(initial_epoch, "initial_epoch", api, 0)
        if initial_epoch >= epoch:
            raise ValueError(
                f"For 'Model.{api}', the parameter 'epoch' must bigger than parameter "
                f"'initial_epoch', but got the parameter 'epoch' is {epoch}, 'initial_epoch' is "
                f"{initial_epoch}."
            )
        _dataset(train_dataset, "train_dataset", api)
        if train_dataset.get_dataset_size() == 0:
            raise ValueError(
                "There is no valid data in dataset, please check dataset file firstly."
            )
        if sink_size == 0:
            raise ValueError(
                f"For 'Model.{api}', The argument 'sink_size' must be -1 or positive, but got 0."
            )
        if sink:
            warnings.warn(SINK_NOTE.format("training"), stacklevel=3)
        callbacks = as_callback_list(callbacks)
        cb_params = InternalCallbackParam()
        cb_params.train_network = self._train_network
        cb_params.epoch_num = epoch
        cb_params.batch_num = train_dataset.get_dataset_size()
        cb_params.mode = "train"
        cb_params.loss_fn = self._loss_fn
        cb_params.optimizer = self._optimizer
        cb_params.parallel_mode = "stand_alone"
        cb_params.device_number = 1
        cb_params.train_dataset = train_dataset
        cb_params.list_callback = callbacks
        cb_params.train_dataset_element = None
        cb_params.network = self._network
        with CallbackManager(callbacks) as manager:
            try:
                self._train_process(epoch, train_dataset, manager, cb_params, initial_epoch, valid)
            except BaseException:
                self._exception_save(callbacks, cb_params)
                raise

    def _train_process(self, epoch, dataset, manager, cb_params, initial_epoch, valid) -> None:
        batches = dataset.create_tuple_iterator(num_epochs=epoch - initial_epoch)
        cb_params.cur_step_num = 0
        cb_params.dataset_sink_mode = False
        run_context = RunContext(cb_params)
        manager.on_train_begin(run_context)
        for i in range(initial_epoch, epoch):
            cb_params.cur_epoch_num = self._current_epoch_num = i + 1
            self._current_step_num = 0
            manager.on_train_epoch_begin(run_context)
            for element in batches:
                if self._loss_fn is not None and len(element) != 2:
                    raise ValueError(
                        "When 'loss_fn' is not None, 'train_dataset' should return two elements, "
                        f"but got {len(element)}, please check the number of elements returned "
                        "by 'train_dataset'"
                    )
                cb_params.cur_step_num += 1
                self._current_step_num = (cb_params.cur_step_num - 1) % cb_params.batch_num + 1
                cb_params.train_dataset_element = element
                manager.on_train_step_begin(run_context)
                if not (self._train_network.training and self._network.training):
                    self._train_network.set_train(True)  # again after an eval in between
                cb_params.net_outputs = self._train_network(*element)
                manager.on_train_step_end(run_context)
                if run_context.get_stop_requested():
                    break
            if valid is not None and _should_eval(cb_params.cur_epoch_num, valid[1]):
                self._eval_in_fit(valid[0], manager, cb_params)
            manager.on_train_epoch_end(run_context)
            cb_params.pop("metrics", None)
            cb_params.pop("eval_results", None)
            if run_context.get_stop_requested():
                break
        manager.on_train_end(run_context)

    def _eval_in_fit(self, valid_dataset: Dataset, manager: Any, cb_params: Any) -> None:
        """One evaluation inside `fit`: the user's callbacks (not LossMonitor nor
        ModelCheckpoint) see its hooks; the train fields are put back after."""
        train_fields = ("cur_step_num", "batch_num", "dataset_sink_mode", "net_outputs", "mode")
        kept = {k: cb_params[k] for k in train_fields}
        callbacks = [
            cb for cb in manager.callbacks if not isinstance(cb, LossMonitor | ModelCheckpoint)
        ]
        cb_params.eval_network = self._eval_network
        cb_params.valid_dataset = valid_dataset
        cb_params.batch_num = valid_dataset.get_dataset_size()
        cb_params.mode = "eval"
        cb_params.cur_step_num = 0
        self._clear_metrics()
        loss = get_metric_fn("loss")
        metrics = self._eval_process(valid_dataset, CallbackManager(callbacks), cb_params, loss)
        cb_params.update(kept)
        cb_params.metrics = metrics
        cb_params.eval_results = {**metrics, "eval_loss": loss.eval()}

    def _exception_save(self, callbacks: list, cb_params: Any) -> None:
        for cb in callbacks:
            if isinstance(cb, ModelCheckpoint) and cb._config.exception_save:
                step = cb_params.get("cur_step_num", 0)
                epoch = cb_params.get("cur_epoch_num", 0)
                if step and epoch:
                    in_epoch = (step - 1) % cb_params.batch_num + 1
                    cb.save(cb_params, cb.breakpoint_file(epoch, in_epoch))

    # --- eval -------------------------------------------------------------------------------
    def eval(
        self, valid_dataset: Dataset, callbacks: Any = None, dataset_sink_mode: bool = False
    ) -> dict[str, Any]:
        """The metrics over `valid_dataset`: {name: value}."""
        _bool(dataset_sink_mode, "dataset_sink_mode", "eval")
        if not self._metric_fns:
            raise ValueError(
                "For Model.eval, the model argument 'metrics' can not be None or empty, you "
                "should set the argument 'metrics' for model."
            )
        _dataset(valid_dataset, "valid_dataset", "eval")
        if dataset_sink_mode:
            warnings.warn(SINK_NOTE.format("evaluating"), stacklevel=2)
        callbacks = as_callback_list(callbacks)
        cb_params = InternalCallbackParam()
        cb_params.eval_network = self._eval_network
        cb_params.valid_dataset = valid_dataset
        cb_params.batch_num = valid_dataset.get_dataset_size()
        cb_params.mode = "eval"
        cb_params.cur_step_num = 0
        cb_params.list_callback = callbacks
        cb_params.network = self._network
        self._clear_metrics()
        with CallbackManager(callbacks) as manager:
            return self._eval_process(valid_dataset, manager, cb_params, None)

    def _eval_process(self, dataset, manager, cb_params, loss) -> dict[str, Any]:
        run_context = RunContext(cb_params)
        cb_params.dataset_sink_mode = False
        manager.on_eval_begin(run_context)
        self._eval_network.set_train(False)
        manager.on_eval_epoch_begin(run_context)
        for element in dataset.create_tuple_iterator(num_epochs=1):
            cb_params.cur_step_num += 1
            cb_params.eval_dataset_element = element
            manager.on_eval_step_begin(run_context)
            outputs = self._eval_network(*element)
            cb_params.net_outputs = outputs
            manager.on_eval_step_end(run_context)
            self._update_metrics(outputs)
            if loss is not None:
                loss.update(outputs[self._eval_indexes[0]])
            if run_context.get_stop_requested():
                break
        manager.on_eval_epoch_end(run_context)
        metrics = {name: metric.eval() for name, metric in self._metric_fns.items()}
        cb_params.metrics = metrics
        manager.on_eval_end(run_context)
        return metrics

    def _clear_metrics(self) -> None:
        for metric in self._metric_fns.values():
            metric.clear()

    def _update_metrics(self, outputs: Any) -> None:
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        if not isinstance(outputs, tuple):
            raise ValueError(f"The argument 'outputs' should be tuple, but got {type(outputs)}.")
        if self._eval_indexes is not None and len(outputs) < 3:
            raise ValueError(f"The length of 'outputs' must be >= 3, but got {len(outputs)}")
        for metric in self._metric_fns.values():
            if self._eval_indexes is None:
                metric.update(*outputs)
            elif isinstance(metric, Loss):
                metric.update(outputs[self._eval_indexes[0]])
            else:
                metric.update(outputs[self._eval_indexes[1]], outputs[self._eval_indexes[2]])

    # --- predict ----------------------------------------------------------------------------
    def predict(self, *predict_data: Any, backend: Any = None, config: Any = None) -> Any:
        """`network(*predict_data)` in inference mode (`set_train(False)`)."""
        for i, item in enumerate(predict_data):
            _check_input(item, f"predict_data[{i}]")
        if backend is not None or config is not None:
            raise NotImplementedError(
                "Model.predict: 'backend' and 'config' (MindSpore Lite) are not supported"
            )
        self._predict_network.set_train(False)
        result = self._predict_network(*predict_data)
        if result is None:
            raise RuntimeError(
                "Model.predict: the network returned None; it should return a Tensor"
            )
        return result


def _check_input(item: Any, name: str) -> None:
    if isinstance(item, list | tuple):
        for i, x in enumerate(item):
            _check_input(x, f"{name}[{i}]")
    elif item is not None and (
        isinstance(item, bool) or not isinstance(item, Tensor | int | float | str)
    ):
        raise TypeError(
            "For 'Model.predict', the type of input data must be Tensor, int, float, str, None, "
            f"or a list/tuple of them, but got {name} of type {type(item).__name__}."
        )
