// RUN: ms-opt %s -p convert-mindir-to-tensor --split-input-file | filecheck %s

// A reused graph (lazy inline) takes its Parameters as !mindir.ref arguments.
// Functionalized at the call boundary: a ref argument becomes a tensor argument
// (the Parameter's value at entry), a Load its current value, an Assign makes a
// new current value, and the final value of every ref argument the graph writes
// is an extra trailing result (mindjit.ref_results lists their arguments). Each
// call site loads the Parameter right before the call and stores the value the
// callee hands back right after it.

// CHECK:       ml_program.global private mutable @w0
// CHECK:       func.func @Block_construct(%x: tensor<2xf32>, %w: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
// CHECK-SAME:    attributes {mindir.lazy_inline = "Block(2)", mindjit.ref_results = [1 : i64]}
// CHECK:         %n = linalg.generic {{.*}} ins(%w, %x : tensor<2xf32>, tensor<2xf32>)
// CHECK:         %z = linalg.generic {{.*}} ins(%n, %x : tensor<2xf32>, tensor<2xf32>)
// CHECK:         func.call @__mindjit_print_0(%z)
// CHECK-NEXT:    func.return %w, %z : tensor<2xf32>, tensor<2xf32>
// CHECK-LABEL: func.func @Net_construct
// CHECK-SAME:    (%x: tensor<2xf32>) -> tensor<2xf32>
// CHECK:         %w0 = ml_program.global_load @w0 : tensor<2xf32>
// CHECK-NEXT:    %h, %w0_1 = func.call @Block_construct(%x, %w0) : (tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
// CHECK-NEXT:    ml_program.global_store @w0 = %w0_1 : tensor<2xf32>
// CHECK-NEXT:    %w1 = ml_program.global_load @w1 : tensor<2xf32>
// CHECK-NEXT:    %o, %w1_1 = func.call @Block_construct(%h, %w1) : (tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
// CHECK-NEXT:    ml_program.global_store @w1 = %w1_1 : tensor<2xf32>
// CHECK-NEXT:    %l = ml_program.global_load @w0 : tensor<2xf32>
// CHECK:         %r = linalg.generic {{.*}} ins(%o, %l : tensor<2xf32>, tensor<2xf32>)
// CHECK:         func.return %r : tensor<2xf32>
mindir.parameter @w0 = dense<[1.0, 2.0]> : tensor<2xf32>
mindir.parameter @w1 = dense<[0.5, -1.0]> : tensor<2xf32>

func.func @Block_construct(%x: tensor<2xf32>, %w: !mindir.ref<tensor<2xf32>>, %u0: !mindir.u, %io0: !mindir.io) -> (tensor<2xf32>, !mindir.u, !mindir.io) attributes {mindir.lazy_inline = "Block(2)"} {
  %l = mindir.load %w, %u0 : tensor<2xf32>
  %u1 = mindir.update_state %u0, %l : tensor<2xf32>
  %n = mindir.add %l, %x : tensor<2xf32>
  %a = mindir.assign %w, %n, %u1 : tensor<2xf32>
  %u2 = mindir.update_state %u1, %a : tensor<2xf32>
  %l2 = mindir.load %w, %u2 : tensor<2xf32>
  %u3 = mindir.update_state %u2, %l2 : tensor<2xf32>
  %z = mindir.mul %l2, %x : tensor<2xf32>
  %a2 = mindir.assign %w, %z, %u3 : tensor<2xf32>
  %u4 = mindir.update_state %u3, %a2 : tensor<2xf32>
  %p = mindir.print %a2, %io0 : tensor<2xf32>
  %io1 = mindir.update_state %io0, %p : !mindir.io -> !mindir.io
  func.return %l, %u4, %io1 : tensor<2xf32>, !mindir.u, !mindir.io
}

func.func @Net_construct(%x: tensor<2xf32>, %u0: !mindir.u, %io0: !mindir.io) -> (tensor<2xf32>, !mindir.u, !mindir.io) {
  %w0 = mindir.get_parameter @w0 : !mindir.ref<tensor<2xf32>>
  %w1 = mindir.get_parameter @w1 : !mindir.ref<tensor<2xf32>>
  %h, %u1, %io1 = func.call @Block_construct(%x, %w0, %u0, %io0) : (tensor<2xf32>, !mindir.ref<tensor<2xf32>>, !mindir.u, !mindir.io) -> (tensor<2xf32>, !mindir.u, !mindir.io)
  %o, %u2, %io2 = func.call @Block_construct(%h, %w1, %u1, %io1) : (tensor<2xf32>, !mindir.ref<tensor<2xf32>>, !mindir.u, !mindir.io) -> (tensor<2xf32>, !mindir.u, !mindir.io)
  %l = mindir.load %w0, %u2 : tensor<2xf32>
  %u3 = mindir.update_state %u2, %l : tensor<2xf32>
  %r = mindir.add %o, %l : tensor<2xf32>
  func.return %r, %u3, %io2 : tensor<2xf32>, !mindir.u, !mindir.io
}

// -----

// Nested reuse: a reused graph passes its own ref arguments on. It passes its
// current values and continues with the ones handed back, then returns its own
// final values; only the outermost caller touches the globals.

// CHECK:       func.func @Inner_construct(%x: tensor<f32>, %w: tensor<f32>) -> (tensor<f32>, tensor<f32>)
// CHECK-SAME:    mindjit.ref_results = [1 : i64]
// CHECK:         %n = linalg.generic {{.*}} ins(%w, %x : tensor<f32>, tensor<f32>)
// CHECK:         func.return %n, %n : tensor<f32>, tensor<f32>
// CHECK:       func.func @Outer_construct(%x: tensor<f32>, %wa: tensor<f32>, %wb: tensor<f32>) -> (tensor<f32>, tensor<f32>, tensor<f32>)
// CHECK-SAME:    mindjit.ref_results = [1 : i64, 2 : i64]
// CHECK:         %h, %wa_1 = func.call @Inner_construct(%x, %wa) : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
// CHECK-NEXT:    %o, %wb_1 = func.call @Inner_construct(%h, %wb) : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
// CHECK-NOT:     ml_program
// CHECK:         %r = linalg.generic {{.*}} ins(%o, %wa_1 : tensor<f32>, tensor<f32>)
// CHECK:         func.return %r, %wa_1, %wb_1 : tensor<f32>, tensor<f32>, tensor<f32>
// CHECK-LABEL: func.func @Net_construct
// CHECK-SAME:    (%x: tensor<f32>) -> tensor<f32>
// CHECK-NEXT:    %a = ml_program.global_load @a : tensor<f32>
// CHECK-NEXT:    %b = ml_program.global_load @b : tensor<f32>
// CHECK-NEXT:    %r, %a_1, %b_1 = func.call @Outer_construct(%x, %a, %b) : (tensor<f32>, tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>, tensor<f32>)
// CHECK-NEXT:    ml_program.global_store @a = %a_1 : tensor<f32>
// CHECK-NEXT:    ml_program.global_store @b = %b_1 : tensor<f32>
// CHECK-NEXT:    func.return %r : tensor<f32>
mindir.parameter @a = dense<1.0> : tensor<f32>
mindir.parameter @b = dense<2.0> : tensor<f32>

func.func @Inner_construct(%x: tensor<f32>, %w: !mindir.ref<tensor<f32>>, %u0: !mindir.u) -> (tensor<f32>, !mindir.u) attributes {mindir.lazy_inline = "Inner"} {
  %l = mindir.load %w, %u0 : tensor<f32>
  %u1 = mindir.update_state %u0, %l : tensor<f32>
  %n = mindir.mul %l, %x : tensor<f32>
  %a = mindir.assign %w, %n, %u1 : tensor<f32>
  %u2 = mindir.update_state %u1, %a : tensor<f32>
  func.return %n, %u2 : tensor<f32>, !mindir.u
}

func.func @Outer_construct(%x: tensor<f32>, %wa: !mindir.ref<tensor<f32>>, %wb: !mindir.ref<tensor<f32>>, %u0: !mindir.u) -> (tensor<f32>, !mindir.u) attributes {mindir.lazy_inline = "Outer"} {
  %h, %u1 = func.call @Inner_construct(%x, %wa, %u0) : (tensor<f32>, !mindir.ref<tensor<f32>>, !mindir.u) -> (tensor<f32>, !mindir.u)
  %o, %u2 = func.call @Inner_construct(%h, %wb, %u1) : (tensor<f32>, !mindir.ref<tensor<f32>>, !mindir.u) -> (tensor<f32>, !mindir.u)
  %la = mindir.load %wa, %u2 : tensor<f32>
  %u3 = mindir.update_state %u2, %la : tensor<f32>
  %r = mindir.add %o, %la : tensor<f32>
  func.return %r, %u3 : tensor<f32>, !mindir.u
}

func.func @Net_construct(%x: tensor<f32>, %u0: !mindir.u) -> (tensor<f32>, !mindir.u) {
  %pa = mindir.get_parameter @a : !mindir.ref<tensor<f32>>
  %pb = mindir.get_parameter @b : !mindir.ref<tensor<f32>>
  %r, %u1 = func.call @Outer_construct(%x, %pa, %pb, %u0) : (tensor<f32>, !mindir.ref<tensor<f32>>, !mindir.ref<tensor<f32>>, !mindir.u) -> (tensor<f32>, !mindir.u)
  func.return %r, %u1 : tensor<f32>, !mindir.u
}

// -----

// A ref only read gets no extra result and no attribute; the call site only
// loads. An unused ref argument just becomes a tensor argument.

// CHECK:       func.func @Scale_construct(%x: tensor<f32>, %s: tensor<f32>, %unused: tensor<f32>) -> tensor<f32> attributes {mindir.lazy_inline} {
// CHECK:         %y = linalg.generic {{.*}} ins(%x, %s : tensor<f32>, tensor<f32>)
// CHECK:         func.return %y : tensor<f32>
// CHECK-LABEL: func.func @Net_construct
// CHECK-NEXT:    %scale = ml_program.global_load @scale : tensor<f32>
// CHECK-NEXT:    %scale_1 = ml_program.global_load @scale : tensor<f32>
// CHECK-NEXT:    %y = func.call @Scale_construct(%x, %scale, %scale_1) : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<f32>
// CHECK-NEXT:    func.return %y : tensor<f32>
mindir.parameter @scale = dense<3.0> : tensor<f32>

func.func @Scale_construct(%x: tensor<f32>, %s: !mindir.ref<tensor<f32>>, %unused: !mindir.ref<tensor<f32>>, %u0: !mindir.u) -> (tensor<f32>, !mindir.u) attributes {mindir.lazy_inline} {
  %l = mindir.load %s, %u0 : tensor<f32>
  %y = mindir.mul %x, %l : tensor<f32>
  func.return %y, %u0 : tensor<f32>, !mindir.u
}

func.func @Net_construct(%x: tensor<f32>, %u0: !mindir.u) -> (tensor<f32>, !mindir.u) {
  %p = mindir.get_parameter @scale : !mindir.ref<tensor<f32>>
  %y, %u1 = func.call @Scale_construct(%x, %p, %p, %u0) : (tensor<f32>, !mindir.ref<tensor<f32>>, !mindir.ref<tensor<f32>>, !mindir.u) -> (tensor<f32>, !mindir.u)
  func.return %y, %u1 : tensor<f32>, !mindir.u
}

// -----

// Assigns inside mindir.if and mindir.while: the ref's value is threaded as an
// extra if result and an extra loop-carried value. A ref reached through depend
// is the same ref; tuple arguments before it count in mindjit.ref_results.

// CHECK:       func.func @Count_construct(%0: tensor<f32>, %x: tensor<f32>, %c: tensor<i1>, %n: tensor<f32>, %acc: tensor<f32>, %cnt: tensor<f32>) -> (tensor<f32>, tensor<f32>, tensor<f32>)
// CHECK-SAME:    mindjit.ref_results = [4 : i64, 5 : i64]
// CHECK:         %r, %acc_1 = scf.if %{{.*}} -> (tensor<f32>, tensor<f32>) {
// CHECK:           %s = linalg.generic {{.*}} ins(%acc, %x : tensor<f32>, tensor<f32>)
// CHECK:           scf.yield %s, %s : tensor<f32>, tensor<f32>
// CHECK-NEXT:    } else {
// CHECK-NEXT:      scf.yield %x, %acc : tensor<f32>, tensor<f32>
// CHECK-NEXT:    }
// CHECK:         %{{.*}}, %cnt_1 = scf.while (%j = %zero, %cnt_2 = %cnt) : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>) {
// CHECK:           scf.condition(%{{.*}}) %j, %cnt_2 : tensor<f32>, tensor<f32>
// CHECK-NEXT:    } do {
// CHECK-NEXT:    ^bb0(%k: tensor<f32>, %cnt_3: tensor<f32>):
// CHECK:           %v1 = linalg.generic {{.*}} ins(%cnt_3, %x : tensor<f32>, tensor<f32>)
// CHECK:           scf.yield %k1, %v1 : tensor<f32>, tensor<f32>
// CHECK-NEXT:    }
// CHECK:         %o = linalg.generic {{.*}} ins(%acc_1, %r : tensor<f32>, tensor<f32>)
// CHECK:         func.return %o, %acc_1, %cnt_1 : tensor<f32>, tensor<f32>, tensor<f32>
func.func @Count_construct(%t: tuple<tensor<f32>, tensor<f32>>, %c: tensor<i1>, %n: tensor<f32>, %acc: !mindir.ref<tensor<f32>>, %cnt: !mindir.ref<tensor<f32>>, %u0: !mindir.u) -> (tensor<f32>, !mindir.u) attributes {mindir.lazy_inline} {
  %x = mindir.tuple_get_item %t {index = 1 : i64} : (tuple<tensor<f32>, tensor<f32>>) -> tensor<f32>
  %r, %u2 = mindir.if %c -> (tensor<f32>, !mindir.u) {
    %l = mindir.load %acc, %u0 : tensor<f32>
    %u1 = mindir.update_state %u0, %l : tensor<f32>
    %s = mindir.add %l, %x : tensor<f32>
    %a = mindir.assign %acc, %s, %u1 : tensor<f32>
    %u3 = mindir.update_state %u1, %a : tensor<f32>
    mindir.yield %s, %u3 : tensor<f32>, !mindir.u
  } else {
    mindir.yield %x, %u0 : tensor<f32>, !mindir.u
  }
  %zero = mindir.sub %n, %n : tensor<f32>
  %i, %u4 = mindir.while (%j = %zero, %ul = %u2) : (tensor<f32>, !mindir.u) -> (tensor<f32>, !mindir.u) {
    %lt = mindir.less %j, %n : (tensor<f32>, tensor<f32>) -> tensor<i1>
    mindir.condition(%lt : tensor<i1>) %j, %ul : tensor<f32>, !mindir.u
  } do {
  ^bb0(%k: tensor<f32>, %ub: !mindir.u):
    %q = mindir.depend %cnt, %k : !mindir.ref<tensor<f32>>, tensor<f32>
    %v = mindir.load %q, %ub : tensor<f32>
    %ub1 = mindir.update_state %ub, %v : tensor<f32>
    %v1 = mindir.add %v, %x : tensor<f32>
    %a = mindir.assign %q, %v1, %ub1 : tensor<f32>
    %ub2 = mindir.update_state %ub1, %a : tensor<f32>
    %k1 = mindir.add %k, %x : tensor<f32>
    mindir.yield %k1, %ub2 : tensor<f32>, !mindir.u
  }
  %la = mindir.load %acc, %u4 : tensor<f32>
  %u5 = mindir.update_state %u4, %la : tensor<f32>
  %o = mindir.add %la, %r : tensor<f32>
  func.return %o, %u5 : tensor<f32>, !mindir.u
}

// -----

// A call writing a ref argument inside mindir.if threads the value like an Assign.

// CHECK:       func.func @Inner_construct(%x: tensor<f32>, %w: tensor<f32>) -> (tensor<f32>, tensor<f32>)
// CHECK-SAME:    mindjit.ref_results = [1 : i64]
// CHECK-NEXT:    func.return %x, %x : tensor<f32>, tensor<f32>
// CHECK:       func.func @Outer_construct(%c: tensor<i1>, %x: tensor<f32>, %w: tensor<f32>) -> (tensor<f32>, tensor<f32>)
// CHECK-SAME:    mindjit.ref_results = [2 : i64]
// CHECK:         %{{.*}}, %w_1 = scf.if %{{.*}} -> (tensor<f32>, tensor<f32>) {
// CHECK-NEXT:      %y, %w_2 = func.call @Inner_construct(%x, %w) : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
// CHECK-NEXT:      scf.yield %y, %w_2 : tensor<f32>, tensor<f32>
// CHECK-NEXT:    } else {
// CHECK-NEXT:      scf.yield %x, %w : tensor<f32>, tensor<f32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %w_1, %w_1 : tensor<f32>, tensor<f32>
// CHECK-LABEL: func.func @Net_construct
// CHECK-NEXT:    %w = ml_program.global_load @w : tensor<f32>
// CHECK-NEXT:    %r, %w_1 = func.call @Outer_construct(%c, %x, %w) : (tensor<i1>, tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
// CHECK-NEXT:    ml_program.global_store @w = %w_1 : tensor<f32>
// CHECK-NEXT:    func.return %r : tensor<f32>
mindir.parameter @w = dense<1.0> : tensor<f32>

func.func @Inner_construct(%x: tensor<f32>, %w: !mindir.ref<tensor<f32>>, %u0: !mindir.u) -> (tensor<f32>, !mindir.u) attributes {mindir.lazy_inline} {
  %a = mindir.assign %w, %x, %u0 : tensor<f32>
  %u1 = mindir.update_state %u0, %a : tensor<f32>
  func.return %x, %u1 : tensor<f32>, !mindir.u
}

func.func @Outer_construct(%c: tensor<i1>, %x: tensor<f32>, %w: !mindir.ref<tensor<f32>>, %u0: !mindir.u) -> (tensor<f32>, !mindir.u) attributes {mindir.lazy_inline} {
  %r, %u1 = mindir.if %c -> (tensor<f32>, !mindir.u) {
    %y, %u2 = func.call @Inner_construct(%x, %w, %u0) : (tensor<f32>, !mindir.ref<tensor<f32>>, !mindir.u) -> (tensor<f32>, !mindir.u)
    mindir.yield %y, %u2 : tensor<f32>, !mindir.u
  } else {
    mindir.yield %x, %u0 : tensor<f32>, !mindir.u
  }
  %l = mindir.load %w, %u1 : tensor<f32>
  func.return %l, %u1 : tensor<f32>, !mindir.u
}

func.func @Net_construct(%c: tensor<i1>, %x: tensor<f32>, %u0: !mindir.u) -> (tensor<f32>, !mindir.u) {
  %w = mindir.get_parameter @w : !mindir.ref<tensor<f32>>
  %r, %u1 = func.call @Outer_construct(%c, %x, %w, %u0) : (tensor<i1>, tensor<f32>, !mindir.ref<tensor<f32>>, !mindir.u) -> (tensor<f32>, !mindir.u)
  func.return %r, %u1 : tensor<f32>, !mindir.u
}
