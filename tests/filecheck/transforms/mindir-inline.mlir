// RUN: ms-opt %s -p mindir-inline --split-input-file | filecheck %s --check-prefixes=CHECK,KEEP
// RUN: ms-opt %s -p 'mindir-inline{cell-reuse=1}' --split-input-file | filecheck %s --check-prefixes=CHECK,KEEP
// RUN: ms-opt %s -p 'mindir-inline{cell-reuse=2}' --split-input-file | filecheck %s --check-prefixes=CHECK,KEEP
// RUN: env MS_DEV_CELL_REUSE=2 ms-opt %s -p mindir-inline --split-input-file | filecheck %s --check-prefixes=CHECK,KEEP
// RUN: ms-opt %s -p 'mindir-inline{cell-reuse=0}' --split-input-file | filecheck %s --check-prefixes=CHECK,REUSE0
// RUN: env MS_DEV_CELL_REUSE=0 ms-opt %s -p mindir-inline --split-input-file | filecheck %s --check-prefixes=CHECK,REUSE0
// The option wins over the environment:
// RUN: env MS_DEV_CELL_REUSE=0 ms-opt %s -p 'mindir-inline{cell-reuse=1}' --split-input-file | filecheck %s --check-prefixes=CHECK,KEEP
// Inlined ops take the call's location:
// RUN: ms-opt %s -p mindir-inline --split-input-file --print-debuginfo | filecheck %s --check-prefix=LOC

// Simple call: the callee's body replaces the call, its block arguments become the
// call's operands, the call's results the returned values (which take the call's
// result names). @double is no longer called and is erased; @unused was never
// called and stays (as does the entry).

// CHECK-LABEL: builtin.module
// CHECK-NOT:     @double
// CHECK:         func.func private @unused
// CHECK-LABEL:   func.func @main(%a: tensor<f32>) -> tensor<f32> {
// CHECK-NEXT:      %d = mindir.add %a, %a : tensor<f32>
// CHECK-NEXT:      %e = mindir.add %d, %d : tensor<f32>
// CHECK-NEXT:      %r = mindir.mul %d, %e : tensor<f32>
// CHECK-NEXT:      func.return %r : tensor<f32>
// CHECK-NEXT:    }
// CHECK-NEXT:  }

// LOC-LABEL: func.func @main
// LOC-NEXT:    %d = mindir.add %a, %a : tensor<f32> loc("{{.*}}mindir-inline.mlir":[[# @LINE + 14]]:3)
// LOC-NEXT:    %e = mindir.add %d, %d : tensor<f32> loc("{{.*}}mindir-inline.mlir":[[# @LINE + 14]]:3)
// LOC-NEXT:    %r = mindir.mul %d, %e : tensor<f32> loc("{{.*}}mindir-inline.mlir":[[# @LINE + 14]]:3)

func.func @double(%x: tensor<f32>) -> tensor<f32> {
  %s = mindir.add %x, %x : tensor<f32>
  func.return %s : tensor<f32>
}

func.func private @unused(%x: tensor<f32>) -> tensor<f32> {
  func.return %x : tensor<f32>
}

func.func @main(%a: tensor<f32>) -> tensor<f32> {
  %d = func.call @double(%a) : (tensor<f32>) -> tensor<f32>
  %e = func.call @double(%d) : (tensor<f32>) -> tensor<f32>
  %r = mindir.mul %d, %e : tensor<f32>
  func.return %r : tensor<f32>
}

// -----

// Nested calls are inlined bottom-up, and take the outermost call's location. A
// callee returning its argument maps that result to the call's operand; a value
// returned twice takes the first result's name.

// CHECK-LABEL: builtin.module
// CHECK-NOT:     @leaf
// CHECK-NOT:     @mid
// CHECK-LABEL:   func.func @top(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {
// CHECK-NEXT:      %l = mindir.neg %a : tensor<f32>
// CHECK-NEXT:      %p = mindir.neg %l : tensor<f32>
// CHECK-NEXT:      %s = mindir.add %p, %b : tensor<f32>
// CHECK-NEXT:      %t = mindir.add %s, %p : tensor<f32>
// CHECK-NEXT:      func.return %t : tensor<f32>

// LOC-LABEL: func.func @top
// LOC-NEXT:    mindir.neg %a : tensor<f32> loc("{{.*}}mindir-inline.mlir":[[# @LINE + 15]]:3)
// LOC-NEXT:    mindir.neg %l : tensor<f32> loc("{{.*}}mindir-inline.mlir":[[# @LINE + 14]]:3)

func.func @leaf(%x: tensor<f32>) -> tensor<f32> {
  %n = mindir.neg %x : tensor<f32>
  func.return %n : tensor<f32>
}

func.func @mid(%x: tensor<f32>, %y: tensor<f32>) -> (tensor<f32>, tensor<f32>, tensor<f32>) {
  %l = func.call @leaf(%x) : (tensor<f32>) -> tensor<f32>
  %m = func.call @leaf(%l) : (tensor<f32>) -> tensor<f32>
  func.return %m, %y, %m : tensor<f32>, tensor<f32>, tensor<f32>
}

func.func @top(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {
  %p, %q, %r = func.call @mid(%a, %b) : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>, tensor<f32>)
  %s = mindir.add %p, %q : tensor<f32>
  %t = mindir.add %s, %r : tensor<f32>
  func.return %t : tensor<f32>
}

// -----

// Calls inside the caller's if and while regions are inlined in place; region
// ops inside the callee (an if, a while) are copied with their regions, their
// uses of the callee's arguments mapped to the call's operands.

// CHECK-LABEL: builtin.module
// CHECK-NOT:     @sq
// CHECK-NOT:     @clamp
// CHECK-LABEL:   func.func @regions(%x: tensor<f32>, %c: tensor<i1>) -> tensor<f32> {
// CHECK-NEXT:      %r = mindir.if %c -> (tensor<f32>) {
// CHECK-NEXT:        %t = mindir.mul %x, %x : tensor<f32>
// CHECK-NEXT:        mindir.yield %t : tensor<f32>
// CHECK-NEXT:      } else {
// CHECK-NEXT:        mindir.yield %x : tensor<f32>
// CHECK-NEXT:      }
// CHECK-NEXT:      %w = mindir.while (%i = %r) : (tensor<f32>) -> tensor<f32> {
// CHECK-NEXT:        %lt = mindir.less %i, %x : (tensor<f32>, tensor<f32>) -> tensor<i1>
// CHECK-NEXT:        mindir.condition(%lt : tensor<i1>) %i : tensor<f32>
// CHECK-NEXT:      } do {
// CHECK-NEXT:      ^{{.*}}(%j: tensor<f32>):
// CHECK-NEXT:        %n = mindir.mul %j, %j : tensor<f32>
// CHECK-NEXT:        mindir.yield %n : tensor<f32>
// CHECK-NEXT:      }
// CHECK-NEXT:      %[[G:.*]] = mindir.greater %w, %x : (tensor<f32>, tensor<f32>) -> tensor<i1>
// CHECK-NEXT:      %k = mindir.if %[[G]] -> (tensor<f32>) {
// CHECK-NEXT:        %[[M:.*]] = mindir.while (%[[V:.*]] = %w) : (tensor<f32>) -> tensor<f32> {
// CHECK-NEXT:          %[[LT:.*]] = mindir.less %x, %[[V]] : (tensor<f32>, tensor<f32>) -> tensor<i1>
// CHECK-NEXT:          mindir.condition(%[[LT]] : tensor<i1>) %[[V]] : tensor<f32>
// CHECK-NEXT:        } do {
// CHECK-NEXT:        ^{{.*}}(%[[B:.*]]: tensor<f32>):
// CHECK-NEXT:          %[[S:.*]] = mindir.sub %[[B]], %x : tensor<f32>
// CHECK-NEXT:          mindir.yield %[[S]] : tensor<f32>
// CHECK-NEXT:        }
// CHECK-NEXT:        mindir.yield %[[M]] : tensor<f32>
// CHECK-NEXT:      } else {
// CHECK-NEXT:        mindir.yield %w : tensor<f32>
// CHECK-NEXT:      }
// CHECK-NEXT:      func.return %k : tensor<f32>

// Ops in the regions of an inlined op take the call's location too.
// LOC-LABEL: func.func @regions
// LOC:         mindir.sub %b, %x : tensor<f32> loc("{{.*}}mindir-inline.mlir":[[# @LINE + 42]]:3)
// LOC-NEXT:    mindir.yield %s : tensor<f32> loc("{{.*}}mindir-inline.mlir":[[# @LINE + 41]]:3)

func.func @sq(%x: tensor<f32>) -> tensor<f32> {
  %y = mindir.mul %x, %x : tensor<f32>
  func.return %y : tensor<f32>
}

// min(v, hi) by repeated subtraction: a callee with if and while
func.func @clamp(%v: tensor<f32>, %hi: tensor<f32>) -> tensor<f32> {
  %g = mindir.greater %v, %hi : (tensor<f32>, tensor<f32>) -> tensor<i1>
  %r = mindir.if %g -> (tensor<f32>) {
    %m = mindir.while (%a = %v) : (tensor<f32>) -> tensor<f32> {
      %lt = mindir.less %hi, %a : (tensor<f32>, tensor<f32>) -> tensor<i1>
      mindir.condition(%lt : tensor<i1>) %a : tensor<f32>
    } do {
    ^bb0(%b: tensor<f32>):
      %s = mindir.sub %b, %hi : tensor<f32>
      mindir.yield %s : tensor<f32>
    }
    mindir.yield %m : tensor<f32>
  } else {
    mindir.yield %v : tensor<f32>
  }
  func.return %r : tensor<f32>
}

func.func @regions(%x: tensor<f32>, %c: tensor<i1>) -> tensor<f32> {
  %r = mindir.if %c -> (tensor<f32>) {
    %t = func.call @sq(%x) : (tensor<f32>) -> tensor<f32>
    mindir.yield %t : tensor<f32>
  } else {
    mindir.yield %x : tensor<f32>
  }
  %w = mindir.while (%i = %r) : (tensor<f32>) -> tensor<f32> {
    %lt = mindir.less %i, %x : (tensor<f32>, tensor<f32>) -> tensor<i1>
    mindir.condition(%lt : tensor<i1>) %i : tensor<f32>
  } do {
  ^bb0(%j: tensor<f32>):
    %n = func.call @sq(%j) : (tensor<f32>) -> tensor<f32>
    mindir.yield %n : tensor<f32>
  }
  %k = func.call @clamp(%w, %x) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  func.return %k : tensor<f32>
}

// -----

// After mindir-auto-monad: refs, the memory state and the IO state are plain
// operands and results. The callee's effects take the caller's current states and
// its returned final states continue the caller's chains, so the order is kept:
// print, load/assign of the Parameter passed as a ref, then the caller's load.

// CHECK-LABEL: builtin.module
// CHECK-NOT:     @bump
// CHECK-LABEL:   func.func @stateful(%x: tensor<f32>, %u0: !mindir.u, %io0: !mindir.io) -> (tensor<f32>, !mindir.u, !mindir.io) {
// CHECK-NEXT:      %pw = mindir.get_parameter @w : !mindir.ref<tensor<f32>>
// CHECK-NEXT:      %[[P:.*]] = mindir.print %x, %io0 : tensor<f32>
// CHECK-NEXT:      %[[IO1:.*]] = mindir.update_state %io0, %[[P]] : !mindir.io -> !mindir.io
// CHECK-NEXT:      %[[L:.*]] = mindir.load %pw, %u0 : tensor<f32>
// CHECK-NEXT:      %[[U1:.*]] = mindir.update_state %u0, %[[L]] : tensor<f32>
// CHECK-NEXT:      %r = mindir.add %[[L]], %x : tensor<f32>
// CHECK-NEXT:      %[[A:.*]] = mindir.assign %pw, %r, %[[U1]] : tensor<f32>
// CHECK-NEXT:      %[[U2:.*]] = mindir.update_state %[[U1]], %[[A]] : tensor<f32>
// CHECK-NEXT:      %[[L2:.*]] = mindir.load %pw, %[[U2]] : tensor<f32>
// CHECK-NEXT:      %[[U3:.*]] = mindir.update_state %[[U2]], %[[L2]] : tensor<f32>
// CHECK-NEXT:      %s = mindir.add %r, %[[L2]] : tensor<f32>
// CHECK-NEXT:      func.return %s, %[[U3]], %[[IO1]] : tensor<f32>, !mindir.u, !mindir.io

mindir.parameter @w = dense<1.0> : tensor<f32>

func.func @bump(%x: tensor<f32>, %p: !mindir.ref<tensor<f32>>, %u0: !mindir.u, %io0: !mindir.io) -> (tensor<f32>, !mindir.u, !mindir.io) {
  %pr = mindir.print %x, %io0 : tensor<f32>
  %io1 = mindir.update_state %io0, %pr : !mindir.io -> !mindir.io
  %l = mindir.load %p, %u0 : tensor<f32>
  %u1 = mindir.update_state %u0, %l : tensor<f32>
  %s = mindir.add %l, %x : tensor<f32>
  %a = mindir.assign %p, %s, %u1 : tensor<f32>
  %u2 = mindir.update_state %u1, %a : tensor<f32>
  func.return %s, %u2, %io1 : tensor<f32>, !mindir.u, !mindir.io
}

func.func @stateful(%x: tensor<f32>, %u0: !mindir.u, %io0: !mindir.io) -> (tensor<f32>, !mindir.u, !mindir.io) {
  %pw = mindir.get_parameter @w : !mindir.ref<tensor<f32>>
  %r, %u1, %io1 = func.call @bump(%x, %pw, %u0, %io0) : (tensor<f32>, !mindir.ref<tensor<f32>>, !mindir.u, !mindir.io) -> (tensor<f32>, !mindir.u, !mindir.io)
  %l = mindir.load %pw, %u1 : tensor<f32>
  %u2 = mindir.update_state %u1, %l : tensor<f32>
  %s = mindir.add %r, %l : tensor<f32>
  func.return %s, %u2, %io1 : tensor<f32>, !mindir.u, !mindir.io
}

// -----

// Lazy inline: @Block_construct carries `mindir.lazy_inline` (its reuse key). At
// cell-reuse 1 and 2 its calls stay, each passing its own Parameters as refs, and
// only its own callee @dense is inlined into it (once, not per call site); at
// cell-reuse 0 everything is inlined and the Block graph erased.

// CHECK-LABEL: builtin.module
// CHECK-NOT:     @dense
// KEEP-LABEL:    func.func @Block_construct(%x: tensor<2xf32>, %w: !mindir.ref<tensor<2xf32>>, %u0: !mindir.u) -> (tensor<2xf32>, !mindir.u) attributes {mindir.lazy_inline = "Block(2)"} {
// KEEP-NEXT:       %l = mindir.load %w, %u0 : tensor<2xf32>
// KEEP-NEXT:       %y = mindir.mul %x, %l : tensor<2xf32>
// KEEP-NEXT:       %z = mindir.tanh %y : tensor<2xf32>
// KEEP-NEXT:       func.return %z, %u0 : tensor<2xf32>, !mindir.u
// KEEP-LABEL:    func.func @Net_construct(%x: tensor<2xf32>, %u0: !mindir.u) -> (tensor<2xf32>, !mindir.u) {
// KEEP-NEXT:       %w0 = mindir.get_parameter @w0 : !mindir.ref<tensor<2xf32>>
// KEEP-NEXT:       %w1 = mindir.get_parameter @w1 : !mindir.ref<tensor<2xf32>>
// KEEP-NEXT:       %h, %u1 = func.call @Block_construct(%x, %w0, %u0) : (tensor<2xf32>, !mindir.ref<tensor<2xf32>>, !mindir.u) -> (tensor<2xf32>, !mindir.u)
// KEEP-NEXT:       %o, %u2 = func.call @Block_construct(%h, %w1, %u1) : (tensor<2xf32>, !mindir.ref<tensor<2xf32>>, !mindir.u) -> (tensor<2xf32>, !mindir.u)
// KEEP-NEXT:       func.return %o, %u2 : tensor<2xf32>, !mindir.u
// REUSE0-NOT:    @Block_construct
// REUSE0-LABEL:  func.func @Net_construct(%x: tensor<2xf32>, %u0: !mindir.u) -> (tensor<2xf32>, !mindir.u) {
// REUSE0-NEXT:     %w0 = mindir.get_parameter @w0 : !mindir.ref<tensor<2xf32>>
// REUSE0-NEXT:     %w1 = mindir.get_parameter @w1 : !mindir.ref<tensor<2xf32>>
// REUSE0-NEXT:     %[[L0:.*]] = mindir.load %w0, %u0 : tensor<2xf32>
// REUSE0-NEXT:     %[[Y0:.*]] = mindir.mul %x, %[[L0]] : tensor<2xf32>
// REUSE0-NEXT:     %h = mindir.tanh %[[Y0]] : tensor<2xf32>
// REUSE0-NEXT:     %[[L1:.*]] = mindir.load %w1, %u0 : tensor<2xf32>
// REUSE0-NEXT:     %[[Y1:.*]] = mindir.mul %h, %[[L1]] : tensor<2xf32>
// REUSE0-NEXT:     %o = mindir.tanh %[[Y1]] : tensor<2xf32>
// REUSE0-NEXT:     func.return %o, %u0 : tensor<2xf32>, !mindir.u
// REUSE0-NOT:    @Block_construct

mindir.parameter @w0 = dense<[1.0, 2.0]> : tensor<2xf32>
mindir.parameter @w1 = dense<[3.0, 4.0]> : tensor<2xf32>

func.func @dense(%x: tensor<2xf32>, %w: tensor<2xf32>) -> tensor<2xf32> {
  %y = mindir.mul %x, %w : tensor<2xf32>
  %z = mindir.tanh %y : tensor<2xf32>
  func.return %z : tensor<2xf32>
}

func.func @Block_construct(%x: tensor<2xf32>, %w: !mindir.ref<tensor<2xf32>>, %u0: !mindir.u) -> (tensor<2xf32>, !mindir.u) attributes {mindir.lazy_inline = "Block(2)"} {
  %l = mindir.load %w, %u0 : tensor<2xf32>
  %z = func.call @dense(%x, %l) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return %z, %u0 : tensor<2xf32>, !mindir.u
}

func.func @Net_construct(%x: tensor<2xf32>, %u0: !mindir.u) -> (tensor<2xf32>, !mindir.u) {
  %w0 = mindir.get_parameter @w0 : !mindir.ref<tensor<2xf32>>
  %w1 = mindir.get_parameter @w1 : !mindir.ref<tensor<2xf32>>
  %h, %u1 = func.call @Block_construct(%x, %w0, %u0) : (tensor<2xf32>, !mindir.ref<tensor<2xf32>>, !mindir.u) -> (tensor<2xf32>, !mindir.u)
  %o, %u2 = func.call @Block_construct(%h, %w1, %u1) : (tensor<2xf32>, !mindir.ref<tensor<2xf32>>, !mindir.u) -> (tensor<2xf32>, !mindir.u)
  func.return %o, %u2 : tensor<2xf32>, !mindir.u
}

// -----

// A kept lazy graph called from a graph that is inlined: the copied call still
// calls it. Declarations are left alone.

// CHECK-LABEL: builtin.module
// CHECK:         func.func private @ext(tensor<f32>) -> tensor<f32>
// KEEP:          func.func @Lazy_construct
// CHECK-NOT:     func.func @wrap
// CHECK-LABEL:   func.func @entry(%x: tensor<f32>, %c: tensor<i1>) -> tensor<f32> {
// KEEP-NEXT:       %y = func.call @Lazy_construct(%x, %c) : (tensor<f32>, tensor<i1>) -> tensor<f32>
// REUSE0-NEXT:     %y = mindir.if %c -> (tensor<f32>) {
// REUSE0-NEXT:       %[[N:.*]] = mindir.neg %x : tensor<f32>
// REUSE0-NEXT:       mindir.yield %[[N]] : tensor<f32>
// REUSE0-NEXT:     } else {
// REUSE0-NEXT:       mindir.yield %x : tensor<f32>
// REUSE0-NEXT:     }
// CHECK-NEXT:      %r = func.call @ext(%y) : (tensor<f32>) -> tensor<f32>
// CHECK-NEXT:      func.return %r : tensor<f32>
// REUSE0-NOT:    @Lazy_construct

func.func private @ext(tensor<f32>) -> tensor<f32>

func.func @Lazy_construct(%x: tensor<f32>, %c: tensor<i1>) -> tensor<f32> attributes {mindir.lazy_inline} {
  %r = mindir.if %c -> (tensor<f32>) {
    %n = mindir.neg %x : tensor<f32>
    mindir.yield %n : tensor<f32>
  } else {
    mindir.yield %x : tensor<f32>
  }
  func.return %r : tensor<f32>
}

func.func @wrap(%x: tensor<f32>, %c: tensor<i1>) -> tensor<f32> {
  %y = func.call @Lazy_construct(%x, %c) : (tensor<f32>, tensor<i1>) -> tensor<f32>
  %z = func.call @ext(%y) : (tensor<f32>) -> tensor<f32>
  func.return %z : tensor<f32>
}

func.func @entry(%x: tensor<f32>, %c: tensor<i1>) -> tensor<f32> {
  %r = func.call @wrap(%x, %c) : (tensor<f32>, tensor<i1>) -> tensor<f32>
  func.return %r : tensor<f32>
}
