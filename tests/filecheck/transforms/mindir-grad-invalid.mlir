// RUN: ms-opt %s -p mindir-grad --verify-diagnostics --split-input-file

// A differentiated loop records its iterations at its top level: an Assign in a
// branch inside it is refused, at the Assign.

mindir.parameter @p = dense<1.0> : tensor<3xf32>
func.func @assign_in_branch(%a: tensor<3xf32>, %n: tensor<f32>, %u0: !mindir.u) -> (tensor<3xf32>, !mindir.u) {
  %g, %u = mindir.grad (%x = %a) wrt [0] weights [] : (tensor<3xf32>) -> (tensor<3xf32>, !mindir.u) {
    %w, %uw = mindir.while (%v = %x, %s0 = %u0) : (tensor<3xf32>, !mindir.u) -> (tensor<3xf32>, !mindir.u) {
      %s = mindir.reduce_sum %v : (tensor<3xf32>) -> tensor<f32>
      %k = mindir.less %s, %n : (tensor<f32>, tensor<f32>) -> tensor<i1>
      mindir.condition(%k : tensor<i1>) %v, %s0 : tensor<3xf32>, !mindir.u
    } do {
    ^bb0(%v2: tensor<3xf32>, %s1: !mindir.u):
      %d = mindir.add %v2, %v2 : tensor<3xf32>
      %s = mindir.reduce_sum %d : (tensor<3xf32>) -> tensor<f32>
      %c = mindir.less %s, %n : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %s2 = mindir.if %c -> (!mindir.u) {
        %r = mindir.get_parameter @p : !mindir.ref<tensor<3xf32>>
        // expected-error @+1 {{'mindir.assign' inside a branch or inner loop of a while that is differentiated}}
        %as = mindir.assign %r, %d, %s1 : tensor<3xf32>
        %s3 = mindir.update_state %s1, %as : tensor<3xf32>
        mindir.yield %s3 : !mindir.u
      } else {
        mindir.yield %s1 : !mindir.u
      }
      mindir.yield %d, %s2 : tensor<3xf32>, !mindir.u
    }
    %t = mindir.reduce_sum %w : (tensor<3xf32>) -> tensor<f32>
    mindir.yield %t, %uw : tensor<f32>, !mindir.u
  }
  func.return %g, %u : tensor<3xf32>, !mindir.u
}

// -----

// A carried tuple is not recorded (the frontend carries tensors one by one).

func.func @carried_tuple(%a: tensor<3xf32>, %n: tensor<f32>) -> tensor<3xf32> {
  %g = mindir.grad (%x = %a) wrt [0] weights [] : (tensor<3xf32>) -> tensor<3xf32> {
    %p = mindir.make_tuple %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tuple<tensor<3xf32>, tensor<3xf32>>
    // expected-error @+1 {{a while carrying a tuple<tensor<3xf32>, tensor<3xf32>> cannot be differentiated yet}}
    %w = mindir.while (%v = %p) : (tuple<tensor<3xf32>, tensor<3xf32>>) -> tuple<tensor<3xf32>, tensor<3xf32>> {
      %e = mindir.tuple_get_item %v {index = 0 : i64} : (tuple<tensor<3xf32>, tensor<3xf32>>) -> tensor<3xf32>
      %s = mindir.reduce_sum %e : (tensor<3xf32>) -> tensor<f32>
      %k = mindir.less %s, %n : (tensor<f32>, tensor<f32>) -> tensor<i1>
      mindir.condition(%k : tensor<i1>) %v : tuple<tensor<3xf32>, tensor<3xf32>>
    } do {
    ^bb0(%v2: tuple<tensor<3xf32>, tensor<3xf32>>):
      mindir.yield %v2 : tuple<tensor<3xf32>, tensor<3xf32>>
    }
    %e = mindir.tuple_get_item %w {index = 1 : i64} : (tuple<tensor<3xf32>, tensor<3xf32>>) -> tensor<3xf32>
    %t = mindir.reduce_sum %e : (tensor<3xf32>) -> tensor<f32>
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
