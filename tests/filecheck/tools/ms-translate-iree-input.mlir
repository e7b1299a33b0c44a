// RUN: ms-translate --target=iree-input %s -o - --entry f | filecheck %s
// RUN: ms-translate --target=iree-input %s -o - --entry f | iree-compile --iree-hal-target-backends=llvm-cpu --iree-input-demote-f64-to-f32=false - -o /dev/null

// What the iree backend gives iree-compile (backend/iree/prepare.py): globals
// become arguments (after the caller's inputs) and written globals results
// (after the function's own); loads and stores are SSA values threaded through
// scf.if and scf.while and through calls; prints call imports of module
// `mindjit`; cf.assert messages carry a tag; unused scf.while values are kept
// used (IREE's stream-conversion bug); no ml_program global is left.

// CHECK-NOT: ml_program
// CHECK: func.func private @mindjit.print_0(tensor<3xf32>) -> ()
// CHECK: func.func private @bump(%{{.*}}: tensor<3xf32>, %[[B:.*]]: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
// CHECK:   %[[S:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %[[B]] :
// CHECK:   func.return %[[S]], %[[S]] : tensor<3xf32>, tensor<3xf32>

// state arguments in name order (bias, count, scale); the bound %w is @scale's
// CHECK: func.func @f(%[[X:.*]]: tensor<3xf32>, %{{.*}}: tensor<i1>, %{{.*}}: tensor<i32>, %[[BIAS:.*]]: tensor<3xf32>, %[[COUNT:.*]]: tensor<f32>, %[[SCALE:.*]]: tensor<3xf32>) -> (tensor<3xf32>, tensor<f32>, tensor<3xf32>, tensor<f32>)
// CHECK:   func.call @mindjit.print_0(%[[X]]) {mindjit.print_format = ["x:", 0 : i64]}
// CHECK:   %[[Y:.*]], %[[BIAS2:.*]] = scf.if %{{.*}} -> (tensor<3xf32>, tensor<3xf32>) {
// CHECK:     %[[R:.*]], %[[RB:.*]] = func.call @bump(%[[X]], %[[BIAS]])
// CHECK:     scf.yield %[[R]], %[[RB]] : tensor<3xf32>, tensor<3xf32>
// CHECK:   } else {
// CHECK:     scf.yield %[[X]], %[[BIAS]] : tensor<3xf32>, tensor<3xf32>
// CHECK:   %[[K:.*]], %[[CNT:.*]] = scf.while (%{{.*}} = %{{.*}}, %[[C0:.*]] = %[[COUNT]]) : (i32, tensor<f32>) -> (i32, tensor<f32>)
// CHECK:     scf.condition(%{{.*}}) %{{.*}}, %[[C0]] : i32, tensor<f32>
// CHECK:   } do {
// CHECK:   ^bb0(%{{.*}}: i32, %[[C1:.*]]: tensor<f32>):
// CHECK:     linalg.generic {{.*}} ins(%[[C1]], %{{.*}} : tensor<f32>, tensor<f32>)
// CHECK:     scf.yield %{{.*}}, %[[NEXT:.*]] : i32, tensor<f32>
// CHECK:   "util.optimization_barrier"(%[[K]]) : (i32) -> i32
// CHECK:   cf.assert %{{.*}}, "[mindjit-check-0] count must stay small"
// CHECK:   linalg.generic {{.*}} ins(%[[Y]], %[[SCALE]] :
// CHECK:   func.return %{{.*}}, %[[CNT]], %[[BIAS2]], %[[CNT]] : tensor<3xf32>, tensor<f32>, tensor<3xf32>, tensor<f32>

ml_program.global private mutable @count(dense<0.0> : tensor<f32>) : tensor<f32>
ml_program.global private mutable @bias(dense<[1.0, 2.0, 3.0]> : tensor<3xf32>) : tensor<3xf32>
ml_program.global private mutable @scale(dense<2.0> : tensor<3xf32>) : tensor<3xf32>
func.func private @__mindjit_print_0(tensor<3xf32>) -> () attributes {mindjit.runtime = "print"}
func.func private @bump(%x: tensor<3xf32>) -> tensor<3xf32> {
  %b = ml_program.global_load @bias : tensor<3xf32>
  %e = tensor.empty() : tensor<3xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x, %b : tensor<3xf32>, tensor<3xf32>) outs(%e : tensor<3xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %r = arith.addf %p, %q : f32
    linalg.yield %r : f32
  } -> tensor<3xf32>
  ml_program.global_store @bias = %s : tensor<3xf32>
  func.return %s : tensor<3xf32>
}
func.func @f(%x: tensor<3xf32>, %p: tensor<i1>, %n: tensor<i32>, %w: tensor<3xf32> {mindjit.global = @scale})
    -> (tensor<3xf32>, tensor<f32>) {
  func.call @__mindjit_print_0(%x) {mindjit.print_format = ["x:", 0 : i64]} : (tensor<3xf32>) -> ()
  %one = arith.constant dense<1.0> : tensor<f32>
  %c = tensor.extract %p[] : tensor<i1>
  %y = scf.if %c -> (tensor<3xf32>) {
    %r = func.call @bump(%x) : (tensor<3xf32>) -> tensor<3xf32>
    scf.yield %r : tensor<3xf32>
  } else {
    scf.yield %x : tensor<3xf32>
  }
  %limit = tensor.extract %n[] : tensor<i32>
  %z = arith.constant 0 : i32
  %i1 = arith.constant 1 : i32
  %k = scf.while (%i = %z) : (i32) -> i32 {
    %go = arith.cmpi slt, %i, %limit : i32
    scf.condition(%go) %i : i32
  } do {
  ^bb0(%j: i32):
    %c0 = ml_program.global_load @count : tensor<f32>
    %e = tensor.empty() : tensor<f32>
    %c1 = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []} ins(%c0, %one : tensor<f32>, tensor<f32>) outs(%e : tensor<f32>) {
    ^bb0(%a: f32, %b: f32, %o: f32):
      %r = arith.addf %a, %b : f32
      linalg.yield %r : f32
    } -> tensor<f32>
    ml_program.global_store @count = %c1 : tensor<f32>
    %next = arith.addi %j, %i1 : i32
    scf.yield %next : i32
  }
  %cnt = ml_program.global_load @count : tensor<f32>
  %v = tensor.extract %cnt[] : tensor<f32>
  %big = arith.constant 100.0 : f32
  %ok = arith.cmpf olt, %v, %big : f32
  cf.assert %ok, "count must stay small"
  %e3 = tensor.empty() : tensor<3xf32>
  %out = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%y, %w : tensor<3xf32>, tensor<3xf32>) outs(%e3 : tensor<3xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.mulf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<3xf32>
  func.return %out, %cnt : tensor<3xf32>, tensor<f32>
}
