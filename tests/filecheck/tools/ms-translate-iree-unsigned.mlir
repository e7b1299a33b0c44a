// RUN: ms-translate --target=iree-input %s -o - --entry f | filecheck %s
// RUN: ms-translate --target=iree-input %s -o - --entry f | iree-compile --iree-hal-target-backends=llvm-cpu - -o /dev/null
// RUN: ms-run %s --entry f --input 'tensor<3xui8>=[200,7,255]' --input 'tensor<3xui8>=[100,3,1]' | filecheck %s --check-prefix=OUT
// RUN: ms-run %s --entry f --input 'tensor<3xui8>=[200,7,255]' --input 'tensor<3xui8>=[100,3,1]' --backend iree | filecheck %s --check-prefix=OUT

// IREE's input is signless (backend/iree/signless.py): ui8 becomes i8, constants
// keep their bytes (255 prints as -1), the ops stay unsigned (ugt, divui, maxui);
// both executors give uint8 results, 200 > 100 as uint8.

// CHECK-NOT: ui8
// CHECK:     func.func @f(%{{.*}}: tensor<3xi8>, %{{.*}}: tensor<3xi8>) -> (tensor<3xi1>, tensor<3xi8>, tensor<3xi8>)
// CHECK:       arith.constant dense<-1> : tensor<3xi8>
// CHECK:       arith.cmpi ugt, %{{.*}}, %{{.*}} : i8
// CHECK:       arith.divui %{{.*}}, %{{.*}} : i8
// CHECK:       arith.maxui %{{.*}}, %{{.*}} : i8

// OUT:      array([ True,  True,  True])
// OUT-NEXT: array([0, 0, 1], dtype=uint8)
// OUT-NEXT: array([200,   7, 255], dtype=uint8)

func.func @f(%a: tensor<3xui8>, %b: tensor<3xui8>) -> (tensor<3xi1>, tensor<3xui8>, tensor<3xui8>) {
  %c = mindir.constant dense<255> : tensor<3xui8>
  %0 = mindir.greater %a, %b : (tensor<3xui8>, tensor<3xui8>) -> tensor<3xi1>
  %1 = mindir.div %a, %c : tensor<3xui8>
  %2 = mindir.maximum %a, %b : tensor<3xui8>
  func.return %0, %1, %2 : tensor<3xi1>, tensor<3xui8>, tensor<3xui8>
}
