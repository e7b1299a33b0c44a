// RUN: ms-opt %s -p mindir-grad --verify-diagnostics --split-input-file

// A loop the frontend could not unroll has no adjoint.

func.func @has_while(%a: tensor<3xf32>, %n: tensor<f32>) -> tensor<3xf32> {
  %g = mindir.grad (%x = %a) wrt [0] weights [] : (tensor<3xf32>) -> tensor<3xf32> {
    // expected-error @+1 {{mindir-grad cannot differentiate 'mindir.while'}}
    %w = mindir.while (%v = %x) : (tensor<3xf32>) -> tensor<3xf32> {
      %s = mindir.reduce_sum %v : (tensor<3xf32>) -> tensor<f32>
      %k = mindir.less %s, %n : (tensor<f32>, tensor<f32>) -> tensor<i1>
      mindir.condition(%k : tensor<i1>) %v : tensor<3xf32>
    } do {
    ^bb0(%v2: tensor<3xf32>):
      %d = mindir.add %v2, %v2 : tensor<3xf32>
      mindir.yield %d : tensor<3xf32>
    }
    %t = mindir.reduce_sum %w : (tensor<3xf32>) -> tensor<f32>
    mindir.yield %t : tensor<f32>
  }
  func.return %g : tensor<3xf32>
}

// -----

func.func @unknown_weight(%a: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  // expected-error @+1 {{mindir.grad weights: unknown Parameter @nope}}
  %g:2 = mindir.grad (%x = %a) wrt [0] weights [@nope] : (tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
    %t = mindir.reduce_sum %x : (tensor<3xf32>) -> tensor<f32>
    mindir.yield %t : tensor<f32>
  }
  func.return %g#0, %g#1 : tensor<3xf32>, tensor<3xf32>
}

// -----

mindir.parameter @w = dense<[1.0, 2.0]> : tensor<2xf32>
func.func @weight_type(%a: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  // expected-error @+1 {{the gradient of @w must be tensor<2xf32>, not tensor<3xf32>}}
  %g:2 = mindir.grad (%x = %a) wrt [0] weights [@w] : (tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
    %t = mindir.reduce_sum %x : (tensor<3xf32>) -> tensor<f32>
    mindir.yield %t : tensor<f32>
  }
  func.return %g#0, %g#1 : tensor<3xf32>, tensor<3xf32>
}

// -----

func.func private @opaque(tensor<3xf32>) -> tensor<3xf32>
func.func @declaration_call(%a: tensor<3xf32>) -> tensor<3xf32> {
  %g = mindir.grad (%x = %a) wrt [0] weights [] : (tensor<3xf32>) -> tensor<3xf32> {
    // expected-error @+1 {{cannot differentiate a call of @opaque: not a graph of this module}}
    %y = func.call @opaque(%x) : (tensor<3xf32>) -> tensor<3xf32>
    %t = mindir.reduce_sum %y : (tensor<3xf32>) -> tensor<f32>
    mindir.yield %t : tensor<f32>
  }
  func.return %g : tensor<3xf32>
}

// -----

// A reused forward is differentiated by value: a differentiated input that is
// also another input has no gradient of its own.

func.func @reused_forward_same_input(%a: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %m = mindir.mul %a, %a : tensor<3xf32>
  %s = mindir.reduce_sum %m : (tensor<3xf32>) -> tensor<f32>
  // expected-error @+1 {{mindir.grad: input 0 is differentiated but is also another input}}
  %g:2 = mindir.grad (%x = %a, %y = %a) wrt [0, 1] weights [] : (tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
    mindir.yield %s : tensor<f32>
  }
  func.return %g#0, %g#1 : tensor<3xf32>, tensor<3xf32>
}

// -----

// By default a vmap inside a grad is refused: the option vmap=true (the jit
// pipelines' setting, mindir-grad-vmap.mlir) batches it first.

func.func @grad_of_vmap(%a: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %g = mindir.grad (%x = %a) wrt [0] weights [] : (tensor<3x5xf32>) -> tensor<3x5xf32> {
    // expected-error @+1 {{mindir-grad cannot differentiate 'mindir.vmap' without the option vmap=true}}
    %v = mindir.vmap (%c = %x) in_axes [1] out_axes [0] : (tensor<3x5xf32>) -> tensor<5x3xf32> {
      %s = mindir.sin %c : tensor<3xf32>
      mindir.yield %s : tensor<3xf32>
    }
    %t = mindir.reduce_sum %v : (tensor<5x3xf32>) -> tensor<f32>
    mindir.yield %t : tensor<f32>
  }
  func.return %g : tensor<3x5xf32>
}
