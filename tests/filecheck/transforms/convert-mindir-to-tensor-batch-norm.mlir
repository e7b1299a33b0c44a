// RUN: ms-opt %s -p convert-mindir-to-tensor --split-input-file | filecheck %s

// batch_norm: the written-out form's steps (sum / n, x - mean, sum of squares / n,
// 1 / sqrt(var + eps), (c * r) * gamma + beta), channels on axis 1, the
// per-channel values read through (d1) maps instead of reshaped and broadcast.

// CHECK-LABEL: func.func @bn
// CHECK:         %[[S:.*]] = linalg.reduce ins(%x:tensor<2x3x4xf32>) outs(%{{.*}}:tensor<3xf32>) dimensions = [0, 2]
// CHECK:         %mean = linalg.generic {{.*}} ins(%[[S]] : tensor<3xf32>)
// CHECK:           arith.constant 8.000000e+00 : f32
// CHECK:           arith.divf
// CHECK:         %[[C:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>]{{.*}} ins(%x, %mean
// CHECK:           arith.subf
// CHECK:         %[[Q:.*]] = linalg.generic {{.*}} ins(%[[C]], %[[C]]
// CHECK:           arith.mulf
// CHECK:         %[[SQ:.*]] = linalg.reduce ins(%[[Q]]:tensor<2x3x4xf32>) outs(%{{.*}}:tensor<3xf32>) dimensions = [0, 2]
// CHECK:         %var = linalg.generic {{.*}} ins(%[[SQ]] : tensor<3xf32>)
// CHECK:         %[[R:.*]] = linalg.generic {{.*}} ins(%var : tensor<3xf32>)
// CHECK:           arith.constant 1.000000e-03 : f32
// CHECK-NEXT:      arith.addf
// CHECK-NEXT:      math.sqrt
// CHECK:           arith.divf
// CHECK:         %y = linalg.generic {{.*}} ins(%[[C]], %[[R]], %g, %b : tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
// CHECK-NEXT:    ^bb0(%[[A0:.*]]: f32, %[[A1:.*]]: f32, %[[A2:.*]]: f32, %[[A3:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[M0:.*]] = arith.mulf %[[A0]], %[[A1]] : f32
// CHECK-NEXT:      %[[M1:.*]] = arith.mulf %[[M0]], %[[A2]] : f32
// CHECK-NEXT:      %[[M2:.*]] = arith.addf %[[M1]], %[[A3]] : f32
// CHECK-NEXT:      linalg.yield %[[M2]] : f32
// CHECK:         func.return %y, %mean, %var
func.func @bn(%x: tensor<2x3x4xf32>, %g: tensor<3xf32>, %b: tensor<3xf32>) -> (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>) {
  %y, %mean, %var = mindir.batch_norm %x, %g, %b {epsilon = 1.0e-03 : f64} : (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>)
  func.return %y, %mean, %var : tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>
}

// -----

// batch_norm_grad: d beta = sum(dy); d gamma = sum(dy * xhat); d x in one loop
// nest over the input, reading the per-channel values through (d1) maps.

// CHECK-LABEL: func.func @bn_grad
// CHECK:         %[[R:.*]] = linalg.generic {{.*}} ins(%v : tensor<3xf32>)
// CHECK:         %db = linalg.reduce ins(%dy:tensor<2x3x4xf32>) outs(%{{.*}}:tensor<3xf32>) dimensions = [0, 2]
// CHECK:         %[[P:.*]] = linalg.generic {{.*}} ins(%dy, %x, %m, %[[R]] : tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>)
// CHECK:         %dg = linalg.reduce ins(%[[P]]:tensor<2x3x4xf32>) outs(%{{.*}}:tensor<3xf32>) dimensions = [0, 2]
// CHECK:         %dx = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>]{{.*}} ins(%dy, %x, %m, %[[R]], %g, %db, %dg
// CHECK:         func.return %dx, %dg, %db
func.func @bn_grad(%dy: tensor<2x3x4xf32>, %x: tensor<2x3x4xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>, %g: tensor<3xf32>) -> (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>) {
  %dx, %dg, %db = mindir.batch_norm_grad %dy, %x, %m, %v, %g {epsilon = 1.0e-05 : f64} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>)
  func.return %dx, %dg, %db : tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>
}
