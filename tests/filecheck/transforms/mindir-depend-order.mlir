// RUN: ms-opt %s -p mindir-depend-order --split-input-file | filecheck %s

// Write-after-read (`x = p; assign(p, y); t = y + x; assign(p, t); return p - w`):
// the Load aliases @p, so its user %t must run before the next Assign. %t is
// attached to the update_state that feeds that Assign and the block is reordered.

// CHECK-LABEL: func.func @war
// CHECK-NEXT:    %pp = mindir.get_parameter @p
// CHECK-NEXT:    %x = mindir.load %pp, %u0 : tensor<f32>
// CHECK-NEXT:    %t = mindir.add %y, %x : tensor<f32>
// CHECK-NEXT:    %u1 = mindir.update_state %u0, %x, %t : tensor<f32>, tensor<f32>
// CHECK-NEXT:    %a1 = mindir.assign %pp, %y, %u1 : tensor<f32>
// CHECK-NEXT:    %u2 = mindir.update_state %u1, %a1 : tensor<f32>
// CHECK-NEXT:    %a2 = mindir.assign %pp, %t, %u2 : tensor<f32>
// CHECK-NEXT:    %u3 = mindir.update_state %u2, %a2 : tensor<f32>
// CHECK-NEXT:    %l = mindir.load %pp, %u3 : tensor<f32>
// CHECK-NEXT:    %u4 = mindir.update_state %u3, %l : tensor<f32>
// CHECK-NEXT:    %r = mindir.sub %l, %w : tensor<f32>
// CHECK-NEXT:    func.return %r, %u4 : tensor<f32>, !mindir.u
mindir.parameter @p = dense<0.0> : tensor<f32>

func.func @war(%y: tensor<f32>, %w: tensor<f32>, %u0: !mindir.u) -> (tensor<f32>, !mindir.u) {
  %pp = mindir.get_parameter @p : !mindir.ref<tensor<f32>>
  %x = mindir.load %pp, %u0 : tensor<f32>
  %u1 = mindir.update_state %u0, %x : tensor<f32>
  %a1 = mindir.assign %pp, %y, %u1 : tensor<f32>
  %u2 = mindir.update_state %u1, %a1 : tensor<f32>
  %t = mindir.add %y, %x : tensor<f32>
  %a2 = mindir.assign %pp, %t, %u2 : tensor<f32>
  %u3 = mindir.update_state %u2, %a2 : tensor<f32>
  %l = mindir.load %pp, %u3 : tensor<f32>
  %u4 = mindir.update_state %u3, %l : tensor<f32>
  %r = mindir.sub %l, %w : tensor<f32>
  func.return %r, %u4 : tensor<f32>, !mindir.u
}

// -----

// The Assign takes a block argument as its state: an update_state is inserted
// before it to attach the users to. %s uses the Assign's result, so it cannot run
// before it and is left alone.

// CHECK-LABEL: func.func @inserted
// CHECK-NEXT:    %pp = mindir.get_parameter @p
// CHECK-NEXT:    %x = mindir.load %pp, %u0 : tensor<f32>
// CHECK-NEXT:    %t = mindir.mul %x, %y : tensor<f32>
// CHECK-NEXT:    %[[U:.*]] = mindir.update_state %u0, %t : tensor<f32>
// CHECK-NEXT:    %a = mindir.assign %pp, %y, %[[U]] : tensor<f32>
// CHECK-NEXT:    %s = mindir.add %x, %a : tensor<f32>
// CHECK-NEXT:    %r = mindir.add %t, %s : tensor<f32>
// CHECK-NEXT:    func.return %r : tensor<f32>
mindir.parameter @p = dense<0.0> : tensor<f32>

func.func @inserted(%y: tensor<f32>, %u0: !mindir.u) -> tensor<f32> {
  %pp = mindir.get_parameter @p : !mindir.ref<tensor<f32>>
  %x = mindir.load %pp, %u0 : tensor<f32>
  %a = mindir.assign %pp, %y, %u0 : tensor<f32>
  %t = mindir.mul %x, %y : tensor<f32>
  %s = mindir.add %x, %a : tensor<f32>
  %r = mindir.add %t, %s : tensor<f32>
  func.return %r : tensor<f32>
}

// -----

// The next write can be a call whose callee assigns the Parameter, or an if that
// assigns it in a branch: the users of the Load are attached to their input state.

// CHECK-LABEL: func.func @call_and_if
// CHECK-NEXT:    %pp = mindir.get_parameter @p
// CHECK-NEXT:    %x = mindir.load %pp, %u0 : tensor<f32>
// CHECK-NEXT:    %t = mindir.mul %x, %y : tensor<f32>
// CHECK-NEXT:    %u1 = mindir.update_state %u0, %x, %t : tensor<f32>, tensor<f32>
// CHECK-NEXT:    %r, %[[RU:.*]] = func.call @set(%y, %u1)
// CHECK-NEXT:    %x2 = mindir.load %pp, %[[RU]] : tensor<f32>
// CHECK-NEXT:    %t2 = mindir.mul %x2, %t : tensor<f32>
// CHECK-NEXT:    %u2 = mindir.update_state %[[RU]], %x2, %t2 : tensor<f32>, tensor<f32>
// CHECK-NEXT:    %i, %[[IU:.*]] = mindir.if %c
// CHECK-NEXT:      %a = mindir.assign %pp, %y, %u2 : tensor<f32>
// CHECK:         func.return %t2, %[[IU]] : tensor<f32>, !mindir.u
mindir.parameter @p = dense<0.0> : tensor<f32>

func.func @set(%v: tensor<f32>, %u0: !mindir.u) -> (tensor<f32>, !mindir.u) {
  %pp = mindir.get_parameter @p : !mindir.ref<tensor<f32>>
  %a = mindir.assign %pp, %v, %u0 : tensor<f32>
  %u1 = mindir.update_state %u0, %a : tensor<f32>
  func.return %a, %u1 : tensor<f32>, !mindir.u
}

func.func @call_and_if(%y: tensor<f32>, %c: tensor<i1>, %u0: !mindir.u) -> (tensor<f32>, !mindir.u) {
  %pp = mindir.get_parameter @p : !mindir.ref<tensor<f32>>
  %x = mindir.load %pp, %u0 : tensor<f32>
  %u1 = mindir.update_state %u0, %x : tensor<f32>
  %r:2 = func.call @set(%y, %u1) : (tensor<f32>, !mindir.u) -> (tensor<f32>, !mindir.u)
  %t = mindir.mul %x, %y : tensor<f32>
  %x2 = mindir.load %pp, %r#1 : tensor<f32>
  %u2 = mindir.update_state %r#1, %x2 : tensor<f32>
  %i:2 = mindir.if %c -> (tensor<f32>, !mindir.u) {
    %a = mindir.assign %pp, %y, %u2 : tensor<f32>
    %ui = mindir.update_state %u2, %a : tensor<f32>
    mindir.yield %a, %ui : tensor<f32>, !mindir.u
  } else {
    mindir.yield %y, %u2 : tensor<f32>, !mindir.u
  }
  %t2 = mindir.mul %x2, %t : tensor<f32>
  func.return %t2, %i#1 : tensor<f32>, !mindir.u
}

// -----

// The notebook's forward program after mindir-auto-monad: each Load's user (the
// multiplication) is attached to the update_state before the next Assign; the
// order of the block was already right and stays (only the update_states move
// after the users they now wait for).

// CHECK-LABEL: func.func @ForwardNet_construct
// CHECK:         %l0 = mindir.load %q0, %u1 : tensor<i32>
// CHECK-NEXT:    %m0 = mindir.mul %x, %l0 : tensor<i32>
// CHECK-NEXT:    %u2 = mindir.update_state %u1, %l0, %m0 : tensor<i32>, tensor<i32>
// CHECK-NEXT:    %out0 = mindir.add %m0, %zero : tensor<i32>
// CHECK:         %a1 = mindir.assign %p1, %c1, %u2 : tensor<i32>
// CHECK:         %l1 = mindir.load %q1, %u3 : tensor<i32>
// CHECK-NEXT:    %m1 = mindir.mul %x, %l1 : tensor<i32>
// CHECK-NEXT:    %u4 = mindir.update_state %u3, %l1, %m1 : tensor<i32>, tensor<i32>
// CHECK:         %a2 = mindir.assign %p2, %c2, %u4 : tensor<i32>
// CHECK:         %l2 = mindir.load %q2, %u5 : tensor<i32>
// CHECK-NEXT:    %u6 = mindir.update_state %u5, %l2 : tensor<i32>
// CHECK-NEXT:    %m2 = mindir.mul %x, %l2 : tensor<i32>
mindir.parameter @param = dense<0> : tensor<i32>

func.func @ForwardNet_construct(%x: tensor<i32>, %u0: !mindir.u) -> (tensor<i32>, !mindir.u) {
  %zero = mindir.constant dense<0> : tensor<i32>
  %c0 = mindir.constant dense<0> : tensor<i32>
  %p0 = mindir.get_parameter @param : !mindir.ref<tensor<i32>>
  %a0 = mindir.assign %p0, %c0, %u0 : tensor<i32>
  %u1 = mindir.update_state %u0, %a0 : tensor<i32>
  %q0 = mindir.get_parameter @param : !mindir.ref<tensor<i32>>
  %l0 = mindir.load %q0, %u1 : tensor<i32>
  %u2 = mindir.update_state %u1, %l0 : tensor<i32>
  %m0 = mindir.mul %x, %l0 : tensor<i32>
  %out0 = mindir.add %m0, %zero : tensor<i32>
  %c1 = mindir.constant dense<1> : tensor<i32>
  %p1 = mindir.get_parameter @param : !mindir.ref<tensor<i32>>
  %a1 = mindir.assign %p1, %c1, %u2 : tensor<i32>
  %u3 = mindir.update_state %u2, %a1 : tensor<i32>
  %q1 = mindir.get_parameter @param : !mindir.ref<tensor<i32>>
  %l1 = mindir.load %q1, %u3 : tensor<i32>
  %u4 = mindir.update_state %u3, %l1 : tensor<i32>
  %m1 = mindir.mul %x, %l1 : tensor<i32>
  %out1 = mindir.add %m1, %out0 : tensor<i32>
  %c2 = mindir.constant dense<2> : tensor<i32>
  %p2 = mindir.get_parameter @param : !mindir.ref<tensor<i32>>
  %a2 = mindir.assign %p2, %c2, %u4 : tensor<i32>
  %u5 = mindir.update_state %u4, %a2 : tensor<i32>
  %q2 = mindir.get_parameter @param : !mindir.ref<tensor<i32>>
  %l2 = mindir.load %q2, %u5 : tensor<i32>
  %u6 = mindir.update_state %u5, %l2 : tensor<i32>
  %m2 = mindir.mul %x, %l2 : tensor<i32>
  %out2 = mindir.add %m2, %out1 : tensor<i32>
  func.return %out2, %u6 : tensor<i32>, !mindir.u
}

// -----

// A block that is already in order is unchanged, and a read-only Parameter's
// loads attach nothing.

// CHECK-LABEL: func.func @unchanged
// CHECK-NEXT:    %pr = mindir.get_parameter @r
// CHECK-NEXT:    %l = mindir.load %pr, %u0 : tensor<f32>
// CHECK-NEXT:    %n = mindir.neg %l : tensor<f32>
// CHECK-NEXT:    %pw = mindir.get_parameter @w
// CHECK-NEXT:    %a = mindir.assign %pw, %n, %u0 : tensor<f32>
// CHECK-NEXT:    %u1 = mindir.update_state %u0, %a : tensor<f32>
// CHECK-NEXT:    %m = mindir.mul %l, %n : tensor<f32>
// CHECK-NEXT:    func.return %m, %u1
mindir.parameter @r = dense<1.0> : tensor<f32>
mindir.parameter @w = dense<1.0> : tensor<f32>

func.func @unchanged(%u0: !mindir.u) -> (tensor<f32>, !mindir.u) {
  %pr = mindir.get_parameter @r : !mindir.ref<tensor<f32>>
  %l = mindir.load %pr, %u0 : tensor<f32>
  %n = mindir.neg %l : tensor<f32>
  %pw = mindir.get_parameter @w : !mindir.ref<tensor<f32>>
  %a = mindir.assign %pw, %n, %u0 : tensor<f32>
  %u1 = mindir.update_state %u0, %a : tensor<f32>
  %m = mindir.mul %l, %n : tensor<f32>
  func.return %m, %u1 : tensor<f32>, !mindir.u
}

// -----

// The docs' Depend example as the frontend emits it: alloc, clear, the
// computation, get are already in order, and stay so.

// CHECK-LABEL: func.func @float_status
// CHECK-NEXT:    %init = mindir.npu_alloc_float_status
// CHECK-NEXT:    %clear = mindir.npu_clear_float_status %init
// CHECK-NEXT:    %x1 = mindir.depend %x, %clear
// CHECK-NEXT:    %neg = mindir.neg %x1
// CHECK-NEXT:    %res = mindir.sub %x1, %neg
// CHECK-NEXT:    %init1 = mindir.depend %init, %res
// CHECK-NEXT:    %get = mindir.npu_get_float_status %init1
// CHECK-NEXT:    %out = mindir.depend %res, %get
// CHECK-NEXT:    func.return %out
func.func @float_status(%x: tensor<2x3xf16>) -> tensor<2x3xf16> {
  %init = mindir.npu_alloc_float_status : tensor<8xf32>
  %clear = mindir.npu_clear_float_status %init : tensor<8xf32>
  %x1 = mindir.depend %x, %clear : tensor<2x3xf16>, tensor<8xf32>
  %neg = mindir.neg %x1 : tensor<2x3xf16>
  %res = mindir.sub %x1, %neg : tensor<2x3xf16>
  %init1 = mindir.depend %init, %res : tensor<8xf32>, tensor<2x3xf16>
  %get = mindir.npu_get_float_status %init1 : tensor<8xf32>
  %out = mindir.depend %res, %get : tensor<2x3xf16>, tensor<8xf32>
  func.return %out : tensor<2x3xf16>
}

// -----

// A reshape of a Load is a view of the Parameter's buffer once lowered: users
// reached through it (here through two reshapes) also run before the next Assign.

// CHECK-LABEL: func.func @through_views
// CHECK:         %x = mindir.load %pp, %u0 : tensor<2x2xf32>
// CHECK:         %v1 = mindir.reshape %x
// CHECK:         %v2 = mindir.reshape %v1
// CHECK:         %t = mindir.add %v2, %y : tensor<4xf32>
// CHECK:         %[[U:.*]] = mindir.update_state %u0, %x, %v1, %v2, %t
// CHECK-NEXT:    %a = mindir.assign %pp, %z, %[[U]] : tensor<2x2xf32>
mindir.parameter @p = dense<0.0> : tensor<2x2xf32>

func.func @through_views(%y: tensor<4xf32>, %z: tensor<2x2xf32>, %u0: !mindir.u) -> (tensor<4xf32>, !mindir.u) {
  %pp = mindir.get_parameter @p : !mindir.ref<tensor<2x2xf32>>
  %x = mindir.load %pp, %u0 : tensor<2x2xf32>
  %v1 = mindir.reshape %x : (tensor<2x2xf32>) -> tensor<1x4xf32>
  %v2 = mindir.reshape %v1 : (tensor<1x4xf32>) -> tensor<4xf32>
  %u1 = mindir.update_state %u0, %x : tensor<2x2xf32>
  %a = mindir.assign %pp, %z, %u1 : tensor<2x2xf32>
  %u2 = mindir.update_state %u1, %a : tensor<2x2xf32>
  %t = mindir.add %v2, %y : tensor<4xf32>
  func.return %t, %u2 : tensor<4xf32>, !mindir.u
}

// -----

// mindir.apply_momentum writes its accumulation too: a user of a Load of the
// accumulation runs before it, attached to the state it starts from.

// CHECK-LABEL: func.func @before_apply_momentum
// CHECK:         %m = mindir.load %pm, %u0 : tensor<2xf32>
// CHECK:         %t = mindir.add %m, %g : tensor<2xf32>
// CHECK:         %[[U:.*]] = mindir.update_state %u0, %m, %t
// CHECK-NEXT:    %v = mindir.apply_momentum %pw, %pm, %lr, %g, %mu, %[[U]] : tensor<2xf32>
mindir.parameter @w = dense<[1.0, 2.0]> : tensor<2xf32>
mindir.parameter @m = dense<0.0> : tensor<2xf32>

func.func @before_apply_momentum(%g: tensor<2xf32>, %lr: tensor<f32>, %mu: tensor<f32>, %u0: !mindir.u) -> (tensor<2xf32>, !mindir.u) {
  %pw = mindir.get_parameter @w : !mindir.ref<tensor<2xf32>>
  %pm = mindir.get_parameter @m : !mindir.ref<tensor<2xf32>>
  %m = mindir.load %pm, %u0 : tensor<2xf32>
  %u1 = mindir.update_state %u0, %m : tensor<2xf32>
  %v = mindir.apply_momentum %pw, %pm, %lr, %g, %mu, %u1 : tensor<2xf32>
  %u2 = mindir.update_state %u1, %v : tensor<2xf32>
  %t = mindir.add %m, %g : tensor<2xf32>
  func.return %t, %u2 : tensor<2xf32>, !mindir.u
}
