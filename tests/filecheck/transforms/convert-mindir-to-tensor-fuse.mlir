// RUN: ms-opt %s -p 'convert-mindir-to-tensor{fuse-elementwise=true}' --split-input-file | filecheck %s
// RUN: ms-opt %s -p convert-mindir-to-tensor --split-input-file | filecheck %s --check-prefix=UNFUSED

// A chain of pointwise ops, each the only user of the one before and of the same
// shape, is one generic: its body computes the chain in order.

// CHECK-LABEL: func.func @chain(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>, %z: tensor<3xf32>) -> tensor<2x3xf32>
// CHECK:         %{{.*}} = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %y, %z : tensor<2x3xf32>, tensor<2x3xf32>, tensor<3xf32>)
// CHECK-NEXT:    ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %[[Z:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[M:.*]] = arith.mulf %[[X]], %[[Y]] : f32
// CHECK-NEXT:      %[[A:.*]] = arith.addf %[[M]], %[[Z]] : f32
// CHECK-NEXT:      %[[T:.*]] = math.tanh %[[A]] : f32
// CHECK-NEXT:      linalg.yield %[[T]] : f32
// CHECK-NOT:     linalg.generic
// CHECK:         func.return

// UNFUSED-LABEL: func.func @chain
// UNFUSED-COUNT-3: linalg.generic
// UNFUSED-NOT:     linalg.generic
// UNFUSED:         func.return
func.func @chain(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>, %z: tensor<3xf32>) -> tensor<2x3xf32> {
  %m = mindir.mul %x, %y : tensor<2x3xf32>
  %a = mindir.add %m, %z : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %t = mindir.tanh %a : tensor<2x3xf32>
  func.return %t : tensor<2x3xf32>
}

// -----

// An LSTM gate's backward: sigmoid_grad and tanh_grad are pointwise like the ops
// around them, so the gate's forward sigmoid, both adjoints and their users are
// one generic (the tanh, read twice, keeps its own).

// CHECK-LABEL: func.func @gate_backward
// CHECK:         %[[T:.*]] = linalg.generic {{.*}} ins(%c : tensor<2x3xf32>)
// CHECK:           math.tanh
// CHECK:         linalg.generic {{.*}} ins(%x, %[[T]], %g : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>)
// CHECK:           %[[S:.*]] = arith.divf
// CHECK:           %[[SQ:.*]] = arith.mulf %[[TV:.*]], %[[TV]] : f32
// CHECK-NEXT:      %[[OMT:.*]] = arith.subf %{{.*}}, %[[SQ]] : f32
// CHECK-NEXT:      %[[DT:.*]] = arith.mulf %[[G:.*]], %[[OMT]] : f32
// CHECK-NEXT:      %[[D:.*]] = arith.mulf %[[DT]], %[[TV]] : f32
// CHECK:           %[[OMS:.*]] = arith.subf %{{.*}}, %[[S]] : f32
// CHECK-NEXT:      %[[SS:.*]] = arith.mulf %[[S]], %[[OMS]] : f32
// CHECK-NEXT:      %[[DS:.*]] = arith.mulf %[[D]], %[[SS]] : f32
// CHECK-NEXT:      %[[N:.*]] = arith.negf %[[DS]] : f32
// CHECK-NEXT:      linalg.yield %[[N]] : f32
// CHECK-NOT:     linalg.generic
// CHECK:         func.return

// UNFUSED-LABEL: func.func @gate_backward
// UNFUSED-COUNT-6: linalg.generic
// UNFUSED-NOT:     linalg.generic
// UNFUSED:         func.return
func.func @gate_backward(%x: tensor<2x3xf32>, %g: tensor<2x3xf32>, %c: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %s = mindir.sigmoid %x : tensor<2x3xf32>
  %t = mindir.tanh %c : tensor<2x3xf32>
  %dt = mindir.tanh_grad %t, %g : tensor<2x3xf32>
  %d = mindir.mul %dt, %t : tensor<2x3xf32>
  %ds = mindir.sigmoid_grad %s, %d : tensor<2x3xf32>
  %n = mindir.neg %ds : tensor<2x3xf32>
  func.return %n : tensor<2x3xf32>
}

// -----

// A value with two users is computed once, by its own generic; one read twice by
// the same user (x * x) is computed once in that user's body.

// CHECK-LABEL: func.func @shared_value
// CHECK:         %[[E:.*]] = linalg.generic
// CHECK:           math.exp
// CHECK:         linalg.generic {{.*}} ins(%[[E]] : tensor<4xf32>)
// CHECK:           %[[N:.*]] = arith.negf
// CHECK-NEXT:      arith.mulf %[[N]], %[[N]] : f32
// CHECK:         linalg.generic {{.*}} ins(%[[E]] : tensor<4xf32>)
// CHECK:           math.tanh
// CHECK-NOT:     linalg.generic
func.func @shared_value(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %e = mindir.exp %x : tensor<4xf32>
  %n = mindir.neg %e : tensor<4xf32>
  %sq = mindir.mul %n, %n : tensor<4xf32>
  %t = mindir.tanh %e : tensor<4xf32>
  func.return %sq, %t : tensor<4xf32>, tensor<4xf32>
}

// -----

// A producer the user broadcasts (another shape) keeps its own generic; so does
// one whose user is in another block, and one whose user is not pointwise.

// CHECK-LABEL: func.func @not_fused
// CHECK:         %[[S:.*]] = linalg.generic {{.*}} ins(%y : tensor<3xf32>)
// CHECK:           math.sqrt
// CHECK:         linalg.generic {{.*}} ins(%x, %[[S]] : tensor<2x3xf32>, tensor<3xf32>)
// CHECK:           arith.mulf
// CHECK:         %[[R:.*]] = linalg.generic {{.*}} ins(%x : tensor<2x3xf32>)
// CHECK:           math.exp
// CHECK:         scf.if
// CHECK:           linalg.generic {{.*}} ins(%[[R]] : tensor<2x3xf32>)
// CHECK:             arith.negf
// CHECK:         %[[C:.*]] = linalg.generic {{.*}} ins(%x : tensor<2x3xf32>)
// CHECK:           math.log
// CHECK:         linalg.reduce ins(%[[C]]:tensor<2x3xf32>)
func.func @not_fused(%x: tensor<2x3xf32>, %y: tensor<3xf32>, %c: tensor<i1>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<f32>) {
  %s = mindir.sqrt %y : tensor<3xf32>
  %m = mindir.mul %x, %s : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %r = mindir.exp %x : tensor<2x3xf32>
  %i = mindir.if %c -> (tensor<2x3xf32>) {
    %n = mindir.neg %r : tensor<2x3xf32>
    mindir.yield %n : tensor<2x3xf32>
  } else {
    mindir.yield %x : tensor<2x3xf32>
  }
  %l = mindir.log %x : tensor<2x3xf32>
  %sum = mindir.reduce_sum %l : (tensor<2x3xf32>) -> tensor<f32>
  func.return %m, %i, %sum : tensor<2x3xf32>, tensor<2x3xf32>, tensor<f32>
}

// -----

// Compares, select and casts fuse too: relu'(x) * g as the backward writes it.

// CHECK-LABEL: func.func @select_cast
// CHECK:         linalg.generic {{.*}} ins(%x, %zero, %g : tensor<5xf32>, tensor<5xf32>, tensor<5xf16>)
// CHECK:           arith.cmpf ogt
// CHECK:           arith.extf
// CHECK:           arith.select
// CHECK-NOT:     linalg.generic
func.func @select_cast(%x: tensor<5xf32>, %g: tensor<5xf16>) -> tensor<5xf32> {
  %zero = mindir.constant dense<0.0> : tensor<5xf32>
  %p = mindir.greater %x, %zero : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
  %g32 = mindir.cast %g {to = f32} : (tensor<5xf16>) -> tensor<5xf32>
  %r = mindir.select %p, %g32, %zero : (tensor<5xi1>, tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
  func.return %r : tensor<5xf32>
}

// -----

// A chain whose last op is dead is erased whole, like any dead pure op.

// CHECK-LABEL: func.func @dead_chain
// CHECK-NOT:     linalg.generic
// CHECK:         func.return %x
func.func @dead_chain(%x: tensor<3xf32>) -> tensor<3xf32> {
  %e = mindir.exp %x : tensor<3xf32>
  %n = mindir.neg %e : tensor<3xf32>
  %c = mindir.cast %n {to = f16} : (tensor<3xf32>) -> tensor<3xf16>
  func.return %x : tensor<3xf32>
}

// -----

// A cheap value of 64Ki elements or more read by two pointwise users of its shape
// is computed again in each (reading x once more beats writing x*x and reading it
// twice): GELU's tanh form, whose autodiff saves x*x for the backward. An
// expensive one (tanh) is written once and read by both.

// CHECK-LABEL: func.func @cheap_twice
// CHECK:         %[[T:.*]] = linalg.generic {{.*}} ins(%x : tensor<256x256xf32>)
// CHECK:           %[[SQ:.*]] = arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:      math.tanh %[[SQ]] : f32
// CHECK:         linalg.generic {{.*}} ins(%x, %[[T]], %g : tensor<256x256xf32>, tensor<256x256xf32>, tensor<256x256xf32>)
// CHECK:           %[[SQ2:.*]] = arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK:           arith.mulf
// CHECK:         linalg.generic {{.*}} ins(%[[T]], %g : tensor<256x256xf32>, tensor<256x256xf32>)
// CHECK-NOT:     linalg.generic
// CHECK:         func.return
// UNFUSED-LABEL: func.func @cheap_twice
// UNFUSED-COUNT-5: linalg.generic
// UNFUSED-NOT:     linalg.generic
// UNFUSED:         func.return
func.func @cheap_twice(%x: tensor<256x256xf32>, %g: tensor<256x256xf32>) -> (tensor<256x256xf32>, tensor<256x256xf32>) {
  %sq = mindir.mul %x, %x : tensor<256x256xf32>
  %t = mindir.tanh %sq : tensor<256x256xf32>
  %a = mindir.mul %sq, %t : tensor<256x256xf32>
  %d = mindir.mul %a, %g : tensor<256x256xf32>
  %e = mindir.mul %t, %g : tensor<256x256xf32>
  func.return %d, %e : tensor<256x256xf32>, tensor<256x256xf32>
}

// -----

// A smaller one stays in cache: it is written once, like an expensive one.

// CHECK-LABEL: func.func @cheap_twice_small
// CHECK:         %[[SQ:.*]] = linalg.generic {{.*}} ins(%x : tensor<4xf32>)
// CHECK-NEXT:      ^bb0
// CHECK-NEXT:      arith.mulf
// CHECK-NEXT:      linalg.yield
// CHECK:         linalg.generic {{.*}} ins(%[[SQ]] : tensor<4xf32>)
// CHECK:         linalg.generic {{.*}} ins(%[[SQ]], %{{.*}}, %g : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
func.func @cheap_twice_small(%x: tensor<4xf32>, %g: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %sq = mindir.mul %x, %x : tensor<4xf32>
  %t = mindir.tanh %sq : tensor<4xf32>
  %a = mindir.mul %sq, %t : tensor<4xf32>
  %d = mindir.mul %a, %g : tensor<4xf32>
  %e = mindir.mul %t, %g : tensor<4xf32>
  func.return %d, %e : tensor<4xf32>, tensor<4xf32>
}

// -----

// A broadcast_to whose users are pointwise is no linalg.broadcast: each user reads
// its input through a broadcasting map (here a row mean subtracted and divided).

// CHECK-LABEL: func.func @broadcast_read_by_maps
// CHECK-NOT:     linalg.broadcast
// CHECK:         %[[M:.*]] = tensor.collapse_shape %m
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>]{{.*}} ins(%x, %[[M]] : tensor<2x3xf32>, tensor<2xf32>)
// CHECK:           arith.subf
// CHECK:           arith.divf
// CHECK-NOT:     linalg.broadcast
// UNFUSED-LABEL: func.func @broadcast_read_by_maps
// UNFUSED:         linalg.broadcast
func.func @broadcast_read_by_maps(%x: tensor<2x3xf32>, %m: tensor<2x1xf32>) -> (tensor<2x3xf32>) {
  %b = mindir.broadcast_to %m : (tensor<2x1xf32>) -> tensor<2x3xf32>
  %c = mindir.sub %x, %b : tensor<2x3xf32>
  %r = mindir.div %c, %b : tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// -----

// An update_state attaching a value only orders it before the state's next
// effects: placed after the value's one user, it does not stop the fusion (the
// auto-monad attaches LayerNorm's x * gamma to the optimizer's state; the tree
// reads one array of its shape, held instead of the product); placed before it,
// it does.

// CHECK-LABEL: func.func @attached_after
// CHECK:         %[[W:.*]] = ml_program.global_load @w
// CHECK:         linalg.generic {{.*}} ins(%x, %[[W]], %y : tensor<3x2xf32>, tensor<2xf32>, tensor<3x2xf32>)
// CHECK:           arith.mulf
// CHECK-NEXT:      arith.addf
// CHECK-NOT:     linalg.generic
// CHECK:         ml_program.global_store @w
mindir.parameter @w = dense<[1.0, 2.0]> : tensor<2xf32>
func.func @attached_after(%x: tensor<3x2xf32>, %y: tensor<3x2xf32>, %z: tensor<2xf32>, %u0: !mindir.u) -> (tensor<3x2xf32>, !mindir.u) {
  %r = mindir.get_parameter @w : !mindir.ref<tensor<2xf32>>
  %l = mindir.load %r, %u0 : tensor<2xf32>
  %m = mindir.mul %x, %l : (tensor<3x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  %s = mindir.add %m, %y : tensor<3x2xf32>
  %u1 = mindir.update_state %u0, %m : tensor<3x2xf32>
  %a = mindir.assign %r, %z, %u1 : tensor<2xf32>
  %u2 = mindir.update_state %u1, %a : tensor<2xf32>
  func.return %s, %u2 : tensor<3x2xf32>, !mindir.u
}

// -----

// CHECK-LABEL: func.func @attached_before
// CHECK:         %[[M:.*]] = linalg.generic {{.*}} ins(%x, %{{.*}} : tensor<2xf32>, tensor<2xf32>)
// CHECK:           arith.mulf
// CHECK:         ml_program.global_store @w
// CHECK:         linalg.generic {{.*}} ins(%[[M]], %y : tensor<2xf32>, tensor<2xf32>)
// CHECK:           arith.addf
mindir.parameter @w = dense<[1.0, 2.0]> : tensor<2xf32>
func.func @attached_before(%x: tensor<2xf32>, %y: tensor<2xf32>, %u0: !mindir.u) -> (tensor<2xf32>, !mindir.u) {
  %r = mindir.get_parameter @w : !mindir.ref<tensor<2xf32>>
  %l = mindir.load %r, %u0 : tensor<2xf32>
  %m = mindir.mul %x, %l : tensor<2xf32>
  %u1 = mindir.update_state %u0, %m : tensor<2xf32>
  %a = mindir.assign %r, %y, %u1 : tensor<2xf32>
  %u2 = mindir.update_state %u1, %a : tensor<2xf32>
  %s = mindir.add %m, %y : tensor<2xf32>
  func.return %s, %u2 : tensor<2xf32>, !mindir.u
}
