// RUN: ms-opt %s -p mindir-pipeline-schedule --verify-diagnostics --split-input-file
// RUN: not ms-opt %s -p 'mindir-pipeline-schedule{schedule=zigzag}' 2>&1 | filecheck %s --check-prefix=OPTION

// OPTION: schedule must be one of 1f1b, gpipe, got 'zigzag'

// Stage graphs whose data make each stage receive before it sends what the other
// waits for: no order runs them, and the replay of their channels says where.

func.func @Net_stage0(%x: tensor<2xf32>, %io: !mindir.io) -> (!mindir.io) attributes {mindir.pipeline_stage = 0 : i64, mindir.pipeline_of = "Net", mindir.pipeline_results = array<i64>} {
  // expected-error @+1 {{mindir-pipeline-schedule: the 1f1b order of the stages deadlocks: stage 0 waits for sr_tag 1, which its sender reaches only after a receive that waits too}}
  %g, %io1 = mindir.receive %io {sr_tag = 1 : i64, src_rank = 1 : i64} : tensor<2xf32>
  %h = mindir.mul %x, %g : tensor<2xf32>
  %io2 = mindir.send %h, %io1 {sr_tag = 0 : i64, dest_rank = 1 : i64} : tensor<2xf32>
  func.return %io2 : !mindir.io
}
func.func @Net_stage1(%x: tensor<2xf32>, %io: !mindir.io) -> (tensor<2xf32>, !mindir.io) attributes {mindir.pipeline_stage = 1 : i64, mindir.pipeline_of = "Net", mindir.pipeline_results = array<i64: 0>} {
  %h, %io1 = mindir.receive %io {sr_tag = 0 : i64, src_rank = 0 : i64} : tensor<2xf32>
  %y = mindir.neg %h : tensor<2xf32>
  %io2 = mindir.send %y, %io1 {sr_tag = 1 : i64, dest_rank = 0 : i64} : tensor<2xf32>
  func.return %y, %io2 : tensor<2xf32>, !mindir.io
}
