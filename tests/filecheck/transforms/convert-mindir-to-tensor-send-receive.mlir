// RUN: ms-opt %s -p convert-mindir-to-tensor --split-input-file --verify-diagnostics | filecheck %s

// A send/receive pair of one tag is a store/load of one channel global, declared
// once per tag with a zero initial value; the io state vanishes.

// CHECK:      ml_program.global private mutable @__mindjit_channel_7(dense<0.000000e+00> : tensor<2x3xf32>) : tensor<2x3xf32>
// CHECK-NEXT: ml_program.global private mutable @__mindjit_channel_3(dense<0> : tensor<4xi32>) : tensor<4xi32>
// CHECK-LABEL: func.func @stage0(%x: tensor<4xi32>, %z: tensor<2x3xf32>) {
// CHECK-NEXT:   ml_program.global_store @__mindjit_channel_3 = %x : tensor<4xi32>
// CHECK-NEXT:   ml_program.global_store @__mindjit_channel_7 = %z : tensor<2x3xf32>
// CHECK-NEXT:   func.return
func.func @stage0(%x: tensor<4xi32>, %z: tensor<2x3xf32>, %io0: !mindir.io) -> !mindir.io {
  %io1 = mindir.send %x, %io0 {sr_tag = 3 : i64, dest_rank = 1 : i64} : tensor<4xi32>
  %io2 = mindir.send %z, %io1 {sr_tag = 7 : i64, dest_rank = 1 : i64} : tensor<2x3xf32>
  func.return %io2 : !mindir.io
}
// CHECK-LABEL: func.func @stage1() -> (tensor<4xi32>, tensor<2x3xf32>) {
// CHECK-NEXT:   %y = ml_program.global_load @__mindjit_channel_3 : tensor<4xi32>
// CHECK-NEXT:   %w = ml_program.global_load @__mindjit_channel_7 : tensor<2x3xf32>
// CHECK-NEXT:   func.return %y, %w
func.func @stage1(%io0: !mindir.io) -> (tensor<4xi32>, tensor<2x3xf32>, !mindir.io) {
  %y, %io1 = mindir.receive %io0 {sr_tag = 3 : i64, src_rank = 0 : i64} : tensor<4xi32>
  %w, %io2 = mindir.receive %io1 {sr_tag = 7 : i64, src_rank = 0 : i64} : tensor<2x3xf32>
  func.return %y, %w, %io2 : tensor<4xi32>, tensor<2x3xf32>, !mindir.io
}

// -----

func.func @f(%x: tensor<4xf32>, %v: tensor<4xi32>, %io0: !mindir.io) -> !mindir.io {
  %io1 = mindir.send %x, %io0 {sr_tag = 3 : i64, dest_rank = 1 : i64} : tensor<4xf32>
  // expected-error @+1 {{'mindir.send' with sr_tag 3 moves a tensor<4xi32>, but another send/receive of that tag moves a tensor<4xf32>}}
  %io2 = mindir.send %v, %io1 {sr_tag = 3 : i64, dest_rank = 1 : i64} : tensor<4xi32>
  func.return %io2 : !mindir.io
}
