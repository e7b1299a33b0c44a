// RUN: ms-opt %s | filecheck %s
// RUN: ms-opt %s --print-op-generic | ms-opt | filecheck %s
// RUN: ms-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// The collectives (dialects/mindir/collective.py): custom and generic forms round-trip.

// CHECK-LABEL: func.func @collectives
// CHECK-NEXT:    %s = mindir.all_reduce %x {op = "sum"} : tensor<2x3xf32>
// CHECK-NEXT:    %m = mindir.all_reduce %x {op = "max"} : tensor<2x3xf32>
// CHECK-NEXT:    %a = mindir.all_gather %s {rank_size = 4 : i64} : (tensor<2x3xf32>) -> tensor<8x3xf32>
// CHECK-NEXT:    %r = mindir.reduce_scatter %a {op = "sum", rank_size = 4 : i64} : (tensor<8x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %b = mindir.broadcast %r {root_rank = 3 : i64} : tensor<2x3xf32>
// CHECK-NEXT:    %i = mindir.all_reduce %n {op = "prod"} : tensor<4xi32>
// GENERIC: "mindir.all_reduce"(%x) <{op = "sum"}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
// GENERIC: "mindir.all_gather"(%s) <{rank_size = 4 : i64}> : (tensor<2x3xf32>) -> tensor<8x3xf32>
// GENERIC: "mindir.reduce_scatter"(%a) <{op = "sum", rank_size = 4 : i64}> : (tensor<8x3xf32>) -> tensor<2x3xf32>
// GENERIC: "mindir.broadcast"(%r) <{root_rank = 3 : i64}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
func.func @collectives(%x: tensor<2x3xf32>, %n: tensor<4xi32>) -> (tensor<2x3xf32>, tensor<4xi32>) {
  %s = mindir.all_reduce %x {op = "sum"} : tensor<2x3xf32>
  %m = mindir.all_reduce %x {op = "max"} : tensor<2x3xf32>
  %a = mindir.all_gather %s {rank_size = 4 : i64} : (tensor<2x3xf32>) -> tensor<8x3xf32>
  %r = mindir.reduce_scatter %a {op = "sum", rank_size = 4 : i64} : (tensor<8x3xf32>) -> tensor<2x3xf32>
  %b = mindir.broadcast %r {root_rank = 3 : i64} : tensor<2x3xf32>
  %i = mindir.all_reduce %n {op = "prod"} : tensor<4xi32>
  func.return %b, %i : tensor<2x3xf32>, tensor<4xi32>
}
