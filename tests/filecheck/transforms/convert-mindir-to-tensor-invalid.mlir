// RUN: ms-opt %s -p convert-mindir-to-tensor --verify-diagnostics --split-input-file

// What convert-mindir-to-tensor cannot lower is reported at the op, not half-done.

func.func @assign(%p: !mindir.ref<tensor<f32>>, %x: tensor<f32>, %u0: !mindir.u) -> tensor<f32> {
  // expected-error @+1 {{'mindir.assign' cannot be lowered by convert-mindir-to-tensor yet: Parameters and side effects are lowered by the side-effect issue}}
  %a = mindir.assign %p, %x, %u0 : tensor<f32>
  func.return %a : tensor<f32>
}

// -----

mindir.parameter @w = dense<1.0> : tensor<f32>

func.func @load(%u0: !mindir.u) -> tensor<f32> {
  // expected-error @+1 {{'mindir.get_parameter' cannot be lowered by convert-mindir-to-tensor yet}}
  %p = mindir.get_parameter @w : !mindir.ref<tensor<f32>>
  %l = mindir.load %p, %u0 : tensor<f32>
  func.return %l : tensor<f32>
}

// -----

func.func @print(%x: tensor<f32>, %io0: !mindir.io) -> !mindir.io {
  // expected-error @+1 {{'mindir.print' cannot be lowered by convert-mindir-to-tensor yet}}
  %io1 = mindir.print %x, %io0 : tensor<f32>
  func.return %io1 : !mindir.io
}

// -----

func.func @status() -> tensor<8xf32> {
  // expected-error @+1 {{'mindir.npu_alloc_float_status' cannot be lowered by convert-mindir-to-tensor yet: Ascend float-status ops}}
  %s = mindir.npu_alloc_float_status : tensor<8xf32>
  func.return %s : tensor<8xf32>
}

// -----

func.func @opaque_tuple(%x: tensor<2xf32>) -> tensor<2xf32> {
  %t = builtin.unrealized_conversion_cast %x : tensor<2xf32> to tuple<tensor<2xf32>>
  // expected-error @+1 {{'mindir.tuple_get_item' cannot be lowered: its tuple is not built by mindir.make_tuple}}
  %e = mindir.tuple_get_item %t {index = 0 : i64} : (tuple<tensor<2xf32>>) -> tensor<2xf32>
  func.return %e : tensor<2xf32>
}

// -----

func.func @tuple_escapes(%x: tensor<2xf32>) -> tensor<2xf32> {
  %t = mindir.make_tuple %x, %x : (tensor<2xf32>, tensor<2xf32>) -> tuple<tensor<2xf32>, tensor<2xf32>>
  // expected-error @+1 {{tuple value cannot be flattened}}
  %y = builtin.unrealized_conversion_cast %t : tuple<tensor<2xf32>, tensor<2xf32>> to tensor<2xf32>
  func.return %y : tensor<2xf32>
}
