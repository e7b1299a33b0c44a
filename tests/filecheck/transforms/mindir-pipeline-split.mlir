// RUN: ms-opt %s -p mindir-pipeline-split --split-input-file | filecheck %s

// Two stages of a train step in miniature: stage 0 loads @w0 and sends its
// activation forward; stage 1 receives it, computes the loss and sends the
// gradient back; @w0's update runs on stage 0 (its owner), @m1's (a moment with
// no stage of its own) where its value comes from, stage 1. The constant is
// copied into the stage that uses it; the memory state is threaded per stage;
// each stage gets an io argument for its sends and receives.

// CHECK-LABEL: func.func @Net_construct_stage0(%x: tensor<2xf32>, %u0: !mindir.u, %io: !mindir.io) -> (!mindir.u, !mindir.io) attributes {mindir.pipeline_stage = 0 : i64, mindir.pipeline_of = "Net_construct", mindir.pipeline_results = array<i64>} {
// CHECK-NEXT:    %r0 = mindir.get_parameter @w0 : !mindir.ref<tensor<2xf32>>
// CHECK-NEXT:    %a = mindir.load %r0, %u0 {mindir.pipeline_stage = 0 : i64} : tensor<2xf32>
// CHECK-NEXT:    %[[U:.*]] = mindir.update_state %u0, %a : tensor<2xf32>
// CHECK-NEXT:    %h = mindir.mul %x, %a {mindir.pipeline_stage = 0 : i64} : tensor<2xf32>
// CHECK-NEXT:    %[[IO:.*]] = mindir.send %h, %io {sr_tag = 0 : i64, dest_rank = 1 : i64, mindir.pipeline_stage = 0 : i64} : tensor<2xf32>
// CHECK-NEXT:    %[[G:.*]], %[[IO2:.*]] = mindir.receive %[[IO]] {sr_tag = 1 : i64, src_rank = 1 : i64, mindir.pipeline_stage = 0 : i64} : tensor<2xf32>
// CHECK-NEXT:    %hg = mindir.mul %[[G]], %h {mindir.pipeline_stage = 0 : i64} : tensor<2xf32>
// CHECK-NEXT:    %a2 = mindir.sub %a, %hg {mindir.pipeline_stage = 0 : i64} : tensor<2xf32>
// CHECK-NEXT:    %s0 = mindir.assign %r0, %a2, %[[U]] {mindir.pipeline_stage = 0 : i64} : tensor<2xf32>
// CHECK-NEXT:    %[[U2:.*]] = mindir.update_state %[[U]], %s0 : tensor<2xf32>
// CHECK-NEXT:    func.return %[[U2]], %[[IO2]] : !mindir.u, !mindir.io

// CHECK-LABEL: func.func @Net_construct_stage1(%x: tensor<2xf32>, %u0: !mindir.u, %io: !mindir.io) -> (tensor<2xf32>, !mindir.u, !mindir.io) attributes {mindir.pipeline_stage = 1 : i64, mindir.pipeline_of = "Net_construct", mindir.pipeline_results = array<i64: 0>} {
// CHECK-NEXT:    %r1 = mindir.get_parameter @w1 : !mindir.ref<tensor<2xf32>>
// CHECK-NEXT:    %b = mindir.load %r1, %u0 {mindir.pipeline_stage = 1 : i64} : tensor<2xf32>
// CHECK-NEXT:    %[[V:.*]] = mindir.update_state %u0, %b : tensor<2xf32>
// CHECK-NEXT:    %[[H:.*]], %[[JO:.*]] = mindir.receive %io {sr_tag = 0 : i64, src_rank = 0 : i64, mindir.pipeline_stage = 1 : i64} : tensor<2xf32>
// CHECK-NEXT:    %y = mindir.mul %[[H]], %b {mindir.pipeline_stage = 1 : i64} : tensor<2xf32>
// CHECK-NEXT:    %c = mindir.constant dense<5.000000e-01> : tensor<f32>
// CHECK-NEXT:    %g = mindir.mul %y, %c : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
// CHECK-NEXT:    %[[JO2:.*]] = mindir.send %g, %[[JO]] {sr_tag = 1 : i64, dest_rank = 0 : i64, mindir.pipeline_stage = 1 : i64} : tensor<2xf32>
// CHECK-NEXT:    %rm = mindir.get_parameter @m1 : !mindir.ref<tensor<2xf32>>
// CHECK-NEXT:    %m = mindir.load %rm, %[[V]] : tensor<2xf32>
// CHECK-NEXT:    %[[V2:.*]] = mindir.update_state %[[V]], %m : tensor<2xf32>
// CHECK-NEXT:    %m2 = mindir.add %m, %g : tensor<2xf32>
// CHECK-NEXT:    %s = mindir.assign %rm, %m2, %[[V2]] : tensor<2xf32>
// CHECK-NEXT:    %[[V3:.*]] = mindir.update_state %[[V2]], %s : tensor<2xf32>
// CHECK-NEXT:    func.return %y, %[[V3]], %[[JO2]] : tensor<2xf32>, !mindir.u, !mindir.io

mindir.parameter @w0 = dense<[1.0, 2.0]> : tensor<2xf32>
mindir.parameter @w1 = dense<[3.0, 4.0]> : tensor<2xf32>
mindir.parameter @m1 = dense<0.0> : tensor<2xf32>
func.func @Net_construct(%x: tensor<2xf32>, %u0: !mindir.u) -> (tensor<2xf32>, !mindir.u) {
  %r0 = mindir.get_parameter @w0 : !mindir.ref<tensor<2xf32>>
  %a = mindir.load %r0, %u0 {mindir.pipeline_stage = 0 : i64} : tensor<2xf32>
  %u1 = mindir.update_state %u0, %a : tensor<2xf32>
  %h = mindir.mul %x, %a {mindir.pipeline_stage = 0 : i64} : tensor<2xf32>
  %r1 = mindir.get_parameter @w1 : !mindir.ref<tensor<2xf32>>
  %b = mindir.load %r1, %u1 {mindir.pipeline_stage = 1 : i64} : tensor<2xf32>
  %u2 = mindir.update_state %u1, %b : tensor<2xf32>
  %y = mindir.mul %h, %b {mindir.pipeline_stage = 1 : i64} : tensor<2xf32>
  %c = mindir.constant dense<0.5> : tensor<f32>
  %g = mindir.mul %y, %c : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  %rm = mindir.get_parameter @m1 : !mindir.ref<tensor<2xf32>>
  %m = mindir.load %rm, %u2 : tensor<2xf32>
  %u3 = mindir.update_state %u2, %m : tensor<2xf32>
  %m2 = mindir.add %m, %g : tensor<2xf32>
  %s = mindir.assign %rm, %m2, %u3 : tensor<2xf32>
  %u4 = mindir.update_state %u3, %s : tensor<2xf32>
  %hg = mindir.mul %g, %h {mindir.pipeline_stage = 0 : i64} : tensor<2xf32>
  %a2 = mindir.sub %a, %hg {mindir.pipeline_stage = 0 : i64} : tensor<2xf32>
  %s0 = mindir.assign %r0, %a2, %u4 {mindir.pipeline_stage = 0 : i64} : tensor<2xf32>
  %u5 = mindir.update_state %u4, %s0 : tensor<2xf32>
  func.return %y, %u5 : tensor<2xf32>, !mindir.u
}

// -----

// A graph without stages is left alone; so is a graph another graph calls (a
// reused lazy-inline graph): its call is an op of the stage that calls it. An
// update_state attaching values of two stages is rebuilt on each; an existing
// io argument is the stages' io; results computed by no stage (an argument)
// come from the last stage.

// CHECK-LABEL: func.func private @Block(%x: tensor<2xf32>) -> tensor<2xf32> {
// CHECK-NEXT:    %y = mindir.tanh %x {mindir.pipeline_stage = 3 : i64} : tensor<2xf32>
// CHECK-LABEL: func.func @plain(%x: tensor<2xf32>) -> tensor<2xf32> {
// CHECK-LABEL: func.func @f_stage0(%x: tensor<2xf32>, %io: !mindir.io) -> (tensor<2xf32>, !mindir.io) attributes {mindir.pipeline_stage = 0 : i64, mindir.pipeline_of = "f", mindir.pipeline_results = array<i64: 1>} {
// CHECK-NEXT:    %a = func.call @Block(%x) {mindir.pipeline_stage = 0 : i64} : (tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT:    %[[IO:.*]] = mindir.send %a, %io {sr_tag = 0 : i64, dest_rank = 1 : i64, mindir.pipeline_stage = 0 : i64} : tensor<2xf32>
// CHECK-NEXT:    %p = mindir.print %a, %[[IO]] {mindir.pipeline_stage = 0 : i64} : tensor<2xf32>
// CHECK-NEXT:    %[[IO2:.*]] = mindir.update_state %[[IO]], %p : !mindir.io -> !mindir.io
// CHECK-NEXT:    func.return %a, %[[IO2]] : tensor<2xf32>, !mindir.io
// CHECK-LABEL: func.func @f_stage1(%x: tensor<2xf32>, %io: !mindir.io) -> (tensor<2xf32>, tensor<2xf32>, !mindir.io) attributes {mindir.pipeline_stage = 1 : i64, mindir.pipeline_of = "f", mindir.pipeline_results = array<i64: 0, 2>} {
// CHECK-NEXT:    %[[A:.*]], %[[IO:.*]] = mindir.receive %io {sr_tag = 0 : i64, src_rank = 0 : i64, mindir.pipeline_stage = 1 : i64} : tensor<2xf32>
// CHECK-NEXT:    %b = func.call @Block(%[[A]]) {mindir.pipeline_stage = 1 : i64} : (tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT:    %q = mindir.print %b, %[[IO]] {mindir.pipeline_stage = 1 : i64} : tensor<2xf32>
// CHECK-NEXT:    %[[IO2:.*]] = mindir.update_state %[[IO]], %q : !mindir.io -> !mindir.io
// CHECK-NEXT:    func.return %b, %x, %[[IO2]] : tensor<2xf32>, tensor<2xf32>, !mindir.io

func.func private @Block(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = mindir.tanh %x {mindir.pipeline_stage = 3 : i64} : tensor<2xf32>
  func.return %y : tensor<2xf32>
}
func.func @plain(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = mindir.neg %x : tensor<2xf32>
  func.return %y : tensor<2xf32>
}
func.func @f(%x: tensor<2xf32>, %io: !mindir.io) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, !mindir.io) {
  %a = func.call @Block(%x) {mindir.pipeline_stage = 0 : i64} : (tensor<2xf32>) -> tensor<2xf32>
  %p = mindir.print %a, %io {mindir.pipeline_stage = 0 : i64} : tensor<2xf32>
  %b = func.call @Block(%a) {mindir.pipeline_stage = 1 : i64} : (tensor<2xf32>) -> tensor<2xf32>
  %q = mindir.print %b, %io {mindir.pipeline_stage = 1 : i64} : tensor<2xf32>
  %io1 = mindir.update_state %io, %p, %q : !mindir.io, !mindir.io -> !mindir.io
  func.return %b, %a, %x, %io1 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, !mindir.io
}
