// The graph's top-level ops only (kernel code and closing braces dropped), so
// CHECK-NEXT sees the execution order.
// RUN: ms-opt %s -p 'ascend-select-kernels,ascend-execution-order{policy=late}' | grep -E '^  (func|  [^ }])' | filecheck %s --check-prefix=LATE
// RUN: ms-opt %s -p 'ascend-select-kernels,ascend-execution-order' | grep -E '^  (func|  [^ }])' | filecheck %s --check-prefix=LATE
// RUN: ms-opt %s -p 'ascend-select-kernels,ascend-execution-order{policy=program}' | grep -E '^  (func|  [^ }])' | filecheck %s --check-prefix=PROGRAM
// RUN: not ms-opt %s -p 'ascend-select-kernels,ascend-execution-order{policy=early}' 2>&1 | filecheck %s --check-prefix=BAD

// ascend-execution-order: policy=late (the default) moves each movable kernel
// whose inputs are all persistent (a Load of a Parameter nothing writes, a
// tensor constant) to just before its first user: here the Transpose of @w
// goes just before the MatMul and the Exp of a constant just before the last
// Add. The Exp of @v, read after an Assign wrote @v, does not move; nor do
// kernels of non-persistent inputs (%x, %n). policy=program keeps program
// order.

// LATE-LABEL:  func.func @net
// LATE-NEXT:     %w = ml_program.global_load @w : tensor<2x3xf32>
// LATE-NEXT:     %c = arith.constant
// LATE-NEXT:     ascend.kernel "Assign" vector f32 ND writes @v
// LATE-NEXT:     %v = ml_program.global_load @v : tensor<3xf32>
// LATE-NEXT:     %ve = ascend.kernel "Exp" vector f32 ND (%{{.*}} = %v)
// LATE-NEXT:     %x1 = ascend.kernel "Exp"
// LATE-NEXT:     %ne = ascend.kernel "Exp"
// LATE-NEXT:     %x2 = ascend.kernel "Exp"
// LATE-NEXT:     %wt = ascend.kernel "Transpose" vector f32 ND (%{{.*}} = %w)
// LATE-NEXT:     %y = ascend.kernel "MatMul"
// LATE-NEXT:     %s1 = ascend.kernel "Add"
// LATE-NEXT:     %ce = ascend.kernel "Exp" vector f32 ND (%{{.*}} = %c)
// LATE-NEXT:     %r = ascend.kernel "Add"
// LATE-NEXT:     func.return %y, %r

// PROGRAM-LABEL: func.func @net
// PROGRAM-NEXT:    %w = ml_program.global_load @w : tensor<2x3xf32>
// PROGRAM-NEXT:    %wt = ascend.kernel "Transpose"
// PROGRAM-NEXT:    %c = arith.constant
// PROGRAM-NEXT:    %ce = ascend.kernel "Exp"
// PROGRAM-NEXT:    ascend.kernel "Assign" vector f32 ND writes @v
// PROGRAM-NEXT:    %v = ml_program.global_load @v : tensor<3xf32>
// PROGRAM-NEXT:    %ve = ascend.kernel "Exp"
// PROGRAM-NEXT:    %x1 = ascend.kernel "Exp"
// PROGRAM-NEXT:    %ne = ascend.kernel "Exp"
// PROGRAM-NEXT:    %x2 = ascend.kernel "Exp"
// PROGRAM-NEXT:    %y = ascend.kernel "MatMul"
// PROGRAM-NEXT:    %s1 = ascend.kernel "Add"
// PROGRAM-NEXT:    %r = ascend.kernel "Add"
// PROGRAM-NEXT:    func.return %y, %r

// BAD: error: bad options for pass 'ascend-execution-order': policy must be one of program, late, got 'early'
ml_program.global private mutable @w(dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>) : tensor<2x3xf32>
ml_program.global private mutable @v(dense<[1.0, 2.0, 3.0]> : tensor<3xf32>) : tensor<3xf32>
func.func @net(%x: tensor<4x3xf32>, %n: tensor<3xf32>) -> (tensor<4x2xf32>, tensor<3xf32>) {
  %w = ml_program.global_load @w : tensor<2x3xf32>
  %e0 = tensor.empty() : tensor<3x2xf32>
  %wt = linalg.transpose ins(%w : tensor<2x3xf32>) outs(%e0 : tensor<3x2xf32>) permutation = [1, 0]
  %c = arith.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %e1 = tensor.empty() : tensor<3xf32>
  %ce = linalg.exp ins(%c : tensor<3xf32>) outs(%e1 : tensor<3xf32>) -> tensor<3xf32>
  ml_program.global_store @v = %n : tensor<3xf32>
  %v = ml_program.global_load @v : tensor<3xf32>
  %e2 = tensor.empty() : tensor<3xf32>
  %ve = linalg.exp ins(%v : tensor<3xf32>) outs(%e2 : tensor<3xf32>) -> tensor<3xf32>
  %e3 = tensor.empty() : tensor<4x3xf32>
  %x1 = linalg.exp ins(%x : tensor<4x3xf32>) outs(%e3 : tensor<4x3xf32>) -> tensor<4x3xf32>
  %e4 = tensor.empty() : tensor<3xf32>
  %ne = linalg.exp ins(%n : tensor<3xf32>) outs(%e4 : tensor<3xf32>) -> tensor<3xf32>
  %e5 = tensor.empty() : tensor<4x3xf32>
  %x2 = linalg.exp ins(%x1 : tensor<4x3xf32>) outs(%e5 : tensor<4x3xf32>) -> tensor<4x3xf32>
  %z = arith.constant 0.0 : f32
  %e6 = tensor.empty() : tensor<4x2xf32>
  %f6 = linalg.fill ins(%z : f32) outs(%e6 : tensor<4x2xf32>) -> tensor<4x2xf32>
  %y = linalg.matmul ins(%x2, %wt : tensor<4x3xf32>, tensor<3x2xf32>) outs(%f6 : tensor<4x2xf32>) -> tensor<4x2xf32>
  %e7 = tensor.empty() : tensor<3xf32>
  %s1 = linalg.add ins(%ve, %ne : tensor<3xf32>, tensor<3xf32>) outs(%e7 : tensor<3xf32>) -> tensor<3xf32>
  %e8 = tensor.empty() : tensor<3xf32>
  %r = linalg.add ins(%s1, %ce : tensor<3xf32>, tensor<3xf32>) outs(%e8 : tensor<3xf32>) -> tensor<3xf32>
  func.return %y, %r : tensor<4x2xf32>, tensor<3xf32>
}
