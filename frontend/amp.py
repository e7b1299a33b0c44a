"""`mindjit.amp`: MindSpore 2.10's automatic mixed precision (`mindspore.amp`).

Levels of `auto_mixed_precision(network, amp_level, dtype=float16)`:

- "O0": the network unchanged.
- "O1": every sub-Cell whose type is in the white list (`get_white_list()`:
  Dense, Conv*, LSTMCell/RNNCell/GRUCell) computes in `dtype`, its output cast
  back to float32. MindSpore rewrites the network's source to put a cast pair
  around each op of those Cells and then drops the fp32->fp16 pairs between
  them; mindjit puts the Cell in a `_CastTo32` wrapper and runs it with
  `to_float(dtype)`, which computes the same ops on the same values (the
  dropped pairs are exact round trips). White-list *primitives* called
  directly in a construct (`P.MatMul`, `P.ReLU` ...) are not converted.
- "O2": `network.to_float(dtype)`, black-list Cells (`get_black_list()`:
  BatchNorm*, LayerNorm) kept in float32 inside `_OutputTo16` wrappers, the
  whole in `_OutputTo32` (MindSpore's non-rewrite path, its default).
- "O3": `network.to_float(dtype)` in `_OutputTo32`.
- "auto": refused with NotImplementedError (MindSpore's per-primitive strategy).

`to_float` itself is `nn.Cell.to_float` (frontend/mixed_precision.py says what
it casts). mindjit has no bfloat16, so `dtype` is float16.

Loss scaling: `StaticLossScaler` / `DynamicLossScaler` (Parameters
`scale_value`, `counter`; `scale`, `unscale`, `adjust` as MindSpore writes
them, usable in PyNative code and inside graph-mode functions), `all_finite`,
and the Model-side managers `FixedLossScaleManager` / `DynamicLossScaleManager`
used by `build_train_network`.
"""

from __future__ import annotations

import inspect
import logging
from typing import Any

from mindjit.frontend import dtype as D
from mindjit.frontend import nn, ops
from mindjit.frontend.amp_loss_scale import (
    DynamicLossScaleManager,
    DynamicLossScaler,
    FixedLossScaleManager,
    LossScaleManager,
    LossScaler,
    StaticLossScaler,
    all_finite,
)
from mindjit.frontend.ops.primitives import Primitive
from mindjit.support.config import device_target

logger = logging.getLogger("mindjit.amp")

_MS_WHITE = (
    "nn.Conv1d nn.Conv2d nn.Conv3d nn.Conv1dTranspose nn.Conv2dTranspose nn.Conv3dTranspose "
    "nn.Dense nn.LSTMCell nn.RNNCell nn.GRUCell ops.Conv2D ops.Conv3D ops.Conv2DTranspose "
    "ops.Conv3DTranspose ops.Conv2DBackpropInput ops.MatMul ops.BatchMatMul ops.PReLU ops.ReLU "
    "ops.Ger"
).split()
_MS_BLACK = "nn.BatchNorm1d nn.BatchNorm2d nn.BatchNorm3d nn.LayerNorm".split()


def _classes(names: list[str]) -> list[type]:
    """MindSpore's list, in its order, with the classes mindjit has."""
    found = []
    for name in names:
        package, _, leaf = name.partition(".")
        cls = getattr(nn if package == "nn" else ops, leaf, None)
        if isinstance(cls, type):
            found.append(cls)
    return found


AMP_WHITE_LIST: list[type] = _classes(_MS_WHITE)
AMP_BLACK_LIST: list[type] = _classes(_MS_BLACK)
_LOW = (D.float16,)  # MindSpore: (float16, bfloat16); mindjit has no bfloat16


def get_white_list() -> list[type]:
    """A copy of the white list `amp_level="O1"` converts."""
    return AMP_WHITE_LIST.copy()


def get_black_list() -> list[type]:
    """A copy of the black list `amp_level="O2"` keeps in float32."""
    return AMP_BLACK_LIST.copy()


# --- the wrappers ---------------------------------------------------------------------------
def _cast_output(value: Any, dtype: D.DType) -> Any:
    """MindSpore's `mixed_precision_cast(dtype, value)`: float tensors in it cast."""
    if isinstance(value, tuple | list):
        return type(value)(_cast_output(v, dtype) for v in value)
    if type(value) is dict:
        return {k: _cast_output(v, dtype) for k, v in value.items()}
    found = getattr(value, "dtype", None)
    if isinstance(found, D.DType) and found.is_float and found != dtype:
        return ops.cast(value, dtype)
    return value


def _copy_attrs(wrapper: nn.Cell, backbone: Any) -> None:
    """MindSpore's `_get_attr_from_cell`: the wrapped Cell's jit config and amp level."""
    if not isinstance(backbone, nn.Cell):
        return
    if backbone.__dict__.get("_jit_config") is not None:
        object.__setattr__(wrapper, "_jit_config", backbone._jit_config)
    level = backbone.__dict__.get("_amp_level")
    if level is not None:
        object.__setattr__(wrapper, "_amp_level", level)


class _OutputTo16(nn.Cell):
    """Runs `backbone` and casts its output to `dtype` (float16)."""

    def __init__(self, backbone: nn.Cell, dtype: Any = D.float16):
        super().__init__(auto_prefix=False)
        self._backbone = backbone
        self.dtype = dtype
        _copy_attrs(self, backbone)

    def construct(self, *args, **kwargs):
        return ops.cast(self._backbone(*args, **kwargs), self.dtype)


class _OutputTo32(nn.Cell):
    """Runs `backbone` and casts the float tensors of its output to float32."""

    def __init__(self, backbone: nn.Cell):
        super().__init__(auto_prefix=False)
        self._backbone = backbone
        _copy_attrs(self, backbone)

    def construct(self, *args, **kwargs):
        return _cast_output(self._backbone(*args, **kwargs), D.float32)


class _CastTo32(_OutputTo32):
    """O1 and custom white lists: `backbone` runs in the low precision (`to_float`),
    its output cast back to float32 (MindSpore's cast pairs, by rewrite)."""


def _precision_set_by_user(cell: Any) -> bool:
    return cell.__dict__.get("_mixed_precision") is not None


def _convert_white(network: nn.Cell, white: list[type], dtype: D.DType) -> None:
    """Each sub-Cell of a type in `white` (and not `to_float`-ed by the user) in a
    `_CastTo32` wrapper running in `dtype`; other Cells are searched."""
    cells = network._registry("_cells")
    for name, sub in list(cells.items()):
        if sub is None or sub is network or _precision_set_by_user(sub):
            continue
        if type(sub) in white:
            cells[name] = _CastTo32(sub.to_float(dtype))
        else:
            _convert_white(sub, white, dtype)


def _auto_black_list(network: nn.Cell, black_list: list[type], dtype: D.DType) -> nn.Cell:
    """MindSpore's `_auto_black_list`: `to_float(dtype)`, black-list Cells in float32."""
    network.to_float(dtype)
    _keep_fp32(network, black_list, dtype)
    return network


def _keep_fp32(network: nn.Cell, black_list: list[type], dtype: D.DType) -> None:
    cells = network._registry("_cells")
    for name, sub in list(cells.items()):
        if sub is None or sub is network:
            continue
        if isinstance(sub, tuple(black_list)):
            cells[name] = _OutputTo16(sub.to_float(D.float32), dtype)
        else:
            _keep_fp32(sub, black_list, dtype)


def _check_dtype(dtype: Any) -> None:
    if not isinstance(dtype, D.DType) or dtype not in _LOW:
        raise ValueError(
            f"The dtype should be one of (mstype.float16, mstype.bfloat16), but got {dtype}."
        )


def auto_mixed_precision(network: Any, amp_level: Any = "O0", dtype: Any = D.float16) -> Any:
    """`mindspore.amp.auto_mixed_precision`: see the module doc for the levels."""
    if not isinstance(network, nn.Cell):
        if amp_level == "auto":
            if not inspect.isfunction(network) and not inspect.ismethod(network):
                raise TypeError(
                    "For amp_level 'auto', the network type should be Cell or function."
                )
        else:
            raise TypeError(f"For amp_level '{amp_level}', the network type should be Cell.")
    _check_dtype(dtype)
    if amp_level == "O0":
        return network
    if getattr(network, "_amp_level", None) in ("O1", "O2", "O3", "auto"):
        logger.warning(
            "The network's auto mixed-precision level is adjusted from %s to %s, and repeated "
            "calls to mixed-precision interfaces can cause performance degradation.",
            network._amp_level,
            amp_level,
        )
    if amp_level == "O1":
        _convert_white(network, AMP_WHITE_LIST, dtype)
    elif amp_level == "O2":
        network = _OutputTo32(_auto_black_list(network, AMP_BLACK_LIST, dtype))
    elif amp_level == "O3":
        network = _OutputTo32(network.to_float(dtype))
    elif amp_level == "auto":
        raise NotImplementedError(
            "mindjit.amp.auto_mixed_precision: amp_level 'auto' (MindSpore's per-primitive "
            "white/black/promote lists) is not supported; use 'O1', 'O2' or 'O3'"
        )
    else:
        raise ValueError(f"The amp level {amp_level} is not supported")
    object.__setattr__(network, "_amp_level", amp_level)
    return network


def _list_check(custom_list: Any, list_name: str) -> None:
    if not isinstance(custom_list, list):
        raise TypeError(f"The type of {list_name} should be list, but got {type(custom_list)}")
    for elem in custom_list:
        if not isinstance(elem, type):
            raise TypeError(f"The element in {list_name} should be a class, but got {elem}")
        if (
            list_name == "white_list"
            and not issubclass(elem, nn.Cell)
            and not issubclass(elem, Primitive)
        ):
            raise TypeError(
                f"The subclass of element in {list_name} should be one of 'Cell' and "
                f"'Primitive', but got {elem}"
            )
        if list_name == "black_list" and not issubclass(elem, nn.Cell):
            raise TypeError(
                f"The subclass of element in {list_name} should be one of 'Cell', but got {elem}"
            )
    if list_name == "black_list":
        for elem in AMP_BLACK_LIST:
            if elem not in custom_list:
                logger.warning("%s is removed from internal black list.", elem)


def custom_mixed_precision(
    network: Any, *, white_list: Any = None, black_list: Any = None, dtype: Any = D.float16
) -> Any:
    """`mindspore.amp.custom_mixed_precision`: a white list (Cells converted as O1
    converts its list; Primitive entries are accepted and not converted) or a
    black list (as O2, with this list)."""
    if not isinstance(network, nn.Cell):
        raise TypeError("The network type should be Cell.")
    if white_list is None and black_list is None:
        raise ValueError(
            "For custom_mixed_precision, one of white_list and black_list must be provided."
        )
    if white_list is not None and black_list is not None:
        raise ValueError(
            "For custom_mixed_precision, the white_list or black_list cannot be provided at the "
            "same time, please provide one or the other."
        )
    _check_dtype(dtype)
    if white_list is not None:
        _list_check(white_list, "white_list")
        _convert_white(network, white_list, dtype)
        return network
    _list_check(black_list, "black_list")
    return _OutputTo32(_auto_black_list(network, black_list, dtype))


# --- build_train_network (mindspore/train/amp.py) ---------------------------------------------
_config_level: dict[str, dict[str, Any]] = {
    "O0": {"keep_batchnorm_fp32": False, "cast_model_type": D.float32, "loss_scale_manager": None},
    "O1": {"keep_batchnorm_fp32": False, "cast_model_type": D.float32, "loss_scale_manager": None},
    "O2": {
        "keep_batchnorm_fp32": True,
        "cast_model_type": D.float16,
        "loss_scale_manager": DynamicLossScaleManager(),
    },
    "O3": {"keep_batchnorm_fp32": False, "cast_model_type": D.float16, "loss_scale_manager": None},
    "auto": {
        "keep_batchnorm_fp32": False,
        "cast_model_type": D.float32,
        "loss_scale_manager": None,
    },
}
_LEVELS = ["O0", "O1", "O2", "O3", "auto"]


def _check_level(level: Any, boost_level: Any) -> tuple[str, bool]:
    if not isinstance(level, str):
        raise TypeError(
            "The argument `level` must be a string in ['O0', 'O1', 'O2', 'O3', 'auto'],"
            f"but got type {type(level)}."
        )
    if level not in _LEVELS:
        raise ValueError(f"The 'level' should be in : {_LEVELS}, but got {level}.")
    if boost_level not in ("O0", "O1", "O2"):
        raise ValueError(
            f"The 'boost_level' should be in : ['O0', 'O1', 'O2'], but got {boost_level}."
        )
    if boost_level != "O0":
        raise NotImplementedError(
            "mindjit.amp.build_train_network: boost_level 'O1'/'O2' (mindspore.boost) is not "
            "supported"
        )
    return level, False


def _check_kwargs(key_words: dict[str, Any]) -> None:
    for arg in key_words:
        if arg not in ("cast_model_type", "keep_batchnorm_fp32", "loss_scale_manager"):
            raise ValueError(f"Unsupported arg '{arg}'")
    if "cast_model_type" in key_words:
        cast = key_words["cast_model_type"]
        if not isinstance(cast, D.DType) or cast not in (D.float16, D.float32):
            raise TypeError(
                "The 'cast_model_type' should be one of [mindspore.float16, mindspore.float32], "
                f"but got 'mindspore.{getattr(cast, 'name', cast)}'."
            )
    if "keep_batchnorm_fp32" in key_words and not isinstance(
        key_words["keep_batchnorm_fp32"], bool
    ):
        raise TypeError(
            "The type of 'keep_batchnorm_fp32' should be 'bool', but got type "
            f"'{type(key_words['keep_batchnorm_fp32']).__name__}'."
        )
    manager = key_words.get("loss_scale_manager")
    if manager and not isinstance(manager, LossScaleManager):
        raise TypeError(
            "The type of 'loss_scale_manager' should be one of '['LossScaleManager', "
            f"'GroupLossScaleManager']', but got type '{type(manager).__name__}'."
        )


def _do_keep_batchnorm_fp32(network: nn.Cell) -> None:
    cells = network._registry("_cells")
    for name, sub in list(cells.items()):
        if sub is None or sub is network:
            continue
        if isinstance(sub, tuple(AMP_BLACK_LIST)):
            cells[name] = _OutputTo16(sub.to_float(D.float32))
        else:
            _do_keep_batchnorm_fp32(sub)


def _auto_mixed_precision_process(network: nn.Cell, config: dict[str, Any], level: str) -> Any:
    """MindSpore's non-rewrite path."""
    if config["cast_model_type"] == D.float16:
        network.to_float(D.float16)
        if config["keep_batchnorm_fp32"]:
            _do_keep_batchnorm_fp32(network)
    elif not config["keep_batchnorm_fp32"] and level == "O2":
        network.to_float(D.float16)
    elif config["cast_model_type"] == D.float32 and level in ("O2", "O3"):
        pass
    else:
        network = auto_mixed_precision(network, level)
    return network


class _AmpWithLossCell(nn.Cell):
    """`build_train_network`'s loss wrapper for a float16 model: the output and the
    label cast to float32 before the loss."""

    def __init__(self, backbone: nn.Cell, loss_fn: nn.Cell):
        super().__init__(auto_prefix=False)
        self._backbone = backbone
        self._loss_fn = loss_fn
        _copy_attrs(self, backbone)

    def construct(self, data, label):
        out = self._backbone(data)
        label = _cast_output(label, D.float32)
        return self._loss_fn(_cast_output(out, D.float32), label)


def _add_loss_network(network: nn.Cell, loss_fn: Any, cast_model_type: Any) -> nn.Cell:
    if not isinstance(loss_fn, nn.Cell):
        raise TypeError(
            f"The type of 'loss_fn' should be 'Cell', but got type '{type(loss_fn).__name__}'."
        )
    if cast_model_type == D.float16 or getattr(network, "_amp_level", None) in ("O2", "O3", "auto"):
        return _AmpWithLossCell(network, loss_fn)
    return nn.WithLossCell(network, loss_fn)


def build_train_network(
    network: Any,
    optimizer: Any,
    loss_fn: Any = None,
    level: Any = "O0",
    boost_level: Any = "O0",
    **kwargs: Any,
) -> Any:
    """`mindspore.amp.build_train_network`: the network at `level` (or the kwargs
    `cast_model_type`, `keep_batchnorm_fp32`, `loss_scale_manager`), with `loss_fn`,
    in a train-one-step Cell. An update cell (O2's DynamicLossScaleManager, a
    FixedLossScaleManager dropping overflowing updates) needs the Ascend target,
    as in MindSpore: on the CPU it is a ValueError."""
    if not isinstance(optimizer, nn.Optimizer):
        raise TypeError(
            "The type of 'optimizer' should be one of '['Optimizer', 'FreezeOpt', "
            "'AdaSumByGradWrapCell', 'AdaSumByDeltaWeightWrapCell']', but got type "
            f"'{type(optimizer).__name__}'."
        )
    level, _ = _check_level(level, boost_level)
    _check_kwargs(kwargs)
    config = dict(_config_level[level], **kwargs)
    network = _auto_mixed_precision_process(network, config, level)
    if loss_fn:
        network = _add_loss_network(network, loss_fn, config["cast_model_type"])
    loss_scale = None
    manager = config["loss_scale_manager"]
    if manager is not None:
        loss_scale = manager.get_loss_scale()
        update_cell = manager.get_update_cell()
        if update_cell is not None:
            if device_target() == "CPU":
                raise ValueError(
                    "Only `loss_scale_manager=None` or "
                    "`loss_scale_manager=FixedLossScaleManager(drop_overflow_update=False)`"
                    "are supported on device `CPU`. "
                )
            return nn.TrainOneStepWithLossScaleCell(
                network, optimizer, scale_sense=update_cell
            ).set_train()
    return nn.TrainOneStepCell(network, optimizer, loss_scale).set_train()


__all__ = [
    "DynamicLossScaleManager",
    "LossScaleManager",
    "FixedLossScaleManager",
    "build_train_network",
    "DynamicLossScaler",
    "StaticLossScaler",
    "LossScaler",
    "auto_mixed_precision",
    "all_finite",
    "custom_mixed_precision",
    "get_white_list",
    "get_black_list",
]
