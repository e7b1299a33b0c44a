"""`nn.Cell`: the building block of networks, with MindSpore's registration rules.

Parameters and sub-Cells assigned as attributes are kept, in assignment order,
in `_params` and `_cells` (not in `__dict__`), so `parameters_and_names()` and
`cells_and_names()` walk the network the way MindSpore does. Parameter names
follow the attribute path: an unnamed Parameter assigned to `self.w` is `w`, and
a Cell assigned to `self.fc` renames its Parameters to `fc.weight` ... .

A `ParameterTuple` assigned to an attribute (an optimizer's `self.parameters`,
`self.moments = self.parameters.clone("moments")`) stays the attribute's value,
and each of its Parameters is registered in `_params` under its own name
(`moments.fc.weight`, dots allowed, not renamed): they are the Cell's, so they
are in `parameters_and_names()` and in checkpoints. A plain tuple or list of
Parameters is only checked: one name for two different Parameters, across all
such sequences of the Cell, is a ValueError. Both are MindSpore's rules
(`Cell.__setattr__`, `_set_attr_for_param_or_param_tuple` and
`_set_attr_for_parameter_in_list_or_tuple`).

Calling a Cell runs `construct` eagerly in PyNative mode, or compiles it in
GRAPH_MODE (or when `construct` is `@jit`) through `mindjit.frontend.graph.api`.
`construct` stays a plain method so the graph compiler can read its source.
"""

from __future__ import annotations

import functools
from collections import OrderedDict
from collections.abc import Iterator
from typing import Any

from mindjit.frontend import dtype as D
from mindjit.frontend import mixed_precision as amp
from mindjit.frontend.cell_base import CellBase, set_training
from mindjit.frontend.context import JitConfig
from mindjit.frontend.dispatch import current_graph
from mindjit.frontend.grad_tape import recording, run_forward
from mindjit.frontend.graph import api as graph_api
from mindjit.frontend.ops.cast import cast_to
from mindjit.frontend.parameter_tuple import ParameterTuple
from mindjit.frontend.tensor import Parameter


def _construct_in_precision(cell: Cell, *args: Any, **kwargs: Any) -> Any:
    """`cell.construct` with the precision `cell.to_float` gave in force (None: none,
    even inside a Cell that has one) and its float inputs cast to it."""
    dtype = amp.cell_precision(cell)
    with amp.running(dtype):
        if dtype is not None:
            args, kwargs = amp.cast_floats((args, kwargs), dtype, cast_to)
        return cell.construct(*args, **kwargs)


def _is_parameter_sequence(value: Any) -> bool:
    return (
        isinstance(value, tuple | list)
        and bool(value)
        and all(isinstance(v, Parameter) for v in value)
    )


class Cell(CellBase):
    """Base class of all networks and layers."""

    def __init__(self, auto_prefix: bool = True, flags: dict[str, Any] | None = None):
        object.__setattr__(self, "_params", OrderedDict())
        object.__setattr__(self, "_cells", OrderedDict())
        object.__setattr__(self, "_auto_prefix", auto_prefix)
        object.__setattr__(self, "_param_prefix", "")
        object.__setattr__(self, "_jit_config", None)
        object.__setattr__(self, "training", False)
        object.__setattr__(self, "_flags", dict(flags or {}))

    # --- attribute registration --------------------------------------------------------
    def _registry(self, name: str) -> OrderedDict:
        """`_params`/`_cells`, created on demand so a missing super().__init__() still works."""
        reg = self.__dict__.get(name)
        if reg is None:
            Cell.__init__(self)
            reg = self.__dict__[name]
        return reg

    def __setattr__(self, name: str, value: Any) -> None:
        params = self._registry("_params")
        cells = self._registry("_cells")
        if isinstance(value, Parameter):
            cells.pop(name, None)
            self.__dict__.pop(name, None)
            self.insert_param_to_cell(name, value)
        elif isinstance(value, ParameterTuple):
            self._register_parameter_tuple(value)
            params.pop(name, None)
            cells.pop(name, None)
            object.__setattr__(self, name, value)
        elif _is_parameter_sequence(value):
            self._check_sequence_names(value)
            params.pop(name, None)
            cells.pop(name, None)
            object.__setattr__(self, name, value)
        elif isinstance(value, Cell):
            params.pop(name, None)
            self.__dict__.pop(name, None)
            self.insert_child_to_cell(name, value)
        elif name == "training":
            set_training(self, bool(value))
        elif name in params and value is not None:
            raise TypeError(
                f"For 'Cell', the attribute '{name}' holds a Parameter; assign a Parameter "
                f"(or use ops.assign / set_data to change its value), got {type(value).__name__}"
            )
        else:
            params.pop(name, None)
            cells.pop(name, None)
            object.__setattr__(self, name, value)

    def _register_parameter_tuple(self, value: ParameterTuple) -> None:
        """Each Parameter of `value` in `_params` under its name (MindSpore's rule)."""
        params = self._registry("_params")
        seen: set[int] = set()
        names: set[str] = set()
        for param in value:
            if id(param) in seen:
                continue
            seen.add(id(param))
            if param.name in names:
                raise ValueError(
                    f"The value {value} , its name '{param.name}' already exists. "
                    "Please set a unique name for the parameter."
                )
            names.add(param.name)
            if param.name not in params and (
                param.name in self.__dict__ or param.name in self._registry("_cells")
            ):
                raise KeyError(
                    f"For 'insert_param_to_cell', the {param.name} parameter already exists in "
                    "the network. Cannot insert another parameter with the same name."
                )
            params[param.name] = param

    def _check_sequence_names(self, value: Any) -> None:
        """MindSpore's check of a tuple or list of Parameters: a name stands for one
        Parameter across all such sequences of this Cell."""
        names = self.__dict__.setdefault("_sequence_param_names", {})
        for param in value:
            known = names.get(param.name)
            if known is not None and known is not param:
                raise ValueError(
                    f"The value {value} , its name '{param.name}' already exists. "
                    "Please set a unique name for the parameter."
                )
            names[param.name] = param

    def __getattr__(self, name: str) -> Any:
        # only called when normal lookup fails: Parameters and Cells live in the registries
        d = self.__dict__
        if "_params" in d and name in d["_params"]:
            param = d["_params"][name]
            dtype = amp.current()  # inside a to_float Cell: its ops read the Parameter cast
            if dtype is not None and param.requires_grad and amp.needs_cast(param, dtype):
                return cast_to(param, dtype)
            return param
        if "_cells" in d and name in d["_cells"]:
            return d["_cells"][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        if name in self._registry("_params"):
            del self._params[name]
        elif name in self._registry("_cells"):
            del self._cells[name]
        else:
            object.__delattr__(self, name)

    def insert_param_to_cell(
        self, param_name: str, param: Parameter, check_name_contain_dot: bool = True
    ) -> None:
        if not isinstance(param_name, str) or not param_name:
            raise KeyError(f"Parameter attribute name must be a non-empty str, got {param_name!r}")
        if check_name_contain_dot and "." in param_name:
            raise KeyError(f"Parameter attribute name '{param_name}' must not contain '.'")
        if not isinstance(param, Parameter):
            raise TypeError(f"expected a Parameter for '{param_name}', got {type(param).__name__}")
        if param.auto_named:
            param._rename(self._param_prefix + param_name)
        self._registry("_params")[param_name] = param

    def insert_child_to_cell(self, child_name: str, child_cell: Cell) -> None:
        """Add a sub-Cell under `child_name` (its Parameters become `child_name.*`)."""
        if not isinstance(child_name, str) or not child_name or "." in child_name:
            raise KeyError(
                f"child cell name must be a non-empty str without '.', got {child_name!r}"
            )
        if not isinstance(child_cell, Cell):
            raise TypeError(
                f"child cell '{child_name}' must be a Cell, got {type(child_cell).__name__}"
            )
        self._registry("_cells")[child_name] = child_cell
        if self._auto_prefix:
            child_cell.update_parameters_name(self._param_prefix + child_name + ".")

    def update_parameters_name(self, prefix: str = "", recurse: bool = True) -> None:
        """Name every Parameter `prefix` + its path in this Cell (MindSpore's rule)."""
        object.__setattr__(self, "_param_prefix", prefix)
        for path, param in self.parameters_and_names(expand=recurse):
            param._rename(prefix + path)

    # --- walking the network ------------------------------------------------------------------
    def cells_and_names(
        self, cells: set[int] | None = None, name_prefix: str = ""
    ) -> Iterator[tuple[str, Cell]]:
        """This Cell and every sub-Cell once, depth first, with its attribute path."""
        seen = cells if cells is not None else set()
        if id(self) in seen:
            return
        seen.add(id(self))
        yield name_prefix, self
        for name, cell in self._registry("_cells").items():
            if cell is not None:
                path = f"{name_prefix}.{name}" if name_prefix else name
                yield from cell.cells_and_names(seen, path)

    def cells(self) -> Iterator[Cell]:
        return iter(list(self._registry("_cells").values()))

    def name_cells(self) -> OrderedDict:
        return OrderedDict(self._registry("_cells"))

    def parameters_and_names(
        self, name_prefix: str = "", expand: bool = True
    ) -> Iterator[tuple[str, Parameter]]:
        """Every Parameter once, with its attribute path (`fc.weight`)."""
        cells = self.cells_and_names(name_prefix=name_prefix) if expand else [(name_prefix, self)]
        seen: set[int] = set()
        for cell_name, cell in cells:
            for name, param in cell._registry("_params").items():
                if param is not None and id(param) not in seen:
                    seen.add(id(param))
                    yield (f"{cell_name}.{name}" if cell_name else name), param

    def get_parameters(self, expand: bool = True) -> Iterator[Parameter]:
        """`parameters_and_names` without the names (graph mode asks for every call
        of a lazy-inline Cell: no path strings built to be dropped)."""
        cells = self._cells_once(set()) if expand else [self]
        seen: set[int] = set()
        for cell in cells:
            for param in cell._registry("_params").values():
                if param is not None and id(param) not in seen:
                    seen.add(id(param))
                    yield param

    def _cells_once(self, seen: set[int]) -> Iterator[Cell]:
        """`cells_and_names` without the names, in the same order."""
        if id(self) in seen:
            return
        seen.add(id(self))
        yield self
        for cell in self._registry("_cells").values():
            if cell is not None:
                yield from cell._cells_once(seen)

    def trainable_params(self, recurse: bool = True) -> list[Parameter]:
        return [p for p in self.get_parameters(expand=recurse) if p.requires_grad]

    def untrainable_params(self, recurse: bool = True) -> list[Parameter]:
        return [p for p in self.get_parameters(expand=recurse) if not p.requires_grad]

    def parameters_dict(self, recurse: bool = True) -> OrderedDict:
        return OrderedDict((p.name, p) for p in self.get_parameters(expand=recurse))

    # --- modes and options -----------------------------------------------------------------------
    def set_train(self, mode: bool = True) -> Cell:
        for _, cell in self.cells_and_names():
            set_training(cell, bool(mode))
        return self

    def set_grad(self, requires_grad: bool = True) -> Cell:
        object.__setattr__(self, "requires_grad", requires_grad)
        return self

    def to_float(self, dst_type: Any) -> Cell:
        """Run this Cell and its sub-Cells in `dst_type` (float16 or float32): the float
        inputs of their construct and the Parameters they read are cast to it, in
        PyNative and graph mode alike (frontend/mixed_precision.py). Returns self."""
        if not isinstance(dst_type, D.DType) or dst_type not in (D.float16, D.float32):
            raise ValueError(
                "For 'to_float', the argument 'dst_type' must be mstype.float32, mstype.float16 "
                f"or mstype.bfloat16, but got type: {type(dst_type)} and value: {dst_type}."
            )
        flags = {"fp16": dst_type == D.float16, "fp32": dst_type == D.float32, "bf16": False}
        for _, cell in self.cells_and_names():
            amp.set_cell_precision(cell, dst_type)
            cell.__dict__.setdefault("_flags", {}).update(flags)
        return self

    def set_jit_config(self, jit_config: Any) -> None:
        """Compile this Cell with `jit_config` (a `JitConfig`) in graph mode."""

        if not isinstance(jit_config, JitConfig):
            raise TypeError(f"set_jit_config needs a JitConfig, got {type(jit_config).__name__}")
        object.__setattr__(self, "_jit_config", jit_config)

    @property
    def jit_config_dict(self) -> dict[str, Any]:
        return dict(self._jit_config.jit_config_dict) if self._jit_config is not None else {}

    @property
    def pipeline_stage(self) -> int:
        """The pipeline stage this Cell (and the sub-Cells without their own) runs
        in; -1 until set. Checked against `pipeline_stages` by `nn.PipelineCell`."""
        return self.__dict__.get("_pipeline_stage", -1)

    @pipeline_stage.setter
    def pipeline_stage(self, value: int) -> None:
        if not isinstance(value, int) or isinstance(value, bool):
            raise TypeError(
                f"For 'Cell', the property 'pipeline_stage' must be int type, but got "
                f"type : {type(value).__name__}"
            )
        if value < 0:
            raise ValueError(
                f"For 'Cell', the property 'pipeline_stage' can not be less than 0, but got {value}"
            )
        object.__setattr__(self, "_pipeline_stage", value)

    @property
    def cls_name(self) -> str:
        return type(self).__name__

    # --- running ------------------------------------------------------------------------------------
    def construct(self, *args: Any, **kwargs: Any) -> Any:
        raise AttributeError(f"For '{self.cls_name}', the method 'construct' is not defined.")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if graph_api.should_compile_cell(self) and not recording():
            return graph_api.run_cell(self, args, kwargs)
        construct = self.construct
        if "_mixed_precision" in self.__dict__ or amp.current() is not None:
            construct = functools.partial(_construct_in_precision, self)  # to_float
        if getattr(self, "requires_grad", False) and not recording() and current_graph() is None:
            return run_forward(self, args, kwargs, construct)  # a gradient may reuse this run
        return construct(*args, **kwargs)

    def compile(self, *inputs: Any) -> None:
        """Compile `construct` for these inputs now (calling the Cell reuses it)."""
        graph_api.compile_cell(self, inputs)

    # --- printing --------------------------------------------------------------------------------------
    def extend_repr(self) -> str:
        return ""

    def __repr__(self) -> str:
        """MindSpore's layout: `Name<extra>`, or the children indented one per line."""
        extra = self.extend_repr()
        children = self._registry("_cells")
        if not children:
            return f"{self.cls_name}<{extra}>"
        sub = "\n" + (f"{extra}\n" if extra else "")
        for key, value in children.items():
            sub += f"({key}): {value!r}\n"
        return f"{self.cls_name}<" + sub.replace("\n", "\n  ") + ">"
