// RUN: ms-opt %s -p convert-mindir-to-tensor --split-input-file | filecheck %s

// A reshape that undoes the one before it (the same dim groups, back to the
// source's shape) is not made: the value before both is used, as MLIR's
// `foldReshapeOp` folds collapse_shape(expand_shape(x)) and the reverse.

// A keep-dims sum broadcast back: the expand_shape keeping the reduced dim and
// the collapse_shape dropping it again for the broadcast map cancel.

// CHECK-LABEL: func.func @centred(%x: tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK:         %[[S:.*]] = linalg.reduce ins(%x:tensor<4x8xf32>)
// CHECK-NOT:     tensor.expand_shape
// CHECK-NOT:     tensor.collapse_shape
// CHECK:         %c = linalg.generic {{.*}} ins(%x, %[[S]] : tensor<4x8xf32>, tensor<4xf32>)
// CHECK:         func.return %c : tensor<4x8xf32>
func.func @centred(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %m = mindir.reduce_sum %x {axis = array<i64: 1>, keep_dims = true} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %c = mindir.sub %x, %m : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  func.return %c : tensor<4x8xf32>
}

// -----

// Flattened and reshaped back: the second reshape is the source itself.

// CHECK-LABEL: func.func @reshape_back(%x: tensor<2x3xf32>) -> (tensor<6xf32>, tensor<2x3xf32>)
// CHECK-NEXT:    %f = tensor.collapse_shape %x {{\[\[}}0 : i64, 1 : i64]] : tensor<2x3xf32> into tensor<6xf32>
// CHECK-NEXT:    func.return %f, %x : tensor<6xf32>, tensor<2x3xf32>
func.func @reshape_back(%x: tensor<2x3xf32>) -> (tensor<6xf32>, tensor<2x3xf32>) {
  %f = mindir.reshape %x : (tensor<2x3xf32>) -> tensor<6xf32>
  %b = mindir.reshape %f : (tensor<6xf32>) -> tensor<2x3xf32>
  func.return %f, %b : tensor<6xf32>, tensor<2x3xf32>
}

// -----

// Reshaped to another shape through the same 1-D value: both reshapes stay.

// CHECK-LABEL: func.func @reshape_other
// CHECK:         %[[F:.*]] = tensor.collapse_shape %x {{.*}} into tensor<6xf32>
// CHECK-NEXT:    %[[T:.*]] = tensor.expand_shape %[[F]] {{.*}} output_shape [3, 2] : tensor<6xf32> into tensor<3x2xf32>
// CHECK-NEXT:    func.return %[[T]] : tensor<3x2xf32>
func.func @reshape_other(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %f = mindir.reshape %x : (tensor<2x3xf32>) -> tensor<6xf32>
  %b = mindir.reshape %f : (tensor<6xf32>) -> tensor<3x2xf32>
  func.return %b : tensor<3x2xf32>
}
