// RUN: ms-opt %s -p ascend-select-kernels | filecheck %s
// RUN: ms-opt %s -p ascend-select-kernels,ascend-select-kernels | filecheck %s
// RUN: ms-opt %s -p ascend-select-kernels | filecheck %s --check-prefix=TOP

// ascend-select-kernels wraps every computing op of a graph into one
// ascend.kernel (kernel type, unit, dtype, ND) whose code is the op plus the
// inits it uses; reshapes become views, Loads, tensor constants and graph calls
// stay, a global_store becomes an Assign kernel writing the Parameter, runtime
// calls become their kernels, and dtypes the AI Core lacks fall back to AI CPU.
// Running it twice changes nothing (an already selected graph is skipped).

// CHECK:       ml_program.global private mutable @p(dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>) : tensor<2xf32>
// CHECK-NEXT:  func.func private @__mindjit_float_status_alloc() -> tensor<8xf32> attributes {mindjit.runtime = "float_status_alloc"}
// CHECK-NEXT:  func.func private @__mindjit_float_status_clear(tensor<8xf32>) -> tensor<8xf32> attributes {mindjit.runtime = "float_status_clear"}
// CHECK-NEXT:  func.func private @__mindjit_float_status_get(tensor<8xf32>) -> tensor<8xf32> attributes {mindjit.runtime = "float_status_get"}
// CHECK-NEXT:  func.func private @__mindjit_print_0(tensor<2xf32>) -> () attributes {mindjit.runtime = "print"}
ml_program.global private mutable @p(dense<[1.0, 2.0]> : tensor<2xf32>) : tensor<2xf32>
func.func private @__mindjit_float_status_alloc() -> tensor<8xf32> attributes {mindjit.runtime = "float_status_alloc"}
func.func private @__mindjit_float_status_clear(tensor<8xf32>) -> tensor<8xf32> attributes {mindjit.runtime = "float_status_clear"}
func.func private @__mindjit_float_status_get(tensor<8xf32>) -> tensor<8xf32> attributes {mindjit.runtime = "float_status_get"}
func.func private @__mindjit_print_0(tensor<2xf32>) -> () attributes {mindjit.runtime = "print"}

// Matmul -> a cube MatMul kernel with its fill/empty/constant init copied into
// its code (the originals are gone); elementwise generics -> vector kernels
// named after their body (a max with 0.0 is ReLU); linalg.reduce -> ReduceSum /
// ReduceMax by its combiner; expand_shape / collapse_shape -> ascend.view.

// CHECK-LABEL: func.func @layer
// CHECK-NEXT:    %h0 = ascend.kernel "MatMul" cube f32 ND (%[[X:.*]] = %x, %[[W:.*]] = %w) : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32> {
// CHECK-NEXT:      %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[E:.*]] = tensor.empty() : tensor<4x16xf32>
// CHECK-NEXT:      %[[F:.*]] = linalg.fill ins(%[[Z]] : f32) outs(%[[E]] : tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT:      %[[MM:.*]] = linalg.matmul ins(%[[X]], %[[W]] : tensor<4x8xf32>, tensor<8x16xf32>) outs(%[[F]] : tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT:      ascend.yield %[[MM]] : tensor<4x16xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %h1 = ascend.kernel "Add" vector f32 ND (%{{.*}} = %h0, %{{.*}} = %b) : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32> {
// CHECK-NEXT:      tensor.empty() : tensor<4x16xf32>
// CHECK-NEXT:      linalg.generic
// CHECK:           ascend.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %h = ascend.kernel "ReLU" vector f32 ND (%{{.*}} = %h1) : (tensor<4x16xf32>) -> tensor<4x16xf32> {
// CHECK:         %s = ascend.kernel "ReduceSum" vector f32 ND (%{{.*}} = %h) : (tensor<4x16xf32>) -> tensor<4xf32> {
// CHECK-NEXT:      arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      tensor.empty() : tensor<4xf32>
// CHECK-NEXT:      linalg.fill
// CHECK-NEXT:      linalg.reduce
// CHECK:         %mx = ascend.kernel "ReduceMax" vector f32 ND (%{{.*}} = %h) : (tensor<4x16xf32>) -> tensor<4xf32> {
// CHECK-NEXT:      arith.constant 0xff800000 : f32
// CHECK:         %m = ascend.view %mx : tensor<4xf32> -> tensor<4x1xf32>
// CHECK-NEXT:    %m1 = ascend.view %m : tensor<4x1xf32> -> tensor<4xf32>
// CHECK-NEXT:    func.return %h, %s, %m, %m1 : tensor<4x16xf32>, tensor<4xf32>, tensor<4x1xf32>, tensor<4xf32>
// CHECK-NOT:     linalg.
// CHECK-NEXT:  }
// At the graph's top level only kernels and views remain (4-space indent):
// TOP-LABEL:   func.func @layer
// TOP-NOT:     {{^    [^ ].*(arith.constant|tensor.empty|linalg\.)}}
// TOP:         func.return
func.func @layer(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %b: tensor<16xf32>) -> (tensor<4x16xf32>, tensor<4xf32>, tensor<4x1xf32>, tensor<4xf32>) {
  %0 = arith.constant 0.000000e+00 : f32
  %1 = tensor.empty() : tensor<4x16xf32>
  %2 = linalg.fill ins(%0 : f32) outs(%1 : tensor<4x16xf32>) -> tensor<4x16xf32>
  %h0 = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x16xf32>) outs(%2 : tensor<4x16xf32>) -> tensor<4x16xf32>
  %3 = tensor.empty() : tensor<4x16xf32>
  %h1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%h0, %b : tensor<4x16xf32>, tensor<16xf32>) outs(%3 : tensor<4x16xf32>) {
  ^bb0(%4: f32, %5: f32, %6: f32):
    %7 = arith.addf %4, %5 : f32
    linalg.yield %7 : f32
  } -> tensor<4x16xf32>
  %8 = tensor.empty() : tensor<4x16xf32>
  %h = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%h1 : tensor<4x16xf32>) outs(%8 : tensor<4x16xf32>) {
  ^bb0(%9: f32, %10: f32):
    %11 = arith.constant 0.000000e+00 : f32
    %12 = arith.maximumf %9, %11 : f32
    linalg.yield %12 : f32
  } -> tensor<4x16xf32>
  %13 = arith.constant 0.000000e+00 : f32
  %14 = tensor.empty() : tensor<4xf32>
  %15 = linalg.fill ins(%13 : f32) outs(%14 : tensor<4xf32>) -> tensor<4xf32>
  %s = linalg.reduce ins(%h:tensor<4x16xf32>) outs(%15:tensor<4xf32>) dimensions = [1]
  (%16: f32, %17: f32) {
    %18 = arith.addf %16, %17 : f32
    linalg.yield %18 : f32
  }
  %19 = arith.constant 0xff800000 : f32
  %20 = tensor.empty() : tensor<4xf32>
  %21 = linalg.fill ins(%19 : f32) outs(%20 : tensor<4xf32>) -> tensor<4xf32>
  %mx = linalg.reduce ins(%h:tensor<4x16xf32>) outs(%21:tensor<4xf32>) dimensions = [1]
  (%23: f32, %24: f32) {
    %25 = arith.maximumf %23, %24 : f32
    linalg.yield %25 : f32
  }
  %m = tensor.expand_shape %mx [[0 : i64, 1 : i64]] output_shape [4, 1] : tensor<4xf32> into tensor<4x1xf32>
  %m1 = tensor.collapse_shape %m [[0 : i64, 1 : i64]] : tensor<4x1xf32> into tensor<4xf32>
  func.return %h, %s, %m, %m1 : tensor<4x16xf32>, tensor<4xf32>, tensor<4x1xf32>, tensor<4xf32>
}

// Parameters: a Load stays (it reads @p's memory in place) and kernels read it
// directly; linalg.copy is a TensorMove; a global_store is an Assign kernel
// that writes @p, yields the stored value and has no results.

// CHECK-LABEL: func.func @state
// CHECK-NEXT:    %l = ml_program.global_load @p : tensor<2xf32>
// CHECK-NEXT:    %mv = ascend.kernel "TensorMove" vector f32 ND (%[[L:.*]] = %l) : (tensor<2xf32>) -> tensor<2xf32> {
// CHECK-NEXT:      %[[E:.*]] = tensor.empty() : tensor<2xf32>
// CHECK-NEXT:      %[[C:.*]] = linalg.copy ins(%[[L]] : tensor<2xf32>) outs(%[[E]] : tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT:      ascend.yield %[[C]] : tensor<2xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %two = ascend.kernel "Add" vector f32 ND (%{{.*}} = %l) : (tensor<2xf32>) -> tensor<2xf32> {
// CHECK:         ascend.kernel "Assign" vector f32 ND writes @p (%[[V:.*]] = %two) : (tensor<2xf32>) -> () {
// CHECK-NEXT:      ascend.yield %[[V]] : tensor<2xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %mv : tensor<2xf32>
func.func @state() -> tensor<2xf32> {
  %l = ml_program.global_load @p : tensor<2xf32>
  %0 = tensor.empty() : tensor<2xf32>
  %mv = linalg.copy ins(%l : tensor<2xf32>) outs(%0 : tensor<2xf32>) -> tensor<2xf32>
  %1 = tensor.empty() : tensor<2xf32>
  %two = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%l, %l : tensor<2xf32>, tensor<2xf32>) outs(%1 : tensor<2xf32>) {
  ^bb0(%2: f32, %3: f32, %4: f32):
    %5 = arith.addf %2, %3 : f32
    linalg.yield %5 : f32
  } -> tensor<2xf32>
  ml_program.global_store @p = %two : tensor<2xf32>
  func.return %mv : tensor<2xf32>
}

// Dtypes: f64 has no AI Core kernel, so an f64 elementwise Add and an f64
// MatMul fall back to AI CPU; i32 is a vector dtype. A scalar op outside any
// tensor op is an AI CPU scalar kernel.

// CHECK-LABEL: func.func @dtypes
// CHECK-NEXT:    %dd = ascend.kernel "Add" aicpu f64 ND (%{{.*}} = %d) : (tensor<2xf64>) -> tensor<2xf64> {
// CHECK:         %mm = ascend.kernel "MatMul" aicpu f64 ND (%{{.*}} = %m) : (tensor<2x2xf64>) -> tensor<2x2xf64> {
// CHECK:         %ii = ascend.kernel "Add" vector i32 ND (%{{.*}} = %i) : (tensor<2xi32>) -> tensor<2xi32> {
// CHECK:         %s = ascend.kernel "ScalarAdd" aicpu f32 ND (%[[F:.*]] = %f) : (f32) -> f32 {
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[F]], %[[F]] : f32
// CHECK-NEXT:      ascend.yield %[[S]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %dd, %mm, %ii, %s
func.func @dtypes(%d: tensor<2xf64>, %m: tensor<2x2xf64>, %i: tensor<2xi32>, %f: f32) -> (tensor<2xf64>, tensor<2x2xf64>, tensor<2xi32>, f32) {
  %0 = tensor.empty() : tensor<2xf64>
  %dd = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%d, %d : tensor<2xf64>, tensor<2xf64>) outs(%0 : tensor<2xf64>) {
  ^bb0(%1: f64, %2: f64, %3: f64):
    %4 = arith.addf %1, %2 : f64
    linalg.yield %4 : f64
  } -> tensor<2xf64>
  %z = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<2x2xf64>
  %fz = linalg.fill ins(%z : f64) outs(%e : tensor<2x2xf64>) -> tensor<2x2xf64>
  %mm = linalg.matmul ins(%m, %m : tensor<2x2xf64>, tensor<2x2xf64>) outs(%fz : tensor<2x2xf64>) -> tensor<2x2xf64>
  %ei = tensor.empty() : tensor<2xi32>
  %ii = linalg.add ins(%i, %i : tensor<2xi32>, tensor<2xi32>) outs(%ei : tensor<2xi32>) -> tensor<2xi32>
  %s = arith.addf %f, %f : f32
  func.return %dd, %mm, %ii, %s : tensor<2xf64>, tensor<2x2xf64>, tensor<2xi32>, f32
}

// Control flow: scf.while is one AI CPU "While" kernel whose code is the loop.

// CHECK-LABEL: func.func @loop
// CHECK-NEXT:    %wl = ascend.kernel "While" aicpu f32 ND (%[[N:.*]] = %n) : (tensor<f32>) -> tensor<f32> {
// CHECK-NEXT:      %[[W:.*]] = scf.while (%i = %[[N]]) : (tensor<f32>) -> tensor<f32> {
// CHECK:           ascend.yield %[[W]] : tensor<f32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %wl : tensor<f32>
func.func @loop(%n: tensor<f32>) -> tensor<f32> {
  %wl = scf.while (%i = %n) : (tensor<f32>) -> tensor<f32> {
    %0 = tensor.empty() : tensor<i1>
    %lt = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []} ins(%i, %n : tensor<f32>, tensor<f32>) outs(%0 : tensor<i1>) {
    ^bb0(%1: f32, %2: f32, %3: i1):
      %4 = arith.cmpf olt, %1, %2 : f32
      linalg.yield %4 : i1
    } -> tensor<i1>
    %5 = tensor.extract %lt[] : tensor<i1>
    scf.condition(%5) %i : tensor<f32>
  } do {
  ^bb0(%j: tensor<f32>):
    %6 = tensor.empty() : tensor<f32>
    %next = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []} ins(%j, %n : tensor<f32>, tensor<f32>) outs(%6 : tensor<f32>) {
    ^bb0(%7: f32, %8: f32, %9: f32):
      %10 = arith.addf %7, %8 : f32
      linalg.yield %10 : f32
    } -> tensor<f32>
    scf.yield %next : tensor<f32>
  }
  func.return %wl : tensor<f32>
}

// Runtime calls become their kernels (the call is the kernel's code); a call of
// a graph stays a func.call; a tensor constant stays arith.constant.

// CHECK-LABEL: func.func @runtime
// CHECK-NEXT:    %cst = arith.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %st = ascend.kernel "NPUAllocFloatStatus" vector f32 ND : () -> tensor<8xf32> {
// CHECK-NEXT:      %[[A:.*]] = func.call @__mindjit_float_status_alloc() : () -> tensor<8xf32>
// CHECK-NEXT:      ascend.yield %[[A]] : tensor<8xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %c = ascend.kernel "NPUClearFloatStatus" vector f32 ND (%[[S1:.*]] = %st) : (tensor<8xf32>) -> tensor<8xf32> {
// CHECK-NEXT:      %[[C:.*]] = func.call @__mindjit_float_status_clear(%[[S1]]) : (tensor<8xf32>) -> tensor<8xf32>
// CHECK-NEXT:      ascend.yield %[[C]] : tensor<8xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %call = func.call @state() : () -> tensor<2xf32>
// CHECK-NEXT:    ascend.kernel "Print" aicpu f32 ND (%[[P:.*]] = %call) : (tensor<2xf32>) -> () {
// CHECK-NEXT:      func.call @__mindjit_print_0(%[[P]]) : (tensor<2xf32>) -> ()
// CHECK-NEXT:      ascend.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %g = ascend.kernel "NPUGetFloatStatus" vector f32 ND (%{{.*}} = %st) : (tensor<8xf32>) -> tensor<8xf32> {
// CHECK:         func.return %cst, %g : tensor<2xf32>, tensor<8xf32>
func.func @runtime() -> (tensor<2xf32>, tensor<8xf32>) {
  %cst = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %st = func.call @__mindjit_float_status_alloc() : () -> tensor<8xf32>
  %c = func.call @__mindjit_float_status_clear(%st) : (tensor<8xf32>) -> tensor<8xf32>
  %call = func.call @state() : () -> tensor<2xf32>
  func.call @__mindjit_print_0(%call) : (tensor<2xf32>) -> ()
  %g = func.call @__mindjit_float_status_get(%st) : (tensor<8xf32>) -> tensor<8xf32>
  func.return %cst, %g : tensor<2xf32>, tensor<8xf32>
}

// An init only a non-kernel uses (here func.return) becomes a Fill kernel;
// a no-op tensor.cast is a view.

// CHECK-LABEL: func.func @inits
// CHECK-NEXT:    %fill = ascend.kernel "Fill" vector f32 ND : () -> tensor<2xf32> {
// CHECK-NEXT:      %{{.*}} = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %{{.*}} = tensor.empty() : tensor<2xf32>
// CHECK-NEXT:      %{{.*}} = linalg.fill
// CHECK-NEXT:      ascend.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %cast = ascend.view %x : tensor<2xf32> -> tensor<2xf32>
// CHECK-NEXT:    func.return %fill, %cast : tensor<2xf32>, tensor<2xf32>
func.func @inits(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2xf32>
  %fill = linalg.fill ins(%z : f32) outs(%e : tensor<2xf32>) -> tensor<2xf32>
  %cast = tensor.cast %x : tensor<2xf32> to tensor<2xf32>
  func.return %fill, %cast : tensor<2xf32>, tensor<2xf32>
}

// mindir.uniform_real's lowering (an integer hash of linalg.index whose top 24
// bits become a float: sitofp(h >> 8) * 2**-24) is one UniformReal vector kernel.

// CHECK-LABEL: func.func @uniform_real
// CHECK-NEXT:    %u = ascend.kernel "UniformReal" vector f32 ND (%{{.*}} = %k, %{{.*}} = %o) : (tensor<i32>, tensor<i32>) -> tensor<8xf32> {
func.func @uniform_real(%k: tensor<i32>, %o: tensor<i32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %u = linalg.generic {indexing_maps = [affine_map<(d0) -> ()>, affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%k, %o : tensor<i32>, tensor<i32>) outs(%e : tensor<8xf32>) {
  ^bb0(%key: i32, %off: i32, %out: f32):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i32
    %g = arith.constant -1640531527 : i32
    %m = arith.muli %ii, %g : i32
    %x = arith.xori %m, %key : i32
    %y = arith.xori %x, %off : i32
    %c8 = arith.constant 8 : i32
    %s = arith.shrui %y, %c8 : i32
    %f = arith.sitofp %s : i32 to f32
    %unit = arith.constant 5.96046448e-08 : f32
    %r = arith.mulf %f, %unit : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  func.return %u : tensor<8xf32>
}

// mindir.sigmoid_grad's and mindir.tanh_grad's bodies (passes/mindir_to_tensor/scalar.py
// FLOAT_COMPOSITE) are MindSpore's SigmoidGrad and TanhGrad vector kernels, in any
// float type; the same ops computing something else keep their body's name.

// CHECK-LABEL: func.func @activation_grads
// CHECK-NEXT:    %sg = ascend.kernel "SigmoidGrad" vector f32 ND (%{{.*}} = %y, %{{.*}} = %dy) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
// CHECK:         %tg = ascend.kernel "TanhGrad" vector f16 ND (%{{.*}} = %h, %{{.*}} = %dh) : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16> {
// CHECK:         %other = ascend.kernel "Sub_Mul" vector f32 ND (%{{.*}} = %y, %{{.*}} = %dy) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
func.func @activation_grads(%y: tensor<4xf32>, %dy: tensor<4xf32>, %h: tensor<4xf16>, %dh: tensor<4xf16>) -> (tensor<4xf32>, tensor<4xf16>, tensor<4xf32>) {
  %e = tensor.empty() : tensor<4xf32>
  %sg = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%y, %dy : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %one = arith.constant 1.000000e+00 : f32
    %s = arith.subf %one, %a : f32
    %p = arith.mulf %a, %s : f32
    %r = arith.mulf %b, %p : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %eh = tensor.empty() : tensor<4xf16>
  %tg = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%h, %dh : tensor<4xf16>, tensor<4xf16>) outs(%eh : tensor<4xf16>) {
  ^bb0(%a: f16, %b: f16, %out: f16):
    %one = arith.constant 1.000000e+00 : f16
    %sq = arith.mulf %a, %a : f16
    %s = arith.subf %one, %sq : f16
    %r = arith.mulf %b, %s : f16
    linalg.yield %r : f16
  } -> tensor<4xf16>
  %other = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%y, %dy : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %one = arith.constant 1.000000e+00 : f32
    %s = arith.subf %one, %b : f32
    %p = arith.mulf %a, %s : f32
    %r = arith.mulf %b, %p : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  func.return %sg, %tg, %other : tensor<4xf32>, tensor<4xf16>, tensor<4xf32>
}
