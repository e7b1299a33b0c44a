// RUN: ms-opt %s -p 'mindir-inline{cell-reuse=0},mindir-depend-order' | filecheck %s
// RUN: ms-opt %s -p 'mindir-inline{cell-reuse=0},mindir-depend-order,convert-mindir-to-tensor{fuse-elementwise=true}' | filecheck %s --check-prefix=LOWER

// MS_DEV_CELL_REUSE=2 inlines the kept graphs after mindir-depend-order and
// mindir-load-elim (passes/pipelines.py), then runs mindir-depend-order again. The
// input is what mindir-load-elim leaves for one assigning Block called twice
// (tests/frontend/lazy_inline_programs.py CalledTwice). In the graph, the Block's
// Load %6 needs neither a copy nor an attachment: nothing writes the Parameter after
// it there, and the call's state result %u stands for the whole body. Inlined, the
// returned state only covers %6, so the second call's Assign must wait for the
// Load's reader, the tanh: depend-order attaches it to the Assign's input state.
// Without that, the CPU lowering fuses the tanh into `a - b`, after the second
// store, and the first call's result reads the second call's value.

// CHECK-LABEL: func.func @CalledTwice_construct
// CHECK:         %[[A1:.*]] = mindir.assign %block_state, %{{.*}}, %{{.*}} : tensor<2xf32>
// CHECK-NEXT:    %[[U:.*]] = mindir.update_state %{{.*}}, %[[A1]] : tensor<2xf32>
// CHECK-NEXT:    %[[L:.*]] = mindir.load %block_state, %[[U]] : tensor<2xf32>
// CHECK-NEXT:    %[[R:.*]] = mindir.tanh %[[L]] : tensor<2xf32>
// CHECK-NEXT:    %[[U1:.*]] = mindir.update_state %[[U]], %[[L]], %[[R]] : tensor<2xf32>, tensor<2xf32>
// CHECK:         mindir.assign %block_state, %{{.*}}, %[[U1]] : tensor<2xf32>
// CHECK:         mindir.sub %[[R]], %{{.*}} : tensor<2xf32>

// The first call's tanh is a generic of its own, between the two stores.
// LOWER-LABEL: func.func @CalledTwice_construct
// LOWER:         ml_program.global_store @block_state
// LOWER-NEXT:    %[[L:.*]] = ml_program.global_load @block_state
// LOWER-NEXT:    %[[R:.*]] = linalg.generic {{.*}} ins(%[[L]] : tensor<2xf32>)
// LOWER:           math.tanh
// LOWER:         ml_program.global_store @block_state
// LOWER-NEXT:    %[[L2:.*]] = ml_program.global_load @block_state
// LOWER-NEXT:    linalg.generic {{.*}} ins(%[[R]], %[[L2]] : tensor<2xf32>, tensor<2xf32>)

builtin.module {
  mindir.parameter @block_state = dense<0.000000e+00> : tensor<2xf32>
  func.func @StoreThenRead_construct(%0: tensor<2xf32>, %1: !mindir.ref<tensor<2xf32>>, %2: !mindir.u) -> (tensor<2xf32>, !mindir.u) attributes {mindir.lazy_inline = "lazy_inline_StoreThenRead()"} {
    %3 = mindir.constant dense<2.000000e+00> : tensor<f32>
    %4 = mindir.mul %0, %3 : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
    %5 = mindir.assign %1, %4, %2 : tensor<2xf32>
    %u = mindir.update_state %2, %5 : tensor<2xf32>
    %6 = mindir.load %1, %u : tensor<2xf32>
    %u_1 = mindir.update_state %u, %6 : tensor<2xf32>
    %7 = mindir.tanh %6 : tensor<2xf32>
    func.return %7, %u_1 : tensor<2xf32>, !mindir.u
  }
  func.func @CalledTwice_construct(%0: tensor<2xf32>, %block_state: !mindir.ref<tensor<2xf32>> {mindir.parameter = @block_state}, %1: !mindir.u) -> (tensor<2xf32>, !mindir.u) {
    %2, %u = func.call @StoreThenRead_construct(%0, %block_state, %1) : (tensor<2xf32>, !mindir.ref<tensor<2xf32>>, !mindir.u) -> (tensor<2xf32>, !mindir.u)
    %3 = mindir.constant dense<1.000000e+00> : tensor<f32>
    %4 = mindir.add %0, %3 : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
    %5, %u_1 = func.call @StoreThenRead_construct(%4, %block_state, %u) : (tensor<2xf32>, !mindir.ref<tensor<2xf32>>, !mindir.u) -> (tensor<2xf32>, !mindir.u)
    %6 = mindir.sub %2, %5 : tensor<2xf32>
    func.return %6, %u_1 : tensor<2xf32>, !mindir.u
  }
}
