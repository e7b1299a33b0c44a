// RUN: ms-opt %s -p 'ascend-select-kernels,ascend-cell-reuse{level=1},ascend-plan-memory' | grep -E '^(builtin|  [^ ]|    [^ ])' | filecheck %s
// RUN: ms-opt %s -p 'ascend-select-kernels,ascend-cell-reuse{level=1},ascend-plan-memory' --print-op-generic | filecheck %s --check-prefix=PARAM
// RUN: ms-opt %s -p 'ascend-select-kernels,ascend-cell-reuse{level=1},ascend-plan-memory{align=32}' | grep -E '^(builtin|  [^ ]|    [^ ])' | filecheck %s --check-prefix=ALIGN32
// RUN: not ms-opt %s -p 'ascend-plan-memory{align=48}' 2>&1 | filecheck %s --check-prefix=BAD
// (The greps keep the graphs' top-level lines: kernel code is dropped, the
// `} attributes {...}` line closing each kernel stays.)

// ascend-plan-memory: Parameters (`ascend.offset`, 512-byte aligned by
// default), then constants, then the region of the reused graph @block
// (planned once, its argument bound at the call: -1), then the heap of the
// entry graph @net. In @net's chain a -> b -> c -> d each tensor lives from
// its kernel to its last reader: a and c (and b and d) never live at once and
// share an address; neighbours overlap and differ. The entry argument %x dies
// at a's kernel, so b reuses its memory.

// CHECK:       builtin.module attributes {ascend.persistent_bytes = 1536 : i64, ascend.align = 512 : i64, ascend.memory_bytes = 3584 : i64} {
// CHECK-LABEL: func.func @block
// CHECK-SAME:    attributes {ascend.base = 1536 : i64, ascend.heap_bytes = 1024 : i64, ascend.lower_bound_bytes = 1024 : i64, ascend.arg_offsets = array<i64: -1>}
// CHECK-NEXT:    %y = ascend.kernel "Exp"
// CHECK-NEXT:    } attributes {ascend.offsets = array<i64: 1536>}
// CHECK-NEXT:    %z = ascend.kernel "Exp"
// CHECK-NEXT:    } attributes {ascend.offsets = array<i64: 2048>}
// CHECK-NEXT:    func.return %z
// CHECK-LABEL: func.func @net
// CHECK-SAME:    attributes {ascend.base = 2560 : i64, ascend.heap_bytes = 1024 : i64, ascend.lower_bound_bytes = 1024 : i64, ascend.arg_offsets = array<i64: 2560>}
// CHECK-NEXT:    %k = arith.constant {ascend.offsets = array<i64: 1024>} dense<2.000000e+00> : tensor<128xf32>
// CHECK-NEXT:    %w = ml_program.global_load @w : tensor<128xf32>
// CHECK-NEXT:    %a = ascend.kernel "Add"
// CHECK-NEXT:    } attributes {ascend.offsets = array<i64: [[A:3072]]>}
// CHECK-NEXT:    %b = ascend.kernel "Exp"
// CHECK-NEXT:    } attributes {ascend.offsets = array<i64: [[B:2560]]>}
// CHECK-NEXT:    %c = ascend.kernel "Exp"
// CHECK-NEXT:    } attributes {ascend.offsets = array<i64: [[A]]>}
// CHECK-NEXT:    %d = ascend.kernel "Mul"
// CHECK-NEXT:    } attributes {ascend.offsets = array<i64: [[B]]>}
// CHECK-NEXT:    %r = func.call @block(%d) {ascend.offsets = array<i64: [[A]]>}
// CHECK-NEXT:    func.return %r

// Parameters get `ascend.offset` (only the generic form prints it: the
// custom form of ml_program.global drops discardable attributes).
// PARAM:      "ml_program.global"() <{sym_name = "w", {{.*}}}> {ascend.offset = 0 : i64}
// PARAM-NEXT: "ml_program.global"() <{sym_name = "s", {{.*}}}> {ascend.offset = 512 : i64}

// align=32: the i32 Parameter takes 32 bytes, so everything after it moves.
// ALIGN32:       builtin.module attributes {ascend.persistent_bytes = 1056 : i64, ascend.align = 32 : i64, ascend.memory_bytes = 3104 : i64} {
// ALIGN32-LABEL: func.func @block
// ALIGN32-SAME:    ascend.base = 1056 : i64, ascend.heap_bytes = 1024 : i64
// ALIGN32-LABEL: func.func @net
// ALIGN32-SAME:    ascend.base = 2080 : i64, ascend.heap_bytes = 1024 : i64, ascend.lower_bound_bytes = 1024 : i64
// ALIGN32-NEXT:    %k = arith.constant {ascend.offsets = array<i64: 544>}

// BAD: error: bad options for pass 'ascend-plan-memory': align must be a power of two, got '48'

ml_program.global private mutable @w(dense<1.0> : tensor<128xf32>) : tensor<128xf32>
ml_program.global private mutable @s(dense<0> : tensor<i32>) : tensor<i32>
func.func @block(%x: tensor<128xf32>) -> tensor<128xf32> {
  %e0 = tensor.empty() : tensor<128xf32>
  %y = linalg.exp ins(%x : tensor<128xf32>) outs(%e0 : tensor<128xf32>) -> tensor<128xf32>
  %e1 = tensor.empty() : tensor<128xf32>
  %z = linalg.exp ins(%y : tensor<128xf32>) outs(%e1 : tensor<128xf32>) -> tensor<128xf32>
  func.return %z : tensor<128xf32>
}
func.func @net(%x: tensor<128xf32>) -> tensor<128xf32> {
  %k = arith.constant dense<2.0> : tensor<128xf32>
  %w = ml_program.global_load @w : tensor<128xf32>
  %e0 = tensor.empty() : tensor<128xf32>
  %a = linalg.add ins(%x, %w : tensor<128xf32>, tensor<128xf32>) outs(%e0 : tensor<128xf32>) -> tensor<128xf32>
  %e1 = tensor.empty() : tensor<128xf32>
  %b = linalg.exp ins(%a : tensor<128xf32>) outs(%e1 : tensor<128xf32>) -> tensor<128xf32>
  %e2 = tensor.empty() : tensor<128xf32>
  %c = linalg.exp ins(%b : tensor<128xf32>) outs(%e2 : tensor<128xf32>) -> tensor<128xf32>
  %e3 = tensor.empty() : tensor<128xf32>
  %d = linalg.mul ins(%c, %k : tensor<128xf32>, tensor<128xf32>) outs(%e3 : tensor<128xf32>) -> tensor<128xf32>
  %r = func.call @block(%d) : (tensor<128xf32>) -> tensor<128xf32>
  func.return %r : tensor<128xf32>
}
