// RUN: ms-opt %s -p mindir-grad --split-input-file | filecheck %s

// A graph lazy inline keeps, whose only effects are Loads of its reference
// arguments, is not inlined into the region: each call loads the Parameters at
// the call's state and calls its pure form @Block_construct_pure; the backward
// of each call is one call of the shared @Block_construct_pure_vjp (made once,
// the forward recomputed inside), whose input adjoint flows on and whose
// Parameter adjoint is summed into @w's gradient. Calls keep their stage. The
// backward's constants are made once per block, at its start.

// CHECK-LABEL: func.func private @Block_construct_pure(%x: tensor<2xf32>, %p: tensor<2xf32>) -> tensor<2xf32> attributes {mindir.lazy_inline = "Block()", mindir.pure_of = "Block_construct"} {
// CHECK-NEXT:    %m = mindir.mul %x, %p : tensor<2xf32>
// CHECK-NEXT:    %y = mindir.tanh %m : tensor<2xf32>
// CHECK-NEXT:    func.return %y : tensor<2xf32>
// CHECK-LABEL: func.func private @Block_construct_pure_vjp(%x: tensor<2xf32>, %p: tensor<2xf32>, %dout0: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) attributes {mindir.lazy_inline = "Block()", mindir.vjp_of = "Block_construct_pure"} {
// CHECK-NEXT:    %m = mindir.mul %x, %p : tensor<2xf32>
// CHECK-NEXT:    %y = mindir.tanh %m : tensor<2xf32>
// CHECK-NEXT:    %[[D:.*]] = mindir.tanh_grad %y, %dout0 : tensor<2xf32>
// CHECK-NEXT:    %[[DX:.*]] = mindir.mul %[[D]], %p : tensor<2xf32>
// CHECK-NEXT:    %[[DP:.*]] = mindir.mul %[[D]], %x : tensor<2xf32>
// CHECK-NEXT:    func.return %[[DX]], %[[DP]] : tensor<2xf32>, tensor<2xf32>
// CHECK-LABEL: func.func @Net
// CHECK:         %[[W0:.*]] = mindir.load %pw, %u0 {mindir.pipeline_stage = 0 : i64} : tensor<2xf32>
// CHECK-NEXT:    %[[U1:.*]] = mindir.update_state %u0, %[[W0]] {mindir.pipeline_stage = 0 : i64} : tensor<2xf32>
// CHECK-NEXT:    %y1 = func.call @Block_construct_pure(%a, %[[W0]]) {mindir.pipeline_stage = 0 : i64}
// CHECK-NEXT:    %[[W1:.*]] = mindir.load %pw, %[[U1]] {mindir.pipeline_stage = 1 : i64} : tensor<2xf32>
// CHECK-NEXT:    %[[U2:.*]] = mindir.update_state %[[U1]], %[[W1]] {mindir.pipeline_stage = 1 : i64} : tensor<2xf32>
// CHECK-NEXT:    %y2 = func.call @Block_construct_pure(%y1, %[[W1]]) {mindir.pipeline_stage = 1 : i64}
// CHECK:         %[[DY1:.*]], %[[DW1:.*]] = func.call @Block_construct_pure_vjp(%y1, %[[W1]], %{{.*}}) {mindir.pipeline_stage = 1 : i64}
// CHECK-NEXT:    %g, %[[DW0:.*]] = func.call @Block_construct_pure_vjp(%a, %[[W0]], %[[DY1]]) {mindir.pipeline_stage = 0 : i64}
// CHECK-NEXT:    %g_1 = mindir.add %[[DW1]], %[[DW0]] {mindir.pipeline_stage = 0 : i64} : tensor<2xf32>
// CHECK-NEXT:    func.return %g, %g_1, %[[U2]]

mindir.parameter @w = dense<[1.0, 2.0]> : tensor<2xf32>
func.func @Block_construct(%x: tensor<2xf32>, %p: !mindir.ref<tensor<2xf32>>, %u: !mindir.u) -> (tensor<2xf32>, !mindir.u) attributes {mindir.lazy_inline = "Block()"} {
  %l = mindir.load %p, %u : tensor<2xf32>
  %u1 = mindir.update_state %u, %l : tensor<2xf32>
  %m = mindir.mul %x, %l : tensor<2xf32>
  %y = mindir.tanh %m : tensor<2xf32>
  func.return %y, %u1 : tensor<2xf32>, !mindir.u
}
func.func @Net(%a: tensor<2xf32>, %u0: !mindir.u) -> (tensor<2xf32>, tensor<2xf32>, !mindir.u) {
  %pw = mindir.get_parameter @w : !mindir.ref<tensor<2xf32>>
  %g:3 = mindir.grad (%x = %a) wrt [0] weights [@w] : (tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, !mindir.u) {
    %y1, %u1 = func.call @Block_construct(%x, %pw, %u0) {mindir.pipeline_stage = 0 : i64} : (tensor<2xf32>, !mindir.ref<tensor<2xf32>>, !mindir.u) -> (tensor<2xf32>, !mindir.u)
    %y2, %u2 = func.call @Block_construct(%y1, %pw, %u1) {mindir.pipeline_stage = 1 : i64} : (tensor<2xf32>, !mindir.ref<tensor<2xf32>>, !mindir.u) -> (tensor<2xf32>, !mindir.u)
    %s = mindir.reduce_sum %y2 : (tensor<2xf32>) -> tensor<f32>
    mindir.yield %s, %u2 : tensor<f32>, !mindir.u
  }
  func.return %g#0, %g#1, %g#2 : tensor<2xf32>, tensor<2xf32>, !mindir.u
}

// -----

// A kept graph that assigns a Parameter (or prints) is inlined and differentiated
// in place, as before: no pure form, no vjp graph.

// CHECK-LABEL: func.func @Count_construct
// CHECK-NOT:     func.func private @Count_construct_pure
// CHECK-LABEL: func.func @Net2
// CHECK-NOT:     func.call
// CHECK:         mindir.assign
mindir.parameter @c = dense<0.0> : tensor<2xf32>
func.func @Count_construct(%x: tensor<2xf32>, %p: !mindir.ref<tensor<2xf32>>, %u: !mindir.u) -> (tensor<2xf32>, !mindir.u) attributes {mindir.lazy_inline = "Count()"} {
  %l = mindir.load %p, %u : tensor<2xf32>
  %u1 = mindir.update_state %u, %l : tensor<2xf32>
  %n = mindir.add %l, %x : tensor<2xf32>
  %a = mindir.assign %p, %n, %u1 : tensor<2xf32>
  %u2 = mindir.update_state %u1, %a : tensor<2xf32>
  %y = mindir.mul %x, %l : tensor<2xf32>
  func.return %y, %u2 : tensor<2xf32>, !mindir.u
}
func.func @Net2(%a: tensor<2xf32>, %u0: !mindir.u) -> (tensor<2xf32>, !mindir.u) {
  %pc = mindir.get_parameter @c : !mindir.ref<tensor<2xf32>>
  %g:2 = mindir.grad (%x = %a) wrt [0] weights [] : (tensor<2xf32>) -> (tensor<2xf32>, !mindir.u) {
    %y, %u1 = func.call @Count_construct(%x, %pc, %u0) : (tensor<2xf32>, !mindir.ref<tensor<2xf32>>, !mindir.u) -> (tensor<2xf32>, !mindir.u)
    %s = mindir.reduce_sum %y : (tensor<2xf32>) -> tensor<f32>
    mindir.yield %s, %u1 : tensor<f32>, !mindir.u
  }
  func.return %g#0, %g#1 : tensor<2xf32>, !mindir.u
}
