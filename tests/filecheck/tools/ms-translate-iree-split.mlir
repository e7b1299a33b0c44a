// RUN: ms-translate --target=iree-input %s -o - --entry f | filecheck %s

// A reused lazy-inline graph (two call sites) is a module of its own, named by
// a hash of its text; the entry's module calls it as an import
// (backend/iree/split_graphs.py). Modules are separated by `// -----`, callees first.

// CHECK:      builtin.module @[[MOD:mj_[0-9a-f]+]] {
// CHECK-NEXT:   func.func @layer(%{{.*}}: tensor<4x8xf32>, %{{.*}}: tensor<8x8xf32>) -> tensor<4x8xf32> {
// CHECK:          linalg.matmul
// CHECK:          math.tanh
// CHECK:      // -----
// CHECK:      builtin.module {
// CHECK-NEXT:   func.func private @[[MOD]].layer(tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:   func.func @f(
// CHECK-NEXT:     %[[A:.*]] = func.call @[[MOD]].layer(%{{.*}}, %{{.*}})
// CHECK-NEXT:     %{{.*}} = func.call @[[MOD]].layer(%[[A]], %{{.*}})
// CHECK-NOT:  linalg.matmul

func.func private @layer(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> attributes {mindir.lazy_inline = "L"} {
  %m = mindir.matmul %x, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %t = mindir.tanh %m : tensor<4x8xf32>
  func.return %t : tensor<4x8xf32>
}
func.func @f(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %a = func.call @layer(%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %b = func.call @layer(%a, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  func.return %b : tensor<4x8xf32>
}
