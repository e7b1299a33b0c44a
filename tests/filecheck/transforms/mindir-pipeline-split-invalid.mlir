// RUN: ms-opt %s -p 'mindir-pipeline-split{stages=2}' --verify-diagnostics --split-input-file

// A stage beyond pipeline_stages is an error at the op that names it.

func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  %a = mindir.neg %x {mindir.pipeline_stage = 0 : i64} : tensor<2xf32>
  // expected-error @+1 {{mindir-pipeline-split: an op of @f is on pipeline stage 2, out of range for 2 stages (0..1)}}
  %b = mindir.exp %a {mindir.pipeline_stage = 2 : i64} : tensor<2xf32>
  func.return %b : tensor<2xf32>
}

// -----

// Every stage must run something.

// expected-error @+1 {{mindir-pipeline-split: pipeline stage 0 of @g has no op (stages 0..1)}}
func.func @g(%x: tensor<2xf32>) -> tensor<2xf32> {
  %b = mindir.exp %x {mindir.pipeline_stage = 1 : i64} : tensor<2xf32>
  func.return %b : tensor<2xf32>
}

// -----

// Only tensors cross stages: a tuple made on stage 0 cannot be used on stage 1.

func.func @h(%x: tensor<2xf32>) -> tensor<2xf32> {
  %t = mindir.make_tuple %x, %x {mindir.pipeline_stage = 0 : i64} : (tensor<2xf32>, tensor<2xf32>) -> tuple<tensor<2xf32>, tensor<2xf32>>
  // expected-error @+1 {{mindir-pipeline-split: a tuple<tensor<2xf32>, tensor<2xf32>> made on stage 0 is used on stage 1; only tensors cross pipeline stages}}
  %y = mindir.tuple_get_item %t {index = 0 : i64, mindir.pipeline_stage = 1 : i64} : (tuple<tensor<2xf32>, tensor<2xf32>>) -> tensor<2xf32>
  func.return %y : tensor<2xf32>
}
