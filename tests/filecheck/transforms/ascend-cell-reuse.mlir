// RUN: ms-opt %s -p 'ascend-select-kernels,ascend-cell-reuse{level=1}' | filecheck %s --check-prefix=KEEP
// RUN: ms-opt %s -p 'ascend-select-kernels,ascend-cell-reuse{level=0}' | filecheck %s --check-prefix=KEEP
// RUN: ms-opt %s -p 'ascend-select-kernels,ascend-cell-reuse{level=2}' | filecheck %s --check-prefix=INLINE
// RUN: env MS_DEV_CELL_REUSE=2 ms-opt %s -p 'ascend-select-kernels,ascend-cell-reuse' | filecheck %s --check-prefix=INLINE
// RUN: env MS_DEV_CELL_REUSE=1 ms-opt %s -p 'ascend-select-kernels,ascend-cell-reuse' | filecheck %s --check-prefix=KEEP

// ascend-cell-reuse: @net calls the reused graph @block twice (and @block calls
// @leaf). Levels 0 and 1 keep the calls and the callees (one kernel
// sub-sequence called from each site); level 2 inlines every call, callees
// first, and erases the graphs nothing calls any more. Without `level` the
// pass reads MS_DEV_CELL_REUSE.

// KEEP-LABEL:  func.func @leaf
// KEEP-NEXT:     %y = ascend.kernel "Exp" vector f32 ND
// KEEP:          func.return %y : tensor<4xf32>
// KEEP-LABEL:  func.func @block
// KEEP-NEXT:     %l = func.call @leaf(%x) : (tensor<4xf32>) -> tensor<4xf32>
// KEEP-NEXT:     %r = ascend.kernel "Add" vector f32 ND (%{{.*}} = %l, %{{.*}} = %x)
// KEEP:          func.return %r : tensor<4xf32>
// KEEP-LABEL:  func.func @net
// KEEP-NEXT:     %a = func.call @block(%x) : (tensor<4xf32>) -> tensor<4xf32>
// KEEP-NEXT:     %b = func.call @block(%a) : (tensor<4xf32>) -> tensor<4xf32>
// KEEP-NEXT:     func.return %b : tensor<4xf32>
// KEEP-NEXT:   }

// INLINE-NOT:    func.func @leaf
// INLINE-NOT:    func.func @block
// INLINE-LABEL:  func.func @net(%x: tensor<4xf32>) -> tensor<4xf32> {
// INLINE-NEXT:     %[[L1:.*]] = ascend.kernel "Exp" vector f32 ND (%{{.*}} = %x) : (tensor<4xf32>) -> tensor<4xf32> {
// INLINE:          %[[A:.*]] = ascend.kernel "Add" vector f32 ND (%{{.*}} = %[[L1]], %{{.*}} = %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
// INLINE:          %[[L2:.*]] = ascend.kernel "Exp" vector f32 ND (%{{.*}} = %[[A]]) : (tensor<4xf32>) -> tensor<4xf32> {
// INLINE:          %[[B:.*]] = ascend.kernel "Add" vector f32 ND (%{{.*}} = %[[L2]], %{{.*}} = %[[A]]) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
// INLINE:          func.return %[[B]] : tensor<4xf32>
// INLINE-NEXT:   }
// INLINE-NOT:    func.call
// INLINE-NOT:    func.func
func.func @leaf(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %y = linalg.exp ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}
func.func @block(%x: tensor<4xf32>) -> tensor<4xf32> {
  %l = func.call @leaf(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.add ins(%l, %x : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}
func.func @net(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = func.call @block(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %b = func.call @block(%a) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %b : tensor<4xf32>
}
