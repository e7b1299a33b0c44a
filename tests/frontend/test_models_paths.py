"""Differential test of the model zoo (examples/models/zoo.py) over every execution
path: whatever compiles and runs a train step, PyNative's losses and Parameter
values are the reference.

Per model, two train steps from one seed, compared with PyNative's (rtol 1e-5):
every Parameter the step reaches (the network's, moving statistics included, the
optimizer's moments, the default generator's `random_key` / `random_offset`):

- at JitConfig jit_level O0, O1 and O2 (given to `ms.jit` for the function
  steps, to `set_jit_config` for the TrainOneStepCell ones);
- at MS_DEV_SIDE_EFFECT_LOAD_ELIM=0/1/2 (3 is documented unsafe) and
  MS_DEV_CELL_REUSE=0/1/2 (which changes only models with @lazy_inline Cells);
- through the compile cache, cold (compiled and stored) and warm (read back
  from disk after the in-memory programs are dropped, as a new process would,
  from another seed: the hit runs on this run's Parameters, not the stored ones);
- on the simulated device, against the CPU's graph-mode run;
- on the IREE backend (`jit_config={"backend": "iree"}`), every graph compiled
  by IREE;
- and, in eval mode, the forward's lowered module run by iree-run-module against
  the CPU executor (rtol 2e-5); the same forward compiled for the device with
  MS_DEV_SAVE_GRAPHS=1 writes IR files that parse back with ms-opt (the device's
  own file too).

The models run at small sizes (`SMALL`, build arguments zoo.py's defaults keep
larger; the LSTM on 4 time steps) and batch 2, so the whole file stays well
under two minutes.
"""

from __future__ import annotations

import dataclasses
import functools
import gc
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from xdsl.dialects import func

import mindjit as ms
from mindjit import nn
from mindjit.frontend import context as C
from mindjit.frontend.emitter import dense_attr
from mindjit.frontend.graph import api
from mindjit.frontend.graph.program_cache import HIT, MISS
from mindjit.frontend.ops.random import generator_parameters

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "examples" / "models"))
sys.path.append(str(ROOT / "tests" / "backend"))  # run_iree

import zoo  # noqa: E402
from test_cpu_iree import IREE_COMPILE, IREE_RUN, run_iree  # noqa: E402

NAMES = sorted(zoo.MODELS)
BATCH = 2
STEPS = 2
#: build arguments that make a model smaller than zoo.py's defaults
SMALL: dict[str, dict[str, Any]] = {"resnet18": {"width": 4}, "bert": {"layers": 2}}
#: batch arguments that make a model's graph smaller (the LSTM unrolls one cell per step)
SMALL_BATCH: dict[str, dict[str, Any]] = {"lstm": {"seq": 4}}
SWITCHES = ("MS_DEV_SIDE_EFFECT_LOAD_ELIM", "MS_DEV_CELL_REUSE")
ENVIRONMENT = (
    *SWITCHES,
    "MS_DEV_SAVE_GRAPHS",
    "MS_DEV_SAVE_GRAPHS_PATH",
    "MS_COMPILER_CACHE_ENABLE",
    "MS_COMPILER_CACHE_PATH",
)


@pytest.fixture(autouse=True)
def clean(monkeypatch) -> Iterator[None]:
    """Each configuration compiles anew, from the default context and environment."""
    for var in ENVIRONMENT:
        monkeypatch.delenv(var, raising=False)
    C.reset_context()
    api.clear_cache()
    yield
    C.reset_context()
    api.clear_cache()


def model(name: str) -> zoo.ZooModel:
    """The zoo's model, built and fed with `SMALL`'s and `SMALL_BATCH`'s arguments."""
    found = zoo.get(name)
    return dataclasses.replace(
        found,
        build=functools.partial(found.build, **SMALL.get(name, {})),
        batch=functools.partial(found.batch, **SMALL_BATCH.get(name, {})),
    )


@dataclasses.dataclass
class Run:
    losses: list[float]
    params: dict[str, np.ndarray]
    programs: list[Any]


def parameters(net: nn.Cell, step: Any) -> dict[str, Any]:
    """Every Parameter a train step reaches, by name: the network's, the train Cell's
    or (a function step) those of the Cells it closes over (its optimizer), and the
    default generator's."""
    cells = [net]
    if isinstance(step, nn.Cell):
        cells.append(step)
    else:
        cells += [
            c.cell_contents for c in step.__closure__ or () if isinstance(c.cell_contents, nn.Cell)
        ]
    found: dict[str, Any] = {}
    for cell in cells:
        for param in cell.get_parameters():
            assert found.setdefault(param.name, param) is param, (
                f"two Parameters named {param.name}"
            )
    for param in generator_parameters():
        found[param.name] = param
    return found


def train(
    name: str, graph: bool = True, jit_config: ms.JitConfig | None = None, seed: int = 3
) -> Run:
    """STEPS train steps of `name` from `seed`, in graph mode (the context's device
    and options; `jit_config` given to `ms.jit` or the train Cell) or PyNative."""
    m = model(name)
    ms.set_context(mode=ms.GRAPH_MODE if graph else ms.PYNATIVE_MODE)
    before = {id(p) for p in api.cached_programs()}  # Run.programs: this run's only
    try:
        ms.set_seed(seed)
        net = m.build()
        step = m.step(net)
        params = parameters(net, step)
        assert len(params) > len(list(net.get_parameters())) + 2  # the optimizer's too
        if isinstance(step, nn.Cell):  # as ZooModel.train_step, on this very step
            step.set_train()
            runner = step
            if jit_config is not None:
                step.set_jit_config(jit_config)
        else:
            runner = ms.jit(step, jit_config=jit_config) if graph else step
        inputs = m.batch(BATCH)
        losses = [float(runner(*inputs).asnumpy()) for _ in range(STEPS)]
        values = {key: p.asnumpy().copy() for key, p in params.items()}
        return Run(losses, values, [p for p in api.cached_programs() if id(p) not in before])
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


@functools.cache
def pynative(name: str, seed: int = 3) -> Run:
    """The reference: the same steps in PyNative (computed once per model and seed)."""
    return train(name, graph=False, seed=seed)


@functools.cache
def cpu_graph(name: str) -> Run:
    """Graph mode on the CPU at the defaults: O1 (here given as a JitConfig),
    load-elim 1, cell reuse 1."""
    C.reset_context()
    api.clear_cache()
    return train(name, jit_config=ms.JitConfig(jit_level="O1"))


def assert_same(got: Run, want: Run, rtol: float = 1e-5, atol: float = 1e-6) -> None:
    np.testing.assert_allclose(got.losses, want.losses, rtol=rtol)
    assert got.params.keys() == want.params.keys()
    for key, value in got.params.items():
        np.testing.assert_allclose(value, want.params[key], rtol=rtol, atol=atol, err_msg=key)


def mindir_stages(program: Any) -> list[str]:
    names = [s.name for s in program.report.stages]
    return names[: names.index("verify-mindir")]


# -- 1. jit levels ---------------------------------------------------------------------------


@pytest.mark.parametrize("level", ["O0", "O1", "O2"])
@pytest.mark.parametrize("name", NAMES)
def test_train_step_at_each_jit_level(name, level):
    want = pynative(name)
    run = (
        cpu_graph(name) if level == "O1" else train(name, jit_config=ms.JitConfig(jit_level=level))
    )
    assert_same(run, want)
    assert run.programs
    for program in run.programs:  # the level was the one compiled
        assert program.options.jit_level == level
        stages = mindir_stages(program)
        assert ("mindir-cf-to-select" in stages) == (level != "O0")
        assert ("dce" in stages) == (level == "O2")


# -- 2. side-effect and cell-reuse switches --------------------------------------------------


def has_lazy_inline(name: str) -> bool:
    ms.set_seed(3)
    net = model(name).build()
    return any(
        getattr(type(cell).__init__, "__ms_lazy_inline__", False)
        for _, cell in net.cells_and_names()
    )


@pytest.mark.parametrize(
    ("var", "value"),
    [(var, value) for var in SWITCHES for value in ("0", "1", "2")],
    ids=lambda v: v.removeprefix("MS_DEV_").lower() if v.startswith("MS_") else v,
)
@pytest.mark.parametrize("name", NAMES)
def test_train_step_under_each_switch(name, var, value, monkeypatch):
    if var == "MS_DEV_CELL_REUSE" and not has_lazy_inline(name):
        pytest.skip("no @lazy_inline Cell: MS_DEV_CELL_REUSE changes nothing")
    want = pynative(name)
    if value == "1":  # both switches' default: the default run is the level-1 run
        run = cpu_graph(name)
    else:
        monkeypatch.setenv(var, value)
        run = train(name)
    assert_same(run, want)
    option = "load_elim" if var == "MS_DEV_SIDE_EFFECT_LOAD_ELIM" else "cell_reuse"
    assert {getattr(p.options, option) for p in run.programs} == {int(value)}
    if option == "cell_reuse":
        lazy = {key for p in run.programs for _, key in p.frontend_graphs if key is not None}
        assert bool(lazy) == (value != "0")  # level 0 inlines the lazy graphs at trace time


# -- 3. the compile cache ---------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_train_step_cold_and_warm_from_the_compile_cache(name, tmp_path, capsys):
    want = pynative(name)
    # Cells of earlier tests that die during the cold run (a cyclic collection) change
    # the training token (frontend/cell_base.py: the ids of the live training Cells)
    # and with it the in-memory key: the second step would compile again and hit the
    # entry the first one wrote. Collect them first.
    gc.collect()
    ms.set_context(enable_compile_cache=True, compile_cache_path=str(tmp_path))
    cold = train(name)
    err = capsys.readouterr().err
    assert MISS in err and HIT not in err, err
    assert not any(p.from_cache for p in cold.programs)
    assert list(tmp_path.glob("*.mjc"))
    api.clear_cache()  # nothing compiled in memory: the entry is read from disk
    warm = train(name, seed=4)  # other weights and generator key: the hit binds this run's
    err = capsys.readouterr().err
    assert HIT in err and MISS not in err, err
    assert warm.programs and all(p.from_cache for p in warm.programs)
    assert_same(cold, want)
    assert_same(warm, pynative(name, seed=4))


# -- 4. the simulated device, and the IR it writes ----------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_train_step_on_the_device_as_on_the_cpu(name):
    want = cpu_graph(name)
    ms.set_context(device_target="Ascend")
    run = train(name)
    assert run.programs and {p.options.device_target for p in run.programs} == {"Ascend"}
    assert_same(run, want)


def saved_graphs(name: str, where: Path) -> list[Path]:
    """The IR files of the eval forward compiled for the device with
    MS_DEV_SAVE_GRAPHS=1 (the forward: the train step's dumps are several times
    larger, and parsing resnet18's takes half a minute)."""
    m = model(name)
    ms.set_seed(3)
    net = m.build()
    net.set_train(False)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("MS_DEV_SAVE_GRAPHS", "1")
        mp.setenv("MS_DEV_SAVE_GRAPHS_PATH", str(where))
        ms.set_context(mode=ms.GRAPH_MODE, device_target="Ascend")
        try:
            net(*m.batch(BATCH)[:-1])
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    return sorted(where.glob("*.mlir"))


def parse_back(tool: Any, files: list[Path], where: Path) -> None:
    """One ms-opt call parses every file (`--split-input-file`); a failure names its file."""
    joined, starts, line = [], [], 1
    for path in files:
        text = path.read_text(encoding="utf-8")
        starts.append((line, path.name))
        joined.append(text)
        line += text.count("\n") + 2  # the text and the separator's line
    (where / "all.mlir").write_text("\n// -----\n".join(joined), encoding="utf-8")
    done = tool("ms-opt", "--split-input-file", str(where / "all.mlir"), "-o", "/dev/null")
    assert done.returncode == 0, f"file starts (line, name): {starts}\n{done.stderr[-3000:]}"


@pytest.mark.parametrize("name", NAMES)
def test_saved_graphs_parse_back(name, tmp_path, tool):
    files = saved_graphs(name, tmp_path / "graphs")
    stages = [f for f in files if not f.name.endswith(".ascend.mlir")]
    assert stages[0].name.endswith("_00_frontend.mlir")
    assert any("convert_mindir_to_tensor" in f.name for f in stages)
    assert len(files) == len(stages) + 1  # and the device's IR (next test)
    parse_back(tool, stages, tmp_path)


def test_saved_device_ir_parses_back(tmp_path, tool):
    files = saved_graphs("lenet5", tmp_path / "graphs")
    parse_back(tool, [f for f in files if f.name.endswith(".ascend.mlir")], tmp_path)


# -- 5. IREE ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_train_step_on_the_iree_backend(name):
    """The train steps compiled by IREE (`jit_config={"backend": "iree"}`) give
    PyNative's losses and Parameters, and nothing fell back to numpy. IREE's
    tanh/exp are polynomials a few ulps from numpy's libm (IREE's runs are the
    same bit for bit from process to process): the losses agree to 1e-6, but
    Adam's m / (sqrt(v) + eps) turns an ulp-level difference of a gradient near
    eps into a visible one, and the sentiment model's LSTM weights end up to
    2.7e-5 apart (learning rate 0.03), hence atol 1e-4."""
    want = pynative(name)
    ms.set_context(jit_config={"backend": "iree"})
    run = train(name)
    assert run.programs and {p.executable.backend for p in run.programs} == {"iree"}
    assert_same(run, want, rtol=1e-4, atol=1e-4)


def iree_ready(program: Any) -> tuple[Any, func.FuncOp]:
    """The program's lowered module with every global's current value inline (a large
    Parameter's `dense_resource` blob lives only in this process), and its entry."""
    module = program.module.clone()
    values = dict(program.parameters)
    for op in module.walk():
        if op.name == "ml_program.global":
            param = values[op.sym_name.data]
            op.properties["value"] = dense_attr(param.asnumpy(), param.dtype)
    (entry,) = [
        op
        for op in module.ops
        if isinstance(op, func.FuncOp) and op.sym_name.data == program.entry_name
    ]
    return module, entry


def entry_inputs(entry: func.FuncOp, program: Any, inputs: list[np.ndarray]) -> list[np.ndarray]:
    """The entry's arguments: the inputs, and the Parameters bound to the arguments
    marked `{mindjit.global = @w}` (the CPU executor fills those itself)."""
    values = dict(program.parameters)
    given = iter(inputs)
    args = []
    attrs = entry.arg_attrs.data if entry.arg_attrs is not None else [None] * len(entry.args)
    for attr in attrs:
        bound = attr.data.get("mindjit.global") if attr is not None else None
        args.append(
            values[bound.root_reference.data].asnumpy() if bound is not None else next(given)
        )
    assert next(given, None) is None
    return args


@pytest.mark.skipif(IREE_COMPILE is None or IREE_RUN is None, reason="IREE is not installed")
@pytest.mark.parametrize("name", NAMES)
def test_eval_forward_on_iree_as_on_the_cpu(name, tmp_path):
    m = model(name)
    ms.set_seed(3)
    net = m.build()
    net.set_train(False)
    inputs = m.batch(BATCH)[:-1]
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        ours = net(*inputs).asnumpy()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    (program,) = api.cached_programs()
    module, entry = iree_ready(program)
    args = entry_inputs(entry, program, [x.asnumpy() for x in inputs])
    (theirs,) = run_iree(str(module), args, 1, tmp_path, program.entry_name)
    assert theirs.dtype == ours.dtype and theirs.shape == ours.shape
    np.testing.assert_allclose(theirs, ours, rtol=2e-5, atol=2e-5)
