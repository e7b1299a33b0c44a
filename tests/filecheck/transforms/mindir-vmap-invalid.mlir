// RUN: ms-opt %s -p mindir-vmap --verify-diagnostics --split-input-file

func.func @has_if(%x: tensor<4x3xf32>, %c: tensor<i1>) -> tensor<4x3xf32> {
  %r = mindir.vmap (%e = %x, %k = %c) in_axes [0, none] out_axes [0] : (tensor<4x3xf32>, tensor<i1>) -> tensor<4x3xf32> {
    // expected-error @+1 {{mindir-vmap: no batching rule for 'mindir.if'}}
    %i = mindir.if %k -> (tensor<3xf32>) {
      mindir.yield %e : tensor<3xf32>
    } else {
      mindir.yield %e : tensor<3xf32>
    }
    mindir.yield %i : tensor<3xf32>
  }
  func.return %r : tensor<4x3xf32>
}
