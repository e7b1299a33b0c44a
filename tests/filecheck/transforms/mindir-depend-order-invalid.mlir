// RUN: ms-opt %s -p mindir-depend-order --verify-diagnostics --split-input-file

// A dependency cycle cannot be ordered: the error is at the cycle's first op and
// lists the ops of the cycle with their locations.

func.func @cycle(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{mindir-depend-order: the ops form a dependency cycle: 'mindir.depend' at 8:3, which needs 'mindir.add' at 9:3, which needs 'mindir.depend' at 8:3}}
  %a = mindir.depend %x, %b : tensor<f32>, tensor<f32>
  %b = mindir.add %a, %x : tensor<f32>
  func.return %b : tensor<f32>
}

// -----

// Side effects keep their relative order: the first print needs a value that
// depends on the second print.

func.func @effect_cycle(%x: tensor<f32>, %io0: !mindir.io) -> tensor<f32> {
  // expected-error @+1 {{the ops form a dependency cycle: 'mindir.print' at 20:3, which needs 'mindir.depend' at 22:3, which needs 'mindir.print' at 21:3, which needs 'mindir.print' at 20:3}}
  %p1 = mindir.print %v, %io0 : tensor<f32>
  %p2 = mindir.print %x, %io0 : tensor<f32>
  %v = mindir.depend %x, %p2 : tensor<f32>, !mindir.io
  func.return %x : tensor<f32>
}
