// RUN: ms-opt %s -p mindir-inline --verify-diagnostics --split-input-file
// RUN: ms-opt %s -p 'mindir-inline{cell-reuse=0}' --verify-diagnostics --split-input-file

// A graph that calls itself cannot be inlined: the error is at the call that
// closes the cycle.

func.func @fact(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{recursive call to @fact cannot be inlined: @fact -> @fact}}
  %r = func.call @fact(%x) : (tensor<f32>) -> tensor<f32>
  func.return %r : tensor<f32>
}

// -----

// Mutual recursion, reached from an entry, with the recursive call in a region.

func.func @main(%x: tensor<f32>, %c: tensor<i1>) -> tensor<f32> {
  %r = func.call @ping(%x, %c) : (tensor<f32>, tensor<i1>) -> tensor<f32>
  func.return %r : tensor<f32>
}

func.func @ping(%x: tensor<f32>, %c: tensor<i1>) -> tensor<f32> {
  %r = func.call @pong(%x, %c) : (tensor<f32>, tensor<i1>) -> tensor<f32>
  func.return %r : tensor<f32>
}

func.func @pong(%x: tensor<f32>, %c: tensor<i1>) -> tensor<f32> {
  %r = mindir.if %c -> (tensor<f32>) {
    %n = mindir.neg %x : tensor<f32>
    // expected-error @+1 {{recursive call to @ping cannot be inlined: @ping -> @pong -> @ping}}
    %p = func.call @ping(%n, %c) : (tensor<f32>, tensor<i1>) -> tensor<f32>
    mindir.yield %p : tensor<f32>
  } else {
    mindir.yield %x : tensor<f32>
  }
  func.return %r : tensor<f32>
}
