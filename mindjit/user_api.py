"""The public Python API, `import mindjit as ms`: the frontend's names re-exported,
and MindSpore's module paths (`mindjit.nn`, `mindjit.ops.operations`, ...)
registered in `sys.modules`.

`mindjit/__init__.py` loads this module on the first use of an API name or path,
not at `import mindjit`: the tools (ms-opt, ms-run ...) import only the layers
below the frontend (see that file's docstring for the measured cost).
"""

import sys as _sys

from mindjit import mindspore_paths as _mindspore_paths
from mindjit.frontend import amp, communication, context, dataset, dtype, nn, ops, train
from mindjit.frontend import dtype as mstype
from mindjit.frontend.checkpoint import load_checkpoint, save_checkpoint
from mindjit.frontend.checkpoint_net import load_param_into_net
from mindjit.frontend.context import (
    GRAPH_MODE,
    PYNATIVE_MODE,
    JitConfig,
    ParallelMode,
    get_auto_parallel_context,
    get_context,
    reset_auto_parallel_context,
    reset_distributed,
    set_auto_parallel_context,
    set_context,
    set_distributed,
)
from mindjit.frontend.dtype import (
    bool_,
    double,
    float16,
    float32,
    float64,
    float_,
    half,
    int8,
    int16,
    int32,
    int64,
    int_,
    single,
    uint8,
    uint16,
    uint32,
    uint64,
)
from mindjit.frontend.grad import grad, value_and_grad

# the compiler itself, loaded now rather than inside the first compile
from mindjit.frontend.graph.api import load_compiler as _load_compiler

# graph mode (frontend/jit.py)
from mindjit.frontend.jit import jit, jit_class, ms_class, ms_function
from mindjit.frontend.lazy_inline import lazy_inline
from mindjit.frontend.mutable import mutable
from mindjit.frontend.nn.init import get_seed, set_seed
from mindjit.frontend.ops.constexpr import constexpr
from mindjit.frontend.ops.sparse_csr import CSRTensor
from mindjit.frontend.ops.sparse_tensor import COOTensor, RowTensor, SparseTensor
from mindjit.frontend.parameter_tuple import ParameterTuple
from mindjit.frontend.tensor import Parameter, Tensor, tensor
from mindjit.frontend.train.model import Model
from mindjit.frontend.vmap import vmap
from mindjit.support.version import __version__

_load_compiler()

# `import mindjit.nn as nn`, `from mindjit.ops import Add` ... as with mindspore
for _name, _module in (
    ("nn", nn),
    ("ops", ops),
    ("dtype", dtype),
    ("context", context),
    ("amp", amp),
    ("communication", communication),
):
    _sys.modules.setdefault(f"mindjit.{_name}", _module)
# MindSpore's paths: mindjit.ops.operations, mindjit.nn.wrap.cell_wrapper ... (mindspore_paths.py)
_mindspore_paths.register()
# `import mindjit.dataset as ds`, `from mindjit.train.callback import LossMonitor` (one module
# object per path: a second name would load the package's files again)
for _name in (
    "dataset",
    "dataset.config",
    "dataset.transforms",
    "dataset.transforms.c_transforms",
    "dataset.transforms.py_transforms",
    "dataset.vision",
    "dataset.vision.c_transforms",
    "dataset.vision.utils",
    "train",
    "train.callback",
    "train.metrics",
):
    _sys.modules.setdefault(f"mindjit.{_name}", _sys.modules[f"mindjit.frontend.{_name}"])

__all__ = [
    "__version__",
    "GRAPH_MODE",
    "PYNATIVE_MODE",
    "JitConfig",
    "amp",
    "communication",
    "Model",
    "ParallelMode",
    "Parameter",
    "ParameterTuple",
    "Tensor",
    "bool_",
    "constexpr",
    "context",
    "dataset",  # mindjit.dataset and mindjit.train: frontend/dataset, frontend/train
    "train",
    "double",
    "dtype",
    "float16",
    "float32",
    "float64",
    "float_",
    "get_auto_parallel_context",
    "get_context",
    "get_seed",
    "half",
    "int8",
    "int16",
    "int32",
    "int64",
    "int_",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "jit",
    "jit_class",
    "lazy_inline",
    "ms_class",
    "ms_function",
    "load_checkpoint",
    "load_param_into_net",
    "mutable",
    "mstype",
    "nn",
    "ops",
    "reset_auto_parallel_context",
    "reset_distributed",
    "save_checkpoint",
    "set_auto_parallel_context",
    "set_distributed",
    "set_context",
    "set_seed",
    "single",
    "tensor",
    "grad",
    "value_and_grad",
    "vmap",
    "COOTensor",  # sparse tensors (frontend/ops/sparse_tensor.py)
    "CSRTensor",
    "RowTensor",
    "SparseTensor",
]
