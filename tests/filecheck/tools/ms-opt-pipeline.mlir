// RUN: ms-opt %s -p cse | filecheck %s
// RUN: ms-opt %s --pass-pipeline='builtin.module(cse)' | filecheck %s
// RUN: ms-opt %s --pass-pipeline='builtin.module(func.func(cse), canonicalize)' | filecheck %s
// RUN: ms-opt %s -p cse --print-ir-after-all 2>&1 >/dev/null | filecheck %s --check-prefix=DUMP
// RUN: ms-opt %s -p lower-to-tensor --print-ir-after-all 2>&1 >/dev/null | filecheck %s --check-prefix=NAMED
// RUN: ms-opt %s -p cse,canonicalize --timing 2>&1 >/dev/null | filecheck %s --check-prefix=TIMING
// RUN: not ms-opt %s -p cse,no-such-pass 2>&1 | filecheck %s --check-prefix=UNKNOWN

// CHECK-LABEL: func.func @twice
// CHECK-NEXT:    %0 = mindir.exp %a : tensor<4xf32>
// CHECK-NEXT:    %1 = mindir.add %0, %0 : tensor<4xf32>
// CHECK-NEXT:    func.return %1 : tensor<4xf32>
func.func @twice(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = mindir.exp %a : tensor<4xf32>
  %1 = mindir.exp %a : tensor<4xf32>
  %2 = mindir.add %0, %1 : tensor<4xf32>
  func.return %2 : tensor<4xf32>
}

// DUMP: // -----// IR Dump After cse //----- //
// DUMP: mindir.add %0, %0

// A named pipeline dumps after each of its passes (lower-to-tensor has one), no
// empty extra dump (issue 27).
// NAMED:      // -----// IR Dump After convert-mindir-to-tensor //----- //
// NAMED-NEXT: builtin.module {
// NAMED-NOT:  IR Dump After

// TIMING: Execution time report
// TIMING: ----Wall Time----  ----Name----
// TIMING-DAG: parse
// TIMING-DAG: cse
// TIMING-DAG: canonicalize
// TIMING: Total

// UNKNOWN: <pass-pipeline>:1:5: error: unknown pass 'no-such-pass'
