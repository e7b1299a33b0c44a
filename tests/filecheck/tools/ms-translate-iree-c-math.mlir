// RUN: ms-translate --target=iree-input %s -o - --entry f | filecheck %s
// RUN: ms-run %s --entry f --input 'tensor<4xf32>=[-2.0,0.0,-1.0,-0.0]' --input 'tensor<4xf32>=[2.0,0.0,-0.0,-1.0]' --input 'tensor<2xf64>=[1.0e-30,-1.0e-06]' | filecheck %s --check-prefix=OUT
// RUN: ms-run %s --entry f --input 'tensor<4xf32>=[-2.0,0.0,-1.0,-0.0]' --input 'tensor<4xf32>=[2.0,0.0,-0.0,-1.0]' --input 'tensor<2xf64>=[1.0e-30,-1.0e-06]' --backend iree | filecheck %s --check-prefix=OUT

// Math ops with C's values on IREE (backend/iree/c_math.py): IREE 3.13 expands
// powf with a run-time exponent to exp(b * log(a)) (NaN for (-2) ** 2 and 0 ** 0),
// atan2 gives NaN at (0, 0) and +pi for atan2(-0, -1), f64 log1p is log(1 + x)
// (0 for 1e-30). IREE's op stays, on arguments where it is right; f32 log1p is
// accurate on IREE and stays as it is. Both executors print the same values.

// CHECK:     func.func @f
// CHECK:       %[[ABS:.*]] = math.absf %[[A:.*]] : f32
// CHECK-NEXT:  %[[MAG:.*]] = math.powf %[[ABS]], %{{.*}} : f32
// CHECK:       math.copysign %[[MAG]], %[[A]] : f32
// CHECK:       %[[R:.*]] = math.atan2 %[[Y:.*]], %{{.*}} : f32
// CHECK:       math.copysign %{{.*}}, %[[Y]] : f32
// CHECK-NOT:   math.log1p %{{.*}} : f64
// CHECK:       math.log %{{.*}} : f64
// CHECK:       math.log1p %{{.*}} : f32

// OUT:      array([ 4.,  1.,  1., -inf], dtype=float32)
// OUT-NEXT: array([-0.785398{{1|2}},  0.       , -1.5707964, -3.1415927], dtype=float32)
// OUT-NEXT: array([ 1.0000000e-30, -1.0000005e-06])
// OUT-NEXT: array([ nan,   0., -inf,  -0.], dtype=float32)

func.func @f(%a: tensor<4xf32>, %b: tensor<4xf32>, %c: tensor<2xf64>) -> (tensor<4xf32>, tensor<4xf32>, tensor<2xf64>, tensor<4xf32>) {
  %0 = mindir.pow %a, %b : tensor<4xf32>
  %1 = mindir.atan2 %a, %b : tensor<4xf32>
  %2 = mindir.log1p %c : tensor<2xf64>
  %3 = mindir.log1p %a : tensor<4xf32>
  func.return %0, %1, %2, %3 : tensor<4xf32>, tensor<4xf32>, tensor<2xf64>, tensor<4xf32>
}
