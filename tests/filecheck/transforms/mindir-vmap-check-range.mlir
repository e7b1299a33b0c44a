// RUN: ms-opt %s -p mindir-vmap --split-input-file | filecheck %s

// mindir.check_range is elementwise identity: batched, it checks the whole batch
// (same bounds, same message); shared, it is copied as it is.

// CHECK-LABEL: func.func @batched_check
// CHECK-NEXT:    %y = mindir.check_range %a {min = 0.000000e+00 : f64, max = 1.000000e+00 : f64, message = "m"} : tensor<5x3xf32>
// CHECK-NEXT:    %l = mindir.log %y : tensor<5x3xf32>
// CHECK-NEXT:    %r = mindir.transpose %l {perm = array<i64: 1, 0>} : (tensor<5x3xf32>) -> tensor<3x5xf32>
// CHECK-NEXT:    func.return %r : tensor<3x5xf32>
func.func @batched_check(%a: tensor<5x3xf32>) -> tensor<3x5xf32> {
  %r = mindir.vmap (%x = %a) in_axes [0] out_axes [1] : (tensor<5x3xf32>) -> tensor<3x5xf32> {
    %y = mindir.check_range %x {min = 0.0 : f64, max = 1.0 : f64, message = "m"} : tensor<3xf32>
    %l = mindir.log %y : tensor<3xf32>
    mindir.yield %l : tensor<3xf32>
  }
  func.return %r : tensor<3x5xf32>
}

// -----

// A check of a shared value stays unbatched (once), its user is batched.

// CHECK-LABEL: func.func @shared_check
// CHECK-NEXT:    %c = mindir.check_range %b {min = -1.000000e+00 : f64, max = 1.000000e+00 : f64, message = "w"} : tensor<3xf32>
// CHECK-NEXT:    %y = mindir.mul %a, %c : (tensor<5x3xf32>, tensor<3xf32>) -> tensor<5x3xf32>
// CHECK-NEXT:    func.return %y : tensor<5x3xf32>
func.func @shared_check(%a: tensor<5x3xf32>, %b: tensor<3xf32>) -> tensor<5x3xf32> {
  %r = mindir.vmap (%x = %a, %w = %b) in_axes [0, none] out_axes [0] : (tensor<5x3xf32>, tensor<3xf32>) -> tensor<5x3xf32> {
    %c = mindir.check_range %w {min = -1.0 : f64, max = 1.0 : f64, message = "w"} : tensor<3xf32>
    %y = mindir.mul %x, %c : tensor<3xf32>
    mindir.yield %y : tensor<3xf32>
  }
  func.return %r : tensor<5x3xf32>
}
