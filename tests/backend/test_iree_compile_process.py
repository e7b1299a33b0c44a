"""iree-compile in a child process (backend/iree/compile_process.py): a crash of
IREE's compiler is an `IreeCompileError` (the driver falls back to numpy on it), never a dead
process."""

from __future__ import annotations

import pytest

pytest.importorskip("iree.compiler")

from mindjit.backend.iree import toolchain  # noqa: E402
from mindjit.backend.iree.compile_process import CompileProcess  # noqa: E402

#: IREE 3.13 segfaults in ScfWhileOpConversion on this valid loop (its after region
#: has more arguments than its before region; fuzz seed 78, minimized)
CRASHES = """
func.func @main(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r:3 = scf.while (%x = %a, %y = %b) : (tensor<2x3xf32>, tensor<2x3xf32>)
      -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
    %s = arith.addf %x, %y : tensor<2x3xf32>
    %m = arith.mulf %x, %y : tensor<2x3xf32>
    %i0 = arith.constant 0 : index
    %z = tensor.extract %s[%i0, %i0] : tensor<2x3xf32>
    %six = arith.constant 6.0 : f32
    %t = arith.cmpf olt, %z, %six : f32
    scf.condition(%t) %s, %m, %y : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
  } do {
  ^bb0(%x1: tensor<2x3xf32>, %y1: tensor<2x3xf32>, %z1: tensor<2x3xf32>):
    scf.yield %x1, %z1 : tensor<2x3xf32>, tensor<2x3xf32>
  }
  func.return %r#1 : tensor<2x3xf32>
}
"""

DOUBLE = """
func.func @f(%a: tensor<3xf32>) -> tensor<3xf32> {
  %b = arith.addf %a, %a : tensor<3xf32>
  func.return %b : tensor<3xf32>
}
"""


def test_a_compiler_crash_is_an_error_and_the_next_compile_works():
    with pytest.raises(toolchain.IreeCompileError, match=r"iree-compile crashed \(killed by SIG"):
        toolchain.compile_vmfb(CRASHES, "llvm-cpu")
    assert toolchain.compile_vmfb(DOUBLE, "llvm-cpu")  # a new child compiles it


def test_the_child_is_kept_between_compiles_and_ends_with_close():
    compiler = CompileProcess()
    flags = toolchain.compile_flags("llvm-cpu")
    try:
        first, _ = compiler.compile(DOUBLE, flags)
        child = compiler._child
        second, _ = compiler.compile(DOUBLE + " ", flags)
        assert first and second and compiler._child is child
        rejected, diagnostics = compiler.compile("func.func @f( {", flags)
        assert rejected is None and "error:" in diagnostics
        assert compiler._child is child
    finally:
        compiler.close()
    assert child is not None and child.returncode == 0


def test_a_forked_process_compiles_with_its_own_child():
    import os

    assert toolchain.compile_vmfb(DOUBLE + "  ", "llvm-cpu")  # the parent's child exists
    parent_child = toolchain._compiler._child
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child reports through its exit status
        ok = False
        try:
            ok = bool(toolchain._compile(DOUBLE, "llvm-cpu"))
            ok = ok and toolchain._compiler._child is not parent_child
        finally:
            os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert toolchain._compiler._child is parent_child and parent_child.poll() is None
    assert toolchain.compile_vmfb(DOUBLE + "   ", "llvm-cpu")  # the parent's still answers
