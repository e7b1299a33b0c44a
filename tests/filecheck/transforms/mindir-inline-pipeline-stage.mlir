// RUN: ms-opt %s -p mindir-inline | filecheck %s

// A call carrying `mindir.pipeline_stage` (the frontend puts a Cell's
// `pipeline_stage` there) gives it to every op mindir-inline copies from it; an
// op that has a stage of its own (an inner Cell's, inlined first) keeps it.

// CHECK-LABEL: func.func @Net_construct
// CHECK-NEXT:    %[[A:.*]] = mindir.tanh %{{.*}} {mindir.pipeline_stage = 0 : i64} : tensor<4xf32>
// CHECK-NEXT:    %[[B:.*]] = mindir.exp %[[A]] {mindir.pipeline_stage = 1 : i64} : tensor<4xf32>
// CHECK-NEXT:    %[[C:.*]] = mindir.neg %[[B]] {mindir.pipeline_stage = 2 : i64} : tensor<4xf32>
// CHECK-NEXT:    %[[D:.*]] = mindir.add %[[C]], %[[C]] {mindir.pipeline_stage = 1 : i64} : tensor<4xf32>
// CHECK-NEXT:    func.return %[[D]] : tensor<4xf32>

func.func private @Stage0(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = mindir.tanh %x : tensor<4xf32>
  func.return %y : tensor<4xf32>
}
func.func private @Inner(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = mindir.neg %x : tensor<4xf32>
  func.return %y : tensor<4xf32>
}
func.func private @Stage1(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = mindir.exp %x : tensor<4xf32>
  %z = func.call @Inner(%y) {mindir.pipeline_stage = 2 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  %w = mindir.add %z, %z : tensor<4xf32>
  func.return %w : tensor<4xf32>
}
func.func @Net_construct(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = func.call @Stage0(%x) {mindir.pipeline_stage = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  %b = func.call @Stage1(%a) {mindir.pipeline_stage = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  func.return %b : tensor<4xf32>
}
