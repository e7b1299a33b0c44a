// RUN: ms-opt %s | filecheck %s
// RUN: ms-opt %s | ms-opt | filecheck %s
// RUN: ms-opt %s --print-op-generic | ms-opt | filecheck %s
// RUN: ms-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// Round trip of every ascend op: custom form, custom -> custom, and
// custom -> generic -> custom (kernels with inputs, without inputs, with several
// results, writing a Parameter, with discardable attributes; views; events).

// CHECK: ml_program.global private mutable @p(dense<0> : tensor<i32>) : tensor<i32>
ml_program.global private mutable @p(dense<0> : tensor<i32>) : tensor<i32>

// CHECK-LABEL: func.func @kernels
func.func @kernels(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %c: tensor<i32>) -> (tensor<4x16xf32>, tensor<4x16xf32>, tensor<64xf32>, tensor<2xf32>) {
  // A kernel with bound inputs, its code (inits included) and attributes.
  // CHECK-NEXT:  %y = ascend.kernel "MatMul" cube f32 ND (%a = %x, %b = %w) : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32> {
  // CHECK-NEXT:    %z = arith.constant 0.000000e+00 : f32
  // CHECK-NEXT:    %e = tensor.empty() : tensor<4x16xf32>
  // CHECK-NEXT:    %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  // CHECK-NEXT:    %r = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%f : tensor<4x16xf32>) -> tensor<4x16xf32>
  // CHECK-NEXT:    ascend.yield %r : tensor<4x16xf32>
  // CHECK-NEXT:  } attributes {ascend.stream = 1 : i64, ascend.offsets = array<i64: 0>}
  // GENERIC:     %y = "ascend.kernel"(%x, %w) <{kernel = "MatMul", unit = "cube", dtype = f32, format = "ND"}> ({
  // GENERIC-NEXT:  ^bb0(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>):
  // GENERIC:         "ascend.yield"(%r) : (tensor<4x16xf32>) -> ()
  // GENERIC-NEXT:  }) {ascend.stream = 1 : i64, ascend.offsets = array<i64: 0>} : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %y = ascend.kernel "MatMul" cube f32 ND (%a = %x, %b = %w) : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32> {
    %z = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<4x16xf32>
    %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
    %r = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%f : tensor<4x16xf32>) -> tensor<4x16xf32>
    ascend.yield %r : tensor<4x16xf32>
  } attributes {ascend.stream = 1 : i64, ascend.offsets = array<i64: 0>}

  // Events: custom form `E stream S`, generic form with the two properties.
  // CHECK-NEXT:  ascend.record_event 0 stream 1
  // CHECK-NEXT:  ascend.wait_event 0 stream 0
  // CHECK-NEXT:  ascend.record_event 7 stream 63 {tag = "x"}
  // GENERIC:     "ascend.record_event"() <{event = 0 : i64, stream = 1 : i64}> : () -> ()
  // GENERIC-NEXT: "ascend.wait_event"() <{event = 0 : i64, stream = 0 : i64}> : () -> ()
  // GENERIC-NEXT: "ascend.record_event"() <{event = 7 : i64, stream = 63 : i64}> {tag = "x"} : () -> ()
  ascend.record_event 0 stream 1
  ascend.wait_event 0 stream 0
  ascend.record_event 7 stream 63 {tag = "x"}

  // Several results: the result types are parenthesized.
  // CHECK-NEXT:  %two, %two_1 = ascend.kernel "Split" vector f32 ND (%{{.*}} = %y) : (tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>) {
  // CHECK-NEXT:    ascend.yield %[[A:.*]], %[[A]] : tensor<4x16xf32>, tensor<4x16xf32>
  // CHECK-NEXT:  }
  %two:2 = ascend.kernel "Split" vector f32 ND (%a = %y) : (tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>) {
    ascend.yield %a, %a : tensor<4x16xf32>, tensor<4x16xf32>
  }

  // A kernel writing a Parameter: `writes @p`, no results.
  // CHECK-NEXT:  ascend.kernel "Assign" aicpu i32 ND writes @p (%v = %c) : (tensor<i32>) -> () {
  // CHECK-NEXT:    ascend.yield %v : tensor<i32>
  // CHECK-NEXT:  }
  // GENERIC:     "ascend.kernel"(%c) <{kernel = "Assign", unit = "aicpu", dtype = i32, format = "ND", writes = @p}> ({
  ascend.kernel "Assign" aicpu i32 ND writes @p (%v = %c) : (tensor<i32>) -> () {
    ascend.yield %v : tensor<i32>
  }

  // A view: same element count and type, another shape.
  // CHECK-NEXT:  %{{.*}} = ascend.view %y : tensor<4x16xf32> -> tensor<64xf32>
  // GENERIC:     "ascend.view"(%y) : (tensor<4x16xf32>) -> tensor<64xf32>
  %v = ascend.view %y : tensor<4x16xf32> -> tensor<64xf32>

  // A kernel without inputs: no operand list.
  // CHECK-NEXT:  %n = ascend.kernel "Fill" vector f32 ND : () -> tensor<2xf32> {
  // CHECK-NEXT:    %{{.*}} = tensor.empty() : tensor<2xf32>
  // CHECK-NEXT:    ascend.yield %{{.*}} : tensor<2xf32>
  // CHECK-NEXT:  }
  %n = ascend.kernel "Fill" vector f32 ND : () -> tensor<2xf32> {
    %e = tensor.empty() : tensor<2xf32>
    ascend.yield %e : tensor<2xf32>
  }

  // A kernel without results nor writes (e.g. Print): an empty yield.
  // CHECK-NEXT:  ascend.kernel "Print" aicpu f32 ND (%{{.*}} = %n) : (tensor<2xf32>) -> () {
  // CHECK-NEXT:    ascend.yield
  // CHECK-NEXT:  }
  ascend.kernel "Print" aicpu f32 ND (%s = %n) : (tensor<2xf32>) -> () {
    ascend.yield
  }

  // CHECK-NEXT:  func.return %two, %two_1, %{{.*}}, %n : tensor<4x16xf32>, tensor<4x16xf32>, tensor<64xf32>, tensor<2xf32>
  func.return %two#0, %two#1, %v, %n : tensor<4x16xf32>, tensor<4x16xf32>, tensor<64xf32>, tensor<2xf32>
}
