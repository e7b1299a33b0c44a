"""`IreeExecutable`: the lowered module compiled by IREE and run by its runtime.

The same contract as the numpy executor (`CpuExecutable`): `run(entry, *arrays)`,
`set_global` / `get_global` for Parameters, `print_hook`, `entry_names`,
`signature`; a failed `cf.assert` raises `RuntimeCheckError` with the program's
message at its source location.

Parameters live in IREE's memory. prepare.py makes every function pure: the
globals an entry may read come in as arguments after the caller's inputs, and
those it may write go out after its results. `set_global(name, array)` copies a
new array once into an IREE buffer and keeps that buffer mapped as numpy;
`get_global` gives the mapped array, which the frontend hands to the Parameter
(so the Parameter's data *is* the IREE buffer: in-place writes from Python
between calls are seen, and the next call passes the buffer without a copy). A
written global's new value is the returned buffer, mapped the same way. Only a
Parameter given a new array (`set_data`, the first call) is copied.

Why not import the Parameters' own numpy memory (`import_host_allocation`, no
copy at all)? Measured: with imported arguments IREE 3.13 wrote a result into an
argument's memory in some runs (a Parameter held the value of another output
after the call, depending on what the process had loaded before), never with
IREE's own buffers. Caller inputs are copied per call for the same reason. A
result that shares memory with a global is copied (as the numpy executor does),
so a returned Tensor never aliases a Parameter.

Aliasing differs in one documented place: IREE has value semantics, so a Load
that no TensorMove copied does not see a later Assign in the same call. At
Load-elimination levels 0-2 every such Load is copied and both engines agree;
level 3 (MindSpore's unsafe "none") gives the value before the Assign here.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute

from mindjit.backend.cpu.errors import ExecutionError, RuntimeCheckError
from mindjit.backend.cpu.executable import check_global_value, input_check
from mindjit.backend.cpu.kernels_state import frozen
from mindjit.backend.cpu.types import (
    dense_array,
    dtype_of,
    is_tensor,
    static_shape,
)
from mindjit.backend.iree import toolchain
from mindjit.backend.iree.channels import HostErrors, channel_exports
from mindjit.backend.iree.collectives import collective_export
from mindjit.backend.iree.prepare import CHECK_TAG, PRINT_MODULE, EntryInfo, Prepared, prepare
from mindjit.ir.locations import loc_of_op
from mindjit.support.tensor_text import default_print_hook

PrintHook = Callable[[list[str | np.ndarray]], None]


class IreeExecutable:
    """Runs the public functions of a tensor-level module through IREE."""

    backend = "iree"

    def __init__(
        self,
        module: ModuleOp,
        *,
        target: str = "llvm-cpu",
        driver: str = "local-sync",
        vmfbs: Sequence[bytes] | None = None,
        entries: Sequence[str] | None = None,
    ):
        self.module = module
        # with the compiled modules at hand, IREE's input text is not needed
        self.prepared: Prepared = prepare(module, entries, rewrite=vmfbs is None)
        self.target = target
        self.driver = driver
        #: The compiled modules, the shared graphs' first and the entry's last (what
        #: the compile cache keeps).
        if vmfbs is None:
            texts = [text for _, text in self.prepared.parts] + [self.prepared.text]
            vmfbs = [toolchain.compile_vmfb(text, target) for text in texts]
        elif not vmfbs:
            raise ExecutionError("no compiled modules were given")
        self.vmfbs = list(vmfbs)
        self.print_hook: PrintHook = default_print_hook
        self._lock = threading.RLock()
        self._config = toolchain.device(driver)
        self._rt = toolchain.runtime()
        self._host: dict[str, np.ndarray] = {}  # the array each global holds, as numpy
        self._views: dict[str, tuple[np.ndarray, Any]] = {}  # global -> (array, its buffer view)
        self._spans: dict[str, tuple[int, int]] = {}  # global -> its array's memory [start, end)
        self._entries: dict[str, _IreeEntry] = {}
        #: The hub of the pipelined call running now (`put(tag, value)`, `get(tag)`,
        #: backend/cpu/pipeline_run.py); None: a channel is a value kept here.
        self.channels: Any = None
        self.channel_values: dict[str, np.ndarray] = {}
        #: The communication object of a replicated call (backend/cpu/collectives.py),
        #: which the collectives' host functions use; None: a group of one.
        self.comm: Any = None
        self.errors = HostErrors()
        self._context = self._load()

    # -- loading ---------------------------------------------------------------------

    def _load(self) -> Any:
        rt = self._rt
        instance = self._config.vm_instance
        try:
            *parts, program = [rt.VmModule.copy_buffer(instance, v) for v in self.vmfbs]
            modules = [rt.create_hal_module(instance, self._config.device)]
            prepared = self.prepared
            if prepared.prints or prepared.channels or prepared.collectives:
                modules.append(self._host_module())
            context = rt.VmContext(instance, [*modules, *parts, program])
        except (RuntimeError, ValueError) as exc:
            raise ExecutionError(f"IREE cannot load the compiled module: {exc}") from None
        self._program = program
        return context

    def _host_module(self) -> Any:
        """The Python module `mindjit` whose functions the print sites, the
        pipeline channels (channels.py) and the collectives (collectives.py) import."""
        rt = self._rt
        iface = rt.PyModuleInterface(PRINT_MODULE, _PrintState)
        for site in self.prepared.prints:
            cconv = "0" + ("".join(_cconv(t) for t in site.types) or "v") + "_v"  # 0v_v: none
            iface.export(site.name, cconv, _print_function(self, site.items, site.types))
        for channel in self.prepared.channels.values():
            for name, cconv, function in channel_exports(self, channel):
                iface.export(name, cconv, function)
        for site in self.prepared.collectives:
            iface.export(*collective_export(self, site))
        return iface.create()

    # -- the executor's contract -------------------------------------------------------

    def entry_names(self) -> list[str]:
        return list(self.prepared.entries)

    def signature(self, name: str) -> tuple[list[Attribute], list[Attribute]]:
        info = self._info(name)
        return list(info.inputs), list(info.outputs)

    def plan_for(self, name: str) -> None:
        """Look the function up (the vmfb is already built): a missing entry fails early."""
        self._entry(name)

    def run(self, name: str, *args: Any) -> tuple[np.ndarray, ...]:
        entry = self._entry(name)
        with self._lock:
            self._install_initial_values()
            return entry(args)

    def get_global(self, name: str) -> np.ndarray:
        """Global @name's current value as numpy (the installed array, or the mapped
        buffer a call returned). Writing into it in place changes the global."""
        with self._lock:
            self._global(name)
            self._install_initial_values()
            return self._host[name]

    def set_global(self, name: str, value: Any) -> None:
        """Make `value` global @name's value: copied into an IREE buffer, which
        `get_global` then gives (mapped) unless `value` is that array already."""
        op = self._global(name)
        with self._lock:
            if self._host.get(name) is value:
                return
            check_global_value(op, value)
            self._adopt(name, np.asarray(value))

    # -- internals -----------------------------------------------------------------------

    def _info(self, name: str) -> EntryInfo:
        info = self.prepared.entries.get(name)
        if info is None:
            available = ", ".join(f"@{n}" for n in self.prepared.entries) or "none"
            raise ExecutionError(f"no function @{name} in the module; available: {available}")
        return info

    def _entry(self, name: str) -> _IreeEntry:
        entry = self._entries.get(name)
        if entry is None:
            info = self._info(name)
            fn = self._program.lookup_function(name)
            entry = self._entries[name] = _IreeEntry(self, info, fn)
        return entry

    def _global(self, name: str) -> Any:
        op = self.prepared.globals.get(name)
        if op is None:
            raise ExecutionError(f"no global @{name} in the module")
        return op

    def _install_initial_values(self) -> None:
        """Globals no one set start at their initial values (ms-run, a module file)."""
        if len(self._host) == len(self.prepared.globals):
            return
        for name, op in self.prepared.globals.items():
            if name not in self._host:
                if op.value is None:
                    raise ExecutionError(f"global @{name} has no value yet", loc_of_op(op))
                self._adopt(name, dense_array(op.value, op.type, op))

    def _adopt(self, name: str, array: np.ndarray) -> None:
        """Global @name's value becomes an IREE buffer holding `array` (on the CPU
        the global's array is that buffer, mapped; on a GPU the host copy)."""
        view = self.buffer_view(array)
        if self.target == "llvm-cpu":
            array = self.to_numpy(view, self.prepared.globals[name].type)
        self.hold(name, array, view)

    def hold(self, name: str, array: np.ndarray, view: Any) -> None:
        """Global @name now holds `array` (over `view`'s buffer); its memory span is
        kept for `_unshared`, which checks every call's results against them all."""
        self._host[name] = array
        self._views[name] = (array, view)
        start = array.__array_interface__["data"][0]
        self._spans[name] = (start, start + array.nbytes)

    def state_view(self, name: str) -> Any:
        """The buffer view of global @name's current value."""
        array = self._host[name]
        cached = self._views.get(name)
        # on the CPU the array is the buffer's memory; a GPU's copy may be stale
        if cached is not None and cached[0] is array and self.target == "llvm-cpu":
            return cached[1]
        view = self.buffer_view(array)
        self._views[name] = (array, view)
        return view

    def buffer_view(self, array: np.ndarray) -> Any:
        """A new IREE buffer holding a copy of `array` (see the module docstring).
        An unsigned array goes as its signed twin: IREE's functions take signless
        iN (signless.py), the same bytes."""
        rt = self._rt
        if array.dtype.kind == "u":
            array = array.view(f"i{array.dtype.itemsize}")
        element = _element_type(rt, array.dtype)
        allocator = self._config.device.allocator
        return allocator.allocate_buffer_copy(
            memory_type=rt.MemoryType.DEVICE_LOCAL,
            allowed_usage=rt.BufferUsage.DEFAULT,
            device=self._config.device,
            buffer=np.require(array, requirements="C"),  # ascontiguousarray makes 0-d 1-d
            element_type=element,
        )

    def to_numpy(self, view: Any, t: Attribute) -> np.ndarray:
        """A returned buffer as numpy: mapped (no copy) on the CPU, copied otherwise.
        The array owns the buffer view: a mapping alone does not keep IREE's buffer
        alive (an array over a freed result read another call's values, at random)."""
        dtype = dtype_of(t)
        shape = static_shape(t)
        if self.target == "llvm-cpu":
            mapping = view.map()
            return np.asarray(_Mapped(mapping.asarray(shape, dtype), view, mapping))
        return self._rt.DeviceArray(self._config.device, view).to_host().view(dtype).reshape(shape)

    def check_failure(self, exc: Exception, info: EntryInfo) -> Exception:
        """IREE's failure as mindjit's error: a tagged check becomes its RuntimeCheckError."""
        kept = self.errors.take()
        if kept is not None:  # a host function's own error (a channel's)
            return kept
        text = str(exc)
        found = CHECK_TAG.search(text)
        if found and int(found.group(1)) in self.prepared.checks:
            message, loc = self.prepared.checks[int(found.group(1))]
            return RuntimeCheckError(message, loc)
        detail = text.replace("Error invoking function:", "").strip()
        return IreeRunError(f"IREE failed running @{info.name}: {detail}", info.loc)


class IreeRunError(ExecutionError):
    """IREE itself failed running a call (not a check of the program's): an IREE bug
    or limit, which the numpy executor may not have (backend/auto.py runs it there)."""


class _Mapped:
    """What a mapped result array is a view of: the mapping and the buffer view it
    maps, kept alive as long as any array over the memory lives."""

    __slots__ = ("__array_interface__", "view", "mapping")

    def __init__(self, array: np.ndarray, view: Any, mapping: Any):
        self.__array_interface__ = array.__array_interface__
        self.view, self.mapping = view, mapping


class _IreeEntry:
    """One public function: its argument conversions and result handling."""

    __slots__ = ("exe", "info", "fn", "checks", "pushers", "n_results", "out_types")

    def __init__(self, exe: IreeExecutable, info: EntryInfo, fn: Any):
        self.exe, self.info, self.fn = exe, info, fn
        self.checks = tuple(
            input_check(info.name, i, t, info.loc) for i, t in enumerate(info.inputs)
        )
        self.pushers = tuple(_pusher(exe, t) for t in info.inputs)
        self.out_types = (*info.outputs, *(exe.prepared.globals[g].type for g in info.written))
        self.n_results = len(info.outputs)

    def __call__(self, args: tuple[Any, ...]) -> tuple[np.ndarray, ...]:
        exe, info, rt = self.exe, self.info, self.exe._rt
        if len(args) != len(self.checks):
            raise ExecutionError(
                f"entry @{info.name} expects {len(self.checks)} inputs, got {len(args)}", info.loc
            )
        arglist = rt.VmVariantList(len(args) + len(info.state))
        for check, push, a in zip(self.checks, self.pushers, args):
            push(arglist, check(a))
        for g in info.state:
            arglist.push_ref(exe.state_view(g))
        results = rt.VmVariantList(len(self.out_types))
        try:
            exe._context.invoke(self.fn, arglist, results)
        # IREE raises RuntimeError or ValueError for a failed call, and IndexError for an
        # OUT_OF_RANGE status (IREE 3.13's "indirect buffer reference slot 0 is out of
        # range" on some nested ifs that assign: a runtime bug, found by the fuzzer)
        except (RuntimeError, ValueError, IndexError) as exc:
            raise exe.check_failure(exc, info) from None
        values = [_result(exe, results, i, t) for i, t in enumerate(self.out_types)]
        for k, (g, array) in enumerate(zip(info.written, values[self.n_results :])):
            exe.hold(g, array, results.get_as_object(self.n_results + k, rt.HalBufferView))
        outputs = values[: self.n_results]
        return tuple(_unshared(exe, outputs))


def _unshared(exe: IreeExecutable, outputs: list[np.ndarray]) -> list[np.ndarray]:
    """Copy results that share memory with a global (a returned Parameter's value)."""
    if not outputs or not exe._spans:
        return outputs
    spans = exe._spans.values()
    fresh = []
    for out in outputs:
        if isinstance(out, np.ndarray) and out.nbytes:
            start = out.__array_interface__["data"][0]
            end = start + out.nbytes
            if any(s < end and start < e for s, e in spans):
                out = out.copy()
        fresh.append(out)
    return fresh


def _result(exe: IreeExecutable, results: Any, i: int, t: Attribute) -> np.ndarray:
    if is_tensor(t):
        return exe.to_numpy(results.get_as_object(i, exe._rt.HalBufferView), t)
    return np.asarray(results.get_variant(i), dtype=dtype_of(t))


def _pusher(exe: IreeExecutable, t: Attribute) -> Callable[[Any, Any], None]:
    if is_tensor(t):
        return lambda lst, a: lst.push_ref(exe.buffer_view(a))
    if dtype_of(t).kind == "f":
        return lambda lst, a: lst.push_float(float(a))
    return lambda lst, a: lst.push_int(int(a))


def _cconv(t: Attribute) -> str:
    """IREE's calling-convention letter of an import argument."""
    if is_tensor(t):
        return "r"
    dtype = dtype_of(t)
    if dtype.kind == "f":
        return "f" if dtype.itemsize <= 4 else "d"
    return "I" if dtype.itemsize == 8 else "i"


def _element_type(rt: Any, dtype: np.dtype) -> int:
    element = rt.array_interop.map_dtype_to_element_type(dtype)
    if element is None:
        raise ExecutionError(f"IREE has no element type for numpy {dtype}")
    return int(element)


class _PrintState:
    """The instance IREE creates for module `mindjit` (prints keep no state)."""

    def __init__(self, iface: Any):
        del iface  # holding it would make a reference cycle through the runtime


def _print_function(
    exe: IreeExecutable, items: tuple[str | int, ...], types: tuple[Attribute, ...]
) -> Callable[..., None]:
    rt = exe._rt
    owner = weakref.ref(exe)  # the runtime holds this function: no cycle through it

    def print_site(_state: _PrintState, *args: Any) -> None:
        exe = owner()
        if exe is None:
            return
        values = [
            exe.to_numpy(a.deref(rt.HalBufferView), t).copy()
            if is_tensor(t)
            else np.asarray(a, dtype=dtype_of(t))
            for a, t in zip(args, types)
        ]
        exe.print_hook([item if isinstance(item, str) else frozen(values[item]) for item in items])

    return print_site
