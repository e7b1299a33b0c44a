// RUN: rm -f %t.vmfb
// RUN: not ms-translate --target=iree %s -o %t.vmfb 2>&1 | filecheck %s
// RUN: not test -e %t.vmfb

// A pipeline send inside a region op: the iree backend chains a stage's sends and
// receives by an order token through its function's body only
// (backend/iree/channels.py), so it says why it cannot run the program (the
// frontend runs such a graph on the numpy executor instead, with this reason).
// mindir-pipeline-split never makes one: its sends are ops of the stage body.

// CHECK: ms-translate-iree-channels-invalid.mlir:[[# @LINE + 6]]:5: error: the iree backend cannot run this program: a pipeline send/receive inside 'scf.if' (the iree backend orders a stage's channels in its function's body only)
// CHECK-NOT: Traceback
ml_program.global private mutable @__mindjit_channel_1(dense<0.0> : tensor<3xf32>) : tensor<3xf32>
func.func @g_stage0(%x: tensor<3xf32>, %p: tensor<i1>) {
  %c = tensor.extract %p[] : tensor<i1>
  scf.if %c {
    ml_program.global_store @__mindjit_channel_1 = %x : tensor<3xf32>
  }
  func.return
}
