// RUN: ms-opt %s -p mindir-grad --split-input-file | filecheck %s

// Reverse mode through a while whose trip count is known only at run time: the
// forward loop gets a counter and pushes its carried value into slot k at the
// top of its condition region; a backward loop counts the slots down, reads
// slot i - 1, recomputes the body from it and runs its adjoints.
// d/dv sum(v * v) through the loop: g <- g * v + g * v per iteration.

// CHECK-LABEL: func.func @squaring
// CHECK:         %[[ZERO:.*]] = mindir.constant dense<0> : tensor<i64>
// CHECK:         %[[EMPTY:.*]] = mindir.stack_new : tensor<?x3xf32>
// CHECK:         %w, %[[N:.*]], %[[REC:.*]] = mindir.while (%v = %a, %[[K:.*]] = %[[ZERO]], %[[S:.*]] = %[[EMPTY]])
// CHECK-NEXT:      %[[PUSH:.*]] = mindir.stack_push %[[S]], %[[K]], %v
// CHECK-NEXT:      %s = mindir.reduce_sum %v
// CHECK-NEXT:      %k = mindir.less %s, %n
// CHECK-NEXT:      mindir.condition(%k : tensor<i1>) %v, %[[K]], %[[PUSH]]
// CHECK:         ^bb0(%v2: tensor<3xf32>, %[[KB:.*]]: tensor<i64>, %[[SB:.*]]: tensor<?x3xf32>):
// CHECK:           %d = mindir.mul %v2, %v2
// CHECK-NEXT:      %[[NEXT:.*]] = mindir.add %[[KB]], %{{.*}} : tensor<i64>
// CHECK-NEXT:      mindir.yield %d, %[[NEXT]], %[[SB]]
// CHECK:         %[[ONES:.*]] = mindir.broadcast_to
// CHECK-NEXT:    %{{.*}}, %g = mindir.while (%[[I:.*]] = %[[N]], %[[G:.*]] = %[[ONES]]) : (tensor<i64>, tensor<3xf32>) -> (tensor<i64>, tensor<3xf32>) {
// CHECK:           mindir.greater %[[I]], %{{.*}} : (tensor<i64>, tensor<i64>) -> tensor<i1>
// CHECK:         ^bb0(%[[IB:.*]]: tensor<i64>, %[[GB:.*]]: tensor<3xf32>):
// CHECK:           %[[PREV:.*]] = mindir.sub %[[IB]], %{{.*}} : tensor<i64>
// CHECK-NEXT:      %[[V:.*]] = mindir.stack_read %[[REC]], %[[PREV]]
// CHECK-NEXT:      %[[A:.*]] = mindir.mul %[[GB]], %[[V]]
// CHECK-NEXT:      %[[B:.*]] = mindir.mul %[[GB]], %[[V]]
// CHECK-NEXT:      %[[SUM:.*]] = mindir.add %[[A]], %[[B]]
// CHECK-NEXT:      mindir.yield %[[PREV]], %[[SUM]]
// CHECK:         func.return %g
func.func @squaring(%a: tensor<3xf32>, %n: tensor<f32>) -> tensor<3xf32> {
  %g = mindir.grad (%x = %a) wrt [0] weights [] : (tensor<3xf32>) -> tensor<3xf32> {
    %w = mindir.while (%v = %x) : (tensor<3xf32>) -> tensor<3xf32> {
      %s = mindir.reduce_sum %v : (tensor<3xf32>) -> tensor<f32>
      %k = mindir.less %s, %n : (tensor<f32>, tensor<f32>) -> tensor<i1>
      mindir.condition(%k : tensor<i1>) %v : tensor<3xf32>
    } do {
    ^bb0(%v2: tensor<3xf32>):
      %d = mindir.mul %v2, %v2 : tensor<3xf32>
      mindir.yield %d : tensor<3xf32>
    }
    %t = mindir.reduce_sum %w : (tensor<3xf32>) -> tensor<f32>
    mindir.yield %t : tensor<f32>
  }
  func.return %g : tensor<3xf32>
}

// -----

// A Parameter the loop assigns: the Load it reads each iteration is recorded
// (the recompute would read the Parameter's later value), and its gradient is
// summed over the iterations in the backward loop. The second Load, read only by
// the Assign, has no adjoint: its stack is pruned. The integer counter is no
// gradient's input: not recorded either.

mindir.parameter @w = dense<5.000000e-01> : tensor<3xf32>
// CHECK-LABEL: func.func @assigned
// CHECK-COUNT-2: mindir.stack_new : tensor<?x3xf32>
// CHECK-NOT:     mindir.stack_new
// CHECK:         mindir.while
// CHECK:           %[[L:.*]] = mindir.load
// CHECK-NEXT:      mindir.stack_push %{{.*}}, %{{.*}}, %[[L]]
// CHECK:           mindir.assign
// CHECK:         mindir.while
// CHECK-COUNT-2:   mindir.stack_read
// CHECK-NOT:       mindir.stack_read
// CHECK:           mindir.tanh_grad
// CHECK-NOT:       mindir.assign
// CHECK-NOT:       mindir.load
// CHECK:           mindir.yield
func.func @assigned(%0: tensor<3xf32>, %1: tensor<i32>, %2: !mindir.u) -> (tensor<3xf32>, tensor<3xf32>, !mindir.u) {
  %3, %4, %u = mindir.grad (%5 = %0, %6 = %1) wrt [0] weights [@w] : (tensor<3xf32>, tensor<i32>) -> (tensor<3xf32>, tensor<3xf32>, !mindir.u) {
    %9 = mindir.constant dense<0> : tensor<i32>
    %10, %11, %u_1 = mindir.while (%12 = %5, %13 = %9, %u_2 = %2) : (tensor<3xf32>, tensor<i32>, !mindir.u) -> (tensor<3xf32>, tensor<i32>, !mindir.u) {
      %14 = mindir.less %13, %6 : (tensor<i32>, tensor<i32>) -> tensor<i1>
      mindir.condition(%14 : tensor<i1>) %12, %13, %u_2 : tensor<3xf32>, tensor<i32>, !mindir.u
    } do {
    ^bb0(%15: tensor<3xf32>, %16: tensor<i32>, %u_3: !mindir.u):
      %17 = mindir.get_parameter @w : !mindir.ref<tensor<3xf32>>
      %18 = mindir.load %17, %u_3 : tensor<3xf32>
      %u_4 = mindir.update_state %u_3, %18 : tensor<3xf32>
      %19 = mindir.mul %15, %18 : tensor<3xf32>
      %20 = mindir.tanh %19 : tensor<3xf32>
      %21 = mindir.add %20, %15 : tensor<3xf32>
      %23 = mindir.load %17, %u_4 : tensor<3xf32>
      %u_5 = mindir.update_state %u_4, %23 : tensor<3xf32>
      %24 = mindir.constant dense<9.000000e-01> : tensor<f32>
      %25 = mindir.mul %23, %24 : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
      %27 = mindir.assign %17, %25, %u_5 : tensor<3xf32>
      %u_6 = mindir.update_state %u_5, %27 : tensor<3xf32>
      %28 = mindir.constant dense<1> : tensor<i32>
      %29 = mindir.add %16, %28 : tensor<i32>
      mindir.yield %21, %29, %u_6 : tensor<3xf32>, tensor<i32>, !mindir.u
    }
    %30 = mindir.reduce_sum %10 : (tensor<3xf32>) -> tensor<f32>
    mindir.yield %30, %u_1 : tensor<f32>, !mindir.u
  }
  func.return %3, %4, %u : tensor<3xf32>, tensor<3xf32>, !mindir.u
}
