// RUN: ms-opt %s -p convert-mindir-to-tensor --verify-diagnostics --split-input-file

// What convert-mindir-to-tensor cannot lower is reported at the op, not half-done.

// Parameter refs: a graph may take them as arguments (lazy inline), and they may
// be loaded, assigned or passed to a graph call; nothing else.

mindir.parameter @w = dense<1.0> : tensor<f32>

// expected-error @+1 {{@returns_ref returns a Parameter ref: a Parameter ref can only be loaded, assigned, or passed to a graph call (from mindir.get_parameter or a ref argument of the calling graph)}}
func.func @returns_ref() -> !mindir.ref<tensor<f32>> {
  %p = mindir.get_parameter @w : !mindir.ref<tensor<f32>>
  func.return %p : !mindir.ref<tensor<f32>>
}

// -----

mindir.parameter @w = dense<1.0> : tensor<f32>

func.func @ref_through_if(%c: tensor<i1>, %u0: !mindir.u) -> tensor<f32> {
  %p = mindir.get_parameter @w : !mindir.ref<tensor<f32>>
  // expected-error @+1 {{'mindir.if' gives a Parameter ref: a Parameter ref can only be loaded, assigned, or passed to a graph call}}
  %r = mindir.if %c -> (!mindir.ref<tensor<f32>>) {
    mindir.yield %p : !mindir.ref<tensor<f32>>
  } else {
    mindir.yield %p : !mindir.ref<tensor<f32>>
  }
  %l = mindir.load %r, %u0 : tensor<f32>
  func.return %l : tensor<f32>
}

// -----

func.func @ref_carried_by_while(%p: !mindir.ref<tensor<f32>>, %u0: !mindir.u) -> tensor<f32> {
  // expected-error @+1 {{'mindir.while' passes a Parameter ref on: a Parameter ref can only be loaded, assigned, or passed to a graph call}}
  %r = mindir.while (%q = %p) : (!mindir.ref<tensor<f32>>) -> !mindir.ref<tensor<f32>> {
    %c = mindir.constant dense<false> : tensor<i1>
    mindir.condition(%c : tensor<i1>) %q : !mindir.ref<tensor<f32>>
  } do {
  ^bb0(%q2: !mindir.ref<tensor<f32>>):
    mindir.yield %q2 : !mindir.ref<tensor<f32>>
  }
  %l = mindir.load %r, %u0 : tensor<f32>
  func.return %l : tensor<f32>
}

// -----

func.func @ref_to_a_declaration(%p: !mindir.ref<tensor<f32>>) {
  // expected-error @+1 {{'func.call' passes a Parameter ref to @ext, which is not a graph defined in this module (a func.func with a body)}}
  func.call @ext(%p) : (!mindir.ref<tensor<f32>>) -> ()
  func.return
}

func.func private @ext(!mindir.ref<tensor<f32>>) -> ()

// -----

// expected-error @+1 {{@ext is a declaration taking a Parameter ref: only graphs with a body can}}
func.func private @ext(!mindir.ref<tensor<f32>>)

// -----

mindir.parameter @w = dense<1.0> : tensor<f32>

func.func @writes_second(%p: !mindir.ref<tensor<f32>>, %q: !mindir.ref<tensor<f32>>, %x: tensor<f32>, %u0: !mindir.u) -> (tensor<f32>, !mindir.u) {
  %a = mindir.assign %q, %x, %u0 : tensor<f32>
  %u1 = mindir.update_state %u0, %a : tensor<f32>
  func.return %a, %u1 : tensor<f32>, !mindir.u
}

func.func @same_parameter_twice(%x: tensor<f32>, %u0: !mindir.u) -> (tensor<f32>, !mindir.u) {
  %p = mindir.get_parameter @w : !mindir.ref<tensor<f32>>
  // expected-error @+1 {{'func.call' passes Parameter @w as operands 0 and 1 of @writes_second, which writes it: the two writes would race}}
  %r, %u1 = func.call @writes_second(%p, %p, %x, %u0) : (!mindir.ref<tensor<f32>>, !mindir.ref<tensor<f32>>, tensor<f32>, !mindir.u) -> (tensor<f32>, !mindir.u)
  func.return %r, %u1 : tensor<f32>, !mindir.u
}

// -----

func.func @assign_in_execute_region(%p: !mindir.ref<tensor<f32>>, %x: tensor<f32>, %u0: !mindir.u) -> tensor<f32> {
  // expected-error @+1 {{cannot thread the Parameter ref argument %p (#0) of @assign_in_execute_region written inside 'scf.execute_region': only mindir.if and mindir.while can carry it out}}
  %r = scf.execute_region -> tensor<f32> {
    %a = mindir.assign %p, %x, %u0 : tensor<f32>
    scf.yield %a : tensor<f32>
  }
  func.return %r : tensor<f32>
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

// -----

func.func @vmap_left(%a: tensor<5x3xf32>) -> tensor<5x3xf32> {
  // expected-error @+1 {{'mindir.vmap' must be rewritten by mindir-vmap before convert-mindir-to-tensor}}
  %r = mindir.vmap (%x = %a) in_axes [0] out_axes [0] : (tensor<5x3xf32>) -> tensor<5x3xf32> {
    %y = mindir.neg %x : tensor<3xf32>
    mindir.yield %y : tensor<3xf32>
  }
  func.return %r : tensor<5x3xf32>
}

// -----

// apply_momentum / update_moving_stats write their Parameters in place: only
// through get_parameter refs or arguments bound to Parameters (the frontend writes
// the update out inside a reused graph, whose ref arguments the lowering
// functionalizes).

mindir.parameter @w = dense<1.0> : tensor<2xf32>

func.func @shared(%pw: !mindir.ref<tensor<2xf32>>, %g: tensor<2xf32>, %s: tensor<f32>, %u0: !mindir.u) -> (tensor<2xf32>, !mindir.u) {
  // expected-error @+1 {{the Parameters of 'mindir.apply_momentum' must come from mindir.get_parameter or arguments bound to them (not a ref argument of a reused graph)}}
  %v = mindir.apply_momentum %pw, %pw, %s, %g, %s, %u0 : tensor<2xf32>
  %u1 = mindir.update_state %u0, %v : tensor<2xf32>
  func.return %v, %u1 : tensor<2xf32>, !mindir.u
}

func.func @caller(%g: tensor<2xf32>, %s: tensor<f32>, %u0: !mindir.u) -> (tensor<2xf32>, !mindir.u) {
  %pw = mindir.get_parameter @w : !mindir.ref<tensor<2xf32>>
  %v, %u1 = func.call @shared(%pw, %g, %s, %u0) : (!mindir.ref<tensor<2xf32>>, tensor<2xf32>, tensor<f32>, !mindir.u) -> (tensor<2xf32>, !mindir.u)
  func.return %v, %u1 : tensor<2xf32>, !mindir.u
}
