// RUN: ms-opt %s -p mindir-vmap | filecheck %s

// A batched all_reduce (elementwise over the replicas) takes the batched tensor as
// it is; all_gather works on axis 0, so the batch axis goes behind it and back.

// CHECK-LABEL: func.func @v
// CHECK-NEXT:    %s = mindir.all_reduce %a {op = "sum"} : tensor<5x2x3xf32>
// CHECK-NEXT:    %[[T:.*]] = mindir.transpose %s {perm = array<i64: 1, 0, 2>} : (tensor<5x2x3xf32>) -> tensor<2x5x3xf32>
// CHECK-NEXT:    %[[G:.*]] = mindir.all_gather %[[T]] {rank_size = 2 : i64} : (tensor<2x5x3xf32>) -> tensor<4x5x3xf32>
// CHECK-NEXT:    %y = mindir.transpose %[[G]] {perm = array<i64: 1, 0, 2>} : (tensor<4x5x3xf32>) -> tensor<5x4x3xf32>
// CHECK-NEXT:    func.return %y
func.func @v(%a: tensor<5x2x3xf32>) -> tensor<5x4x3xf32> {
  %r = mindir.vmap (%x = %a) in_axes [0] out_axes [0] : (tensor<5x2x3xf32>) -> tensor<5x4x3xf32> {
    %s = mindir.all_reduce %x {op = "sum"} : tensor<2x3xf32>
    %y = mindir.all_gather %s {rank_size = 2 : i64} : (tensor<2x3xf32>) -> tensor<4x3xf32>
    mindir.yield %y : tensor<4x3xf32>
  }
  func.return %r : tensor<5x4x3xf32>
}
