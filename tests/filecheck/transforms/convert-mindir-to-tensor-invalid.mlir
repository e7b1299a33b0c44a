// RUN: ms-opt %s -p convert-mindir-to-tensor --verify-diagnostics --split-input-file

// What convert-mindir-to-tensor cannot lower is reported at the op, not half-done.

// A Parameter ref must come from mindir.get_parameter in the same function.

func.func @assign(%p: !mindir.ref<tensor<f32>>, %x: tensor<f32>, %u0: !mindir.u) -> tensor<f32> {
  // expected-error @+1 {{Parameter references passed between graphs are not supported yet: the Parameter of 'mindir.assign' must come from mindir.get_parameter in the same function}}
  %a = mindir.assign %p, %x, %u0 : tensor<f32>
  func.return %a : tensor<f32>
}

// -----

mindir.parameter @w = dense<1.0> : tensor<f32>

func.func @load(%p: !mindir.ref<tensor<f32>>, %u0: !mindir.u) -> tensor<f32> {
  // expected-error @+1 {{Parameter references passed between graphs are not supported yet: the Parameter of 'mindir.load' must come from mindir.get_parameter in the same function}}
  %l = mindir.load %p, %u0 : tensor<f32>
  func.return %l : tensor<f32>
}

func.func @caller(%u0: !mindir.u) -> tensor<f32> {
  %p = mindir.get_parameter @w : !mindir.ref<tensor<f32>>
  %l = func.call @load(%p, %u0) : (!mindir.ref<tensor<f32>>, !mindir.u) -> tensor<f32>
  func.return %l : tensor<f32>
}

// -----

mindir.parameter @w = dense<1.0> : tensor<f32>

func.func @returns_ref() -> !mindir.ref<tensor<f32>> {
  %p = mindir.get_parameter @w : !mindir.ref<tensor<f32>>
  // expected-error @+1 {{Parameter references passed between graphs are not supported yet: 'func.return' passes a Parameter on}}
  func.return %p : !mindir.ref<tensor<f32>>
}

// -----

mindir.parameter @w = dense<1.0> : tensor<f32>

func.func @ref_through_if(%c: tensor<i1>, %u0: !mindir.u) -> tensor<f32> {
  %p = mindir.get_parameter @w : !mindir.ref<tensor<f32>>
  // expected-error @+2 {{Parameter references passed between graphs are not supported yet: 'mindir.yield' passes a Parameter on}}
  %r = mindir.if %c -> (!mindir.ref<tensor<f32>>) {
    mindir.yield %p : !mindir.ref<tensor<f32>>
  } else {
    mindir.yield %p : !mindir.ref<tensor<f32>>
  }
  %l = mindir.load %r, %u0 : tensor<f32>
  func.return %l : tensor<f32>
}

// -----

func.func @unused_ref_argument(%p: !mindir.ref<tensor<f32>>) {
  // expected-error @-1 {{Parameter references passed between graphs are not supported yet: 'func.func' takes or gives a Parameter}}
  func.return
}

// -----

func.func @print_tuple(%x: tensor<f32>, %io0: !mindir.io) -> !mindir.io {
  %t = mindir.make_tuple %x, %x : (tensor<f32>, tensor<f32>) -> tuple<tensor<f32>, tensor<f32>>
  // expected-error @+1 {{'mindir.print' of a value of type tuple<tensor<f32>, tensor<f32>> is not supported yet}}
  %io1 = mindir.print %t, %io0 : tuple<tensor<f32>, tensor<f32>>
  func.return %io1 : !mindir.io
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
