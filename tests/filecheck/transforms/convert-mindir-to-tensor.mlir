// RUN: ms-opt %s -p convert-mindir-to-tensor --split-input-file | filecheck %s

// Every mindir value op and if/while lowered to func/arith/math/tensor/linalg/scf.
// The `tensor.empty`s and scalar constants a function needs are made once, at its
// start, and shared.

// CHECK-LABEL: func.func @constant
// CHECK-NEXT:    %c = arith.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    func.return %c
func.func @constant() -> tensor<2xf32> {
  %c = mindir.constant dense<[1.0, 2.0]> : tensor<2xf32>
  func.return %c : tensor<2xf32>
}

// -----

// Broadcasting is explicit in the indexing maps: a lower-rank operand reads the
// trailing loops, a rank-0 operand reads none.

// CHECK-LABEL: func.func @add_broadcast
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<2x3xf32>
// CHECK-NEXT:    %{{.*}} = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a, %b : tensor<2x3xf32>, tensor<3xf32>) outs(%[[E]] : tensor<2x3xf32>) {
// CHECK-NEXT:    ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[R:.*]] = arith.addf %[[X]], %[[Y]] : f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32
// CHECK-NEXT:    } -> tensor<2x3xf32>
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK:           arith.mulf
func.func @add_broadcast(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %s: tensor<f32>) -> tensor<2x3xf32> {
  %0 = mindir.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = mindir.mul %0, %s : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  func.return %1 : tensor<2x3xf32>
}

// -----

// A size-1 dim broadcast against a larger one is collapsed away first, so every
// map stays a projected permutation.

// CHECK-LABEL: func.func @sub_unit_dims
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<1x4x3xi32>
// CHECK-NEXT:    %[[C:.*]] = tensor.collapse_shape %b {{\[}}[0 : i64, 1 : i64]] : tensor<4x1xi32> into tensor<4xi32>
// CHECK-NEXT:    %[[D:.*]] = tensor.collapse_shape %a {{\[}}[0 : i64, 1 : i64], [2 : i64]] : tensor<1x1x3xi32> into tensor<1x3xi32>
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[C]], %[[D]] : tensor<4xi32>, tensor<1x3xi32>)
// CHECK:           arith.subi
func.func @sub_unit_dims(%b: tensor<4x1xi32>, %a: tensor<1x1x3xi32>) -> tensor<1x4x3xi32> {
  %0 = mindir.sub %b, %a : (tensor<4x1xi32>, tensor<1x1x3xi32>) -> tensor<1x4x3xi32>
  func.return %0 : tensor<1x4x3xi32>
}

// -----

// CHECK-LABEL: func.func @int_semantics
// CHECK:         arith.divsi
// CHECK:         math.ipowi
// CHECK:         arith.maxsi
// CHECK:         %[[Z:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    arith.subi %[[Z]], %{{.*}} : i32
// CHECK:         math.absi
func.func @int_semantics(%a: tensor<4xi32>, %b: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>) {
  %0 = mindir.div %a, %b : tensor<4xi32>
  %1 = mindir.pow %a, %b : tensor<4xi32>
  %2 = mindir.relu %a : tensor<4xi32>
  %3 = mindir.neg %a : tensor<4xi32>
  %4 = mindir.abs %a : tensor<4xi32>
  func.return %0, %1, %2, %3, %4 : tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>
}

// -----

// Compares: ordered float predicates (une for not_equal), signed ints, unsigned i1.

// CHECK-LABEL: func.func @compare
// CHECK:         arith.cmpf olt
// CHECK:         } -> tensor<3xi1>
// CHECK:         arith.cmpf une
// CHECK:         arith.cmpi sge
// CHECK:         arith.cmpi ult
func.func @compare(%a: tensor<3xf32>, %i: tensor<3xi32>, %k: tensor<3xi1>) -> (tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>) {
  %0 = mindir.less %a, %a : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  %1 = mindir.not_equal %a, %a : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  %2 = mindir.greater_equal %i, %i : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
  %3 = mindir.less %k, %k : tensor<3xi1>
  func.return %0, %1, %2, %3 : tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>
}

// -----

// CHECK-LABEL: func.func @logical_select
// CHECK:         arith.andi
// CHECK:         %[[T:.*]] = arith.constant true
// CHECK-NEXT:    arith.xori %{{.*}}, %[[T]] : i1
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>]
// CHECK:           arith.select
func.func @logical_select(%k: tensor<3xi1>, %a: tensor<3xf32>, %s: tensor<f32>) -> (tensor<3xi1>, tensor<3xi1>, tensor<3xf32>) {
  %0 = mindir.logical_and %k, %k : tensor<3xi1>
  %1 = mindir.logical_not %k : tensor<3xi1>
  %2 = mindir.select %k, %a, %s : (tensor<3xi1>, tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  func.return %0, %1, %2 : tensor<3xi1>, tensor<3xi1>, tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @unary_float
// CHECK:         math.exp
// CHECK:         math.sqrt
// CHECK:         arith.negf
// CHECK-NEXT:    math.exp
// CHECK-NEXT:    arith.addf
// CHECK-NEXT:    arith.divf
// CHECK:         arith.addf
// CHECK-NEXT:    arith.maximumf
// CHECK-NEXT:    arith.minimumf
// CHECK-NEXT:    arith.mulf
// CHECK-NEXT:    arith.divf
func.func @unary_float(%a: tensor<3xf16>) -> (tensor<3xf16>, tensor<3xf16>, tensor<3xf16>, tensor<3xf16>) {
  %0 = mindir.exp %a : tensor<3xf16>
  %1 = mindir.sqrt %a : tensor<3xf16>
  %2 = mindir.sigmoid %a : tensor<3xf16>
  %3 = mindir.hswish %a : tensor<3xf16>
  func.return %0, %1, %2, %3 : tensor<3xf16>, tensor<3xf16>, tensor<3xf16>, tensor<3xf16>
}

// -----

// log1p and expm1 are one math op each (accurate for tiny x); atan2 broadcasts its
// operands like any binary op.
// CHECK-LABEL: func.func @log1p_expm1_atan2
// CHECK:         math.log1p
// CHECK:         math.expm1
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%{{.*}}, %{{.*}} : tensor<2x3xf32>, tensor<3xf32>)
// CHECK:         math.atan2 %{{.*}}, %{{.*}} : f32
func.func @log1p_expm1_atan2(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = mindir.log1p %a : tensor<2x3xf32>
  %1 = mindir.expm1 %a : tensor<2x3xf32>
  %2 = mindir.atan2 %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  func.return %0, %1, %2 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// sigmoid_grad(y, dy) and tanh_grad(y, dy) (mindir-grad's adjoints of sigmoid and
// tanh) are one generic each, broadcasting like any binary op, whose body is the
// formula: dy * (y * (1 - y)) and dy * (1 - y * y).
// CHECK-LABEL: func.func @activation_grads
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%y, %dy : tensor<2x3xf32>, tensor<3xf32>)
// CHECK-NEXT:    ^bb0(%[[Y:.*]]: f32, %[[DY:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:      %[[S:.*]] = arith.subf %[[ONE]], %[[Y]] : f32
// CHECK-NEXT:      %[[P:.*]] = arith.mulf %[[Y]], %[[S]] : f32
// CHECK-NEXT:      %[[R:.*]] = arith.mulf %[[DY]], %[[P]] : f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%y, %dy2 : tensor<2x3xf32>, tensor<2x3xf32>)
// CHECK-NEXT:    ^bb0(%[[Y2:.*]]: f32, %[[DY2:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[ONE2:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:      %[[SQ:.*]] = arith.mulf %[[Y2]], %[[Y2]] : f32
// CHECK-NEXT:      %[[D:.*]] = arith.subf %[[ONE2]], %[[SQ]] : f32
// CHECK-NEXT:      %[[R2:.*]] = arith.mulf %[[DY2]], %[[D]] : f32
// CHECK-NEXT:      linalg.yield %[[R2]] : f32
func.func @activation_grads(%y: tensor<2x3xf32>, %dy: tensor<3xf32>, %dy2: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = mindir.sigmoid_grad %y, %dy : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = mindir.tanh_grad %y, %dy2 : tensor<2x3xf32>
  func.return %0, %1 : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// stop_gradient has done its work in mindir-grad: lowered, it is its operand.
// CHECK-LABEL: func.func @stop_gradient
// CHECK-NEXT:    func.return %a : tensor<2x3xf32>
func.func @stop_gradient(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = mindir.stop_gradient %a : tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @cast
// CHECK:         arith.fptosi %{{.*}} : f32 to i32
// CHECK:         arith.extf %{{.*}} : f16 to f32
// CHECK:         %[[Z:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    arith.cmpi ne, %{{.*}}, %[[Z]] : i32
// CHECK:         arith.uitofp %{{.*}} : i1 to f32
// CHECK:         func.return %a,
func.func @cast(%a: tensor<2xf32>, %h: tensor<2xf16>, %i: tensor<2xi32>, %k: tensor<2xi1>) -> (tensor<2xf32>, tensor<2xi32>, tensor<2xf32>, tensor<2xi1>, tensor<2xf32>) {
  %0 = mindir.cast %a {to = f32} : (tensor<2xf32>) -> tensor<2xf32>
  %1 = mindir.cast %a {to = i32} : (tensor<2xf32>) -> tensor<2xi32>
  %2 = mindir.cast %h {to = f32} : (tensor<2xf16>) -> tensor<2xf32>
  %3 = mindir.cast %i {to = i1} : (tensor<2xi32>) -> tensor<2xi1>
  %4 = mindir.cast %k {to = f32} : (tensor<2xi1>) -> tensor<2xf32>
  func.return %0, %1, %2, %3, %4 : tensor<2xf32>, tensor<2xi32>, tensor<2xf32>, tensor<2xi1>, tensor<2xf32>
}

// -----

// CHECK-LABEL: func.func @matmul_2d
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<3x4xf32>
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %[[O:.*]] = tensor.empty() : tensor<2x4xf32>
// CHECK-NEXT:    %[[F:.*]] = linalg.fill ins(%[[Z]] : f32) outs(%[[O]] : tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    %[[BT:.*]] = linalg.transpose ins(%b:tensor<4x3xf32>) outs(%[[E]]:tensor<3x4xf32>) permutation = [1, 0]
// CHECK-NEXT:    %{{.*}} = linalg.matmul ins(%a, %[[BT]] : tensor<2x3xf32>, tensor<3x4xf32>) outs(%[[F]] : tensor<2x4xf32>) -> tensor<2x4xf32>
func.func @matmul_2d(%a: tensor<2x3xf32>, %b: tensor<4x3xf32>) -> tensor<2x4xf32> {
  %0 = mindir.matmul %a, %b {transpose_b = true} : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
  func.return %0 : tensor<2x4xf32>
}

// -----

// A weight transposed for several matmuls (an unrolled RNN's recurrent weight, once
// per step) is transposed once, where it is first needed, and read by the later
// matmuls of that block and of the regions nested in it.

// CHECK-LABEL: func.func @shared_transpose
// CHECK:         %[[WT:.*]] = linalg.transpose ins(%w:tensor<4x3xf32>)
// CHECK-NOT:     linalg.transpose
// CHECK:         linalg.matmul ins(%h, %[[WT]] : tensor<2x3xf32>, tensor<3x4xf32>)
// CHECK:         scf.while
// CHECK:         linalg.matmul ins(%{{.*}}, %[[WT]] : tensor<2x3xf32>, tensor<3x4xf32>)
// CHECK:         linalg.matmul ins(%{{.*}}, %[[WT]] : tensor<2x3xf32>, tensor<3x4xf32>)
func.func @shared_transpose(%h: tensor<2x3xf32>, %w: tensor<4x3xf32>, %c: tensor<i1>) -> (tensor<2x4xf32>, tensor<2x3xf32>) {
  %0 = mindir.matmul %h, %w {transpose_b = true} : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
  %r = mindir.while (%x = %h) : (tensor<2x3xf32>) -> tensor<2x3xf32> {
    mindir.condition(%c : tensor<i1>) %x : tensor<2x3xf32>
  } do {
  ^bb0(%y: tensor<2x3xf32>):
    %1 = mindir.matmul %y, %w {transpose_b = true} : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
    %2 = mindir.matmul %y, %w {transpose_b = true} : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
    %3 = mindir.add %1, %2 : tensor<2x4xf32>
    %4 = mindir.get_item %3 {starts = array<i64: 0, 0>, limits = array<i64: 2, 3>, strides = array<i64: 1, 1>} : (tensor<2x4xf32>) -> tensor<2x3xf32>
    mindir.yield %4 : tensor<2x3xf32>
  }
  func.return %0, %r : tensor<2x4xf32>, tensor<2x3xf32>
}

// -----

// Batched: one contraction generic; the broadcast batch dim of %a is collapsed and
// transpose_a is folded into its map.

// CHECK-LABEL: func.func @matmul_batched
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %[[O:.*]] = tensor.empty() : tensor<5x2x4xf32>
// CHECK-NEXT:    %[[F:.*]] = linalg.fill ins(%[[Z]] : f32) outs(%[[O]] : tensor<5x2x4xf32>)
// CHECK-NEXT:    %[[A:.*]] = tensor.collapse_shape %a {{\[}}[0 : i64, 1 : i64], [2 : i64]] : tensor<1x3x2xf32> into tensor<3x2xf32>
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d3, d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[A]], %b : tensor<3x2xf32>, tensor<5x3x4xf32>) outs(%[[F]] : tensor<5x2x4xf32>) {
// CHECK-NEXT:    ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT:      %[[M:.*]] = arith.mulf %[[X]], %[[Y]] : f32
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[ACC]], %[[M]] : f32
// CHECK-NEXT:      linalg.yield %[[S]] : f32
func.func @matmul_batched(%a: tensor<1x3x2xf32>, %b: tensor<5x3x4xf32>) -> tensor<5x2x4xf32> {
  %0 = mindir.matmul %a, %b {transpose_a = true} : (tensor<1x3x2xf32>, tensor<5x3x4xf32>) -> tensor<5x2x4xf32>
  func.return %0 : tensor<5x2x4xf32>
}

// -----

// CHECK-LABEL: func.func @reduce_keep_dims
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<2xf32>
// CHECK-NEXT:    %[[F:.*]] = linalg.fill ins(%[[Z]] : f32) outs(%[[E]] : tensor<2xf32>)
// CHECK-NEXT:    %[[NEG:.*]] = arith.constant -2147483648 : i32
// CHECK-NEXT:    tensor.empty() : tensor<2xi32>
// CHECK-NEXT:    linalg.fill ins(%[[NEG]] : i32)
// CHECK-NEXT:    %[[M:.*]] = arith.constant 0xff800000 : f32
// CHECK-NEXT:    tensor.empty() : tensor<f32>
// CHECK-NEXT:    linalg.fill ins(%[[M]] : f32)
// CHECK-NEXT:    %[[R:.*]] = linalg.reduce ins(%a:tensor<2x3x4xf32>) outs(%[[F]]:tensor<2xf32>) dimensions = [1, 2]
// CHECK-NEXT:    (%[[X:.*]]: f32, %[[Y:.*]]: f32) {
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[X]], %[[Y]] : f32
// CHECK-NEXT:      linalg.yield %[[S]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    %{{.*}} = tensor.expand_shape %[[R]] {{\[}}[0 : i64, 1 : i64, 2 : i64]] output_shape [2, 1, 1] : tensor<2xf32> into tensor<2x1x1xf32>
// CHECK:         linalg.reduce
// CHECK:           arith.maxsi
// CHECK:         %[[ALL:.*]] = linalg.reduce ins(%a:tensor<2x3x4xf32>) outs(%{{.*}}:tensor<f32>) dimensions = [0, 1, 2]
// CHECK:           arith.maximumf
// CHECK:         %[[V:.*]] = tensor.extract %[[ALL]][] : tensor<f32>
// CHECK-NEXT:    tensor.from_elements %[[V]] : tensor<1x1x1xf32>
func.func @reduce_keep_dims(%a: tensor<2x3x4xf32>, %i: tensor<2x3xi32>) -> (tensor<2x1x1xf32>, tensor<2xi32>, tensor<1x1x1xf32>) {
  %0 = mindir.reduce_sum %a {axis = array<i64: 1, -1>, keep_dims = true} : (tensor<2x3x4xf32>) -> tensor<2x1x1xf32>
  %1 = mindir.reduce_max %i {axis = array<i64: 1>} : (tensor<2x3xi32>) -> tensor<2xi32>
  %2 = mindir.reduce_max %a {axis = array<i64>, keep_dims = true} : (tensor<2x3x4xf32>) -> tensor<1x1x1xf32>
  func.return %0, %1, %2 : tensor<2x1x1xf32>, tensor<2xi32>, tensor<1x1x1xf32>
}

// -----

// CHECK-LABEL: func.func @reduce_mean
// CHECK:         %[[S:.*]] = linalg.reduce ins(%a:tensor<2x3x4xf32>) outs(%{{.*}}:tensor<3xf32>) dimensions = [0, 2]
// CHECK:         linalg.generic {{.*}} ins(%[[S]] : tensor<3xf32>)
// CHECK-NEXT:    ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[N:.*]] = arith.constant 8.000000e+00 : f32
// CHECK-NEXT:      %{{.*}} = arith.divf %[[X]], %[[N]] : f32
func.func @reduce_mean(%a: tensor<2x3x4xf32>) -> tensor<3xf32> {
  %0 = mindir.reduce_mean %a {axis = array<i64: 0, 2>} : (tensor<2x3x4xf32>) -> tensor<3xf32>
  func.return %0 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @reshape
// CHECK-NEXT:    %[[C:.*]] = tensor.collapse_shape %a {{\[}}[0 : i64, 1 : i64], [2 : i64]] : tensor<2x3x4xf32> into tensor<6x4xf32>
// CHECK-NEXT:    %[[X:.*]] = tensor.expand_shape %a {{\[}}[0 : i64], [1 : i64], [2 : i64, 3 : i64]] output_shape [2, 3, 2, 2] : tensor<2x3x4xf32> into tensor<2x3x2x2xf32>
// CHECK-NEXT:    %[[F:.*]] = tensor.collapse_shape %a {{\[}}[0 : i64, 1 : i64, 2 : i64]] : tensor<2x3x4xf32> into tensor<24xf32>
// CHECK-NEXT:    %[[T:.*]] = tensor.expand_shape %[[F]] {{\[}}[0 : i64, 1 : i64]] output_shape [4, 6] : tensor<24xf32> into tensor<4x6xf32>
// CHECK-NEXT:    %[[V:.*]] = tensor.extract %s[] : tensor<f32>
// CHECK-NEXT:    %[[S1:.*]] = tensor.from_elements %[[V]] : tensor<1x1xf32>
// CHECK-NEXT:    %[[S0:.*]] = tensor.collapse_shape %[[S1]] [] : tensor<1x1xf32> into tensor<f32>
// CHECK-NEXT:    func.return %[[C]], %[[X]], %[[T]], %[[S1]], %[[S0]]
func.func @reshape(%a: tensor<2x3x4xf32>, %s: tensor<f32>) -> (tensor<6x4xf32>, tensor<2x3x2x2xf32>, tensor<4x6xf32>, tensor<1x1xf32>, tensor<f32>) {
  %0 = mindir.reshape %a : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  %1 = mindir.reshape %a : (tensor<2x3x4xf32>) -> tensor<2x3x2x2xf32>
  %2 = mindir.reshape %a : (tensor<2x3x4xf32>) -> tensor<4x6xf32>
  %3 = mindir.reshape %s : (tensor<f32>) -> tensor<1x1xf32>
  %4 = mindir.reshape %3 : (tensor<1x1xf32>) -> tensor<f32>
  func.return %0, %1, %2, %3, %4 : tensor<6x4xf32>, tensor<2x3x2x2xf32>, tensor<4x6xf32>, tensor<1x1xf32>, tensor<f32>
}

// -----

// CHECK-LABEL: func.func @transpose
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<4x2x3xf32>
// CHECK-NEXT:    %{{.*}} = linalg.transpose ins(%a:tensor<2x3x4xf32>) outs(%[[E]]:tensor<4x2x3xf32>) permutation = [2, 0, 1]
func.func @transpose(%a: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %0 = mindir.transpose %a {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  func.return %0 : tensor<4x2x3xf32>
}

// -----

// CHECK-LABEL: func.func @broadcast_to
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<5x4x3xf32>
// CHECK-NEXT:    %[[C:.*]] = tensor.collapse_shape %a {{\[}}[0 : i64, 1 : i64]] : tensor<1x3xf32> into tensor<3xf32>
// CHECK-NEXT:    %{{.*}} = linalg.broadcast ins(%[[C]]:tensor<3xf32>) outs(%[[E]]:tensor<5x4x3xf32>) dimensions = [0, 1]
func.func @broadcast_to(%a: tensor<1x3xf32>) -> tensor<5x4x3xf32> {
  %0 = mindir.broadcast_to %a : (tensor<1x3xf32>) -> tensor<5x4x3xf32>
  func.return %0 : tensor<5x4x3xf32>
}

// -----

// A value reshaped the same way twice is reshaped once (Emitter.derived).

// CHECK-LABEL: func.func @concat_stack
// CHECK-NEXT:    %{{.*}} = tensor.concat dim(1) %a, %b : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    %[[X:.*]] = tensor.expand_shape %a {{\[}}[0 : i64], [1 : i64, 2 : i64]] output_shape [2, 3, 1] : tensor<2x3xf32> into tensor<2x3x1xf32>
// CHECK-NEXT:    %{{.*}} = tensor.concat dim(2) %[[X]], %[[X]] : (tensor<2x3x1xf32>, tensor<2x3x1xf32>) -> tensor<2x3x2xf32>
func.func @concat_stack(%a: tensor<2x3xf32>, %b: tensor<2x1xf32>) -> (tensor<2x4xf32>, tensor<2x3x2xf32>) {
  %0 = mindir.concat %a, %b {axis = -1 : i64} : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
  %1 = mindir.stack %a, %a {axis = 2 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3x2xf32>
  func.return %0, %1 : tensor<2x4xf32>, tensor<2x3x2xf32>
}

// -----

// Each piece of an unstack is a rank-reducing slice; the lowering erases the one
// nothing reads.

// CHECK-LABEL: func.func @unstack
// CHECK-NEXT:    %p = tensor.extract_slice %a[0, 0] [2, 1] [1, 1] : tensor<2x3xf32> to tensor<2xf32>
// CHECK-NEXT:    %p_1 = tensor.extract_slice %a[0, 2] [2, 1] [1, 1] : tensor<2x3xf32> to tensor<2xf32>
// CHECK-NEXT:    func.return %p_1, %p : tensor<2xf32>, tensor<2xf32>
func.func @unstack(%a: tensor<2x3xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %p:3 = mindir.unstack %a {axis = 1 : i64} : tensor<2x3xf32> -> tensor<2xf32>
  func.return %p#2, %p#0 : tensor<2xf32>, tensor<2xf32>
}

// -----

// CHECK-LABEL: func.func @get_item
// CHECK-NEXT:    %{{.*}} = tensor.extract_slice %a[1, 0] [1, 2] [1, 2] : tensor<2x3xf32> to tensor<2xf32>
func.func @get_item(%a: tensor<2x3xf32>) -> tensor<2xf32> {
  %0 = mindir.get_item %a {starts = array<i64: 1, 0>, limits = array<i64: 2, 3>, strides = array<i64: 1, 2>, squeeze = array<i64: 0>} : (tensor<2x3xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}

// -----

// Tuples are flattened at func/call/return boundaries (recursively);
// tuple_get_item(make_tuple) folds and addn(make_tuple) is one generic.

// CHECK-LABEL: func.func @callee
// CHECK-SAME:    (%{{.*}}: tensor<2xf32>, %{{.*}}: tensor<f32>, %{{.*}}: tensor<2xi32>) -> (tensor<2xf32>, tensor<f32>)
// CHECK-NEXT:    func.return %{{.*}}, %{{.*}} : tensor<2xf32>, tensor<f32>
func.func @callee(%t: tuple<tensor<2xf32>, tuple<tensor<f32>, tensor<2xi32>>>) -> tuple<tensor<2xf32>, tensor<f32>> {
  %a = mindir.tuple_get_item %t {index = 0 : i64} : (tuple<tensor<2xf32>, tuple<tensor<f32>, tensor<2xi32>>>) -> tensor<2xf32>
  %in = mindir.tuple_get_item %t {index = 1 : i64} : (tuple<tensor<2xf32>, tuple<tensor<f32>, tensor<2xi32>>>) -> tuple<tensor<f32>, tensor<2xi32>>
  %s = mindir.tuple_get_item %in {index = 0 : i64} : (tuple<tensor<f32>, tensor<2xi32>>) -> tensor<f32>
  %r = mindir.make_tuple %a, %s : (tensor<2xf32>, tensor<f32>) -> tuple<tensor<2xf32>, tensor<f32>>
  func.return %r : tuple<tensor<2xf32>, tensor<f32>>
}

// CHECK-LABEL: func.func @caller
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<2xf32>
// CHECK-NEXT:    %[[R:.*]], %{{.*}} = func.call @callee(%x, %s, %i) : (tensor<2xf32>, tensor<f32>, tensor<2xi32>) -> (tensor<2xf32>, tensor<f32>)
// CHECK-NEXT:    %{{.*}} = linalg.generic {{.*}} ins(%[[R]], %x, %x : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) outs(%[[E]] : tensor<2xf32>) {
// CHECK-NEXT:    ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %[[C:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[AB:.*]] = arith.addf %[[A]], %[[B]] : f32
// CHECK-NEXT:      %[[ABC:.*]] = arith.addf %[[AB]], %[[C]] : f32
// CHECK-NEXT:      linalg.yield %[[ABC]] : f32
// CHECK-NOT:     mindir
// CHECK-NOT:     tuple
func.func @caller(%x: tensor<2xf32>, %s: tensor<f32>, %i: tensor<2xi32>) -> tensor<2xf32> {
  %in = mindir.make_tuple %s, %i : (tensor<f32>, tensor<2xi32>) -> tuple<tensor<f32>, tensor<2xi32>>
  %t = mindir.make_tuple %x, %in : (tensor<2xf32>, tuple<tensor<f32>, tensor<2xi32>>) -> tuple<tensor<2xf32>, tuple<tensor<f32>, tensor<2xi32>>>
  %r = func.call @callee(%t) : (tuple<tensor<2xf32>, tuple<tensor<f32>, tensor<2xi32>>>) -> tuple<tensor<2xf32>, tensor<f32>>
  %a = mindir.tuple_get_item %r {index = 0 : i64} : (tuple<tensor<2xf32>, tensor<f32>>) -> tensor<2xf32>
  %p = mindir.make_tuple %a, %x, %x : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tuple<tensor<2xf32>, tensor<2xf32>, tensor<2xf32>>
  %n = mindir.addn %p : (tuple<tensor<2xf32>, tensor<2xf32>, tensor<2xf32>>) -> tensor<2xf32>
  func.return %n : tensor<2xf32>
}

// -----

// CHECK-LABEL: func.func @if
// CHECK-NEXT:    %[[C:.*]] = tensor.extract %c[] : tensor<i1>
// CHECK-NEXT:    %{{.*}} = scf.if %[[C]] -> (tensor<f32>) {
// CHECK-NEXT:      %[[E:.*]] = tensor.empty() : tensor<f32>
// CHECK-NEXT:      %[[N:.*]] = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []} ins(%x : tensor<f32>) outs(%[[E]] : tensor<f32>) {
// CHECK:             arith.negf
// CHECK:           scf.yield %[[N]] : tensor<f32>
// CHECK-NEXT:    } else {
// CHECK-NEXT:      scf.yield %x : tensor<f32>
// CHECK-NEXT:    }
func.func @if(%c: tensor<i1>, %x: tensor<f32>) -> tensor<f32> {
  %r = mindir.if %c -> (tensor<f32>) {
    %n = mindir.neg %x : tensor<f32>
    mindir.yield %n : tensor<f32>
  } else {
    mindir.yield %x : tensor<f32>
  }
  func.return %r : tensor<f32>
}

// -----

// CHECK-LABEL: func.func @while
// CHECK:         %{{.*}} = scf.while (%[[I:.*]] = %x) : (tensor<f32>) -> tensor<f32> {
// CHECK:           %[[LT:.*]] = linalg.generic
// CHECK:             arith.cmpf olt
// CHECK:           %[[B:.*]] = tensor.extract %[[LT]][] : tensor<i1>
// CHECK-NEXT:      scf.condition(%[[B]]) %[[I]] : tensor<f32>
// CHECK-NEXT:    } do {
// CHECK-NEXT:    ^bb0(%[[J:.*]]: tensor<f32>):
// CHECK:           %[[NEXT:.*]] = linalg.generic
// CHECK:             arith.addf
// CHECK:           scf.yield %[[NEXT]] : tensor<f32>
// CHECK-NEXT:    }
func.func @while(%x: tensor<f32>, %n: tensor<f32>) -> tensor<f32> {
  %w = mindir.while (%i = %x) : (tensor<f32>) -> tensor<f32> {
    %lt = mindir.less %i, %n : (tensor<f32>, tensor<f32>) -> tensor<i1>
    mindir.condition(%lt : tensor<i1>) %i : tensor<f32>
  } do {
  ^bb0(%j: tensor<f32>):
    %next = mindir.add %j, %n : tensor<f32>
    mindir.yield %next : tensor<f32>
  }
  func.return %w : tensor<f32>
}

// -----

// Tuples carried by while/if are flattened too.

// CHECK-LABEL: func.func @tuple_loop
// CHECK-SAME:    -> (tensor<f32>, tensor<2xf32>)
// CHECK:         %[[W0:.*]], %[[W1:.*]] = scf.while (%{{.*}} = %x, %{{.*}} = %y) : (tensor<f32>, tensor<2xf32>) -> (tensor<f32>, tensor<2xf32>) {
// CHECK:           scf.condition(%{{.*}}) %{{.*}}, %{{.*}} : tensor<f32>, tensor<2xf32>
// CHECK:         } do {
// CHECK-NEXT:    ^bb0(%{{.*}}: tensor<f32>, %{{.*}}: tensor<2xf32>):
// CHECK:           scf.yield %{{.*}}, %{{.*}} : tensor<f32>, tensor<2xf32>
// CHECK:         %{{.*}}, %{{.*}} = scf.if %{{.*}} -> (tensor<f32>, tensor<2xf32>) {
// CHECK-NEXT:      scf.yield %[[W0]], %[[W1]] : tensor<f32>, tensor<2xf32>
// CHECK-NEXT:    } else {
// CHECK-NEXT:      scf.yield %x, %y : tensor<f32>, tensor<2xf32>
func.func @tuple_loop(%c: tensor<i1>, %x: tensor<f32>, %y: tensor<2xf32>) -> tuple<tensor<f32>, tensor<2xf32>> {
  %t0 = mindir.make_tuple %x, %y : (tensor<f32>, tensor<2xf32>) -> tuple<tensor<f32>, tensor<2xf32>>
  %w = mindir.while (%t = %t0) : (tuple<tensor<f32>, tensor<2xf32>>) -> tuple<tensor<f32>, tensor<2xf32>> {
    %i = mindir.tuple_get_item %t {index = 0 : i64} : (tuple<tensor<f32>, tensor<2xf32>>) -> tensor<f32>
    %lt = mindir.less %i, %x : (tensor<f32>, tensor<f32>) -> tensor<i1>
    mindir.condition(%lt : tensor<i1>) %t : tuple<tensor<f32>, tensor<2xf32>>
  } do {
  ^bb0(%u: tuple<tensor<f32>, tensor<2xf32>>):
    %j = mindir.tuple_get_item %u {index = 0 : i64} : (tuple<tensor<f32>, tensor<2xf32>>) -> tensor<f32>
    %v = mindir.tuple_get_item %u {index = 1 : i64} : (tuple<tensor<f32>, tensor<2xf32>>) -> tensor<2xf32>
    %next = mindir.add %j, %x : tensor<f32>
    %v2 = mindir.mul %v, %j : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
    %t2 = mindir.make_tuple %next, %v2 : (tensor<f32>, tensor<2xf32>) -> tuple<tensor<f32>, tensor<2xf32>>
    mindir.yield %t2 : tuple<tensor<f32>, tensor<2xf32>>
  }
  %r = mindir.if %c -> (tuple<tensor<f32>, tensor<2xf32>>) {
    mindir.yield %w : tuple<tensor<f32>, tensor<2xf32>>
  } else {
    mindir.yield %t0 : tuple<tensor<f32>, tensor<2xf32>>
  }
  func.return %r : tuple<tensor<f32>, tensor<2xf32>>
}

// -----

// depend is its value, tensor_move a real copy; states and update_state vanish.

// CHECK-LABEL: func.func @depend_tensor_move
// CHECK-SAME:    (%x: tensor<2xf32>, %y: tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<2xf32>
// CHECK-NEXT:    %[[M:.*]] = linalg.copy ins(%x : tensor<2xf32>) outs(%[[E]] : tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT:    func.return %[[M]] : tensor<2xf32>
func.func @depend_tensor_move(%x: tensor<2xf32>, %y: tensor<2xf32>, %u0: !mindir.u) -> (tensor<2xf32>, !mindir.u) {
  %m = mindir.tensor_move %x : tensor<2xf32>
  %u1 = mindir.update_state %u0, %m : tensor<2xf32>
  %d = mindir.depend %m, %y, %u1 : tensor<2xf32>, tensor<2xf32>, !mindir.u
  func.return %d, %u1 : tensor<2xf32>, !mindir.u
}

// -----

// The float-status ops become calls of runtime declarations (one per kind), kept
// in block order; the CPU executor emulates the overflow flag behind them.
// CHECK:       func.func private @__mindjit_float_status_alloc() -> tensor<8xf32> attributes {mindjit.runtime = "float_status_alloc"}
// CHECK-NEXT:  func.func private @__mindjit_float_status_clear(tensor<8xf32>) -> tensor<8xf32> attributes {mindjit.runtime = "float_status_clear"}
// CHECK-NEXT:  func.func private @__mindjit_float_status_get(tensor<8xf32>) -> tensor<8xf32> attributes {mindjit.runtime = "float_status_get"}
// CHECK-LABEL: func.func @float_status
// CHECK-NEXT:    %s = func.call @__mindjit_float_status_alloc() : () -> tensor<8xf32>
// CHECK-NEXT:    %c = func.call @__mindjit_float_status_clear(%s) : (tensor<8xf32>) -> tensor<8xf32>
// CHECK-NEXT:    %g = func.call @__mindjit_float_status_get(%s) : (tensor<8xf32>) -> tensor<8xf32>
// CHECK-NEXT:    func.return %x, %g : tensor<2xf16>, tensor<8xf32>
func.func @float_status(%x: tensor<2xf16>) -> (tensor<2xf16>, tensor<8xf32>) {
  %s = mindir.npu_alloc_float_status : tensor<8xf32>
  %c = mindir.npu_clear_float_status %s : tensor<8xf32>
  %x1 = mindir.depend %x, %c : tensor<2xf16>, tensor<8xf32>
  %g = mindir.npu_get_float_status %s : tensor<8xf32>
  func.return %x1, %g : tensor<2xf16>, tensor<8xf32>
}

// -----

// argmax: one reduction carrying (best value, its first index); the first NaN wins.
// CHECK-LABEL: func.func @argmax
// CHECK:         %[[NINF:.*]] = arith.constant 0xff800000 : f32
// CHECK:         %[[V:.*]] = linalg.fill ins(%[[NINF]] : f32) outs(%{{.*}} : tensor<2xf32>) -> tensor<2xf32>
// CHECK:         %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK:         %[[I:.*]] = linalg.fill ins(%[[ZERO]] : i64) outs(%{{.*}} : tensor<2xi64>) -> tensor<2xi64>
// CHECK:         %{{.*}}, %[[IDX:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<2x3xf32>) outs(%[[V]], %[[I]] : tensor<2xf32>, tensor<2xi64>) {
// CHECK-NEXT:    ^bb0(%[[X:.*]]: f32, %[[ACC:.*]]: f32, %[[ACCI:.*]]: i64):
// CHECK-NEXT:      %[[J:.*]] = linalg.index 1 : index
// CHECK-NEXT:      %[[JC:.*]] = arith.index_cast %[[J]] : index to i64
// CHECK-NEXT:      %[[GT:.*]] = arith.cmpf ogt, %[[X]], %[[ACC]] : f32
// CHECK-NEXT:      %[[XNAN:.*]] = arith.cmpf uno, %[[X]], %[[X]] : f32
// CHECK-NEXT:      %[[ACCNUM:.*]] = arith.cmpf ord, %[[ACC]], %[[ACC]] : f32
// CHECK-NEXT:      %[[FIRSTNAN:.*]] = arith.andi %[[XNAN]], %[[ACCNUM]] : i1
// CHECK-NEXT:      %[[BETTER:.*]] = arith.ori %[[GT]], %[[FIRSTNAN]] : i1
// CHECK-NEXT:      %[[NV:.*]] = arith.select %[[BETTER]], %[[X]], %[[ACC]] : f32
// CHECK-NEXT:      %[[NI:.*]] = arith.select %[[BETTER]], %[[JC]], %[[ACCI]] : i64
// CHECK-NEXT:      linalg.yield %[[NV]], %[[NI]] : f32, i64
// CHECK-NEXT:    } -> (tensor<2xf32>, tensor<2xi64>)
// CHECK-NEXT:    func.return %[[IDX]] : tensor<2xi64>
func.func @argmax(%x: tensor<2x3xf32>) -> tensor<2xi64> {
  %i = mindir.argmax %x {axis = 1 : i64, index_type = i64} : (tensor<2x3xf32>) -> tensor<2xi64>
  func.return %i : tensor<2xi64>
}

// -----

// argmin of integers along axis 0, keep_dims: the largest integer as the init, a
// signed compare, and the reduced axis put back as size 1.
// CHECK-LABEL: func.func @argmin_keep
// CHECK:         arith.constant 2147483647 : i32
// CHECK:         iterator_types = ["reduction", "parallel"]
// CHECK:         arith.cmpi slt
// CHECK-NOT:     arith.cmpf
// CHECK:         %[[E:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0 : i64, 1 : i64]] output_shape [1, 3] : tensor<3xi32> into tensor<1x3xi32>
// CHECK-NEXT:    func.return %[[E]] : tensor<1x3xi32>
func.func @argmin_keep(%x: tensor<2x3xi32>) -> tensor<1x3xi32> {
  %i = mindir.argmin %x {axis = 0 : i64, keep_dims = true} : (tensor<2x3xi32>) -> tensor<1x3xi32>
  func.return %i : tensor<1x3xi32>
}

// -----

// sort of integers along axis 0: rank by counting over a second loop dim (named
// kernel mindjit_sort_rank), the inverse permutation (mindjit_sort_place), then a
// gather of the values.
// CHECK-LABEL: func.func @sort
// CHECK:         %[[R:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"], library_call = "mindjit_sort_rank"} ins(%x, %x : tensor<4x3xi32>, tensor<4x3xi32>) outs(%{{.*}} : tensor<4x3xi32>) {
// CHECK-NEXT:    ^bb0(%[[XI:.*]]: i32, %[[XJ:.*]]: i32, %[[ACC:.*]]: i32):
// CHECK-NEXT:      %[[I0:.*]] = linalg.index 0 : index
// CHECK-NEXT:      %[[I:.*]] = arith.index_cast %[[I0]] : index to i32
// CHECK-NEXT:      %[[J0:.*]] = linalg.index 2 : index
// CHECK-NEXT:      %[[J:.*]] = arith.index_cast %[[J0]] : index to i32
// CHECK-NEXT:      %[[EARLIER:.*]] = arith.cmpi slt, %[[J]], %[[I]] : i32
// CHECK-NEXT:      %[[TIE:.*]] = arith.cmpi eq, %[[XJ]], %[[XI]] : i32
// CHECK-NEXT:      %[[TIEFIRST:.*]] = arith.andi %[[TIE]], %[[EARLIER]] : i1
// CHECK-NEXT:      %[[LESS:.*]] = arith.cmpi slt, %[[XJ]], %[[XI]] : i32
// CHECK-NEXT:      %[[BEFORE:.*]] = arith.ori %[[LESS]], %[[TIEFIRST]] : i1
// CHECK-NEXT:      %[[ONE:.*]] = arith.extui %[[BEFORE]] : i1 to i32
// CHECK-NEXT:      %[[SUM:.*]] = arith.addi %[[ACC]], %[[ONE]] : i32
// CHECK-NEXT:      linalg.yield %[[SUM]] : i32
// CHECK:         %[[IDX:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"], library_call = "mindjit_sort_place"} ins(%[[R]] : tensor<4x3xi32>)
// CHECK:           arith.cmpi eq
// CHECK:           arith.select
// CHECK:         %[[V:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[IDX]] : tensor<4x3xi32>)
// CHECK:           %[[AT:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK-NEXT:      %[[COL:.*]] = linalg.index 1 : index
// CHECK-NEXT:      tensor.extract %x[%[[AT]], %[[COL]]] : tensor<4x3xi32>
// CHECK:         func.return %[[V]], %[[IDX]] : tensor<4x3xi32>, tensor<4x3xi32>
func.func @sort(%x: tensor<4x3xi32>) -> (tensor<4x3xi32>, tensor<4x3xi32>) {
  %v, %i = mindir.sort %x {axis = 0 : i64} : tensor<4x3xi32> -> (tensor<4x3xi32>, tensor<4x3xi32>)
  func.return %v, %i : tensor<4x3xi32>, tensor<4x3xi32>
}

// -----

// Descending float sort: x_j goes first when larger, or NaN against a number.
// CHECK-LABEL: func.func @sort_descending
// CHECK:         library_call = "mindjit_sort_rank_desc"
// CHECK:         ^bb0(%[[XI:.*]]: f32, %[[XJ:.*]]: f32, %{{.*}}: i32):
// CHECK:           arith.cmpf olt, %[[XI]], %[[XJ]] : f32
// CHECK-NEXT:      arith.cmpf uno, %[[XJ]], %[[XJ]] : f32
// CHECK-NEXT:      arith.cmpf ord, %[[XI]], %[[XI]] : f32
func.func @sort_descending(%x: tensor<5xf32>) -> tensor<5xf32> {
  %v, %i = mindir.sort %x {descending = true} : tensor<5xf32> -> (tensor<5xf32>, tensor<5xi32>)
  func.return %v : tensor<5xf32>
}

// -----

// cumsum: a reduction over a second loop dim j adding x_j where j <= i (the
// named kernel mindjit_cumsum); exclusive reverse cumprod multiplies the x_j with
// j > i into a fill of 1.
// CHECK-LABEL: func.func @scans
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK:         %[[ONE:.*]] = arith.constant 1 : i32
// CHECK:         %[[C:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"], library_call = "mindjit_cumsum"} ins(%x : tensor<2x3xf32>) outs(%[[INIT]] : tensor<2x3xf32>) {
// CHECK-NEXT:    ^bb0(%[[XJ:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT:      %[[I:.*]] = linalg.index 1 : index
// CHECK-NEXT:      %[[J:.*]] = linalg.index 2 : index
// CHECK-NEXT:      %[[IN:.*]] = arith.cmpi sle, %[[J]], %[[I]] : index
// CHECK-NEXT:      %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[T:.*]] = arith.select %[[IN]], %[[XJ]], %[[Z]] : f32
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[ACC]], %[[T]] : f32
// CHECK-NEXT:      linalg.yield %[[S]] : f32
// CHECK:         library_call = "mindjit_cumprod_exclusive_reverse"
// CHECK:           arith.cmpi sgt
// CHECK:           arith.muli
// CHECK:         func.return %[[C]], %{{.*}} : tensor<2x3xf32>, tensor<4xi32>
func.func @scans(%x: tensor<2x3xf32>, %n: tensor<4xi32>) -> (tensor<2x3xf32>, tensor<4xi32>) {
  %c = mindir.cumsum %x {axis = 1 : i64} : tensor<2x3xf32>
  %p = mindir.cumprod %n {exclusive = true, reverse = true} : tensor<4xi32>
  func.return %c, %p : tensor<2x3xf32>, tensor<4xi32>
}

// -----

// uniform_real: one generic numbering its elements with linalg.index, hashing in
// wrapping i32 arithmetic (xori/shrui/muli) and keeping the top 24 bits as a float.
// CHECK-LABEL: func.func @uniform_real
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<3x4xf32>
// CHECK-NEXT:    %{{.*}} = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%k, %o : tensor<i32>, tensor<i32>) outs(%[[E]] : tensor<3x4xf32>) {
// CHECK:           arith.xori
// CHECK:           arith.shrui
// CHECK:           arith.muli %{{.*}}, %{{.*}} : i32
// CHECK:           %[[I0:.*]] = linalg.index 0 : index
// CHECK-NEXT:      %[[N:.*]] = arith.constant 4 : index
// CHECK-NEXT:      %[[R:.*]] = arith.muli %[[I0]], %[[N]] : index
// CHECK-NEXT:      %[[I1:.*]] = linalg.index 1 : index
// CHECK-NEXT:      %[[L:.*]] = arith.addi %[[R]], %[[I1]] : index
// CHECK-NEXT:      %{{.*}} = arith.index_cast %[[L]] : index to i32
// CHECK:           %[[EIGHT:.*]] = arith.constant 8 : i32
// CHECK-NEXT:      %[[B:.*]] = arith.shrui %{{.*}}, %[[EIGHT]] : i32
// CHECK-NEXT:      %[[F:.*]] = arith.sitofp %[[B]] : i32 to f32
// CHECK-NEXT:      %[[U:.*]] = arith.constant 5.96046448e-08 : f32
// CHECK-NEXT:      %[[V:.*]] = arith.mulf %[[F]], %[[U]] : f32
// CHECK-NEXT:      linalg.yield %[[V]] : f32
func.func @uniform_real(%k: tensor<i32>, %o: tensor<i32>) -> tensor<3x4xf32> {
  %u = mindir.uniform_real %k, %o {seed = 5 : i64, seed2 = 0 : i64, shape = array<i64: 3, 4>} : (tensor<i32>, tensor<i32>) -> tensor<3x4xf32>
  func.return %u : tensor<3x4xf32>
}
