// RUN: ms-opt %s -p convert-mindir-to-tensor --split-input-file | filecheck %s

// Convolution and pooling become linalg's named NCHW ops; padding is a filled
// tensor and one strided insert_slice.

// CHECK-LABEL: func.func @conv
// CHECK:         %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x2x7x7xf32>)
// CHECK:         %[[P:.*]] = tensor.insert_slice %x into %[[Z]][0, 0, 1, 2] [1, 2, 5, 4] [1, 1, 1, 1] : tensor<1x2x5x4xf32> into tensor<1x2x7x7xf32>
// CHECK:         %y = linalg.conv_2d_nchw_fchw {strides = dense<[2, 1]> : tensor<2xi64>, dilations = dense<[1, 2]> : tensor<2xi64>} ins(%[[P]], %w : tensor<1x2x7x7xf32>, tensor<3x2x3x3xf32>) outs(%{{.*}} : tensor<1x3x3x3xf32>) -> tensor<1x3x3x3xf32>
func.func @conv(%x: tensor<1x2x5x4xf32>, %w: tensor<3x2x3x3xf32>) -> tensor<1x3x3x3xf32> {
  %y = mindir.conv2d %x, %w {stride = array<i64: 2, 1>, dilation = array<i64: 1, 2>, pad = array<i64: 1, 1, 2, 1>} : (tensor<1x2x5x4xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x3x3xf32>
  func.return %y : tensor<1x3x3x3xf32>
}

// -----

// A grouped convolution: (N, G, C/G, H, W) and (G, F/G, C/G, KH, KW).

// CHECK-LABEL: func.func @grouped
// CHECK:         %[[X:.*]] = tensor.expand_shape %x {{\[}}[0 : i64], [1 : i64, 2 : i64], [3 : i64], [4 : i64]] output_shape [1, 2, 2, 5, 5] : tensor<1x4x5x5xf32> into tensor<1x2x2x5x5xf32>
// CHECK:         %[[W:.*]] = tensor.expand_shape %w {{\[}}[0 : i64, 1 : i64], [2 : i64], [3 : i64], [4 : i64]] output_shape [2, 3, 2, 3, 3] : tensor<6x2x3x3xf32> into tensor<2x3x2x3x3xf32>
// CHECK:         %[[C:.*]] = linalg.conv_2d_ngchw_gfchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>} ins(%[[X]], %[[W]] : tensor<1x2x2x5x5xf32>, tensor<2x3x2x3x3xf32>) outs(%{{.*}} : tensor<1x2x3x3x3xf32>)
// CHECK-NEXT:    %y = tensor.collapse_shape %[[C]] {{\[}}[0 : i64], [1 : i64, 2 : i64], [3 : i64], [4 : i64]] : tensor<1x2x3x3x3xf32> into tensor<1x6x3x3xf32>
func.func @grouped(%x: tensor<1x4x5x5xf32>, %w: tensor<6x2x3x3xf32>) -> tensor<1x6x3x3xf32> {
  %y = mindir.conv2d %x, %w {group = 2 : i64} : (tensor<1x4x5x5xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x3x3xf32>
  func.return %y : tensor<1x6x3x3xf32>
}

// -----

// Max pooling pads with -inf and starts from -inf; the window is a tensor.empty.

// CHECK-LABEL: func.func @max_pool
// CHECK:         %[[NEG:.*]] = arith.constant 0xff800000 : f32
// CHECK:         %[[W:.*]] = tensor.empty() : tensor<2x2xf32>
// CHECK:         %[[ACC:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x2x2x2xf32>)
// CHECK:         %p = linalg.pooling_nchw_max {strides = dense<2> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>} ins(%{{.*}}, %[[W]] : tensor<1x2x4x4xf32>, tensor<2x2xf32>) outs(%[[ACC]] : tensor<1x2x2x2xf32>)
func.func @max_pool(%x: tensor<1x2x3x3xf32>) -> tensor<1x2x2x2xf32> {
  %p = mindir.max_pool2d %x {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, pad_extra = array<i64: 1, 1>} : (tensor<1x2x3x3xf32>) -> tensor<1x2x2x2xf32>
  func.return %p : tensor<1x2x2x2xf32>
}

// -----

// Average pooling: a window sum, then a division by each window's count (here
// the padding is not counted: 4 in the corner window, 9 in the one inside).

// CHECK-LABEL: func.func @avg_pool
// CHECK:         %[[S:.*]] = linalg.pooling_nchw_sum {strides = dense<2> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
// CHECK:         %[[N:.*]] = arith.constant dense<{{\[}}[4.000000e+00, 6.000000e+00], [6.000000e+00, 9.000000e+00]]> : tensor<2x2xf32>
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>]
// CHECK-SAME:      ins(%[[S]], %[[N]] : tensor<1x1x2x2xf32>, tensor<2x2xf32>)
// CHECK:           arith.divf
func.func @avg_pool(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32> {
  %p = mindir.avg_pool2d %x {kernel = array<i64: 3, 3>, stride = array<i64: 2, 2>, pad = array<i64: 1, 0, 1, 0>, count_include_pad = false} : (tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32>
  func.return %p : tensor<1x1x2x2xf32>
}

// -----

// pad with interior padding and a crop; reverse as a gather.

// CHECK-LABEL: func.func @pad_reverse
// CHECK:         %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<6x3xf32>)
// CHECK:         %[[I:.*]] = tensor.insert_slice %x into %[[F]][1, 0] [2, 3] [3, 1] : tensor<2x3xf32> into tensor<6x3xf32>
// CHECK-NEXT:    %p = tensor.extract_slice %[[I]][0, 0] [6, 2] [1, 1] : tensor<6x3xf32> to tensor<6x2xf32>
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%{{.*}} : tensor<6x2xf32>) {
// CHECK:           %[[I0:.*]] = linalg.index 0 : index
// CHECK-NEXT:      %[[I1:.*]] = linalg.index 1 : index
// CHECK-NEXT:      %[[L:.*]] = arith.constant 1 : index
// CHECK-NEXT:      %[[J1:.*]] = arith.subi %[[L]], %[[I1]] : index
// CHECK-NEXT:      %[[V:.*]] = tensor.extract %p[%[[I0]], %[[J1]]] : tensor<6x2xf32>
// CHECK-NEXT:      linalg.yield %[[V]] : f32
func.func @pad_reverse(%x: tensor<2x3xf32>) -> tensor<6x2xf32> {
  %p = mindir.pad %x {low = array<i64: 1, 0>, high = array<i64: 1, -1>, interior = array<i64: 2, 0>, value = 1.0 : f64} : (tensor<2x3xf32>) -> tensor<6x2xf32>
  %r = mindir.reverse %p {axis = array<i64: 1>} : tensor<6x2xf32>
  func.return %r : tensor<6x2xf32>
}
