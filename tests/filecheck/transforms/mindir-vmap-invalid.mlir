// RUN: ms-opt %s -p mindir-vmap --verify-diagnostics --split-input-file

// A loop's record written at a slot that differs per example (the gradient of a
// loop whose trip count differs between examples) has no batching rule yet.

func.func @record_per_example(%x: tensor<4x3xf32>, %y: tensor<f32>) -> tensor<4x3xf32> {
  %r = mindir.vmap (%e = %x) in_axes [0] out_axes [0] : (tensor<4x3xf32>) -> tensor<4x3xf32> {
    %z = mindir.constant dense<0> : tensor<i64>
    %s0 = mindir.stack_new : tensor<?x3xf32>
    %w, %n, %s = mindir.while (%v = %e, %k = %z, %st = %s0) : (tensor<3xf32>, tensor<i64>, tensor<?x3xf32>) -> (tensor<3xf32>, tensor<i64>, tensor<?x3xf32>) {
      // expected-error @+1 {{mindir-vmap: a loop's record indexed per example}}
      %p = mindir.stack_push %st, %k, %v : (tensor<?x3xf32>, tensor<i64>, tensor<3xf32>) -> tensor<?x3xf32>
      %sum = mindir.reduce_sum %v : (tensor<3xf32>) -> tensor<f32>
      %c = mindir.less %sum, %y : (tensor<f32>, tensor<f32>) -> tensor<i1>
      mindir.condition(%c : tensor<i1>) %v, %k, %p : tensor<3xf32>, tensor<i64>, tensor<?x3xf32>
    } do {
    ^bb0(%v2: tensor<3xf32>, %k2: tensor<i64>, %st2: tensor<?x3xf32>):
      %d = mindir.add %v2, %v2 : tensor<3xf32>
      %one = mindir.constant dense<1> : tensor<i64>
      %k3 = mindir.add %k2, %one : tensor<i64>
      mindir.yield %d, %k3, %st2 : tensor<3xf32>, tensor<i64>, tensor<?x3xf32>
    }
    mindir.yield %w : tensor<3xf32>
  }
  func.return %r : tensor<4x3xf32>
}

// -----

// An if that prints keeps its if: no rule.

func.func @if_prints(%x: tensor<4x3xf32>, %c: tensor<i1>, %io: !mindir.io) -> tensor<4x3xf32> {
  %r = mindir.vmap (%e = %x) in_axes [0] out_axes [0] : (tensor<4x3xf32>) -> tensor<4x3xf32> {
    // expected-error @+1 {{mindir-vmap: no batching rule for 'mindir.if'}}
    %i, %io2 = mindir.if %c -> (tensor<3xf32>, !mindir.io) {
      %io1 = mindir.print %e, %io : tensor<3xf32>
      mindir.yield %e, %io1 : tensor<3xf32>, !mindir.io
    } else {
      mindir.yield %e, %io : tensor<3xf32>, !mindir.io
    }
    mindir.yield %i : tensor<3xf32>
  }
  func.return %r : tensor<4x3xf32>
}

// -----

func.func @batched_result_out_axes_none(%a: tensor<5x3xf32>) -> tensor<3xf32> {
  %r = mindir.vmap (%x = %a) in_axes [0] out_axes [none] : (tensor<5x3xf32>) -> tensor<3xf32> {
    %y = mindir.neg %x : tensor<3xf32>
    // expected-error @+1 {{mindir-vmap: a result with out_axes none must be the same for every example, but it depends on the batched inputs}}
    mindir.yield %y : tensor<3xf32>
  }
  func.return %r : tensor<3xf32>
}
