// RUN: ms-opt %s -p convert-mindir-to-tensor | filecheck %s

// Collectives become calls of the communication runtime: one private declaration
// per runtime kind and type, declared before the first function; a broadcast's
// root rank is an attribute of its call. Calls are kept in block order.

// CHECK:       func.func private @__mindjit_all_reduce_sum(tensor<2x3xf32>) -> tensor<2x3xf32> attributes {mindjit.runtime = "all_reduce_sum"}
// CHECK-NEXT:  func.func private @__mindjit_all_reduce_max(tensor<2x3xf32>) -> tensor<2x3xf32> attributes {mindjit.runtime = "all_reduce_max"}
// CHECK-NEXT:  func.func private @__mindjit_all_gather(tensor<2x3xf32>) -> tensor<4x3xf32> attributes {mindjit.runtime = "all_gather"}
// CHECK-NEXT:  func.func private @__mindjit_reduce_scatter_sum(tensor<4x3xf32>) -> tensor<2x3xf32> attributes {mindjit.runtime = "reduce_scatter_sum"}
// CHECK-NEXT:  func.func private @__mindjit_broadcast(tensor<2x3xf32>) -> tensor<2x3xf32> attributes {mindjit.runtime = "broadcast"}
// CHECK-NEXT:  func.func private @__mindjit_all_reduce_sum_1(tensor<4xi32>) -> tensor<4xi32> attributes {mindjit.runtime = "all_reduce_sum"}
// CHECK-LABEL: func.func @f
// CHECK-NEXT:    %s = func.call @__mindjit_all_reduce_sum(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %t = func.call @__mindjit_all_reduce_sum(%s) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %m = func.call @__mindjit_all_reduce_max(%t) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %a = func.call @__mindjit_all_gather(%m) : (tensor<2x3xf32>) -> tensor<4x3xf32>
// CHECK-NEXT:    %r = func.call @__mindjit_reduce_scatter_sum(%a) : (tensor<4x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %b = func.call @__mindjit_broadcast(%r) {mindjit.root_rank = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %i = func.call @__mindjit_all_reduce_sum_1(%n) : (tensor<4xi32>) -> tensor<4xi32>
// CHECK-NEXT:    %unused = func.call @__mindjit_all_reduce_sum(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    func.return %b, %i
func.func @f(%x: tensor<2x3xf32>, %n: tensor<4xi32>) -> (tensor<2x3xf32>, tensor<4xi32>) {
  %s = mindir.all_reduce %x {op = "sum"} : tensor<2x3xf32>
  %t = mindir.all_reduce %s {op = "sum"} : tensor<2x3xf32>
  %m = mindir.all_reduce %t {op = "max"} : tensor<2x3xf32>
  %a = mindir.all_gather %m {rank_size = 2 : i64} : (tensor<2x3xf32>) -> tensor<4x3xf32>
  %r = mindir.reduce_scatter %a {op = "sum", rank_size = 2 : i64} : (tensor<4x3xf32>) -> tensor<2x3xf32>
  %b = mindir.broadcast %r {root_rank = 1 : i64} : tensor<2x3xf32>
  %i = mindir.all_reduce %n {op = "sum"} : tensor<4xi32>
  %unused = mindir.all_reduce %x {op = "sum"} : tensor<2x3xf32>
  func.return %b, %i : tensor<2x3xf32>, tensor<4xi32>
}
