// RUN: ms-opt %s -p convert-mindir-to-tensor --split-input-file | filecheck %s
// RUN: ms-opt %s -p convert-mindir-to-tensor --split-input-file | iree-opt --split-input-file > /dev/null

// A loop's record (passes/mindir_to_tensor/stack.py): a push reads its slot as an
// index, grows the stack in an scf.if when the slot is past its capacity (to
// max(cap + cap/16 + 4, slot + 1): the old items and an empty tail), then writes the item
// with a rank-reducing insert_slice; a read is a rank-reducing extract_slice.

// CHECK-LABEL: func.func @push_read
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[C4:.*]] = arith.constant 4 : index
// CHECK-NEXT:    %[[K:.*]] = tensor.extract %k[] : tensor<i64>
// CHECK-NEXT:    %[[I:.*]] = arith.index_cast %[[K]] : i64 to index
// CHECK-NEXT:    %[[CAP:.*]] = tensor.dim %s, %[[C0]] : tensor<?x3xf32>
// CHECK-NEXT:    %[[FULL:.*]] = arith.cmpi uge, %[[I]], %[[CAP]] : index
// CHECK-NEXT:    %[[G:.*]] = scf.if %[[FULL]] -> (tensor<?x3xf32>) {
// CHECK-NEXT:      %[[SIXTEENTH:.*]] = arith.shrui %[[CAP]], %[[C4]] : index
// CHECK-NEXT:      %[[M0:.*]] = arith.addi %[[CAP]], %[[SIXTEENTH]] : index
// CHECK-NEXT:      %[[M:.*]] = arith.addi %[[M0]], %[[C4]] : index
// CHECK-NEXT:      %[[PAST:.*]] = arith.addi %[[I]], %[[C1]] : index
// CHECK-NEXT:      %[[N:.*]] = arith.maxui %[[M]], %[[PAST]] : index
// CHECK-NEXT:      %[[MORE:.*]] = arith.subi %[[N]], %[[CAP]] : index
// CHECK-NEXT:      %[[TAIL:.*]] = tensor.empty(%[[MORE]]) : tensor<?x3xf32>
// CHECK-NEXT:      %[[NEW:.*]] = tensor.concat dim(0) %s, %[[TAIL]] : (tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
// CHECK-NEXT:      scf.yield %[[NEW]] : tensor<?x3xf32>
// CHECK-NEXT:    } else {
// CHECK-NEXT:      scf.yield %s : tensor<?x3xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %t = tensor.insert_slice %x into %[[G]][%[[I]], 0] [1, 3] [1, 1] : tensor<3xf32> into tensor<?x3xf32>
// CHECK-NEXT:    %[[K2:.*]] = tensor.extract %k[] : tensor<i64>
// CHECK-NEXT:    %[[J:.*]] = arith.index_cast %[[K2]] : i64 to index
// CHECK-NEXT:    %y = tensor.extract_slice %t[%[[J]], 0] [1, 3] [1, 1] : tensor<?x3xf32> to tensor<3xf32>
// CHECK-NEXT:    func.return %t, %y : tensor<?x3xf32>, tensor<3xf32>
func.func @push_read(%s: tensor<?x3xf32>, %k: tensor<i64>, %x: tensor<3xf32>) -> (tensor<?x3xf32>, tensor<3xf32>) {
  %t = mindir.stack_push %s, %k, %x : (tensor<?x3xf32>, tensor<i64>, tensor<3xf32>) -> tensor<?x3xf32>
  %y = mindir.stack_read %t, %k : (tensor<?x3xf32>, tensor<i64>) -> tensor<3xf32>
  func.return %t, %y : tensor<?x3xf32>, tensor<3xf32>
}

// -----

// A new stack has capacity 0; a 0-d item is a slot of a tensor<?xT>, written and
// read with the same rank-reducing slices.

// CHECK-LABEL: func.func @scalars
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %s = tensor.empty(%[[C0]]) : tensor<?xf64>
// CHECK:         %[[I:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK:         tensor.concat dim(0) %s, %{{.*}} : (tensor<?xf64>, tensor<?xf64>) -> tensor<?xf64>
// CHECK:         %t = tensor.insert_slice %x into %{{.*}}[%[[I]]] [1] [1] : tensor<f64> into tensor<?xf64>
// CHECK:         %y = tensor.extract_slice %t[%{{.*}}] [1] [1] : tensor<?xf64> to tensor<f64>
func.func @scalars(%k: tensor<i32>, %x: tensor<f64>) -> tensor<f64> {
  %s = mindir.stack_new : tensor<?xf64>
  %t = mindir.stack_push %s, %k, %x : (tensor<?xf64>, tensor<i32>, tensor<f64>) -> tensor<?xf64>
  %y = mindir.stack_read %t, %k : (tensor<?xf64>, tensor<i32>) -> tensor<f64>
  func.return %y : tensor<f64>
}

// -----

// A record carried by a while keeps its dynamic first dim through the lowering.

// CHECK-LABEL: func.func @carried
// CHECK:         scf.while (%{{.*}} = %{{.*}}, %{{.*}} = %s0) : (tensor<i64>, tensor<?x2xi32>) -> (tensor<i64>, tensor<?x2xi32>)
// CHECK:           scf.condition(%{{.*}}) %{{.*}}, %{{.*}} : tensor<i64>, tensor<?x2xi32>
// CHECK:         ^bb0(%{{.*}}: tensor<i64>, %{{.*}}: tensor<?x2xi32>):
// CHECK:           tensor.insert_slice %x into %{{.*}} : tensor<2xi32> into tensor<?x2xi32>
func.func @carried(%x: tensor<2xi32>, %n: tensor<i64>) -> tensor<?x2xi32> {
  %c0 = mindir.constant dense<0> : tensor<i64>
  %c1 = mindir.constant dense<1> : tensor<i64>
  %s0 = mindir.stack_new : tensor<?x2xi32>
  %w:2 = mindir.while (%k = %c0, %s = %s0) : (tensor<i64>, tensor<?x2xi32>) -> (tensor<i64>, tensor<?x2xi32>) {
    %go = mindir.less %k, %n : (tensor<i64>, tensor<i64>) -> tensor<i1>
    mindir.condition(%go : tensor<i1>) %k, %s : tensor<i64>, tensor<?x2xi32>
  } do {
  ^bb0(%k1: tensor<i64>, %s1: tensor<?x2xi32>):
    %s2 = mindir.stack_push %s1, %k1, %x : (tensor<?x2xi32>, tensor<i64>, tensor<2xi32>) -> tensor<?x2xi32>
    %k2 = mindir.add %k1, %c1 : tensor<i64>
    mindir.yield %k2, %s2 : tensor<i64>, tensor<?x2xi32>
  }
  func.return %w#1 : tensor<?x2xi32>
}

// -----

// One slot per example (mindir-vmap's form: items [B, ...], a tensor<Bxi64>
// index): the stack grows to the largest slot, then a loop over the examples
// writes example b's item at (index[b], b); a read gathers them back, each slot
// clamped into the record (a done example's masked read past its first slot).

// CHECK-LABEL: func.func @lanes
// CHECK:         %[[TOP:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (index) {
// CHECK:           arith.maxui
// CHECK:         arith.cmpi uge, %[[TOP]]
// CHECK:         %t = scf.for %[[L:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<?x2x3xf32>) {
// CHECK-NEXT:      %[[KL:.*]] = tensor.extract %k[%[[L]]] : tensor<2xi64>
// CHECK-NEXT:      %[[SLOT:.*]] = arith.index_cast %[[KL]] : i64 to index
// CHECK-NEXT:      %[[ITEM:.*]] = tensor.extract_slice %x[%[[L]], 0] [1, 3] [1, 1] : tensor<2x3xf32> to tensor<3xf32>
// CHECK-NEXT:      %[[NEW:.*]] = tensor.insert_slice %[[ITEM]] into %[[ACC]][%[[SLOT]], %[[L]], 0] [1, 1, 3] [1, 1, 1] : tensor<3xf32> into tensor<?x2x3xf32>
// CHECK-NEXT:      scf.yield %[[NEW]] : tensor<?x2x3xf32>
// CHECK:         %y = scf.for %[[R:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[OUT:.*]] = %{{.*}}) -> (tensor<2x3xf32>) {
// CHECK:           arith.maxsi
// CHECK-NEXT:      %[[C:.*]] = arith.minsi
// CHECK-NEXT:      %[[GOT:.*]] = tensor.extract_slice %t[%[[C]], %[[R]], 0] [1, 1, 3] [1, 1, 1] : tensor<?x2x3xf32> to tensor<3xf32>
// CHECK-NEXT:      tensor.insert_slice %[[GOT]] into %[[OUT]][%[[R]], 0] [1, 3] [1, 1] : tensor<3xf32> into tensor<2x3xf32>
func.func @lanes(%s: tensor<?x2x3xf32>, %k: tensor<2xi64>, %x: tensor<2x3xf32>) -> (tensor<?x2x3xf32>, tensor<2x3xf32>) {
  %t = mindir.stack_push %s, %k, %x : (tensor<?x2x3xf32>, tensor<2xi64>, tensor<2x3xf32>) -> tensor<?x2x3xf32>
  %y = mindir.stack_read %t, %k : (tensor<?x2x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  func.return %t, %y : tensor<?x2x3xf32>, tensor<2x3xf32>
}
