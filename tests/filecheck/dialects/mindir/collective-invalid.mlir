// RUN: ms-opt %s --split-input-file --verify-diagnostics

// The collectives' verifier: each chunk breaks one rule.

func.func @f(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{property 'op' must be one of sum, max, min, prod; got avg}}
  %0 = mindir.all_reduce %a {op = "avg"} : tensor<2x3xf32>
  func.return
}

// -----

func.func @f(%a: tensor<2x3xi1>) {
  // expected-error @+1 {{mindir.all_reduce does not take bool elements (MindSpore's collectives)}}
  %0 = mindir.all_reduce %a {op = "sum"} : tensor<2x3xi1>
  func.return
}

// -----

func.func @f(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{result type tensor<4x3xf32> does not match the inferred type tensor<6x3xf32>}}
  %0 = mindir.all_gather %a {rank_size = 3 : i64} : (tensor<2x3xf32>) -> tensor<4x3xf32>
  func.return
}

// -----

func.func @f(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{property 'rank_size' must be >= 1, got 0}}
  %0 = mindir.all_gather %a {rank_size = 0 : i64} : (tensor<2x3xf32>) -> tensor<0x3xf32>
  func.return
}

// -----

func.func @f(%a: tensor<f32>) {
  // expected-error @+1 {{mindir.all_gather needs an input of rank >= 1, got tensor<f32>}}
  %0 = mindir.all_gather %a {rank_size = 2 : i64} : (tensor<f32>) -> tensor<f32>
  func.return
}

// -----

func.func @f(%a: tensor<3x2xf32>) {
  // expected-error @+1 {{mindir.reduce_scatter needs a first dimension divisible by rank_size 2, got tensor<3x2xf32>}}
  %0 = mindir.reduce_scatter %a {op = "sum", rank_size = 2 : i64} : (tensor<3x2xf32>) -> tensor<1x2xf32>
  func.return
}

// -----

func.func @f(%a: tensor<4x2xf32>) {
  // expected-error @+1 {{property 'op' must be one of sum; got max}}
  %0 = mindir.reduce_scatter %a {op = "max", rank_size = 2 : i64} : (tensor<4x2xf32>) -> tensor<2x2xf32>
  func.return
}

// -----

func.func @f(%a: tensor<4x2xf32>) {
  // expected-error @+1 {{property 'root_rank' must be >= 0, got -1}}
  %0 = mindir.broadcast %a {root_rank = -1 : i64} : tensor<4x2xf32>
  func.return
}
