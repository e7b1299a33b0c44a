// RUN: ms-opt %s --split-input-file | filecheck %s
// RUN: ms-opt %s --split-input-file --print-op-generic | ms-opt --split-input-file | filecheck %s

// An entry graph takes its Parameters as arguments bound to them with the
// argument attribute {mindir.parameter = @w} (MindSpore's top-graph inputs); the
// declarations stay. Printed and parsed back unchanged, generic form included.

// CHECK:      mindir.parameter @w = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK:      func.func @Net_construct(%x: tensor<2xf32>, %w: !mindir.ref<tensor<2xf32>> {mindir.parameter = @w}, %u: !mindir.u) -> tensor<2xf32> {
// CHECK-NEXT:   %l = mindir.load %w, %u : tensor<2xf32>
mindir.parameter @w = dense<[1.0, 2.0]> : tensor<2xf32>
func.func @Net_construct(%x: tensor<2xf32>, %w: !mindir.ref<tensor<2xf32>> {mindir.parameter = @w}, %u: !mindir.u) -> tensor<2xf32> {
  %l = mindir.load %w, %u : tensor<2xf32>
  %y = mindir.add %x, %l : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return %y : tensor<2xf32>
}
