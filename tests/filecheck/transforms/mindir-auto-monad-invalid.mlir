// RUN: ms-opt %s -p mindir-auto-monad --verify-diagnostics --split-input-file

// A graph that already has update_state but does not return its states is partly
// threaded: the pass cannot tell which order was meant.

mindir.parameter @w = dense<1.0> : tensor<f32>

func.func @partly(%x: tensor<f32>, %u0: !mindir.u) -> tensor<f32> {
  %p = mindir.get_parameter @w : !mindir.ref<tensor<f32>>
  %a = mindir.assign %p, %x, %u0 : tensor<f32>
  // expected-error @+1 {{@partly is partly threaded: it has 'mindir.update_state' but does not return its states}}
  %u1 = mindir.update_state %u0, %a : tensor<f32>
  %l = mindir.load %p, %u1 : tensor<f32>
  func.return %l : tensor<f32>
}

// -----

// Every side effect needs the graph's state argument of its kind.

func.func @no_io(%x: tensor<f32>, %u0: !mindir.u) -> tensor<f32> {
  %io = builtin.unrealized_conversion_cast to !mindir.io
  // expected-error @+1 {{'mindir.print' needs a !mindir.io state but @no_io has no !mindir.io argument}}
  %p = mindir.print %x, %io : tensor<f32>
  func.return %x : tensor<f32>
}

// -----

// At most one state of each kind.

// expected-error @+1 {{@two takes two !mindir.u arguments}}
func.func @two(%x: tensor<f32>, %u0: !mindir.u, %u1: !mindir.u) -> tensor<f32> {
  func.return %x : tensor<f32>
}
