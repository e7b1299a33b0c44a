// func.func(p) runs a function-local pass on each function alone, as in MLIR:
// the module's own ops are not touched. Passes that are not function-local
// (mindjit's module passes) still see the whole module.
// RUN: ms-opt %s --pass-pipeline='builtin.module(func.func(dce))' | filecheck %s --check-prefix=NESTED
// RUN: ms-opt %s --pass-pipeline='builtin.module(dce)' | filecheck %s --check-prefix=MODULE
// RUN: ms-opt %s --pass-pipeline='builtin.module(func.func(canonicalize, cse))' | filecheck %s --check-prefix=NESTED
// RUN: ms-opt %s --pass-pipeline='builtin.module(func.func(mindir-auto-monad))' | filecheck %s --check-prefix=MODULEPASS

// NESTED: %top = arith.constant 1.000000e+00 : f32
// MODULE-NOT: %top = arith.constant
%top = arith.constant 1.0 : f32

// NESTED-LABEL: func.func @f
// NESTED-NEXT:    func.return %a : tensor<2xf32>
// MODULE-LABEL: func.func @f
// MODULE-NEXT:    func.return %a : tensor<2xf32>
func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {
  %dead = mindir.exp %a : tensor<2xf32>
  func.return %a : tensor<2xf32>
}

// A module pass written under func.func still runs (on the whole module):
// auto-monad threads @g's state.
// MODULEPASS-LABEL: func.func @g
// MODULEPASS-SAME:    -> (tensor<2xf32>, !mindir.u)
// MODULEPASS:         mindir.update_state
mindir.parameter @w = dense<[1.0, 2.0]> : tensor<2xf32>
func.func @g(%v: tensor<2xf32>, %u0: !mindir.u) -> tensor<2xf32> {
  %p = mindir.get_parameter @w : !mindir.ref<tensor<2xf32>>
  %a = mindir.assign %p, %v, %u0 : tensor<2xf32>
  func.return %a : tensor<2xf32>
}
