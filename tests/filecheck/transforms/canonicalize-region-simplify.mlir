// RUN: ms-opt %s -p 'canonicalize{region-simplify=disabled}' | filecheck %s
// RUN: ms-opt %s -p 'canonicalize{region-simplify=normal}' | filecheck %s
// RUN: ms-opt %s --pass-pipeline='builtin.module(func.func(canonicalize{region-simplify=disabled}))' | filecheck %s

// canonicalize with MLIR's region-simplify option: the pattern walk folds and
// erases trivially dead ops in both modes (disabled only skips the region
// liveness sweep after it), inside regions too.

// CHECK-LABEL: func.func @fold_and_erase
// CHECK-NEXT:    %[[S:.*]] = mindir.select %c, %a, %b
// CHECK-NEXT:    %[[R:.*]] = mindir.if %c -> (tensor<4xf32>) {
// CHECK-NEXT:      mindir.yield %a : tensor<4xf32>
// CHECK-NEXT:    } else {
// CHECK-NEXT:      mindir.yield %b : tensor<4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[S]], %[[R]]
func.func @fold_and_erase(%c: tensor<i1>, %a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %dead = mindir.exp %a : tensor<4xf32>
  %s = mindir.select %c, %a, %b : (tensor<i1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %r = mindir.if %c -> (tensor<4xf32>) {
    %dead2 = mindir.neg %a : tensor<4xf32>
    mindir.yield %a : tensor<4xf32>
  } else {
    mindir.yield %b : tensor<4xf32>
  }
  func.return %s, %r : tensor<4xf32>, tensor<4xf32>
}
