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

// -----

// mindir.apply_momentum: both Parameters loaded where it was, MindSpore's formula
// (accum * momentum + grad; var - accum * lr) as loop nests, both stored.

// CHECK-LABEL: func.func @apply_momentum
// CHECK:         %[[W:.*]] = ml_program.global_load @w : tensor<2xf32>
// CHECK-NEXT:    %[[M:.*]] = ml_program.global_load @m : tensor<2xf32>
// CHECK:         ins(%[[M]], %mu : tensor<2xf32>, tensor<f32>)
// CHECK:         arith.mulf
// CHECK:         %[[A:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %g : tensor<2xf32>, tensor<2xf32>)
// CHECK:         arith.addf
// CHECK:         ins(%[[A]], %lr : tensor<2xf32>, tensor<f32>)
// CHECK:         arith.mulf
// CHECK:         %[[V:.*]] = linalg.generic {{.*}} ins(%[[W]], %{{.*}} : tensor<2xf32>, tensor<2xf32>)
// CHECK:         arith.subf
// CHECK:         ml_program.global_store @m = %[[A]] : tensor<2xf32>
// CHECK-NEXT:    ml_program.global_store @w = %[[V]] : tensor<2xf32>
// CHECK-NEXT:    func.return %[[V]] : tensor<2xf32>
mindir.parameter @w = dense<[1.0, 2.0]> : tensor<2xf32>
mindir.parameter @m = dense<0.0> : tensor<2xf32>

func.func @apply_momentum(%g: tensor<2xf32>, %lr: tensor<f32>, %mu: tensor<f32>, %u0: !mindir.u) -> (tensor<2xf32>, !mindir.u) {
  %pw = mindir.get_parameter @w : !mindir.ref<tensor<2xf32>>
  %pm = mindir.get_parameter @m : !mindir.ref<tensor<2xf32>>
  %v = mindir.apply_momentum %pw, %pm, %lr, %g, %mu, %u0 : tensor<2xf32>
  %u1 = mindir.update_state %u0, %v : tensor<2xf32>
  func.return %v, %u1 : tensor<2xf32>, !mindir.u
}

// -----

// mindir.update_moving_stats: each running statistic loaded, `running * (1 - m)
// + batch * m` (the batch variance times count / (count - 1) = 18 / 17 first),
// stored; the constants are the float32 roundings of the frontend's numbers.

// CHECK-LABEL: func.func @moving_stats
// CHECK-DAG:     %[[KEEP:.*]] = arith.constant dense<9.000000e-01> : tensor<f32>
// CHECK-DAG:     %[[TAKE:.*]] = arith.constant dense<1.000000e-01> : tensor<f32>
// CHECK-DAG:     %[[UNBIAS:.*]] = arith.constant dense<1.05882359> : tensor<f32>
// CHECK:         ins(%bv, %[[UNBIAS]] : tensor<3xf32>, tensor<f32>)
// CHECK:         %[[RM:.*]] = ml_program.global_load @rm : tensor<3xf32>
// CHECK:         ins(%[[RM]], %[[KEEP]] : tensor<3xf32>, tensor<f32>)
// CHECK:         ins(%bm, %[[TAKE]] : tensor<3xf32>, tensor<f32>)
// CHECK:         %[[NM:.*]] = linalg.generic
// CHECK:         arith.addf
// CHECK:         %[[RV:.*]] = ml_program.global_load @rv : tensor<3xf32>
// CHECK:         ins(%[[RV]], %[[KEEP]] : tensor<3xf32>, tensor<f32>)
// CHECK:         ins(%{{.*}}, %[[TAKE]] : tensor<3xf32>, tensor<f32>)
// CHECK:         %[[NV:.*]] = linalg.generic
// CHECK:         arith.addf
// CHECK:         ml_program.global_store @rm = %[[NM]] : tensor<3xf32>
// CHECK-NEXT:    ml_program.global_store @rv = %[[NV]] : tensor<3xf32>
// CHECK-NEXT:    func.return %[[NM]] : tensor<3xf32>
mindir.parameter @rm = dense<0.0> : tensor<3xf32>
mindir.parameter @rv = dense<1.0> : tensor<3xf32>

func.func @moving_stats(%bm: tensor<3xf32>, %bv: tensor<3xf32>, %u0: !mindir.u) -> (tensor<3xf32>, !mindir.u) {
  %pm = mindir.get_parameter @rm : !mindir.ref<tensor<3xf32>>
  %pv = mindir.get_parameter @rv : !mindir.ref<tensor<3xf32>>
  %n = mindir.update_moving_stats %pm, %pv, %bm, %bv, %u0 {momentum = 0.1 : f64, count = 18 : i64} : tensor<3xf32>
  %u1 = mindir.update_state %u0, %n : tensor<3xf32>
  func.return %n, %u1 : tensor<3xf32>, !mindir.u
}

// -----

// mindir.apply_adam: the three Parameters loaded, nn.Adam's step written out
// (m * b1 + g * (1 - b1); v * b2 + g * g * (1 - b2); var - m / (sqrt(v) + eps) * lr),
// the moments then the variable stored.

// CHECK-LABEL: func.func @apply_adam
// CHECK:         %[[W:.*]] = ml_program.global_load @w : tensor<2xf32>
// CHECK-NEXT:    %[[M:.*]] = ml_program.global_load @m : tensor<2xf32>
// CHECK-NEXT:    %[[V:.*]] = ml_program.global_load @v : tensor<2xf32>
// CHECK:         math.sqrt
// CHECK:         arith.divf
// CHECK:         %[[NW:.*]] = linalg.generic {{.*}} ins(%[[W]], %{{.*}} : tensor<2xf32>, tensor<2xf32>)
// CHECK:         arith.subf
// CHECK:         ml_program.global_store @m = %{{.*}} : tensor<2xf32>
// CHECK-NEXT:    ml_program.global_store @v = %{{.*}} : tensor<2xf32>
// CHECK-NEXT:    ml_program.global_store @w = %[[NW]] : tensor<2xf32>
// CHECK-NEXT:    func.return %[[NW]] : tensor<2xf32>
mindir.parameter @w = dense<[1.0, 2.0]> : tensor<2xf32>
mindir.parameter @m = dense<0.0> : tensor<2xf32>
mindir.parameter @v = dense<0.0> : tensor<2xf32>

func.func @apply_adam(%g: tensor<2xf32>, %lr: tensor<f32>, %u0: !mindir.u) -> (tensor<2xf32>, !mindir.u) {
  %pw = mindir.get_parameter @w : !mindir.ref<tensor<2xf32>>
  %pm = mindir.get_parameter @m : !mindir.ref<tensor<2xf32>>
  %pv = mindir.get_parameter @v : !mindir.ref<tensor<2xf32>>
  %n = mindir.apply_adam %pw, %pm, %pv, %lr, %g, %u0 {beta1 = 0.9 : f64, beta2 = 0.999 : f64, epsilon = 1.0e-8 : f64} : tensor<2xf32>
  %u1 = mindir.update_state %u0, %n : tensor<2xf32>
  func.return %n, %u1 : tensor<2xf32>, !mindir.u
}
