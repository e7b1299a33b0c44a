// RUN: not ms-opt %s 2>&1 | filecheck %s

// A malformed op that trips a dialect's own parser (here an op name written twice,
// which xDSL's linalg parser fails on with an IndexError) is reported as
// `file:line:col: error:` with a non-zero exit, not as a bare Python message.

// CHECK: ms-opt-malformed-op.mlir:[[# @LINE + 3]]:{{[0-9]+}}: error: malformed operation
// CHECK-NOT: error
func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = linalg.fill linalg.fill ins(%a : tensor<2xf32>) outs(%a : tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
