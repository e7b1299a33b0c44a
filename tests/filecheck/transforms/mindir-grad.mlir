// RUN: ms-opt %s -p mindir-grad --split-input-file | filecheck %s

// Both inputs of a product: each adjoint is the other factor (the ones seed of
// reduce_sum folds away); `value` returns the forward output first.

// CHECK-LABEL: func.func @mul_sum
// CHECK-NEXT:    %m = mindir.mul %a, %b
// CHECK-NEXT:    %s = mindir.reduce_sum %m
// CHECK-NEXT:    func.return %s, %b, %a
func.func @mul_sum(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>, tensor<4xf32>) {
  %r:3 = mindir.grad (%x = %a, %y = %b) wrt [0, 1] weights [] value : (tensor<4xf32>, tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>, tensor<4xf32>) {
    %m = mindir.mul %x, %y : tensor<4xf32>
    %s = mindir.reduce_sum %m : (tensor<4xf32>) -> tensor<f32>
    mindir.yield %s : tensor<f32>
  }
  func.return %r#0, %r#1, %r#2 : tensor<f32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// A sens operand seeds the output; a broadcast input's adjoint is summed back
// to its shape.

// CHECK-LABEL: func.func @broadcast_sens
// CHECK:         %g = mindir.reduce_sum %s {axis = array<i64: 0>} : (tensor<2x3xf32>) -> tensor<3xf32>
// CHECK-NEXT:    func.return %g
func.func @broadcast_sens(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %s: tensor<2x3xf32>) -> tensor<3xf32> {
  %g = mindir.grad (%x = %a, %y = %b) sens (%s) wrt [1] weights [] : (tensor<2x3xf32>, tensor<3xf32>, tensor<2x3xf32>) -> tensor<3xf32> {
    %m = mindir.add %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    mindir.yield %m : tensor<2x3xf32>
  }
  func.return %g : tensor<3xf32>
}

// -----

// A Parameter read at two states (an Assign between): the gradient of @w is
// the sum over both Loads, and the backward reads each Load's own value.
// The forward keeps its effects and its state chain; the states pass through.

// CHECK-LABEL: func.func @weight_at_its_state
// CHECK:         %l0 = mindir.load %p, %u0
// CHECK:         %as = mindir.assign %p, %c, %u1
// CHECK:         %l1 = mindir.load %p, %u2
// CHECK:         %m0 = mindir.mul %a, %l0
// CHECK:         %[[G0:.*]] = mindir.mul %l1, %a
// CHECK-NEXT:    %g = mindir.add %m0, %[[G0]]
// CHECK-NEXT:    func.return %g, %u3 : tensor<2xf32>, !mindir.u
mindir.parameter @w = dense<[1.0, 2.0]> : tensor<2xf32>
func.func @weight_at_its_state(%a: tensor<2xf32>, %c: tensor<2xf32>, %u0: !mindir.u) -> (tensor<2xf32>, !mindir.u) {
  %g:2 = mindir.grad (%x = %a) wrt [] weights [@w] : (tensor<2xf32>) -> (tensor<2xf32>, !mindir.u) {
    %p = mindir.get_parameter @w : !mindir.ref<tensor<2xf32>>
    %l0 = mindir.load %p, %u0 : tensor<2xf32>
    %u1 = mindir.update_state %u0, %l0 : tensor<2xf32>
    %as = mindir.assign %p, %c, %u1 : tensor<2xf32>
    %u2 = mindir.update_state %u1, %as : tensor<2xf32>
    %l1 = mindir.load %p, %u2 : tensor<2xf32>
    %u3 = mindir.update_state %u2, %l1 : tensor<2xf32>
    %m0 = mindir.mul %x, %l0 : tensor<2xf32>
    %m1 = mindir.mul %m0, %l1 : tensor<2xf32>
    %s = mindir.reduce_sum %m1 : (tensor<2xf32>) -> tensor<f32>
    mindir.yield %s, %u3 : tensor<f32>, !mindir.u
  }
  func.return %g#0, %g#1 : tensor<2xf32>, !mindir.u
}

// -----

// Through an if: a second if on the same condition holds each branch's
// adjoint; the tanh the then-branch's adjoint needs leaves the forward if as
// an extra result (zeros from the else branch).

// CHECK-LABEL: func.func @through_if
// CHECK:         %r, %[[T:.*]] = mindir.if %c -> (tensor<3xf32>, tensor<3xf32>) {
// CHECK-NEXT:      %t = mindir.tanh %a
// CHECK-NEXT:      mindir.yield %t, %t
// CHECK:         } else {
// CHECK:           %n = mindir.neg %a
// CHECK:         %g = mindir.if %c -> (tensor<3xf32>) {
// CHECK:           mindir.tanh_grad %[[T]], %{{.*}}
// CHECK:         } else {
// CHECK:           mindir.neg
// CHECK:         func.return %g
func.func @through_if(%c: tensor<i1>, %a: tensor<3xf32>) -> tensor<3xf32> {
  %g = mindir.grad (%x = %a) wrt [0] weights [] : (tensor<3xf32>) -> tensor<3xf32> {
    %r = mindir.if %c -> (tensor<3xf32>) {
      %t = mindir.tanh %x : tensor<3xf32>
      mindir.yield %t : tensor<3xf32>
    } else {
      %n = mindir.neg %x : tensor<3xf32>
      mindir.yield %n : tensor<3xf32>
    }
    %s = mindir.reduce_sum %r : (tensor<3xf32>) -> tensor<f32>
    mindir.yield %s : tensor<f32>
  }
  func.return %g : tensor<3xf32>
}

// -----

// A grad inside a grad (second order) is expanded first: d2/dx2 x^3 = 6x.

// CHECK-LABEL: func.func @second_order
// CHECK-NOT:     mindir.grad
// CHECK:         %g2 = mindir.add
// CHECK-NEXT:    func.return %g2
func.func @second_order(%a: tensor<f32>) -> tensor<f32> {
  %g2 = mindir.grad (%x = %a) wrt [0] weights [] : (tensor<f32>) -> tensor<f32> {
    %g1 = mindir.grad (%y = %x) wrt [0] weights [] : (tensor<f32>) -> tensor<f32> {
      %c = mindir.mul %y, %y : tensor<f32>
      %cube = mindir.mul %c, %y : tensor<f32>
      mindir.yield %cube : tensor<f32>
    }
    mindir.yield %g1 : tensor<f32>
  }
  func.return %g2 : tensor<f32>
}

// -----

// sigmoid's and tanh's adjoints are one op each, read from the forward result
// (MindSpore's SigmoidGrad(y, dy) and TanhGrad(y, dy)).

// CHECK-LABEL: func.func @sigmoid_tanh
// CHECK:         %s = mindir.sigmoid %a
// CHECK-NEXT:    %t = mindir.tanh %b
// CHECK-NEXT:    %m = mindir.mul %s, %t
// CHECK-NEXT:    %r = mindir.reduce_sum %m
// CHECK-NEXT:    %[[DB:.*]] = mindir.tanh_grad %t, %s : tensor<3xf32>
// CHECK-NEXT:    %[[DA:.*]] = mindir.sigmoid_grad %s, %t : tensor<3xf32>
// CHECK-NEXT:    func.return %[[DA]], %[[DB]]
func.func @sigmoid_tanh(%a: tensor<3xf32>, %b: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %g:2 = mindir.grad (%x = %a, %y = %b) wrt [0, 1] weights [] : (tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
    %s = mindir.sigmoid %x : tensor<3xf32>
    %t = mindir.tanh %y : tensor<3xf32>
    %m = mindir.mul %s, %t : tensor<3xf32>
    %r = mindir.reduce_sum %m : (tensor<3xf32>) -> tensor<f32>
    mindir.yield %r : tensor<f32>
  }
  func.return %g#0, %g#1 : tensor<3xf32>, tensor<3xf32>
}

// -----

// Second order through sigmoid_grad: d/dy of dy * y * (1 - y) is dy * (1 - 2y), so
// d2/dx2 sum(sigmoid(x)) = sigmoid_grad(s, 1 - 2s) (the ones seeds fold away).

// CHECK-LABEL: func.func @second_order_sigmoid
// CHECK-NOT:     mindir.grad
// CHECK:         %s = mindir.sigmoid %a
// CHECK:         %g1 = mindir.sigmoid_grad %s, %{{.*}}
// CHECK:         %[[TWO_S:.*]] = mindir.mul %s, %{{.*}} : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
// CHECK-NEXT:    %[[SLOPE:.*]] = mindir.sub %{{.*}}, %[[TWO_S]] : (tensor<f32>, tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT:    %g2 = mindir.sigmoid_grad %s, %[[SLOPE]] : tensor<3xf32>
// CHECK-NEXT:    func.return %g2
func.func @second_order_sigmoid(%a: tensor<3xf32>) -> tensor<3xf32> {
  %g2 = mindir.grad (%x = %a) wrt [0] weights [] : (tensor<3xf32>) -> tensor<3xf32> {
    %g1 = mindir.grad (%y = %x) wrt [0] weights [] : (tensor<3xf32>) -> tensor<3xf32> {
      %s = mindir.sigmoid %y : tensor<3xf32>
      %r = mindir.reduce_sum %s : (tensor<3xf32>) -> tensor<f32>
      mindir.yield %r : tensor<f32>
    }
    %r1 = mindir.reduce_sum %g1 : (tensor<3xf32>) -> tensor<f32>
    mindir.yield %r1 : tensor<f32>
  }
  func.return %g2 : tensor<3xf32>
}

// -----

// aux 1: the last output is returned with `value` but not differentiated; an
// input no differentiated output depends on gets zeros (made once per block, at
// its start, like every constant of the backward).

// CHECK-LABEL: func.func @aux_and_zero
// CHECK-NEXT:    %[[ZERO:.*]] = mindir.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT:    %r = mindir.broadcast_to %[[ZERO]]
// CHECK-NEXT:    %e = mindir.exp %a
// CHECK:         func.return %s, %b, %e, %r
func.func @aux_and_zero(%a: tensor<2xf32>, %b: tensor<2xf32>) -> (tensor<f32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %r:4 = mindir.grad (%x = %a, %y = %b) wrt [0, 1] weights [] aux 1 value : (tensor<2xf32>, tensor<2xf32>) -> (tensor<f32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
    %e = mindir.exp %x : tensor<2xf32>
    %s = mindir.reduce_sum %e : (tensor<2xf32>) -> tensor<f32>
    mindir.yield %s, %y : tensor<f32>, tensor<2xf32>
  }
  func.return %r#0, %r#1, %r#2, %r#3 : tensor<f32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}

// -----

// A call kept by lazy inline stays a call: its graph has no effects, so it is its
// own pure form, and its backward is a call of the shared vjp graph made once
// (mindir-grad-shared-calls.mlir has graphs that load Parameters).

// CHECK-LABEL: func.func private @square_vjp(%v: tensor<3xf32>, %dout0: tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT:    %0 = mindir.mul %dout0, %v
// CHECK-NEXT:    %1 = mindir.mul %dout0, %v
// CHECK-NEXT:    %2 = mindir.add %0, %1
// CHECK-NEXT:    func.return %2
// CHECK-LABEL: func.func @kept_call
// CHECK-NEXT:    %{{.*}} = mindir.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT:    %q = func.call @square(%a)
// CHECK-NEXT:    %s = mindir.reduce_sum %q
// CHECK:         %g = func.call @square_vjp(%a, %{{.*}})
// CHECK-NEXT:    func.return %g
func.func private @square(%v: tensor<3xf32>) -> tensor<3xf32> attributes {mindir.lazy_inline = "k"} {
  %s = mindir.mul %v, %v : tensor<3xf32>
  func.return %s : tensor<3xf32>
}
func.func @kept_call(%a: tensor<3xf32>) -> tensor<3xf32> {
  %g = mindir.grad (%x = %a) wrt [0] weights [] : (tensor<3xf32>) -> tensor<3xf32> {
    %q = func.call @square(%x) : (tensor<3xf32>) -> tensor<3xf32>
    %s = mindir.reduce_sum %q : (tensor<3xf32>) -> tensor<f32>
    mindir.yield %s : tensor<f32>
  }
  func.return %g : tensor<3xf32>
}

// -----

// No gradient flows through stop_gradient: d(stop(x*y)*x)/dx is stop(x*y) only
// (the product's own adjoint is never built).

// CHECK-LABEL: func.func @stop_gradient
// CHECK-NEXT:    %m = mindir.mul %a, %b
// CHECK-NEXT:    %s = mindir.stop_gradient %m
// CHECK-NEXT:    %o = mindir.mul %s, %a
// CHECK-NEXT:    func.return %s
func.func @stop_gradient(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %g = mindir.grad (%x = %a, %y = %b) wrt [0] weights [] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
    %m = mindir.mul %x, %y : tensor<4xf32>
    %s = mindir.stop_gradient %m : tensor<4xf32>
    %o = mindir.mul %s, %x : tensor<4xf32>
    mindir.yield %o : tensor<4xf32>
  }
  func.return %g : tensor<4xf32>
}

// -----

// A reused forward: the region yields %s, computed before the op from its input
// %a (a TrainOneStepCell's loss). Those ops are the forward: they stay where they
// are and run once (one Assign), and the adjoints follow them; the gradient of
// @w reads the Load's value, the input's flows through the mul.

// CHECK-LABEL: func.func @reused_forward
// CHECK:         %l = mindir.load %p, %u0
// CHECK:         %as = mindir.assign %p, %n, %u1
// CHECK:         %m = mindir.mul %a, %l
// CHECK-NEXT:    %s = mindir.reduce_sum %m
// CHECK-NOT:     mindir.assign
// CHECK-NOT:     mindir.load
// CHECK:         func.return %s, %l, %a, %u2
mindir.parameter @w = dense<[1.0, 2.0]> : tensor<2xf32>
func.func @reused_forward(%a: tensor<2xf32>, %n: tensor<2xf32>, %u0: !mindir.u) -> (tensor<f32>, tensor<2xf32>, tensor<2xf32>, !mindir.u) {
  %p = mindir.get_parameter @w : !mindir.ref<tensor<2xf32>>
  %l = mindir.load %p, %u0 : tensor<2xf32>
  %u1 = mindir.update_state %u0, %l : tensor<2xf32>
  %as = mindir.assign %p, %n, %u1 : tensor<2xf32>
  %u2 = mindir.update_state %u1, %as : tensor<2xf32>
  %m = mindir.mul %a, %l : tensor<2xf32>
  %s = mindir.reduce_sum %m : (tensor<2xf32>) -> tensor<f32>
  %g:2 = mindir.grad (%x = %a) wrt [0] weights [@w] : (tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
    mindir.yield %s : tensor<f32>
  }
  func.return %s, %g#0, %g#1, %u2 : tensor<f32>, tensor<2xf32>, tensor<2xf32>, !mindir.u
}

// -----

// A weight read only inside a branch: nothing the if uses from outside is
// varying, but what its branch yields is, so the if is differentiated and the
// weight's adjoint comes out of the backward if (it was zero before).

// CHECK-LABEL: func.func @weight_only_in_a_branch
// CHECK:         %r = mindir.if %c -> (tensor<2xf32>) {
// CHECK:           %m = mindir.mul %a, %l
// CHECK:         %g = mindir.if %c -> (tensor<2xf32>) {
// CHECK-NEXT:      mindir.yield %a : tensor<2xf32>
// CHECK-NEXT:    } else {
// CHECK:           mindir.broadcast_to
// CHECK:         func.return %g : tensor<2xf32>
mindir.parameter @w = dense<[2.0, 3.0]> : tensor<2xf32>
func.func @weight_only_in_a_branch(%c: tensor<i1>, %a: tensor<2xf32>, %u0: !mindir.u) -> tensor<2xf32> {
  %g = mindir.grad (%x = %a) wrt [] weights [@w] : (tensor<2xf32>) -> tensor<2xf32> {
    %r = mindir.if %c -> (tensor<2xf32>) {
      %p = mindir.get_parameter @w : !mindir.ref<tensor<2xf32>>
      %l = mindir.load %p, %u0 : tensor<2xf32>
      %m = mindir.mul %x, %l : tensor<2xf32>
      mindir.yield %m : tensor<2xf32>
    } else {
      mindir.yield %x : tensor<2xf32>
    }
    %s = mindir.reduce_sum %r : (tensor<2xf32>) -> tensor<f32>
    mindir.yield %s : tensor<f32>
  }
  func.return %g : tensor<2xf32>
}

// -----

// A tensor cut into slices (an LSTM's gates): each get_item's adjoint is its slice
// with zeros around it, and their sum is one concat of the slices' adjoints, zeros
// where no slice is read (as MindSpore's Split bprop), with no add.

// CHECK-LABEL: func.func @split_adjoint
// CHECK:         %[[Z:.*]] = mindir.broadcast_to %{{.*}} : (tensor<f32>) -> tensor<2x1xf32>
// CHECK:         %[[G:.*]] = mindir.concat %{{.*}}, %[[Z]], %{{.*}} {axis = 1 : i64} : (tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x2xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    func.return %[[G]]
func.func @split_adjoint(%a: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %g = mindir.grad (%x = %a) wrt [0] weights [] : (tensor<2x4xf32>) -> tensor<2x4xf32> {
    %i = mindir.get_item %x {starts = array<i64: 0, 0>, limits = array<i64: 2, 1>, strides = array<i64: 1, 1>} : (tensor<2x4xf32>) -> tensor<2x1xf32>
    %o = mindir.get_item %x {starts = array<i64: 0, 2>, limits = array<i64: 2, 4>, strides = array<i64: 1, 1>} : (tensor<2x4xf32>) -> tensor<2x2xf32>
    %ii = mindir.mul %i, %i : tensor<2x1xf32>
    %s1 = mindir.reduce_sum %ii : (tensor<2x1xf32>) -> tensor<f32>
    %s2 = mindir.reduce_sum %o : (tensor<2x2xf32>) -> tensor<f32>
    %s = mindir.add %s1, %s2 : tensor<f32>
    mindir.yield %s : tensor<f32>
  }
  func.return %g : tensor<2x4xf32>
}

// -----

// Overlapping slices are a real sum.

// CHECK-LABEL: func.func @overlapping_slices_adjoint
// CHECK-COUNT-2: mindir.concat
// CHECK:         mindir.add
func.func @overlapping_slices_adjoint(%a: tensor<4xf32>) -> tensor<4xf32> {
  %g = mindir.grad (%x = %a) wrt [0] weights [] : (tensor<4xf32>) -> tensor<4xf32> {
    %p = mindir.get_item %x {starts = array<i64: 0>, limits = array<i64: 3>, strides = array<i64: 1>} : (tensor<4xf32>) -> tensor<3xf32>
    %q = mindir.get_item %x {starts = array<i64: 1>, limits = array<i64: 4>, strides = array<i64: 1>} : (tensor<4xf32>) -> tensor<3xf32>
    %pq = mindir.mul %p, %q : tensor<3xf32>
    %s = mindir.reduce_sum %pq : (tensor<3xf32>) -> tensor<f32>
    mindir.yield %s : tensor<f32>
  }
  func.return %g : tensor<4xf32>
}
