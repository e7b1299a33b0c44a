// RUN: ms-opt %s -p ascend-select-kernels --split-input-file --verify-diagnostics
// RUN: not ms-opt %s -p ascend-select-kernels 2>&1 | filecheck %s

// An op the Ascend-like device has no kernel for is an error located at the op
// (file:line:col), and nothing is printed.

// CHECK-NOT:   builtin.module
// CHECK:       ascend-select-kernels-invalid.mlir:[[# @LINE + 5]]:3: error: the Ascend-like device has no kernel for 'linalg.conv_2d_nhwc_hwcf' (kernel selection supports the tensor-level ops convert-mindir-to-tensor produces)
// CHECK-NOT:   builtin.module
func.func @conv(%x: tensor<1x4x4x1xf32>, %w: tensor<2x2x1x1xf32>) -> tensor<1x3x3x1xf32> {
  %e = tensor.empty() : tensor<1x3x3x1xf32>
  // expected-error @+1 {{the Ascend-like device has no kernel for 'linalg.conv_2d_nhwc_hwcf'}}
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x4x4x1xf32>, tensor<2x2x1x1xf32>) outs(%e : tensor<1x3x3x1xf32>) -> tensor<1x3x3x1xf32>
  func.return %r : tensor<1x3x3x1xf32>
}

// -----

// A call of a runtime declaration whose kind has no kernel.
func.func private @__mindjit_teleport(tensor<2xf32>) -> () attributes {mindjit.runtime = "teleport"}
func.func @runtime(%x: tensor<2xf32>) {
  // expected-error @+1 {{the Ascend-like device has no kernel for runtime 'teleport'}}
  func.call @__mindjit_teleport(%x) : (tensor<2xf32>) -> ()
  func.return
}

// -----

// An op from another dialect ms-opt parses: no kernel either.
func.func @clamp(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{the Ascend-like device has no kernel for 'tosa.clamp'}}
  %r = tosa.clamp %x {min_val = 0.0 : f32, max_val = 6.0 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}
