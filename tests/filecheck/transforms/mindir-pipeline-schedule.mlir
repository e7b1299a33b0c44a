// RUN: ms-opt %s -p mindir-pipeline-schedule | filecheck %s
// RUN: ms-opt %s -p 'mindir-pipeline-schedule{schedule=gpipe}' | filecheck %s --check-prefix=GPIPE

// Two stage graphs as mindir-pipeline-split leaves them (Y = 3 micro-batches,
// sliced from %x by nn.PipelineCell): the three forwards, then the backwards of
// micro-batch 2, 1, 0 (reverse-mode order), the io chain through the sends and
// receives in that order, each Parameter's gradient summed in that order.
//
// 1F1B: stage 0 of 2 runs one warm-up forward, then F1 B0 F2 B1, then B2; the
// last stage alternates F0 B0 F1 B1 F2 B2. The io chain is threaded again in
// the new order, the gradient sums add micro-batch 0's first (each right after
// the backward that makes its last term) and the update runs after the last
// backward. Parameter loads and constants come first.
// CHECK-LABEL: func.func @Net_stage0(%x: tensor<3x2xf32>, %u: !mindir.u, %io: !mindir.io) -> (!mindir.u, !mindir.io)
// CHECK-NEXT: %w = mindir.get_parameter @w0
// CHECK-NEXT: %a = mindir.load %w, %u
// CHECK-NEXT: %u1 = mindir.update_state %u, %a
// CHECK-NEXT: %lr = mindir.constant dense<1.000000e-01>
// CHECK-NEXT: %x0 = mindir.get_item %x {mindir.pipeline_micro = "F0"
// CHECK-NEXT: %h0 = mindir.mul %x0, %a {mindir.pipeline_micro = "F0"
// CHECK-NEXT: %io1 = mindir.send %h0, %io {sr_tag = 0 : i64, dest_rank = 1 : i64, mindir.pipeline_micro = "F0"
// CHECK-NEXT: %x1 = mindir.get_item %x {mindir.pipeline_micro = "F1"
// CHECK-NEXT: %h1 = mindir.mul %x1, %a {mindir.pipeline_micro = "F1"
// CHECK-NEXT: %io2 = mindir.send %h1, %io1 {sr_tag = 1 : i64, dest_rank = 1 : i64, mindir.pipeline_micro = "F1"
// CHECK-NEXT: %g0, %io6 = mindir.receive %io2 {sr_tag = 5 : i64, src_rank = 1 : i64, mindir.pipeline_micro = "B0"
// CHECK-NEXT: %d0 = mindir.mul %g0, %x0 {mindir.pipeline_micro = "B0"
// CHECK-NEXT: %x2 = mindir.get_item %x {mindir.pipeline_micro = "F2"
// CHECK-NEXT: %h2 = mindir.mul %x2, %a {mindir.pipeline_micro = "F2"
// CHECK-NEXT: %io3 = mindir.send %h2, %io6 {sr_tag = 2 : i64, dest_rank = 1 : i64, mindir.pipeline_micro = "F2"
// CHECK-NEXT: %g1, %io5 = mindir.receive %io3 {sr_tag = 4 : i64, src_rank = 1 : i64, mindir.pipeline_micro = "B1"
// CHECK-NEXT: %d1 = mindir.mul %g1, %x1 {mindir.pipeline_micro = "B1"
// CHECK-NEXT: %0 = mindir.add %d0, %d1
// CHECK-NEXT: %g2, %io4 = mindir.receive %io5 {sr_tag = 3 : i64, src_rank = 1 : i64, mindir.pipeline_micro = "B2"
// CHECK-NEXT: %d2 = mindir.mul %g2, %x2 {mindir.pipeline_micro = "B2"
// CHECK-NEXT: %s0 = mindir.add %0, %d2
// CHECK-NEXT: %step = mindir.mul %s0, %lr
// CHECK-NEXT: %new = mindir.sub %a, %step
// CHECK-NEXT: %u2 = mindir.update_state %u1, %h0, %h1, %h2, %d0, %d1, %d2, %new
// CHECK-NEXT: %as = mindir.assign %w, %new, %u2
// CHECK-NEXT: %u3 = mindir.update_state %u2, %as
// CHECK-NEXT: func.return %u3, %io4 : !mindir.u, !mindir.io
// CHECK-LABEL: func.func @Net_stage1(%x: tensor<3x2xf32>, %u: !mindir.u, %io: !mindir.io) -> (tensor<f32>, !mindir.u, !mindir.io)
// CHECK-NEXT: %w = mindir.get_parameter @w1
// CHECK-NEXT: %b = mindir.load %w, %u
// CHECK-NEXT: %u1 = mindir.update_state %u, %b
// CHECK-NEXT: %h0, %jo1 = mindir.receive %io {sr_tag = 0 : i64, src_rank = 0 : i64, mindir.pipeline_micro = "F0"
// CHECK-NEXT: %y0 = mindir.mul %h0, %b {mindir.pipeline_micro = "F0"
// CHECK-NEXT: %q0 = mindir.mul %y0, %h0 {mindir.pipeline_micro = "F0"
// CHECK-NEXT: %l0 = mindir.reduce_sum %q0 {mindir.pipeline_micro = "F0"
// CHECK-NEXT: %e0 = mindir.add %y0, %y0 {mindir.pipeline_micro = "B0"
// CHECK-NEXT: %jo6 = mindir.send %e0, %jo1 {sr_tag = 5 : i64, dest_rank = 0 : i64, mindir.pipeline_micro = "B0"
// CHECK-NEXT: %p0 = mindir.mul %h0, %h0 {mindir.pipeline_micro = "B0"
// CHECK-NEXT: %h1, %jo2 = mindir.receive %jo6 {sr_tag = 1 : i64, src_rank = 0 : i64, mindir.pipeline_micro = "F1"
// CHECK-NEXT: %y1 = mindir.mul %h1, %b {mindir.pipeline_micro = "F1"
// CHECK-NEXT: %q1 = mindir.mul %y1, %h1 {mindir.pipeline_micro = "F1"
// CHECK-NEXT: %l1 = mindir.reduce_sum %q1 {mindir.pipeline_micro = "F1"
// CHECK-NEXT: %l01 = mindir.add %l0, %l1
// CHECK-NEXT: %e1 = mindir.add %y1, %y1 {mindir.pipeline_micro = "B1"
// CHECK-NEXT: %jo5 = mindir.send %e1, %jo2 {sr_tag = 4 : i64, dest_rank = 0 : i64, mindir.pipeline_micro = "B1"
// CHECK-NEXT: %p1 = mindir.mul %h1, %h1 {mindir.pipeline_micro = "B1"
// CHECK-NEXT: %0 = mindir.add %p0, %p1
// CHECK-NEXT: %h2, %jo3 = mindir.receive %jo5 {sr_tag = 2 : i64, src_rank = 0 : i64, mindir.pipeline_micro = "F2"
// CHECK-NEXT: %y2 = mindir.mul %h2, %b {mindir.pipeline_micro = "F2"
// CHECK-NEXT: %q2 = mindir.mul %y2, %h2 {mindir.pipeline_micro = "F2"
// CHECK-NEXT: %l2 = mindir.reduce_sum %q2 {mindir.pipeline_micro = "F2"
// CHECK-NEXT: %loss = mindir.add %l01, %l2
// CHECK-NEXT: %e2 = mindir.add %y2, %y2 {mindir.pipeline_micro = "B2"
// CHECK-NEXT: %jo4 = mindir.send %e2, %jo3 {sr_tag = 3 : i64, dest_rank = 0 : i64, mindir.pipeline_micro = "B2"
// CHECK-NEXT: %p2 = mindir.mul %h2, %h2 {mindir.pipeline_micro = "B2"
// CHECK-NEXT: %t0 = mindir.add %0, %p2
// CHECK-NEXT: %new = mindir.sub %b, %t0
// CHECK-NEXT: %u2 = mindir.update_state %u1, %y0, %y1, %y2, %p0, %p1, %p2, %new
// CHECK-NEXT: %as = mindir.assign %w, %new, %u2
// CHECK-NEXT: %u3 = mindir.update_state %u2, %as
// CHECK-NEXT: func.return %loss, %u3, %jo4

// GPipe keeps the order the split made (the constant moves up with the loads).

// GPIPE-LABEL: func.func @Net_stage0(%x: tensor<3x2xf32>, %u: !mindir.u, %io: !mindir.io) -> (!mindir.u, !mindir.io)
// GPIPE-NEXT: %w = mindir.get_parameter @w0
// GPIPE-NEXT: %a = mindir.load %w, %u
// GPIPE-NEXT: %u1 = mindir.update_state %u, %a
// GPIPE-NEXT: %lr = mindir.constant dense<1.000000e-01>
// GPIPE-NEXT: %x0 = mindir.get_item %x {mindir.pipeline_micro = "F0"
// GPIPE-NEXT: %h0 = mindir.mul %x0, %a {mindir.pipeline_micro = "F0"
// GPIPE-NEXT: %io1 = mindir.send %h0, %io {sr_tag = 0 : i64, dest_rank = 1 : i64, mindir.pipeline_micro = "F0"
// GPIPE-NEXT: %x1 = mindir.get_item %x {mindir.pipeline_micro = "F1"
// GPIPE-NEXT: %h1 = mindir.mul %x1, %a {mindir.pipeline_micro = "F1"
// GPIPE-NEXT: %io2 = mindir.send %h1, %io1 {sr_tag = 1 : i64, dest_rank = 1 : i64, mindir.pipeline_micro = "F1"
// GPIPE-NEXT: %x2 = mindir.get_item %x {mindir.pipeline_micro = "F2"
// GPIPE-NEXT: %h2 = mindir.mul %x2, %a {mindir.pipeline_micro = "F2"
// GPIPE-NEXT: %io3 = mindir.send %h2, %io2 {sr_tag = 2 : i64, dest_rank = 1 : i64, mindir.pipeline_micro = "F2"
// GPIPE-NEXT: %g2, %io4 = mindir.receive %io3 {sr_tag = 3 : i64, src_rank = 1 : i64, mindir.pipeline_micro = "B2"
// GPIPE-NEXT: %d2 = mindir.mul %g2, %x2 {mindir.pipeline_micro = "B2"
// GPIPE-NEXT: %g1, %io5 = mindir.receive %io4 {sr_tag = 4 : i64, src_rank = 1 : i64, mindir.pipeline_micro = "B1"
// GPIPE-NEXT: %d1 = mindir.mul %g1, %x1 {mindir.pipeline_micro = "B1"
// GPIPE-NEXT: %s1 = mindir.add %d2, %d1
// GPIPE-NEXT: %g0, %io6 = mindir.receive %io5 {sr_tag = 5 : i64, src_rank = 1 : i64, mindir.pipeline_micro = "B0"
// GPIPE-NEXT: %d0 = mindir.mul %g0, %x0 {mindir.pipeline_micro = "B0"
// GPIPE-NEXT: %s0 = mindir.add %s1, %d0
// GPIPE-NEXT: %step = mindir.mul %s0, %lr
// GPIPE-NEXT: %new = mindir.sub %a, %step
// GPIPE-NEXT: %u2 = mindir.update_state %u1, %h0, %h1, %h2, %d0, %d1, %d2, %new
// GPIPE-NEXT: %as = mindir.assign %w, %new, %u2
// GPIPE-NEXT: %u3 = mindir.update_state %u2, %as
// GPIPE-NEXT: func.return %u3, %io6 : !mindir.u, !mindir.io
// GPIPE-LABEL: func.func @Net_stage1(%x: tensor<3x2xf32>, %u: !mindir.u, %io: !mindir.io) -> (tensor<f32>, !mindir.u, !mindir.io)
// GPIPE-NEXT: %w = mindir.get_parameter @w1
// GPIPE-NEXT: %b = mindir.load %w, %u
// GPIPE-NEXT: %u1 = mindir.update_state %u, %b
// GPIPE-NEXT: %h0, %jo1 = mindir.receive %io {sr_tag = 0 : i64, src_rank = 0 : i64, mindir.pipeline_micro = "F0"
// GPIPE-NEXT: %y0 = mindir.mul %h0, %b {mindir.pipeline_micro = "F0"
// GPIPE-NEXT: %q0 = mindir.mul %y0, %h0 {mindir.pipeline_micro = "F0"
// GPIPE-NEXT: %l0 = mindir.reduce_sum %q0 {mindir.pipeline_micro = "F0"
// GPIPE-NEXT: %h1, %jo2 = mindir.receive %jo1 {sr_tag = 1 : i64, src_rank = 0 : i64, mindir.pipeline_micro = "F1"
// GPIPE-NEXT: %y1 = mindir.mul %h1, %b {mindir.pipeline_micro = "F1"
// GPIPE-NEXT: %q1 = mindir.mul %y1, %h1 {mindir.pipeline_micro = "F1"
// GPIPE-NEXT: %l1 = mindir.reduce_sum %q1 {mindir.pipeline_micro = "F1"
// GPIPE-NEXT: %l01 = mindir.add %l0, %l1
// GPIPE-NEXT: %h2, %jo3 = mindir.receive %jo2 {sr_tag = 2 : i64, src_rank = 0 : i64, mindir.pipeline_micro = "F2"
// GPIPE-NEXT: %y2 = mindir.mul %h2, %b {mindir.pipeline_micro = "F2"
// GPIPE-NEXT: %q2 = mindir.mul %y2, %h2 {mindir.pipeline_micro = "F2"
// GPIPE-NEXT: %l2 = mindir.reduce_sum %q2 {mindir.pipeline_micro = "F2"
// GPIPE-NEXT: %loss = mindir.add %l01, %l2
// GPIPE-NEXT: %e2 = mindir.add %y2, %y2 {mindir.pipeline_micro = "B2"
// GPIPE-NEXT: %jo4 = mindir.send %e2, %jo3 {sr_tag = 3 : i64, dest_rank = 0 : i64, mindir.pipeline_micro = "B2"
// GPIPE-NEXT: %p2 = mindir.mul %h2, %h2 {mindir.pipeline_micro = "B2"
// GPIPE-NEXT: %e1 = mindir.add %y1, %y1 {mindir.pipeline_micro = "B1"
// GPIPE-NEXT: %jo5 = mindir.send %e1, %jo4 {sr_tag = 4 : i64, dest_rank = 0 : i64, mindir.pipeline_micro = "B1"
// GPIPE-NEXT: %p1 = mindir.mul %h1, %h1 {mindir.pipeline_micro = "B1"
// GPIPE-NEXT: %t1 = mindir.add %p2, %p1
// GPIPE-NEXT: %e0 = mindir.add %y0, %y0 {mindir.pipeline_micro = "B0"
// GPIPE-NEXT: %jo6 = mindir.send %e0, %jo5 {sr_tag = 5 : i64, dest_rank = 0 : i64, mindir.pipeline_micro = "B0"
// GPIPE-NEXT: %p0 = mindir.mul %h0, %h0 {mindir.pipeline_micro = "B0"
// GPIPE-NEXT: %t0 = mindir.add %t1, %p0
// GPIPE-NEXT: %new = mindir.sub %b, %t0
// GPIPE-NEXT: %u2 = mindir.update_state %u1, %y0, %y1, %y2, %p0, %p1, %p2, %new
// GPIPE-NEXT: %as = mindir.assign %w, %new, %u2
// GPIPE-NEXT: %u3 = mindir.update_state %u2, %as
// GPIPE-NEXT: func.return %loss, %u3, %jo6

mindir.parameter @w0 = dense<[[1.0, 2.0]]> : tensor<1x2xf32>
mindir.parameter @w1 = dense<[[3.0, 4.0]]> : tensor<1x2xf32>
func.func @Net_stage0(%x: tensor<3x2xf32>, %u: !mindir.u, %io: !mindir.io) -> (!mindir.u, !mindir.io) attributes {mindir.pipeline_stage = 0 : i64, mindir.pipeline_of = "Net", mindir.pipeline_results = array<i64>} {
  %w = mindir.get_parameter @w0 : !mindir.ref<tensor<1x2xf32>>
  %a = mindir.load %w, %u : tensor<1x2xf32>
  %u1 = mindir.update_state %u, %a : tensor<1x2xf32>
  %x0 = mindir.get_item %x {starts = array<i64: 0, 0>, limits = array<i64: 1, 2>, strides = array<i64: 1, 1>} : (tensor<3x2xf32>) -> tensor<1x2xf32>
  %h0 = mindir.mul %x0, %a : tensor<1x2xf32>
  %io1 = mindir.send %h0, %io {sr_tag = 0 : i64, dest_rank = 1 : i64} : tensor<1x2xf32>
  %x1 = mindir.get_item %x {starts = array<i64: 1, 0>, limits = array<i64: 2, 2>, strides = array<i64: 1, 1>} : (tensor<3x2xf32>) -> tensor<1x2xf32>
  %h1 = mindir.mul %x1, %a : tensor<1x2xf32>
  %io2 = mindir.send %h1, %io1 {sr_tag = 1 : i64, dest_rank = 1 : i64} : tensor<1x2xf32>
  %x2 = mindir.get_item %x {starts = array<i64: 2, 0>, limits = array<i64: 3, 2>, strides = array<i64: 1, 1>} : (tensor<3x2xf32>) -> tensor<1x2xf32>
  %h2 = mindir.mul %x2, %a : tensor<1x2xf32>
  %io3 = mindir.send %h2, %io2 {sr_tag = 2 : i64, dest_rank = 1 : i64} : tensor<1x2xf32>
  %g2, %io4 = mindir.receive %io3 {sr_tag = 3 : i64, src_rank = 1 : i64} : tensor<1x2xf32>
  %d2 = mindir.mul %g2, %x2 : tensor<1x2xf32>
  %g1, %io5 = mindir.receive %io4 {sr_tag = 4 : i64, src_rank = 1 : i64} : tensor<1x2xf32>
  %d1 = mindir.mul %g1, %x1 : tensor<1x2xf32>
  %s1 = mindir.add %d2, %d1 : tensor<1x2xf32>
  %g0, %io6 = mindir.receive %io5 {sr_tag = 5 : i64, src_rank = 1 : i64} : tensor<1x2xf32>
  %d0 = mindir.mul %g0, %x0 : tensor<1x2xf32>
  %s0 = mindir.add %s1, %d0 : tensor<1x2xf32>
  %lr = mindir.constant dense<0.1> : tensor<f32>
  %step = mindir.mul %s0, %lr : (tensor<1x2xf32>, tensor<f32>) -> tensor<1x2xf32>
  %new = mindir.sub %a, %step : tensor<1x2xf32>
  %u2 = mindir.update_state %u1, %h0, %h1, %h2, %d0, %d1, %d2, %new : tensor<1x2xf32>, tensor<1x2xf32>, tensor<1x2xf32>, tensor<1x2xf32>, tensor<1x2xf32>, tensor<1x2xf32>, tensor<1x2xf32>
  %as = mindir.assign %w, %new, %u2 : tensor<1x2xf32>
  %u3 = mindir.update_state %u2, %as : tensor<1x2xf32>
  func.return %u3, %io6 : !mindir.u, !mindir.io
}
func.func @Net_stage1(%x: tensor<3x2xf32>, %u: !mindir.u, %io: !mindir.io) -> (tensor<f32>, !mindir.u, !mindir.io) attributes {mindir.pipeline_stage = 1 : i64, mindir.pipeline_of = "Net", mindir.pipeline_results = array<i64: 0>} {
  %w = mindir.get_parameter @w1 : !mindir.ref<tensor<1x2xf32>>
  %b = mindir.load %w, %u : tensor<1x2xf32>
  %u1 = mindir.update_state %u, %b : tensor<1x2xf32>
  %h0, %jo1 = mindir.receive %io {sr_tag = 0 : i64, src_rank = 0 : i64} : tensor<1x2xf32>
  %y0 = mindir.mul %h0, %b : tensor<1x2xf32>
  %q0 = mindir.mul %y0, %h0 : tensor<1x2xf32>
  %l0 = mindir.reduce_sum %q0 {axis = array<i64: 0, 1>} : (tensor<1x2xf32>) -> tensor<f32>
  %h1, %jo2 = mindir.receive %jo1 {sr_tag = 1 : i64, src_rank = 0 : i64} : tensor<1x2xf32>
  %y1 = mindir.mul %h1, %b : tensor<1x2xf32>
  %q1 = mindir.mul %y1, %h1 : tensor<1x2xf32>
  %l1 = mindir.reduce_sum %q1 {axis = array<i64: 0, 1>} : (tensor<1x2xf32>) -> tensor<f32>
  %l01 = mindir.add %l0, %l1 : tensor<f32>
  %h2, %jo3 = mindir.receive %jo2 {sr_tag = 2 : i64, src_rank = 0 : i64} : tensor<1x2xf32>
  %y2 = mindir.mul %h2, %b : tensor<1x2xf32>
  %q2 = mindir.mul %y2, %h2 : tensor<1x2xf32>
  %l2 = mindir.reduce_sum %q2 {axis = array<i64: 0, 1>} : (tensor<1x2xf32>) -> tensor<f32>
  %loss = mindir.add %l01, %l2 : tensor<f32>
  %e2 = mindir.add %y2, %y2 : tensor<1x2xf32>
  %jo4 = mindir.send %e2, %jo3 {sr_tag = 3 : i64, dest_rank = 0 : i64} : tensor<1x2xf32>
  %p2 = mindir.mul %h2, %h2 : tensor<1x2xf32>
  %e1 = mindir.add %y1, %y1 : tensor<1x2xf32>
  %jo5 = mindir.send %e1, %jo4 {sr_tag = 4 : i64, dest_rank = 0 : i64} : tensor<1x2xf32>
  %p1 = mindir.mul %h1, %h1 : tensor<1x2xf32>
  %t1 = mindir.add %p2, %p1 : tensor<1x2xf32>
  %e0 = mindir.add %y0, %y0 : tensor<1x2xf32>
  %jo6 = mindir.send %e0, %jo5 {sr_tag = 5 : i64, dest_rank = 0 : i64} : tensor<1x2xf32>
  %p0 = mindir.mul %h0, %h0 : tensor<1x2xf32>
  %t0 = mindir.add %t1, %p0 : tensor<1x2xf32>
  %new = mindir.sub %b, %t0 : tensor<1x2xf32>
  %u2 = mindir.update_state %u1, %y0, %y1, %y2, %p0, %p1, %p2, %new : tensor<1x2xf32>, tensor<1x2xf32>, tensor<1x2xf32>, tensor<1x2xf32>, tensor<1x2xf32>, tensor<1x2xf32>, tensor<1x2xf32>
  %as = mindir.assign %w, %new, %u2 : tensor<1x2xf32>
  %u3 = mindir.update_state %u2, %as : tensor<1x2xf32>
  func.return %loss, %u3, %jo6 : tensor<f32>, !mindir.u, !mindir.io
}
