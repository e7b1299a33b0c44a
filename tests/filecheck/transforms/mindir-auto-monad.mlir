// RUN: ms-opt %s -p mindir-auto-monad --split-input-file | filecheck %s
// Running the pass twice changes nothing (threaded graphs are left as they are):
// RUN: ms-opt %s -p mindir-auto-monad,mindir-auto-monad --split-input-file | filecheck %s

// Straight-line code: the memory state is threaded through loads and assigns, the
// IO state through prints, each followed by an update_state; the graph returns its
// final states. @b is never assigned: its load takes the current state but does
// not advance it.

// CHECK-LABEL: func.func @straight
// CHECK-SAME:    (%x: tensor<f32>, %u0: !mindir.u, %io0: !mindir.io) -> (tensor<f32>, !mindir.u, !mindir.io)
// CHECK-NEXT:    %pw = mindir.get_parameter @w
// CHECK-NEXT:    %l0 = mindir.load %pw, %u0 : tensor<f32>
// CHECK-NEXT:    %[[U1:.*]] = mindir.update_state %u0, %l0 : tensor<f32>
// CHECK-NEXT:    %p0 = mindir.print %l0, %io0 {format = ["before:", 0 : i64]} : tensor<f32>
// CHECK-NEXT:    %[[IO1:.*]] = mindir.update_state %io0, %p0 : !mindir.io -> !mindir.io
// CHECK-NEXT:    %a = mindir.assign %pw, %x, %[[U1]] : tensor<f32>
// CHECK-NEXT:    %[[U2:.*]] = mindir.update_state %[[U1]], %a : tensor<f32>
// CHECK-NEXT:    %pb = mindir.get_parameter @b
// CHECK-NEXT:    %lb = mindir.load %pb, %[[U2]] : tensor<f32>
// CHECK-NEXT:    %l1 = mindir.load %pw, %[[U2]] : tensor<f32>
// CHECK-NEXT:    %[[U3:.*]] = mindir.update_state %[[U2]], %l1 : tensor<f32>
// CHECK-NEXT:    %p1 = mindir.print %l1, %[[IO1]] {format = ["after:", 0 : i64]} : tensor<f32>
// CHECK-NEXT:    %[[IO2:.*]] = mindir.update_state %[[IO1]], %p1 : !mindir.io -> !mindir.io
// CHECK-NEXT:    %s = mindir.add %l1, %lb : tensor<f32>
// CHECK-NEXT:    func.return %s, %[[U3]], %[[IO2]] : tensor<f32>, !mindir.u, !mindir.io
mindir.parameter @w = dense<1.0> : tensor<f32>
mindir.parameter @b = dense<2.0> : tensor<f32>

func.func @straight(%x: tensor<f32>, %u0: !mindir.u, %io0: !mindir.io) -> tensor<f32> {
  %pw = mindir.get_parameter @w : !mindir.ref<tensor<f32>>
  %l0 = mindir.load %pw, %u0 : tensor<f32>
  %p0 = mindir.print %l0, %io0 {format = ["before:", 0]} : tensor<f32>
  %a = mindir.assign %pw, %x, %u0 : tensor<f32>
  %pb = mindir.get_parameter @b : !mindir.ref<tensor<f32>>
  %lb = mindir.load %pb, %u0 : tensor<f32>
  %l1 = mindir.load %pw, %u0 : tensor<f32>
  %p1 = mindir.print %l1, %io0 {format = ["after:", 0]} : tensor<f32>
  %s = mindir.add %l1, %lb : tensor<f32>
  func.return %s : tensor<f32>
}

// -----

// A sub-graph with states returns them; the caller passes its current states and
// continues with the returned ones. Graphs without states are unchanged.

// CHECK-LABEL: func.func @sub
// CHECK-SAME:    (%x: tensor<f32>, %u0: !mindir.u, %io0: !mindir.io) -> (tensor<f32>, !mindir.u, !mindir.io)
// CHECK-NEXT:    %p = mindir.print %x, %io0 : tensor<f32>
// CHECK-NEXT:    %[[IO1:.*]] = mindir.update_state %io0, %p : !mindir.io -> !mindir.io
// CHECK-NEXT:    %pw = mindir.get_parameter @w
// CHECK-NEXT:    %a = mindir.assign %pw, %x, %u0 : tensor<f32>
// CHECK-NEXT:    %[[U1:.*]] = mindir.update_state %u0, %a : tensor<f32>
// CHECK-NEXT:    func.return %a, %[[U1]], %[[IO1]] : tensor<f32>, !mindir.u, !mindir.io
// CHECK-LABEL: func.func @pure
// CHECK-SAME:    (%x: tensor<f32>) -> tensor<f32>
// CHECK-LABEL: func.func @caller
// CHECK-SAME:    -> (tensor<f32>, !mindir.u, !mindir.io)
// CHECK-NEXT:    %p0 = mindir.print %x, %io0 : tensor<f32>
// CHECK-NEXT:    %[[IO1:.*]] = mindir.update_state %io0, %p0 : !mindir.io -> !mindir.io
// CHECK-NEXT:    %n = func.call @pure(%x) : (tensor<f32>) -> tensor<f32>
// CHECK-NEXT:    %r, %[[U1:.*]], %[[IO2:.*]] = func.call @sub(%n, %u0, %[[IO1]]) : (tensor<f32>, !mindir.u, !mindir.io) -> (tensor<f32>, !mindir.u, !mindir.io)
// CHECK-NEXT:    %pw = mindir.get_parameter @w
// CHECK-NEXT:    %l = mindir.load %pw, %[[U1]] : tensor<f32>
// CHECK-NEXT:    %[[U2:.*]] = mindir.update_state %[[U1]], %l : tensor<f32>
// CHECK-NEXT:    %p1 = mindir.print %l, %[[IO2]] : tensor<f32>
// CHECK-NEXT:    %[[IO3:.*]] = mindir.update_state %[[IO2]], %p1 : !mindir.io -> !mindir.io
// CHECK-NEXT:    func.return %r, %[[U2]], %[[IO3]] : tensor<f32>, !mindir.u, !mindir.io
mindir.parameter @w = dense<1.0> : tensor<f32>

func.func @sub(%x: tensor<f32>, %u0: !mindir.u, %io0: !mindir.io) -> tensor<f32> {
  %p = mindir.print %x, %io0 : tensor<f32>
  %pw = mindir.get_parameter @w : !mindir.ref<tensor<f32>>
  %a = mindir.assign %pw, %x, %u0 : tensor<f32>
  func.return %a : tensor<f32>
}

func.func @pure(%x: tensor<f32>) -> tensor<f32> {
  %y = mindir.neg %x : tensor<f32>
  func.return %y : tensor<f32>
}

func.func @caller(%x: tensor<f32>, %u0: !mindir.u, %io0: !mindir.io) -> tensor<f32> {
  %p0 = mindir.print %x, %io0 : tensor<f32>
  %n = func.call @pure(%x) : (tensor<f32>) -> tensor<f32>
  %r = func.call @sub(%n, %u0, %io0) : (tensor<f32>, !mindir.u, !mindir.io) -> tensor<f32>
  %pw = mindir.get_parameter @w : !mindir.ref<tensor<f32>>
  %l = mindir.load %pw, %u0 : tensor<f32>
  %p1 = mindir.print %l, %io0 : tensor<f32>
  func.return %r : tensor<f32>
}

// -----

// if: both branches start from the states current before the if and yield their
// final states as extra results, which are the states after it. Only the memory
// state is carried here: no branch prints, and the load of @c (never assigned)
// does not advance the state.

// CHECK-LABEL: func.func @branch
// CHECK-SAME:    -> (tensor<f32>, !mindir.u, !mindir.io)
// CHECK-NEXT:    %r, %[[UIF:.*]] = mindir.if %cond -> (tensor<f32>, !mindir.u) {
// CHECK-NEXT:      %pw = mindir.get_parameter @w
// CHECK-NEXT:      %a = mindir.assign %pw, %x, %u0 : tensor<f32>
// CHECK-NEXT:      %[[UT:.*]] = mindir.update_state %u0, %a : tensor<f32>
// CHECK-NEXT:      mindir.yield %a, %[[UT]] : tensor<f32>, !mindir.u
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %pc = mindir.get_parameter @c
// CHECK-NEXT:      %lc = mindir.load %pc, %u0 : tensor<f32>
// CHECK-NEXT:      mindir.yield %lc, %u0 : tensor<f32>, !mindir.u
// CHECK-NEXT:    }
// CHECK-NEXT:    %p = mindir.print %r, %io0 : tensor<f32>
// CHECK-NEXT:    %[[IO1:.*]] = mindir.update_state %io0, %p : !mindir.io -> !mindir.io
// CHECK-NEXT:    %[[PW:.*]] = mindir.get_parameter @w
// CHECK-NEXT:    %l = mindir.load %[[PW]], %[[UIF]] : tensor<f32>
// CHECK-NEXT:    %[[U2:.*]] = mindir.update_state %[[UIF]], %l : tensor<f32>
// CHECK-NEXT:    func.return %l, %[[U2]], %[[IO1]] : tensor<f32>, !mindir.u, !mindir.io
mindir.parameter @w = dense<1.0> : tensor<f32>
mindir.parameter @c = dense<3.0> : tensor<f32>

func.func @branch(%x: tensor<f32>, %cond: tensor<i1>, %u0: !mindir.u, %io0: !mindir.io) -> tensor<f32> {
  %r = mindir.if %cond -> (tensor<f32>) {
    %pw = mindir.get_parameter @w : !mindir.ref<tensor<f32>>
    %a = mindir.assign %pw, %x, %u0 : tensor<f32>
    mindir.yield %a : tensor<f32>
  } else {
    %pc = mindir.get_parameter @c : !mindir.ref<tensor<f32>>
    %lc = mindir.load %pc, %u0 : tensor<f32>
    mindir.yield %lc : tensor<f32>
  }
  %p = mindir.print %r, %io0 : tensor<f32>
  %pw = mindir.get_parameter @w : !mindir.ref<tensor<f32>>
  %l = mindir.load %pw, %u0 : tensor<f32>
  func.return %l : tensor<f32>
}

// -----

// while: the states become loop-carried values after the loop's own; the
// condition region (which loads @w) forwards them, the body yields them.

// CHECK-LABEL: func.func @loop
// CHECK-SAME:    -> (tensor<f32>, !mindir.u, !mindir.io)
// CHECK-NEXT:    %r, %[[UW:.*]], %[[IOW:.*]] = mindir.while (%i = %x, %[[UB:.*]] = %u0, %[[IOB:.*]] = %io0) : (tensor<f32>, !mindir.u, !mindir.io) -> (tensor<f32>, !mindir.u, !mindir.io) {
// CHECK-NEXT:      %pw = mindir.get_parameter @w
// CHECK-NEXT:      %l = mindir.load %pw, %[[UB]] : tensor<f32>
// CHECK-NEXT:      %[[UC:.*]] = mindir.update_state %[[UB]], %l : tensor<f32>
// CHECK-NEXT:      %c = mindir.less %l, %i
// CHECK-NEXT:      mindir.condition(%c : tensor<i1>) %i, %[[UC]], %[[IOB]] : tensor<f32>, !mindir.u, !mindir.io
// CHECK-NEXT:    } do {
// CHECK-NEXT:    ^bb0(%j: tensor<f32>, %[[UA:.*]]: !mindir.u, %[[IOA:.*]]: !mindir.io):
// CHECK-NEXT:      %p = mindir.print %j, %[[IOA]] : tensor<f32>
// CHECK-NEXT:      %[[IO1:.*]] = mindir.update_state %[[IOA]], %p : !mindir.io -> !mindir.io
// CHECK-NEXT:      %[[PW:.*]] = mindir.get_parameter @w
// CHECK-NEXT:      %one = mindir.constant
// CHECK-NEXT:      %[[L:.*]] = mindir.load %[[PW]], %[[UA]] : tensor<f32>
// CHECK-NEXT:      %[[U1:.*]] = mindir.update_state %[[UA]], %[[L]] : tensor<f32>
// CHECK-NEXT:      %n = mindir.add %[[L]], %one
// CHECK-NEXT:      %a = mindir.assign %[[PW]], %n, %[[U1]] : tensor<f32>
// CHECK-NEXT:      %[[U2:.*]] = mindir.update_state %[[U1]], %a : tensor<f32>
// CHECK-NEXT:      mindir.yield %j, %[[U2]], %[[IO1]] : tensor<f32>, !mindir.u, !mindir.io
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %r, %[[UW]], %[[IOW]] : tensor<f32>, !mindir.u, !mindir.io
mindir.parameter @w = dense<0.0> : tensor<f32>

func.func @loop(%x: tensor<f32>, %u0: !mindir.u, %io0: !mindir.io) -> tensor<f32> {
  %r = mindir.while (%i = %x) : (tensor<f32>) -> tensor<f32> {
    %pw = mindir.get_parameter @w : !mindir.ref<tensor<f32>>
    %l = mindir.load %pw, %u0 : tensor<f32>
    %c = mindir.less %l, %i : (tensor<f32>, tensor<f32>) -> tensor<i1>
    mindir.condition(%c : tensor<i1>) %i : tensor<f32>
  } do {
  ^bb0(%j: tensor<f32>):
    %p = mindir.print %j, %io0 : tensor<f32>
    %pw = mindir.get_parameter @w : !mindir.ref<tensor<f32>>
    %one = mindir.constant dense<1.0> : tensor<f32>
    %l = mindir.load %pw, %u0 : tensor<f32>
    %n = mindir.add %l, %one : tensor<f32>
    %a = mindir.assign %pw, %n, %u0 : tensor<f32>
    mindir.yield %j : tensor<f32>
  }
  func.return %r : tensor<f32>
}

// -----

// Read-only Parameters: nothing assigns @r, so its loads are not ordered; an
// if or while that only reads it carries no state, and the loads inside use the
// state current outside. The graph advances no state, so it returns none.

// CHECK-LABEL: func.func @read_only
// CHECK-SAME:    (%cond: tensor<i1>, %u0: !mindir.u) -> tensor<f32> {
// CHECK-NEXT:    %p = mindir.get_parameter @r
// CHECK-NEXT:    %l0 = mindir.load %p, %u0 : tensor<f32>
// CHECK-NEXT:    %v = mindir.if %cond -> (tensor<f32>) {
// CHECK-NEXT:      %l1 = mindir.load %p, %u0 : tensor<f32>
// CHECK-NEXT:      mindir.yield %l1 : tensor<f32>
// CHECK-NEXT:    } else {
// CHECK-NEXT:      mindir.yield %l0 : tensor<f32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %w = mindir.while (%i = %v) : (tensor<f32>) -> tensor<f32> {
// CHECK-NEXT:      %l2 = mindir.load %p, %u0 : tensor<f32>
// CHECK:           mindir.condition
// CHECK:         } do {
// CHECK:           mindir.yield %j : tensor<f32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %w : tensor<f32>
// CHECK-NOT:     mindir.update_state
mindir.parameter @r = dense<5.0> : tensor<f32>

func.func @read_only(%cond: tensor<i1>, %u0: !mindir.u) -> tensor<f32> {
  %p = mindir.get_parameter @r : !mindir.ref<tensor<f32>>
  %l0 = mindir.load %p, %u0 : tensor<f32>
  %v = mindir.if %cond -> (tensor<f32>) {
    %l1 = mindir.load %p, %u0 : tensor<f32>
    mindir.yield %l1 : tensor<f32>
  } else {
    mindir.yield %l0 : tensor<f32>
  }
  %w = mindir.while (%i = %v) : (tensor<f32>) -> tensor<f32> {
    %l2 = mindir.load %p, %u0 : tensor<f32>
    %c = mindir.less %i, %l2 : (tensor<f32>, tensor<f32>) -> tensor<i1>
    mindir.condition(%c : tensor<i1>) %i : tensor<f32>
  } do {
  ^bb0(%j: tensor<f32>):
    mindir.yield %j : tensor<f32>
  }
  func.return %w : tensor<f32>
}

// -----

// A reused graph's ref arguments stand for whichever Parameter each call site
// passes. When nothing in the module assigns any Parameter (a model without
// state updates, as in inference), their Loads order nothing either: no
// update_state after them, the graph returns no state and its calls stay as
// they are.

// CHECK-LABEL: func.func @block
// CHECK-SAME:    (%x: tensor<f32>, %w: !mindir.ref<tensor<f32>>, %u0: !mindir.u) -> tensor<f32>
// CHECK-NEXT:    %l = mindir.load %w, %u0 : tensor<f32>
// CHECK-NEXT:    %y = mindir.mul %x, %l
// CHECK-NEXT:    func.return %y : tensor<f32>
// CHECK-LABEL: func.func @model
// CHECK-NEXT:    %p0 = mindir.get_parameter @w0
// CHECK-NEXT:    %y0 = func.call @block(%x, %p0, %u0) : (tensor<f32>, !mindir.ref<tensor<f32>>, !mindir.u) -> tensor<f32>
// CHECK-NEXT:    %p1 = mindir.get_parameter @w1
// CHECK-NEXT:    %y1 = func.call @block(%y0, %p1, %u0) : (tensor<f32>, !mindir.ref<tensor<f32>>, !mindir.u) -> tensor<f32>
// CHECK-NEXT:    func.return %y1 : tensor<f32>
// CHECK-NOT:     mindir.update_state
mindir.parameter @w0 = dense<2.0> : tensor<f32>
mindir.parameter @w1 = dense<3.0> : tensor<f32>

func.func @block(%x: tensor<f32>, %w: !mindir.ref<tensor<f32>>, %u0: !mindir.u) -> tensor<f32> attributes {mindir.lazy_inline = "Block"} {
  %l = mindir.load %w, %u0 : tensor<f32>
  %y = mindir.mul %x, %l : (tensor<f32>, tensor<f32>) -> tensor<f32>
  func.return %y : tensor<f32>
}

func.func @model(%x: tensor<f32>, %u0: !mindir.u) -> tensor<f32> {
  %p0 = mindir.get_parameter @w0 : !mindir.ref<tensor<f32>>
  %y0 = func.call @block(%x, %p0, %u0) : (tensor<f32>, !mindir.ref<tensor<f32>>, !mindir.u) -> tensor<f32>
  %p1 = mindir.get_parameter @w1 : !mindir.ref<tensor<f32>>
  %y1 = func.call @block(%y0, %p1, %u0) : (tensor<f32>, !mindir.ref<tensor<f32>>, !mindir.u) -> tensor<f32>
  func.return %y1 : tensor<f32>
}

// -----

// The same graphs when the module assigns a Parameter: a ref argument may be it,
// so each Load of one is followed by an update_state and the state comes back.

// CHECK-LABEL: func.func @block
// CHECK-SAME:    -> (tensor<f32>, !mindir.u)
// CHECK-NEXT:    %l = mindir.load %w, %u0 : tensor<f32>
// CHECK-NEXT:    %u = mindir.update_state %u0, %l : tensor<f32>
// CHECK:         func.return %y, %u : tensor<f32>, !mindir.u
// CHECK-LABEL: func.func @model
// CHECK-SAME:    -> (tensor<f32>, !mindir.u)
// CHECK:         %y0, %u = func.call @block(%x, %p0, %u0)
// CHECK:         %y1, %u_1 = func.call @block(%y0, %p1, %u)
// CHECK:         mindir.assign %p1, %y1, %u_1

mindir.parameter @w0 = dense<2.0> : tensor<f32>
mindir.parameter @w1 = dense<3.0> : tensor<f32>

func.func @block(%x: tensor<f32>, %w: !mindir.ref<tensor<f32>>, %u0: !mindir.u) -> tensor<f32> attributes {mindir.lazy_inline = "Block"} {
  %l = mindir.load %w, %u0 : tensor<f32>
  %y = mindir.mul %x, %l : (tensor<f32>, tensor<f32>) -> tensor<f32>
  func.return %y : tensor<f32>
}

func.func @model(%x: tensor<f32>, %u0: !mindir.u) -> tensor<f32> {
  %p0 = mindir.get_parameter @w0 : !mindir.ref<tensor<f32>>
  %y0 = func.call @block(%x, %p0, %u0) : (tensor<f32>, !mindir.ref<tensor<f32>>, !mindir.u) -> tensor<f32>
  %p1 = mindir.get_parameter @w1 : !mindir.ref<tensor<f32>>
  %y1 = func.call @block(%y0, %p1, %u0) : (tensor<f32>, !mindir.ref<tensor<f32>>, !mindir.u) -> tensor<f32>
  %a = mindir.assign %p1, %y1, %u0 : tensor<f32>
  func.return %y1 : tensor<f32>
}

// -----

// Advancing is transitive: @outer only calls @inner, which prints, so @outer
// returns the IO state too; its memory state, only read with, stays an input.

// CHECK-LABEL: func.func @inner
// CHECK-SAME:    (%x: tensor<f32>, %io0: !mindir.io) -> (tensor<f32>, !mindir.io)
// CHECK-LABEL: func.func @outer
// CHECK-SAME:    (%x: tensor<f32>, %u0: !mindir.u, %io0: !mindir.io) -> (tensor<f32>, !mindir.io)
// CHECK:         %y, %io = func.call @inner(%l, %io0)
// CHECK-NEXT:    func.return %y, %io : tensor<f32>, !mindir.io
mindir.parameter @r = dense<5.0> : tensor<f32>

func.func @inner(%x: tensor<f32>, %io0: !mindir.io) -> tensor<f32> {
  %p = mindir.print %x, %io0 {format = ["x:", 0]} : tensor<f32>
  func.return %x : tensor<f32>
}

func.func @outer(%x: tensor<f32>, %u0: !mindir.u, %io0: !mindir.io) -> tensor<f32> {
  %r = mindir.get_parameter @r : !mindir.ref<tensor<f32>>
  %l = mindir.load %r, %u0 : tensor<f32>
  %y = func.call @inner(%l, %io0) : (tensor<f32>, !mindir.io) -> tensor<f32>
  func.return %y : tensor<f32>
}

// -----

// The notebook's forward program (`while i < 3: assign(param, i); out = x * param
// + out`, the loop unrolled by the frontend) as the frontend emits it: after the
// pass it reads like MindSpore's IR, Assign, UpdateState, Load, UpdateState, ...

// CHECK-LABEL: func.func @ForwardNet_construct
// CHECK-SAME:    (%x: tensor<i32>, %u0: !mindir.u) -> (tensor<i32>, !mindir.u)
// CHECK:         %a0 = mindir.assign %{{.*}}, %c0, %u0 : tensor<i32>
// CHECK-NEXT:    %[[U1:.*]] = mindir.update_state %u0, %a0 : tensor<i32>
// CHECK:         %l0 = mindir.load %{{.*}}, %[[U1]] : tensor<i32>
// CHECK-NEXT:    %[[U2:.*]] = mindir.update_state %[[U1]], %l0 : tensor<i32>
// CHECK:         %a1 = mindir.assign %{{.*}}, %c1, %[[U2]] : tensor<i32>
// CHECK-NEXT:    %[[U3:.*]] = mindir.update_state %[[U2]], %a1 : tensor<i32>
// CHECK:         %l1 = mindir.load %{{.*}}, %[[U3]] : tensor<i32>
// CHECK-NEXT:    %[[U4:.*]] = mindir.update_state %[[U3]], %l1 : tensor<i32>
// CHECK:         %a2 = mindir.assign %{{.*}}, %c2, %[[U4]] : tensor<i32>
// CHECK-NEXT:    %[[U5:.*]] = mindir.update_state %[[U4]], %a2 : tensor<i32>
// CHECK:         %l2 = mindir.load %{{.*}}, %[[U5]] : tensor<i32>
// CHECK-NEXT:    %[[U6:.*]] = mindir.update_state %[[U5]], %l2 : tensor<i32>
// CHECK:         func.return %out2, %[[U6]] : tensor<i32>, !mindir.u
mindir.parameter @param = dense<0> : tensor<i32>

func.func @ForwardNet_construct(%x: tensor<i32>, %u0: !mindir.u) -> tensor<i32> {
  %zero = mindir.constant dense<0> : tensor<i32>
  %c0 = mindir.constant dense<0> : tensor<i32>
  %p0 = mindir.get_parameter @param : !mindir.ref<tensor<i32>>
  %a0 = mindir.assign %p0, %c0, %u0 : tensor<i32>
  %q0 = mindir.get_parameter @param : !mindir.ref<tensor<i32>>
  %l0 = mindir.load %q0, %u0 : tensor<i32>
  %m0 = mindir.mul %x, %l0 : tensor<i32>
  %out0 = mindir.add %m0, %zero : tensor<i32>
  %c1 = mindir.constant dense<1> : tensor<i32>
  %p1 = mindir.get_parameter @param : !mindir.ref<tensor<i32>>
  %a1 = mindir.assign %p1, %c1, %u0 : tensor<i32>
  %q1 = mindir.get_parameter @param : !mindir.ref<tensor<i32>>
  %l1 = mindir.load %q1, %u0 : tensor<i32>
  %m1 = mindir.mul %x, %l1 : tensor<i32>
  %out1 = mindir.add %m1, %out0 : tensor<i32>
  %c2 = mindir.constant dense<2> : tensor<i32>
  %p2 = mindir.get_parameter @param : !mindir.ref<tensor<i32>>
  %a2 = mindir.assign %p2, %c2, %u0 : tensor<i32>
  %q2 = mindir.get_parameter @param : !mindir.ref<tensor<i32>>
  %l2 = mindir.load %q2, %u0 : tensor<i32>
  %m2 = mindir.mul %x, %l2 : tensor<i32>
  %out2 = mindir.add %m2, %out1 : tensor<i32>
  func.return %out2 : tensor<i32>
}

// -----

// Already threaded graphs (they return their states) are left exactly as they
// are; a graph calling one is still threaded.

// CHECK-LABEL: func.func @threaded
// CHECK-NEXT:    %p = mindir.get_parameter @w
// CHECK-NEXT:    %a = mindir.assign %p, %x, %u0 : tensor<f32>
// CHECK-NEXT:    %u1 = mindir.update_state %u0, %a : tensor<f32>
// CHECK-NEXT:    func.return %a, %u1 : tensor<f32>, !mindir.u
// CHECK-LABEL: func.func @not_yet
// CHECK-SAME:    -> (tensor<f32>, !mindir.u)
// CHECK-NEXT:    %r, %[[U1:.*]] = func.call @threaded(%x, %u0)
// CHECK-NEXT:    %p = mindir.get_parameter @w
// CHECK-NEXT:    %l = mindir.load %p, %[[U1]] : tensor<f32>
// CHECK-NEXT:    %[[U2:.*]] = mindir.update_state %[[U1]], %l : tensor<f32>
// CHECK-NEXT:    func.return %l, %[[U2]] : tensor<f32>, !mindir.u
mindir.parameter @w = dense<1.0> : tensor<f32>

func.func @threaded(%x: tensor<f32>, %u0: !mindir.u) -> (tensor<f32>, !mindir.u) {
  %p = mindir.get_parameter @w : !mindir.ref<tensor<f32>>
  %a = mindir.assign %p, %x, %u0 : tensor<f32>
  %u1 = mindir.update_state %u0, %a : tensor<f32>
  func.return %a, %u1 : tensor<f32>, !mindir.u
}

func.func @not_yet(%x: tensor<f32>, %u0: !mindir.u) -> tensor<f32> {
  %r:2 = func.call @threaded(%x, %u0) : (tensor<f32>, !mindir.u) -> (tensor<f32>, !mindir.u)
  %p = mindir.get_parameter @w : !mindir.ref<tensor<f32>>
  %l = mindir.load %p, %u0 : tensor<f32>
  func.return %l : tensor<f32>
}

// -----

// mindir.apply_momentum writes two Parameters: it takes the current memory state
// and is followed by an update_state, as an Assign; a Load of either Parameter
// after it takes the new state.

// CHECK-LABEL: func.func @apply_momentum
// CHECK-SAME:    -> (tensor<2xf32>, !mindir.u)
// CHECK:         %l = mindir.load %pw, %u0 : tensor<2xf32>
// CHECK-NEXT:    %[[U1:.*]] = mindir.update_state %u0, %l : tensor<2xf32>
// CHECK-NEXT:    %v = mindir.apply_momentum %pw, %pm, %lr, %g, %mu, %[[U1]] : tensor<2xf32>
// CHECK-NEXT:    %[[U2:.*]] = mindir.update_state %[[U1]], %v : tensor<2xf32>
// CHECK-NEXT:    %l2 = mindir.load %pm, %[[U2]] : tensor<2xf32>
// CHECK-NEXT:    %[[U3:.*]] = mindir.update_state %[[U2]], %l2 : tensor<2xf32>
// CHECK:         func.return %s, %[[U3]] : tensor<2xf32>, !mindir.u
mindir.parameter @w = dense<[1.0, 2.0]> : tensor<2xf32>
mindir.parameter @m = dense<0.0> : tensor<2xf32>

func.func @apply_momentum(%g: tensor<2xf32>, %lr: tensor<f32>, %mu: tensor<f32>, %u0: !mindir.u) -> tensor<2xf32> {
  %pw = mindir.get_parameter @w : !mindir.ref<tensor<2xf32>>
  %pm = mindir.get_parameter @m : !mindir.ref<tensor<2xf32>>
  %l = mindir.load %pw, %u0 : tensor<2xf32>
  %v = mindir.apply_momentum %pw, %pm, %lr, %g, %mu, %u0 : tensor<2xf32>
  %l2 = mindir.load %pm, %u0 : tensor<2xf32>
  %s = mindir.add %l, %l2 : tensor<2xf32>
  func.return %s : tensor<2xf32>
}
