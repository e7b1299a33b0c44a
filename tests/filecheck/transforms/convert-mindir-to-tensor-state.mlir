// RUN: ms-opt %s -p convert-mindir-to-tensor --split-input-file | filecheck %s

// Parameters -> ml_program.global; Load/Assign -> global_load/global_store in block
// order; print -> a call to a print runtime declaration; monads, update_state,
// depend and get_parameter vanish.

// CHECK:       ml_program.global private mutable @w(dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>) : tensor<2xf32>
// CHECK-NEXT:  ml_program.global private mutable @step(dense<0> : tensor<i32>) : tensor<i32>
// CHECK-LABEL: func.func @load_assign_load
// CHECK-SAME:    (%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
// CHECK-NEXT:    %[[L0:.*]] = ml_program.global_load @w : tensor<2xf32>
// CHECK-NEXT:    ml_program.global_store @w = %x : tensor<2xf32>
// CHECK-NEXT:    %[[L1:.*]] = ml_program.global_load @w : tensor<2xf32>
// CHECK-NEXT:    func.return %[[L0]], %x, %[[L1]] : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
mindir.parameter @w = dense<[1.0, 2.0]> : tensor<2xf32>
mindir.parameter @step = dense<0> : tensor<i32>

func.func @load_assign_load(%x: tensor<2xf32>, %u0: !mindir.u) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, !mindir.u) {
  %p = mindir.get_parameter @w : !mindir.ref<tensor<2xf32>>
  %l0 = mindir.load %p, %u0 : tensor<2xf32>
  %u1 = mindir.update_state %u0, %l0 : tensor<2xf32>
  %a = mindir.assign %p, %x, %u1 : tensor<2xf32>
  %u2 = mindir.update_state %u1, %a : tensor<2xf32>
  %l1 = mindir.load %p, %u2 : tensor<2xf32>
  %u3 = mindir.update_state %u2, %l1 : tensor<2xf32>
  func.return %l0, %a, %l1, %u3 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, !mindir.u
}

// -----

// Block order is the program order: all effects may use the entry monad (as the
// frontend emits them before auto-monad), the order is kept. A ref may go
// through depend.

// CHECK:       ml_program.global private mutable @step(dense<0> : tensor<i32>) : tensor<i32>
// CHECK-LABEL: func.func @increment
// CHECK-SAME:    () -> tensor<i32>
// CHECK:         %[[ONE:.*]] = arith.constant dense<1> : tensor<i32>
// CHECK:         %[[V:.*]] = ml_program.global_load @step : tensor<i32>
// CHECK:         %[[V1:.*]] = linalg.generic
// CHECK:         ml_program.global_store @step = %[[V1]] : tensor<i32>
// CHECK-NEXT:    %[[V2:.*]] = ml_program.global_load @step : tensor<i32>
// CHECK-NEXT:    ml_program.global_store @step = %[[ONE]] : tensor<i32>
// CHECK-NEXT:    func.return %[[V2]] : tensor<i32>
mindir.parameter @step = dense<0> : tensor<i32>

func.func @increment(%u0: !mindir.u) -> tensor<i32> {
  %one = mindir.constant dense<1> : tensor<i32>
  %p = mindir.get_parameter @step : !mindir.ref<tensor<i32>>
  %v = mindir.load %p, %u0 : tensor<i32>
  %v1 = mindir.add %v, %one : tensor<i32>
  %a = mindir.assign %p, %v1, %u0 : tensor<i32>
  %q = mindir.depend %p, %a : !mindir.ref<tensor<i32>>, tensor<i32>
  %v2 = mindir.load %q, %u0 : tensor<i32>
  %a2 = mindir.assign %q, %one, %u0 : tensor<i32>
  %r = mindir.depend %v2, %a2 : tensor<i32>, tensor<i32>
  func.return %r : tensor<i32>
}

// -----

// print: one private declaration per operand-type signature (shared by the
// functions), the format on the call; without a format every value in order.
// The !mindir.io chain vanishes.

// CHECK:       func.func private @__mindjit_print_0(tensor<2xf32>, tensor<i32>) -> () attributes {mindjit.runtime = "print"}
// CHECK-NEXT:  func.func private @__mindjit_print_1(tensor<2xf32>) -> () attributes {mindjit.runtime = "print"}
// CHECK-LABEL: func.func @prints
// CHECK-SAME:    (%x: tensor<2xf32>, %n: tensor<i32>) -> tensor<2xf32>
// CHECK-NEXT:    func.call @__mindjit_print_0(%x, %n) {mindjit.print_format = ["x and n:", 0 : i64, 1 : i64]} : (tensor<2xf32>, tensor<i32>) -> ()
// CHECK-NEXT:    func.call @__mindjit_print_1(%x) {mindjit.print_format = [0 : i64]} : (tensor<2xf32>) -> ()
// CHECK-NEXT:    func.call @__mindjit_print_0(%x, %n) {mindjit.print_format = [1 : i64, "twice", 1 : i64]} : (tensor<2xf32>, tensor<i32>) -> ()
// CHECK-NEXT:    func.return %x : tensor<2xf32>
// CHECK-LABEL: func.func @prints_too
// CHECK-NEXT:    func.call @__mindjit_print_1(%y) {mindjit.print_format = ["y"]} : (tensor<2xf32>) -> ()
// CHECK-NEXT:    func.return
func.func @prints(%x: tensor<2xf32>, %n: tensor<i32>, %io0: !mindir.io) -> (tensor<2xf32>, !mindir.io) {
  %io1 = mindir.print %x, %n, %io0 {format = ["x and n:", 0, 1]} : tensor<2xf32>, tensor<i32>
  %io2 = mindir.print %x, %io1 : tensor<2xf32>
  %io3 = mindir.print %x, %n, %io2 {format = [1, "twice", 1]} : tensor<2xf32>, tensor<i32>
  %io4 = mindir.update_state %io3 -> !mindir.io
  func.return %x, %io4 : tensor<2xf32>, !mindir.io
}

func.func @prints_too(%y: tensor<2xf32>, %io0: !mindir.io) -> !mindir.io {
  %io1 = mindir.print %y, %io0 {format = ["y"]} : tensor<2xf32>
  func.return %io1 : !mindir.io
}

// -----

// Graphs taking and returning monads: the states are dropped from signatures,
// calls and returns; a call to a graph with effects stays even when its results
// are unused.

// CHECK:       func.func private @__mindjit_print_0(tensor<2xf32>) -> () attributes {mindjit.runtime = "print"}
// CHECK-LABEL: func.func @callee
// CHECK-SAME:    (%x: tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT:    ml_program.global_store @w = %x : tensor<2xf32>
// CHECK-NEXT:    func.call @__mindjit_print_0(%x) {mindjit.print_format = [0 : i64]} : (tensor<2xf32>) -> ()
// CHECK-NEXT:    func.return %x : tensor<2xf32>
// CHECK-LABEL: func.func @caller
// CHECK-SAME:    (%x: tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT:    %{{.*}} = func.call @callee(%x) : (tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT:    %[[L:.*]] = ml_program.global_load @w : tensor<2xf32>
// CHECK-NEXT:    func.return %[[L]] : tensor<2xf32>
mindir.parameter @w = dense<[1.0, 2.0]> : tensor<2xf32>

func.func @callee(%x: tensor<2xf32>, %u0: !mindir.u, %io0: !mindir.io) -> (tensor<2xf32>, !mindir.u, !mindir.io) {
  %p = mindir.get_parameter @w : !mindir.ref<tensor<2xf32>>
  %a = mindir.assign %p, %x, %u0 : tensor<2xf32>
  %u1 = mindir.update_state %u0, %a : tensor<2xf32>
  %io1 = mindir.print %a, %io0 : tensor<2xf32>
  func.return %a, %u1, %io1 : tensor<2xf32>, !mindir.u, !mindir.io
}

func.func @caller(%x: tensor<2xf32>, %u0: !mindir.u, %io0: !mindir.io) -> (tensor<2xf32>, !mindir.u, !mindir.io) {
  %r:3 = func.call @callee(%x, %u0, %io0) : (tensor<2xf32>, !mindir.u, !mindir.io) -> (tensor<2xf32>, !mindir.u, !mindir.io)
  %p = mindir.get_parameter @w : !mindir.ref<tensor<2xf32>>
  %l = mindir.load %p, %r#1 : tensor<2xf32>
  func.return %l, %r#1, %r#2 : tensor<2xf32>, !mindir.u, !mindir.io
}

// -----

// Effects inside if/while: the regions keep their order, the states they carry
// are dropped from the results and the loop-carried values.

// CHECK:       ml_program.global private mutable @n(dense<0> : tensor<i32>) : tensor<i32>
// CHECK-LABEL: func.func @control
// CHECK-SAME:    (%c: tensor<i1>, %k: tensor<i32>) -> tensor<i32>
// CHECK:         scf.if %{{.*}} {
// CHECK-NEXT:      ml_program.global_store @n = %k : tensor<i32>
// CHECK-NEXT:    } else {
// CHECK-NEXT:    }
// CHECK:         %{{.*}} = scf.while (%[[I:.*]] = %{{.*}}) : (tensor<i32>) -> tensor<i32> {
// CHECK:           scf.condition(%{{.*}}) %[[I]] : tensor<i32>
// CHECK-NEXT:    } do {
// CHECK-NEXT:    ^{{.*}}(%[[J:.*]]: tensor<i32>):
// CHECK-NEXT:      tensor.empty() : tensor<i32>
// CHECK-NEXT:      %[[V:.*]] = ml_program.global_load @n : tensor<i32>
// CHECK:           ml_program.global_store @n = %{{.*}} : tensor<i32>
// CHECK:           scf.yield %{{.*}} : tensor<i32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[R:.*]] = ml_program.global_load @n : tensor<i32>
// CHECK-NEXT:    func.return %[[R]] : tensor<i32>
mindir.parameter @n = dense<0> : tensor<i32>

func.func @control(%c: tensor<i1>, %k: tensor<i32>, %u0: !mindir.u) -> (tensor<i32>, !mindir.u) {
  %p = mindir.get_parameter @n : !mindir.ref<tensor<i32>>
  %zero = mindir.constant dense<0> : tensor<i32>
  %one = mindir.constant dense<1> : tensor<i32>
  %u1 = mindir.if %c -> (!mindir.u) {
    %a = mindir.assign %p, %k, %u0 : tensor<i32>
    %u = mindir.update_state %u0, %a : tensor<i32>
    mindir.yield %u : !mindir.u
  } else {
    mindir.yield %u0 : !mindir.u
  }
  %w:2 = mindir.while (%i = %zero, %u = %u1) : (tensor<i32>, !mindir.u) -> (tensor<i32>, !mindir.u) {
    %lt = mindir.less %i, %k : (tensor<i32>, tensor<i32>) -> tensor<i1>
    mindir.condition(%lt : tensor<i1>) %i, %u : tensor<i32>, !mindir.u
  } do {
  ^bb0(%j: tensor<i32>, %uj: !mindir.u):
    %v = mindir.load %p, %uj : tensor<i32>
    %v1 = mindir.add %v, %one : tensor<i32>
    %a = mindir.assign %p, %v1, %uj : tensor<i32>
    %uj1 = mindir.update_state %uj, %a : tensor<i32>
    %j1 = mindir.add %j, %one : tensor<i32>
    mindir.yield %j1, %uj1 : tensor<i32>, !mindir.u
  }
  %r = mindir.load %p, %w#1 : tensor<i32>
  func.return %r, %w#1 : tensor<i32>, !mindir.u
}
