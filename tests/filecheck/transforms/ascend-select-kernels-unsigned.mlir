// RUN: ms-opt %s -p convert-mindir-to-tensor,ascend-select-kernels | filecheck %s

// Unsigned dtypes on the device: the AI Core vector unit has uint8 kernels,
// uint16/32/64 fall back to AI CPU (kernel_table.py). An unsigned scalar
// constant (a signless constant bitcast) is copied into the kernel like any
// scalar constant, and names no Cast; argmax keeps its init in its code.

// CHECK-LABEL: func.func @unsigned
// CHECK:         ascend.kernel "Maximum" vector ui8 ND
// CHECK:           %[[Z:.*]] = arith.constant 0 : i8
// CHECK-NEXT:      %[[ZU:.*]] = arith.bitcast %[[Z]] : i8 to ui8
// CHECK-NEXT:      arith.maxui %{{.*}}, %[[ZU]] : ui8
// CHECK:         ascend.kernel "Maximum" aicpu ui16 ND
// CHECK:         ascend.kernel "Div" vector ui8 ND
// CHECK:           arith.divui
// CHECK:         ascend.kernel "ArgMaxWithValue" vector ui8 ND (%{{.*}} = %a) : (tensor<4xui8>) -> (tensor<ui8>, tensor<i64>) {
// CHECK-NEXT:      %[[C:.*]] = arith.constant 0 : i8
// CHECK-NEXT:      %[[CU:.*]] = arith.bitcast %[[C]] : i8 to ui8
// CHECK:           linalg.fill ins(%[[CU]] : ui8)
func.func @unsigned(%a: tensor<4xui8>, %b: tensor<4xui16>) -> (tensor<4xui8>, tensor<4xui16>, tensor<4xui8>, tensor<i64>) {
  %0 = mindir.relu %a : tensor<4xui8>
  %1 = mindir.relu %b : tensor<4xui16>
  %2 = mindir.div %a, %0 : tensor<4xui8>
  %3 = mindir.argmax %a {axis = 0 : i64, index_type = i64} : (tensor<4xui8>) -> tensor<i64>
  func.return %0, %1, %2, %3 : tensor<4xui8>, tensor<4xui16>, tensor<4xui8>, tensor<i64>
}
