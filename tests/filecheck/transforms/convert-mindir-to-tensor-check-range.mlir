// RUN: ms-opt %s -p convert-mindir-to-tensor --split-input-file | filecheck %s

// mindir.check_range: an "all in range" i1 (a reduction over every axis, the
// elements compared in f64, ordered so that NaN fails) and a cf.assert with the
// message; the result is the input itself (no copy).

// CHECK-LABEL: func.func @check_2d
// CHECK-NEXT:    %[[T:.*]] = arith.constant true
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<i1>
// CHECK-NEXT:    %[[I:.*]] = linalg.fill ins(%[[T]] : i1) outs(%[[E]] : tensor<i1>) -> tensor<i1>
// CHECK-NEXT:    %[[L:.*]] = tensor.empty() : tensor<2x3xf32>
// CHECK-NEXT:    %[[ALL:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%x : tensor<2x3xf32>) outs(%[[I]] : tensor<i1>) {
// CHECK-NEXT:    ^bb0(%[[V:.*]]: f32, %[[ACC:.*]]: i1):
// CHECK-NEXT:      %[[W:.*]] = arith.extf %[[V]] : f32 to f64
// CHECK-NEXT:      %[[LO:.*]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:      %[[HI:.*]] = arith.constant 1.000000e+00 : f64
// CHECK-NEXT:      %[[A:.*]] = arith.cmpf oge, %[[W]], %[[LO]] : f64
// CHECK-NEXT:      %[[B:.*]] = arith.cmpf ole, %[[W]], %[[HI]] : f64
// CHECK-NEXT:      %[[IN:.*]] = arith.andi %[[A]], %[[B]] : i1
// CHECK-NEXT:      %[[R:.*]] = arith.andi %[[ACC]], %[[IN]] : i1
// CHECK-NEXT:      linalg.yield %[[R]] : i1
// CHECK-NEXT:    } -> tensor<i1>
// CHECK-NEXT:    %[[OK:.*]] = tensor.extract %[[ALL]][] : tensor<i1>
// CHECK-NEXT:    cf.assert %[[OK]], "For 'BinaryCrossEntropy', the elements of 'logits' must be in [0, 1]"
// CHECK-NEXT:    %[[LOG:.*]] = linalg.generic {{.*}} ins(%x : tensor<2x3xf32>)
// CHECK:           math.log
// CHECK:         func.return %[[LOG]] : tensor<2x3xf32>
func.func @check_2d(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = mindir.check_range %x {min = 0.0 : f64, max = 1.0 : f64, message = "For 'BinaryCrossEntropy', the elements of 'logits' must be in [0, 1]"} : tensor<2x3xf32>
  %l = mindir.log %y : tensor<2x3xf32>
  func.return %l : tensor<2x3xf32>
}

// -----

// A rank-0 input needs no reduction; f64 elements need no extension.

// CHECK-LABEL: func.func @check_scalar
// CHECK-NEXT:    %[[V:.*]] = tensor.extract %s[] : tensor<f64>
// CHECK-NEXT:    %[[LO:.*]] = arith.constant -2.000000e+00 : f64
// CHECK-NEXT:    %[[HI:.*]] = arith.constant 3.500000e+00 : f64
// CHECK-NEXT:    %[[A:.*]] = arith.cmpf oge, %[[V]], %[[LO]] : f64
// CHECK-NEXT:    %[[B:.*]] = arith.cmpf ole, %[[V]], %[[HI]] : f64
// CHECK-NEXT:    %[[OK:.*]] = arith.andi %[[A]], %[[B]] : i1
// CHECK-NEXT:    cf.assert %[[OK]], "scalar out of range"
// CHECK-NEXT:    func.return %s : tensor<f64>
func.func @check_scalar(%s: tensor<f64>) -> tensor<f64> {
  %y = mindir.check_range %s {min = -2.0 : f64, max = 3.5 : f64, message = "scalar out of range"} : tensor<f64>
  func.return %y : tensor<f64>
}

// -----

// f16 elements are extended to f64 too; a check nothing uses is dead code.

// CHECK-LABEL: func.func @check_f16
// CHECK:           arith.extf %{{.*}} : f16 to f64
// CHECK:         cf.assert %{{.*}}, "used"
// CHECK-NOT:     cf.assert
// CHECK:         func.return %h : tensor<4xf16>
func.func @check_f16(%h: tensor<4xf16>) -> tensor<4xf16> {
  %y = mindir.check_range %h {min = 0.0 : f64, max = 1.0 : f64, message = "used"} : tensor<4xf16>
  %dead = mindir.check_range %h {min = 0.0 : f64, max = 2.0 : f64, message = "unused"} : tensor<4xf16>
  func.return %y : tensor<4xf16>
}
