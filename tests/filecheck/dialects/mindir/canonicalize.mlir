// RUN: ms-opt %s -p 'func.func(canonicalize)' --split-input-file | filecheck %s

// stack(unstack(x)) along the same axis is x; the pieces of unstack(stack(xs))
// are the xs. A HyperMap over stacked elements relies on both when one map's
// results feed the next.

// CHECK-LABEL: func.func @stack_of_unstack
// CHECK-NEXT:    %y = mindir.neg %x : tensor<3x2xf32>
// CHECK-NEXT:    func.return %y : tensor<3x2xf32>
func.func @stack_of_unstack(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %p:3 = mindir.unstack %x : tensor<3x2xf32> -> tensor<2xf32>
  %s = mindir.stack %p#0, %p#1, %p#2 : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  %y = mindir.neg %s : tensor<3x2xf32>
  func.return %y : tensor<3x2xf32>
}

// -----

// CHECK-LABEL: func.func @unstack_of_stack
// CHECK-NEXT:    %r = mindir.add %b, %a : tensor<2xf32>
// CHECK-NEXT:    func.return %r : tensor<2xf32>
func.func @unstack_of_stack(%a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<2xf32> {
  %s = mindir.stack %a, %b {axis = 1 : i64} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  %p:2 = mindir.unstack %s {axis = 1 : i64} : tensor<2x2xf32> -> tensor<2xf32>
  %r = mindir.add %p#1, %p#0 : tensor<2xf32>
  func.return %r : tensor<2xf32>
}

// -----

// Not folded: other axes, pieces out of order, or only some of them.

// CHECK-LABEL: func.func @kept
// CHECK-NEXT:    %p, %p_1 = mindir.unstack %x : tensor<2x2xf32> -> tensor<2xf32>
// CHECK-NEXT:    %s = mindir.stack %p, %p_1 {axis = 1 : i64}
// CHECK-NEXT:    %t = mindir.stack %p_1, %p
// CHECK-NEXT:    %u = mindir.stack %p, %p
// CHECK-NEXT:    %q, %q_1 = mindir.unstack %t {axis = 1 : i64}
// CHECK-NEXT:    func.return %s, %t, %u, %q
func.func @kept(%x: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2xf32>) {
  %p:2 = mindir.unstack %x : tensor<2x2xf32> -> tensor<2xf32>
  %s = mindir.stack %p#0, %p#1 {axis = 1 : i64} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  %t = mindir.stack %p#1, %p#0 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  %u = mindir.stack %p#0, %p#0 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  %q:2 = mindir.unstack %t {axis = 1 : i64} : tensor<2x2xf32> -> tensor<2xf32>
  func.return %s, %t, %u, %q#0 : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2xf32>
}
