// RUN: ms-opt %s -p convert-mindir-to-tensor | filecheck %s

// The bitwise ops (issue 38) are one arith op per element: andi/ori/xori on ints and
// i1, shli, and shrsi (signed) or shrui (unsigned) for the right shift.

// CHECK-LABEL: func.func @bitwise
// CHECK:         arith.andi %{{.*}}, %{{.*}} : i32
// CHECK:         arith.ori %{{.*}}, %{{.*}} : i1
// CHECK:         arith.xori %{{.*}}, %{{.*}} : i32
// CHECK:         arith.shli %{{.*}}, %{{.*}} : i32
// CHECK:         arith.shrsi %{{.*}}, %{{.*}} : i32
// CHECK:         arith.shrui %{{.*}}, %{{.*}} : ui8
func.func @bitwise(%a: tensor<3xi32>, %k: tensor<3xi1>, %u: tensor<3xui8>) -> (tensor<3xi32>, tensor<3xi1>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<3xui8>) {
  %0 = mindir.bitwise_and %a, %a : tensor<3xi32>
  %1 = mindir.bitwise_or %k, %k : tensor<3xi1>
  %2 = mindir.bitwise_xor %a, %a : tensor<3xi32>
  %3 = mindir.left_shift %a, %a : tensor<3xi32>
  %4 = mindir.right_shift %a, %a : tensor<3xi32>
  %5 = mindir.right_shift %u, %u : tensor<3xui8>
  func.return %0, %1, %2, %3, %4, %5 : tensor<3xi32>, tensor<3xi1>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<3xui8>
}
