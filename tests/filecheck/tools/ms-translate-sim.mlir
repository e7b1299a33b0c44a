// RUN: ms-translate --target=ascend-sim %s -o %t.msmodel --emit-ir %t.ir
// RUN: ms-sim %t.msmodel --input 'tensor<2x3xf32>=[[1,0,0],[0,1,0]]' --input 'tensor<3x2xf32>=[[0,1],[1,0],[0,0]]' | filecheck %s
// RUN: ms-sim %t.msmodel --input 'tensor<2x3xf32>=[[100,0,0],[0,1,0]]' --input 'tensor<3x2xf32>=[[0,1],[1,0],[0,0]]' 2>&1 | filecheck %s --check-prefix=OVERFLOW
// RUN: filecheck %s --check-prefix=IR < %t.ir
// RUN: ms-translate --target=ascend-sim %s -o %t.single.msmodel --single-stream
// RUN: ms-sim %t.single.msmodel --input 'tensor<2x3xf32>=[[1,0,0],[0,1,0]]' --input 'tensor<3x2xf32>=[[0,1],[1,0],[0,0]]' | filecheck %s --check-prefix=SINGLE
// Errors: a file that is no model (this .mlir), a truncated model, wrong inputs.
// RUN: not ms-sim %s 2>&1 | filecheck %s --check-prefix=NOTMODEL
// RUN: head -c 40 %t.msmodel > %t.trunc.msmodel
// RUN: not ms-sim %t.trunc.msmodel 2>&1 | filecheck %s --check-prefix=TRUNC
// RUN: not ms-sim %t.msmodel --input 'tensor<2x3xf32>=[[1,0,0],[0,1,0]]' 2>&1 | filecheck %s --check-prefix=ARITY

// ms-translate --target=ascend-sim writes a device model file from
// tensor-level MLIR; ms-sim runs it on the simulated device and prints the
// outputs (the Parameter @step is updated by an Assign), then the report:
// simulated time per stream, the kernel table, peak device memory against the
// lower bound, and the float-status register (set by the overflowing Exp).

// CHECK:      array({{\[\[}}1.      , 2.718282],
// CHECK-NEXT:        [2.718282, 1.      ]], dtype=float32)
// CHECK-NEXT: array([1., 2.], dtype=float32)
// CHECK-NEXT: simulated time: {{[0-9.]+}} us
// CHECK-NEXT:   stream 0: busy {{[0-9.]+}} us
// CHECK-NEXT:   stream 1: busy {{[0-9.]+}} us
// CHECK-NEXT: kernels:
// CHECK-NEXT:   kernel unit count time (us) share
// CHECK-DAG:    MatMul cube 1 {{[0-9.]+}} {{[0-9.]+}}%
// CHECK-DAG:    Exp vector 1 {{[0-9.]+}} {{[0-9.]+}}%
// CHECK-DAG:    Add vector 1 {{[0-9.]+}} {{[0-9.]+}}%
// CHECK-DAG:    Assign vector 1 {{[0-9.]+}} {{[0-9.]+}}%
// CHECK:      device memory: peak 2.50 KiB (2560 B), lower bound 2.50 KiB (2560 B), ratio 1.000
// CHECK-NEXT:   of which Parameters and constants 1.00 KiB, activations 1.50 KiB (lower bound 1.50 KiB)
// CHECK-NEXT: float status: [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]

// OVERFLOW:      array({{\[\[}}1.      ,      inf],
// OVERFLOW:      float status: [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]

// --emit-ir writes the device IR the model was made from.
// IR:          builtin.module attributes {
// IR-SAME:       ascend.memory_bytes = 2560 : i64
// IR:          func.func @main
// IR:            %m = ascend.kernel "MatMul" cube f32 ND
// IR:            ascend.kernel "Assign" vector f32 ND writes @step

// SINGLE:      simulated time:
// SINGLE-NEXT:   stream 0: busy
// SINGLE-NEXT: kernels:

// NOTMODEL:    ms-translate-sim.mlir: error: invalid model file: not a mindjit device model (bad magic)
// TRUNC:       .msmodel: error: invalid model file: truncated: 40 bytes, shorter than the header
// ARITY:       .msmodel: error: entry @main expects 2 inputs, got 1

ml_program.global private mutable @step(dense<0.0> : tensor<2xf32>) : tensor<2xf32>
func.func @main(%x: tensor<2x3xf32>, %w: tensor<3x2xf32>) -> (tensor<2x2xf32>, tensor<2xf32>) {
  %z = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<2x2xf32>
  %f0 = linalg.fill ins(%z : f32) outs(%e0 : tensor<2x2xf32>) -> tensor<2x2xf32>
  %m = linalg.matmul ins(%x, %w : tensor<2x3xf32>, tensor<3x2xf32>) outs(%f0 : tensor<2x2xf32>) -> tensor<2x2xf32>
  %e1 = tensor.empty() : tensor<2x2xf32>
  %y = linalg.exp ins(%m : tensor<2x2xf32>) outs(%e1 : tensor<2x2xf32>) -> tensor<2x2xf32>
  %s = ml_program.global_load @step : tensor<2xf32>
  %cst = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %e2 = tensor.empty() : tensor<2xf32>
  %s1 = linalg.add ins(%s, %cst : tensor<2xf32>, tensor<2xf32>) outs(%e2 : tensor<2xf32>) -> tensor<2xf32>
  ml_program.global_store @step = %s1 : tensor<2xf32>
  func.return %y, %s1 : tensor<2x2xf32>, tensor<2xf32>
}
