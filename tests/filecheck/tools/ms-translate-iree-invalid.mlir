// RUN: rm -f %t.vmfb
// RUN: not ms-translate --target=iree %s -o %t.vmfb 2>&1 | filecheck %s
// RUN: not test -e %t.vmfb

// What the iree backend cannot run is a located error, exit 1, no file written
// (the frontend runs such a graph on the numpy executor instead, with this reason).

// CHECK: ms-translate-iree-invalid.mlir:[[# @LINE + 6]]:5: error: the iree backend cannot run this program: IREE's CPU code has no float64 'math.tanh' (it would need libm)
// CHECK-NOT: Traceback
func.func @f(%x: tensor<3xf64>) -> tensor<3xf64> {
  %e = tensor.empty() : tensor<3xf64>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<3xf64>) outs(%e : tensor<3xf64>) {
  ^bb0(%a: f64, %o: f64):
    %t = math.tanh %a : f64
    linalg.yield %t : f64
  } -> tensor<3xf64>
  func.return %r : tensor<3xf64>
}
