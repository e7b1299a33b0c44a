// RUN: rm -f %t.msmodel
// RUN: not ms-translate --target=ascend-sim %s -o %t.msmodel 2>&1 | filecheck %s
// RUN: not test -e %t.msmodel

// ms-translate reports what the device cannot run as `file:line:col: error:`,
// exits non-zero and writes no model file.

// CHECK: ms-translate-invalid.mlir:[[# @LINE + 5]]:3: error: the Ascend-like device has no kernel for 'linalg.pooling_nchw_max'
// CHECK-NOT: error
func.func @pool(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32> {
  %k = tensor.empty() : tensor<2x2xf32>
  %e = tensor.empty() : tensor<1x1x2x2xf32>
  %r = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %k : tensor<1x1x4x4xf32>, tensor<2x2xf32>) outs(%e : tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
  func.return %r : tensor<1x1x2x2xf32>
}
