"""The IREE backend (backend/iree) against the numpy executor, on tensor-level modules.

Parameters made arguments and results (state threaded through scf.if, scf.while
and calls), zero-copy Parameter buffers in both directions, prints, failed
checks, what falls back to numpy and the errors users see.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("iree.runtime")

from mindjit.backend.cpu import CpuExecutable, RuntimeCheckError  # noqa: E402
from mindjit.backend.cpu.errors import ExecutionError  # noqa: E402
from mindjit.backend.iree import toolchain  # noqa: E402
from mindjit.backend.iree.executable import IreeExecutable  # noqa: E402
from mindjit.backend.iree.prepare import IreeUnsupported, prepare  # noqa: E402
from mindjit.dialects.parsing import parse_module  # noqa: E402
from mindjit.driver.compile import iree_or_fallback  # noqa: E402
from mindjit.passes.pipelines import lower_to_tensor  # noqa: E402

RNG = np.random.default_rng(11)

# a counter updated in a loop, a bias updated under a condition, through a call
STATE = """
ml_program.global private mutable @count(dense<0.0> : tensor<f32>) : tensor<f32>
ml_program.global private mutable @bias(dense<[1.0, 2.0, 3.0]> : tensor<3xf32>) : tensor<3xf32>
ml_program.global private mutable @scale(dense<2.0> : tensor<3xf32>) : tensor<3xf32>
func.func private @bump(%x: tensor<3xf32>) -> tensor<3xf32> {
  %b = ml_program.global_load @bias : tensor<3xf32>
  %e = tensor.empty() : tensor<3xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x, %b : tensor<3xf32>, tensor<3xf32>) outs(%e : tensor<3xf32>) {
  ^bb0(%pa: f32, %qa: f32, %oa: f32):
    %ra = arith.addf %pa, %qa : f32
    linalg.yield %ra : f32
  } -> tensor<3xf32>
  ml_program.global_store @bias = %s : tensor<3xf32>
  func.return %s : tensor<3xf32>
}
func.func @f(%x: tensor<3xf32>, %p: tensor<i1>, %n: tensor<i32>, %w: tensor<3xf32> {mindjit.global = @scale})
    -> (tensor<3xf32>, tensor<f32>) {
  %one = arith.constant dense<1.0> : tensor<f32>
  %c = tensor.extract %p[] : tensor<i1>
  %y = scf.if %c -> (tensor<3xf32>) {
    %r = func.call @bump(%x) : (tensor<3xf32>) -> tensor<3xf32>
    scf.yield %r : tensor<3xf32>
  } else {
    scf.yield %x : tensor<3xf32>
  }
  %limit = tensor.extract %n[] : tensor<i32>
  %z = arith.constant 0 : i32
  %i1 = arith.constant 1 : i32
  %k = scf.while (%i = %z) : (i32) -> i32 {
    %go = arith.cmpi slt, %i, %limit : i32
    scf.condition(%go) %i : i32
  } do {
  ^bb0(%j: i32):
    %c0 = ml_program.global_load @count : tensor<f32>
    %e = tensor.empty() : tensor<f32>
    %c1 = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []} ins(%c0, %one : tensor<f32>, tensor<f32>) outs(%e : tensor<f32>) {
  ^bb0(%pa: f32, %qa: f32, %oa: f32):
    %ra = arith.addf %pa, %qa : f32
    linalg.yield %ra : f32
  } -> tensor<f32>
    ml_program.global_store @count = %c1 : tensor<f32>
    %next = arith.addi %j, %i1 : i32
    scf.yield %next : i32
  }
  %e3 = tensor.empty() : tensor<3xf32>
  %out = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%y, %w : tensor<3xf32>, tensor<3xf32>) outs(%e3 : tensor<3xf32>) {
  ^bb0(%pa: f32, %qa: f32, %oa: f32):
    %ra = arith.mulf %pa, %qa : f32
    linalg.yield %ra : f32
  } -> tensor<3xf32>
  %cnt = ml_program.global_load @count : tensor<f32>
  func.return %out, %cnt : tensor<3xf32>, tensor<f32>
}
"""


def both(text: str) -> tuple[CpuExecutable, IreeExecutable]:
    module = parse_module(text)
    return CpuExecutable(module), IreeExecutable(module, driver="local-sync")


def test_state_becomes_arguments_and_results():
    prepared = prepare(parse_module(STATE))
    info = prepared.entries["f"]
    assert info.state == ("bias", "count", "scale") and info.written == ("bias", "count")
    assert len(info.inputs) == 3  # the bound @scale argument is not the caller's
    assert "ml_program" not in prepared.text  # no global is left for IREE to copy into
    # the callee takes @bias and gives back its final value
    assert re.search(
        r"func.func private @bump\(%\w+: tensor<3xf32>, %\w+: tensor<3xf32>\) -> "
        r"\(tensor<3xf32>, tensor<3xf32>\)",
        prepared.text,
    )


@pytest.mark.parametrize("flag, n", [(True, 3), (False, 0), (True, 1)])
def test_state_matches_the_numpy_executor_over_calls(flag, n):
    cpu, iree = both(STATE)
    x = RNG.standard_normal(3).astype(np.float32)
    for _ in range(3):
        args = (x, np.array(flag), np.array(n, np.int32))
        for got, want in zip(iree.run("f", *args), cpu.run("f", *args), strict=True):
            np.testing.assert_allclose(got, want, rtol=1e-6)
        for g in ("bias", "count", "scale"):
            np.testing.assert_allclose(iree.get_global(g), cpu.get_global(g), rtol=1e-6)


def test_parameters_live_in_iree_buffers_python_writes_in_place():
    _, exe = both(STATE)
    scale = np.full(3, 2.0, np.float32)
    exe.set_global("scale", scale)
    held = exe.get_global("scale")  # the IREE buffer holding a copy, mapped
    assert held is not scale and not np.shares_memory(held, scale)
    exe.set_global("scale", held)  # what the frontend does next: nothing is copied
    assert exe.get_global("scale") is held
    args = (np.ones(3, np.float32), np.array(True), np.array(1, np.int32))
    exe.run("f", *args)
    bias = exe.get_global("bias")
    np.testing.assert_array_equal(bias, [2, 3, 4])
    assert exe.get_global("scale") is held  # read, never written: the same buffer
    held[:] = 10.0  # in place, from Python: the next call reads it
    bias[:] = 0.0  # in place into the buffer the last call returned
    (out, _) = exe.run("f", *args)
    np.testing.assert_array_equal(out, [10, 10, 10])  # (1 + 0) * 10
    np.testing.assert_array_equal(exe.get_global("bias"), [1, 1, 1])


RETURN_GLOBAL = """
ml_program.global private mutable @w(dense<[1.0, 2.0]> : tensor<2xf32>) : tensor<2xf32>
func.func @f() -> tensor<2xf32> {
  %w = ml_program.global_load @w : tensor<2xf32>
  func.return %w : tensor<2xf32>
}
"""


def test_a_returned_parameter_value_is_a_copy():
    _, exe = both(RETURN_GLOBAL)
    exe.set_global("w", np.array([1.0, 2.0], np.float32))
    w = exe.get_global("w")
    (out,) = exe.run("f")
    assert not np.shares_memory(out, w)
    out[:] = 0
    np.testing.assert_array_equal(w, [1, 2])


PRINT_AND_CHECK = """
func.func private @__mindjit_print_0(tensor<2xf32>, tensor<i64>) -> () attributes {mindjit.runtime = "print"}
func.func @f(%x: tensor<2xf32>, %n: tensor<i64>) -> tensor<2xf32> {
  func.call @__mindjit_print_0(%x, %n) {mindjit.print_format = ["x:", 0, "n:", 1]} : (tensor<2xf32>, tensor<i64>) -> ()
  %v = tensor.extract %n[] : tensor<i64>
  %z = arith.constant 0 : i64
  %ok = arith.cmpi sge, %v, %z : i64
  cf.assert %ok, "n must be non-negative" loc("net.py":7:3)
  func.return %x : tensor<2xf32>
}
"""


def test_prints_reach_the_print_hook():
    _, exe = both(PRINT_AND_CHECK)
    seen = []
    exe.print_hook = seen.append
    x = np.array([1.5, -2.0], np.float32)
    exe.run("f", x, np.array(4, np.int64))
    (items,) = seen
    assert items[0] == "x:" and items[2] == "n:"
    np.testing.assert_array_equal(items[1], x)
    assert items[3] == 4 and items[3].dtype == np.int64


def test_a_failed_check_is_the_programs_runtime_check_error():
    _, exe = both(PRINT_AND_CHECK)
    exe.print_hook = lambda items: None
    with pytest.raises(RuntimeCheckError, match="n must be non-negative") as info:
        exe.run("f", np.zeros(2, np.float32), np.array(-1, np.int64))
    assert isinstance(info.value, RuntimeError)
    assert "net.py:7:3" in str(info.value)


FLOAT_STATUS = """
func.func private @alloc() -> tensor<8xf32> attributes {mindjit.runtime = "float_status_alloc"}
func.func @f(%x: tensor<2xf32>) -> tensor<8xf32> {
  %s = func.call @alloc() : () -> tensor<8xf32>
  func.return %s : tensor<8xf32>
}
"""


def test_float_status_falls_back_to_numpy_with_one_line(capsys):
    module = parse_module(FLOAT_STATUS)
    with pytest.raises(IreeUnsupported, match="float-status"):
        IreeExecutable(module)
    exe = iree_or_fallback(module, "CPU")
    assert isinstance(exe, CpuExecutable)
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "numpy executor" in err[0] and "float-status" in err[0]


def test_scalars_in_and_out():
    text = """
    func.func @f(%a: i64, %b: f32, %x: tensor<2xf32>) -> (f32, tensor<2xf32>) {
      %c = arith.sitofp %a : i64 to f32
      %d = arith.mulf %c, %b : f32
      %e = tensor.empty() : tensor<2xf32>
      %y = linalg.fill ins(%d : f32) outs(%e : tensor<2xf32>) -> tensor<2xf32>
      func.return %d, %y : f32, tensor<2xf32>
    }
    """
    cpu, iree = both(text)
    args = (3, 0.5, np.zeros(2, np.float32))
    for got, want in zip(iree.run("f", *args), cpu.run("f", *args), strict=True):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


def test_lowered_mindir_with_a_kept_call_matches():
    text = """
    func.func private @layer(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> attributes {mindir.lazy_inline = "L"} {
      %m = mindir.matmul %x, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
      %t = mindir.tanh %m : tensor<4x8xf32>
      func.return %t : tensor<4x8xf32>
    }
    func.func @f(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
      %a = func.call @layer(%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
      %b = func.call @layer(%a, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
      func.return %b : tensor<4x8xf32>
    }
    """
    module = lower_to_tensor(parse_module(text))
    cpu, iree = CpuExecutable(module), IreeExecutable(module, driver="local-sync")
    args = (
        RNG.standard_normal((4, 8)).astype(np.float32),
        RNG.standard_normal((8, 8)).astype(np.float32),
    )
    np.testing.assert_allclose(
        iree.run("f", *args)[0], cpu.run("f", *args)[0], rtol=1e-5, atol=1e-6
    )


def test_bad_inputs_and_names_are_located_errors():
    _, exe = both(STATE)
    with pytest.raises(ExecutionError, match="input 0 of @f: expected tensor<3xf32>"):
        exe.run("f", np.zeros(4, np.float32), np.array(True), np.array(1, np.int32))
    with pytest.raises(ExecutionError, match="expects 3 inputs, got 1"):
        exe.run("f", np.zeros(3, np.float32))
    with pytest.raises(ExecutionError, match="no function @g in the module; available: @f"):
        exe.run("g")
    with pytest.raises(ExecutionError, match="global @bias is tensor<3xf32>"):
        exe.set_global("bias", np.zeros(2, np.float32))


def test_iree_compile_errors_give_ireess_first_error():
    with pytest.raises(toolchain.IreeCompileError, match="IREE cannot compile this program: .+"):
        toolchain.compile_vmfb("func.func @f( {", "llvm-cpu")


def test_missing_iree_is_a_clear_error(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "iree.runtime", None)
    with pytest.raises(toolchain.IreeMissing, match="iree-base-runtime"):
        toolchain.runtime()
    monkeypatch.setitem(sys.modules, "iree.compiler.api", None)
    with pytest.raises(toolchain.IreeMissing, match="choose backend='numpy'"):
        toolchain.compile_vmfb("", "llvm-cpu")


def test_vmfb_is_reused_without_compiling(monkeypatch):
    module = parse_module(STATE)
    first = IreeExecutable(module, driver="local-sync")
    monkeypatch.setattr(toolchain, "_compile", lambda *a: pytest.fail("compiled again"))
    again = IreeExecutable(module, driver="local-sync", vmfbs=first.vmfbs)
    args = (np.ones(3, np.float32), np.array(True), np.array(2, np.int32))
    for a, b in zip(first.run("f", *args), again.run("f", *args), strict=True):
        np.testing.assert_array_equal(a, b)


def test_the_target_fingerprint_names_iree_and_the_cpu():
    fp = toolchain.target_fingerprint("llvm-cpu")
    assert fp.startswith("iree-") and "llvm-cpu" in fp


def test_the_gpu_target_compiles_and_needs_a_gpu_to_run():
    module = parse_module(RETURN_GLOBAL)
    prepared = prepare(module)
    assert toolchain.compile_vmfb(prepared.text, "cuda")  # IREE's CUDA target, no GPU needed
    try:
        toolchain.device("cuda")
    except toolchain.GpuUnavailable:
        with pytest.raises(toolchain.GpuUnavailable, match="needs a CUDA GPU and its driver"):
            IreeExecutable(module, target="cuda", driver="cuda")
    else:
        exe = IreeExecutable(module, target="cuda", driver="cuda")
        np.testing.assert_array_equal(exe.run("f")[0], [1, 2])


def test_a_module_iree_rejects_falls_back_with_its_first_error(monkeypatch, capsys):
    def rejected(text, target):
        raise toolchain.IreeCompileError("IREE cannot compile this program: some op is unknown")

    monkeypatch.setattr(toolchain, "compile_vmfb", rejected)
    exe = iree_or_fallback(parse_module(RETURN_GLOBAL), "CPU")
    assert isinstance(exe, CpuExecutable)
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "numpy executor" in line and "some op is unknown" in line


def test_unloadable_compiled_modules_are_execution_errors():
    module = parse_module(RETURN_GLOBAL)
    with pytest.raises(ExecutionError, match="IREE cannot load the compiled module"):
        IreeExecutable(module, vmfbs=[b"not a vmfb"])
    with pytest.raises(ExecutionError, match="no compiled modules were given"):
        IreeExecutable(module, vmfbs=[])


def test_ms_translate_writes_a_vmfb_and_refuses_split_programs(tmp_path, tool):
    src = tmp_path / "f.mlir"
    src.write_text(RETURN_GLOBAL)
    done = tool("ms-translate", "--target=iree", str(src), "-o", str(tmp_path / "f.vmfb"))
    assert done.returncode == 0, done.stderr
    rt = toolchain.runtime()  # the file is a module IREE's runtime loads, exporting @f
    config = toolchain.device("local-sync")
    vm = rt.VmModule.copy_buffer(config.vm_instance, (tmp_path / "f.vmfb").read_bytes())
    assert vm.lookup_function("f") is not None
    split = tmp_path / "split.mlir"
    split.write_text(
        (
            Path(__file__).parents[1] / "filecheck" / "tools" / "ms-translate-iree-split.mlir"
        ).read_text()
    )
    refused = tool("ms-translate", "--target=iree", str(split), "-o", str(tmp_path / "s.vmfb"))
    assert refused.returncode == 1 and "use --target=iree-input" in refused.stderr
    assert not (tmp_path / "s.vmfb").exists()
