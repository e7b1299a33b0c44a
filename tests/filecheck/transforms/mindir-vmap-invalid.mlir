// RUN: ms-opt %s -p mindir-vmap --verify-diagnostics --split-input-file

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
