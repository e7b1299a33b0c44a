// RUN: rm -f %t.msmodel
// RUN: not ms-translate --target=ascend-sim %s -o %t.msmodel 2>&1 | filecheck %s
// RUN: not test -e %t.msmodel

// ms-translate reports what the device cannot run as `file:line:col: error:`,
// exits non-zero and writes no model file.

// CHECK: ms-translate-invalid.mlir:[[# @LINE + 4]]:3: error: the Ascend-like device has no kernel for 'linalg.conv_2d_nhwc_hwcf'
// CHECK-NOT: error
func.func @conv(%x: tensor<1x4x4x1xf32>, %w: tensor<2x2x1x1xf32>) -> tensor<1x3x3x1xf32> {
  %e = tensor.empty() : tensor<1x3x3x1xf32>
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x4x4x1xf32>, tensor<2x2x1x1xf32>) outs(%e : tensor<1x3x3x1xf32>) -> tensor<1x3x3x1xf32>
  func.return %r : tensor<1x3x3x1xf32>
}
