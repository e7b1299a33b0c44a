// RUN: ms-opt %s | filecheck %s
// RUN: ms-opt %s | ms-opt | filecheck %s
// RUN: ms-opt %s -p convert-mindir-to-tensor | filecheck %s --check-prefix=LOWERED
// RUN: sed -e 's/0x0400000000000000000080BF/0x0400000000000000000080B/' %s | not ms-opt 2>&1 | filecheck %s --check-prefix=BAD

// A module's dense_resource blobs are printed after it, once, in MLIR's
// `{-# dialect_resources #-}` section, in the order the module first uses them,
// so mlir-opt, iree-opt and iree-compile read the same values.

// CHECK:      mindir.parameter @w = dense_resource<w_0> : tensor<2xf32>
// CHECK:      arith.constant dense_resource<flags> : tensor<3xi1>
// CHECK:      {{^}}}{{$}}
// CHECK-EMPTY:
// CHECK-NEXT: {-#
// CHECK-NEXT:   dialect_resources: {
// CHECK-NEXT:     builtin: {
// CHECK-NEXT:       w_0: "0x0400000000000000000080BF",
// CHECK-NEXT:       flags: "0x01000000010001"
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT: #-}
// CHECK-NOT:  {-#

// LOWERED:      ml_program.global private mutable @w(dense_resource<w_0> : tensor<2xf32>)
// LOWERED:      {-#
// LOWERED:      w_0: "0x0400000000000000000080BF"

// BAD: <stdin>:40:12: error: dense_resource<w_0>: a resource blob has an odd number of hex digits

mindir.parameter @w = dense_resource<w_0> : tensor<2xf32>
func.func @f() -> tensor<3xi1> {
  %0 = arith.constant dense_resource<flags> : tensor<3xi1>
  func.return %0 : tensor<3xi1>
}

{-#
  dialect_resources: {
    builtin: {
      flags: "0x01000000010001",
      w_0: "0x0400000000000000000080BF"
    }
  }
#-}
