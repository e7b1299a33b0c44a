// RUN: ms-translate --target=iree-input %s -o - | filecheck %s
// RUN: ms-translate --target=iree-input %s -o - | iree-compile --iree-hal-target-backends=llvm-cpu - -o /dev/null

// Pipeline channels on IREE (backend/iree/channels.py): a store to a channel
// global is a call of the host import @mindjit.send_<tag>, a load one of
// @mindjit.receive_<tag>, in the stage's block order, chained by an i32 order
// token (IREE does not keep import calls in block order by itself); channels
// are no state (no argument, no result), the Parameter @w is (stage 0's).

// CHECK-NOT: ml_program
// CHECK: func.func private @mindjit.send_1(tensor<3xf32>, i32) -> i32
// CHECK: func.func private @mindjit.receive_1(i32) -> (tensor<3xf32>, i32)
// CHECK: func.func private @mindjit.send_2(tensor<3xf32>, i32) -> i32
// CHECK: func.func private @mindjit.receive_2(i32) -> (tensor<3xf32>, i32)
// CHECK: func.func private @mindjit.send_3(tensor<3xf32>, i32) -> i32
// CHECK: func.func private @mindjit.receive_3(i32) -> (tensor<3xf32>, i32)
// CHECK: func.func @g_stage0(%[[X:.*]]: tensor<3xf32>, %[[W0:.*]]: tensor<3xf32>) -> tensor<3xf32>
// CHECK:   %[[T0:.*]] = arith.constant 0 : i32
// CHECK:   %[[T1:.*]] = func.call @mindjit.send_1(%[[W0]], %[[T0]]) : (tensor<3xf32>, i32) -> i32
// CHECK:   %[[W1:.*]] = linalg.generic {{.*}} ins(%[[W0]], %[[X]] :
// CHECK:   %[[GOT:.*]], %[[T2:.*]] = func.call @mindjit.receive_2(%[[T1]]) : (i32) -> (tensor<3xf32>, i32)
// CHECK:   %[[S:.*]] = linalg.generic {{.*}} ins(%[[W1]], %[[GOT]] :
// CHECK:   func.call @mindjit.send_3(%[[S]], %[[T2]]) : (tensor<3xf32>, i32) -> i32
// CHECK:   func.return %[[S]] : tensor<3xf32>
// CHECK: func.func @g_stage1(%[[X1:.*]]: tensor<3xf32>) -> tensor<3xf32>
// CHECK:   %[[U0:.*]] = arith.constant 0 : i32
// CHECK:   %[[A:.*]], %[[U1:.*]] = func.call @mindjit.receive_1(%[[U0]]) : (i32) -> (tensor<3xf32>, i32)
// CHECK:   %[[B:.*]] = linalg.generic {{.*}} ins(%[[A]], %[[A]] :
// CHECK:   %[[U2:.*]] = func.call @mindjit.send_2(%[[B]], %[[U1]]) : (tensor<3xf32>, i32) -> i32
// CHECK:   %[[C:.*]], %{{.*}} = func.call @mindjit.receive_3(%[[U2]]) : (i32) -> (tensor<3xf32>, i32)
// CHECK:   linalg.generic {{.*}} ins(%[[C]], %[[X1]] :

ml_program.global private mutable @w(dense<[1.0, 2.0, 3.0]> : tensor<3xf32>) : tensor<3xf32>
ml_program.global private mutable @__mindjit_channel_1(dense<0.0> : tensor<3xf32>) : tensor<3xf32>
ml_program.global private mutable @__mindjit_channel_2(dense<0.0> : tensor<3xf32>) : tensor<3xf32>
ml_program.global private mutable @__mindjit_channel_3(dense<0.0> : tensor<3xf32>) : tensor<3xf32>
func.func @g_stage0(%x: tensor<3xf32>) attributes {mindir.pipeline_stage = 0 : i64, mindir.pipeline_of = "g", mindir.pipeline_results = array<i64>} {
  %w0 = ml_program.global_load @w : tensor<3xf32>
  ml_program.global_store @__mindjit_channel_1 = %w0 : tensor<3xf32>
  %e_w1 = tensor.empty() : tensor<3xf32>
  %w1 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%w0, %x : tensor<3xf32>, tensor<3xf32>) outs(%e_w1 : tensor<3xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %r = arith.addf %p, %q : f32
    linalg.yield %r : f32
  } -> tensor<3xf32>
  ml_program.global_store @w = %w1 : tensor<3xf32>
  %got = ml_program.global_load @__mindjit_channel_2 : tensor<3xf32>
  %w2 = ml_program.global_load @w : tensor<3xf32>
  %e_s = tensor.empty() : tensor<3xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%w2, %got : tensor<3xf32>, tensor<3xf32>) outs(%e_s : tensor<3xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %r = arith.mulf %p, %q : f32
    linalg.yield %r : f32
  } -> tensor<3xf32>
  ml_program.global_store @__mindjit_channel_3 = %s : tensor<3xf32>
  ml_program.global_store @w = %s : tensor<3xf32>
  func.return
}
func.func @g_stage1(%x: tensor<3xf32>) -> tensor<3xf32> attributes {mindir.pipeline_stage = 1 : i64, mindir.pipeline_of = "g", mindir.pipeline_results = array<i64: 0>} {
  %a = ml_program.global_load @__mindjit_channel_1 : tensor<3xf32>
  %e_b = tensor.empty() : tensor<3xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a, %a : tensor<3xf32>, tensor<3xf32>) outs(%e_b : tensor<3xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %r = arith.addf %p, %q : f32
    linalg.yield %r : f32
  } -> tensor<3xf32>
  ml_program.global_store @__mindjit_channel_2 = %b : tensor<3xf32>
  %c = ml_program.global_load @__mindjit_channel_3 : tensor<3xf32>
  %e_d = tensor.empty() : tensor<3xf32>
  %d = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%c, %x : tensor<3xf32>, tensor<3xf32>) outs(%e_d : tensor<3xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %r = arith.subf %p, %q : f32
    linalg.yield %r : f32
  } -> tensor<3xf32>
  func.return %d : tensor<3xf32>
}
