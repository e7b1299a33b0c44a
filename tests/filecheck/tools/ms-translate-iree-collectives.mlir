// RUN: ms-translate --target=iree-input %s -o - | filecheck %s
// RUN: ms-translate --target=iree-input %s -o - | iree-compile --iree-hal-target-backends=llvm-cpu - -o /dev/null

// Collectives on IREE (backend/iree/collectives.py): each call of the
// communication runtime calls an import of module `mindjit` of its own, numbered
// in walk order (a broadcast's root rank and the site's types stay Python-side);
// the `mindjit.runtime` declarations go.

// CHECK-NOT: __mindjit_
// CHECK: func.func private @mindjit.all_reduce_sum_0(tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: func.func private @mindjit.all_gather_1(tensor<2x3xf32>) -> tensor<4x3xf32>
// CHECK: func.func private @mindjit.broadcast_2(tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: func.func @f(%[[X:.*]]: tensor<2x3xf32>)
// CHECK:   %[[S:.*]] = func.call @mindjit.all_reduce_sum_0(%[[X]])
// CHECK:   func.call @mindjit.all_gather_1(%[[X]])
// CHECK:   func.call @mindjit.broadcast_2(%[[S]])
// CHECK-NOT: __mindjit_

func.func @f(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<4x3xf32>, tensor<2x3xf32>) {
  %s = mindir.all_reduce %x {op = "sum"} : tensor<2x3xf32>
  %a = mindir.all_gather %x {rank_size = 2 : i64} : (tensor<2x3xf32>) -> tensor<4x3xf32>
  %b = mindir.broadcast %s {root_rank = 1 : i64} : tensor<2x3xf32>
  func.return %s, %a, %b : tensor<2x3xf32>, tensor<4x3xf32>, tensor<2x3xf32>
}
