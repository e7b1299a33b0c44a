"""A reused (lazy-inline) Block called with different Parameters, threaded as after
mindir-auto-monad: shared by the inline and ref-lowering tests."""

BLOCKS = """
mindir.parameter @w0 = dense<[1.0, 2.0]> : tensor<2xf32>
mindir.parameter @w1 = dense<[0.5, -1.0]> : tensor<2xf32>

func.func @Block_construct(%x: tensor<2xf32>, %w: !mindir.ref<tensor<2xf32>>, %u0: !mindir.u, %io0: !mindir.io) -> (tensor<2xf32>, !mindir.u, !mindir.io) attributes {mindir.lazy_inline = "Block(2)"} {
  %l = mindir.load %w, %u0 : tensor<2xf32>
  %u1 = mindir.update_state %u0, %l : tensor<2xf32>
  %y = mindir.mul %x, %l : tensor<2xf32>
  %z = mindir.tanh %y : tensor<2xf32>
  %n = mindir.add %l, %z : tensor<2xf32>
  %a = mindir.assign %w, %n, %u1 : tensor<2xf32>
  %u2 = mindir.update_state %u1, %a : tensor<2xf32>
  %p = mindir.print %z, %io0 : tensor<2xf32>
  %io1 = mindir.update_state %io0, %p : !mindir.io -> !mindir.io
  func.return %z, %u2, %io1 : tensor<2xf32>, !mindir.u, !mindir.io
}

func.func @Net_construct(%x: tensor<2xf32>, %u0: !mindir.u, %io0: !mindir.io) -> (tensor<2xf32>, !mindir.u, !mindir.io) {
  %w0 = mindir.get_parameter @w0 : !mindir.ref<tensor<2xf32>>
  %w1 = mindir.get_parameter @w1 : !mindir.ref<tensor<2xf32>>
  %h, %u1, %io1 = func.call @Block_construct(%x, %w0, %u0, %io0) : (tensor<2xf32>, !mindir.ref<tensor<2xf32>>, !mindir.u, !mindir.io) -> (tensor<2xf32>, !mindir.u, !mindir.io)
  %o, %u2, %io2 = func.call @Block_construct(%h, %w1, %u1, %io1) : (tensor<2xf32>, !mindir.ref<tensor<2xf32>>, !mindir.u, !mindir.io) -> (tensor<2xf32>, !mindir.u, !mindir.io)
  %h2, %u3, %io3 = func.call @Block_construct(%o, %w0, %u2, %io2) : (tensor<2xf32>, !mindir.ref<tensor<2xf32>>, !mindir.u, !mindir.io) -> (tensor<2xf32>, !mindir.u, !mindir.io)
  func.return %h2, %u3, %io3 : tensor<2xf32>, !mindir.u, !mindir.io
}
"""
