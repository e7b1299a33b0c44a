// RUN: ms-opt %s -p 'ascend-select-kernels,ascend-execution-order{policy=late}' | grep -E '^  (func|  [^ }])' | filecheck %s

// policy=late never moves a kernel past an op that depends on it:
// - @read_then_assign: the Exp reads @v before the Assign overwrites it (the
//   Assign depends on its reader), so it stays before the Assign (moved, it
//   would read the new value: ms-run and ms-sim would disagree).
// - @before_float_status: the Cast computes f16 before the first float-status
//   kernel, which depends on it; it stays before NPUClearFloatStatus.

ml_program.global private mutable @v(dense<[1.0, 2.0, 3.0]> : tensor<3xf32>) : tensor<3xf32>
ml_program.global private mutable @w(dense<[1.0e5, 2.0]> : tensor<2xf32>) : tensor<2xf32>
func.func private @__mindjit_float_status_alloc() -> tensor<8xf32> attributes {mindjit.runtime = "float_status_alloc"}
func.func private @__mindjit_float_status_clear(tensor<8xf32>) -> tensor<8xf32> attributes {mindjit.runtime = "float_status_clear"}
func.func private @__mindjit_float_status_get(tensor<8xf32>) -> tensor<8xf32> attributes {mindjit.runtime = "float_status_get"}

// CHECK-LABEL: func.func @read_then_assign
// CHECK-NEXT:    %v = ml_program.global_load @v : tensor<3xf32>
// CHECK-NEXT:    %ve = ascend.kernel "Exp"
// CHECK-NEXT:    ascend.kernel "Assign" vector f32 ND writes @v
// CHECK-NEXT:    %x1 = ascend.kernel "Exp"
// CHECK-NEXT:    %r = ascend.kernel "Add"
func.func @read_then_assign(%x: tensor<3xf32>, %n: tensor<3xf32>) -> tensor<3xf32> {
  %v = ml_program.global_load @v : tensor<3xf32>
  %e1 = tensor.empty() : tensor<3xf32>
  %ve = linalg.exp ins(%v : tensor<3xf32>) outs(%e1 : tensor<3xf32>) -> tensor<3xf32>
  ml_program.global_store @v = %n : tensor<3xf32>
  %e2 = tensor.empty() : tensor<3xf32>
  %x1 = linalg.exp ins(%x : tensor<3xf32>) outs(%e2 : tensor<3xf32>) -> tensor<3xf32>
  %e3 = tensor.empty() : tensor<3xf32>
  %r = linalg.add ins(%ve, %x1 : tensor<3xf32>, tensor<3xf32>) outs(%e3 : tensor<3xf32>) -> tensor<3xf32>
  func.return %r : tensor<3xf32>
}

// CHECK-LABEL: func.func @before_float_status
// CHECK-NEXT:    %w = ml_program.global_load @w : tensor<2xf32>
// CHECK-NEXT:    %wh = ascend.kernel "Cast"
// CHECK-NEXT:    %st = ascend.kernel "NPUAllocFloatStatus"
// CHECK-NEXT:    %c = ascend.kernel "NPUClearFloatStatus"
// CHECK-NEXT:    %y = ascend.kernel "Sub"
// CHECK-NEXT:    %g = ascend.kernel "NPUGetFloatStatus"
func.func @before_float_status(%x: tensor<2xf16>) -> (tensor<2xf16>, tensor<8xf32>) {
  %w = ml_program.global_load @w : tensor<2xf32>
  %e0 = tensor.empty() : tensor<2xf16>
  %wh = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%w : tensor<2xf32>) outs(%e0 : tensor<2xf16>) {
  ^bb0(%a: f32, %b: f16):
    %t = arith.truncf %a : f32 to f16
    linalg.yield %t : f16
  } -> tensor<2xf16>
  %st = func.call @__mindjit_float_status_alloc() : () -> tensor<8xf32>
  %c = func.call @__mindjit_float_status_clear(%st) : (tensor<8xf32>) -> tensor<8xf32>
  %e1 = tensor.empty() : tensor<2xf16>
  %y = linalg.sub ins(%x, %wh : tensor<2xf16>, tensor<2xf16>) outs(%e1 : tensor<2xf16>) -> tensor<2xf16>
  %g = func.call @__mindjit_float_status_get(%st) : (tensor<8xf32>) -> tensor<8xf32>
  func.return %y, %g : tensor<2xf16>, tensor<8xf32>
}
