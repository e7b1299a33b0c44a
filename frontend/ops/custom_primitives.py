"""MindSpore's way to define a primitive in Python: `PrimitiveWithInfer`,
`PrimitiveWithCheck` and the `prim_attr_register` decorator of their `__init__`.

    class Range(PrimitiveWithInfer):
        @prim_attr_register
        def __init__(self, start, limit):
            self.init_prim_io_names(inputs=[], outputs=["output"])

        def infer_value(self):
            return Tensor(np.arange(self.start, self.limit))

What such a class can do in mindjit is what it can do without a kernel:

- `prim_attr_register` does what MindSpore's does: the primitive is named after
  the class (`substitute_name` if the class has one), and every argument of
  `__init__`, defaults filled in, becomes an attribute (`add_prim_attr`, in
  `attrs` and `init_attrs`) before the body runs.
- Calling the primitive runs its checks and inference as MindSpore does before
  it launches a kernel, on each argument's {'shape', 'dtype', 'value'}: a
  tensor's shape as a list, its dtype `Tensor[Float32]`, its value the Tensor
  when it is a constant (PyNative, or written in the program) and None when a
  graph computes it; a number's shape [], its dtype Int64 / Float32 / Bool.
  `check_shape` / `check_dtype` (PrimitiveWithCheck), or `__infer__` (by
  default `infer_shape`, `infer_dtype`, `infer_value`) for PrimitiveWithInfer.
- When the inference gives a value (infer_value on constants: MindSpore folds
  it, in PyNative mode too), that value is the result. It runs eagerly, so
  its ops compute on the constants, in graph mode as well.
- Otherwise MindSpore would run the kernel registered for the primitive's name
  (a TBE/AKG/CPU kernel of the model's own, or MindSpore's); mindjit has none
  of those, so the call is a NotImplementedError naming the primitive (located
  at the user's line in graph mode). A subclass that defines `__call__` in terms
  of mindjit's ops runs that instead, in both modes.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

from mindjit.frontend import dtype as D
from mindjit.frontend.dispatch import current_graph, eager
from mindjit.frontend.graph_value import GraphValue
from mindjit.frontend.ops.primitives import Primitive
from mindjit.frontend.ops.promotion import is_tensor
from mindjit.frontend.ops.type_checks import typeof
from mindjit.frontend.tensor import Parameter


def _is_constant(value: Any) -> bool:
    if isinstance(value, GraphValue):
        return False
    return not (isinstance(value, Parameter) and current_graph() is not None)


def abstract(value: Any) -> dict[str, Any]:
    """The {'shape', 'dtype', 'value'} MindSpore's inference sees for an argument."""
    if is_tensor(value):
        known = value if _is_constant(value) else None
        return {"shape": list(value.shape), "dtype": D.TensorType(value.dtype), "value": known}
    if isinstance(value, tuple | list):
        parts = [abstract(v) for v in value]
        whole = all(p["value"] is not None for p in parts)
        return {
            "shape": [p["shape"] for p in parts],
            "dtype": typeof(value),
            "value": value if whole else None,
        }
    shape = [] if isinstance(value, bool | int | float) else None
    return {"shape": shape, "dtype": typeof(value), "value": value}


def _no_kernel(prim: Primitive) -> NotImplementedError:
    return NotImplementedError(
        f"mindjit does not implement the primitive '{prim.name}': a primitive defined in "
        "Python (PrimitiveWithInfer / PrimitiveWithCheck) runs, in MindSpore, a kernel "
        "registered for its name, and mindjit has no kernel for it. Give the class a "
        "__call__ computing it with mindjit's ops, or an infer_value for constant inputs"
    )


class PrimitiveWithCheck(Primitive):
    """A primitive defined in Python whose `check_shape` / `check_dtype` run on every call."""

    def __init__(self, name: str | None = None):
        super().__init__(name)
        self.__dict__.setdefault("init_attrs", {})

    def check_shape(self, *args: Any) -> None:
        return None

    def check_dtype(self, *args: Any) -> None:
        return None

    def __check__(self, *args: dict[str, Any]) -> None:
        for track in ("dtype", "shape"):
            getattr(self, f"check_{track}")(*(a[track] for a in args))

    def __call__(self, *args: Any) -> Any:
        self.__check__(*(abstract(a) for a in args))
        raise _no_kernel(self)


class PrimitiveWithInfer(Primitive):
    """A primitive defined in Python with `infer_shape`, `infer_dtype`, `infer_value`
    (or `__infer__`); a call gives the inferred value, or needs a kernel."""

    def __init__(self, name: str | None = None):
        super().__init__(name)
        self.__dict__.setdefault("init_attrs", {})

    def infer_shape(self, *args: Any) -> Any:
        return None

    def infer_dtype(self, *args: Any) -> Any:
        return None

    def infer_value(self, *args: Any) -> Any:
        return None

    def __infer__(self, *args: dict[str, Any]) -> dict[str, Any]:
        out = {}
        for track in ("dtype", "shape", "value"):
            out[track] = getattr(self, f"infer_{track}")(*(a[track] for a in args))
        return out

    def __call__(self, *args: Any) -> Any:
        abstracts = [abstract(a) for a in args]
        with eager():  # infer_value computes on the constants, in graph mode too
            value = self.__infer__(*abstracts).get("value")
        if value is not None:
            return value
        raise _no_kernel(self)


def prim_attr_register(fn: Callable[..., None]) -> Callable[..., None]:
    """Decorate a primitive's `__init__`: name it after its class and record every
    argument (defaults included) as an attribute before the body runs."""

    @functools.wraps(fn)
    def deco(self: Primitive, *args: Any, **kwargs: Any) -> None:
        name = getattr(type(self), "substitute_name", type(self).__name__)
        Primitive.__init__(self, name)
        self.__dict__["init_attrs"] = {}
        bound = inspect.signature(fn).bind(self, *args, **kwargs)
        bound.apply_defaults()
        for arg, value in list(bound.arguments.items())[1:]:
            self.add_prim_attr(arg, value)
            self.init_attrs[arg] = value
        fn(self, *args, **kwargs)

    deco.decorated_func = fn  # type: ignore[attr-defined]
    return deco


__all__ = ["PrimitiveWithCheck", "PrimitiveWithInfer", "prim_attr_register"]
