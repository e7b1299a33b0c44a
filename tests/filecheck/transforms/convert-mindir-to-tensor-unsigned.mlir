// RUN: ms-opt %s -p convert-mindir-to-tensor | filecheck %s
// RUN: ms-opt %s | ms-opt | filecheck %s --check-prefix=ROUND

// Unsigned element types (MindSpore's uint8 ...) stay in the lowered types; the
// ops say how the bits are read: compares ugt/ult, divui, maxui, uitofp, extui,
// a bitcast between uint8 and int8, abs the value itself. arith.constant takes
// signless integers only, so an unsigned scalar is a signless one bitcast.

// ROUND:      %c = mindir.constant dense<255> : tensor<3xui8>
// ROUND-NEXT: %c16 = mindir.constant dense<[0, 65535, 7]> : tensor<3xui16>

// CHECK-LABEL: func.func @unsigned
// CHECK-SAME:    (%a: tensor<3xui8>, %b: tensor<3xui8>)
// CHECK:         %c = arith.constant dense<255> : tensor<3xui8>
// CHECK:         %[[Z0:.*]] = arith.constant 0 : i8
// CHECK-NEXT:    %[[Z0U:.*]] = arith.bitcast %[[Z0]] : i8 to ui8
// CHECK:         %[[INIT:.*]] = linalg.fill ins(%[[Z0U]] : ui8)
// CHECK:         ^bb0(%{{.*}}: ui8, %{{.*}}: ui8, %{{.*}}: i1):
// CHECK-NEXT:      arith.cmpi ugt, %{{.*}}, %{{.*}} : ui8
// CHECK:         arith.cmpi ult, %{{.*}}, %{{.*}} : ui8
// CHECK:         arith.divui %{{.*}}, %{{.*}} : ui8
// CHECK:         arith.uitofp %{{.*}} : ui8 to f32
// CHECK:         arith.extui %{{.*}} : ui8 to ui16
// CHECK:         arith.bitcast %{{.*}} : ui8 to i8
// CHECK:         %[[Z:.*]] = arith.constant 0 : i8
// CHECK-NEXT:    %[[ZU:.*]] = arith.bitcast %[[Z]] : i8 to ui8
// CHECK-NEXT:    arith.maxui %{{.*}}, %[[ZU]] : ui8
// CHECK:         linalg.reduce ins(%a:tensor<3xui8>) outs(%[[INIT]]:tensor<ui8>)
// CHECK:           arith.maxui
// CHECK-NOT:     math.absi
// CHECK:         func.return
func.func @unsigned(%a: tensor<3xui8>, %b: tensor<3xui8>) -> (tensor<3xi1>, tensor<3xi1>, tensor<3xui8>, tensor<3xf32>, tensor<3xui16>, tensor<3xi8>, tensor<3xui8>, tensor<ui8>, tensor<3xui8>, tensor<3xui16>) {
  %c = mindir.constant dense<255> : tensor<3xui8>
  %c16 = mindir.constant dense<[0, 65535, 7]> : tensor<3xui16>
  %0 = mindir.greater %a, %c : (tensor<3xui8>, tensor<3xui8>) -> tensor<3xi1>
  %1 = mindir.less %a, %b : (tensor<3xui8>, tensor<3xui8>) -> tensor<3xi1>
  %2 = mindir.div %a, %b : tensor<3xui8>
  %3 = mindir.cast %a {to = f32} : (tensor<3xui8>) -> tensor<3xf32>
  %4 = mindir.cast %a {to = ui16} : (tensor<3xui8>) -> tensor<3xui16>
  %5 = mindir.cast %a {to = i8} : (tensor<3xui8>) -> tensor<3xi8>
  %6 = mindir.relu %a : tensor<3xui8>
  %7 = mindir.reduce_max %a {axis = array<i64: 0>} : (tensor<3xui8>) -> tensor<ui8>
  %8 = mindir.abs %a : tensor<3xui8>
  func.return %0, %1, %2, %3, %4, %5, %6, %7, %8, %c16 : tensor<3xi1>, tensor<3xi1>, tensor<3xui8>, tensor<3xf32>, tensor<3xui16>, tensor<3xi8>, tensor<3xui8>, tensor<ui8>, tensor<3xui8>, tensor<3xui16>
}
