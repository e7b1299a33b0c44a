"""Choosing what runs a graph: `jit(backend=)`, JitConfig, set_context, MINDJIT_BACKEND;
IREE through the compile cache; IREE's failures as MindSpore's errors; GPU."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import cache_programs as P
import lazy_inline_programs as L
import numpy as np
import pytest

import mindjit as ms
from mindjit import nn, ops
from mindjit.frontend import context as C
from mindjit.frontend.graph import api
from mindjit.frontend.graph.program_cache import HIT, MISS

pytest.importorskip("iree.runtime")

HERE = Path(__file__).resolve().parent


@pytest.fixture(autouse=True)
def clean(monkeypatch):
    for var in ("MINDJIT_BACKEND", "MINDJIT_IREE_DRIVER", "MS_COMPILER_CACHE_ENABLE"):
        monkeypatch.delenv(var, raising=False)
    C.reset_context()
    api.clear_cache()
    yield
    C.reset_context()
    api.clear_cache()


def backend_of_last_program() -> str:
    return api.cached_programs()[-1].executable.backend


def double_plus_one(x):
    return x * 2 + 1


def x3():
    return ms.Tensor(np.array([1.0, 2.0, 3.0], np.float32))


def test_numpy_is_the_default():
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.jit(double_plus_one)(x3())
    assert backend_of_last_program() == "numpy"


@pytest.mark.parametrize(
    "how",
    ["jit_keyword", "jit_config", "set_context", "environment", "cell_jit_config"],
)
def test_every_way_to_choose_iree(how, monkeypatch):
    ms.set_context(mode=ms.GRAPH_MODE)
    if how == "cell_jit_config":
        net = nn.Dense(3, 2)
        net.set_jit_config(ms.JitConfig(backend="iree"))
        out = net(ms.Tensor(np.ones((1, 3), np.float32)))
        assert out.shape == (1, 2)
        assert backend_of_last_program() == "iree"
        return
    fn = double_plus_one
    if how == "jit_keyword":
        fn = ms.jit(double_plus_one, backend="iree")
    elif how == "jit_config":
        fn = ms.jit(double_plus_one, jit_config=ms.JitConfig(backend="iree"))
    elif how == "set_context":
        ms.set_context(jit_config={"backend": "iree"})
        fn = ms.jit(double_plus_one)
    else:
        monkeypatch.setenv("MINDJIT_BACKEND", "iree")
        fn = ms.jit(double_plus_one)
    np.testing.assert_array_equal(fn(x3()).asnumpy(), [3, 5, 7])
    assert backend_of_last_program() == "iree"
    stages = [s.name for s in api.cached_programs()[-1].report.stages]
    assert stages[-1] == "iree-compile"


def test_the_call_wins_over_the_context():
    ms.set_context(mode=ms.GRAPH_MODE, jit_config={"backend": "iree"})
    ms.jit(double_plus_one, backend="numpy")(x3())
    assert backend_of_last_program() == "numpy"


@pytest.mark.parametrize(
    "make, error",
    [
        (lambda: ms.JitConfig(backend="tvm"), ValueError),
        (lambda: ms.set_context(jit_config={"backend": "tvm"}), ValueError),
        (lambda: ms.jit(double_plus_one, backend="tvm")(x3()), ValueError),
    ],
)
def test_a_bad_backend_is_a_value_error(make, error):
    ms.set_context(mode=ms.GRAPH_MODE)
    with pytest.raises(error, match="tvm"):
        make()


def test_a_bad_environment_value_names_the_variable(monkeypatch):
    ms.set_context(mode=ms.GRAPH_MODE)
    monkeypatch.setenv("MINDJIT_BACKEND", "tvm")
    with pytest.raises(ValueError, match="MINDJIT_BACKEND"):
        ms.jit(double_plus_one)(x3())
    monkeypatch.setenv("MINDJIT_BACKEND", "iree")
    monkeypatch.setenv("MINDJIT_IREE_DRIVER", "cuda-ish")
    with pytest.raises(ValueError, match="MINDJIT_IREE_DRIVER"):
        ms.jit(double_plus_one)(x3())


class Accumulate(nn.Cell):
    def __init__(self):
        super().__init__()
        self.total = ms.Parameter(ms.Tensor(np.zeros(3, np.float32)), name="total")

    def construct(self, x):
        ops.assign(self.total, self.total + x)
        return self.total * 1


@pytest.mark.parametrize("driver", ["local-sync", "local-task"])
def test_parameters_assigned_by_iree_are_seen_in_python(driver, monkeypatch):
    monkeypatch.setenv("MINDJIT_IREE_DRIVER", driver)
    ms.set_context(mode=ms.GRAPH_MODE, jit_config={"backend": "iree"})
    net = Accumulate()
    for k in range(1, 4):
        out = net(x3())
        np.testing.assert_array_equal(net.total.asnumpy(), [k, 2 * k, 3 * k])
        np.testing.assert_array_equal(out.asnumpy(), net.total.asnumpy())
        assert not np.shares_memory(out.asnumpy(), net.total.asnumpy())
    net.total.set_data(ms.Tensor(np.full(3, 10.0, np.float32)))  # between calls
    np.testing.assert_array_equal(net(x3()).asnumpy(), [11, 12, 13])


class Checked(nn.Cell):
    def construct(self, x):
        if x.sum() > 10:
            raise ValueError("the sum is too large")
        return x


def test_a_users_raise_on_iree_is_the_users_error():
    ms.set_context(mode=ms.GRAPH_MODE, jit_config={"backend": "iree"})
    net = Checked()
    np.testing.assert_array_equal(net(x3()).asnumpy(), [1, 2, 3])
    assert backend_of_last_program() == "iree"
    with pytest.raises(ValueError, match="the sum is too large"):
        net(ms.Tensor(np.full(3, 5.0, np.float32)))


def test_a_check_failure_on_iree_is_a_runtime_error():
    ms.set_context(mode=ms.GRAPH_MODE, jit_config={"backend": "iree"})

    def loss(logits, labels):
        return ops.cross_entropy(logits, labels)

    logits = ms.Tensor(np.zeros((2, 3), np.float32))
    with pytest.raises(RuntimeError):
        ms.jit(loss)(logits, ms.Tensor(np.array([0, 7], np.int32)))


class Printing(nn.Cell):
    def construct(self, x):
        print("x:", x)
        return x + 1


def test_prints_on_iree_go_to_stdout(capfd):
    ms.set_context(mode=ms.GRAPH_MODE, jit_config={"backend": "iree"})
    Printing()(x3())
    out = capfd.readouterr().out
    assert "x:" in out and "Tensor(shape=[3]" in out


def test_iree_in_the_compile_cache_loads_without_compiling(tmp_path, capsys):
    ms.set_context(
        mode=ms.GRAPH_MODE,
        enable_compile_cache=True,
        compile_cache_path=str(tmp_path),
        jit_config={"backend": "iree"},
    )
    x, y = ms.Tensor([1], ms.float32), ms.Tensor([2], ms.float32)
    cold = P.docs_func(x, y).asnumpy()
    assert MISS in capsys.readouterr().err
    api.clear_cache()
    warm = P.docs_func(x, y).asnumpy()
    assert HIT in capsys.readouterr().err
    np.testing.assert_array_equal(cold, warm)
    (program,) = api.cached_programs()
    assert [s.name for s in program.report.stages] == ["cache-load", "iree-load"]
    # the numpy backend has its own entry: the key holds the backend
    ms.set_context(jit_config={"backend": "numpy"})
    api.clear_cache()
    P.docs_func(x, y)
    assert MISS in capsys.readouterr().err


def test_a_vmfb_for_another_cpu_is_compiled_again(tmp_path, capsys, monkeypatch):
    from mindjit.driver import cache as driver_cache

    ms.set_context(
        mode=ms.GRAPH_MODE,
        enable_compile_cache=True,
        compile_cache_path=str(tmp_path),
        jit_config={"backend": "iree"},
    )
    x, y = ms.Tensor([1], ms.float32), ms.Tensor([2], ms.float32)
    P.docs_func(x, y)
    api.clear_cache()
    monkeypatch.setattr(driver_cache, "target_fingerprint", lambda target: "another-cpu")
    capsys.readouterr()
    np.testing.assert_array_equal(P.docs_func(x, y).asnumpy(), [601.0])
    (program,) = api.cached_programs()
    assert [s.name for s in program.report.stages] == ["cache-load", "iree-compile"]


def test_float_status_programs_fall_back_with_one_line(capfd):
    ms.set_context(mode=ms.GRAPH_MODE, jit_config={"backend": "iree"})

    def overflow_flag(x):
        status = ops.NPUAllocFloatStatus()()
        status = ops.depend(status, ops.NPUClearFloatStatus()(status))
        y = x * 2
        status = ops.depend(status, y)
        return y, ops.NPUGetFloatStatus()(status)

    y, _ = ms.jit(overflow_flag)(x3())
    np.testing.assert_array_equal(y.asnumpy(), [2, 4, 6])
    err = capfd.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "running this graph on the numpy executor" in err[0]
    assert backend_of_last_program() == "numpy"


def test_a_gpu_without_a_gpu_is_a_clear_runtime_error():
    from mindjit.backend.iree import toolchain

    try:
        toolchain.device("cuda")
    except toolchain.GpuUnavailable:
        pass
    else:
        pytest.skip("this machine has a GPU")
    with pytest.raises(RuntimeError, match="needs a CUDA GPU"):
        ms.set_context(device_target="GPU")
    assert ms.get_context("device_target") == "CPU"  # nothing applied


def test_ms_run_backend_flag_and_unsupported_program(tmp_path):
    src = tmp_path / "f.mlir"
    src.write_text(
        "func.func @f(%x: tensor<3xf32>) -> tensor<3xf32> {\n"
        "  %y = mindir.tanh %x : tensor<3xf32>\n"
        "  func.return %y : tensor<3xf32>\n}\n"
    )
    bin_dir = Path(sys.executable).parent
    run = [str(bin_dir / "ms-run"), str(src), "--entry", "f", "--input", "tensor<3xf32>=[1,2,3]"]
    numpy_out = subprocess.run([*run, "--backend", "numpy"], capture_output=True, text=True)
    iree_out = subprocess.run([*run, "--backend", "iree"], capture_output=True, text=True)
    assert numpy_out.returncode == 0 and iree_out.returncode == 0, iree_out.stderr
    assert "0.7615942" in iree_out.stdout and "0.7615942" in numpy_out.stdout
    status = tmp_path / "s.mlir"
    status.write_text(
        "func.func private @alloc() -> tensor<8xf32> attributes "
        '{mindjit.runtime = "float_status_alloc"}\n'
        "func.func @f() -> tensor<8xf32> {\n"
        "  %s = func.call @alloc() : () -> tensor<8xf32>\n"
        "  func.return %s : tensor<8xf32>\n}\n"
    )
    bad = subprocess.run(
        [str(bin_dir / "ms-run"), str(status), "--entry", "f", "--backend", "iree"],
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 1
    assert "error: the iree backend cannot run this program" in bad.stderr
    assert "--backend numpy" in bad.stderr and "Traceback" not in bad.stderr


@pytest.mark.parametrize(
    "make, n_parts",
    [
        (lambda: L.GPT(4), 1),  # one Block graph, called 4 times
        (lambda: L.Nested(), 2),  # Outer and Inner, nested
        (lambda: L.AssignTwice(), 1),  # a reused graph that assigns its Parameter
        (lambda: L.PipelineCell(L.Block(L.Config(8), 0), 3), 1),  # one instance, 3 calls
    ],
)
def test_reused_lazy_inline_graphs_are_iree_modules_of_their_own(make, n_parts):
    """Each reused graph is compiled once as its own module (backend/iree/split_graphs.py);
    results and Parameters equal the numpy executor's."""
    ms.set_context(mode=ms.GRAPH_MODE)
    x = ms.Tensor(np.linspace(-1, 1, 8 if n_parts != 2 else 4).astype(np.float32))
    if isinstance(make(), L.AssignTwice):
        x = ms.Tensor(np.array([0.5, -1.0], np.float32))
    runs = {}
    for backend in ("numpy", "iree"):
        ms.set_context(jit_config={"backend": backend})
        net = make()
        outs = [net(x).asnumpy() for _ in range(2)]
        params = {p.name: p.asnumpy().copy() for p in net.get_parameters()}
        runs[backend] = (outs, params)
        assert backend_of_last_program() == backend
    prepared = api.cached_programs()[-1].executable.prepared
    assert len(prepared.parts) == n_parts
    for got, want in zip(runs["iree"][0], runs["numpy"][0], strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    for name, want in runs["numpy"][1].items():
        np.testing.assert_allclose(runs["iree"][1][name], want, rtol=1e-5, atol=1e-6)
