// RUN: ms-opt %s --split-input-file --pass-pipeline='builtin.module(mindir-load-elim{level=0})' | filecheck %s --check-prefixes=CHECK,L0
// RUN: ms-opt %s --split-input-file --pass-pipeline='builtin.module(mindir-load-elim{level=1})' | filecheck %s --check-prefixes=CHECK,L1
// RUN: ms-opt %s --split-input-file -p 'mindir-load-elim{level=2}' | filecheck %s --check-prefixes=CHECK,L2
// RUN: ms-opt %s --split-input-file -p 'mindir-load-elim{level=3}' 2>/dev/null | filecheck %s --check-prefixes=CHECK,L3
// RUN: env MS_DEV_SIDE_EFFECT_LOAD_ELIM=2 ms-opt %s --split-input-file -p mindir-load-elim | filecheck %s --check-prefixes=CHECK,L2

// The docs' forward program after auto-monad and depend-order (`while i < 3:
// assign(param, i); out = x * param + out`, unrolled): three states of @param, so
// three TensorMoves at levels 0 and 1; none at level 2 (each mul reads one Load and
// sees no other state, the adds read products only) and none at level 3.

// The copy takes over every use of the Load, the update_state that orders it
// before the next Assign included (as in MindSpore's IR).

// CHECK-LABEL:   func.func @forward
// L0-COUNT-3:      mindir.tensor_move
// L1:              %l0 = mindir.load %p, %u1 : tensor<i32>
// L1-NEXT:         %[[C0:.*]] = mindir.tensor_move %l0 : tensor<i32>
// L1-NEXT:         %m0 = mindir.mul %x, %[[C0]] : tensor<i32>
// L1-NEXT:         %u2 = mindir.update_state %u1, %[[C0]], %m0 : tensor<i32>, tensor<i32>
// L1-COUNT-2:      mindir.tensor_move
// L2-NOT:          mindir.tensor_move
// L3-NOT:          mindir.tensor_move
// CHECK:           func.return
mindir.parameter @param = dense<0> : tensor<i32>

func.func @forward(%x: tensor<i32>, %u0: !mindir.u) -> (tensor<i32>, !mindir.u) {
  %c0 = mindir.constant dense<0> : tensor<i32>
  %p = mindir.get_parameter @param : !mindir.ref<tensor<i32>>
  %a0 = mindir.assign %p, %c0, %u0 : tensor<i32>
  %u1 = mindir.update_state %u0, %a0 : tensor<i32>
  %l0 = mindir.load %p, %u1 : tensor<i32>
  %m0 = mindir.mul %x, %l0 : tensor<i32>
  %u2 = mindir.update_state %u1, %l0, %m0 : tensor<i32>, tensor<i32>
  %o0 = mindir.add %m0, %c0 : tensor<i32>
  %c1 = mindir.constant dense<1> : tensor<i32>
  %a1 = mindir.assign %p, %c1, %u2 : tensor<i32>
  %u3 = mindir.update_state %u2, %a1 : tensor<i32>
  %l1 = mindir.load %p, %u3 : tensor<i32>
  %m1 = mindir.mul %x, %l1 : tensor<i32>
  %u4 = mindir.update_state %u3, %l1, %m1 : tensor<i32>, tensor<i32>
  %o1 = mindir.add %m1, %o0 : tensor<i32>
  %c2 = mindir.constant dense<2> : tensor<i32>
  %a2 = mindir.assign %p, %c2, %u4 : tensor<i32>
  %u5 = mindir.update_state %u4, %a2 : tensor<i32>
  %l2 = mindir.load %p, %u5 : tensor<i32>
  %u6 = mindir.update_state %u5, %l2 : tensor<i32>
  %m2 = mindir.mul %x, %l2 : tensor<i32>
  %o2 = mindir.add %m2, %o1 : tensor<i32>
  func.return %o2, %u6 : tensor<i32>, !mindir.u
}

// -----

// The same program with @param taken as an argument bound to it (the entry graph's
// form): the same Parameter, so the same TensorMoves at every level.

// CHECK-LABEL:   func.func @forward_bound
// L0-COUNT-3:      mindir.tensor_move
// L1-COUNT-3:      mindir.tensor_move
// L2-NOT:          mindir.tensor_move
// L3-NOT:          mindir.tensor_move
// CHECK:           func.return
mindir.parameter @param = dense<0> : tensor<i32>

func.func @forward_bound(%x: tensor<i32>, %p: !mindir.ref<tensor<i32>> {mindir.parameter = @param}, %u0: !mindir.u) -> (tensor<i32>, !mindir.u) {
  %c0 = mindir.constant dense<0> : tensor<i32>
  %a0 = mindir.assign %p, %c0, %u0 : tensor<i32>
  %u1 = mindir.update_state %u0, %a0 : tensor<i32>
  %l0 = mindir.load %p, %u1 : tensor<i32>
  %m0 = mindir.mul %x, %l0 : tensor<i32>
  %u2 = mindir.update_state %u1, %l0, %m0 : tensor<i32>, tensor<i32>
  %o0 = mindir.add %m0, %c0 : tensor<i32>
  %c1 = mindir.constant dense<1> : tensor<i32>
  %a1 = mindir.assign %p, %c1, %u2 : tensor<i32>
  %u3 = mindir.update_state %u2, %a1 : tensor<i32>
  %l1 = mindir.load %p, %u3 : tensor<i32>
  %m1 = mindir.mul %x, %l1 : tensor<i32>
  %u4 = mindir.update_state %u3, %l1, %m1 : tensor<i32>, tensor<i32>
  %o1 = mindir.add %m1, %o0 : tensor<i32>
  %c2 = mindir.constant dense<2> : tensor<i32>
  %a2 = mindir.assign %p, %c2, %u4 : tensor<i32>
  %u5 = mindir.update_state %u4, %a2 : tensor<i32>
  %l2 = mindir.load %p, %u5 : tensor<i32>
  %u6 = mindir.update_state %u5, %l2 : tensor<i32>
  %m2 = mindir.mul %x, %l2 : tensor<i32>
  %o2 = mindir.add %m2, %o1 : tensor<i32>
  func.return %o2, %u6 : tensor<i32>, !mindir.u
}

// -----

// The backward program's IR from the docs: one addn reads the Loads at two states
// and the other reads the first Load after both later Assigns, so levels 0, 1 and 2
// give the same three copies (the docs' IR with TensorMove); level 3 none.

// CHECK-LABEL:   func.func @backward
// L0-COUNT-3:      mindir.tensor_move
// L1-COUNT-3:      mindir.tensor_move
// L2:              %[[T0:.*]] = mindir.tensor_move %l0
// L2:              %[[T1:.*]] = mindir.tensor_move %l1
// L2:              %[[T2:.*]] = mindir.tensor_move %l2
// L2-NEXT:         mindir.make_tuple %[[T2]], %[[T1]] :
// L2:              mindir.make_tuple %s0, %[[T0]] :
// L3-NOT:          mindir.tensor_move
mindir.parameter @param = dense<0> : tensor<i32>

func.func @backward(%u0: !mindir.u) -> (tensor<i32>, !mindir.u) {
  %c0 = mindir.constant dense<0> : tensor<i32>
  %c1 = mindir.constant dense<1> : tensor<i32>
  %c2 = mindir.constant dense<2> : tensor<i32>
  %p = mindir.get_parameter @param : !mindir.ref<tensor<i32>>
  %a0 = mindir.assign %p, %c0, %u0 : tensor<i32>
  %u1 = mindir.update_state %u0, %a0 : tensor<i32>
  %l0 = mindir.load %p, %u1 : tensor<i32>
  %u2 = mindir.update_state %u1, %l0 : tensor<i32>
  %a1 = mindir.assign %p, %c1, %u2 : tensor<i32>
  %u3 = mindir.update_state %u2, %a1 : tensor<i32>
  %l1 = mindir.load %p, %u3 : tensor<i32>
  %u4 = mindir.update_state %u3, %l1 : tensor<i32>
  %a2 = mindir.assign %p, %c2, %u4 : tensor<i32>
  %u5 = mindir.update_state %u4, %a2 : tensor<i32>
  %l2 = mindir.load %p, %u5 : tensor<i32>
  %t0 = mindir.make_tuple %l2, %l1 : (tensor<i32>, tensor<i32>) -> tuple<tensor<i32>, tensor<i32>>
  %s0 = mindir.addn %t0 : (tuple<tensor<i32>, tensor<i32>>) -> tensor<i32>
  %t1 = mindir.make_tuple %s0, %l0 : (tensor<i32>, tensor<i32>) -> tuple<tensor<i32>, tensor<i32>>
  %s1 = mindir.addn %t1 : (tuple<tensor<i32>, tensor<i32>>) -> tensor<i32>
  %u6 = mindir.update_state %u5, %l2 : tensor<i32>
  func.return %s1, %u6 : tensor<i32>, !mindir.u
}

// -----

// Merging, at every level: Loads of @w at one state (directly, or with only a Load
// between on the chain) are one Load; an Assign of another Parameter does not
// separate them; an Assign of @w does. Two states of @w remain: level 1 copies
// both, level 2 none (each consumer sees one state).

// CHECK-LABEL:   func.func @merge
// L2-NOT:          mindir.tensor_move
// L3-NOT:          mindir.tensor_move
// CHECK:           %a = mindir.load %pw, %u0 : tensor<2xf32>
// L0-NEXT:         %[[A:.*]] = mindir.tensor_move %a
// L1-NEXT:         %[[A:.*]] = mindir.tensor_move %a
// L2-NEXT:         %u1 = mindir.update_state %u0, %a
// CHECK-NOT:       mindir.load %pw, %u{{[0-3]}}
// L2-NOT:          mindir.tensor_move
// L3-NOT:          mindir.tensor_move
// L1:              %s = mindir.add %[[A]], %[[A]]
// L1-NEXT:         %s2 = mindir.add %s, %[[A]]
// L2:              %s = mindir.add %a, %a
// L2-NEXT:         %s2 = mindir.add %s, %a
// CHECK:           %d = mindir.load %pw, %u4 : tensor<2xf32>
// L0-NEXT:         mindir.tensor_move %d
// L1-NEXT:         mindir.tensor_move %d
// L2-NOT:          mindir.tensor_move
// L3-NOT:          mindir.tensor_move
// CHECK:           func.return
mindir.parameter @w = dense<[1.0, 2.0]> : tensor<2xf32>
mindir.parameter @v = dense<[0.0, 0.0]> : tensor<2xf32>

func.func @merge(%x: tensor<2xf32>, %u0: !mindir.u) -> (tensor<2xf32>, !mindir.u) {
  %pw = mindir.get_parameter @w : !mindir.ref<tensor<2xf32>>
  %pv = mindir.get_parameter @v : !mindir.ref<tensor<2xf32>>
  %a = mindir.load %pw, %u0 : tensor<2xf32>
  %b = mindir.load %pw, %u0 : tensor<2xf32>
  %u1 = mindir.update_state %u0, %a : tensor<2xf32>
  %c = mindir.load %pw, %u1 : tensor<2xf32>
  %s = mindir.add %a, %b : tensor<2xf32>
  %s2 = mindir.add %s, %c : tensor<2xf32>
  %av = mindir.assign %pv, %s2, %u1 : tensor<2xf32>
  %u2 = mindir.update_state %u1, %av : tensor<2xf32>
  %e = mindir.load %pw, %u2 : tensor<2xf32>
  %s3 = mindir.mul %s2, %e : tensor<2xf32>
  %u3 = mindir.update_state %u2, %e, %s3 : tensor<2xf32>, tensor<2xf32>
  %aw = mindir.assign %pw, %x, %u3 : tensor<2xf32>
  %u4 = mindir.update_state %u3, %aw : tensor<2xf32>
  %d = mindir.load %pw, %u4 : tensor<2xf32>
  %r = mindir.add %s3, %d : tensor<2xf32>
  %u5 = mindir.update_state %u4, %d, %r : tensor<2xf32>, tensor<2xf32>
  func.return %r, %u5 : tensor<2xf32>, !mindir.u
}

// -----

// Escapes: a Load passed to a call, and one returned (through a depend), are copied
// at levels 0, 1 and 2; a read-only Parameter read once and consumed at once only at
// level 0.

// CHECK-LABEL:   func.func @escapes
// L0-COUNT-3:      mindir.tensor_move
// L1-COUNT-2:      mindir.tensor_move
// L1:              %lr = mindir.load %pr, %u0
// L1-NEXT:         mindir.mul %lr, %y
// L3-NOT:          mindir.tensor_move
// L2:              %[[C:.*]] = mindir.tensor_move %lp
// L2-NEXT:         func.call @twice(%[[C]])
// L2:              %[[R:.*]] = mindir.tensor_move %lq
// L2-NEXT:         mindir.depend %[[R]], %y
// L2:              %lr = mindir.load %pr, %u0
// L2-NEXT:         mindir.mul %lr, %y
// L2-NOT:          mindir.tensor_move
mindir.parameter @p = dense<1.0> : tensor<f32>
mindir.parameter @q = dense<2.0> : tensor<f32>
mindir.parameter @r = dense<3.0> : tensor<f32>

func.func @twice(%t: tensor<f32>) -> tensor<f32> {
  %s = mindir.add %t, %t : tensor<f32>
  func.return %s : tensor<f32>
}

func.func @escapes(%u0: !mindir.u) -> (tensor<f32>, tensor<f32>, !mindir.u) {
  %pp = mindir.get_parameter @p : !mindir.ref<tensor<f32>>
  %pq = mindir.get_parameter @q : !mindir.ref<tensor<f32>>
  %pr = mindir.get_parameter @r : !mindir.ref<tensor<f32>>
  %lp = mindir.load %pp, %u0 : tensor<f32>
  %y = func.call @twice(%lp) : (tensor<f32>) -> tensor<f32>
  %lq = mindir.load %pq, %u0 : tensor<f32>
  %d = mindir.depend %lq, %y : tensor<f32>, tensor<f32>
  %lr = mindir.load %pr, %u0 : tensor<f32>
  %m = mindir.mul %lr, %y : tensor<f32>
  %u1 = mindir.update_state %u0, %lp, %lq, %lr : tensor<f32>, tensor<f32>, tensor<f32>
  func.return %d, %m, %u1 : tensor<f32>, tensor<f32>, !mindir.u
}

// -----

// A consumer that needs the Assign (here its result) cannot run before it: the Load
// it also reads is copied at levels 1 and 2, although @p has one loaded state.

// CHECK-LABEL:   func.func @needs_the_assign
// L0-COUNT-1:      mindir.tensor_move
// L1-COUNT-1:      mindir.tensor_move
// L3-NOT:          mindir.tensor_move
// L2:              %x = mindir.load %pp, %u0 : tensor<f32>
// L2-NEXT:         %[[X:.*]] = mindir.tensor_move %x
// L2:              mindir.add %[[X]], %a
// L2-NOT:          mindir.tensor_move
mindir.parameter @p = dense<0.0> : tensor<f32>

func.func @needs_the_assign(%y: tensor<f32>, %u0: !mindir.u) -> (tensor<f32>, !mindir.u) {
  %pp = mindir.get_parameter @p : !mindir.ref<tensor<f32>>
  %x = mindir.load %pp, %u0 : tensor<f32>
  %t = mindir.mul %x, %y : tensor<f32>
  %u1 = mindir.update_state %u0, %x, %t : tensor<f32>, tensor<f32>
  %a = mindir.assign %pp, %y, %u1 : tensor<f32>
  %u2 = mindir.update_state %u1, %a : tensor<f32>
  %s = mindir.add %x, %a : tensor<f32>
  %r = mindir.add %t, %s : tensor<f32>
  func.return %r, %u2 : tensor<f32>, !mindir.u
}

// -----

// A tensor while: the Load after the Assign in the body is consumed in the same
// iteration (no copy at level 2); the Load before the loop is read in the body, after
// earlier iterations' Assigns (copied at levels 1 and 2).

// CHECK-LABEL:   func.func @loop
// L0-COUNT-2:      mindir.tensor_move
// L1-COUNT-2:      mindir.tensor_move
// L3-NOT:          mindir.tensor_move
// L2:              %before = mindir.load %pw, %u0
// L2-NEXT:         mindir.tensor_move %before
// L2:              %inner = mindir.load %pw, %ub1
// L2-NEXT:         mindir.mul %inner, %acc
// L2-NOT:          mindir.tensor_move
mindir.parameter @w = dense<1> : tensor<i32>

func.func @loop(%n: tensor<i32>, %u0: !mindir.u) -> (tensor<i32>, !mindir.u) {
  %pw = mindir.get_parameter @w : !mindir.ref<tensor<i32>>
  %zero = mindir.constant dense<0> : tensor<i32>
  %one = mindir.constant dense<1> : tensor<i32>
  %before = mindir.load %pw, %u0 : tensor<i32>
  %u1 = mindir.update_state %u0, %before : tensor<i32>
  %r:3 = mindir.while (%i = %zero, %acc0 = %one, %us = %u1) : (tensor<i32>, tensor<i32>, !mindir.u) -> (tensor<i32>, tensor<i32>, !mindir.u) {
    %lt = mindir.less %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
    mindir.condition(%lt : tensor<i1>) %i, %acc0, %us : tensor<i32>, tensor<i32>, !mindir.u
  } do {
  ^bb0(%j: tensor<i32>, %acc: tensor<i32>, %ub: !mindir.u):
    %a = mindir.assign %pw, %j, %ub : tensor<i32>
    %ub1 = mindir.update_state %ub, %a : tensor<i32>
    %inner = mindir.load %pw, %ub1 : tensor<i32>
    %m = mindir.mul %inner, %acc : tensor<i32>
    %m2 = mindir.add %m, %before : tensor<i32>
    %ub2 = mindir.update_state %ub1, %inner, %m : tensor<i32>, tensor<i32>
    %j1 = mindir.add %j, %one : tensor<i32>
    mindir.yield %j1, %m2, %ub2 : tensor<i32>, tensor<i32>, !mindir.u
  }
  func.return %r#1, %r#2 : tensor<i32>, !mindir.u
}

// -----

// Merged Loads leave their update_states attaching the first Load again (an
// unrolled RNN's weight, once per step): an update_state drops what an earlier one
// on its chain attached, and one left with nothing is its input state.

// CHECK-LABEL:   func.func @repeated_attachments
// CHECK:           %u1 = mindir.update_state %u0, %[[W:[^ ]+]] : tensor<f32>
// CHECK-NEXT:      %m0 = mindir.mul %[[W]], %x : tensor<f32>
// CHECK-NEXT:      %m1 = mindir.mul %[[W]], %m0 : tensor<f32>
// CHECK-NEXT:      %u3 = mindir.update_state %u1, %m1 : tensor<f32>
// CHECK-NEXT:      func.return %m1, %u3 : tensor<f32>, !mindir.u
mindir.parameter @w = dense<2.0> : tensor<f32>

func.func @repeated_attachments(%x: tensor<f32>, %u0: !mindir.u) -> (tensor<f32>, !mindir.u) {
  %pw = mindir.get_parameter @w : !mindir.ref<tensor<f32>>
  %w = mindir.load %pw, %u0 : tensor<f32>
  %u1 = mindir.update_state %u0, %w : tensor<f32>
  %m0 = mindir.mul %w, %x : tensor<f32>
  %w1 = mindir.load %pw, %u1 : tensor<f32>
  %u2 = mindir.update_state %u1, %w1 : tensor<f32>
  %m1 = mindir.mul %w1, %m0 : tensor<f32>
  %u3 = mindir.update_state %u2, %m1, %w1 : tensor<f32>, tensor<f32>
  %u4 = mindir.update_state %u3, %w : tensor<f32>
  func.return %m1, %u4 : tensor<f32>, !mindir.u
}

// -----

// Where the chain forks, each branch starts afresh: both keep their attachment
// (fewer drops, never a wrong one).

// CHECK-LABEL:   func.func @forked_chain
// CHECK:           %b1 = mindir.update_state %u1, %[[W:[^ ]+]] : tensor<f32>
// CHECK-NEXT:      %b2 = mindir.update_state %u1, %[[W]] : tensor<f32>
mindir.parameter @w = dense<2.0> : tensor<f32>

func.func @forked_chain(%u0: !mindir.u) -> (!mindir.u, !mindir.u) {
  %pw = mindir.get_parameter @w : !mindir.ref<tensor<f32>>
  %w = mindir.load %pw, %u0 : tensor<f32>
  %u1 = mindir.update_state %u0, %w : tensor<f32>
  %b1 = mindir.update_state %u1, %w : tensor<f32>
  %b2 = mindir.update_state %u1, %w : tensor<f32>
  func.return %b1, %b2 : !mindir.u, !mindir.u
}

// -----

// mindir.apply_momentum writes its variable: a Load of it read after the update
// is copied at levels 0-2 (level 2: the add runs after the writer); level 3 never copies.

// CHECK-LABEL:   func.func @read_after_apply_momentum
// CHECK:           %l = mindir.load %pw, %u0 : tensor<2xf32>
// L0-NEXT:         %[[C:.*]] = mindir.tensor_move %l : tensor<2xf32>
// L1-NEXT:         %[[C:.*]] = mindir.tensor_move %l : tensor<2xf32>
// L2-NEXT:         %[[C:.*]] = mindir.tensor_move %l : tensor<2xf32>
// L3-NOT:          mindir.tensor_move
// CHECK:           mindir.apply_momentum %pw, %pm
// L0:              %s = mindir.add %[[C]], %{{.*}} : tensor<2xf32>
// L1:              %s = mindir.add %[[C]], %{{.*}} : tensor<2xf32>
// L2:              %s = mindir.add %[[C]], %{{.*}} : tensor<2xf32>
// L3:              %s = mindir.add %l, %l2 : tensor<2xf32>
mindir.parameter @w = dense<[1.0, 2.0]> : tensor<2xf32>
mindir.parameter @m = dense<0.0> : tensor<2xf32>

func.func @read_after_apply_momentum(%g: tensor<2xf32>, %lr: tensor<f32>, %mu: tensor<f32>, %u0: !mindir.u) -> (tensor<2xf32>, !mindir.u) {
  %pw = mindir.get_parameter @w : !mindir.ref<tensor<2xf32>>
  %pm = mindir.get_parameter @m : !mindir.ref<tensor<2xf32>>
  %l = mindir.load %pw, %u0 : tensor<2xf32>
  %u1 = mindir.update_state %u0, %l : tensor<2xf32>
  %v = mindir.apply_momentum %pw, %pm, %lr, %g, %mu, %u1 : tensor<2xf32>
  %u2 = mindir.update_state %u1, %v : tensor<2xf32>
  %l2 = mindir.load %pm, %u2 : tensor<2xf32>
  %u3 = mindir.update_state %u2, %l2 : tensor<2xf32>
  %s = mindir.add %l, %l2 : tensor<2xf32>
  func.return %s, %u3 : tensor<2xf32>, !mindir.u
}
