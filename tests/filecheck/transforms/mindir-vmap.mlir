// RUN: ms-opt %s -p mindir-vmap --split-input-file | filecheck %s

// A batched input meets a shared one: elementwise ops broadcast as they are;
// out_axes 1 moves the batch axis behind the example's axis.

// CHECK-LABEL: func.func @shared_weight
// CHECK-NEXT:    %y = mindir.mul %a, %b : (tensor<5x3xf32>, tensor<3xf32>) -> tensor<5x3xf32>
// CHECK-NEXT:    %r = mindir.transpose %y {perm = array<i64: 1, 0>} : (tensor<5x3xf32>) -> tensor<3x5xf32>
// CHECK-NEXT:    func.return %r : tensor<3x5xf32>
func.func @shared_weight(%a: tensor<5x3xf32>, %b: tensor<3xf32>) -> tensor<3x5xf32> {
  %r = mindir.vmap (%x = %a, %w = %b) in_axes [0, none] out_axes [1] : (tensor<5x3xf32>, tensor<3xf32>) -> tensor<3x5xf32> {
    %y = mindir.mul %x, %w : tensor<3xf32>
    mindir.yield %y : tensor<3xf32>
  }
  func.return %r : tensor<3x5xf32>
}

// -----

// in_axes 1: the batch axis moves first. A batched scalar meeting a per-example
// vector is reshaped to [B, 1] so that the right axes pair up.

// CHECK-LABEL: func.func @align_ranks
// CHECK-NEXT:    %[[A:.*]] = mindir.transpose %a {perm = array<i64: 1, 0>} : (tensor<3x5xf32>) -> tensor<5x3xf32>
// CHECK-NEXT:    %[[S:.*]] = mindir.reshape %s : (tensor<5xf32>) -> tensor<5x1xf32>
// CHECK-NEXT:    %y = mindir.add %[[A]], %[[S]] : (tensor<5x3xf32>, tensor<5x1xf32>) -> tensor<5x3xf32>
// CHECK-NEXT:    func.return %y : tensor<5x3xf32>
func.func @align_ranks(%a: tensor<3x5xf32>, %s: tensor<5xf32>) -> tensor<5x3xf32> {
  %r = mindir.vmap (%x = %a, %t = %s) in_axes [1, 0] out_axes [0] : (tensor<3x5xf32>, tensor<5xf32>) -> tensor<5x3xf32> {
    %y = mindir.add %x, %t : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
    mindir.yield %y : tensor<3xf32>
  }
  func.return %r : tensor<5x3xf32>
}

// -----

// Shape ops and reductions shift their axes by one; a result computed from shared
// values only is broadcast to the batch.

// CHECK-LABEL: func.func @shapes
// CHECK-NEXT:    %t = mindir.transpose %a {perm = array<i64: 0, 2, 1>} : (tensor<4x2x3xf32>) -> tensor<4x3x2xf32>
// CHECK-NEXT:    %s = mindir.reduce_sum %t {axis = array<i64: 2>} : (tensor<4x3x2xf32>) -> tensor<4x3xf32>
// CHECK-NEXT:    %v = mindir.reshape %s : (tensor<4x3xf32>) -> tensor<4x1x3xf32>
// CHECK-NEXT:    %c = mindir.constant dense<1.000000e+00> : tensor<3xf32>
// CHECK-NEXT:    %[[C:.*]] = mindir.broadcast_to %c : (tensor<3xf32>) -> tensor<4x3xf32>
// CHECK-NEXT:    func.return %v, %[[C]]
func.func @shapes(%a: tensor<4x2x3xf32>) -> (tensor<4x1x3xf32>, tensor<4x3xf32>) {
  %r:2 = mindir.vmap (%x = %a) in_axes [0] out_axes [0, 0] : (tensor<4x2x3xf32>) -> (tensor<4x1x3xf32>, tensor<4x3xf32>) {
    %t = mindir.transpose %x {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
    %s = mindir.reduce_sum %t {axis = array<i64: -1>} : (tensor<3x2xf32>) -> tensor<3xf32>
    %v = mindir.reshape %s : (tensor<3xf32>) -> tensor<1x3xf32>
    %c = mindir.constant dense<1.0> : tensor<3xf32>
    mindir.yield %v, %c : tensor<1x3xf32>, tensor<3xf32>
  }
  func.return %r#0, %r#1 : tensor<4x1x3xf32>, tensor<4x3xf32>
}

// -----

// Nested vmaps, inner first: a matrix-vector product batched twice.

// CHECK-LABEL: func.func @nested
// CHECK-NOT:     mindir.vmap
// CHECK:         mindir.matmul
// CHECK-NOT:     mindir.vmap
func.func @nested(%m: tensor<6x2x3xf32>, %v: tensor<3x1xf32>) -> tensor<6x2x1xf32> {
  %r = mindir.vmap (%x = %m) in_axes [0] out_axes [0] : (tensor<6x2x3xf32>) -> tensor<6x2x1xf32> {
    %i = mindir.vmap (%row = %x) in_axes [0] out_axes [0] : (tensor<2x3xf32>) -> tensor<2x1xf32> {
      %rr = mindir.reshape %row : (tensor<3xf32>) -> tensor<1x3xf32>
      %p = mindir.matmul %rr, %v : (tensor<1x3xf32>, tensor<3x1xf32>) -> tensor<1x1xf32>
      %q = mindir.reshape %p : (tensor<1x1xf32>) -> tensor<1xf32>
      mindir.yield %q : tensor<1xf32>
    }
    mindir.yield %i : tensor<2x1xf32>
  }
  func.return %r : tensor<6x2x1xf32>
}

// -----

// An if on a per-example condition becomes a select first, then batches: each
// example picks its own branch.

// CHECK-LABEL: func.func @per_example_if
// CHECK-NEXT:    %s = mindir.reduce_sum %a {axis = array<i64: 1>} : (tensor<4x3xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %c = mindir.greater %s, %z : (tensor<4xf32>, tensor<f32>) -> tensor<4xi1>
// CHECK-NEXT:    %n = mindir.neg %a : tensor<4x3xf32>
// CHECK-NEXT:    %[[C:.*]] = mindir.reshape %c : (tensor<4xi1>) -> tensor<4x1xi1>
// CHECK-NEXT:    %i = mindir.select %[[C]], %a, %n : (tensor<4x1xi1>, tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
// CHECK-NEXT:    func.return %i
func.func @per_example_if(%a: tensor<4x3xf32>, %z: tensor<f32>) -> tensor<4x3xf32> {
  %r = mindir.vmap (%x = %a) in_axes [0] out_axes [0] : (tensor<4x3xf32>) -> tensor<4x3xf32> {
    %s = mindir.reduce_sum %x : (tensor<3xf32>) -> tensor<f32>
    %c = mindir.greater %s, %z : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %i = mindir.if %c -> (tensor<3xf32>) {
      mindir.yield %x : tensor<3xf32>
    } else {
      %n = mindir.neg %x : tensor<3xf32>
      mindir.yield %n : tensor<3xf32>
    }
    mindir.yield %i : tensor<3xf32>
  }
  func.return %r : tensor<4x3xf32>
}

// -----

// unstack: the axis moves behind the batch axis and every piece is batched;
// get_item: the whole batch axis is kept in front of the slice.

// CHECK-LABEL: func.func @unstack_get_item
// CHECK-NEXT:    %p, %p_1, %p_2 = mindir.unstack %x {axis = 1 : i64} : tensor<4x3x2xf32> -> tensor<4x2xf32>
// CHECK-NEXT:    %g = mindir.get_item %x {starts = array<i64: 0, 0, 1>, limits = array<i64: 4, 3, 2>, strides = array<i64: 1, 1, 1>, squeeze = array<i64: 2>} : (tensor<4x3x2xf32>) -> tensor<4x3xf32>
// CHECK-NEXT:    %a = mindir.add %p, %p_2 : tensor<4x2xf32>
// CHECK-NEXT:    %[[T:.*]] = mindir.transpose %g {perm = array<i64: 1, 0>} : (tensor<4x3xf32>) -> tensor<3x4xf32>
// CHECK-NEXT:    func.return %a, %[[T]] : tensor<4x2xf32>, tensor<3x4xf32>
func.func @unstack_get_item(%x: tensor<4x3x2xf32>) -> (tensor<4x2xf32>, tensor<3x4xf32>) {
  %r:2 = mindir.vmap (%e = %x) in_axes [0] out_axes [0, 1] : (tensor<4x3x2xf32>) -> (tensor<4x2xf32>, tensor<3x4xf32>) {
    %p:3 = mindir.unstack %e : tensor<3x2xf32> -> tensor<2xf32>
    %g = mindir.get_item %e {starts = array<i64: 0, 1>, limits = array<i64: 3, 2>, strides = array<i64: 1, 1>, squeeze = array<i64: 1>} : (tensor<3x2xf32>) -> tensor<3xf32>
    %a = mindir.add %p#0, %p#2 : tensor<2xf32>
    mindir.yield %a, %g : tensor<2xf32>, tensor<3xf32>
  }
  func.return %r#0, %r#1 : tensor<4x2xf32>, tensor<3x4xf32>
}

// -----

// A strided get_item with an unbatched (shared) unstack next to it.

// CHECK-LABEL: func.func @strided
// CHECK-NEXT:    %w0, %w1 = mindir.unstack %w : tensor<2x3xf32> -> tensor<3xf32>
// CHECK-NEXT:    %g = mindir.get_item %x {starts = array<i64: 0, 0>, limits = array<i64: 5, 3>, strides = array<i64: 1, 2>} : (tensor<5x3xf32>) -> tensor<5x2xf32>
// CHECK-NEXT:    %s = mindir.mul %x, %w1 : (tensor<5x3xf32>, tensor<3xf32>) -> tensor<5x3xf32>
func.func @strided(%x: tensor<5x3xf32>, %w: tensor<2x3xf32>) -> (tensor<5x2xf32>, tensor<5x3xf32>) {
  %r:2 = mindir.vmap (%e = %x, %v = %w) in_axes [0, none] out_axes [0, 0] : (tensor<5x3xf32>, tensor<2x3xf32>) -> (tensor<5x2xf32>, tensor<5x3xf32>) {
    %w0, %w1 = mindir.unstack %v : tensor<2x3xf32> -> tensor<3xf32>
    %g = mindir.get_item %e {starts = array<i64: 0>, limits = array<i64: 3>, strides = array<i64: 2>} : (tensor<3xf32>) -> tensor<2xf32>
    %s = mindir.mul %e, %w1 : tensor<3xf32>
    mindir.yield %g, %s : tensor<2xf32>, tensor<3xf32>
  }
  func.return %r#0, %r#1 : tensor<5x2xf32>, tensor<5x3xf32>
}

// -----

// out_axes none: a result the examples share is returned once, unbatched.

// CHECK-LABEL: func.func @shared_result
// CHECK-NEXT:    %y = mindir.mul %a, %b : (tensor<5x3xf32>, tensor<3xf32>) -> tensor<5x3xf32>
// CHECK-NEXT:    %e = mindir.exp %b : tensor<3xf32>
// CHECK-NEXT:    func.return %y, %e : tensor<5x3xf32>, tensor<3xf32>
func.func @shared_result(%a: tensor<5x3xf32>, %b: tensor<3xf32>) -> (tensor<5x3xf32>, tensor<3xf32>) {
  %r:2 = mindir.vmap (%x = %a, %w = %b) in_axes [0, none] out_axes [0, none] : (tensor<5x3xf32>, tensor<3xf32>) -> (tensor<5x3xf32>, tensor<3xf32>) {
    %y = mindir.mul %x, %w : tensor<3xf32>
    %e = mindir.exp %w : tensor<3xf32>
    mindir.yield %y, %e : tensor<3xf32>, tensor<3xf32>
  }
  func.return %r#0, %r#1 : tensor<5x3xf32>, tensor<3xf32>
}
