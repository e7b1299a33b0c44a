"""The CPU executor's code generator (backend/cpu/codegen_llvm.py) against the numpy
path: every body op it compiles, broadcasts and permuted maps, numpy-op stages, NaN/inf,
the inputs it leaves to numpy, the compile cache, threads, the switch and the fallback
line. Results are compared bit for bit: the generated code is IEEE-exact where it
computes and calls numpy's own functions where it does not."""

from __future__ import annotations

import json
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

import mindjit as ms
from mindjit import Tensor, nn
from mindjit.backend.cache.plan_codec import capture, declaring, rebuild
from mindjit.backend.cpu import CpuExecutable, codegen_llvm
from mindjit.dialects.parsing import parse_module
from mindjit.support import config

pytestmark = pytest.mark.skipif(not codegen_llvm.available(), reason="llvmlite not installed")

ROWS, COLS = 32, 48  # 1536 elements (the fixture below lets such small bodies compile)
ID2 = "affine_map<(d0, d1) -> (d0, d1)>"
NP_TYPES = {
    "f32": np.float32,
    "f64": np.float64,
    "i1": np.bool_,
    "i8": np.int8,
    "i32": np.int32,
    "i64": np.int64,
}


def generic(body: str, in_t: str, out_t: str, n_in: int = 2, maps: list[str] | None = None) -> str:
    """@f: a 32x48 elementwise generic of `n_in` inputs (%x, %y, %z) yielding %r."""
    names = ["%x", "%y", "%z"][:n_in]
    t_in = f"tensor<{ROWS}x{COLS}x{in_t}>"
    t_out = f"tensor<{ROWS}x{COLS}x{out_t}>"
    params = ", ".join(f"%a{k}: {t_in}" for k in range(n_in))
    maps = maps or [ID2] * (n_in + 1)
    return f"""
func.func @f({params}) -> {t_out} {{
  %e = tensor.empty() : {t_out}
  %r = linalg.generic {{indexing_maps = [{", ".join(maps)}], iterator_types = ["parallel", "parallel"]}}
      ins({", ".join(f"%a{k}" for k in range(n_in))} : {", ".join([t_in] * n_in)}) outs(%e : {t_out}) {{
  ^bb0({", ".join(f"{v}: {in_t}" for v in names)}, %o: {out_t}):
    {body}
    linalg.yield %r : {out_t}
  }} -> {t_out}
  func.return %r : {t_out}
}}
"""


MIN_WORK = codegen_llvm.MIN_WORK


@pytest.fixture(autouse=True)
def small_bodies_compile(monkeypatch):
    """Bodies of these sizes stay numpy calls by default (MIN_WORK); here they compile."""
    monkeypatch.setattr(codegen_llvm, "MIN_WORK", 1)


def generated(exe: CpuExecutable, *args: np.ndarray, name: str = "f") -> list:
    """The results once the loop nests are compiled: the first call starts their
    compile in the background (and runs the numpy path meanwhile)."""
    first = exe.run(name, *[np.copy(a) for a in args])
    codegen_llvm.wait_all()
    again = exe.run(name, *[np.copy(a) for a in args])
    for a, b in zip(first, again):
        np.testing.assert_array_equal(a, b)
    return list(again)


def both(text: str, *args: np.ndarray, name: str = "f") -> tuple[list, list, CpuExecutable]:
    """The results with the code generator and without it, and the generating executable."""
    on = CpuExecutable(parse_module(text), codegen=True)
    off = CpuExecutable(parse_module(text), codegen=False)
    assert off.codegen is None
    got = generated(on, *args, name=name)
    want = off.run(name, *[np.copy(a) for a in args])
    return got, list(want), on


def assert_same(text: str, *args: np.ndarray, generated: bool = True) -> None:
    with np.errstate(all="ignore"):
        got, want, on = both(text, *args)
    assert on.codegen is not None
    assert (on.codegen.planned > 0) == generated
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_array_equal(g, w)


def floats(dtype: type, seed: int, specials: bool = True) -> np.ndarray:
    rng = np.random.default_rng(seed)
    a = (rng.standard_normal((ROWS, COLS)) * 3).astype(dtype)
    if specials:
        flat = a.reshape(-1)
        flat[:6] = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0]
        flat[6:12] = flat[:6][::-1]
    return a


def ints(dtype: type, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if dtype == np.bool_:
        return rng.random((ROWS, COLS)) < 0.5
    info = np.iinfo(dtype)
    a = rng.integers(info.min, info.max, (ROWS, COLS), dtype=dtype, endpoint=True)
    a.reshape(-1)[:3] = [info.min, info.max, 0]
    return a


FLOAT_BINARY = [
    "arith.addf",
    "arith.subf",
    "arith.mulf",
    "arith.divf",
    "arith.maximumf",
    "arith.minimumf",
    "arith.maxnumf",
    "arith.minnumf",
]


@pytest.mark.parametrize("t", ["f32", "f64"])
@pytest.mark.parametrize("op", FLOAT_BINARY)
def test_float_binary_ops(op, t):
    # two ops: one alone is left to numpy (nothing to fuse)
    body = f"%t = {op} %x, %y : {t}\n    %r = {op} %t, %y : {t}"
    x, y = floats(NP_TYPES[t], 1), floats(NP_TYPES[t], 2)
    assert_same(generic(body, t, t), x, y)


@pytest.mark.parametrize("t", ["f32", "f64"])
@pytest.mark.parametrize(
    "op",
    [
        "arith.negf",
        "math.absf",
        "math.sqrt",
        "math.rsqrt",
        "math.floor",
        "math.ceil",
        "math.trunc",
        "math.roundeven",
    ],
)
def test_float_unary_ops(op, t):
    body = f"%t = {op} %x : {t}\n    %r = arith.addf %t, %y : {t}"
    assert_same(generic(body, t, t), floats(NP_TYPES[t], 3), floats(NP_TYPES[t], 4))


@pytest.mark.parametrize("op", ["math.exp", "math.log", "math.tanh", "math.erf", "math.log1p"])
def test_numpy_ops_between_loop_nests(op):
    """exp, log, tanh ... run as the numpy path's calls between two loop nests."""
    body = (
        f"%s = arith.mulf %x, %y : f32\n    %u = arith.subf %s, %x : f32\n"
        f"    %v = {op} %u : f32\n    %w = arith.mulf %v, %y : f32\n    %r = arith.addf %w, %x : f32"
    )
    assert_same(generic(body, "f32", "f32"), floats(np.float32, 5), floats(np.float32, 6))


def test_a_numpy_op_result_is_the_output():
    body = (
        "%s = arith.mulf %x, %y : f32\n    %u = arith.subf %s, %x : f32\n    %r = math.exp %u : f32"
    )
    assert_same(generic(body, "f32", "f32"), floats(np.float32, 7), floats(np.float32, 8))


@pytest.mark.parametrize("pred", codegen_llvm._CMPF)
def test_cmpf_predicates_and_select(pred):
    body = (
        f"%c = arith.cmpf {pred}, %x, %y : f32\n"
        f"    %s = arith.select %c, %x, %y : f32\n    %r = arith.addf %s, %x : f32"
    )
    x, y = floats(np.float32, 9), floats(np.float32, 10)
    y.reshape(-1)[20:40] = x.reshape(-1)[20:40]  # some equal pairs
    assert_same(generic(body, "f32", "f32"), x, y)


@pytest.mark.parametrize("t", ["i1", "i8", "i32", "i64"])
@pytest.mark.parametrize(
    "op",
    [
        "arith.addi",
        "arith.subi",
        "arith.muli",
        "arith.andi",
        "arith.ori",
        "arith.xori",
        "arith.maxsi",
        "arith.minsi",
        "arith.maxui",
        "arith.minui",
    ],
)
def test_integer_ops_wrap(op, t):
    body = f"%t = {op} %x, %y : {t}\n    %r = {op} %t, %x : {t}"
    assert_same(generic(body, t, t), ints(NP_TYPES[t], 11), ints(NP_TYPES[t], 12))


@pytest.mark.parametrize("t", ["i1", "i32", "i64"])
@pytest.mark.parametrize("pred", codegen_llvm._CMPI)
def test_cmpi_predicates(pred, t):
    body = f"%c = arith.cmpi {pred}, %x, %y : {t}\n    %d = arith.cmpi eq, %x, %x : {t}\n"
    body += "    %r = arith.andi %c, %d : i1"
    x, y = ints(NP_TYPES[t], 13), ints(NP_TYPES[t], 14)
    y.reshape(-1)[20:40] = x.reshape(-1)[20:40]
    assert_same(generic(body, t, "i1"), x, y)


@pytest.mark.parametrize(
    "cast, src, dst",
    [
        ("arith.extf", "f32", "f64"),
        ("arith.truncf", "f64", "f32"),
        ("arith.sitofp", "i32", "f32"),
        ("arith.sitofp", "i64", "f32"),
        ("arith.uitofp", "i1", "f32"),
        ("arith.uitofp", "i32", "f64"),
        ("arith.sitofp", "i1", "f32"),
        ("arith.extsi", "i1", "i32"),
        ("arith.extui", "i1", "i64"),
        ("arith.extsi", "i8", "i64"),
        ("arith.extui", "i8", "i32"),
        ("arith.trunci", "i64", "i8"),
        ("arith.trunci", "i32", "i1"),
        ("arith.bitcast", "f32", "i32"),
        ("arith.bitcast", "i64", "f64"),
    ],
)
def test_casts(cast, src, dst):
    body = f"%t = {cast} %x : {src} to {dst}\n    %u = {cast} %y : {src} to {dst}\n"
    if dst[0] == "f":
        body += f"    %r = arith.addf %t, %u : {dst}"
    else:
        body += f"    %r = arith.xori %t, %u : {dst}"
    make = floats if src[0] == "f" else ints
    x, y = make(NP_TYPES[src], 15), make(NP_TYPES[src], 16)
    assert_same(generic(body, src, dst), x, y)


def test_constants_fma_and_numpy_integer_division():
    """Constants of every kind in a body; divsi (numpy's, between loop nests) by zero."""
    body = (
        "%c = arith.constant 2.5 : f32\n    %k = arith.constant -3 : i32\n"
        "    %f = arith.sitofp %y : i32 to f32\n    %m = math.fma %x, %c, %f : f32\n"
        "    %q = arith.divsi %y, %k : i32\n    %z = arith.constant 0 : i32\n"
        "    %q0 = arith.divsi %y, %z : i32\n    %s = arith.addi %q, %q0 : i32\n"
        "    %g = arith.sitofp %s : i32 to f32\n    %r = arith.addf %m, %g : f32"
    )
    text = generic(body, "f32", "f32").replace("%y: f32", "%y: i32")
    text = text.replace(
        f"%a1: tensor<{ROWS}x{COLS}xf32>", f"%a1: tensor<{ROWS}x{COLS}xi32>"
    ).replace(
        f"tensor<{ROWS}x{COLS}xf32>, tensor<{ROWS}x{COLS}xf32>)",
        f"tensor<{ROWS}x{COLS}xf32>, tensor<{ROWS}x{COLS}xi32>)",
    )
    assert_same(text, floats(np.float32, 17), ints(np.int32, 18))


BCAST = "affine_map<(d0, d1) -> (d1)>"
TRANS = "affine_map<(d0, d1) -> (d1, d0)>"


def test_broadcast_and_permuted_maps():
    """A row vector broadcast (stride 0), an input read transposed, a transposed output."""
    text = f"""
func.func @f(%a: tensor<{ROWS}x{COLS}xf32>, %b: tensor<{COLS}xf32>, %c: tensor<{COLS}x{ROWS}xf32>) -> tensor<{COLS}x{ROWS}xf32> {{
  %e = tensor.empty() : tensor<{COLS}x{ROWS}xf32>
  %r = linalg.generic {{indexing_maps = [{ID2}, {BCAST}, {TRANS}, {TRANS}], iterator_types = ["parallel", "parallel"]}}
      ins(%a, %b, %c : tensor<{ROWS}x{COLS}xf32>, tensor<{COLS}xf32>, tensor<{COLS}x{ROWS}xf32>) outs(%e : tensor<{COLS}x{ROWS}xf32>) {{
  ^bb0(%x: f32, %y: f32, %z: f32, %o: f32):
    %t = arith.mulf %x, %y : f32
    %s = arith.subf %t, %z : f32
    linalg.yield %s : f32
  }} -> tensor<{COLS}x{ROWS}xf32>
  func.return %r : tensor<{COLS}x{ROWS}xf32>
}}
"""
    rng = np.random.default_rng(19)
    a = rng.standard_normal((ROWS, COLS)).astype(np.float32)
    b = rng.standard_normal(COLS).astype(np.float32)
    c = rng.standard_normal((COLS, ROWS)).astype(np.float32)
    assert_same(text, a, b, c)
    got = generated(CpuExecutable(parse_module(text), codegen=True), a, b, c)[0]
    np.testing.assert_array_equal(got, (a * b).T - c)


def test_a_constant_index_and_two_results():
    """A map with a constant result reads one fixed row; two outputs of one body."""
    t = f"tensor<{ROWS}x{COLS}xf32>"
    text = f"""
func.func @f(%a: {t}, %b: {t}) -> ({t}, {t}) {{
  %e = tensor.empty() : {t}
  %r:2 = linalg.generic {{indexing_maps = [{ID2}, affine_map<(d0, d1) -> (3, d1)>, {ID2}, {ID2}], iterator_types = ["parallel", "parallel"]}}
      ins(%a, %b : {t}, {t}) outs(%e, %e : {t}, {t}) {{
  ^bb0(%x: f32, %y: f32, %o: f32, %p: f32):
    %s = arith.addf %x, %y : f32
    %m = arith.mulf %s, %x : f32
    linalg.yield %s, %m : f32, f32
  }} -> ({t}, {t})
  func.return %r#0, %r#1 : {t}, {t}
}}
"""
    a, b = floats(np.float32, 20), floats(np.float32, 21)
    assert_same(text, a, b)
    with np.errstate(all="ignore"):
        got = generated(CpuExecutable(parse_module(text), codegen=True), a, b)
        np.testing.assert_array_equal(got[0], a + b[3])
        np.testing.assert_array_equal(got[1], (a + b[3]) * a)


def test_small_loops_and_single_ops_stay_numpy(monkeypatch):
    monkeypatch.setattr(codegen_llvm, "MIN_WORK", MIN_WORK)
    body = "%t = arith.mulf %x, %y : f32\n    %r = arith.addf %t, %y : f32"
    assert_same(
        generic(body, "f32", "f32"), floats(np.float32, 21), floats(np.float32, 22), generated=False
    )
    big = generic(body, "f32", "f32").replace(f"{ROWS}x{COLS}", "256x256")
    rng = np.random.default_rng(22)
    x, y = (rng.standard_normal((256, 256)).astype(np.float32) for _ in range(2))
    assert_same(big, x, y)
    single = generic("%r = arith.mulf %x, %y : f32", "f32", "f32")
    assert_same(single, floats(np.float32, 23), floats(np.float32, 24), generated=False)


def test_a_strided_input_runs_the_numpy_path():
    """The generated code has C-contiguous strides built in: a view runs numpy's kernel."""
    body = "%t = arith.mulf %x, %y : f32\n    %r = arith.addf %t, %y : f32"
    text = generic(body, "f32", "f32")
    big = floats(np.float32, 25, specials=False)
    x = np.concatenate([big, big], axis=1)[:, ::2]  # a strided view
    y = floats(np.float32, 26, specials=False)
    exe = CpuExecutable(parse_module(text), codegen=True)
    exe.run("f", y, y)  # C-contiguous inputs: compiled
    codegen_llvm.wait_all()
    got = exe.run("f", x, y)[0]
    np.testing.assert_array_equal(got, x * y + y)


def test_an_input_of_another_shape_runs_numpys_kernel():
    """The code indexes the planned extent: a C-contiguous array of the right dtype but
    another shape (which the static types rule out) is never handed to it, nor
    written in place (it would be read or written out of bounds)."""
    calls: list[str] = []

    def kernel(*arrays):
        calls.append("kernel")

    kernel.ready = lambda: True
    kernel.into = 0
    kernel.in_place = lambda *arrays: calls.append("in place")
    run = codegen_llvm.guarded(kernel, lambda *a: calls.append("numpy"), [np.float32], [(4, 8)])
    run(np.zeros((4, 8), np.float32))
    run(np.zeros((2, 8), np.float32), sole=True)
    run(np.zeros((4, 8), np.float64))
    assert calls == ["kernel", "numpy", "numpy"]


def test_a_strided_slice_is_copied_for_its_readers(monkeypatch):
    """A strided tensor.extract_slice (a pooling gradient's taps) is copied C-contiguous,
    so the generics reading it run the generated code, not numpy's (the reference path
    is never taken once the code is compiled)."""
    fallbacks: list[int] = []
    guarded = codegen_llvm.guarded

    def counting(kernel, reference, dtypes, shapes):
        def ref(*arrays):
            fallbacks.append(1)
            return reference(*arrays)

        return guarded(kernel, ref, dtypes, shapes)

    monkeypatch.setattr(codegen_llvm, "guarded", counting)
    t_in, t = f"tensor<{ROWS}x{2 * COLS}xf32>", f"tensor<{ROWS}x{COLS}xf32>"
    text = generic("%t = arith.mulf %x, %y : f32\n    %r = arith.addf %t, %x : f32", "f32", "f32")
    text = text.replace(f"func.func @f(%a0: {t}, %a1: {t})", f"func.func @f(%s: {t_in}, %a1: {t})")
    text = text.replace(
        f"  %e = tensor.empty() : {t}",
        f"  %a0 = tensor.extract_slice %s[0, 1] [{ROWS}, {COLS}] [1, 2] : {t_in} to {t}\n"
        f"  %e = tensor.empty() : {t}",
    )
    big = np.concatenate([floats(np.float32, 29, specials=False)] * 2, axis=1)
    y = floats(np.float32, 30, specials=False)
    got = generated(CpuExecutable(parse_module(text), codegen=True), big, y)[0]
    np.testing.assert_array_equal(got, big[:, 1::2] * y + big[:, 1::2])
    fallbacks.clear()
    CpuExecutable(parse_module(text), codegen=True).run("f", big, y)  # compiled: no fallback
    assert not fallbacks


def test_threads_share_the_first_compile():
    body = "%t = arith.mulf %x, %y : f32\n    %u = arith.subf %t, %x : f32\n"
    body += "    %r = arith.divf %u, %y : f32"
    body = body.replace("%r = arith.divf %u, %y", "%r = arith.divf %u, %x")  # in no other test
    text = generic(body, "f32", "f32")
    exe = CpuExecutable(parse_module(text), codegen=True)
    x, y = floats(np.float32, 27, specials=False), floats(np.float32, 28, specials=False)
    results: list[np.ndarray] = []
    errors: list[BaseException] = []

    def call() -> None:
        try:
            results.append(exe.run("f", x, y)[0])
        except BaseException as exc:  # reported below
            errors.append(exc)

    for _ in range(2):  # calls racing the background compile, then the compiled code
        threads = [threading.Thread(target=call) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        codegen_llvm.wait_all()
    assert not errors and len(results) == 8
    want = (x * y - x) / x
    for r in results:
        np.testing.assert_array_equal(r, want)


def test_a_rebuilt_plan_compiles_again():
    """The compile cache's warm path (plan_codec.rebuild) plans the same loop nests."""
    body = "%t = arith.mulf %x, %y : f32\n    %u = math.tanh %t : f32\n"
    body += "    %r = arith.addf %u, %x : f32"
    module = parse_module(generic(body, "f32", "f32"))
    cold = CpuExecutable(module, codegen=True)
    captured = capture(cold)
    assert captured is not None
    warm = CpuExecutable(declaring(module, captured.names), codegen=True)
    data = json.loads(json.dumps(captured.data))
    assert rebuild(data, captured.blob, captured.kernels, warm, lambda: module) == captured.names
    x, y = floats(np.float32, 29), floats(np.float32, 30)
    with np.errstate(all="ignore"):
        a, b = generated(cold, x, y)[0], generated(warm, x, y)[0]
    np.testing.assert_array_equal(a, b)
    assert warm.codegen is not None and warm.codegen.planned > 0


def test_the_switch(monkeypatch):
    text = generic("%t = arith.mulf %x, %y : f32\n    %r = arith.addf %t, %y : f32", "f32", "f32")
    monkeypatch.setenv(config.CPU_CODEGEN_ENV, "0")
    assert CpuExecutable(parse_module(text)).codegen is None
    monkeypatch.setenv(config.CPU_CODEGEN_ENV, "1")
    assert CpuExecutable(parse_module(text)).codegen is not None
    config.set_cpu_codegen(False)
    try:
        assert CpuExecutable(parse_module(text)).codegen is None
    finally:
        config.set_cpu_codegen(None)
    monkeypatch.setenv(config.CPU_CODEGEN_ENV, "fast")
    with pytest.raises(config.ConfigError, match="MINDJIT_CPU_CODEGEN must be 0 or 1"):
        config.cpu_codegen()
    with pytest.raises(config.ConfigError, match="set_cpu_codegen"):
        config.set_cpu_codegen("yes")  # type: ignore[arg-type]


def test_without_llvmlite_one_line_then_numpy(monkeypatch, capsys):
    monkeypatch.setattr(codegen_llvm, "_llvm", None)
    monkeypatch.setattr(codegen_llvm, "_SAID_MISSING", [])
    body = "%t = arith.mulf %x, %y : f32\n    %r = arith.addf %t, %y : f32"
    text = generic(body, "f32", "f32")
    x, y = floats(np.float32, 31, specials=False), floats(np.float32, 32, specials=False)
    first = CpuExecutable(parse_module(text), codegen=True)
    second = CpuExecutable(parse_module(text), codegen=True)
    assert first.codegen is None and second.codegen is None
    np.testing.assert_array_equal(generated(first, x, y)[0], x * y + y)
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "llvmlite is not installed" in err


EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _train_losses(make, steps: int) -> list[float]:
    ms.set_context(mode=ms.GRAPH_MODE)
    run = make()
    losses = [float(run().asnumpy())]
    codegen_llvm.wait_all()  # the later steps run the compiled loop nests
    return losses + [float(run().asnumpy()) for _ in range(steps - 1)]


@pytest.mark.parametrize("model", ["gpt", "lenet5"])
def test_models_train_the_same_with_and_without_codegen(model, monkeypatch):
    runs = []
    for method in ("__call__", "in_place"):
        real = getattr(codegen_llvm.FusedKernel, method)

        def counted(self, *arrays, real=real):
            runs.append(self)
            return real(self, *arrays)

        monkeypatch.setattr(codegen_llvm.FusedKernel, method, counted)
    sys.path.insert(0, str(EXAMPLES))
    sys.path.insert(0, str(EXAMPLES / "models"))

    def gpt_step():
        import gpt  # examples/gpt.py (on the path above)

        ms.set_seed(0)
        net = gpt.GPT(gpt.GPTConfig(1, hidden=64, seq=32, batch=2), lazy=False)
        opt = nn.SGD(net.trainable_params(), learning_rate=0.1)
        loss_fn = nn.MSELoss()
        grad_fn = ms.value_and_grad(lambda x, y: loss_fn(net(x), y), None, opt.parameters)

        @ms.jit
        def step(x, y):
            loss, grads = grad_fn(x, y)
            opt(grads)
            return loss

        rng = np.random.default_rng(0)
        x = Tensor(rng.standard_normal((2, 32, 64)).astype(np.float32))
        y = Tensor(rng.standard_normal((2, 32, 64)).astype(np.float32))
        return lambda: step(x, y)

    def lenet_step():
        import zoo  # examples/models/zoo.py (on the path above)

        m = zoo.get("lenet5")
        ms.set_seed(0)
        step = m.train_step(m.build(), graph=True)
        batch = m.batch(8)
        return lambda: step(*batch)

    make = gpt_step if model == "gpt" else lenet_step
    saved = ms.get_context("mode")
    try:
        config.set_cpu_codegen(False)
        off = _train_losses(make, 3)
        config.set_cpu_codegen(True)
        before = codegen_llvm.compile_stats()["planned"]
        on = _train_losses(make, 3)
        planned = codegen_llvm.compile_stats()["planned"] - before
    finally:
        config.set_cpu_codegen(None)
        ms.set_context(mode=saved)
    np.testing.assert_allclose(on, off, rtol=1e-5)
    assert on == off  # the numpy path's functions where LLVM does not compute: bit-equal
    assert planned > 0 and runs


CHAIN = f"""
func.func @f(%a0: tensor<{ROWS}x{COLS}xf32>, %a1: tensor<{ROWS}x{COLS}xf32>) -> RESULT_TYPES {{
  %e = tensor.empty() : tensor<{ROWS}x{COLS}xf32>
  %t = linalg.generic {{indexing_maps = [{ID2}, {ID2}, {ID2}], iterator_types = ["parallel", "parallel"]}}
      ins(%a0, %a1 : tensor<{ROWS}x{COLS}xf32>, tensor<{ROWS}x{COLS}xf32>) outs(%e : tensor<{ROWS}x{COLS}xf32>) {{
  ^bb0(%x: f32, %y: f32, %o: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %m, %y : f32
    linalg.yield %s : f32
  }} -> tensor<{ROWS}x{COLS}xf32>
  %u = linalg.generic {{indexing_maps = [{ID2}, {ID2}, {ID2}], iterator_types = ["parallel", "parallel"]}}
      ins(%t, %a0 : tensor<{ROWS}x{COLS}xf32>, tensor<{ROWS}x{COLS}xf32>) outs(%e : tensor<{ROWS}x{COLS}xf32>) {{
  ^bb0(%x: f32, %y: f32, %o: f32):
    %m = arith.mulf %x, %x : f32
    %s = arith.subf %m, %y : f32
    linalg.yield %s : f32
  }} -> tensor<{ROWS}x{COLS}xf32>
  func.return RESULTS
}}
"""


@pytest.mark.parametrize("keep", [False, True])
def test_in_place_only_into_a_dying_buffer(monkeypatch, keep):
    """The second generic writes into the first one's buffer when nothing reads it
    later (its slot dies there), never into an argument or a value still returned."""
    calls = []
    real = codegen_llvm.FusedKernel.in_place

    def counted(self, *arrays):
        calls.append(self)
        return real(self, *arrays)

    monkeypatch.setattr(codegen_llvm.FusedKernel, "in_place", counted)
    t = f"tensor<{ROWS}x{COLS}xf32>"
    text = CHAIN.replace("RESULT_TYPES", f"({t}, {t})" if keep else t)
    text = text.replace("RESULTS", f"%t, %u : {t}, {t}" if keep else f"%u : {t}")
    x, y = floats(np.float32, 33), floats(np.float32, 34)
    x0, y0 = x.copy(), y.copy()
    with np.errstate(all="ignore"):
        got, want, on = both(text, x, y)
        got2 = on.run("f", x, y)  # the arguments themselves: never written
    np.testing.assert_array_equal(x, x0)
    np.testing.assert_array_equal(y, y0)
    for g, w in zip([*got, *got2], [*want, *want]):
        np.testing.assert_array_equal(g, w)
    assert bool(calls) == (not keep)
