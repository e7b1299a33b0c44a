// RUN: ms-opt %s -p ascend-select-kernels | filecheck %s
// RUN: ms-opt %s -p ascend-select-kernels | ms-opt | filecheck %s
// RUN: ms-opt %s -p ascend-select-kernels,ascend-execution-order,ascend-plan-memory,ascend-assign-streams | filecheck %s --check-prefix=PLAN

// A send/receive channel (@__mindjit_channel_<sr_tag>, what convert-mindir-to-tensor
// makes of mindir.send / mindir.receive) is no Parameter: its store becomes a Send
// kernel writing the channel, its load a Receive kernel giving a tensor of its
// own, both on the communication unit `comm` and naming their channel. A
// Parameter keeps today's kernels: an Assign for its store, no kernel for its
// Load (it reads the Parameter's memory in place).

// CHECK:      ml_program.global private mutable @w(dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>) : tensor<2xf32>
// CHECK-NEXT: ml_program.global private mutable @__mindjit_channel_3(dense<0.000000e+00> : tensor<2xf32>) : tensor<2xf32>
// CHECK-NEXT: ml_program.global private mutable @__mindjit_channel_4(dense<0> : tensor<4xi32>) : tensor<4xi32>
ml_program.global private mutable @w(dense<[1.0, 2.0]> : tensor<2xf32>) : tensor<2xf32>
ml_program.global private mutable @__mindjit_channel_3(dense<0.0> : tensor<2xf32>) : tensor<2xf32>
ml_program.global private mutable @__mindjit_channel_4(dense<0> : tensor<4xi32>) : tensor<4xi32>

// CHECK-LABEL: func.func @stage0
// CHECK-NEXT:    %l = ml_program.global_load @w : tensor<2xf32>
// CHECK-NEXT:    %h = ascend.kernel "Mul" vector f32 ND
// CHECK:         ascend.kernel "Send" comm f32 ND writes @__mindjit_channel_3 (%[[A:.*]] = %h) : (tensor<2xf32>) -> () {
// CHECK-NEXT:      ascend.yield %[[A]] : tensor<2xf32>
// CHECK-NEXT:    } attributes {ascend.channel = @__mindjit_channel_3}
// CHECK-NEXT:    ascend.kernel "Send" comm i32 ND writes @__mindjit_channel_4 (%{{.*}} = %n) : (tensor<4xi32>) -> () {
// CHECK:         } attributes {ascend.channel = @__mindjit_channel_4}
// CHECK-NEXT:    ascend.kernel "Assign" vector f32 ND writes @w (%{{.*}} = %h) : (tensor<2xf32>) -> () {
// CHECK:         func.return
func.func @stage0(%x: tensor<2xf32>, %n: tensor<4xi32>) {
  %l = ml_program.global_load @w : tensor<2xf32>
  %e = tensor.empty() : tensor<2xf32>
  %h = linalg.mul ins(%x, %l : tensor<2xf32>, tensor<2xf32>) outs(%e : tensor<2xf32>) -> tensor<2xf32>
  ml_program.global_store @__mindjit_channel_3 = %h : tensor<2xf32>
  ml_program.global_store @__mindjit_channel_4 = %n : tensor<4xi32>
  ml_program.global_store @w = %h : tensor<2xf32>
  func.return
}

// CHECK-LABEL: func.func @stage1
// CHECK-NEXT:    %y = ascend.kernel "Receive" comm f32 ND : () -> tensor<2xf32> {
// CHECK-NEXT:      %[[Y:.*]] = ml_program.global_load @__mindjit_channel_3 : tensor<2xf32>
// CHECK-NEXT:      ascend.yield %[[Y]] : tensor<2xf32>
// CHECK-NEXT:    } attributes {ascend.channel = @__mindjit_channel_3}
// CHECK-NEXT:    %m = ascend.kernel "Receive" comm i32 ND : () -> tensor<4xi32> {
// CHECK-NEXT:      ml_program.global_load @__mindjit_channel_4 : tensor<4xi32>
// CHECK:         } attributes {ascend.channel = @__mindjit_channel_4}
// CHECK-NEXT:    %z = ascend.kernel "Exp" vector f32 ND (%{{.*}} = %y)
// CHECK:         func.return %z, %m : tensor<2xf32>, tensor<4xi32>
// CHECK-NOT:     ml_program.global_load @__mindjit_channel
func.func @stage1() -> (tensor<2xf32>, tensor<4xi32>) {
  %y = ml_program.global_load @__mindjit_channel_3 : tensor<2xf32>
  %m = ml_program.global_load @__mindjit_channel_4 : tensor<4xi32>
  %e = tensor.empty() : tensor<2xf32>
  %z = linalg.exp ins(%y : tensor<2xf32>) outs(%e : tensor<2xf32>) -> tensor<2xf32>
  func.return %z, %m : tensor<2xf32>, tensor<4xi32>
}

// After the device pipeline a Send and a Receive are kernels on a stream like any
// other. A Receive's result has its own address in the heap (1536, past @w, and
// the channels at 512 and 1024), not its channel's. The comm unit runs beside the
// vector unit: the Exp of the first received value goes to stream 1 and overlaps
// the second Receive.
// PLAN-LABEL: func.func @stage0
// PLAN:         ascend.kernel "Send" comm f32 ND writes @__mindjit_channel_3
// PLAN:         } attributes {ascend.channel = @__mindjit_channel_3, ascend.stream = 0 : i64}
// PLAN-LABEL: func.func @stage1
// PLAN-NEXT:    %y = ascend.kernel "Receive" comm f32 ND : () -> tensor<2xf32> {
// PLAN:         } attributes {ascend.channel = @__mindjit_channel_3, ascend.offsets = array<i64: 1536>, ascend.stream = 0 : i64}
// PLAN-NEXT:    ascend.record_event 0 stream 0
// PLAN-NEXT:    %m = ascend.kernel "Receive" comm i32 ND : () -> tensor<4xi32> {
// PLAN:         } attributes {ascend.channel = @__mindjit_channel_4, ascend.offsets = array<i64: 2048>, ascend.stream = 0 : i64}
// PLAN-NEXT:    ascend.wait_event 0 stream 1
// PLAN-NEXT:    %z = ascend.kernel "Exp" vector f32 ND (%{{.*}} = %y)
// PLAN:         } attributes {ascend.offsets = array<i64: {{[0-9]+}}>, ascend.stream = 1 : i64}
