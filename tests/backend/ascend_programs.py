"""mindir programs the device tests share (model file and simulator tests)."""

# Assign and Loads of a Parameter (TensorMove), a tensor constant: a non-empty blob.
STATE = """
mindir.parameter @w = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
func.func @step(%x: tensor<3xf32>, %u0: !mindir.u) -> (tensor<3xf32>, tensor<3xf32>, !mindir.u) {
  %k = mindir.constant dense<[0.5, -1.0, 2.0]> : tensor<3xf32>
  %p = mindir.get_parameter @w : !mindir.ref<tensor<3xf32>>
  %l0 = mindir.load %p, %u0 : tensor<3xf32>
  %u1 = mindir.update_state %u0, %l0 : tensor<3xf32>
  %s0 = mindir.mul %x, %k : tensor<3xf32>
  %s = mindir.add %l0, %s0 : tensor<3xf32>
  %a = mindir.assign %p, %s, %u1 : tensor<3xf32>
  %u2 = mindir.update_state %u1, %a : tensor<3xf32>
  %l1 = mindir.load %p, %u2 : tensor<3xf32>
  %u3 = mindir.update_state %u2, %l1 : tensor<3xf32>
  %r = mindir.sub %l1, %l0 : tensor<3xf32>
  func.return %r, %l1, %u3 : tensor<3xf32>, tensor<3xf32>, !mindir.u
}
"""


# A lazy-inline graph kept as a reused sub-sequence: two graphs, calls, bound arguments.
REUSE = """
mindir.parameter @w0 = dense<[0.5, 1.5]> : tensor<2xf32>
mindir.parameter @w1 = dense<[2.0, -1.0]> : tensor<2xf32>
func.func @Block_construct(%x: tensor<2xf32>, %w: !mindir.ref<tensor<2xf32>>, %u0: !mindir.u)
    -> (tensor<2xf32>, !mindir.u) attributes {mindir.lazy_inline = "Block(2)"} {
  %l = mindir.load %w, %u0 : tensor<2xf32>
  %y = mindir.mul %x, %l : tensor<2xf32>
  %z = mindir.tanh %y : tensor<2xf32>
  func.return %z, %u0 : tensor<2xf32>, !mindir.u
}
func.func @Net_construct(%x: tensor<2xf32>, %u0: !mindir.u) -> (tensor<2xf32>, !mindir.u) {
  %w0 = mindir.get_parameter @w0 : !mindir.ref<tensor<2xf32>>
  %w1 = mindir.get_parameter @w1 : !mindir.ref<tensor<2xf32>>
  %h, %u1 = func.call @Block_construct(%x, %w0, %u0)
      : (tensor<2xf32>, !mindir.ref<tensor<2xf32>>, !mindir.u) -> (tensor<2xf32>, !mindir.u)
  %o, %u2 = func.call @Block_construct(%h, %w1, %u1)
      : (tensor<2xf32>, !mindir.ref<tensor<2xf32>>, !mindir.u) -> (tensor<2xf32>, !mindir.u)
  func.return %o, %u2 : tensor<2xf32>, !mindir.u
}
"""


# The float-status builtins (kernels without code) around an f16 multiply.
STATUS = """
func.func @status(%x: tensor<2xf16>) -> (tensor<2xf16>, tensor<8xf32>) {
  %s = mindir.npu_alloc_float_status : tensor<8xf32>
  %s1 = mindir.npu_clear_float_status %s : tensor<8xf32>
  %xd = mindir.depend %x, %s1 : tensor<2xf16>, tensor<8xf32>
  %y = mindir.mul %xd, %xd : tensor<2xf16>
  %sd = mindir.depend %s, %y : tensor<8xf32>, tensor<2xf16>
  %g = mindir.npu_get_float_status %sd : tensor<8xf32>
  func.return %y, %g : tensor<2xf16>, tensor<8xf32>
}
"""


# Tensor level: scf.while with a scalar i32 argument and result (an AI CPU While
# kernel on the device).
SCF_WHILE = """
func.func @f(%x: tensor<2xf32>, %n: i32) -> (tensor<2xf32>, i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r:2 = scf.while (%acc = %x, %i = %c0) : (tensor<2xf32>, i32) -> (tensor<2xf32>, i32) {
    %go = arith.cmpi slt, %i, %n : i32
    scf.condition(%go) %acc, %i : tensor<2xf32>, i32
  } do {
  ^bb0(%acc2: tensor<2xf32>, %i2: i32):
    %e = tensor.empty() : tensor<2xf32>
    %d = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                         iterator_types = ["parallel"]}
        ins(%acc2 : tensor<2xf32>) outs(%e : tensor<2xf32>) {
    ^bb0(%v: f32, %o: f32):
      %w = arith.addf %v, %v : f32
      linalg.yield %w : f32
    } -> tensor<2xf32>
    %j = arith.addi %i2, %c1 : i32
    scf.yield %d, %j : tensor<2xf32>, i32
  }
  func.return %r#0, %r#1 : tensor<2xf32>, i32
}
"""
