// RUN: ms-opt %s -p mindir-grad | filecheck %s

// The collectives' adjoints are MindSpore's bprops, collectives themselves:
// all_gather's is a reduce_scatter (sum), broadcast's the output gradient,
// all_reduce max's an all_reduce sum masked where the input is the result.

// CHECK-LABEL: func.func @grads
// CHECK-NEXT:    %m = mindir.all_reduce %a {op = "max"} : tensor<2x3xf32>
// CHECK-NEXT:    %b = mindir.broadcast %m {root_rank = 1 : i64} : tensor<2x3xf32>
// CHECK-NEXT:    %y = mindir.all_gather %b {rank_size = 2 : i64} : (tensor<2x3xf32>) -> tensor<4x3xf32>
// CHECK-NEXT:    %[[RS:.*]] = mindir.reduce_scatter %s {op = "sum", rank_size = 2 : i64} : (tensor<4x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[AR:.*]] = mindir.all_reduce %[[RS]] {op = "sum"} : tensor<2x3xf32>
// CHECK-NEXT:    %[[EQ:.*]] = mindir.equal %a, %m
// CHECK-NEXT:    %[[MASK:.*]] = mindir.cast %[[EQ]] {to = f32}
// CHECK-NEXT:    %g = mindir.mul %[[AR]], %[[MASK]] : tensor<2x3xf32>
// CHECK-NEXT:    func.return %g
func.func @grads(%a: tensor<2x3xf32>, %s: tensor<4x3xf32>) -> tensor<2x3xf32> {
  %g = mindir.grad (%x = %a) sens (%s) wrt [0] weights [] : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x3xf32> {
    %m = mindir.all_reduce %x {op = "max"} : tensor<2x3xf32>
    %b = mindir.broadcast %m {root_rank = 1 : i64} : tensor<2x3xf32>
    %y = mindir.all_gather %b {rank_size = 2 : i64} : (tensor<2x3xf32>) -> tensor<4x3xf32>
    mindir.yield %y : tensor<4x3xf32>
  }
  func.return %g : tensor<2x3xf32>
}
