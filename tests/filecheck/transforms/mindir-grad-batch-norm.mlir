// RUN: ms-opt %s -p mindir-grad --split-input-file | filecheck %s

// A training-mode batch norm's adjoint is one batch_norm_grad (MindSpore's
// BatchNormGrad) on the forward's own statistics: d x, d gamma, d beta.

// CHECK-LABEL: func.func @bn
// CHECK:         %y, %m, %v = mindir.batch_norm %a, %g, %b {epsilon = 1.000000e-05 : f64}
// CHECK:         %[[DY:.*]] = mindir.broadcast_to
// CHECK-NEXT:    %r, %r_1, %r_2 = mindir.batch_norm_grad %[[DY]], %a, %m, %v, %g {epsilon = 1.000000e-05 : f64}
// CHECK-NEXT:    func.return %r, %r_1, %r_2
func.func @bn(%a: tensor<2x3x4xf32>, %g: tensor<3xf32>, %b: tensor<3xf32>) -> (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>) {
  %r:3 = mindir.grad (%x = %a, %gamma = %g, %beta = %b) wrt [0, 1, 2] weights [] : (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>) {
    %y, %m, %v = mindir.batch_norm %x, %gamma, %beta {epsilon = 1.0e-05 : f64} : (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>)
    %s = mindir.reduce_sum %y : (tensor<2x3x4xf32>) -> tensor<f32>
    mindir.yield %s : tensor<f32>
  }
  func.return %r#0, %r#1, %r#2 : tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>
}

// -----

// Only the batch mean is used: no batch_norm_grad; d x is d mean / n spread
// over each channel (n = 8 elements per channel).

// CHECK-LABEL: func.func @mean_only
// CHECK-NOT:     mindir.batch_norm_grad
// CHECK:         %[[N:.*]] = mindir.constant dense<8.000000e+00> : tensor<f32>
// CHECK:         %[[S:.*]] = mindir.reshape %{{.*}} : (tensor<3xf32>) -> tensor<1x3x1xf32>
// CHECK-NEXT:    %[[D:.*]] = mindir.div %[[S]], %[[N]]
// CHECK-NEXT:    %r = mindir.broadcast_to %[[D]] : (tensor<1x3x1xf32>) -> tensor<2x3x4xf32>
// CHECK-NEXT:    func.return %r
func.func @mean_only(%a: tensor<2x3x4xf32>, %g: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<2x3x4xf32> {
  %r = mindir.grad (%x = %a, %gamma = %g, %beta = %b) wrt [0] weights [] : (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4xf32> {
    %y, %m, %v = mindir.batch_norm %x, %gamma, %beta {epsilon = 1.0e-05 : f64} : (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>)
    %s = mindir.reduce_sum %m : (tensor<3xf32>) -> tensor<f32>
    mindir.yield %s : tensor<f32>
  }
  func.return %r : tensor<2x3x4xf32>
}
