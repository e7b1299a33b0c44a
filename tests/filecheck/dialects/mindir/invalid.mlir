// RUN: ms-opt %s --split-input-file --verify-diagnostics

// Verifier errors: each chunk has one wrong op and the error it must produce.

func.func @f(%a: tensor<2x3xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'mindir.add' op shapes are not broadcastable: 2x3, 4}}
  %0 = mindir.add %a, %b : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  func.return
}

// -----

func.func @f(%a: tensor<2x3xf32>, %b: tensor<2x3xi32>) {
  // expected-error @+1 {{operands of mindir.mul must have one element type, got f32, i32}}
  %0 = mindir.mul %a, %b : (tensor<2x3xf32>, tensor<2x3xi32>) -> tensor<2x3xf32>
  func.return
}

// -----

func.func @f(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{result type tensor<3x2xf32> does not match the inferred type tensor<2x3xf32>}}
  %0 = mindir.add %a, %a : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<3x2xf32>
  func.return
}

// -----

func.func @f(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{result type tensor<2x3xf32> does not match the inferred type tensor<2x3xi1>}}
  %0 = mindir.less %a, %a : tensor<2x3xf32>
  func.return
}

// -----

func.func @f(%a: tensor<2x3xi32>) {
  // expected-error @+1 {{mindir.exp needs float elements, got i32}}
  %0 = mindir.exp %a : tensor<2x3xi32>
  func.return
}

// -----

func.func @f(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{mindir.logical_not needs i1 elements, got f32}}
  %0 = mindir.logical_not %a : tensor<2x3xf32>
  func.return
}

// -----

func.func @f(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{mindir.bitwise_and needs integer or i1 elements, got f32}}
  %0 = mindir.bitwise_and %a, %a : tensor<2x3xf32>
  func.return
}

// -----

func.func @f(%a: tensor<2x3xi1>) {
  // expected-error @+1 {{mindir.left_shift needs integer elements, got i1}}
  %0 = mindir.left_shift %a, %a : tensor<2x3xi1>
  func.return
}

// -----

func.func @f(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) {
  // expected-error @+1 {{matmul contraction sizes differ: 3 (lhs) vs 2 (rhs)}}
  %0 = mindir.matmul %a, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return
}

// -----

func.func @f(%a: tensor<3xf32>) {
  // expected-error @+1 {{matmul operands must have rank >= 2, got ranks 1 and 1}}
  %0 = mindir.matmul %a, %a : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  func.return
}

// -----

func.func @f(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{axis 2 is out of range for rank 2}}
  %0 = mindir.reduce_sum %a {axis = array<i64: 2>} : (tensor<2x3xf32>) -> tensor<2xf32>
  func.return
}

// -----

func.func @f(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{cannot reshape 2x3 (6 elements) into 4x2 (8 elements)}}
  %0 = mindir.reshape %a : (tensor<2x3xf32>) -> tensor<4x2xf32>
  func.return
}

// -----

func.func @f(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{perm [0, 0] is not a permutation of the 2 axes}}
  %0 = mindir.transpose %a {perm = array<i64: 0, 0>} : (tensor<2x3xf32>) -> tensor<2x2xf32>
  func.return
}

// -----

func.func @f(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{cannot broadcast 2x3 to 3x3}}
  %0 = mindir.broadcast_to %a : (tensor<2x3xf32>) -> tensor<3x3xf32>
  func.return
}

// -----

func.func @f(%a: tensor<2x3xf32>, %b: tensor<3x3xf32>) {
  // expected-error @+1 {{concat inputs must agree on every axis but 1: 2x3, 3x3}}
  %0 = mindir.concat %a, %b {axis = 1 : i64} : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2x6xf32>
  func.return
}

// -----

func.func @f(%a: tensor<2x3xf32>, %b: tensor<3x3xf32>) {
  // expected-error @+1 {{stack inputs must have one shape: 2x3, 3x3}}
  %0 = mindir.stack %a, %b : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2x2x3xf32>
  func.return
}

// -----

func.func @f(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{unstack of tensor<2x3xf32> along axis 1 gives tensor<2xf32>, not tensor<3xf32>}}
  %0:3 = mindir.unstack %a {axis = 1 : i64} : tensor<2x3xf32> -> tensor<3xf32>
  func.return
}

// -----

func.func @f(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{axis 2 is out of range for rank 2}}
  %0:3 = mindir.unstack %a {axis = 2 : i64} : tensor<2x3xf32> -> tensor<2xf32>
  func.return
}

// -----

func.func @f(%a: tensor<f32>) {
  // expected-error @+1 {{unstack needs an input of rank >= 1, got a scalar tensor}}
  %0 = mindir.unstack %a : tensor<f32> -> tensor<f32>
  func.return
}

// -----

func.func @f(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{unstack of tensor<2x3xf32> along axis 0 has 2 pieces, got 3 results}}
  %0:3 = "mindir.unstack"(%a) <{axis = 0 : i64}> : (tensor<2x3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
  func.return
}

// -----

func.func @f(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{get_item range [0, 4) on axis 1 is outside 0..3}}
  %0 = mindir.get_item %a {starts = array<i64: 0, 0>, limits = array<i64: 2, 4>, strides = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<2x4xf32>
  func.return
}

// -----

func.func @f(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{get_item stride on axis 0 must be positive, got -1}}
  %0 = mindir.get_item %a {starts = array<i64: 0, 0>, limits = array<i64: 2, 3>, strides = array<i64: -1, 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return
}

// -----

func.func @f(%a: tensor<2x3xf32>) {
  %t = mindir.make_tuple %a : (tensor<2x3xf32>) -> tuple<tensor<2x3xf32>>
  // expected-error @+1 {{index 1 is out of range for a tuple of 1 elements}}
  %0 = mindir.tuple_get_item %t {index = 1 : i64} : (tuple<tensor<2x3xf32>>) -> tensor<2x3xf32>
  func.return
}

// -----

func.func @f(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  %t = mindir.make_tuple %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tuple<tensor<2x3xf32>, tensor<3xf32>>
  // expected-error @+1 {{addn elements must all have one type}}
  %0 = mindir.addn %t : (tuple<tensor<2x3xf32>, tensor<3xf32>>) -> tensor<2x3xf32>
  func.return
}

// -----

func.func @f(%c: tensor<2xf32>, %a: tensor<2xf32>) {
  // expected-error @+1 {{select condition must have i1 elements, got f32}}
  %0 = mindir.select %c, %a, %a : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return
}

// -----

func.func @f(%a: tensor<2xf32>) {
  // expected-error @+1 {{cast 'to' must be an integer or float type, got index}}
  %0 = mindir.cast %a {to = index} : (tensor<2xf32>) -> tensor<2xindex>
  func.return
}

// -----

func.func @f(%a: tensor<?xf32>) {
  // expected-error @+1 {{operand #0 must have a static shape, got tensor<?xf32>}}
  %0 = mindir.neg %a : tensor<?xf32>
  func.return
}

// -----

mindir.parameter @w = dense<0.0> : tensor<2xf32>
func.func @f(%u: !mindir.u) {
  // expected-error @+1 {{@w has type tensor<2xf32>, the result is !mindir.ref<tensor<3xf32>>}}
  %p = mindir.get_parameter @w : !mindir.ref<tensor<3xf32>>
  func.return
}

// -----

func.func @f(%u: !mindir.u) {
  // expected-error @+1 {{no mindir.parameter named @missing}}
  %p = mindir.get_parameter @missing : !mindir.ref<tensor<3xf32>>
  func.return
}

// -----

mindir.parameter @w = dense<0.0> : tensor<2xf32>
func.func @f(%u: !mindir.u, %v: tensor<2xi32>) {
  %p = mindir.get_parameter @w : !mindir.ref<tensor<2xf32>>
  // expected-error @+1 {{'mindir.assign' op assigned value has type tensor<2xi32>, the Parameter is tensor<2xf32>}}
  %a = "mindir.assign"(%p, %v, %u) : (!mindir.ref<tensor<2xf32>>, tensor<2xi32>, !mindir.u) -> tensor<2xf32>
  func.return
}

// -----

func.func @f(%c: tensor<2xi1>, %x: tensor<f32>) {
  // expected-error @+1 {{condition must be tensor<i1>, got tensor<2xi1>}}
  %r = mindir.if %c -> (tensor<f32>) {
    mindir.yield %x : tensor<f32>
  } else {
    mindir.yield %x : tensor<f32>
  }
  func.return
}

// -----

func.func @f(%c: tensor<i1>, %x: tensor<f32>, %y: tensor<2xf32>) {
  // expected-error @+1 {{else region yield types (tensor<2xf32>) do not match (tensor<f32>)}}
  %r = mindir.if %c -> (tensor<f32>) {
    mindir.yield %x : tensor<f32>
  } else {
    mindir.yield %y : tensor<2xf32>
  }
  func.return
}

// -----

func.func @f(%x: tensor<f32>, %y: tensor<2xf32>) {
  // expected-error @+1 {{body yield types (tensor<2xf32>) do not match (tensor<f32>)}}
  %w = mindir.while (%i = %x) : (tensor<f32>) -> tensor<f32> {
    %c = mindir.less %i, %i : (tensor<f32>, tensor<f32>) -> tensor<i1>
    mindir.condition(%c : tensor<i1>) %i : tensor<f32>
  } do {
  ^bb0(%j: tensor<f32>):
    mindir.yield %y : tensor<2xf32>
  }
  func.return
}

// -----

func.func @f(%s: tensor<4xf32>) {
  // expected-error @+1 {{status operand must be tensor<8xf32>, got tensor<4xf32>}}
  %0 = mindir.npu_get_float_status %s : tensor<4xf32>
  func.return
}

// -----

func.func @f(%a: tensor<2xf32>) {
  // expected-error @+1 {{use of undefined value %missing}}
  %0 = mindir.add %a, %missing : tensor<2xf32>
  func.return
}

// -----

func.func @f(%a: tensor<2xf32>) {
  // expected-error @+1 {{Operation mindir.frobnicate is not registered}}
  %0 = mindir.frobnicate %a : tensor<2xf32>
  func.return
}

// -----

func.func @f(%a: tensor<2xf32>, %io: !mindir.io) {
  // expected-error @+1 {{format index 3 is out of range for 1 values}}
  %0 = mindir.print %a, %io {format = ["x: ", 3]} : tensor<2xf32>
  func.return
}

// -----

// expected-error @+1 {{mindir.parameter expects a dense<...> or dense_resource<...> : tensor<...> initial value}}
mindir.parameter @w = 1.0 : f32

// -----

// expected-error @+1 {{mindir.parameter expects a dense<...> or dense_resource<...> : tensor<...> initial value}}
mindir.parameter @w = dense_resource<w_blob> : vector<2xf32>

// -----

// expected-error @+1 {{'mindir.parameter' op initial value has type tensor<3xf32>, the Parameter has tensor<2xf32>}}
"mindir.parameter"() <{sym_name = "w", type = tensor<2xf32>, initial_value = dense_resource<w_blob> : tensor<3xf32>}> : () -> ()

// -----

// expected-error @+1 {{'mindir.parameter' op Unexpected attribute 1.000000e+00 : f32}}
"mindir.parameter"() <{sym_name = "w", type = tensor<2xf32>, initial_value = 1.0 : f32}> : () -> ()

// -----

func.func @vmap_sizes(%a: tensor<5x3xf32>, %b: tensor<4x3xf32>) {
  // expected-error @+1 {{batched inputs disagree on the batch size: [4, 5]}}
  %r = mindir.vmap (%x = %a, %y = %b) in_axes [0, 0] out_axes [0] : (tensor<5x3xf32>, tensor<4x3xf32>) -> tensor<5x3xf32> {
    mindir.yield %x : tensor<3xf32>
  }
  func.return
}

// -----

func.func @vmap_nothing_batched(%a: tensor<3xf32>) {
  // expected-error @+1 {{needs at least one batched input}}
  %r = mindir.vmap (%x = %a) in_axes [none] out_axes [0] : (tensor<3xf32>) -> tensor<1x3xf32> {
    mindir.yield %x : tensor<3xf32>
  }
  func.return
}

// -----

func.func @vmap_axis(%a: tensor<5x3xf32>) {
  // expected-error @+1 {{in_axes[0] = 2 is out of range for rank 2}}
  %r = mindir.vmap (%x = %a) in_axes [2] out_axes [0] : (tensor<5x3xf32>) -> tensor<5x3xf32> {
    mindir.yield %x : tensor<5x3xf32>
  }
  func.return
}

// -----

func.func @vmap_result(%a: tensor<5x3xf32>) {
  // expected-error @+1 {{result 0 is tensor<3x5xf32>, expected tensor<5x3xf32>}}
  %r = mindir.vmap (%x = %a) in_axes [0] out_axes [0] : (tensor<5x3xf32>) -> tensor<3x5xf32> {
    mindir.yield %x : tensor<3xf32>
  }
  func.return
}

// -----

func.func @vmap_out_axis(%a: tensor<5x3xf32>) {
  // expected-error @+1 {{out_axes[0] = 2 is out of range for a per-example rank of 1}}
  %r = mindir.vmap (%x = %a) in_axes [0] out_axes [2] : (tensor<5x3xf32>) -> tensor<3x5xf32> {
    mindir.yield %x : tensor<3xf32>
  }
  func.return
}

// -----

func.func @vmap_out_axis_none(%a: tensor<5x3xf32>) {
  // expected-error @+1 {{result 0 is tensor<5x3xf32>, expected tensor<3xf32>}}
  %r = mindir.vmap (%x = %a) in_axes [0] out_axes [none] : (tensor<5x3xf32>) -> tensor<5x3xf32> {
    mindir.yield %x : tensor<3xf32>
  }
  func.return
}

// -----

func.func @f(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{result type tensor<2xf32> does not match the piece type tensor<3xf32>}}
  %0:2 = "mindir.unstack"(%a) <{axis = 0 : i64}> : (tensor<2x3xf32>) -> (tensor<3xf32>, tensor<2xf32>)
  func.return
}

// -----

func.func @f(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{property 'axis' must be an integer, got "x"}}
  %0:2 = mindir.unstack %a {axis = "x"} : tensor<2x3xf32> -> tensor<3xf32>
  func.return
}

// -----

func.func @grad_wrt_range(%a: tensor<3xf32>) {
  // expected-error @+1 {{wrt index 1 is out of range for 1 inputs}}
  %g = mindir.grad (%x = %a) wrt [1] weights [] : (tensor<3xf32>) -> tensor<3xf32> {
    %s = mindir.reduce_sum %x : (tensor<3xf32>) -> tensor<f32>
    mindir.yield %s : tensor<f32>
  }
  func.return
}

// -----

func.func @grad_result_type(%a: tensor<3xf32>) {
  // expected-error @+1 {{result 0 is tensor<4xf32>, expected tensor<3xf32>}}
  %g = mindir.grad (%x = %a) wrt [0] weights [] : (tensor<3xf32>) -> tensor<4xf32> {
    %s = mindir.reduce_sum %x : (tensor<3xf32>) -> tensor<f32>
    mindir.yield %s : tensor<f32>
  }
  func.return
}

// -----

func.func @grad_sens_type(%a: tensor<3xf32>, %s: tensor<3xf32>) {
  // expected-error @+1 {{sens types (tensor<3xf32>) are not the differentiated output types (tensor<f32>)}}
  %g = mindir.grad (%x = %a) sens (%s) wrt [0] weights [] : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32> {
    %t = mindir.reduce_sum %x : (tensor<3xf32>) -> tensor<f32>
    mindir.yield %t : tensor<f32>
  }
  func.return
}

// -----

func.func @grad_all_aux(%a: tensor<3xf32>) {
  // expected-error @+1 {{at least one output must be differentiated}}
  %g = mindir.grad (%x = %a) wrt [0] weights [] aux 1 : (tensor<3xf32>) -> tensor<3xf32> {
    %t = mindir.reduce_sum %x : (tensor<3xf32>) -> tensor<f32>
    mindir.yield %t : tensor<f32>
  }
  func.return
}

// -----

func.func @f(%a: tensor<2xi32>) {
  // expected-error @+1 {{'mindir.check_range' op mindir.check_range needs float elements, got i32}}
  %0 = mindir.check_range %a {min = 0.0 : f64, max = 1.0 : f64, message = "m"} : tensor<2xi32>
  func.return
}

// -----

func.func @f(%a: tensor<2xf32>) {
  // expected-error @+1 {{'mindir.check_range' op min (1.0) must not be greater than max (0.0)}}
  %0 = mindir.check_range %a {min = 1.0 : f64, max = 0.0 : f64, message = "m"} : tensor<2xf32>
  func.return
}

// -----

func.func @f(%a: tensor<2xf32>) {
  // expected-error @+1 {{'mindir.check_range' op property 'max' must be an f64 float, got 1.000000e+00 : f32}}
  %0 = mindir.check_range %a {min = 0.0 : f64, max = 1.0 : f32, message = "m"} : tensor<2xf32>
  func.return
}

// -----

func.func @f(%a: tensor<2xf32>) {
  // expected-error @+1 {{'mindir.check_range' op property 'min' must not be NaN}}
  %0 = mindir.check_range %a {min = 0x7ff8000000000000 : f64, max = 1.0 : f64, message = "m"} : tensor<2xf32>
  func.return
}

// -----

func.func @f(%a: tensor<2xf32>) {
  // expected-error @+1 {{'mindir.check_range' op result type tensor<3xf32> does not match the inferred type tensor<2xf32>}}
  %0 = mindir.check_range %a {min = 0.0 : f64, max = 1.0 : f64, message = "m"} : (tensor<2xf32>) -> tensor<3xf32>
  func.return
}

// -----

func.func @f(%a: tensor<2xf32>) {
  // expected-error @+1 {{'mindir.check_range' op property 'message' expected in operation 'mindir.check_range'}}
  %0 = "mindir.check_range"(%a) <{min = 0.0 : f64, max = 1.0 : f64}> : (tensor<2xf32>) -> tensor<2xf32>
  func.return
}

// -----

func.func @grad_weight_twice(%a: tensor<3xf32>) {
  // expected-error @+1 {{weights list a Parameter twice: ['w', 'w']}}
  %g:3 = mindir.grad (%x = %a) wrt [0] weights [@w, @w] : (tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
    %t = mindir.reduce_sum %x : (tensor<3xf32>) -> tensor<f32>
    mindir.yield %t : tensor<f32>
  }
  func.return
}

// -----

func.func @grad_state_not_last(%a: tensor<3xf32>, %u: !mindir.u) {
  // expected-error @+1 {{states must be the last values the region yields}}
  %g:2 = mindir.grad (%x = %a) wrt [0] weights [] : (tensor<3xf32>) -> (tensor<3xf32>, !mindir.u) {
    %t = mindir.reduce_sum %x : (tensor<3xf32>) -> tensor<f32>
    mindir.yield %u, %t, %u : !mindir.u, tensor<f32>, !mindir.u
  }
  func.return
}

// -----

func.func @f(%x: tensor<2x4x8x8xf32>, %w: tensor<6x4x3x3xf32>) {
  // expected-error @+1 {{mindir.conv2d group 4 must divide the input channels (4) and the output channels (6)}}
  %y = mindir.conv2d %x, %w {group = 4 : i64} : (tensor<2x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<2x6x6x6xf32>
  func.return
}

// -----

func.func @f(%x: tensor<2x4x8x8xf32>, %w: tensor<6x2x3x3xf32>) {
  // expected-error @+1 {{mindir.conv2d weight has 2 input channels, expected 4 / group 1 = 4}}
  %y = mindir.conv2d %x, %w : (tensor<2x4x8x8xf32>, tensor<6x2x3x3xf32>) -> tensor<2x6x6x6xf32>
  func.return
}

// -----

func.func @f(%x: tensor<2x4x4x4xf32>, %w: tensor<6x4x5x5xf32>) {
  // expected-error @+1 {{mindir.conv2d: the window (5 taps, dilation 1) is larger than the padded input (4 + 0 + 0) on spatial axis 0}}
  %y = mindir.conv2d %x, %w : (tensor<2x4x4x4xf32>, tensor<6x4x5x5xf32>) -> tensor<2x6x1x1xf32>
  func.return
}

// -----

func.func @f(%x: tensor<2x4x8xf32>) {
  // expected-error @+1 {{mindir.max_pool2d input must be 4-d (NCHW), got tensor<2x4x8xf32>}}
  %y = mindir.max_pool2d %x {kernel = array<i64: 2, 2>} : (tensor<2x4x8xf32>) -> tensor<2x4x4xf32>
  func.return
}

// -----

func.func @f(%x: tensor<2x4x8x8xi32>) {
  // expected-error @+1 {{mindir.avg_pool2d needs float elements, got i32}}
  %y = mindir.avg_pool2d %x {kernel = array<i64: 2, 2>} : (tensor<2x4x8x8xi32>) -> tensor<2x4x7x7xi32>
  func.return
}

// -----

func.func @f(%x: tensor<2x4x8x8xf32>) {
  // expected-error @+1 {{mindir.max_pool2d 'stride' must be two positive integers, got [0, 1]}}
  %y = mindir.max_pool2d %x {kernel = array<i64: 2, 2>, stride = array<i64: 0, 1>} : (tensor<2x4x8x8xf32>) -> tensor<2x4x7x7xf32>
  func.return
}

// -----

func.func @f(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{mindir.pad needs low, high and interior for each of the 2 axes}}
  %y = mindir.pad %x {low = array<i64: 1>, high = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<4x5xf32>
  func.return
}

// -----

func.func @f(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{mindir.pad crops more than axis 0 has (2)}}
  %y = mindir.pad %x {low = array<i64: -2, 0>, high = array<i64: -1, 0>} : (tensor<2x3xf32>) -> tensor<0x3xf32>
  func.return
}

// -----

func.func @f(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{mindir.reverse axis must be increasing, distinct axes of 0..1, got [1, 1]}}
  %y = mindir.reverse %x {axis = array<i64: 1, 1>} : tensor<2x3xf32>
  func.return
}

// -----

func.func @f(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{axis 2 is out of range for rank 2}}
  %y = mindir.argmax %x {axis = 2 : i64} : (tensor<2x3xf32>) -> tensor<2xi32>
  func.return
}

// -----

func.func @f(%x: tensor<f32>) {
  // expected-error @+1 {{mindir.argmin needs an input of rank >= 1, got tensor<f32>}}
  %y = mindir.argmin %x {axis = 0 : i64} : (tensor<f32>) -> tensor<i32>
  func.return
}

// -----

func.func @f(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{mindir.argmax index_type must be i32 or i64, got i16}}
  %y = mindir.argmax %x {index_type = i16} : (tensor<2x3xf32>) -> tensor<2xi16>
  func.return
}

// -----

func.func @f(%x: tensor<2x3xi1>) {
  // expected-error @+1 {{mindir.argmax needs int or float elements, got i1}}
  %y = mindir.argmax %x : (tensor<2x3xi1>) -> tensor<2xi32>
  func.return
}

// -----

func.func @f(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{result type tensor<3xi32> does not match the inferred type tensor<2xi32>}}
  %y = mindir.argmax %x : (tensor<2x3xf32>) -> tensor<3xi32>
  func.return
}

// -----

func.func @f(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{axis -3 is out of range for rank 2}}
  %v, %i = mindir.sort %x {axis = -3 : i64} : tensor<2x3xf32> -> (tensor<2x3xf32>, tensor<2x3xi32>)
  func.return
}

// -----

func.func @f(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{result types (tensor<2x3xf32>, tensor<2x3xi64>) do not match the inferred types (tensor<2x3xf32>, tensor<2x3xi32>)}}
  %v, %i = mindir.sort %x : tensor<2x3xf32> -> (tensor<2x3xf32>, tensor<2x3xi64>)
  func.return
}

// -----

func.func @f(%x: tensor<i32>) {
  // expected-error @+1 {{mindir.sort needs an input of rank >= 1, got tensor<i32>}}
  %v, %i = mindir.sort %x : tensor<i32> -> (tensor<i32>, tensor<i32>)
  func.return
}

// -----

func.func @f(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{axis 2 is out of range for rank 2}}
  %y = mindir.cumsum %x {axis = 2 : i64} : tensor<2x3xf32>
  func.return
}

// -----

func.func @f(%x: tensor<f32>) {
  // expected-error @+1 {{mindir.cumprod needs an input of rank >= 1, got tensor<f32>}}
  %y = mindir.cumprod %x : tensor<f32>
  func.return
}

// -----

func.func @f(%x: tensor<3xi1>) {
  // expected-error @+1 {{mindir.cumsum needs int or float elements, got i1}}
  %y = mindir.cumsum %x : tensor<3xi1>
  func.return
}

// -----

func.func @f(%x: tensor<2x3xf32>, %i: tensor<4xi32>) {
  // expected-error @+1 {{mindir.gather axis must be in [0, 2) for params of rank 2, got 2}}
  %y = "mindir.gather"(%x, %i) <{axis = 2 : i64}> : (tensor<2x3xf32>, tensor<4xi32>) -> tensor<2x3x4xf32>
  func.return
}

// -----

func.func @f(%x: tensor<2x3xf32>, %i: tensor<4xf32>) {
  // expected-error @+1 {{mindir.gather indices must have integer elements, got f32}}
  %y = mindir.gather %x, %i : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<4x3xf32>
  func.return
}

// -----

func.func @f(%x: tensor<2x3xf32>, %i: tensor<4xi32>) {
  // expected-error @+1 {{result type tensor<4x2xf32> does not match the inferred type tensor<4x3xf32>}}
  %y = mindir.gather %x, %i : (tensor<2x3xf32>, tensor<4xi32>) -> tensor<4x2xf32>
  func.return
}

// -----

func.func @f(%x: tensor<2x3xf32>, %i: tensor<3xi32>) {
  // expected-error @+1 {{mindir.unsorted_segment_sum segment_ids shape [3] must be a prefix of the input shape [2, 3]}}
  %y = mindir.unsorted_segment_sum %x, %i {num_segments = 4 : i64} : (tensor<2x3xf32>, tensor<3xi32>) -> tensor<4x3xf32>
  func.return
}

// -----

func.func @f(%x: tensor<2x3xf32>, %i: tensor<2xi32>) {
  // expected-error @+1 {{mindir.unsorted_segment_sum num_segments must be positive, got 0}}
  %y = mindir.unsorted_segment_sum %x, %i {num_segments = 0 : i64} : (tensor<2x3xf32>, tensor<2xi32>) -> tensor<0x3xf32>
  func.return
}

// -----

func.func @f(%k: tensor<i64>, %o: tensor<i32>) {
  // expected-error @+1 {{mindir.uniform_real key must be a tensor<i32> scalar, got tensor<i64>}}
  %u = mindir.uniform_real %k, %o {seed = 0 : i64, seed2 = 0 : i64, shape = array<i64: 2>} : (tensor<i64>, tensor<i32>) -> tensor<2xf32>
  func.return
}

// -----

func.func @f(%k: tensor<i32>, %o: tensor<2xi32>) {
  // expected-error @+1 {{mindir.uniform_real offset must be a tensor<i32> scalar, got tensor<2xi32>}}
  %u = mindir.uniform_real %k, %o {seed = 0 : i64, seed2 = 0 : i64, shape = array<i64: 2>} : (tensor<i32>, tensor<2xi32>) -> tensor<2xf32>
  func.return
}

// -----

func.func @f(%k: tensor<i32>, %o: tensor<i32>) {
  // expected-error @+1 {{property 'seed2' must be >= 0, got -1}}
  %u = mindir.uniform_real %k, %o {seed = 0 : i64, seed2 = -1 : i64, shape = array<i64: 2>} : (tensor<i32>, tensor<i32>) -> tensor<2xf32>
  func.return
}

// -----

func.func @f(%k: tensor<i32>, %o: tensor<i32>) {
  // expected-error @+1 {{result type tensor<3xf32> does not match the inferred type tensor<2xf32>}}
  %u = mindir.uniform_real %k, %o {seed = 0 : i64, seed2 = 0 : i64, shape = array<i64: 2>} : (tensor<i32>, tensor<i32>) -> tensor<3xf32>
  func.return
}

// -----

func.func @f(%a: tensor<2x3xi32>) {
  // expected-error @+1 {{mindir.atan2 needs float elements, got i32}}
  %0 = mindir.atan2 %a, %a : tensor<2x3xi32>
  func.return
}

// -----

func.func @f(%a: tensor<2x3xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{shapes are not broadcastable: 2x3, 4}}
  %0 = mindir.atan2 %a, %b : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  func.return
}

// -----

func.func @f(%a: tensor<2x3xi32>) {
  // expected-error @+1 {{mindir.sigmoid_grad needs float elements, got i32}}
  %0 = mindir.sigmoid_grad %a, %a : tensor<2x3xi32>
  func.return
}

// -----

func.func @f(%a: tensor<2x3xf32>, %b: tensor<2x3xf16>) {
  // expected-error @+1 {{operands of mindir.sigmoid_grad must have one element type, got f32, f16}}
  %0 = mindir.sigmoid_grad %a, %b : (tensor<2x3xf32>, tensor<2x3xf16>) -> tensor<2x3xf32>
  func.return
}

// -----

func.func @f(%a: tensor<2x3xi1>) {
  // expected-error @+1 {{mindir.tanh_grad needs float elements, got i1}}
  %0 = mindir.tanh_grad %a, %a : tensor<2x3xi1>
  func.return
}

// -----

func.func @f(%a: tensor<2x3xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{shapes are not broadcastable: 2x3, 4}}
  %0 = mindir.tanh_grad %a, %b : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  func.return
}

// -----

func.func @f(%a: tensor<3xi32>) {
  // expected-error @+1 {{mindir.log1p needs float elements, got i32}}
  %0 = mindir.log1p %a : tensor<3xi32>
  func.return
}

// -----

func.func @f(%a: tensor<2xf32>, %io: !mindir.io) {
  // expected-error @+1 {{sr_tag must be >= 0, got -1}}
  %0 = mindir.send %a, %io {sr_tag = -1 : i64, dest_rank = 1 : i64} : tensor<2xf32>
  func.return
}

// -----

func.func @f(%a: tensor<2xf32>, %io: !mindir.io) {
  // expected-error @+1 {{dest_rank must be >= 0, got -2}}
  %0 = mindir.send %a, %io {sr_tag = 0 : i64, dest_rank = -2 : i64} : tensor<2xf32>
  func.return
}

// -----

func.func @f(%io: !mindir.io) {
  // expected-error @+1 {{src_rank must be >= 0, got -1}}
  %y, %0 = mindir.receive %io {sr_tag = 0 : i64, src_rank = -1 : i64} : tensor<2xf32>
  func.return
}

// -----

func.func @f(%io: !mindir.io) {
  // expected-error @+1 {{the received tensor must have a static shape, got tensor<?xf32>}}
  %y, %0 = mindir.receive %io {sr_tag = 0 : i64, src_rank = 0 : i64} : tensor<?xf32>
  func.return
}

// -----

// A Load without its memory state says which operand is missing (issue 27).

mindir.parameter @p = dense<1.0> : tensor<3xf32>
func.func @load_without_state(%u0: !mindir.u) -> tensor<3xf32> {
  %pw = mindir.get_parameter @p : !mindir.ref<tensor<3xf32>>
  // expected-error @+1 {{mindir.load takes the Parameter's ref and a `!mindir.u` state (2 operands), got 1: the last operand is the memory state}}
  %w = mindir.load %pw : tensor<3xf32>
  func.return %w : tensor<3xf32>
}

// -----

mindir.parameter @p = dense<1.0> : tensor<3xf32>
func.func @assign_without_state(%v: tensor<3xf32>) -> tensor<3xf32> {
  %pw = mindir.get_parameter @p : !mindir.ref<tensor<3xf32>>
  // expected-error @+1 {{mindir.assign takes the Parameter's ref, the value and a `!mindir.u` state (3 operands), got 2: the last operand is the memory state}}
  %w = mindir.assign %pw, %v : tensor<3xf32>
  func.return %w : tensor<3xf32>
}

// -----

func.func @f() {
  // expected-error @+1 {{a stack is a tensor<?x...> with a static shape after the '?', got tensor<?x?xf32>}}
  %s = mindir.stack_new : tensor<?x?xf32>
  func.return
}

// -----

func.func @f() {
  // expected-error @+1 {{a stack is a tensor<?x...> with a static shape after the '?', got tensor<4x3xf32>}}
  %s = mindir.stack_new : tensor<4x3xf32>
  func.return
}

// -----

func.func @f(%s: tensor<?x3xf32>, %k: tensor<i64>, %x: tensor<4xf32>) {
  // expected-error @+1 {{pushing a tensor<4xf32> onto a stack of tensor<3xf32>}}
  %t = mindir.stack_push %s, %k, %x : (tensor<?x3xf32>, tensor<i64>, tensor<4xf32>) -> tensor<?x3xf32>
  func.return
}

// -----

func.func @f(%s: tensor<?x3xf32>, %k: tensor<i64>, %x: tensor<3xi32>) {
  // expected-error @+1 {{pushing a tensor<3xi32> onto a stack of tensor<3xf32>}}
  %t = mindir.stack_push %s, %k, %x : (tensor<?x3xf32>, tensor<i64>, tensor<3xi32>) -> tensor<?x3xf32>
  func.return
}

// -----

func.func @f(%s: tensor<?x3xf32>, %k: tensor<1xi64>) {
  // expected-error @+1 {{a stack index is a 0-d integer tensor (or one per example of the items' first dimension), got tensor<1xi64>}}
  %x = mindir.stack_read %s, %k : (tensor<?x3xf32>, tensor<1xi64>) -> tensor<3xf32>
  func.return
}

// -----

func.func @f(%s: tensor<?x3xf32>, %k: tensor<f32>) {
  // expected-error @+1 {{a stack index is a 0-d integer tensor (or one per example of the items' first dimension), got tensor<f32>}}
  %x = mindir.stack_read %s, %k : (tensor<?x3xf32>, tensor<f32>) -> tensor<3xf32>
  func.return
}

// -----

func.func @f(%s: tensor<5x3xf32>, %k: tensor<i64>) {
  // expected-error @+1 {{a stack is a tensor<?x...> with a static shape after the '?', got tensor<5x3xf32>}}
  %x = mindir.stack_read %s, %k : (tensor<5x3xf32>, tensor<i64>) -> tensor<3xf32>
  func.return
}

// -----

func.func @f(%x: tensor<2x3xf32>, %g: tensor<2xf32>) {
  // expected-error @+1 {{mindir.batch_norm gamma must be tensor<3xf32> (the input's channels, axis 1), got tensor<2xf32>}}
  %y, %m, %v = mindir.batch_norm %x, %g, %g {epsilon = 1.0e-05 : f64} : (tensor<2x3xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>)
  func.return
}

// -----

func.func @f(%x: tensor<3xf32>) {
  // expected-error @+1 {{mindir.batch_norm needs an input of rank >= 2, got tensor<3xf32>}}
  %y, %m, %v = mindir.batch_norm %x, %x, %x {epsilon = 1.0e-05 : f64} : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
  func.return
}

// -----

func.func @f(%x: tensor<2x3xf32>, %g: tensor<3xf32>) {
  // expected-error @+1 {{mindir.batch_norm epsilon must be a non-negative f64, got -1.000000e+00 : f64}}
  %y, %m, %v = mindir.batch_norm %x, %g, %g {epsilon = -1.0 : f64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>)
  func.return
}

// -----

func.func @f(%x: tensor<2x3xf32>, %g: tensor<3xf32>) {
  // expected-error @+1 {{result types (tensor<2x3xf32>, tensor<3xf32>, tensor<2xf32>) do not match the inferred types (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>)}}
  %y, %m, %v = mindir.batch_norm %x, %g, %g {epsilon = 1.0e-05 : f64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<2xf32>)
  func.return
}

// -----

func.func @f(%x: tensor<2x3xf32>, %dy: tensor<2x4xf32>, %g: tensor<3xf32>) {
  // expected-error @+1 {{mindir.batch_norm_grad dy must be tensor<2x3xf32> (the input's type), got tensor<2x4xf32>}}
  %dx, %dg, %db = mindir.batch_norm_grad %dy, %x, %g, %g, %g {epsilon = 1.0e-05 : f64} : (tensor<2x4xf32>, tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>)
  func.return
}

// -----

func.func @f(%x: tensor<2x3xi32>, %g: tensor<3xi32>) {
  // expected-error @+1 {{mindir.batch_norm_grad needs float elements, got i32}}
  %dx, %dg, %db = mindir.batch_norm_grad %x, %x, %g, %g, %g {epsilon = 1.0e-05 : f64} : (tensor<2x3xi32>, tensor<2x3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32>) -> (tensor<2x3xi32>, tensor<3xi32>, tensor<3xi32>)
  func.return
}

// -----

mindir.parameter @w = dense<1.0> : tensor<2xf32>
mindir.parameter @m = dense<0.0> : tensor<3xf32>
func.func @apply_momentum_accumulation_type(%g: tensor<2xf32>, %s: tensor<f32>, %u: !mindir.u) {
  %pw = mindir.get_parameter @w : !mindir.ref<tensor<2xf32>>
  %pm = mindir.get_parameter @m : !mindir.ref<tensor<3xf32>>
  // expected-error @+1 {{'mindir.apply_momentum' op accumulation has type tensor<3xf32>, the variable tensor<2xf32>}}
  %v = "mindir.apply_momentum"(%pw, %pm, %s, %g, %s, %u) : (!mindir.ref<tensor<2xf32>>, !mindir.ref<tensor<3xf32>>, tensor<f32>, tensor<2xf32>, tensor<f32>, !mindir.u) -> tensor<2xf32>
  func.return
}

// -----

mindir.parameter @w = dense<1.0> : tensor<2xf32>
func.func @apply_momentum_rate_shape(%g: tensor<2xf32>, %s: tensor<f32>, %r: tensor<2xf32>, %u: !mindir.u) {
  %pw = mindir.get_parameter @w : !mindir.ref<tensor<2xf32>>
  // expected-error @+1 {{'mindir.apply_momentum' op learning rate must be a tensor<f32>, got tensor<2xf32>}}
  %v = "mindir.apply_momentum"(%pw, %pw, %r, %g, %s, %u) : (!mindir.ref<tensor<2xf32>>, !mindir.ref<tensor<2xf32>>, tensor<2xf32>, tensor<2xf32>, tensor<f32>, !mindir.u) -> tensor<2xf32>
  func.return
}

// -----

mindir.parameter @w = dense<1.0> : tensor<2xf32>
func.func @apply_momentum_gradient_type(%g: tensor<3xf32>, %s: tensor<f32>, %u: !mindir.u) {
  %pw = mindir.get_parameter @w : !mindir.ref<tensor<2xf32>>
  // expected-error @+1 {{'mindir.apply_momentum' op gradient has type tensor<3xf32>, the variable tensor<2xf32>}}
  %v = "mindir.apply_momentum"(%pw, %pw, %s, %g, %s, %u) : (!mindir.ref<tensor<2xf32>>, !mindir.ref<tensor<2xf32>>, tensor<f32>, tensor<3xf32>, tensor<f32>, !mindir.u) -> tensor<2xf32>
  func.return
}

// -----

mindir.parameter @w = dense<1.0> : tensor<2xf32>
func.func @apply_momentum_without_state(%g: tensor<2xf32>, %s: tensor<f32>) {
  %pw = mindir.get_parameter @w : !mindir.ref<tensor<2xf32>>
  // expected-error @+1 {{mindir.apply_momentum takes the variable's and the accumulation's refs, the learning rate, the gradient, the momentum and a `!mindir.u` state (6 operands), got 5: the last operand is the memory state}}
  %v = mindir.apply_momentum %pw, %pw, %s, %g, %s : tensor<2xf32>
  func.return
}

// -----

mindir.parameter @rm = dense<0.0> : tensor<3xf32>
func.func @moving_stats_count(%b: tensor<3xf32>, %u: !mindir.u) {
  %p = mindir.get_parameter @rm : !mindir.ref<tensor<3xf32>>
  // expected-error @+1 {{'mindir.update_moving_stats' op needs a 'count' attribute, an integer >= 2}}
  %n = mindir.update_moving_stats %p, %p, %b, %b, %u {momentum = 0.1 : f64, count = 1 : i64} : tensor<3xf32>
  func.return
}

// -----

mindir.parameter @rm = dense<0.0> : tensor<3xf32>
func.func @moving_stats_momentum(%b: tensor<3xf32>, %u: !mindir.u) {
  %p = mindir.get_parameter @rm : !mindir.ref<tensor<3xf32>>
  // expected-error @+1 {{'mindir.update_moving_stats' op needs a 'momentum' attribute, a float in [0, 1]}}
  %n = mindir.update_moving_stats %p, %p, %b, %b, %u {momentum = 1.5 : f64, count = 4 : i64} : tensor<3xf32>
  func.return
}

// -----

mindir.parameter @rm = dense<0.0> : tensor<3xf32>
func.func @moving_stats_batch_type(%b: tensor<3xf32>, %c: tensor<4xf32>, %u: !mindir.u) {
  %p = mindir.get_parameter @rm : !mindir.ref<tensor<3xf32>>
  // expected-error @+1 {{'mindir.update_moving_stats' op batch variance has type tensor<4xf32>, the mean tensor<3xf32>}}
  %n = "mindir.update_moving_stats"(%p, %p, %b, %c, %u) {momentum = 0.1 : f64, count = 4 : i64} : (!mindir.ref<tensor<3xf32>>, !mindir.ref<tensor<3xf32>>, tensor<3xf32>, tensor<4xf32>, !mindir.u) -> tensor<3xf32>
  func.return
}

// -----

mindir.parameter @w = dense<1.0> : tensor<2xf32>
func.func @adam_beta(%g: tensor<2xf32>, %s: tensor<f32>, %u: !mindir.u) {
  %p = mindir.get_parameter @w : !mindir.ref<tensor<2xf32>>
  // expected-error @+1 {{'mindir.apply_adam' op needs a 'beta2' attribute, a float in (0, 1)}}
  %n = mindir.apply_adam %p, %p, %p, %s, %g, %u {beta1 = 0.9 : f64, beta2 = 1.0 : f64, epsilon = 1.0e-8 : f64} : tensor<2xf32>
  func.return
}

// -----

mindir.parameter @w = dense<1.0> : tensor<2xf32>
func.func @adam_epsilon(%g: tensor<2xf32>, %s: tensor<f32>, %u: !mindir.u) {
  %p = mindir.get_parameter @w : !mindir.ref<tensor<2xf32>>
  // expected-error @+1 {{'mindir.apply_adam' op needs an 'epsilon' attribute, a float > 0}}
  %n = mindir.apply_adam %p, %p, %p, %s, %g, %u {beta1 = 0.9 : f64, beta2 = 0.999 : f64} : tensor<2xf32>
  func.return
}
