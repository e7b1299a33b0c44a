// RUN: ms-opt %s -p mindir-vmap --split-input-file | filecheck %s

// A while whose condition differs per example: the loop runs while any example's
// condition holds, forwards the mask and the current values, and the body keeps
// a done example's values (select on the mask).

// CHECK-LABEL: func.func @per_example
// CHECK:         %w, %{{.*}}, %{{.*}} = mindir.while (%[[V:.*]] = %x) : (tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<4xi1>, tensor<4x3xf32>) {
// CHECK-NEXT:      %s = mindir.reduce_sum %[[V]] {axis = array<i64: 1>} : (tensor<4x3xf32>) -> tensor<4xf32>
// CHECK-NEXT:      %k = mindir.less %s, %y : (tensor<4xf32>, tensor<f32>) -> tensor<4xi1>
// CHECK-NEXT:      %[[I:.*]] = mindir.cast %k {to = i32} : (tensor<4xi1>) -> tensor<4xi32>
// CHECK-NEXT:      %[[MAX:.*]] = mindir.reduce_max %[[I]] {axis = array<i64: 0>} : (tensor<4xi32>) -> tensor<i32>
// CHECK-NEXT:      %[[ZERO:.*]] = mindir.constant dense<0> : tensor<i32>
// CHECK-NEXT:      %[[ANY:.*]] = mindir.greater %[[MAX]], %[[ZERO]] : (tensor<i32>, tensor<i32>) -> tensor<i1>
// CHECK-NEXT:      mindir.condition(%[[ANY]] : tensor<i1>) %[[V]], %k, %[[V]] : tensor<4x3xf32>, tensor<4xi1>, tensor<4x3xf32>
// CHECK-NEXT:    } do {
// CHECK-NEXT:    ^bb0(%[[F:.*]]: tensor<4x3xf32>, %[[MASK:.*]]: tensor<4xi1>, %[[OLD:.*]]: tensor<4x3xf32>):
// CHECK-NEXT:      %n = mindir.add %[[F]], %[[F]] : tensor<4x3xf32>
// CHECK-NEXT:      %[[M:.*]] = mindir.reshape %[[MASK]] : (tensor<4xi1>) -> tensor<4x1xi1>
// CHECK-NEXT:      %[[KEPT:.*]] = mindir.select %[[M]], %n, %[[OLD]] : (tensor<4x1xi1>, tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
// CHECK-NEXT:      mindir.yield %[[KEPT]] : tensor<4x3xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %w : tensor<4x3xf32>
func.func @per_example(%x: tensor<4x3xf32>, %y: tensor<f32>) -> tensor<4x3xf32> {
  %r = mindir.vmap (%e = %x) in_axes [0] out_axes [0] : (tensor<4x3xf32>) -> tensor<4x3xf32> {
    %w = mindir.while (%v = %e) : (tensor<3xf32>) -> tensor<3xf32> {
      %s = mindir.reduce_sum %v : (tensor<3xf32>) -> tensor<f32>
      %k = mindir.less %s, %y : (tensor<f32>, tensor<f32>) -> tensor<i1>
      mindir.condition(%k : tensor<i1>) %v : tensor<3xf32>
    } do {
    ^bb0(%v2: tensor<3xf32>):
      %n = mindir.add %v2, %v2 : tensor<3xf32>
      mindir.yield %n : tensor<3xf32>
    }
    mindir.yield %w : tensor<3xf32>
  }
  func.return %r : tensor<4x3xf32>
}

// -----

// A trip count the same for every example: the same loop on the batch; the
// counter stays shared.

// CHECK-LABEL: func.func @shared_count
// CHECK:         %w, %i = mindir.while (%[[V:.*]] = %x, %[[C:.*]] = %z) : (tensor<4x3xf32>, tensor<i32>) -> (tensor<4x3xf32>, tensor<i32>) {
// CHECK-NEXT:      %k = mindir.less %[[C]], %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
// CHECK-NEXT:      mindir.condition(%k : tensor<i1>) %[[V]], %[[C]] : tensor<4x3xf32>, tensor<i32>
// CHECK:           %s = mindir.sin %{{.*}} : tensor<4x3xf32>
// CHECK:           %c3 = mindir.add %{{.*}}, %one : tensor<i32>
// CHECK-NEXT:      mindir.yield %s, %c3 : tensor<4x3xf32>, tensor<i32>
func.func @shared_count(%x: tensor<4x3xf32>, %n: tensor<i32>) -> tensor<4x3xf32> {
  %r = mindir.vmap (%e = %x) in_axes [0] out_axes [0] : (tensor<4x3xf32>) -> tensor<4x3xf32> {
    %z = mindir.constant dense<0> : tensor<i32>
    %w, %i = mindir.while (%v = %e, %c = %z) : (tensor<3xf32>, tensor<i32>) -> (tensor<3xf32>, tensor<i32>) {
      %k = mindir.less %c, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
      mindir.condition(%k : tensor<i1>) %v, %c : tensor<3xf32>, tensor<i32>
    } do {
    ^bb0(%v2: tensor<3xf32>, %c2: tensor<i32>):
      %s = mindir.sin %v2 : tensor<3xf32>
      %one = mindir.constant dense<1> : tensor<i32>
      %c3 = mindir.add %c2, %one : tensor<i32>
      mindir.yield %s, %c3 : tensor<3xf32>, tensor<i32>
    }
    mindir.yield %w : tensor<3xf32>
  }
  func.return %r : tensor<4x3xf32>
}

// -----

// The record of a differentiated loop with a shared trip count: pushes and reads
// at a shared slot hold the batch in every item (tensor<?x4x3xf32>); the empty
// record is made anew with batched items.

// CHECK-LABEL: func.func @record
// CHECK:         %[[EMPTY:.*]] = mindir.stack_new : tensor<?x4x3xf32>
// CHECK:         mindir.while (%{{.*}} = %x, %{{.*}} = %z, %[[S:.*]] = %[[EMPTY]])
// CHECK-NEXT:      %[[P:.*]] = mindir.stack_push %[[S]], %{{.*}}, %{{.*}} : (tensor<?x4x3xf32>, tensor<i64>, tensor<4x3xf32>) -> tensor<?x4x3xf32>
// CHECK:         %y = mindir.stack_read %{{.*}}, %z : (tensor<?x4x3xf32>, tensor<i64>) -> tensor<4x3xf32>
func.func @record(%x: tensor<4x3xf32>, %n: tensor<i64>) -> tensor<4x3xf32> {
  %r = mindir.vmap (%e = %x) in_axes [0] out_axes [0] : (tensor<4x3xf32>) -> tensor<4x3xf32> {
    %z = mindir.constant dense<0> : tensor<i64>
    %s0 = mindir.stack_new : tensor<?x3xf32>
    %w, %k, %s = mindir.while (%v = %e, %c = %z, %st = %s0) : (tensor<3xf32>, tensor<i64>, tensor<?x3xf32>) -> (tensor<3xf32>, tensor<i64>, tensor<?x3xf32>) {
      %p = mindir.stack_push %st, %c, %v : (tensor<?x3xf32>, tensor<i64>, tensor<3xf32>) -> tensor<?x3xf32>
      %more = mindir.less %c, %n : (tensor<i64>, tensor<i64>) -> tensor<i1>
      mindir.condition(%more : tensor<i1>) %v, %c, %p : tensor<3xf32>, tensor<i64>, tensor<?x3xf32>
    } do {
    ^bb0(%v2: tensor<3xf32>, %c2: tensor<i64>, %st2: tensor<?x3xf32>):
      %d = mindir.sin %v2 : tensor<3xf32>
      %one = mindir.constant dense<1> : tensor<i64>
      %c3 = mindir.add %c2, %one : tensor<i64>
      mindir.yield %d, %c3, %st2 : tensor<3xf32>, tensor<i64>, tensor<?x3xf32>
    }
    %y = mindir.stack_read %s, %z : (tensor<?x3xf32>, tensor<i64>) -> tensor<3xf32>
    mindir.yield %y : tensor<3xf32>
  }
  func.return %r : tensor<4x3xf32>
}

// -----

// A record written at a slot that differs per example (the gradient of a loop
// whose trip count differs between examples): the masked counter is a
// tensor<4xi64>, the push takes it as one slot per example; the record itself is
// carried unmasked.

// CHECK-LABEL: func.func @record_per_example
// CHECK:         mindir.while (%{{.*}} = %x, %[[K:.*]] = %{{.*}}, %[[S:.*]] = %{{.*}}) : (tensor<4x3xf32>, tensor<4xi64>, tensor<?x4x3xf32>)
// CHECK-NEXT:      %p = mindir.stack_push %[[S]], %[[K]], %{{.*}} : (tensor<?x4x3xf32>, tensor<4xi64>, tensor<4x3xf32>) -> tensor<?x4x3xf32>
// CHECK:           mindir.yield %{{.*}}, %{{.*}}, %{{.*}} : tensor<4x3xf32>, tensor<4xi64>, tensor<?x4x3xf32>

func.func @record_per_example(%x: tensor<4x3xf32>, %y: tensor<f32>) -> tensor<4x3xf32> {
  %r = mindir.vmap (%e = %x) in_axes [0] out_axes [0] : (tensor<4x3xf32>) -> tensor<4x3xf32> {
    %z = mindir.constant dense<0> : tensor<i64>
    %s0 = mindir.stack_new : tensor<?x3xf32>
    %w, %n, %s = mindir.while (%v = %e, %k = %z, %st = %s0) : (tensor<3xf32>, tensor<i64>, tensor<?x3xf32>) -> (tensor<3xf32>, tensor<i64>, tensor<?x3xf32>) {
      %p = mindir.stack_push %st, %k, %v : (tensor<?x3xf32>, tensor<i64>, tensor<3xf32>) -> tensor<?x3xf32>
      %sum = mindir.reduce_sum %v : (tensor<3xf32>) -> tensor<f32>
      %c = mindir.less %sum, %y : (tensor<f32>, tensor<f32>) -> tensor<i1>
      mindir.condition(%c : tensor<i1>) %v, %k, %p : tensor<3xf32>, tensor<i64>, tensor<?x3xf32>
    } do {
    ^bb0(%v2: tensor<3xf32>, %k2: tensor<i64>, %st2: tensor<?x3xf32>):
      %d = mindir.add %v2, %v2 : tensor<3xf32>
      %one = mindir.constant dense<1> : tensor<i64>
      %k3 = mindir.add %k2, %one : tensor<i64>
      mindir.yield %d, %k3, %st2 : tensor<3xf32>, tensor<i64>, tensor<?x3xf32>
    }
    mindir.yield %w : tensor<3xf32>
  }
  func.return %r : tensor<4x3xf32>
}
