// RUN: ms-opt %s -p convert-mindir-to-tensor --split-input-file | filecheck %s

// An entry graph's arguments bound to Parameters ({mindir.parameter = @w}).
// One whose Parameter nothing writes becomes the Parameter's value: its Loads are
// the argument, a call gets it as it is (no global_load per call site), and it is
// marked {mindjit.global = @w} for the executor to fill. One whose Parameter is
// written is accessed as a global, exactly like mindir.get_parameter: loads and
// stores in program order, a load before a call and a store after it when the
// callee writes it; the argument stays (unused) so the signature does not depend
// on what the program writes.

// CHECK:       func.func @Block_construct(%x: tensor<2xf32>, %p: tensor<2xf32>) -> tensor<2xf32>
// CHECK-LABEL: func.func @Net_construct
// CHECK-SAME:    (%x: tensor<2xf32>, %w: tensor<2xf32> {mindjit.global = @w}, %v: tensor<2xf32> {mindjit.global = @v}) -> tensor<2xf32> {
// CHECK:         %a = func.call @Block_construct(%x, %w) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT:    %lv = ml_program.global_load @v : tensor<2xf32>
// CHECK:         %s = linalg.generic {{.*}} ins(%w, %lv : tensor<2xf32>, tensor<2xf32>)
// CHECK:         ml_program.global_store @v = %s : tensor<2xf32>
// CHECK-NEXT:    %[[V:.*]] = ml_program.global_load @v : tensor<2xf32>
// CHECK-NEXT:    %b = func.call @Block_construct(%a, %[[V]])
// CHECK-NEXT:    func.return %b : tensor<2xf32>
mindir.parameter @w = dense<[1.0, 2.0]> : tensor<2xf32>
mindir.parameter @v = dense<[3.0, 4.0]> : tensor<2xf32>
func.func @Block_construct(%x: tensor<2xf32>, %p: !mindir.ref<tensor<2xf32>>, %u: !mindir.u) -> (tensor<2xf32>, !mindir.u) attributes {mindir.lazy_inline = "Block()"} {
  %l = mindir.load %p, %u : tensor<2xf32>
  %y = mindir.mul %x, %l : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return %y, %u : tensor<2xf32>, !mindir.u
}
func.func @Net_construct(%x: tensor<2xf32>, %w: !mindir.ref<tensor<2xf32>> {mindir.parameter = @w}, %v: !mindir.ref<tensor<2xf32>> {mindir.parameter = @v}, %u: !mindir.u) -> (tensor<2xf32>, !mindir.u) {
  %d = mindir.depend %w, %x : !mindir.ref<tensor<2xf32>>, tensor<2xf32>
  %lw = mindir.load %d, %u : tensor<2xf32>
  %a, %u1 = func.call @Block_construct(%x, %w, %u) : (tensor<2xf32>, !mindir.ref<tensor<2xf32>>, !mindir.u) -> (tensor<2xf32>, !mindir.u)
  %lv = mindir.load %v, %u1 : tensor<2xf32>
  %s = mindir.add %lw, %lv : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %n = mindir.assign %v, %s, %u1 : tensor<2xf32>
  %u2 = mindir.update_state %u1, %n : tensor<2xf32>
  %b, %u3 = func.call @Block_construct(%a, %v, %u2) : (tensor<2xf32>, !mindir.ref<tensor<2xf32>>, !mindir.u) -> (tensor<2xf32>, !mindir.u)
  func.return %b, %u3 : tensor<2xf32>, !mindir.u
}

// -----

// Written only by a callee (through its ref argument): a global for the entry too.

// CHECK-LABEL: func.func @Net_construct
// CHECK-SAME:    (%x: tensor<f32>, %c: tensor<f32> {mindjit.global = @c}) -> tensor<f32> {
// CHECK-NEXT:    %[[C:.*]] = ml_program.global_load @c : tensor<f32>
// CHECK-NEXT:    %y, %[[N:.*]] = func.call @Count_construct(%x, %[[C]]) : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
// CHECK-NEXT:    ml_program.global_store @c = %[[N]] : tensor<f32>
// CHECK-NEXT:    func.return %y : tensor<f32>
mindir.parameter @c = dense<0.0> : tensor<f32>
func.func @Count_construct(%x: tensor<f32>, %p: !mindir.ref<tensor<f32>>, %u: !mindir.u) -> (tensor<f32>, !mindir.u) attributes {mindir.lazy_inline = "Count()"} {
  %l = mindir.load %p, %u : tensor<f32>
  %y = mindir.add %x, %l : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %n = mindir.assign %p, %y, %u : tensor<f32>
  %u1 = mindir.update_state %u, %n : tensor<f32>
  func.return %y, %u1 : tensor<f32>, !mindir.u
}
func.func @Net_construct(%x: tensor<f32>, %c: !mindir.ref<tensor<f32>> {mindir.parameter = @c}, %u: !mindir.u) -> (tensor<f32>, !mindir.u) {
  %y, %u1 = func.call @Count_construct(%x, %c, %u) : (tensor<f32>, !mindir.ref<tensor<f32>>, !mindir.u) -> (tensor<f32>, !mindir.u)
  func.return %y, %u1 : tensor<f32>, !mindir.u
}
