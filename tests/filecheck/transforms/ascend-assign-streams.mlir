// RUN: ms-opt %s -p 'ascend-select-kernels,ascend-assign-streams{streams=2}' | grep -E '^(builtin|  [^ ]|    [^ ])' | filecheck %s --check-prefix=TWO
// RUN: ms-opt %s -p 'ascend-select-kernels,ascend-assign-streams' | grep -E '^(builtin|  [^ ]|    [^ ])' | filecheck %s --check-prefix=TWO
// RUN: ms-opt %s -p 'ascend-select-kernels,ascend-assign-streams{streams=1}' | grep -E '^(builtin|  [^ ]|    [^ ])' | filecheck %s --check-prefix=ONE
// RUN: not ms-opt %s -p 'ascend-assign-streams{streams=0}' 2>&1 | filecheck %s --check-prefix=BAD
// (The greps keep the graph's top-level lines: kernel code is dropped, the
// `} attributes {...}` line closing each kernel stays.)

// ascend-assign-streams on a fork: %a feeds two independent branches
// (%l1 -> %l2 and %r1 -> %r2) joined by %j. With two streams (the default) the
// first branch continues %a's stream 0, the second starts on the idle stream 1
// after waiting for %a's event; %r2 reads %a again but stream 1 already waited
// for it (no second wait); the join continues stream 1 and waits for the
// event recorded after %l2. With one stream: all on stream 0, no events.

// TWO:       builtin.module attributes {ascend.events = 2 : i64} {
// TWO-NEXT:    func.func @fork
// TWO-SAME:      attributes {ascend.streams = 2 : i64, ascend.events = 2 : i64}
// TWO-NEXT:      %a = ascend.kernel "Exp"
// TWO-NEXT:      } attributes {ascend.stream = 0 : i64}
// TWO-NEXT:      ascend.record_event 0 stream 0
// TWO-NEXT:      %l1 = ascend.kernel "Exp"
// TWO-NEXT:      } attributes {ascend.stream = 0 : i64}
// TWO-NEXT:      %l2 = ascend.kernel "Log"
// TWO-NEXT:      } attributes {ascend.stream = 0 : i64}
// TWO-NEXT:      ascend.record_event 1 stream 0
// TWO-NEXT:      ascend.wait_event 0 stream 1
// TWO-NEXT:      %r1 = ascend.kernel "Sqrt"
// TWO-NEXT:      } attributes {ascend.stream = 1 : i64}
// TWO-NEXT:      %r2 = ascend.kernel "Mul"
// TWO-NEXT:      } attributes {ascend.stream = 1 : i64}
// TWO-NEXT:      ascend.wait_event 1 stream 1
// TWO-NEXT:      %j = ascend.kernel "Add"
// TWO-NEXT:      } attributes {ascend.stream = 1 : i64}
// TWO-NEXT:      func.return %j

// ONE:       builtin.module attributes {ascend.events = 0 : i64} {
// ONE-NEXT:    func.func @fork
// ONE-SAME:      attributes {ascend.streams = 1 : i64, ascend.events = 0 : i64}
// ONE-NEXT:      %a = ascend.kernel "Exp"
// ONE-NEXT:      } attributes {ascend.stream = 0 : i64}
// ONE-NEXT:      %l1 = ascend.kernel "Exp"
// ONE-NEXT:      } attributes {ascend.stream = 0 : i64}
// ONE-NEXT:      %l2 = ascend.kernel "Log"
// ONE-NEXT:      } attributes {ascend.stream = 0 : i64}
// ONE-NEXT:      %r1 = ascend.kernel "Sqrt"
// ONE-NEXT:      } attributes {ascend.stream = 0 : i64}
// ONE-NEXT:      %r2 = ascend.kernel "Mul"
// ONE-NEXT:      } attributes {ascend.stream = 0 : i64}
// ONE-NEXT:      %j = ascend.kernel "Add"
// ONE-NEXT:      } attributes {ascend.stream = 0 : i64}
// ONE-NEXT:      func.return %j
// ONE-NOT:       _event

// BAD: error: bad options for pass 'ascend-assign-streams': streams must be between 1 and 64, got '0'

func.func @fork(%x: tensor<128xf32>) -> tensor<128xf32> {
  %e0 = tensor.empty() : tensor<128xf32>
  %a = linalg.exp ins(%x : tensor<128xf32>) outs(%e0 : tensor<128xf32>) -> tensor<128xf32>
  %e1 = tensor.empty() : tensor<128xf32>
  %l1 = linalg.exp ins(%a : tensor<128xf32>) outs(%e1 : tensor<128xf32>) -> tensor<128xf32>
  %e2 = tensor.empty() : tensor<128xf32>
  %l2 = linalg.log ins(%l1 : tensor<128xf32>) outs(%e2 : tensor<128xf32>) -> tensor<128xf32>
  %e3 = tensor.empty() : tensor<128xf32>
  %r1 = linalg.sqrt ins(%a : tensor<128xf32>) outs(%e3 : tensor<128xf32>) -> tensor<128xf32>
  %e4 = tensor.empty() : tensor<128xf32>
  %r2 = linalg.mul ins(%r1, %a : tensor<128xf32>, tensor<128xf32>) outs(%e4 : tensor<128xf32>) -> tensor<128xf32>
  %e5 = tensor.empty() : tensor<128xf32>
  %j = linalg.add ins(%l2, %r2 : tensor<128xf32>, tensor<128xf32>) outs(%e5 : tensor<128xf32>) -> tensor<128xf32>
  func.return %j : tensor<128xf32>
}
