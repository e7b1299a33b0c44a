// RUN: ms-opt %s | filecheck %s
// RUN: ms-opt %s --print-op-generic | ms-opt | filecheck %s
// RUN: ms-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// Round trip of every mindir type and op: custom form, and custom -> generic -> custom.

// CHECK: mindir.parameter @w = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// GENERIC: "mindir.parameter"() <{sym_name = "w", type = tensor<2xf32>, initial_value = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>}> : () -> ()
mindir.parameter @w = dense<[1.0, 2.0]> : tensor<2xf32>

// A value held outside the IR (see mindjit.ir.resources): the handle round-trips unchanged.
// CHECK-NEXT: mindir.parameter @big = dense_resource<big_blob> : tensor<4xf32>
// GENERIC-NEXT: "mindir.parameter"() <{sym_name = "big", type = tensor<4xf32>, initial_value = dense_resource<big_blob> : tensor<4xf32>}> : () -> ()
mindir.parameter @big = dense_resource<big_blob> : tensor<4xf32>

// CHECK-LABEL: func.func @values
func.func @values(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %i: tensor<2x3xi32>, %k: tensor<2x3xi1>) {
  // CHECK-NEXT: %c = mindir.constant dense<1.000000e+00> : tensor<f32>
  // GENERIC: "mindir.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
  %c = mindir.constant dense<1.0> : tensor<f32>
  // CHECK-NEXT: %{{.*}} = mindir.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // GENERIC: "mindir.add"(%a, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %0 = mindir.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: mindir.sub %a, %a : tensor<2x3xf32>
  %1 = mindir.sub %a, %a : tensor<2x3xf32>
  // CHECK-NEXT: mindir.mul %a, %c : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %2 = mindir.mul %a, %c : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  // CHECK-NEXT: mindir.div %i, %i : tensor<2x3xi32>
  %3 = mindir.div %i, %i : tensor<2x3xi32>
  // CHECK-NEXT: mindir.pow %a, %a : tensor<2x3xf32>
  %4 = mindir.pow %a, %a : tensor<2x3xf32>
  // CHECK-NEXT: mindir.maximum %a, %a : tensor<2x3xf32>
  %5 = mindir.maximum %a, %a : tensor<2x3xf32>
  // CHECK-NEXT: mindir.minimum %a, %a : tensor<2x3xf32>
  %6 = mindir.minimum %a, %a : tensor<2x3xf32>
  // CHECK-NEXT: mindir.less %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %7 = mindir.less %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  // CHECK-NEXT: mindir.less_equal %a, %a : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  %8 = mindir.less_equal %a, %a : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  // CHECK-NEXT: mindir.greater %i, %i : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi1>
  %9 = mindir.greater %i, %i : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi1>
  // CHECK-NEXT: mindir.greater_equal %a, %a : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  %10 = mindir.greater_equal %a, %a : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  // CHECK-NEXT: mindir.equal %k, %k : tensor<2x3xi1>
  %11 = mindir.equal %k, %k : tensor<2x3xi1>
  // CHECK-NEXT: mindir.not_equal %a, %a : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  %12 = mindir.not_equal %a, %a : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  // CHECK-NEXT: mindir.logical_and %k, %k : tensor<2x3xi1>
  %13 = mindir.logical_and %k, %k : tensor<2x3xi1>
  // CHECK-NEXT: mindir.logical_or %k, %k : tensor<2x3xi1>
  %14 = mindir.logical_or %k, %k : tensor<2x3xi1>
  // CHECK-NEXT: mindir.logical_not %k : tensor<2x3xi1>
  %15 = mindir.logical_not %k : tensor<2x3xi1>
  // CHECK-NEXT: mindir.neg %i : tensor<2x3xi32>
  %16 = mindir.neg %i : tensor<2x3xi32>
  // CHECK-NEXT: mindir.exp %a : tensor<2x3xf32>
  %17 = mindir.exp %a : tensor<2x3xf32>
  // CHECK-NEXT: mindir.log %a : tensor<2x3xf32>
  %18 = mindir.log %a : tensor<2x3xf32>
  // CHECK-NEXT: mindir.tanh %a : tensor<2x3xf32>
  %19 = mindir.tanh %a : tensor<2x3xf32>
  // CHECK-NEXT: mindir.sin %a : tensor<2x3xf32>
  %sin = mindir.sin %a : tensor<2x3xf32>
  // CHECK-NEXT: mindir.cos %a : tensor<2x3xf32>
  %cos = mindir.cos %a : tensor<2x3xf32>
  // CHECK-NEXT: mindir.erf %a : tensor<2x3xf32>
  %erf = mindir.erf %a : tensor<2x3xf32>
  // CHECK-NEXT: mindir.floor %a : tensor<2x3xf32>
  %floor = mindir.floor %a : tensor<2x3xf32>
  // CHECK-NEXT: mindir.ceil %a : tensor<2x3xf32>
  %ceil = mindir.ceil %a : tensor<2x3xf32>
  // CHECK-NEXT: mindir.round %a : tensor<2x3xf32>
  %round = mindir.round %a : tensor<2x3xf32>
  // CHECK-NEXT: mindir.log1p %a : tensor<2x3xf32>
  %log1p = mindir.log1p %a : tensor<2x3xf32>
  // CHECK-NEXT: mindir.expm1 %a : tensor<2x3xf32>
  %expm1 = mindir.expm1 %a : tensor<2x3xf32>
  // CHECK-NEXT: mindir.stop_gradient %i : tensor<2x3xi32>
  %stop = mindir.stop_gradient %i : tensor<2x3xi32>
  // CHECK-NEXT: mindir.atan2 %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %atan2 = mindir.atan2 %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: mindir.sigmoid_grad %a, %a : tensor<2x3xf32>
  // GENERIC: "mindir.sigmoid_grad"(%a, %a) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %sgrad = mindir.sigmoid_grad %a, %a : tensor<2x3xf32>
  // CHECK-NEXT: mindir.tanh_grad %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // GENERIC: "mindir.tanh_grad"(%a, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %tgrad = mindir.tanh_grad %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: mindir.bitwise_and %i, %i : tensor<2x3xi32>
  %band = mindir.bitwise_and %i, %i : tensor<2x3xi32>
  // CHECK-NEXT: mindir.bitwise_or %k, %k : tensor<2x3xi1>
  %bor = mindir.bitwise_or %k, %k : tensor<2x3xi1>
  // CHECK-NEXT: mindir.bitwise_xor %i, %i : tensor<2x3xi32>
  %bxor = mindir.bitwise_xor %i, %i : tensor<2x3xi32>
  // CHECK-NEXT: mindir.left_shift %i, %i : tensor<2x3xi32>
  %shl = mindir.left_shift %i, %i : tensor<2x3xi32>
  // CHECK-NEXT: mindir.right_shift %i, %i : tensor<2x3xi32>
  %shr = mindir.right_shift %i, %i : tensor<2x3xi32>
  // CHECK-NEXT: mindir.relu %i : tensor<2x3xi32>
  %20 = mindir.relu %i : tensor<2x3xi32>
  // CHECK-NEXT: mindir.sigmoid %a : tensor<2x3xf32>
  %21 = mindir.sigmoid %a : tensor<2x3xf32>
  // CHECK-NEXT: mindir.sqrt %a : tensor<2x3xf32>
  %22 = mindir.sqrt %a : tensor<2x3xf32>
  // CHECK-NEXT: mindir.abs %a : tensor<2x3xf32>
  %23 = mindir.abs %a : tensor<2x3xf32>
  // CHECK-NEXT: mindir.hswish %a : tensor<2x3xf32>
  %24 = mindir.hswish %a : tensor<2x3xf32>
  // CHECK-NEXT: mindir.cast %a {to = f16} : (tensor<2x3xf32>) -> tensor<2x3xf16>
  // GENERIC: "mindir.cast"(%a) <{to = f16}> : (tensor<2x3xf32>) -> tensor<2x3xf16>
  %25 = mindir.cast %a {to = f16} : (tensor<2x3xf32>) -> tensor<2x3xf16>
  // CHECK-NEXT: mindir.select %k, %a, %c : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %26 = mindir.select %k, %a, %c : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  // CHECK-NEXT: mindir.matmul %a, %a {transpose_b = true} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x2xf32>
  // GENERIC: "mindir.matmul"(%a, %a) <{transpose_b = true, transpose_a = false}> : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x2xf32>
  %27 = mindir.matmul %a, %a {transpose_b = true} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x2xf32>
  // CHECK-NEXT: mindir.reduce_sum %a {axis = array<i64: 1>, keep_dims = true} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  %28 = mindir.reduce_sum %a {axis = array<i64: 1>, keep_dims = true} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  // Without an axis (every axis): prints back without one, the default left out.
  // CHECK-NEXT: %sum_all = mindir.reduce_sum %a : (tensor<2x3xf32>) -> tensor<f32>
  %sum_all = mindir.reduce_sum %a : (tensor<2x3xf32>) -> tensor<f32>
  // CHECK-NEXT: mindir.reduce_mean %a {axis = array<i64: 0>} : (tensor<2x3xf32>) -> tensor<3xf32>
  %29 = mindir.reduce_mean %a {axis = array<i64: 0>} : (tensor<2x3xf32>) -> tensor<3xf32>
  // CHECK-NEXT: mindir.reduce_max %a : (tensor<2x3xf32>) -> tensor<f32>
  %30 = mindir.reduce_max %a {axis = array<i64>} : (tensor<2x3xf32>) -> tensor<f32>
  // CHECK-NEXT: mindir.reshape %a : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %31 = mindir.reshape %a : (tensor<2x3xf32>) -> tensor<3x2xf32>
  // CHECK-NEXT: mindir.transpose %a {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %32 = mindir.transpose %a {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  // CHECK-NEXT: mindir.broadcast_to %b : (tensor<3xf32>) -> tensor<4x3xf32>
  %33 = mindir.broadcast_to %b : (tensor<3xf32>) -> tensor<4x3xf32>
  // CHECK-NEXT: mindir.concat %a, %a {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  %34 = mindir.concat %a, %a {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  // CHECK-NEXT: mindir.stack %b, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %35 = mindir.stack %b, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: mindir.get_item %a {starts = array<i64: 1, 0>, limits = array<i64: 2, 3>, strides = array<i64: 1, 2>, squeeze = array<i64: 0>} : (tensor<2x3xf32>) -> tensor<2xf32>
  %36 = mindir.get_item %a {starts = array<i64: 1, 0>, limits = array<i64: 2, 3>, strides = array<i64: 1, 2>, squeeze = array<i64: 0>} : (tensor<2x3xf32>) -> tensor<2xf32>
  // CHECK-NEXT: %{{.*}} = mindir.make_tuple %a, %a : (tensor<2x3xf32>, tensor<2x3xf32>) -> tuple<tensor<2x3xf32>, tensor<2x3xf32>>
  %37 = mindir.make_tuple %a, %a : (tensor<2x3xf32>, tensor<2x3xf32>) -> tuple<tensor<2x3xf32>, tensor<2x3xf32>>
  // CHECK-NEXT: mindir.tuple_get_item %{{.*}} {index = 1 : i64} : (tuple<tensor<2x3xf32>, tensor<2x3xf32>>) -> tensor<2x3xf32>
  %38 = mindir.tuple_get_item %37 {index = 1 : i64} : (tuple<tensor<2x3xf32>, tensor<2x3xf32>>) -> tensor<2x3xf32>
  // CHECK-NEXT: mindir.addn %{{.*}} : (tuple<tensor<2x3xf32>, tensor<2x3xf32>>) -> tensor<2x3xf32>
  %39 = mindir.addn %37 : (tuple<tensor<2x3xf32>, tensor<2x3xf32>>) -> tensor<2x3xf32>
  // CHECK-NEXT: %{{.*}}, %{{.*}}, %{{.*}} = mindir.unstack %b : tensor<3xf32> -> tensor<f32>
  %40:3 = mindir.unstack %b : tensor<3xf32> -> tensor<f32>
  // CHECK-NEXT: %{{.*}}, %{{.*}}, %{{.*}} = mindir.unstack %a {axis = 1 : i64} : tensor<2x3xf32> -> tensor<2xf32>
  %41:3 = mindir.unstack %a {axis = -1 : i64} : tensor<2x3xf32> -> tensor<2xf32>
  func.return
}

// CHECK-LABEL: func.func @effects
// CHECK-SAME: (%x: tensor<2xf32>, %u0: !mindir.u, %io0: !mindir.io) -> (tensor<2xf32>, !mindir.u, !mindir.io)
func.func @effects(%x: tensor<2xf32>, %u0: !mindir.u, %io0: !mindir.io) -> (tensor<2xf32>, !mindir.u, !mindir.io) {
  // CHECK-NEXT: %p = mindir.get_parameter @w : !mindir.ref<tensor<2xf32>>
  %p = mindir.get_parameter @w : !mindir.ref<tensor<2xf32>>
  // CHECK-NEXT: %a0 = mindir.assign %p, %x, %u0 : tensor<2xf32>
  // GENERIC: "mindir.assign"(%p, %x, %u0) : (!mindir.ref<tensor<2xf32>>, tensor<2xf32>, !mindir.u) -> tensor<2xf32>
  %a0 = mindir.assign %p, %x, %u0 : tensor<2xf32>
  // CHECK-NEXT: %u1 = mindir.update_state %u0, %a0 : tensor<2xf32>
  %u1 = mindir.update_state %u0, %a0 : tensor<2xf32>
  // CHECK-NEXT: %s = mindir.constant dense<1.000000e-01> : tensor<f32>
  %s = mindir.constant dense<0.1> : tensor<f32>
  // CHECK-NEXT: %v = mindir.apply_momentum %p, %p, %s, %x, %s, %u1 : tensor<2xf32>
  // GENERIC: "mindir.apply_momentum"(%p, %p, %s, %x, %s, %u1) : (!mindir.ref<tensor<2xf32>>, !mindir.ref<tensor<2xf32>>, tensor<f32>, tensor<2xf32>, tensor<f32>, !mindir.u) -> tensor<2xf32>
  %v = mindir.apply_momentum %p, %p, %s, %x, %s, %u1 : tensor<2xf32>
  // CHECK-NEXT: %n = mindir.update_moving_stats %p, %p, %x, %x, %u1 {momentum = 1.000000e-01 : f64, count = 4 : i64} : tensor<2xf32>
  // GENERIC: "mindir.update_moving_stats"(%p, %p, %x, %x, %u1) {momentum = 1.000000e-01 : f64, count = 4 : i64} : (!mindir.ref<tensor<2xf32>>, !mindir.ref<tensor<2xf32>>, tensor<2xf32>, tensor<2xf32>, !mindir.u) -> tensor<2xf32>
  %n = mindir.update_moving_stats %p, %p, %x, %x, %u1 {momentum = 0.1 : f64, count = 4 : i64} : tensor<2xf32>
  // CHECK-NEXT: %w = mindir.apply_adam %p, %p, %p, %s, %x, %u1 {beta1 = 9.000000e-01 : f64, beta2 = 9.990000e-01 : f64, epsilon = 1.000000e-08 : f64} : tensor<2xf32>
  // GENERIC: "mindir.apply_adam"(%p, %p, %p, %s, %x, %u1) {beta1 = 9.000000e-01 : f64, beta2 = 9.990000e-01 : f64, epsilon = 1.000000e-08 : f64} : (!mindir.ref<tensor<2xf32>>, !mindir.ref<tensor<2xf32>>, !mindir.ref<tensor<2xf32>>, tensor<f32>, tensor<2xf32>, !mindir.u) -> tensor<2xf32>
  %w = mindir.apply_adam %p, %p, %p, %s, %x, %u1 {beta1 = 0.9 : f64, beta2 = 0.999 : f64, epsilon = 1.0e-8 : f64} : tensor<2xf32>
  // CHECK-NEXT: %l0 = mindir.load %p, %u1 : tensor<2xf32>
  %l0 = mindir.load %p, %u1 : tensor<2xf32>
  // CHECK-NEXT: %u2 = mindir.update_state %u1, %l0 : tensor<2xf32>
  %u2 = mindir.update_state %u1, %l0 : tensor<2xf32>
  // CHECK-NEXT: %m = mindir.tensor_move %l0 : tensor<2xf32>
  %m = mindir.tensor_move %l0 : tensor<2xf32>
  // CHECK-NEXT: %d = mindir.depend %m, %a0, %u2 : tensor<2xf32>, tensor<2xf32>, !mindir.u
  %d = mindir.depend %m, %a0, %u2 : tensor<2xf32>, tensor<2xf32>, !mindir.u
  // CHECK-NEXT: %io1 = mindir.print %d, %x, %io0 : tensor<2xf32>, tensor<2xf32>
  %io1 = mindir.print %d, %x, %io0 : tensor<2xf32>, tensor<2xf32>
  // CHECK-NEXT: %io1b = mindir.print %d, %io1 {format = ["value: ", 0 : i64]} : tensor<2xf32>
  %io1b = mindir.print %d, %io1 {format = ["value: ", 0]} : tensor<2xf32>
  // CHECK-NEXT: %io2 = mindir.update_state %io1 -> !mindir.io
  %io2 = mindir.update_state %io1 -> !mindir.io
  // CHECK-NEXT: %u3 = mindir.update_state %u2
  %u3 = mindir.update_state %u2
  func.return %d, %u3, %io2 : tensor<2xf32>, !mindir.u, !mindir.io
}

// CHECK-LABEL: func.func @control
func.func @control(%c: tensor<i1>, %x: tensor<f32>) -> tensor<f32> {
  // CHECK-NEXT: %r = mindir.if %c -> (tensor<f32>) {
  // CHECK-NEXT:   %n = mindir.neg %x : tensor<f32>
  // CHECK-NEXT:   mindir.yield %n : tensor<f32>
  // CHECK-NEXT: } else {
  // CHECK-NEXT:   mindir.yield %x : tensor<f32>
  // CHECK-NEXT: }
  %r = mindir.if %c -> (tensor<f32>) {
    %n = mindir.neg %x : tensor<f32>
    mindir.yield %n : tensor<f32>
  } else {
    mindir.yield %x : tensor<f32>
  }
  // CHECK-NEXT: %w = mindir.while (%i = %r) : (tensor<f32>) -> tensor<f32> {
  // CHECK-NEXT:   %lt = mindir.less %i, %x : (tensor<f32>, tensor<f32>) -> tensor<i1>
  // CHECK-NEXT:   mindir.condition(%lt : tensor<i1>) %i : tensor<f32>
  // CHECK-NEXT: } do {
  // CHECK-NEXT: ^bb0(%j: tensor<f32>):
  // CHECK-NEXT:   %next = mindir.add %j, %x : tensor<f32>
  // CHECK-NEXT:   mindir.yield %next : tensor<f32>
  // CHECK-NEXT: }
  %w = mindir.while (%i = %r) : (tensor<f32>) -> tensor<f32> {
    %lt = mindir.less %i, %x : (tensor<f32>, tensor<f32>) -> tensor<i1>
    mindir.condition(%lt : tensor<i1>) %i : tensor<f32>
  } do {
  ^bb0(%j: tensor<f32>):
    %next = mindir.add %j, %x : tensor<f32>
    mindir.yield %next : tensor<f32>
  }
  // CHECK-NEXT: mindir.if %c {
  // CHECK-NEXT:   mindir.yield
  // CHECK-NEXT: } else {
  mindir.if %c {
    mindir.yield
  } else {
    mindir.yield
  }
  func.return %w : tensor<f32>
}

// CHECK-LABEL: func.func @device
func.func @device() -> tensor<8xf32> {
  // CHECK-NEXT: %s = mindir.npu_alloc_float_status : tensor<8xf32>
  // GENERIC: "mindir.npu_alloc_float_status"() : () -> tensor<8xf32>
  %s = mindir.npu_alloc_float_status : tensor<8xf32>
  // CHECK-NEXT: %s1 = mindir.npu_clear_float_status %s : tensor<8xf32>
  %s1 = mindir.npu_clear_float_status %s : tensor<8xf32>
  // CHECK-NEXT: %s2 = mindir.npu_get_float_status %s1 : tensor<8xf32>
  %s2 = mindir.npu_get_float_status %s1 : tensor<8xf32>
  func.return %s2 : tensor<8xf32>
}

// CHECK-LABEL: func.func @resource
func.func @resource(%u0: !mindir.u) -> tensor<4xf32> {
  // CHECK-NEXT: %pb = mindir.get_parameter @big : !mindir.ref<tensor<4xf32>>
  // GENERIC: "mindir.get_parameter"() <{parameter = @big}> : () -> !mindir.ref<tensor<4xf32>>
  %pb = mindir.get_parameter @big : !mindir.ref<tensor<4xf32>>
  // CHECK-NEXT: %lb = mindir.load %pb, %u0 : tensor<4xf32>
  %lb = mindir.load %pb, %u0 : tensor<4xf32>
  func.return %lb : tensor<4xf32>
}

// CHECK-LABEL: func.func @grad
func.func @grad(%a: tensor<2xf32>, %s: tensor<f32>, %u: !mindir.u) -> (tensor<f32>, tensor<2xf32>, tensor<2xf32>) {
  // CHECK-NEXT: %r, %r_1, %r_2 = mindir.grad (%x = %a) sens (%s) wrt [0] weights [@w] value : (tensor<2xf32>, tensor<f32>) -> (tensor<f32>, tensor<2xf32>, tensor<2xf32>) {
  // GENERIC: "mindir.grad"(%a, %s) <{wrt = array<i64: 0>, weights = [@w], aux = 0 : i64, return_value = true, operandSegmentSizes = array<i32: 1, 1>}> ({
  %r:3 = mindir.grad (%x = %a) sens (%s) wrt [0] weights [@w] value : (tensor<2xf32>, tensor<f32>) -> (tensor<f32>, tensor<2xf32>, tensor<2xf32>) {
    %p = mindir.get_parameter @w : !mindir.ref<tensor<2xf32>>
    %l = mindir.load %p, %u : tensor<2xf32>
    %m = mindir.mul %x, %l : tensor<2xf32>
    %t = mindir.reduce_sum %m : (tensor<2xf32>) -> tensor<f32>
    mindir.yield %t : tensor<f32>
  }
  func.return %r#0, %r#1, %r#2 : tensor<f32>, tensor<2xf32>, tensor<2xf32>
}

// CHECK-LABEL: func.func @vmap
func.func @vmap(%a: tensor<5x3xf32>, %b: tensor<3xf32>) -> tensor<3x5xf32> {
  // CHECK-NEXT: %r = mindir.vmap (%x = %a, %w = %b) in_axes [0, none] out_axes [1] : (tensor<5x3xf32>, tensor<3xf32>) -> tensor<3x5xf32> {
  // CHECK-NEXT:   %y = mindir.mul %x, %w : tensor<3xf32>
  // CHECK-NEXT:   mindir.yield %y : tensor<3xf32>
  // CHECK-NEXT: }
  // GENERIC: "mindir.vmap"(%a, %b) <{in_axes = array<i64: 0, -1>, out_axes = array<i64: 1>}> ({
  %r = mindir.vmap (%x = %a, %w = %b) in_axes [0, none] out_axes [1] : (tensor<5x3xf32>, tensor<3xf32>) -> tensor<3x5xf32> {
    %y = mindir.mul %x, %w : tensor<3xf32>
    mindir.yield %y : tensor<3xf32>
  }
  func.return %r : tensor<3x5xf32>
}

// CHECK-LABEL: func.func @check_range
func.func @check_range(%a: tensor<2x3xf32>, %s: tensor<f16>) -> (tensor<2x3xf32>, tensor<f16>) {
  // CHECK-NEXT: %y = mindir.check_range %a {min = 0.000000e+00 : f64, max = 1.000000e+00 : f64, message = "For 'BinaryCrossEntropy', the elements of 'logits' must be in [0, 1]"} : tensor<2x3xf32>
  // GENERIC: "mindir.check_range"(%a) <{min = 0.000000e+00 : f64, max = 1.000000e+00 : f64, message = "For 'BinaryCrossEntropy', the elements of 'logits' must be in [0, 1]"}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %y = mindir.check_range %a {min = 0.0 : f64, max = 1.0 : f64, message = "For 'BinaryCrossEntropy', the elements of 'logits' must be in [0, 1]"} : tensor<2x3xf32>
  // CHECK-NEXT: %z = mindir.check_range %s {message = "any order", min = -2.500000e-01 : f64, max = 0x7ff0000000000000 : f64} : tensor<f16>
  %z = mindir.check_range %s {message = "any order", min = -0.25 : f64, max = 0x7ff0000000000000 : f64} : tensor<f16>
  func.return %y, %z : tensor<2x3xf32>, tensor<f16>
}

// CHECK-LABEL: func.func @conv_pool_pad
func.func @conv_pool_pad(%x: tensor<2x4x8x8xf32>, %w: tensor<6x2x3x3xf32>) -> tensor<2x6x2x2xf32> {
  // CHECK-NEXT: %y = mindir.conv2d %x, %w {stride = array<i64: 2, 2>, pad = array<i64: 1, 1, 1, 1>, group = 2 : i64} : (tensor<2x4x8x8xf32>, tensor<6x2x3x3xf32>) -> tensor<2x6x4x4xf32>
  // GENERIC: "mindir.conv2d"(%x, %w) <{stride = array<i64: 2, 2>, pad = array<i64: 1, 1, 1, 1>, group = 2 : i64, dilation = array<i64: 1, 1>}>
  %y = mindir.conv2d %x, %w {stride = array<i64: 2, 2>, pad = array<i64: 1, 1, 1, 1>, group = 2 : i64} : (tensor<2x4x8x8xf32>, tensor<6x2x3x3xf32>) -> tensor<2x6x4x4xf32>
  // CHECK-NEXT: %m = mindir.max_pool2d %y {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>} : (tensor<2x6x4x4xf32>) -> tensor<2x6x2x2xf32>
  %m = mindir.max_pool2d %y {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>} : (tensor<2x6x4x4xf32>) -> tensor<2x6x2x2xf32>
  // CHECK-NEXT: %a = mindir.avg_pool2d %y {kernel = array<i64: 3, 3>, stride = array<i64: 2, 2>, pad = array<i64: 1, 1, 1, 1>, pad_extra = array<i64: 1, 1>, count_include_pad = false} : (tensor<2x6x4x4xf32>) -> tensor<2x6x3x3xf32>
  %a = mindir.avg_pool2d %y {kernel = array<i64: 3, 3>, stride = array<i64: 2, 2>, pad = array<i64: 1, 1, 1, 1>, pad_extra = array<i64: 1, 1>, count_include_pad = false} : (tensor<2x6x4x4xf32>) -> tensor<2x6x3x3xf32>
  // CHECK-NEXT: %p = mindir.pad %m {low = array<i64: 0, 0, 1, -1>, high = array<i64: 0, 0, 0, 2>, interior = array<i64: 0, 0, 1, 0>, value = -1.500000e+00 : f64} : (tensor<2x6x2x2xf32>) -> tensor<2x6x4x3xf32>
  %p = mindir.pad %m {low = array<i64: 0, 0, 1, -1>, high = array<i64: 0, 0, 0, 2>, interior = array<i64: 0, 0, 1, 0>, value = -1.5 : f64} : (tensor<2x6x2x2xf32>) -> tensor<2x6x4x3xf32>
  // CHECK-NEXT: %r = mindir.reverse %p {axis = array<i64: 2, 3>} : tensor<2x6x4x3xf32>
  %r = mindir.reverse %p {axis = array<i64: 2, 3>} : tensor<2x6x4x3xf32>
  func.return %m : tensor<2x6x2x2xf32>
}

// Index reductions, sort and scans.
// CHECK-LABEL: func.func @index_ops
func.func @index_ops(%x: tensor<2x3xf32>) -> tensor<2xi32> {
  // CHECK-NEXT: %i = mindir.argmax %x {axis = 1 : i64} : (tensor<2x3xf32>) -> tensor<2xi32>
  // GENERIC: "mindir.argmax"(%x) <{axis = 1 : i64, keep_dims = false, index_type = i32}> : (tensor<2x3xf32>) -> tensor<2xi32>
  %i = mindir.argmax %x {axis = 1 : i64} : (tensor<2x3xf32>) -> tensor<2xi32>
  // CHECK-NEXT: %j = mindir.argmin %x {axis = 0 : i64, keep_dims = true, index_type = i64} : (tensor<2x3xf32>) -> tensor<1x3xi64>
  %j = mindir.argmin %x {axis = 0 : i64, keep_dims = true, index_type = i64} : (tensor<2x3xf32>) -> tensor<1x3xi64>
  // CHECK-NEXT: %k = mindir.argmax %x : (tensor<2x3xf32>) -> tensor<2xi32>
  %k = mindir.argmax %x : (tensor<2x3xf32>) -> tensor<2xi32>
  // CHECK-NEXT: %v, %s = mindir.sort %x {axis = 0 : i64, descending = true} : tensor<2x3xf32> -> (tensor<2x3xf32>, tensor<2x3xi32>)
  // GENERIC: "mindir.sort"(%x) <{axis = 0 : i64, descending = true}> : (tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xi32>)
  %v, %s = mindir.sort %x {axis = 0 : i64, descending = true} : tensor<2x3xf32> -> (tensor<2x3xf32>, tensor<2x3xi32>)
  // CHECK-NEXT: %v2, %s2 = mindir.sort %x : tensor<2x3xf32> -> (tensor<2x3xf32>, tensor<2x3xi32>)
  %v2, %s2 = mindir.sort %x : tensor<2x3xf32> -> (tensor<2x3xf32>, tensor<2x3xi32>)
  // CHECK-NEXT: %gamma = mindir.reduce_sum %x {axis = array<i64: 0>} : (tensor<2x3xf32>) -> tensor<3xf32>
  %gamma = mindir.reduce_sum %x {axis = array<i64: 0>} : (tensor<2x3xf32>) -> tensor<3xf32>
  // CHECK-NEXT: %y, %mean, %var = mindir.batch_norm %x, %gamma, %gamma {epsilon = 1.000000e-05 : f64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>)
  // GENERIC: "mindir.batch_norm"(%x, %gamma, %gamma) <{epsilon = 1.000000e-05 : f64}> : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>)
  %y, %mean, %var = mindir.batch_norm %x, %gamma, %gamma {epsilon = 1.0e-05 : f64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>)
  // CHECK-NEXT: %dx, %dg, %db = mindir.batch_norm_grad %y, %x, %mean, %var, %gamma {epsilon = 1.000000e-05 : f64} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>)
  // GENERIC: "mindir.batch_norm_grad"(%y, %x, %mean, %var, %gamma) <{epsilon = 1.000000e-05 : f64}>
  %dx, %dg, %db = mindir.batch_norm_grad %y, %x, %mean, %var, %gamma {epsilon = 1.0e-05 : f64} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>)
  // CHECK-NEXT: %c = mindir.cumsum %x {axis = 1 : i64, exclusive = true, reverse = true} : tensor<2x3xf32>
  // GENERIC: "mindir.cumsum"(%x) <{axis = 1 : i64, exclusive = true, reverse = true}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %c = mindir.cumsum %x {axis = 1 : i64, exclusive = true, reverse = true} : tensor<2x3xf32>
  // CHECK-NEXT: %p = mindir.cumprod %x : tensor<2x3xf32>
  %p = mindir.cumprod %x : tensor<2x3xf32>
  func.return %i : tensor<2xi32>
}

// CHECK-LABEL: func.func @gather
func.func @gather(%p: tensor<4x5x6xf32>, %i: tensor<2x3xi32>, %j: tensor<i64>, %t: tensor<2x3x6xf32>) -> (tensor<4x2x3x6xf32>, tensor<5x6xf32>, tensor<7x6xf32>) {
  // CHECK-NEXT: %g = mindir.gather %p, %i {axis = 1 : i64} : (tensor<4x5x6xf32>, tensor<2x3xi32>) -> tensor<4x2x3x6xf32>
  // GENERIC: "mindir.gather"(%p, %i) <{axis = 1 : i64}> : (tensor<4x5x6xf32>, tensor<2x3xi32>) -> tensor<4x2x3x6xf32>
  %g = mindir.gather %p, %i {axis = 1 : i64} : (tensor<4x5x6xf32>, tensor<2x3xi32>) -> tensor<4x2x3x6xf32>
  // CHECK-NEXT: %h = mindir.gather %p, %j : (tensor<4x5x6xf32>, tensor<i64>) -> tensor<5x6xf32>
  %h = mindir.gather %p, %j : (tensor<4x5x6xf32>, tensor<i64>) -> tensor<5x6xf32>
  // CHECK-NEXT: %s = mindir.unsorted_segment_sum %t, %i {num_segments = 7 : i64} : (tensor<2x3x6xf32>, tensor<2x3xi32>) -> tensor<7x6xf32>
  // GENERIC: "mindir.unsorted_segment_sum"(%t, %i) <{num_segments = 7 : i64}> : (tensor<2x3x6xf32>, tensor<2x3xi32>) -> tensor<7x6xf32>
  %s = mindir.unsorted_segment_sum %t, %i {num_segments = 7 : i64} : (tensor<2x3x6xf32>, tensor<2x3xi32>) -> tensor<7x6xf32>
  func.return %g, %h, %s : tensor<4x2x3x6xf32>, tensor<5x6xf32>, tensor<7x6xf32>
}

// CHECK-LABEL: func.func @uniform_real
func.func @uniform_real(%k: tensor<i32>, %o: tensor<i32>) -> tensor<4x5xf32> {
  // CHECK-NEXT: %u = mindir.uniform_real %k, %o {seed = 1 : i64, seed2 = 2 : i64, shape = array<i64: 4, 5>} : (tensor<i32>, tensor<i32>) -> tensor<4x5xf32>
  // GENERIC: "mindir.uniform_real"(%k, %o) <{seed = 1 : i64, seed2 = 2 : i64, shape = array<i64: 4, 5>}> : (tensor<i32>, tensor<i32>) -> tensor<4x5xf32>
  %u = mindir.uniform_real %k, %o {seed = 1 : i64, seed2 = 2 : i64, shape = array<i64: 4, 5>} : (tensor<i32>, tensor<i32>) -> tensor<4x5xf32>
  // CHECK-NEXT: %s = mindir.uniform_real %k, %o {seed = 0 : i64, seed2 = 0 : i64, shape = array<i64>} : (tensor<i32>, tensor<i32>) -> tensor<f32>
  %s = mindir.uniform_real %k, %o {seed = 0 : i64, seed2 = 0 : i64, shape = array<i64>} : (tensor<i32>, tensor<i32>) -> tensor<f32>
  func.return %u : tensor<4x5xf32>
}

// CHECK-LABEL: func.func @send_receive
func.func @send_receive(%x: tensor<4xf32>, %io0: !mindir.io) -> (tensor<4xf32>, !mindir.io) {
  // CHECK-NEXT: %io1 = mindir.send %x, %io0 {sr_tag = 3 : i64, dest_rank = 1 : i64} : tensor<4xf32>
  // GENERIC: "mindir.send"(%x, %io0) {sr_tag = 3 : i64, dest_rank = 1 : i64} : (tensor<4xf32>, !mindir.io) -> !mindir.io
  %io1 = mindir.send %x, %io0 {sr_tag = 3 : i64, dest_rank = 1 : i64} : tensor<4xf32>
  // CHECK-NEXT: %y, %io2 = mindir.receive %io1 {sr_tag = 3 : i64, src_rank = 0 : i64} : tensor<4xf32>
  // GENERIC: "mindir.receive"(%io1) {sr_tag = 3 : i64, src_rank = 0 : i64} : (!mindir.io) -> (tensor<4xf32>, !mindir.io)
  %y, %io2 = mindir.receive %io1 {sr_tag = 3 : i64, src_rank = 0 : i64} : tensor<4xf32>
  func.return %y, %io2 : tensor<4xf32>, !mindir.io
}

// A loop's record: a tensor<?x...> of items, 0-d items included.
// CHECK-LABEL: func.func @stack
func.func @stack(%x: tensor<2x3xf32>, %e: tensor<i32>, %k: tensor<i64>, %j: tensor<i32>) -> (tensor<2x3xf32>, tensor<i32>) {
  // CHECK-NEXT: %s0 = mindir.stack_new : tensor<?x2x3xf32>
  // GENERIC: "mindir.stack_new"() : () -> tensor<?x2x3xf32>
  %s0 = mindir.stack_new : tensor<?x2x3xf32>
  // CHECK-NEXT: %s1 = mindir.stack_push %s0, %k, %x : (tensor<?x2x3xf32>, tensor<i64>, tensor<2x3xf32>) -> tensor<?x2x3xf32>
  // GENERIC: "mindir.stack_push"(%s0, %k, %x) : (tensor<?x2x3xf32>, tensor<i64>, tensor<2x3xf32>) -> tensor<?x2x3xf32>
  %s1 = mindir.stack_push %s0, %k, %x : (tensor<?x2x3xf32>, tensor<i64>, tensor<2x3xf32>) -> tensor<?x2x3xf32>
  // CHECK-NEXT: %y = mindir.stack_read %s1, %k : (tensor<?x2x3xf32>, tensor<i64>) -> tensor<2x3xf32>
  // GENERIC: "mindir.stack_read"(%s1, %k) : (tensor<?x2x3xf32>, tensor<i64>) -> tensor<2x3xf32>
  %y = mindir.stack_read %s1, %k : (tensor<?x2x3xf32>, tensor<i64>) -> tensor<2x3xf32>
  // CHECK-NEXT: %t0 = mindir.stack_new : tensor<?xi32>
  %t0 = mindir.stack_new : tensor<?xi32>
  // CHECK-NEXT: %t1 = mindir.stack_push %t0, %j, %e : (tensor<?xi32>, tensor<i32>, tensor<i32>) -> tensor<?xi32>
  %t1 = mindir.stack_push %t0, %j, %e : (tensor<?xi32>, tensor<i32>, tensor<i32>) -> tensor<?xi32>
  // CHECK-NEXT: %z = mindir.stack_read %t1, %j : (tensor<?xi32>, tensor<i32>) -> tensor<i32>
  %z = mindir.stack_read %t1, %j : (tensor<?xi32>, tensor<i32>) -> tensor<i32>
  func.return %y, %z : tensor<2x3xf32>, tensor<i32>
}
