// RUN: ms-opt %s -p convert-mindir-to-tensor --split-input-file | filecheck %s

// gather: a generic over the result reading params with tensor.extract at the
// index (0 where the index is out of range); unsorted_segment_sum: a reduction
// over the ids dims adding x where the id is the segment's loop index.

// CHECK-LABEL: func.func @gather
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<4x2x3x6xf32>
// CHECK-NEXT:    %g = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%i : tensor<2x3xi32>) outs(%[[E]] : tensor<4x2x3x6xf32>) {
// CHECK-NEXT:    ^{{.*}}(%[[IDX:.*]]: i32, %{{.*}}: f32):
// CHECK-NEXT:      %[[I:.*]] = arith.index_cast %[[IDX]] : i32 to index
// CHECK-NEXT:      %[[N:.*]] = arith.constant 5 : index
// CHECK-NEXT:      %[[IN:.*]] = arith.cmpi ult, %[[I]], %[[N]] : index
// CHECK-NEXT:      %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:      %[[SAFE:.*]] = arith.select %[[IN]], %[[I]], %[[C0]] : index
// CHECK-NEXT:      %[[D0:.*]] = linalg.index 0 : index
// CHECK-NEXT:      %[[D3:.*]] = linalg.index 3 : index
// CHECK-NEXT:      %[[V:.*]] = tensor.extract %p[%[[D0]], %[[SAFE]], %[[D3]]] : tensor<4x5x6xf32>
// CHECK-NEXT:      %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[R:.*]] = arith.select %[[IN]], %[[V]], %[[Z]] : f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32
// CHECK-NEXT:    } -> tensor<4x2x3x6xf32>
func.func @gather(%p: tensor<4x5x6xf32>, %i: tensor<2x3xi32>) -> tensor<4x2x3x6xf32> {
  %g = mindir.gather %p, %i {axis = 1 : i64} : (tensor<4x5x6xf32>, tensor<2x3xi32>) -> tensor<4x2x3x6xf32>
  func.return %g : tensor<4x2x3x6xf32>
}

// -----

// CHECK-LABEL: func.func @segment_sum
// CHECK:         %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<7x6xf32>) -> tensor<7x6xf32>
// CHECK-NEXT:    %s = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3)>], iterator_types = ["parallel", "reduction", "reduction", "parallel"]} ins(%i, %x : tensor<2x3xi32>, tensor<2x3x6xf32>) outs(%[[F]] : tensor<7x6xf32>) {
// CHECK-NEXT:    ^{{.*}}(%[[ID:.*]]: i32, %[[X:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT:      %[[I:.*]] = arith.index_cast %[[ID]] : i32 to index
// CHECK-NEXT:      %[[S:.*]] = linalg.index 0 : index
// CHECK-NEXT:      %[[HIT:.*]] = arith.cmpi eq, %[[I]], %[[S]] : index
// CHECK-NEXT:      %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[V:.*]] = arith.select %[[HIT]], %[[X]], %[[Z]] : f32
// CHECK-NEXT:      %[[R:.*]] = arith.addf %[[ACC]], %[[V]] : f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32
// CHECK-NEXT:    } -> tensor<7x6xf32>
func.func @segment_sum(%x: tensor<2x3x6xf32>, %i: tensor<2x3xi32>) -> tensor<7x6xf32> {
  %s = mindir.unsorted_segment_sum %x, %i {num_segments = 7 : i64} : (tensor<2x3x6xf32>, tensor<2x3xi32>) -> tensor<7x6xf32>
  func.return %s : tensor<7x6xf32>
}
